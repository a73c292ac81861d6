"""The simulator (docs/simulation.md) through `run_local.py --sim`: reruns are byte-identical,
the network model and churn act in virtual time, and a node that computes without end stops
the run with its position and the virtual time."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SANDBOX = Path(__file__).resolve().parent.parent
RUN_LOCAL = SANDBOX / "run_local.py"
APPS = SANDBOX / "apps"


def sim(app: Path, tmp_path: Path, *args: str, name: str = "out") -> tuple[subprocess.CompletedProcess[str], bytes]:
    out = tmp_path / f"{name}.jsonl"
    proc = subprocess.run([sys.executable, str(RUN_LOCAL), str(app), "--sim", "--out", str(out), "--quiet", *args],
                          capture_output=True, text=True, timeout=120)
    return proc, out.read_bytes() if out.exists() else b""


def records(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.splitlines()]


def three_runs(app: Path, tmp_path: Path, *common: str) -> tuple[bytes, bytes, bytes]:
    first, a = sim(app, tmp_path, *common, "--seed", "5", name="a")
    second, b = sim(app, tmp_path, *common, "--seed", "5", name="b")
    third, c = sim(app, tmp_path, *common, "--seed", "6", name="c")
    assert first.returncode == second.returncode == third.returncode == 0, first.stderr
    return a, b, c


def test_same_seed_gives_byte_identical_output_and_another_seed_differs(tmp_path: Path) -> None:
    # Chord on a jittery, lossy network: jitter and loss draws, rpc timeouts, math.random
    a, b, c = three_runs(APPS / "chord.lua", tmp_path, "--nodes", "40", "--time", "40",
                         "--net", "jitter:30ms:10ms", "--loss", "1%")
    assert len([r for r in records(a) if r["kind"] == "metric" and r["name"] == "lookup_latency"]) == 200
    assert a == b
    assert a != c


def test_reruns_under_churn_are_byte_identical_too(tmp_path: Path) -> None:
    scenario = tmp_path / "churn.txt"
    scenario.write_text("at 0s join 20\nfrom 10s to 20s const churn 50%\n")
    a, b, c = three_runs(APPS / "cyclon.lua", tmp_path, "--time", "30", "--churn", str(scenario),
                         "--net", "jitter:30ms:10ms")
    assert len([r for r in records(a) if r["kind"] == "churn"]) >= 20 + 10
    assert len([r for r in records(a) if r["kind"] == "metric" and r["name"] == "cyclon_exchange"]) > 100
    assert a == b
    assert a != c


def test_the_network_model_delays_messages_in_virtual_time(tmp_path: Path) -> None:
    app = tmp_path / "rtt.lua"
    app.write_text("""
