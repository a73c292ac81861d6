"""Instance handling with REAL luajit processes running sandbox/node.lua under rlimits."""
from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any

from splayd.config import DEFAULT_SANDBOX_DIR
from splayd.instances import Instance, Limits
from splayd.outbox import Outbox, log_batches

LUAJIT = shutil.which("luajit") or "luajit"
MB = 2**20


async def run_node(
    tmp_path: Path,
    code: str,
    max_mem_mb: int = 128,
    max_cpu: int = 5,
    kill_after: float | None = None,
    timeout: float = 10,
) -> tuple[Instance, list[dict[str, Any]], list[dict[str, Any]]]:
    """Run one node to its end; returns (instance, log lines, instance messages)."""
    workdir = tmp_path / "node-1"
    workdir.mkdir()
    (workdir / "app.lua").write_text(code)
    (workdir / "job.json").write_text(
        json.dumps({"me": {"ip": "127.0.0.1", "port": 20000}, "nodes": [{"ip": "127.0.0.1", "port": 20000}],
                    "position": 1, "job_id": 1, "duration": 30})
    )
    limits = Limits(max_mem=max_mem_mb * MB, max_cpu=max_cpu, max_open_files=64, max_file_size=MB, duration=None)
    outbox = Outbox()
    inst = Instance(1, 1, 20000, workdir, limits, outbox)
    await inst.start([LUAJIT, str(DEFAULT_SANDBOX_DIR / "node.lua"), "job.json", "app.lua"],
                     {"PATH": "/usr/bin:/bin"})
    if kill_after is not None:
        await asyncio.sleep(kill_after)
        inst.kill("ENDED", "duration of 1 s reached")
    await asyncio.wait_for(inst.done.wait(), timeout)
    outbox.flush_logs()
    lines = [line for f in outbox.tail for m in log_batches(f) for line in m["lines"]]
    states = [m for m in outbox.tail if m["type"] == "instance"]
    return inst, lines, states


async def test_normal_exit_reports_running_then_ended_with_the_records(tmp_path: Path) -> None:
    inst, lines, states = await run_node(tmp_path, 'print("hello", job.position)\nlog.warn("careful")')
    assert [(s["state"], s["reason"]) for s in states] == [("RUNNING", "started"), ("ENDED", "ended normally")]
    assert states[-1]["exit_code"] == 0
    assert [(ln["level"], ln["text"]) for ln in lines] == [("print", "hello\t1"), ("warning", "careful")]


async def test_runtime_error_fails_with_the_first_error_line_and_logs_the_traceback(tmp_path: Path) -> None:
    code = 'local function f()\n  error("boom")\nend\nprint("before")\nf()\n'
    inst, lines, _ = await run_node(tmp_path, code)
    assert (inst.state, inst.exit_code) == ("FAILED", 1)
    assert inst.reason == "runtime error: app.lua:2: boom"
    errors = [ln["text"] for ln in lines if ln["level"] == "error"]
    assert errors[0] == "app.lua:2: boom"
    assert "stack traceback:" in errors
    assert any("app.lua:5: in main chunk" in e for e in errors)
    assert not any("node.lua" in e or "splaylab/" in e for e in errors)  # runtime frames are hidden


async def test_syntax_error_names_the_line(tmp_path: Path) -> None:
    inst, lines, _ = await run_node(tmp_path, 'print("ok")\nx = = 1\n')
    assert (inst.state, inst.exit_code) == ("FAILED", 2)
    assert inst.reason == "Lua syntax error: app.lua:2: unexpected symbol near '='"
    assert lines[0]["level"] == "error" and lines[0]["text"].startswith("app.lua:2:")


async def test_cpu_spin_is_killed_at_the_cpu_limit_even_inside_pcall(tmp_path: Path) -> None:
    inst, _, _ = await run_node(tmp_path, "print(pcall(function() while true do end end))", max_cpu=1)
    assert inst.state == "FAILED"
    assert inst.reason == "killed: CPU time limit of 1 s exceeded"
    assert inst.exit_code is not None and inst.exit_code < 0


