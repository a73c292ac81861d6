"""A `stop` sent right after `start` is accepted leaves no process of the job behind.

Seen after a full CI run: a node of a job stopped just after its start kept running (bwrap and
luajit reparented to init, their working directory deleted). The stop arrived while the
node's sandbox was still being set up; these tests send stop at once, many times, and then
look through /proc for any process whose command line or working directory is under the
daemon's work_dir."""
from __future__ import annotations

import asyncio
import os
from pathlib import Path

from .utils import FakeController

SLEEPER = 'print("up")\nwhile true do events.sleep(0.05) end'
ROUNDS = 12


async def settled_leftovers(root: Path, within: float = 10.0) -> list[str]:
    """The job's processes still there after `within` s: a node freed mid-spawn is killed once its
    spawn returns, which a loaded machine (a CI run) can delay past a second; a node that escaped
    its kill runs on for good and is still listed."""
    deadline = asyncio.get_running_loop().time() + within
    while (found := leftovers(root)) and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.2)
    return found


def leftovers(root: Path) -> list[str]:
    """Processes of this test's jobs: a command line naming the work dir, or a cwd in it."""
    mark = str(root)
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:  # gone meanwhile, or not ours
            continue
        if mark in cmdline or cwd.startswith(mark):
            found.append(f"{pid}: {cmdline.strip()} (cwd {cwd})")
    return found


async def test_stop_right_after_start_leaves_no_process(
        controller: FakeController, run_daemon, tmp_path: Path) -> None:
    work = tmp_path / "work"
    async with run_daemon(max_instances=8):
        for job in range(100, 100 + ROUNDS):
            await controller.deploy(job, SLEEPER, nodes=4)
            assert (await controller.command("stop", job=job))["ok"]
        # every kill is reaped within KILL_WAIT; a node started after its stop would still run
        await asyncio.sleep(1.0)
        assert leftovers(work) == []
    await asyncio.sleep(0.5)
    assert leftovers(work) == []


async def test_free_right_after_start_leaves_no_process(
        controller: FakeController, run_daemon, tmp_path: Path) -> None:
    """`free` does not wait for the launch: a node freed while it is being spawned is killed
    once its spawn returns."""
    work = tmp_path / "work"
    async with run_daemon(max_instances=8):
        for job in range(200, 200 + ROUNDS):
            await controller.deploy(job, SLEEPER, nodes=4)
            assert (await controller.command("free", job=job))["ok"]
        assert await settled_leftovers(work) == []
