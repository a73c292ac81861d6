"""The Docker sandbox backend against the REAL engine (never skipped).

The session fixture starts dockerd through scripts/start-dockerd.sh when none answers (it is
left running), then builds the sandbox image from this host's files. Student programs run
through sandbox/node.lua exactly as on the process backend; the probes that need what student
code cannot reach (io, the system socket library) run as plain `luajit -e` execs in the job's
container, still under the container's limits and the launcher's RLIMIT_AS.
"""
from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable

import docker
import pytest

from splayd.config import DEFAULT_SANDBOX_DIR
from splayd.docker_backend import (
    CPU_HARD_GRACE,
    LABEL_DAEMON,
    MEM_MARGIN,
    PIDS_MARGIN,
    DockerJobSandbox,
    DockerSandboxError,
    detect_engine,
    remove_stale_containers,
    returncode_of,
)
from splayd.docker_image import IMAGE_LUAJIT, IMAGE_REPO, ensure_image, image_tag

REPO = Path(__file__).resolve().parents[2]
MB = 2**20
DAEMON = f"pytest-{os.getpid()}"

pytestmark = pytest.mark.timeout(120)


@dataclass(frozen=True)
class L:
    max_mem: int = 128 * MB
    max_cpu: int = 10
    max_open_files: int = 64
    max_file_size: int = 4 * MB


@pytest.fixture(scope="session")
def engine() -> docker.DockerClient:
    proc = subprocess.run(
        [str(REPO / "scripts" / "start-dockerd.sh")], capture_output=True, text=True, timeout=150
    )
    assert proc.returncode == 0, f"scripts/start-dockerd.sh failed:\n{proc.stdout}\n{proc.stderr}"
    print(proc.stdout.strip())
    client = docker.from_env(timeout=60)
    yield client
    remove_stale_containers(DAEMON, client)
    client.close()


@pytest.fixture(scope="session")
def image(engine: docker.DockerClient) -> str:
    t0 = time.monotonic()
    tag = ensure_image(DEFAULT_SANDBOX_DIR, client=engine)
    print(f"sandbox image {tag} ready in {time.monotonic() - t0:.2f} s")
    return tag


@pytest.fixture
def sandbox(
    tmp_path: Path, engine: docker.DockerClient, image: str
) -> Any:
    """`sb = await sandbox(job=1, instances=2, **limits)`: an open sandbox, closed afterwards."""
    opened: list[DockerJobSandbox] = []

    async def factory(job: int = 1, instances: int = 2, **limits: Any) -> DockerJobSandbox:
        job_dir = tmp_path / f"job-{job}"
        for k in range(instances):
            (job_dir / f"node-{k}").mkdir(parents=True, exist_ok=True)
        sb = DockerJobSandbox(
            daemon_name=DAEMON, job=job, job_dir=job_dir, sandbox_dir=DEFAULT_SANDBOX_DIR,
            limits=L(**limits), instances=instances, client=engine, image=image,
        )
        await sb.open()
        opened.append(sb)
        return sb

    yield factory
    for sb in opened:  # close() is idempotent; the tests close most of them themselves
        if not sb.closed:
            sb._remove_sync()


class Collector:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []  # (stream, text)
        self.exits: list[int] = []

    def on_line(self, line: bytes, truncated: bool, stream: str) -> None:
        self.lines.append((stream, line.decode("utf-8", "replace")))

    def on_exit(self, rc: int) -> None:
        self.exits.append(rc)

    def texts(self) -> list[str]:
        return [t for _, t in self.lines]


def write_node(sb: DockerJobSandbox, node: int, code: str, port: int = 20000) -> None:
    d = sb.job_dir / f"node-{node}"
    d.mkdir(exist_ok=True)
    (d / "app.lua").write_text(code)
    me = {"ip": "127.0.0.1", "port": port + node}
    (d / "job.json").write_text(json.dumps(
        {"me": me, "nodes": [me], "position": node + 1, "job_id": sb.job, "duration": 30}))


async def run_app(sb: DockerJobSandbox, node: int, code: str, timeout: float = 20) -> tuple[int, Collector]:
    write_node(sb, node, code)
    c = Collector()
    ex = await sb.start_instance(node, c.on_line, c.on_exit)
    rc = await asyncio.wait_for(ex.wait(), timeout)
    return rc, c


async def run_lua(sb: DockerJobSandbox, node: int, code: str, timeout: float = 20) -> tuple[int, Collector]:
    """Plain `luajit -e code` in node-<node>'s directory (not through node.lua)."""
    c = Collector()
    ex = await sb.start_instance(node, c.on_line, c.on_exit, argv=[IMAGE_LUAJIT, "-e", code])
    rc = await asyncio.wait_for(ex.wait(), timeout)
    return rc, c