require "splay.base"
local rpc = require "splay.rpc"
events.run(function()
  rpc.server(job.me.port)
  events.sleep(1)
  local peer = job.nodes[job.position % #job.nodes + 1]
  for _ = 1, 3 do
    local t0 = misc.time()
    assert(rpc.call(peer, { "tostring", 1 }))
    log.print(string.format("rtt=%.4f", misc.time() - t0))
  end
  events.sleep(2)   -- the others' calls to this node are still under way
  events.exit()
end)
""")
    proc, data = sim(app, tmp_path, "--nodes", "3", "--time", "10", "--net", "const:50ms")
    assert proc.returncode == 0, proc.stderr
    rtts: dict[int, list[str]] = {}
    for r in records(data):
        if r["kind"] == "log":
            rtts.setdefault(r["node"], []).append(r["text"])
    # the first call also opens the connection (one more round trip): then one round trip each
    assert rtts == {k: ["rtt=0.2000", "rtt=0.1000", "rtt=0.1000"] for k in (1, 2, 3)}


def test_churn_joins_and_leaves_at_their_virtual_instants(tmp_path: Path) -> None:
    scenario = tmp_path / "churn.txt"
    scenario.write_text("at 0s join 4\nat 3s leave 1\nat 5s leave 1 gracefully\nat 7s join 2\n")
    app = tmp_path / "app.lua"
    app.write_text("""
require "splay.base"
events.on_leave(function() log.print("bye") end)
events.run(function() log.print("up at " .. misc.time()) events.periodic(1, function() end) end)
""")
    proc, data = sim(app, tmp_path, "--churn", str(scenario), "--time", "10", "--seed", "2")
    assert proc.returncode == 0, proc.stderr
    recs = records(data)
    churn = [(r["t"], r["event"], r.get("graceful", False)) for r in recs if r["kind"] == "churn"]
    assert churn == [(0.0, "join", False)] * 4 + [(3.0, "leave", False), (5.0, "leave", True),
                                                   (7.0, "join", False), (7.0, "join", False)]
    ups = sorted(r["t"] for r in recs if r["kind"] == "log" and r["text"].startswith("up at"))
    assert ups == [0.0] * 4 + [7.0, 7.0]
    bye = [r for r in recs if r["kind"] == "log" and r["text"] == "bye"]
    assert len(bye) == 1 and bye[0]["t"] == 5.0
    exits = [(r["t"], r["text"]) for r in recs if r["kind"] == "exit"]
    assert (3.0, "left (churn: failure)") in exits
    assert (5.0, "left (churn: graceful)") in exits
    assert sum(1 for _, text in exits if text == "stopped: duration of 10.0 s reached") == 4


def test_a_node_that_computes_without_end_stops_the_run_naming_it_and_the_virtual_time(tmp_path: Path) -> None:
    app = tmp_path / "spin.lua"
    app.write_text("""
require "splay.base"
events.run(function()
  events.sleep(2.5)
  if job.position == 3 then
    local x = 0
    while true do x = x + 1 end
  end
end)
""")
    proc, data = sim(app, tmp_path, "--nodes", "4", "--time", "10", "--spin-limit", "0.5")
    assert proc.returncode == 1
    last = records(data)[-1]
    assert last["node"] == 3 and last["t"] == 2.5 and last["level"] == "error"
    assert "node 3 computed for more than 0.5 s of CPU without waiting, at virtual time 2.500 s (at app.lua:7)" in last["text"]
    assert "node 3 computed for more than" in proc.stderr


def spin_run(tmp_path: Path, body: str) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """4 nodes; node 3 prints a line at 2.5 s, then runs `body` (at app.lua:8 on)."""
    app = tmp_path / "spin.lua"
    app.write_text(f"""
require "splay.base"
events.run(function()
  events.sleep(2.5)
  if job.position == 3 then
    print("spinning now")
    local s = 0
{body}
  end
end)
""")
    proc, data = sim(app, tmp_path, "--nodes", "4", "--time", "10", "--spin-limit", "0.5")
    return proc, records(data)


def test_a_spin_in_a_for_loop_is_stopped_with_its_line_and_no_record_lost(tmp_path: Path) -> None:
    # the watchdog's signal reaches the node's thread through the profiler's hook; the records
    # sim.lua had buffered (node 3's print) come out before the fatal one
    proc, recs = spin_run(tmp_path, "    for i = 1, math.huge do s = s + i % 7 end")
    assert proc.returncode == 1
    assert [r["text"] for r in recs if r["kind"] == "log" and r["node"] == 3][-2] == "spinning now"
    last = recs[-1]
    assert last["node"] == 3 and last["t"] == 2.5
    assert last["text"].endswith("node 3 computed for more than 0.5 s of CPU without waiting, at virtual "
                                 "time 2.500 s (at app.lua:8) - an endless loop in a handler?")


@pytest.mark.parametrize("body", ["    while true do events.yield() end", "    while true do events.sleep(0) end",
                                  "    events.thread(function() while true do events.yield() end end)\n"
                                  "    while true do events.sleep(0) end"])
def test_threads_that_never_let_time_pass_are_a_spin_too(tmp_path: Path, body: str) -> None:
    # the kernel runs a node's threads itself; what a node's own threads make ready (a yield, a
    # sleep until now) runs in the same turn, as in the live loop's rounds: one endless resume
    proc, recs = spin_run(tmp_path, body)
    assert proc.returncode == 1
    last = recs[-1]
    assert last["node"] == 3 and last["t"] == 2.5
    assert "node 3 computed for more than 0.5 s of CPU without waiting, at virtual time 2.500 s" in last["text"]


# Every shape of computing without end is answered in the interpreter, where the line is named
# and the buffered records come out: not only a loop in one function (a JIT that compiled some of
# the student's functions must keep these; docs/simulation.md, "Student code compiled where it
# cannot spin, tried").
@pytest.mark.parametrize(("body", "line"), [
    ("    local function f(n) return f(n + 1) end\n    f(0)", 8),                      # tail call
    ("    local g\n    local function f(n) return g(n + 1) end\n"
     "    g = function(n) return f(n - 1) end\n    f(0)", None),                         # two of them
    ("    ::again:: s = s + 1\n    goto again", None),                                  # goto back
    ("    local function step(x) return x % 7 + 1 end\n"
     "    while true do s = step(s) end", None),                                        # a callee
    ("    local function more(x) return (x * 3 + 1) % 1000003 end\n"
     "    local function again(x) return more(more(x)) end\n"
     "    repeat s = again(s) until s < 0", None),
])
def test_a_spin_through_tail_calls_gotos_and_callees_is_stopped_with_its_line(tmp_path: Path, body: str,
                                                                             line: int | None) -> None:
    proc, recs = spin_run(tmp_path, body)
    assert proc.returncode == 1
    last = recs[-1]
    assert last["node"] == 3 and last["t"] == 2.5
    prefix = "node 3 computed for more than 0.5 s of CPU without waiting, at virtual time 2.500 s (at app.lua:"
    assert prefix in last["text"], last["text"]   # answered in the interpreter: the line is known
    assert [r["text"] for r in recs if r["kind"] == "log" and r["node"] == 3][-2] == "spinning now"
    if line is not None:
        assert f"(at app.lua:{line})" in last["text"], last["text"]


def test_threads_started_without_end_by_a_function_without_a_loop_are_a_spin(tmp_path: Path) -> None:
    # f has no loop; the threads it starts run in one endless turn of the kernel
    proc, recs = spin_run(tmp_path, "    local function f() s = s + 1; events.thread(f) end\n    f()")
    assert proc.returncode == 1
    last = recs[-1]
    assert last["node"] == 3 and last["t"] == 2.5
    assert "node 3 computed for more than 0.5 s of CPU without waiting, at virtual time 2.500 s" in last["text"]


def test_a_tail_call_spin_in_a_loaded_chunk_is_stopped(tmp_path: Path) -> None:
    proc, recs = spin_run(tmp_path, '    load("local function f(n) return f(n + 1) end return f(0)", "=chunk")()')
    assert proc.returncode == 1
    # answered by sim.lua, not killed by the watchdog: the buffered records came out first
    assert [r["text"] for r in recs if r["kind"] == "log" and r["node"] == 3][-2] == "spinning now"
    assert recs[-1]["text"].endswith("node 3 computed for more than 0.5 s of CPU without waiting, at virtual "
                                     "time 2.500 s - an endless loop in a handler?")


def test_a_spin_in_a_loaded_chunk_is_stopped_without_a_line_of_app_lua(tmp_path: Path) -> None:
    proc, recs = spin_run(tmp_path, '    load("local x = 0 while true do x = x + 1 end", "=chunk")()')
    assert proc.returncode == 1
    last = recs[-1]
    assert last["node"] == 3 and last["t"] == 2.5
    assert last["text"].endswith("node 3 computed for more than 0.5 s of CPU without waiting, at virtual "
                                 "time 2.500 s - an endless loop in a handler?")


def test_a_spin_inside_one_c_call_is_killed_by_the_watchdog_with_the_same_message(tmp_path: Path) -> None:
    # a backtracking pattern: string.find never returns to Lua, so sim.lua cannot answer the
    # signal; the runner kills it and writes the record itself (no line: it cannot know it)
    proc, recs = spin_run(tmp_path, '    s = string.find(string.rep("a", 4000), "a*a*a*a*a*a*a*a*b")')
    assert proc.returncode == 1
    last = recs[-1]
    assert last["node"] == 3 and last["t"] == 2.5
    assert last["text"].endswith("node 3 computed for more than 0.5 s of CPU without waiting, at virtual "
                                 "time 2.500 s - an endless loop in a handler?")
    assert "node 3 computed for more than" in proc.stderr


STILL_TIME_APP = """
require "splay.base"
local rpc = require "splay.{module}"
function ping() return true end
events.run(function()
  rpc.server(job.me.port)
  events.sleep(1)
  if job.position == 1 then
    for i = 1, {calls} do rpc.call(job.nodes[2], {{"ping"}}) end
    log.print("done at " .. misc.time())
  end
end)
"""


@pytest.mark.parametrize("module", ["rpc", "urpc"])
def test_calls_that_never_let_time_pass_stop_the_run_and_say_why(tmp_path: Path, module: str) -> None:
    # two nodes calling each other on a network without delay: every resume is short (the spin
    # check never fires) and virtual time stays at 1 s; before this check the run never ended
    app = tmp_path / "still.lua"
    app.write_text(STILL_TIME_APP.format(module=module, calls="math.huge"))
    proc, data = sim(app, tmp_path, "--nodes", "2", "--time", "10")
    assert proc.returncode == 1
    last = records(data)[-1]
    assert last["kind"] == "log" and last["level"] == "error" and last["t"] == 1.0
    assert last["text"].startswith("simulation stopped: node 2 ran 1000000 times at virtual time 1.000 s, "
                                   "more than any real node could (events that take no virtual time, in a loop?")
    assert "more than any real node could" in proc.stderr


SLEEP_LOOP_APP = """
require "splay.base"
events.run(function()
  events.sleep(1)
  local n = 0
  while true do events.sleep({pause}); n = n + 1; if n % 20000 == 0 then log.print(n) end end
end)
"""


def test_sleeps_of_almost_no_time_in_a_loop_stop_the_run_too(tmp_path: Path) -> None:
    # a nanosecond a turn: time passes, but a million turns take a millisecond of it
    app = tmp_path / "sleeps.lua"
    app.write_text(SLEEP_LOOP_APP.format(pause="1e-9"))
    proc, data = sim(app, tmp_path, "--nodes", "1", "--time", "10")
    assert proc.returncode == 1
    last = records(data)[-1]
    assert last["text"].startswith("simulation stopped: node 1 ran 1000000 times between virtual times "
                                   "1.000 s and 1.001 s, more than any real node could")


def test_a_node_polling_fast_but_at_a_real_pace_runs_to_the_end(tmp_path: Path) -> None:
    # every 100 us (10,000 runs a virtual second, which a real node can do): never stopped
    app = tmp_path / "poll.lua"
    app.write_text(SLEEP_LOOP_APP.format(pause="1e-4"))
    proc, data = sim(app, tmp_path, "--nodes", "1", "--time", "10")
    assert proc.returncode == 0, proc.stderr
    recs = records(data)
    assert [r["text"] for r in recs if r["kind"] == "log"][-1] == "80000"
    assert [r["code"] for r in recs if r["kind"] == "exit"] == [0]


def test_a_long_burst_at_one_instant_that_ends_is_not_stopped(tmp_path: Path) -> None:
    # 100,000 calls in no virtual time, then the node waits: under the bound, the run goes on
    app = tmp_path / "burst.lua"
    app.write_text(STILL_TIME_APP.format(module="rpc", calls=100000))
    proc, data = sim(app, tmp_path, "--nodes", "2", "--time", "10")
    assert proc.returncode == 0, proc.stderr
    recs = records(data)
    assert [r["text"] for r in recs if r["kind"] == "log"] == ["done at 1"]
    assert [r["code"] for r in recs if r["kind"] == "exit"] == [0, 0]


def test_a_blocking_wait_outside_the_events_loop_is_an_error_that_says_so(tmp_path: Path) -> None:
    app = tmp_path / "block.lua"
    app.write_text("""
require "splay.base"
local co = coroutine.wrap(function() events.sleep(1) end)
co()
""")
    proc, data = sim(app, tmp_path, "--nodes", "1", "--time", "5")
    assert proc.returncode == 1
    errors = [r["text"] for r in records(data) if r["kind"] == "log" and r["level"] == "error"]
    # (coroutine.wrap puts where it re-raised in front: app.lua:4)
    assert errors and "app.lua:3: sleep would block outside the node's events loop" in errors[0]


def test_a_syntax_error_is_reported_with_its_line(tmp_path: Path) -> None:
    app = tmp_path / "bad.lua"
    app.write_text("require 'splay.base'\nlocal x = = 1\n")
    proc, data = sim(app, tmp_path, "--nodes", "2", "--time", "5")
    assert proc.returncode == 1
    recs = records(data)
    assert [r["text"] for r in recs if r["kind"] == "log"][0].startswith("app.lua:2:")
    assert [r["code"] for r in recs if r["kind"] == "exit"] == [2, 2]


BOOTSTRAP_APP = """--[[
BEGIN SPLAY RESOURCES RESERVATION
list_type {list_type}
list_size 2
END SPLAY RESOURCES RESERVATION
]]
require "splay.base"
local rpc = require "splay.rpc"
function hello() return job.position end
events.run(function()
  rpc.server(job.me.port)
  events.sleep(1)
  local listed = {{}}
  for _, n in ipairs(job.nodes) do listed[#listed + 1] = n.port - job.me.port + job.position end
  -- a node outside the bootstrap list is still a node of the job: reachable
  local far = job.position % 5 + 1
  local port = job.me.port - job.position + far
  -- its address by node_address.py's rule (a node of its own: 127.1.<port // 256>.<port % 256>)
  local ip = string.format("127.1.%d.%d", math.floor(port / 256), port % 256)
  local answer = rpc.call({{ip = ip, port = port}}, {{"hello"}})
  log.print(string.format("listed %s far %d answered %s", table.concat(listed, ","), far, tostring(answer)))
  events.sleep(1)
  events.exit()
end)
"""


def bootstrap_lines(data: bytes) -> dict[int, str]:
    return {r["node"]: r["text"] for r in records(data) if r["kind"] == "log" and r["text"].startswith("listed")}


def test_job_nodes_follows_the_descriptors_list_size_live_and_simulated(tmp_path: Path) -> None:
    app = tmp_path / "head.lua"
    app.write_text(BOOTSTRAP_APP.format(list_type="head"))
    simulated, data = sim(app, tmp_path, "--nodes", "5", "--time", "5")
    assert simulated.returncode == 0, simulated.stderr
    out = tmp_path / "live.jsonl"
    live = subprocess.run([sys.executable, str(RUN_LOCAL), str(app), "--nodes", "5", "--time", "10", "--out", str(out),
                           "--quiet"], capture_output=True, text=True, timeout=120)
    assert live.returncode == 0, live.stderr
    for lines in (bootstrap_lines(data), bootstrap_lines(out.read_bytes())):
        assert lines == {k: f"listed 1,2 far {k % 5 + 1} answered {k % 5 + 1}" for k in range(1, 6)}
    # and a simulated run's records say so, a live run's do not
    assert all(r["sim"] is True for r in records(data))
    assert not any("sim" in r for r in records(out.read_bytes()))


def test_a_random_bootstrap_list_is_drawn_per_node_and_reproducibly(tmp_path: Path) -> None:
    app = tmp_path / "random.lua"
    app.write_text(BOOTSTRAP_APP.format(list_type="random"))
    first, a = sim(app, tmp_path, "--nodes", "5", "--time", "5", name="a")
    second, b = sim(app, tmp_path, "--nodes", "5", "--time", "5", name="b")
    assert first.returncode == second.returncode == 0, first.stderr
    lines = bootstrap_lines(a)
    assert lines == bootstrap_lines(b) and len(lines) == 5
    lists = [text.split()[1].split(",") for text in lines.values()]
    assert all(len(set(listed)) == 2 and set(listed) <= set("12345") for listed in lists)
    assert len({tuple(listed) for listed in lists}) > 1   # not the same two for every node


def test_a_node_draws_the_same_random_numbers_live_and_simulated(tmp_path: Path) -> None:
    # the same seed builds the same experiment in both modes (e.g. the same Chord ids)
    app = tmp_path / "draws.lua"
    app.write_text('require "splay.base"\n'
                   'log.print(job.position, math.random(2^24), math.random(), math.random(-3, 3))\n')
    simulated, data = sim(app, tmp_path, "--nodes", "4", "--time", "2", "--seed", "9")
    assert simulated.returncode == 0, simulated.stderr
    out = tmp_path / "live.jsonl"
    live = subprocess.run([sys.executable, str(RUN_LOCAL), str(app), "--nodes", "4", "--time", "5", "--seed", "9",
                           "--out", str(out), "--quiet"], capture_output=True, text=True, timeout=120)
    assert live.returncode == 0, live.stderr

    def draws(recs: list[dict[str, Any]]) -> dict[int, str]:
        return {r["node"]: r["text"] for r in recs if r["kind"] == "log"}
    simulated_draws = draws(records(data))
    assert len(set(simulated_draws.values())) == 4   # a sequence of its own per node
    assert simulated_draws == draws(records(out.read_bytes()))


def test_progress_is_reported_during_the_run_from_the_simulators_counters(tmp_path: Path) -> None:
    # sim.lua writes its counters every 1024 events and never looks at the wall clock to decide
    # when (docs/simulation.md "Determinism"); simulate.py reads them about once a second.
    sys.path.insert(0, str(SANDBOX))
    import simulate
    # 20 nodes waking 100 times a virtual second and computing a little: a run of some seconds
    # (about 4 here), so that reports come during it
    app = tmp_path / "busy.lua"
    app.write_text('require "splay.base"\n'
                   'events.run(function()\n'
                   '  while true do events.sleep(0.01) local x = 0 for i = 1, 3000 do x = x + i end end\n'
                   'end)\n')
    reports: list[Any] = []
    result = simulate.simulate(simulate.SimJob(app=app, nodes=20, time=100, seed=1, trace=False),
                               lambda *record: None, reports.append, workdir=tmp_path / "run")
    assert result.code == 0 and result.failure is None, result.stderr
    assert result.final is not None and result.final.virtual_t == 100 and result.final.events >= 20 * 10_000
    assert reports, f"no progress in {result.wall_s:.1f} s"
    assert all(0 < p.virtual_t <= 100 and p.nodes_started == 20 and p.events_per_s > 0 for p in reports)
    assert [p.events for p in reports] == sorted({p.events for p in reports})   # growing, each new
    assert all(p.events % 1024 == 0 and p.events <= result.final.events for p in reports)


MAIN_CHUNK_APP = """require "splay.base"
counter = (counter or 0) + job.position   -- a global: each node's own
local seen = {}                            -- a top-level local: each node's own
local function fail() error("boom at " .. job.position) end
function show() log.print("tb " .. debug.traceback("here"):gsub("\\n%s*", " | ")) end
show()
seen[#seen + 1] = job.position
log.print("state", counter, #seen, tostring(rawget(_G, "seen")))
if job.position == 2 then fail() end
"""


def test_app_lua_compiled_once_for_all_nodes_reads_as_a_chunk_of_its_own_live_and_simulated(tmp_path: Path) -> None:
    # the simulator compiles app.lua once and gives every node a closure of its main function
    # (splaylab.sim.app_chunk): each node keeps its own globals and top-level locals, and the
    # main function's frame reads "in main chunk" in error records and in debug.traceback, as live
    app = tmp_path / "main.lua"
    app.write_text(MAIN_CHUNK_APP)
    simulated, data = sim(app, tmp_path, "--nodes", "3", "--time", "2")
    assert simulated.returncode == 1, simulated.stderr
    out = tmp_path / "live.jsonl"
    live = subprocess.run([sys.executable, str(RUN_LOCAL), str(app), "--nodes", "3", "--time", "5",
                           "--out", str(out), "--quiet"], capture_output=True, text=True, timeout=120)
    assert live.returncode == 1, live.stderr

    def app_lines(recs: list[dict[str, Any]]) -> list[tuple[int, str, str]]:
        lines = []
        for r in recs:
            if r["kind"] != "log":
                continue
            text = r["text"]
            if text.startswith("tb "):   # the runtime's frames below the app's differ: node.lua / sim.lua
                text = " | ".join(part for part in text.split(" | ") if "app.lua" in part or part in ("tb here", "stack traceback:"))
            lines.append((r["node"], r["level"], text))
        return sorted(lines, key=lambda line: line[0])   # by node, each node's in order
    simulated_lines, live_lines = app_lines(records(data)), app_lines(records(out.read_bytes()))
    assert simulated_lines == live_lines
    traceback = "tb here | stack traceback: | app.lua:5: in function 'show' | app.lua:6: in main chunk"
    assert simulated_lines == [
        (1, "print", traceback), (1, "print", "state 1 1 nil"),
        (2, "print", traceback), (2, "print", "state 2 1 nil"),
        (2, "error", "app.lua:4: boom at 2"), (2, "error", "stack traceback:"),
        (2, "error", "\t[C]: in function 'error'"), (2, "error", "\tapp.lua:4: in function 'fail'"),
        (2, "error", "\tapp.lua:9: in main chunk"),
        (3, "print", traceback), (3, "print", "state 3 1 nil")]
