"""`./splaylab trace JOB|FILE`, run as users do: a hand-written 4-node run whose counts are known,
and a job served by a real server (pytest-django's live_server over the test database)."""
from __future__ import annotations

import json
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
L1, L4 = "1:1:1", "4:1:1"  # node 1's lookup (through 2, then 3) and node 4's (times out on 1)

ROWS = {
    1: [[0.500, "op", 0, "lookup", 0, 0, "ok", L1, 0, 0.030, 1],
        [0.500, "connect", 2, "", 0, 0, "ok", L1, 1, 0.001, 1],
        [0.501, "call", 2, "find_successor", 120, 60, "ok", L1, 1, 0.028, 1],
        [1.200, "serve", 4, "find_successor", 60, 120, "ok", L4, 1, 0.002, 1]],
    2: [[0.505, "serve", 1, "find_successor", 60, 120, "ok", L1, 1, 0.020, 1],
        [0.506, "call", 3, "find_successor", 120, 60, "ok", L1, 2, 0.015, 1],
        [2.000, "ucall", 4, "ping", 30, 30, "ok", "", 0, 0.004, 1]],
    3: [[0.510, "serve", 2, "find_successor", 60, 120, "ok", L1, 2, 0.001, 1],
        [0.800, "send", 4, "", 10, 0, "ok", "", 0, 0, 1],
        [0.900, "capped", 0, "", 0, 0, "ok", "", 0, 0, 2],
        [1.000, "serve", 2, "notify", 0, 250, "ok", "", 0, 0.005, 5]],
    4: [[1.100, "op", 0, "lookup", 0, 0, "timeout", L4, 0, 1.0, 1],
        [1.100, "call", 1, "find_successor", 120, 0, "timeout", L4, 1, 1.0, 1],
        [2.001, "userve", 2, "ping", 30, 30, "ok", "", 0, 0.0001, 1]],
}
# node: (rows, messages out, messages in, bytes out, bytes in, peers, capped)
NODES = {1: (4, 1, 1, 180, 180, 2, False), 2: (3, 2, 1, 210, 210, 3, False),
         3: (4, 1, 6, 70, 370, 2, True), 4: (3, 1, 1, 150, 30, 2, False)}
TOTAL = (14, 5, 9, 610, 790)
OPS = {L1: ("lookup", 2, 360, 2), L4: ("lookup", 1, 120, 1)}  # name, messages, bytes, max depth


def run_file(path: Path) -> None:
    """The JSONL `./splaylab run --out` writes: trace records among logs, metrics and exits."""
    recs = [{"node": 1, "t": 0.05, "kind": "log", "level": "print", "text": "joined"},
            {"node": 1, "t": 0.6, "kind": "trace", "rows": ROWS[1][:3]},
            {"node": 2, "t": 0.6, "kind": "trace", "rows": ROWS[2][:2]},
            {"node": 3, "t": 0.9, "kind": "trace", "rows": ROWS[3][:3]},
            {"node": 1, "t": 1.0, "kind": "metric", "name": "lookup_latency", "value": 0.03},
            {"node": 3, "t": 1.1, "kind": "trace", "rows": ROWS[3][3:]},
            {"node": 4, "t": 2.1, "kind": "trace", "rows": ROWS[4]},
            {"node": 1, "t": 2.1, "kind": "trace", "rows": ROWS[1][3:]},
            {"node": 2, "t": 2.1, "kind": "trace", "rows": ROWS[2][2:]},
            {"node": 4, "t": 3.0, "kind": "exit", "code": 0, "text": "ended normally"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs) + '{"node": 2, "t": 3.0, "ki')


def trace(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(ROOT / "splaylab"), "trace", *args], capture_output=True, text=True, timeout=60)