def proc_status(pid: int) -> dict[str, str]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        k, _, v = line.partition(":")
        out[k] = v.strip()
    return out


# -- engine and image -----------------------------------------------------------------------


def test_engine_detected_and_absent_engine_is_not(engine: docker.DockerClient, monkeypatch: pytest.MonkeyPatch) -> None:
    assert detect_engine() is True
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    t0 = time.monotonic()
    assert detect_engine(timeout=1.0) is False
    assert time.monotonic() - t0 < 2.5


def test_image_is_built_from_host_files_and_runs_luajit(engine: docker.DockerClient, image: str, tmp_path: Path) -> None:
    assert image.startswith(IMAGE_REPO + ":") and image == image_tag(DEFAULT_SANDBOX_DIR)
    img = engine.images.get(image)
    assert img.attrs["Size"] < 30 * 10**6, img.attrs["Size"]
    assert img.labels.get("splaylab.sandbox") == "1"
    # Rebuild from scratch under another tag: the import path itself works and is fast.
    tag2 = f"{IMAGE_REPO}:pytest-{os.getpid()}"
    t0 = time.monotonic()
    try:
        assert ensure_image(DEFAULT_SANDBOX_DIR, tag=tag2, client=engine) == tag2
        assert time.monotonic() - t0 < 15
    finally:
        engine.images.remove(tag2)
    out = engine.containers.run(
        image,
        [IMAGE_LUAJIT, "-e", 'print(jit.version, require("socket")._VERSION, '
         'require("cjson").encode({1}), require("mime").b64("hi"), require("socket.url") ~= nil)'],
        remove=True, network_mode="none", read_only=True, user="65534:65534",
    ).decode()
    assert out.startswith("LuaJIT 2.1") and "LuaSocket" in out and "[1]" in out and "aGk=" in out, out
    shell = engine.containers.create(image, ["/bin/sh", "-c", "true"], network_mode="none")
    try:
        with pytest.raises(docker.errors.APIError, match="/bin/sh"):  # no shell in the image
            shell.start()
    finally:
        shell.remove(force=True)
    # A changed runtime gives another tag (so a daemon rebuilds).
    copy = tmp_path / "sandbox"
    shutil.copytree(DEFAULT_SANDBOX_DIR, copy)
    (copy / "lib" / "extra.lua").write_text("return 1\n")
    assert image_tag(copy) != image


# -- instances through node.lua -------------------------------------------------------------


async def test_records_arrive_in_order_and_exit_0(sandbox: Callable[..., Awaitable[DockerJobSandbox]]) -> None:
    sb = await sandbox(job=1, instances=1)
    rc, c = await run_app(sb, 0, 'for i = 1, 300 do print("line " .. i) end\nlog.info("done", job.position)')
    assert rc == 0 and c.exits == [0]
    assert c.texts() == [f"print\tline {i}" for i in range(1, 301)] + ["info\tdone 1"]
    assert all(stream == "stdout" for stream, _ in c.lines)
    await sb.close()


async def test_runtime_error_exits_1_and_syntax_error_exits_2(sandbox: Callable[..., Awaitable[DockerJobSandbox]]) -> None:
    sb = await sandbox(job=2, instances=2)
    (rc1, c1), (rc2, c2) = await asyncio.gather(
        run_app(sb, 0, 'print("before")\nerror("boom")\n'),
        run_app(sb, 1, "x = = 1\n"),
    )
    assert rc1 == 1, c1.lines
    assert c1.texts()[0] == "print\tbefore" and any("boom" in t for t in c1.texts()[1:])
    assert rc2 == 2, c2.lines
    assert re.match(r"error\tapp\.lua:1: ", c2.texts()[0]), c2.lines
    await sb.close()


async def test_cpu_spin_is_killed_by_the_cpu_rlimit(sandbox: Callable[..., Awaitable[DockerJobSandbox]]) -> None:
    sb = await sandbox(job=3, instances=1, max_cpu=1)
    t0 = time.monotonic()
    rc, c = await run_app(sb, 0, "local x = 0\nwhile true do x = x + 1 end\n", timeout=15)
    assert rc in (-signal.SIGXCPU, -signal.SIGKILL), (rc, c.lines)
    assert 0.9 <= time.monotonic() - t0 < 1 + CPU_HARD_GRACE + 5
    await sb.close()


async def test_memory_bomb_hits_the_address_space_limit(sandbox: Callable[..., Awaitable[DockerJobSandbox]]) -> None:
    sb = await sandbox(job=4, instances=1, max_mem=64 * MB)
    rc, c = await run_app(sb, 0, 'local t = {}\nfor i = 1, 1e9 do t[i] = string.rep("x", 2^20) .. i end\n')
    assert rc in (1, 4), (rc, c.lines)
    assert any("not enough memory" in t for t in c.texts()), c.lines
    await sb.close()