async def test_memory_bomb_is_reported_as_the_memory_limit(tmp_path: Path) -> None:
    code = 'print(pcall(string.rep, "x", 2^30))\nlocal t = {}\nfor i = 1, 1e9 do t[i] = {i, "x" .. i} end\n'
    inst, lines, _ = await run_node(tmp_path, code, max_mem_mb=64)
    assert (inst.state, inst.exit_code) == ("FAILED", 4)
    assert inst.reason == "killed: memory limit of 64 MB reached"
    assert lines[0] == {**lines[0], "level": "print", "text": "false\tnot enough memory"}


async def test_kill_reports_the_given_state_and_reason(tmp_path: Path) -> None:
    inst, lines, _ = await run_node(
        tmp_path, 'print("up")\nwhile true do events.sleep(0.05) end', kill_after=0.5
    )
    assert (inst.state, inst.reason, inst.exit_code) == ("ENDED", "duration of 1 s reached", -9)
    assert [ln["text"] for ln in lines] == ["up"]


async def test_output_keeps_its_order_and_seq_counts_from_one(tmp_path: Path) -> None:
    code = 'for i = 1, 1000 do print(i) end\nio.write("no newline at the end")'
    inst, lines, _ = await run_node(tmp_path, code)
    assert inst.state == "ENDED"
    assert [ln["seq"] for ln in lines] == list(range(1, 1002))
    assert [ln["text"] for ln in lines[:1000]] == [str(i) for i in range(1, 1001)]
    assert lines[-1]["text"] == "no newline at the end"
    assert all(a["t"] <= b["t"] for a, b in zip(lines, lines[1:]))


async def test_forged_records_and_huge_lines_stay_in_their_level(tmp_path: Path) -> None:
    code = 'print("error\\tforged\\ninfo\\tforged too")\nprint(string.rep("y", 10000))'
    inst, lines, _ = await run_node(tmp_path, code)
    assert [(ln["level"], ln["text"][:12]) for ln in lines] == [
        ("print", "error\tforged"),
        ("print", "info\tforged "),
        ("print", "yyyyyyyyyyyy"),
    ]
    assert lines[2]["text"].endswith("[line truncated at 4096 bytes]")
    assert len(lines[2]["text"].encode()) < 4200


async def test_the_node_runs_with_rlimits_a_minimal_env_and_its_own_session(tmp_path: Path) -> None:
    workdir = tmp_path / "node-1"
    workdir.mkdir()
    (workdir / "app.lua").write_text("print(io.read())\nevents.sleep(0.5)")
    (workdir / "job.json").write_text('{"me": {"ip": "127.0.0.1", "port": 1}, "nodes": [], "position": 1}')
    limits = Limits(max_mem=100 * MB, max_cpu=7, max_open_files=64, max_file_size=3 * MB, duration=None)
    outbox = Outbox()
    inst = Instance(1, 1, 1, workdir, limits, outbox)
    await inst.start([LUAJIT, str(DEFAULT_SANDBOX_DIR / "node.lua"), "job.json", "app.lua"], {"PATH": "/usr/bin:/bin"})
    assert inst.proc is not None
    pid = inst.proc.pid
    await asyncio.sleep(0.2)
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    limits_text = Path(f"/proc/{pid}/limits").read_text()
    fds = {int(fd): os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
    assert os.getpgid(pid) == pid and os.getsid(pid) == pid
    await asyncio.wait_for(inst.done.wait(), 5)
    assert [e for e in environ if e] == [b"PATH=/usr/bin:/bin"]
    rows = {line[:26].strip(): line[26:].split() for line in limits_text.splitlines()[1:]}
    assert rows["Max address space"][:2] == [str(100 * MB)] * 2
    assert rows["Max cpu time"][:2] == ["7", "9"]
    assert rows["Max open files"][:2] == ["64", "64"]
    assert rows["Max file size"][:2] == [str(3 * MB)] * 2
    assert rows["Max core file size"][:2] == ["0", "0"]
    assert rows["Max processes"][:2] == ["0", "0"]
    # no descriptor leaked from the daemon; the runtime's own signalfd catches SIGTERM (on_leave)
    assert sorted(fds) == [0, 1, 2, 3] and fds[3] == "anon_inode:[signalfd]", fds
    assert inst.state == "ENDED"
    outbox.flush_logs()
    assert [ln["text"] for f in outbox.tail for m in log_batches(f) for ln in m["lines"]] == ["nil"]
