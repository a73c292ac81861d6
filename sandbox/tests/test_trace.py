"""The runtime's message trace (docs/trace.md) through `run_local.py`: a 4-node run's rows match a
hand count, causal operation ids survive nested calls, threads and coroutines, urpc and the app's
raw sockets are traced, a node past its cap aggregates with exact sums, simulated traces are
byte-identical across reruns of one seed, and live runs trace only on request."""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

SANDBOX = Path(__file__).resolve().parents[1]

# Node 1 calls node 2 twice ("echo"), node 3 once over urpc, and node 4 once ("relay"), which
# node 4 serves by calling node 2 ("echo") directly, from a thread, and from a thread that a
# coroutine of its own started.
# Node 2 sends one raw UDP datagram to node 3. The harness runs node 1's relay as an operation.
APP = r'''
require "splay.base"
local rpc, urpc = require "splay.rpc", require "splay.urpc"
rpc.server(job.me.port)
urpc.server(job.me.port)     -- UDP, beside rpc's TCP on the same port
function echo(x) return x end
function relay(x)
  local via_thread, via_coroutine
  events.thread(function() via_thread = rpc.call(job.nodes[2], {"echo", x}) end)
  -- a coroutine of the app's own (it cannot wait on the network itself) starts a thread that does
  coroutine.wrap(function()
    events.thread(function() via_coroutine = rpc.call(job.nodes[2], {"echo", x}) end)
  end)()
  local direct = rpc.call(job.nodes[2], {"echo", x})
  while via_thread == nil or via_coroutine == nil do events.sleep(0.01) end
  return direct + via_coroutine + via_thread
end
function go()
  return rpc.call(job.nodes[4], {"relay", 1})
end
events.thread(function()
  events.sleep(1)
  if job.position == 1 then
    rpc.call(job.nodes[2], {"echo", 1})
    rpc.call(job.nodes[2], {"echo", 2})
    urpc.call(job.nodes[3], {"echo", 3})
  elseif job.position == 2 then
    local u = socket.udp()
    u:sendto("hello", job.nodes[3].ip, job.nodes[3].port)
    u:close()
  end
  events.sleep(2)
  events.exit()
end)
'''

HARNESS = r'''
local h = ...
local events = require "splay.events"
events.thread(function()
  events.sleep(2)
  if h.job.position == 1 then
    local op, _, ok, r = h.operation("relay", h.global("go"))
    h.record("relayed", r or -1, {op = op, ok = ok})
  end
end)
'''


def run(tmp_path: Path, *extra: str, nodes: int = 4, app: str = APP, harness: str | None = HARNESS,
        name: str = "out") -> list[dict[str, Any]]:
    (tmp_path / "app.lua").write_text(app)
    argv = [sys.executable, str(SANDBOX / "run_local.py"), str(tmp_path / "app.lua"), "--nodes", str(nodes),
            "--time", "5", "--seed", "7", "--out", str(tmp_path / f"{name}.jsonl"), "--quiet", *extra]
    if harness is not None:
        (tmp_path / "harness.lua").write_text(harness)
        argv += ["--harness", str(tmp_path / "harness.lua")]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    records = [json.loads(line) for line in (tmp_path / f"{name}.jsonl").read_text().splitlines()]
    assert proc.returncode == 0, (proc.stderr, [r for r in records if r["kind"] != "trace"])
    return records


def rows(records: list[dict[str, Any]]) -> list[tuple[int, list[Any]]]:
    return [(r["node"], row) for r in records if r["kind"] == "trace" for row in r["rows"]]


def hand_count_holds(records: list[dict[str, Any]]) -> None:
    got = Counter((node, row[1], row[2], row[3], row[6]) for node, row in rows(records) if row[1] != "op")
    # a served call names its caller when it belongs to an operation (the envelope says who);
    # the others' callers are in their own call rows
    assert got == Counter({
        (1, "call", 2, "echo", "ok"): 2, (2, "serve", 0, "echo", "ok"): 2,
        (1, "ucall", 3, "echo", "ok"): 1, (3, "userve", 0, "echo", "ok"): 1,
        (2, "sendto", 3, "", "ok"): 1,
        (1, "call", 4, "relay", "ok"): 1, (4, "serve", 1, "relay", "ok"): 1,
        (4, "call", 2, "echo", "ok"): 3, (2, "serve", 4, "echo", "ok"): 3,
    }), got
    for _, row in rows(records):
        assert len(row) == 11 and row[10] == 1
        if row[1] in ("call", "serve"):
            assert row[4] > 0 and row[5] > 0     # request and reply bytes, both ways


