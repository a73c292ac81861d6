"""The message trace on the daemon (docs/trace.md): `list`'s "trace" becomes job.json's block,
and the runtime's `probe` / `trace` records travel like the others, outside the app's log
rate limit."""
from __future__ import annotations

import json
from pathlib import Path

from splayd.instances import Instance, Limits
from splayd.outbox import Outbox
from splayd.records import parse_record

from .utils import FakeController

SLEEPER = 'print("up")\nwhile true do events.sleep(0.05) end'


async def test_job_json_has_a_trace_block_only_when_the_job_asks(
        controller: FakeController, run_daemon, tmp_path: Path) -> None:
    def spec(job: int) -> dict:
        return json.loads((tmp_path / "work" / f"job-{job}" / "node-1" / "job.json").read_text())

    async with run_daemon():
        await controller.deploy(21, SLEEPER, trace=True)
        await controller.deploy(22, SLEEPER, trace={"max_events": 500})
        await controller.deploy(23, SLEEPER)
        await controller.deploy(24, SLEEPER, trace=False)
        assert spec(21)["trace"] == {"max_events": 20000}
        assert spec(22)["trace"] == {"max_events": 500}
        assert "trace" not in spec(23) and "trace" not in spec(24)
        assert spec(23)["limits"]["max_sockets"] == 64  # the rest of job.json is as before
        for job in (21, 22, 23, 24):
            assert (await controller.command("stop", job=job))["ok"]


PING = """require "splay.base"
local rpc = require "splay.rpc"
function ping(x) return x end
rpc.server(job.me.port)
events.run(function()
  if job.position == 1 then
    events.sleep(0.3)
    rpc.call(job.nodes[2], {"ping", "hello"})
  end
  events.sleep(0.8)
  events.exit()
end)
"""


async def test_a_traced_jobs_rows_reach_the_controller_as_trace_records(controller: FakeController, run_daemon) -> None:
    async with run_daemon():
        await controller.deploy(41, PING, nodes=2, trace=True)
        for k in (1, 2):
            assert (await controller.wait_final(41, k))["state"] == "ENDED"
        rows = {k: [r for ln in controller.lines(41, k) if ln["level"] == "trace"
                    for r in json.loads(ln["text"])["rows"]] for k in (1, 2)}
        assert [(r[1], r[2], r[3], r[6]) for r in rows[1] if r[1] == "call"] == [("call", 2, "ping", "ok")]
        # (a served call names its caller only when it belongs to an operation: 0 here)
        assert [(r[1], r[2], r[3]) for r in rows[2] if r[1] == "serve"] == [("serve", 0, "ping")]
        assert all(not ln["text"].startswith("trace") for k in (1, 2) for ln in controller.lines(41, k))


async def test_a_bad_trace_option_is_refused_with_the_reason(controller: FakeController, run_daemon) -> None:
    async with run_daemon():
        port = (await controller.command("register", job=31, count=1))["ports"][0]
        base = {"job": 31, "code": SLEEPER, "instances": [{"node": 1, "port": port}],
                "nodes": [{"ip": "127.0.0.1", "port": port}]}
        for trace, reason in (
            ({"max_events": 0}, "trace.max_events: expected an integer between 1 and 1,000,000, got 0"),
            ({"max_events": 2_000_000}, "trace.max_events: expected an integer between 1 and 1,000,000, "
                                        "got 2000000"),
            ({"max_event": 10}, "trace.max_event: unknown option (known: max_events)"),
            ("yes", "trace: expected true, false or {\"max_events\": N}, got 'yes'"),
        ):
            reply = await controller.command("list", trace=trace, **base)
            assert (reply["ok"], reply["reason"]) == (False, reason)
        assert (await controller.command("start", job=31))["reason"] == "job 31 was not listed before start"


def test_probe_and_trace_are_record_levels() -> None:
    assert parse_record(b'trace\t{"rows":[]}') == ("trace", '{"rows":[]}')
    assert parse_record(b'probe\t{"name":"x","value":1}') == ("probe", '{"name":"x","value":1}')
    assert parse_record(b'trace\t{"rows":[]}', stream="stderr") == ("error", 'trace\t{"rows":[]}')


def test_the_log_rate_limit_drops_app_lines_but_never_trace_or_probe_records(tmp_path: Path) -> None:
    box = Outbox()
    limits = Limits(max_mem=2**27, max_cpu=5, max_open_files=64, max_file_size=2**20, duration=None,
                    log_lines_per_second=3)
    inst = Instance(9, 1, 27100, tmp_path, limits, box)
    for i in range(10):  # one second's window: 10 prints, 10 trace batches, 2 probes, interleaved
        inst._emit(f"print\tline {i}".encode(), False, "stdout")
        inst._emit(f'trace\t{{"rows":[[{i},"send",2,"",10,0,"ok","",0,0,1]]}}'.encode(), False, "stdout")
        if i % 5 == 0:
            inst._emit(b'probe\t{"name":"op","value":1}', False, "stdout")
    inst.report_dropped()
    box.flush_logs()
    lines = [ln for m in iter(box.pop, None) for ln in m.get("lines", [])]
    levels = [ln["level"] for ln in lines]
    assert levels.count("trace") == 10 and levels.count("probe") == 2
    assert [ln["text"] for ln in lines if ln["level"] == "print"] == ["line 0", "line 1", "line 2"]
    assert lines[-1]["text"] == "log rate limit: 7 lines dropped"
    assert [ln["seq"] for ln in lines] == list(range(1, len(lines) + 1))  # numbered as they were kept
