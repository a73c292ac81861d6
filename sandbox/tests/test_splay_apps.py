"""SPLAY's own applications and libraries (issue 23, docs/splay-compat.md).

apps/bt.lua, apps/chord_p.lua, apps/scribe.lua and apps/pastry.lua are written in the style of
SPLAY's repository applications of those names (Lua 5.1 escapes, splay.rpcq, crypto.evp/crypto.hmac,
splay.bits, misc.to_int/to_string, log:print, gcinfo; pastry's 3-argument misc.between_c on
128-bit ids, Lua 5.0's implicit `arg`, math.mod); each runs 30 s on 8 nodes, live (a LuaJIT
process per node) and simulated (--sim), with no error record and with what shows its protocol
worked. tests/apps/splay_modules.lua checks every module added for SPLAY's libraries, both ways,
and the simulation is deterministic. apps/cyclon_ip.lua (SPLAY's cyclon.lua, peers told apart
by IP) is run by test_node_ips.py.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from bisect import bisect_left
from pathlib import Path
from typing import Any

import pytest

SANDBOX = Path(__file__).resolve().parent.parent
APPS = SANDBOX / "apps"
MODULES_APP = SANDBOX / "tests" / "apps" / "splay_modules.lua"

MODES = pytest.mark.parametrize("mode", ["live", "sim"])
NODES = 8


def run(app: Path, nodes: int, seconds: int, tmp_path: Path, mode: str, seed: int = 7,
        name: str = "out") -> list[dict[str, Any]]:
    out = tmp_path / f"{name}.jsonl"
    proc = subprocess.run([sys.executable, str(SANDBOX / "run_local.py"), str(app), "--nodes", str(nodes),
                           "--time", str(seconds), "--seed", str(seed), "--out", str(out), "--quiet"]
                          + (["--sim"] if mode == "sim" else []),
                          capture_output=True, text=True, timeout=seconds + 60)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in out.read_text().splitlines()]


def texts(records: list[dict[str, Any]], pattern: str) -> list[tuple[int, re.Match[str]]]:
    rx = re.compile(pattern)
    return [(r["node"], m) for r in records if r["kind"] == "log" and (m := rx.search(r["text"]))]


def errors(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r["kind"] == "log" and r["level"] == "error"]


def exits(records: list[dict[str, Any]]) -> set[int]:
    return {r["node"] for r in records if r["kind"] == "exit"}


@MODES
def test_bt_swarm_every_leecher_gets_every_block_with_its_sha1(tmp_path: Path, mode: str) -> None:
    records = run(APPS / "bt.lua", NODES, 30, tmp_path, mode)
    assert errors(records) == []
    assert exits(records) == set(range(1, NODES + 1))
    # node 1 seeds; every other node logs "complete" once all 13 blocks passed their SHA-1 check
    complete = {node for node, m in texts(records, r"^complete blocks=(\d+) received=(\d+)$")
                if m[1] == "13" and int(m[2]) >= 12 * 4096 + 1000}
    assert complete == set(range(2, NODES + 1))
    # blocks travelled between leechers too, not only from the seeder
    summaries: dict[int, tuple[int, int]] = {}
    for node, m in texts(records, r"^summary blocks=(\d+) peers=\d+ sent=(\d+) received=\d+ mem=\d+ko$"):
        summaries[node] = (int(m[1]), int(m[2]))
    assert summaries[1][1] > 0
    assert any(sent > 0 for node, (_, sent) in summaries.items() if node != 1)
    # its "\."-style escapes are read as Lua 5.1 read them, with a warning naming the line
    line = next(i for i, text in enumerate((APPS / "bt.lua").read_text().splitlines(), 1) if '"^%d+\\.' in text)
    warned = [r for r in records if r["kind"] == "log" and r["level"] == "warning"
              and r["text"].startswith(f"app.lua:{line}: escape \\.")]
    assert {r["node"] for r in warned} == set(range(1, NODES + 1))


@MODES
def test_chord_p_on_rpcq_forms_a_correct_ring_and_answers_lookups(tmp_path: Path, mode: str) -> None:
    records = run(APPS / "chord_p.lua", NODES, 30, tmp_path, mode)
    assert errors(records) == []
    ring: dict[int, tuple[int, int, str]] = {}
    for node, m in texts(records, r"^ring id=(\d+) succ=(\d+) pred=(\w+)$"):
        ring[node] = (int(m[1]), int(m[2]), m[3])       # the last report wins
    assert len(ring) == NODES
    ids = sorted(v[0] for v in ring.values())
    assert len(set(ids)) == NODES
    for my_id, succ, pred in ring.values():
        i = ids.index(my_id)
        assert succ == ids[(i + 1) % NODES], f"node {my_id}: successor {succ}"
        assert pred == str(ids[i - 1]), f"node {my_id}: predecessor {pred}"
    found = texts(records, r"^lookup key=(\d+) owner=(\d+)$")
    assert len(found) == 5 * NODES
    for _, m in found:
        key, owner = int(m[1]), int(m[2])
        assert owner == ids[bisect_left(ids, key) % NODES], f"key {key}: owner {owner}"
    # rpcq's persistent connections: each node connected to its peers, not once per call
    for node, m in texts(records, r"^connect: (\d+) clean: \d+ clean_lru: \d+"):
        assert int(m[1]) <= NODES - 1, f"node {node}: {m[0]}"


@MODES
def test_scribe_multicast_reaches_every_subscriber_with_a_valid_hmac(tmp_path: Path, mode: str) -> None:
    records = run(APPS / "scribe.lua", NODES, 30, tmp_path, mode)
    assert errors(records) == []
    ids = {node: m[1] for node, m in texts(records, r"^ID ([0-9a-f]{8})$")}
    assert len(ids) == NODES and len(set(ids.values())) == NODES   # SHA-1 of distinct ip:port
    delivered: dict[int, set[str]] = {}
    for node, m in texts(records, r"^delivered (msg-\d)$"):
        delivered.setdefault(node, set()).add(m[1])
    assert delivered == {node: {f"msg-{i}" for i in range(1, 6)} for node in range(1, NODES + 1)}


def base4(n: int) -> str:
    digits = ""
    while n > 0:
        n, d = divmod(n, 4)
        digits = str(d) + digits
    return digits or "0"


@MODES
def test_pastry_routes_every_key_to_the_numerically_closest_node(tmp_path: Path, mode: str) -> None:
    records = run(APPS / "pastry.lua", NODES, 30, tmp_path, mode)
    assert errors(records) == []
    ids: dict[int, str] = {}
    for node, m in texts(records, r"^ID ([0-9a-f]{32}) prefix4 ([0-3]+)$"):
        ids[node] = m[1]
        assert m[2] == base4(int(m[1][:8], 16)), f"node {node}: math.mod (Lua 5.0's fmod) in dec_to_base"
    assert len(ids) == NODES and len(set(ids.values())) == NODES
    nums = [int(i, 16) for i in ids.values()]

    def ring_distance(a: int, b: int) -> int:
        return min(abs(a - b), 2**128 - abs(a - b))

    found = texts(records, r"^lookup key=([0-9a-f]{32}) owner=(\w+)$")
    assert len(found) == 5 * NODES
    for _, m in found:
        key = int(m[1], 16)
        assert m[2] == f"{min(nums, key=lambda n: ring_distance(n, key)):032x}", f"key {m[1]}"
    # its rpc.a_call wrapper passes Lua 5.0's implicit `arg` on: given, with a warning naming the line
    line = next(i for i, text in enumerate((APPS / "pastry.lua").read_text().splitlines(), 1)
                if "rpc.a_call = function(n, ...)" in text)
    warned = {r["node"] for r in records if r["kind"] == "log" and r["level"] == "warning"
              and r["text"].startswith(f"app.lua:{line}: vararg function names `arg`")}
    assert warned == set(range(1, NODES + 1))


def module_checks(records: list[dict[str, Any]]) -> dict[int, set[str]]:
    checks: dict[int, set[str]] = {}
    for node, m in texts(records, r"^check (.+) ok$"):
        checks.setdefault(node, set()).add(m[1])
    return checks


CHECKS = {"crypto", "bits", "data_bits", "async_dns", "topo_socket", "sandbox", "token_bucket", "lbinenc",
          "rpcq calls", "rpcq callback", "rpcq acall", "rpcq proxy and ping", "rpcq timeout", "rpcq remote error"}


@MODES
def test_splay_modules_behave_as_splays_on_every_node(tmp_path: Path, mode: str) -> None:
    records = run(MODULES_APP, 4, 20, tmp_path, mode)
    assert errors(records) == []
    assert module_checks(records) == {node: CHECKS for node in range(1, 5)}
    rand = {node: m[1] for node, m in texts(records, r"^rand ([0-9a-f]{16})$")}
    assert len(rand) == 4 and len(set(rand.values())) == 4   # each node's own seeded stream


def test_splay_modules_in_simulation_are_deterministic(tmp_path: Path) -> None:
    def outcome(name: str, seed: int) -> list[tuple[Any, ...]]:
        records = run(MODULES_APP, 4, 20, tmp_path, "sim", seed=seed, name=name)
        return [(r["node"], r["t"], r["kind"], r.get("level"), r.get("text")) for r in records]

    first, again, other = outcome("a", 7), outcome("b", 7), outcome("c", 8)
    assert first == again
    rand = re.compile(r"^rand ")
    assert [r for r in first if r[4] and rand.match(r[4])] != [r for r in other if r[4] and rand.match(r[4])]
