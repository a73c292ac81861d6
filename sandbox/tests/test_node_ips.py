"""One address per node (docs/decisions.md): the rule (node_address.py), and the local runner's
live and simulated nodes, each on an address of its own, running a Cyclon that tells peers apart
by IP alone (apps/cyclon_ip.lua, in the style of SPLAY's applications/cyclon.lua)."""
from __future__ import annotations

import ipaddress
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SANDBOX = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SANDBOX))
from node_address import node_ip  # noqa: E402

MODES = pytest.mark.parametrize("mode", ["live", "sim"])


def run(app: Path, nodes: int, seconds: int, tmp_path: Path, mode: str) -> list[dict[str, Any]]:
    out = tmp_path / f"{mode}.jsonl"
    proc = subprocess.run([sys.executable, str(SANDBOX / "run_local.py"), str(app), "--nodes", str(nodes),
                           "--time", str(seconds), "--seed", "3", "--out", str(out), "--quiet"]
                          + (["--sim"] if mode == "sim" else []),
                          capture_output=True, text=True, timeout=seconds + 60)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_every_port_of_a_loopback_host_gets_its_own_address_outside_the_hosts_services() -> None:
    ips = {node_ip("127.0.0.1", port) for port in range(1, 65536)}
    assert len(ips) == 65535
    assert all(ipaddress.ip_address(ip) in ipaddress.ip_network("127.1.0.0/16") for ip in ips)
    # any loopback host (a daemon advertising 127.0.0.2 or ::1) follows the same rule
    assert node_ip("127.0.0.2", 21001) == node_ip("::1", 21001) == node_ip("127.0.0.1", 21001)


def test_a_node_on_another_host_is_reached_on_the_hosts_address() -> None:
    assert node_ip("10.77.0.11", 21001) == node_ip("10.77.0.11", 21002) == "10.77.0.11"


@pytest.mark.parametrize("host,port,message", [("lab-1", 20000, "host ip 'lab-1' is not an IP address"),
                                               ("127.0.0.1", 0, "node port 0 is not a port number"),
                                               ("127.0.0.1", 70000, "node port 70000 is not a port number")])
def test_a_bad_host_or_port_is_named(host: str, port: int, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        node_ip(host, port)


ADDRESSES_APP = '''require "splay.base"
local ips = {}
for _, n in ipairs(job.nodes) do ips[#ips + 1] = n.ip .. ":" .. n.port end
log.print("me " .. job.me.ip .. ":" .. job.me.port .. " nodes " .. table.concat(ips, ","))
'''


@MODES
def test_two_nodes_see_different_me_ip_and_the_same_node_list(tmp_path: Path, mode: str) -> None:
    app = tmp_path / "addresses.lua"
    app.write_text(ADDRESSES_APP)
    seen = {r["node"]: r["text"].split() for r in run(app, 2, 5, tmp_path, mode) if r["kind"] == "log"}
    assert set(seen) == {1, 2}
    me = {k: words[1] for k, words in seen.items()}
    assert me[1].split(":")[0] != me[2].split(":")[0]
    for k, words in seen.items():
        assert words[3] == f"{me[1]},{me[2]}"                  # job.nodes: node k = nodes[k]
        ip, port = me[k].split(":")
        assert ip == node_ip("127.0.0.1", int(port))
    if mode == "sim":  # the same addresses at every run
        again = {r["node"]: r["text"] for r in run(app, 2, 5, tmp_path, mode) if r["kind"] == "log"}
        assert again == {k: " ".join(words) for k, words in seen.items()}


@MODES
def test_a_cyclon_keyed_by_ip_runs_30_s_on_8_nodes_without_an_error(tmp_path: Path, mode: str) -> None:
    records = run(SANDBOX / "apps" / "cyclon_ip.lua", 8, 30, tmp_path, mode)
    assert [r for r in records if r["kind"] == "log" and r["level"] in ("error", "warning")] == []
    last: dict[int, re.Match[str]] = {}
    for r in records:
        m = re.fullmatch(r"view me=(\S+) exchanges=(\d+) ips=(\S*)", r.get("text", ""))
        if m:
            last[r["node"]] = m
    assert len(last) == 8
    everyone = {m[1] for m in last.values()}
    assert len(everyone) == 8
    for node, m in last.items():
        view = m[3].split(",")
        assert len(view) == len(set(view)) == 6, (node, view)       # the cache filled, no duplicate
        assert set(view) <= everyone - {m[1]}, (node, view)          # peers only, never itself
        assert int(m[2]) >= 20, (node, m[2])                         # about one exchange a second
    exits = {r["node"]: (r["code"], r["text"]) for r in records if r["kind"] == "exit"}
    assert exits == {k: (0, "stopped: duration of 30.0 s reached") for k in range(1, 9)}
