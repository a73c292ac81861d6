"""A job's whole path: CLI → REST → Celery scheduling → two real daemons → LuaJIT → logs."""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

pytestmark = pytest.mark.stack

COUNTING_APP = """
require "splay.base"
events.run(function()
  for i = 1, 20 do
    print("count " .. job.position .. " " .. i)
    if i % 5 == 0 then events.sleep(0.05) end
  end
  log.info("done " .. job.position .. " of " .. #job.nodes)
  events.exit()
end)
"""

LINE = re.compile(r"^node\s+(\d+) \d\d:\d\d:\d\d\.\d{3} (\w+)\s+(.*)$")


def parse(stdout: str) -> list[tuple[int, str, str]]:
    rows = []
    for raw in stdout.splitlines():
        m = LINE.match(raw)
        assert m, f"unexpected output line from ./splaylab submit --follow: {raw!r}"
        rows.append((int(m.group(1)), m.group(2), m.group(3)))
    return rows


def test_ten_node_job_streams_every_nodes_output_in_order(stack, tmp_path: Path) -> None:
    app = tmp_path / "count.lua"
    app.write_text(COUNTING_APP)

    result = stack.cli("submit", str(app), "--nodes", "10", "--time", "30", "--follow")

    assert result.returncode == 0, result.stderr
    per_node: dict[int, list[str]] = defaultdict(list)
    for node, level, text in parse(result.stdout):
        per_node[node].append(text)
    assert sorted(per_node) == list(range(1, 11))
    for node, texts in per_node.items():
        assert texts == [f"count {node} {i}" for i in range(1, 21)] + [f"done {node} of 10"]
    assert "ENDED" in result.stderr


def test_nodes_get_distinct_ports_and_the_full_node_list(stack, tmp_path: Path) -> None:
    app = tmp_path / "whoami.lua"
    app.write_text('print(job.position, job.me.ip, job.me.port, #job.nodes, '
                   'job.nodes[job.position].port == job.me.port)\n')

    result = stack.cli("submit", str(app), "--nodes", "12", "--time", "20", "--follow")

    assert result.returncode == 0, result.stderr
    rows = [text.split("\t") for _, _, text in parse(result.stdout)]
    assert sorted(int(r[0]) for r in rows) == list(range(1, 13))
    assert len({(r[1], r[2]) for r in rows}) == 12
    assert all(r[3] == "12" and r[4] == "true" for r in rows)


def test_job_without_follow_prints_its_id_and_is_listed(stack, tmp_path: Path) -> None:
    app = tmp_path / "quick.lua"
    app.write_text('print("quick")\n')

    result = stack.cli("submit", str(app), "--nodes", "2", "--time", "10")

    assert result.returncode == 0, result.stderr
    job_id = int(result.stdout.strip())
    job = stack.wait_job(job_id, {"ENDED"})
    assert job["nodes"] == 2 and job["filename"] == "quick.lua"
    assert {i["state"] for i in job["instances"]} == {"ENDED"}
    listed = stack.api("GET", "/api/jobs/")
    ids = [j["id"] for j in (listed["results"] if isinstance(listed, dict) else listed)]
    assert job_id in ids


def test_descriptor_gives_the_node_count_when_the_cli_gives_none(stack, tmp_path: Path) -> None:
    app = tmp_path / "described.lua"
    app.write_text("--[[\nBEGIN SPLAY RESOURCES RESERVATION\nnb_splayds 3\nmax_time 15\n"
                   "END SPLAY RESOURCES RESERVATION\n]]\nprint(#job.nodes)\n")

    result = stack.cli("submit", str(app), "--follow")

    assert result.returncode == 0, result.stderr
    assert "3 nodes for 15 s" in result.stderr
    assert sorted(node for node, _, _ in parse(result.stdout)) == [1, 2, 3]


VIRTUAL_LINE = re.compile(r"^node\s+(\d+)\s+(\d+\.\d{3})s (\w+)\s+(.*)$")


def test_a_simulated_job_says_so_and_its_lines_carry_virtual_seconds(stack, tmp_path: Path) -> None:
    app = tmp_path / "count.lua"
    app.write_text(COUNTING_APP.replace("events.sleep(0.05)", "events.sleep(2)"))

    result = stack.cli("submit", str(app), "--nodes", "4", "--time", "60", "--sim", "--seed", "3", "--follow")

    assert result.returncode == 0, result.stderr
    assert "(simulated, seed 3)" in result.stderr and "ENDED" in result.stderr
    rows = [VIRTUAL_LINE.match(raw) for raw in result.stdout.splitlines()]
    assert all(rows), result.stdout
    per_node: dict[int, list[tuple[float, str]]] = defaultdict(list)
    for m in rows:
        per_node[int(m.group(1))].append((float(m.group(2)), m.group(4)))
    assert sorted(per_node) == [1, 2, 3, 4]
    for node, lines in per_node.items():
        # four sleeps of 2 virtual seconds: the last count and "done" at exactly 8 s
        assert [text for _, text in lines] == [f"count {node} {i}" for i in range(1, 21)] + [f"done {node} of 4"]
        assert [t for t, _ in lines][:5] == [0.0] * 5 and lines[-1][0] == 8.0