def causal_ids_hold(records: list[dict[str, Any]]) -> None:
    ops = [row for node, row in rows(records) if row[1] == "op"]
    assert len(ops) == 1 and ops[0][3] == "relay" and ops[0][6] == "ok"
    op = ops[0][7]
    assert op.startswith("1:")
    traced = [(node, row[1], row[2], row[8]) for node, row in rows(records) if row[7] == op and row[1] != "op"]
    # node 1's call at depth 1, node 4 serves it at depth 1 and calls node 2 three times (direct,
    # from a thread, from a coroutine) at depth 2, which node 2 serves at depth 2
    assert Counter(traced) == Counter({(1, "call", 4, 1): 1, (4, "serve", 1, 1): 1,
                                       (4, "call", 2, 2): 3, (2, "serve", 4, 2): 3}), traced
    relayed = [r for r in records if r["kind"] == "probe" and r["name"] == "relayed"]
    assert [(r["value"], r["fields"]["op"]) for r in relayed] == [(3, op)]


def test_a_simulated_trace_matches_the_hand_count(tmp_path: Path) -> None:
    records = run(tmp_path, "--sim")
    hand_count_holds(records)
    causal_ids_hold(records)


def test_a_live_trace_matches_the_hand_count(tmp_path: Path) -> None:
    records = run(tmp_path, "--trace")
    hand_count_holds(records)
    causal_ids_hold(records)
    # live rows carry the node's clock, rewritten to seconds since the run started
    assert all(0 < row[0] < 6 for _, row in rows(records))


def test_a_live_run_traces_only_on_request(tmp_path: Path) -> None:
    assert rows(run(tmp_path, harness=None)) == []


def test_a_simulated_trace_is_byte_identical_across_reruns(tmp_path: Path) -> None:
    run(tmp_path, "--sim", name="first")
    run(tmp_path, "--sim", name="second")
    first, second = ((tmp_path / f"{n}.jsonl").read_bytes() for n in ("first", "second"))
    assert b'"kind": "trace"' in first
    assert first == second


CHATTY = r'''
require "splay.base"
local rpc = require "splay.rpc"
rpc.server(job.me.port)
function echo(x) return x end
events.thread(function()
  events.sleep(0.5)
  if job.position == 1 then
    for i = 1, 250 do rpc.call(job.nodes[2], {"echo", i}) end
  end
  events.sleep(1)
  events.exit()
end)
'''


def test_past_its_cap_a_node_aggregates_and_the_sums_stay_exact(tmp_path: Path) -> None:
    records = run(tmp_path, "--sim", "--trace-max", "100", app=CHATTY, harness=None, nodes=2)
    mine = [row for node, row in rows(records) if node == 1]
    capped = [row for row in mine if row[1] == "capped"]
    assert len(capped) == 1 and capped[0][10] == 100
    listed = [row for row in mine if row[1] == "call" and row[10] == 1]
    aggregated = [row for row in mine if row[1] == "call" and row[10] > 1]
    assert len(listed) == 100 and aggregated
    assert sum(row[10] for row in mine if row[1] == "call") == 250
    # the served side lists its own first 100 and aggregates the rest
    assert sum(row[10] for node, row in rows(records) if node == 2 and row[1] == "serve") == 250
    assert all(len(json.dumps({"rows": r["rows"]})) < 4000 for r in records if r["kind"] == "trace")


def test_simulated_rows_are_written_as_they_came_once_checked() -> None:
    # run_records writes a simulation's rows as sim.lua formatted them (no re-encoding), but only
    # a line that is exactly {"rows": one JSON list of lists}: nothing can ride along into the record
    import io
    sys.path.insert(0, str(SANDBOX))
    from run_records import Output
    buf = io.StringIO()
    output = Output(buf, start=0.0, quiet=True)
    output.virtual = 2.5
    row = [1.25, "call", 2, "find", 10, 12, "ok", "", 0, 0.125, 1]
    output.record(3, "trace", '{"rows":' + json.dumps([row]) + "}")
    # what orjson refuses and Python's json reads is read by json, as before orjson
    output.record(3, "trace", '{"rows":[[NaN,"call",2,"f",1,1,"ok","",0,Infinity,1]]}')
    output.record(3, "trace", '{"rows":[[1.5,"call",2,"f",1,1,"ok","",0,0,1]], "kind": "probe"}')
    output.record(3, "trace", '{"rows":[[1.5,"call"]]}, {"node": 1}')
    output.record(3, "trace", '{"rows":[1.5]}')
    lines = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert lines[0] == {"node": 3, "t": 2.5, "kind": "trace", "rows": [row], "sim": True}
    assert lines[1]["kind"] == "trace" and lines[1]["rows"][0][0] != lines[1]["rows"][0][0]   # NaN
    assert lines[1]["rows"][0][9] == float("inf")
    assert [r["kind"] for r in lines[2:]] == ["log"] * 3
    assert all(r["level"] == "error" and r["text"].startswith("malformed trace record") for r in lines[2:])