# -- hardening, seen from the host ----------------------------------------------------------


async def test_container_is_locked_down(sandbox: Callable[..., Awaitable[DockerJobSandbox]], engine: docker.DockerClient) -> None:
    sb = await sandbox(job=5, instances=3, max_cpu=7, max_open_files=50, max_file_size=2 * MB)
    hc = engine.api.inspect_container(sb.container_id)["HostConfig"]
    assert hc["ReadonlyRootfs"] is True
    assert hc["CapDrop"] == ["ALL"] and not hc.get("CapAdd")
    assert "no-new-privileges" in hc["SecurityOpt"]
    assert hc["Privileged"] is False
    assert hc["PidsLimit"] == 3 + PIDS_MARGIN
    assert hc["Memory"] == 3 * 128 * MB + MEM_MARGIN
    assert hc["NetworkMode"] == "host" and hc["Init"] is True
    assert [m["Target"] for m in hc["Mounts"]] == ["/work"] and hc["Mounts"][0]["Source"] == str(sb.job_dir)
    assert not hc.get("Binds") and not hc.get("Devices")
    assert "docker.sock" not in json.dumps(engine.api.inspect_container(sb.container_id))
    ulimits = {u["Name"]: (u["Soft"], u["Hard"]) for u in hc["Ulimits"]}
    assert ulimits["cpu"] == (7, 7 + CPU_HARD_GRACE) and ulimits["nofile"] == (50, 50)

    # A running instance, seen through its host pid.
    c = Collector()
    ex = await sb.start_instance(0, c.on_line, c.on_exit,
                                 argv=[IMAGE_LUAJIT, "-e", 'io.write("up\\n") io.flush() require("socket").sleep(30)'])
    for _ in range(200):
        if c.lines:
            break
        await asyncio.sleep(0.02)
    assert c.texts() == ["up"]
    st = proc_status(ex.pid)
    assert int(st["CapEff"], 16) == 0 and int(st["CapPrm"], 16) == 0 and int(st["CapBnd"], 16) == 0
    assert st["NoNewPrivs"] == "1"
    assert st["Uid"].split()[:2] == ["65534", "65534"]
    limits = Path(f"/proc/{ex.pid}/limits").read_text()
    assert re.search(r"Max cpu time\s+7\s+9\s", limits)
    assert re.search(rf"Max address space\s+{128 * MB}\s+{128 * MB}\s", limits)
    assert re.search(r"Max open files\s+50\s+50\s", limits)
    assert re.search(rf"Max file size\s+{2 * MB}\s+{2 * MB}\s", limits)
    assert re.search(r"Max core file size\s+0\s+0\s", limits)
    assert sb.container_id in Path(f"/proc/{ex.pid}/cgroup").read_text()

    # Killed individually: only this instance ends (SIGKILL), the container stays.
    assert sb.kill_instance(0) is True
    assert await asyncio.wait_for(ex.wait(), 10) == -signal.SIGKILL and c.exits == [-signal.SIGKILL]
    assert engine.containers.get(sb.container_id).status == "running"
    await sb.close()


async def test_root_is_read_only_and_no_docker_socket_inside(
    sandbox: Callable[..., Awaitable[DockerJobSandbox]], engine: docker.DockerClient,
) -> None:
    sb = await sandbox(job=6, instances=1)
    probe = r"""
local function try(path, mode)
  local f, err = io.open(path, mode)
  if f then f:close() print(path .. " ok") else print(path .. " " .. tostring(err)) end
end
try("/etc/passwd", "a")
try("/sandbox/node.lua", "a")
try("/usr/bin/evil", "w")
try("/evil", "w")
try("/work/node-0/mine.txt", "w")
try("/tmp/scratch", "w")
try("/var/run/docker.sock", "r")
try("/run/docker.sock", "r")
"""
    rc, c = await run_lua(sb, 0, probe)
    assert rc == 0, c.lines
    out = dict(line.split(" ", 1) for line in c.texts())
    # As nobody: root-owned files are refused by permissions already, "/" by the read-only mount.
    for path in ("/etc/passwd", "/sandbox/node.lua", "/usr/bin/evil"):
        assert "Permission denied" in out[path] or "Read-only file system" in out[path], out
    assert "Read-only file system" in out["/evil"], out
    assert out["/work/node-0/mine.txt"] == "ok" and out["/tmp/scratch"] == "ok", out
    assert "No such file" in out["/var/run/docker.sock"] and "No such file" in out["/run/docker.sock"], out
    # The file written in the instance's directory is on the host, owned by nobody.
    assert (sb.job_dir / "node-0" / "mine.txt").stat().st_uid == 65534
    # Even uid 0 (without capabilities) cannot write the root: the mount itself is read-only.
    res = engine.containers.get(sb.container_id).exec_run(
        [IMAGE_LUAJIT, "-e", probe.replace("/work/node-0/", "/work/")], user="0:0")
    out = dict(line.split(" ", 1) for line in res.output.decode().splitlines())
    for path in ("/etc/passwd", "/sandbox/node.lua", "/usr/bin/evil", "/evil"):
        assert "Read-only file system" in out[path], out
    await sb.close()