def summary_tables(stdout: str) -> tuple[dict, tuple, dict]:
    """The printed summary → ({node: NODES-like tuple}, totals, {op: OPS-like tuple})."""
    lines = stdout[stdout.index("summary: "):].splitlines()
    nodes, total, ops = {}, (), {}
    section = "nodes"
    for line in lines[2:]:
        cells = line.split()
        if cells[0] == "total":
            total, section = tuple(map(int, cells[1:])), "ops"
        elif section == "nodes":
            nodes[int(cells[0])] = (*map(int, cells[1:7]), cells[7:] == ["yes"])
        elif cells[0] != "op" and not line.startswith("capped:"):
            ops[cells[0]] = (cells[1], *map(int, cells[2:]))
    return nodes, total, ops


@pytest.fixture
def run_jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "chord.jsonl"
    run_file(path)
    return path


def test_a_run_is_listed_by_time_then_summed_per_node_and_per_operation(run_jsonl: Path) -> None:
    proc = trace(str(run_jsonl))
    assert proc.returncode == 0, proc.stderr
    listing = proc.stdout[:proc.stdout.index("summary: ")].strip().splitlines()
    assert len(listing) == 14
    assert [line.split()[3] for line in listing][:4] == ["1", "1", "1", "2"]  # 0.500 node 1 (x2), 0.501 node 1, 0.505 node 2
    call = listing[2].split()
    assert call[:13] == ["0.501", "s", "node", "1", "call", "2", "find_successor", "120", "B", "out", "60", "B", "in"]
    assert call[13:] == ["ok", L1, "depth", "1", "28.000", "ms"]
    assert listing[-1].split()[4:6] == ["userve", "2"]
    assert next(line for line in listing if "notify" in line).endswith("x5")  # an aggregate row's count
    assert "node    3  capped   listing stopped after 2 rows" in proc.stdout
    assert summary_tables(proc.stdout) == (NODES, TOTAL, OPS)
    assert proc.stdout.rstrip().splitlines()[-1].startswith("capped: node(s) 3 listed only their first rows")


def test_filters_choose_the_rows_listed_and_summed(run_jsonl: Path) -> None:
    proc = trace(str(run_jsonl), "--node", "2", "--summary")
    assert proc.returncode == 0 and proc.stdout.startswith("summary: 3 rows from 1 node(s)\n")
    assert summary_tables(proc.stdout)[0] == {2: NODES[2]}
    nodes, total, ops = summary_tables(trace(str(run_jsonl), "--op", L1, "--summary").stdout)
    assert nodes == {1: (3, 1, 0, 120, 60, 1, False), 2: (2, 1, 1, 180, 180, 2, False), 3: (1, 0, 1, 60, 120, 1, True)}
    assert ops == {L1: OPS[L1]}
    proc = trace(str(run_jsonl), "--type", "call,serve")
    listing = proc.stdout[:proc.stdout.index("summary: ")].strip().splitlines()
    assert {line.split()[4] for line in listing} == {"call", "serve"} and len(listing) == 7
    assert summary_tables(proc.stdout)[0][3] == (2, 0, 6, 60, 370, 1, True)  # capped, though its row is left out


def test_json_gives_rows_with_their_node_and_the_summary(run_jsonl: Path) -> None:
    proc = trace(str(run_jsonl), "--json", "--node", "4")
    body = json.loads(proc.stdout)
    assert body["columns"] == ["t", "node", "type", "peer", "name", "out", "in", "outcome", "op", "depth", "dur", "count"]
    assert body["rows"] == [[r[0], 4, *r[1:]] for r in ROWS[4]]
    assert body["summary"]["nodes"] == [{"node": 4, "rows": 3, "messages_out": 1, "messages_in": 1,
                                         "bytes_out": 150, "bytes_in": 30, "peers": 2, "capped": False}]
    assert body["summary"]["ops"] == [{"op": L4, "name": "lookup", "messages": 1, "bytes": 120, "max_depth": 1}]