# -- network --------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_two_instances_reach_each_other_over_tcp_on_the_host_network(
    sandbox: Callable[..., Awaitable[DockerJobSandbox]],
) -> None:
    sb = await sandbox(job=7, instances=2)
    port = free_port()
    server = f"""
local socket = require "socket"
local srv = assert(socket.bind("127.0.0.1", {port}))
srv:settimeout(15)
print("listening")
io.stdout:flush()
local c = assert(srv:accept())
c:settimeout(5)
local msg = assert(c:receive("*l"))
c:send("pong " .. msg .. "\\n")
c:close()
print("served " .. msg)
"""
    client = f"""
local socket = require "socket"
for i = 1, 150 do
  local c = socket.connect("127.0.0.1", {port})
  if c then
    c:settimeout(5)
    c:send("ping\\n")
    print((assert(c:receive("*l"))))
    os.exit(0)
  end
  socket.sleep(0.05)
end
print("no server")
os.exit(1)
"""
    (rc_s, c_s), (rc_c, c_c) = await asyncio.gather(run_lua(sb, 0, server), run_lua(sb, 1, client))
    assert (rc_s, c_s.texts()) == (0, ["listening", "served ping"]), c_s.lines
    assert (rc_c, c_c.texts()) == (0, ["pong ping"]), c_c.lines
    await sb.close()


# -- lifecycle ------------------------------------------------------------------------------


async def test_close_kills_instances_and_removes_the_container(
    sandbox: Callable[..., Awaitable[DockerJobSandbox]], engine: docker.DockerClient,
) -> None:
    sb = await sandbox(job=8, instances=1)
    c = Collector()
    ex = await sb.start_instance(0, c.on_line, c.on_exit, argv=[IMAGE_LUAJIT, "-e", 'require("socket").sleep(60)'])
    name = sb.name
    t0 = time.monotonic()
    await sb.close()
    assert time.monotonic() - t0 < 10
    assert ex.done and c.exits == [-signal.SIGKILL]
    with pytest.raises(docker.errors.NotFound):
        engine.containers.get(name)
    await sb.close()  # idempotent


async def test_stale_containers_of_this_daemon_are_removed_at_startup(
    sandbox: Callable[..., Awaitable[DockerJobSandbox]], engine: docker.DockerClient,
) -> None:
    a = await sandbox(job=9, instances=1)
    b = await sandbox(job=10, instances=1)
    assert engine.containers.get(a.name).labels[LABEL_DAEMON] == DAEMON
    # The daemon "crashed": nobody closed them. The next start cleans up by label.
    removed = await asyncio.to_thread(remove_stale_containers, DAEMON, engine)
    assert sorted(removed) == sorted([a.name, b.name])
    assert not engine.containers.list(all=True, filters={"label": f"{LABEL_DAEMON}={DAEMON}"})
    # Its container gone, a sandbox refuses new instances with a clear error.
    c = Collector()
    with pytest.raises(DockerSandboxError, match="cannot start node 0"):
        await a.start_instance(0, c.on_line, c.on_exit)
    assert c.exits == [] and await a.execs[0].wait() == -signal.SIGKILL
    with pytest.raises(DockerSandboxError, match="not a directory inside"):
        await a.start_instance(1, c.on_line, workdir=a.job_dir.parent)
    a.closed = b.closed = True


def test_returncode_mapping() -> None:
    assert returncode_of(0) == 0 and returncode_of(2) == 2
    assert returncode_of(137) == -signal.SIGKILL and returncode_of(152) == -signal.SIGXCPU
    assert returncode_of(None) == -signal.SIGKILL


def test_prune_removes_other_sandbox_tags_only(engine: docker.DockerClient, image: str) -> None:
    from splayd.docker_image import prune_images

    old = f"{IMAGE_REPO}:pytest-old-{os.getpid()}"
    engine.images.get(image).tag(old)
    removed = prune_images(engine, keep=image)
    assert old in removed and image not in removed
    assert engine.images.get(image)