def test_a_run_without_a_trace_says_so_and_bad_usage_exits_2(tmp_path: Path, run_jsonl: Path) -> None:
    plain = tmp_path / "plain.jsonl"
    plain.write_text(json.dumps({"node": 1, "t": 0.1, "kind": "log", "level": "print", "text": "hi"}) + "\n")
    proc = trace(str(plain))
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == (f'splaylab trace: {plain}: no trace records (kind "trace"): the run had no message trace; '
                           "run it again with --trace (or --sim, which always traces)\n")
    proc = trace(str(tmp_path / "missing.jsonl"))
    assert proc.returncode == 2 and "cannot read" in proc.stderr and "No such file" in proc.stderr
    proc = trace(str(run_jsonl), "--type", "call,rpc")
    assert proc.returncode == 2
    assert proc.stderr == ("splaylab trace: --type: unknown type 'rpc' (known: call, serve, ucall, userve, "
                           "connect, send, sendto, op, capped)\n")


PING = """require "splay.base"
local rpc = require "splay.rpc"
function ping(x) return x end
rpc.server(job.me.port)
events.run(function()
  if job.position == 1 then
    events.sleep(0.3)
    for i = 1, 3 do rpc.call(job.nodes[2], {"ping", "hello"}) end
  end
  events.sleep(0.8)
  events.exit()
end)
"""


def test_the_jsonl_of_a_real_traced_run_is_read(tmp_path: Path) -> None:
    app, out = tmp_path / "ping.lua", tmp_path / "ping.jsonl"
    app.write_text(PING)
    run = subprocess.run([str(ROOT / "splaylab"), "run", str(app), "--nodes", "2", "--time", "3", "--trace",
                          "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    body = json.loads(trace(str(out), "--json").stdout)
    assert [(r[1], r[2], r[3], r[4], r[7]) for r in body["rows"] if r[2] == "call"] == [(1, "call", 2, "ping", "ok")] * 3
    assert [(n["node"], n["messages_out"], n["messages_in"], n["peers"]) for n in body["summary"]["nodes"]] == [
        (1, 3, 0, 1), (2, 0, 3, 0)]   # a served call names its caller only for an operation
    assert all(0.3 <= r[0] < 2 for r in body["rows"])  # seconds since the run started


@pytest.mark.django_db(transaction=True)
def test_a_job_is_fetched_from_the_server_with_the_clis_token(live_server, student, teacher) -> None:
    from accounts.services import user_token_get_or_create
    from jobs.models import Job
    from jobs.tests.factories import job_make
    from traces.services import trace_lines_ingest

    t0 = 1_700_000_000.0
    job = job_make(student, nodes=4, state=Job.State.ENDED, trace={"max_events": 2},
                   started_at=datetime.fromtimestamp(t0, tz=timezone.utc))
    for node, rows in ROWS.items():  # live rows carry the nodes' epoch clock
        lines = [{"node": node, "seq": 1, "t": t0 + 3, "level": "trace",
                  "text": json.dumps({"rows": [[t0 + r[0], *r[1:]] for r in rows]})}]
        trace_lines_ingest(job_id=job.id, nodes=None, raw_lines=lines)
    token = user_token_get_or_create(user=student)
    server = ["--server", live_server.url, "--token", token]

    proc = trace(str(job.id), *server)
    assert proc.returncode == 0, proc.stderr
    assert summary_tables(proc.stdout) == (NODES, TOTAL, OPS)
    assert proc.stdout.splitlines()[2].split()[:6] == ["0.501", "s", "node", "1", "call", "2"]
    proc = trace(str(job.id), *server, "--summary")  # the server's own summary
    assert proc.returncode == 0 and summary_tables(proc.stdout) == (NODES, TOTAL, OPS)
    proc = trace(str(job.id), *server, "--node", "3", "--summary")
    assert summary_tables(proc.stdout)[0] == {3: NODES[3]}

    untraced = job_make(student, nodes=1, state=Job.State.ENDED)
    proc = trace(str(untraced.id), *server)
    assert proc.returncode == 1
    assert proc.stderr == (f"splaylab trace: job {untraced.id} has no message trace: submit it with --trace "
                           "(or `trace true` in its resource descriptor)\n")
    others = job_make(teacher, nodes=1)
    proc = trace(str(others.id), *server)
    assert proc.returncode == 2 and "HTTP 404" in proc.stderr
