"""Hostile programs against the sandbox's network policy and restricted io, each with its
exact outcome: instance state, exit reason and the records the student sees.

Every program is a student program (sandbox/node.lua, SPLAY's API: splay.base, socket, rpc,
urpc, io) run through splayd's JobManager (hostile.py's HostDaemon), with its limits given the
way the controller gives them: the register/list "limits" object that the daemon checks against its ceilings and writes into
job.json (daemon/splayd/jobs.py runtime_limits).

Every case runs under bubblewrap and on the Docker backend (one container per job, host
networking; the engine is started by scripts/start-dockerd.sh), with the same exact outcome
on both: the policy lives in the runtime, above either backend.

Off-host destinations (10.0.0.1, 169.254.169.254) run in a daemon whose nodes also get a
private, empty network namespace: `bwrap --unshare-net` under bubblewrap, a container with
`network_mode="none"` (loopback only) on Docker. The sandbox must deny the connect by itself,
and if it ever failed to, the packet still could not leave this machine (the student would
then read "Network is unreachable" instead of the denial and the case fails).
"""
from __future__ import annotations

import asyncio
import os
import socket
import urllib.parse
from pathlib import Path

import pytest

import splayd.launch
from security.hostile import (
    BWRAP, ISOLATED, LUAJIT, HostDaemon, run_async_tests_in_own_loop,
)
from splayd.config import DEFAULT_SANDBOX_DIR
from splayd.docker_backend import DockerJobSandbox
from splayd.isolation import Isolation

PORTS = (27600, 27699)  # apart from test_security_daemon.py's 27400-27499
OK = ("ENDED", "ended normally", 0)
DENIED = "denied: not a node of this job"


class NoNetwork(Isolation):
    """bwrap as the daemon runs it, plus a network namespace with no route anywhere."""

    def wrap(self, argv: list[str], workdir: Path) -> list[str]:
        wrapped = super().wrap(argv, workdir)
        return [wrapped[0], "--unshare-net", *wrapped[1:]]


class NoNetworkSandbox(DockerJobSandbox):
    """The job's container as the daemon runs it, but with no network beyond its own loopback
    (`network_mode="none"` instead of the host's network). `configs` records what was asked."""

    configs: list[dict[str, object]] = []

    def container_config(self, image: str) -> dict[str, object]:
        config = super().container_config(image)
        assert config["network_mode"] == "host"
        config["network_mode"] = "none"
        NoNetworkSandbox.configs.append(config)
        return config


pytestmark = pytest.mark.usefixtures("docker_engine")  # tests/security/conftest.py


@pytest.fixture(params=ISOLATED)
def daemon(request: pytest.FixtureRequest, tmp_path: Path) -> HostDaemon:
    """A daemon per backend: every case holds under bubblewrap and on Docker."""
    return HostDaemon(tmp_path, request.param, ports=PORTS)


@pytest.fixture(params=ISOLATED)
def offline(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> HostDaemon:
    d = HostDaemon(tmp_path, request.param, ports=PORTS)
    if request.param == "bwrap":
        assert BWRAP
        d.manager.isolation = NoNetwork("bwrap", BWRAP, DEFAULT_SANDBOX_DIR.resolve(), LUAJIT)
    else:  # the job's container is created by launch.py: give it no network
        monkeypatch.setattr(splayd.launch, "DockerJobSandbox", NoNetworkSandbox)
        NoNetworkSandbox.configs.clear()
    return d


def url_port(name: str) -> int:
    url = os.environ.get(name)
    assert url, f"{name} is not set: start the services first (backend/cli/services.py start)"
    port = urllib.parse.urlsplit(url).port
    assert port, url
    return port


def denial(verb: str, dest: str) -> list[tuple[str, str]]:
    """The warning record and the printed (nil, message) of one refused destination."""
    msg = f"{verb} to {dest} {DENIED}"
    return [("warning", f"[splay.socket] {msg}"), ("print", f"nil\t{msg}")]


def outcome(out) -> tuple[str, str, int | None]:
    return out.state, out.reason, out.exit_code


# ---- connecting to the host's services -------------------------------------------------
CONNECT = 'require "splay.base"\nprint(socket.connect("127.0.0.1", {port}))\n'


# A node has a loopback address of its own (sandbox/node_address.py); the host's services listen
# on 127.0.0.1 or on every address, so each is tried on 127.0.0.1, on the node's own address,
# on another node-style address and on systemd-resolved's 127.0.0.53.
ON_EVERY_LOOPBACK = ('require "splay.base"\nprint(job.me.ip)\n'
                     'for _, ip in ipairs {{"127.0.0.1", job.me.ip, "127.1.0.1", "127.0.0.53"}} do '
                     'print(socket.connect(ip, {port})) end\n')


@pytest.mark.parametrize("service", ["postgres-default", "postgres-test", "redis-test"])
async def test_host_services_are_unreachable_on_any_loopback_address(daemon: HostDaemon, service: str) -> None:
    port = {"postgres-default": lambda: 5432, "postgres-test": lambda: url_port("DATABASE_URL"),
            "redis-test": lambda: url_port("REDIS_URL")}[service]()
    out = await daemon.run_one(ON_EVERY_LOOPBACK.format(port=port))
    assert outcome(out) == OK
    me = out.lines[0][1]
    assert me.startswith("127.1.") and me != "127.1.0.1"
    assert out.lines[1:] == [line for ip in ("127.0.0.1", me, "127.1.0.1", "127.0.0.53")
                             for line in denial("connect", f"{ip}:{port}")]


@pytest.mark.parametrize("backend", ISOLATED)
async def test_the_controller_is_unreachable_by_socket_and_by_rpc(tmp_path: Path, backend: str) -> None:
    with socket.socket() as controller:
        controller.bind(("127.0.0.1", 0))
        controller.listen(8)
        port = controller.getsockname()[1]
        d = HostDaemon(tmp_path, backend, ports=PORTS, controller=f"ws://127.0.0.1:{port}/ws/daemon/")
        code = (CONNECT.format(port=port) + 'local rpc = require "splay.rpc"\n'
                f'print(rpc.call({{ip = "127.0.0.1", port = {port}}}, {{"hello"}}, 2))\n'
                f'print(rpc.ping({{ip = "localhost", port = {port}}}, 2))\n')
        out = await d.run_one(code)
        controller.settimeout(0)
        with pytest.raises(BlockingIOError):
            controller.accept()  # no connection ever reached it
    msg = f"connect to 127.0.0.1:{port} {DENIED}"
    assert outcome(out) == OK
    # The warning comes once per destination; every call gets the message.
    assert out.lines == [("warning", f"[splay.socket] {msg}"), ("print", f"nil\t{msg}"),
                         ("print", f"nil\trpc to 127.0.0.1:{port} failed: {msg}"),
                         ("print", f"nil\trpc to localhost:{port} failed: {msg}")]


async def test_another_jobs_instance_is_unreachable(daemon: HostDaemon) -> None:
    # "127.0.0.1" is the victim's own address (a node's local host), where its peers reach it
    victim = ('require "splay.base"\nlocal s = assert(socket.bind("127.0.0.1", job.me.port))\n'
              's:settimeout(2.5)\nprint("listening", (s:getsockname()))\nprint(s:accept())\n')
    seen: dict[str, object] = {}

    async def attack(d: HostDaemon) -> None:
        while not d.manager.jobs[1].instances:
            await asyncio.sleep(0.05)
        port = d.manager.jobs[1].instances[1].port
        ip = d.manager.jobs[1].nodes[0]["ip"]
        seen["port"], seen["ip"] = port, ip
        code = ('require "splay.base"\nlocal rpc = require "splay.rpc"\n'
                f'for _, ip in ipairs {{"127.0.0.1", "{ip}"}} do\n'
                f'  print(socket.connect(ip, {port}))\n'
                f'  print(rpc.call({{ip = ip, port = {port}}}, {{"print", "pwned"}}, 1))\n'
                f'  print(socket.udp():sendto("x", ip, {port}))\n'
                'end\n')
        seen["out"] = await d.run_one(code, job=2)

    victim_out = await daemon.run_one(victim, job=1, during=attack)
    port, ip, out = seen["port"], seen["ip"], seen["out"]
    assert outcome(out) == OK
    expected = []
    for dest in (f"127.0.0.1:{port}", f"{ip}:{port}"):
        msg = f"connect to {dest} {DENIED}"
        expected += [("warning", f"[splay.socket] {msg}"), ("print", f"nil\t{msg}"),
                     ("print", f"nil\trpc to {dest} failed: {msg}"), ("print", f"nil\tsend to {dest} {DENIED}")]
    assert out.lines == expected
    assert outcome(victim_out) == OK
    assert victim_out.lines == [("print", f"listening\t{ip}"), ("print", "nil\ttimeout")]


# ---- off-host addresses ------------------------------------------------------------------
@pytest.mark.parametrize("host,port", [("169.254.169.254", 80), ("10.0.0.1", 80)])
async def test_off_host_addresses_are_denied_before_any_packet(offline: HostDaemon, host: str, port: int) -> None:
    code = (CONNECT.replace('"127.0.0.1"', f'"{host}"').format(port=port)
            + f'local t = socket.tcp()\nt:settimeout(1)\nprint(t:connect("{host}", {port}))\n'
            + f'local u = socket.udp()\nprint(u:setpeername("{host}", 53))\nprint(u:sendto("q", "{host}", 53))\n')
    out = await offline.run_one(code)
    if offline.backend == "docker":  # the safety net was in place: one container, no network
        assert [c["network_mode"] for c in NoNetworkSandbox.configs] == ["none"]
    assert outcome(out) == OK
    tcp = f"connect to {host}:{port} {DENIED}"
    # One warning per destination (ip:port), whatever the verb.
    assert out.lines == [("warning", f"[splay.socket] {tcp}"), ("print", f"nil\t{tcp}"), ("print", f"nil\t{tcp}"),
                         *denial("connect", f"{host}:53"), ("print", f"nil\tsend to {host}:53 {DENIED}")]


# ---- the job's own instances ---------------------------------------------------------------
async def test_the_jobs_other_instance_is_reachable_by_rpc_and_urpc(daemon: HostDaemon) -> None:
    code = '''require "splay.base"
local rpc = require "splay.rpc"
local urpc = require "splay.urpc"
function hello(who) return "hello " .. who .. " from node " .. job.position end
function bye() events.fire("bye") return true end
events.run(function()
  if job.position == 1 then
    assert(rpc.server(job.me.port))
    assert(urpc.server(job.me.port))
    print("bye", events.wait("bye", 10))
    events.sleep(0.2)
  else
    local r, err
    for i = 1, 100 do
      r, err = rpc.call(job.nodes[1], {"hello", "node 2"}, 1)
      if r then break end
      events.sleep(0.05)
    end
    print("rpc", r, err)
    print("urpc", urpc.call(job.nodes[1], {"hello", "node 2 (udp)"}, 2))
    print("bye", rpc.call(job.nodes[1], {"bye"}, 2))
  end
  events.exit()
end)
'''
    first, second = await daemon.run(code, nodes=2)
    assert outcome(first) == outcome(second) == OK
    assert first.lines == [("print", "bye\ttrue")]
    assert second.lines == [("print", "rpc\thello node 2 from node 1\tnil"),
                            ("print", "urpc\thello node 2 (udp) from node 1"), ("print", "bye\ttrue")]


# ---- binding -------------------------------------------------------------------------------
async def test_bind_only_inside_the_instances_ports(daemon: HostDaemon) -> None:
    code = '''require "splay.base"
local p = job.me.port
print(p)
print(socket.bind("127.0.0.1", p + 1))
print(socket.bind("0.0.0.0", 22))
local u = socket.udp()
print(u:setsockname("127.0.0.1", 0))
local s = assert(socket.bind("127.0.0.1", p))
print(tostring(s), select(2, s:getsockname()) == tostring(p))
print(u:setsockname("127.0.0.1", p))
'''
    out = await daemon.run_one(code)
    assert outcome(out) == OK
    p = int(out.lines[0][1])
    assert PORTS[0] <= p <= PORTS[1]
    assert out.lines[1:] == [
        ("warning", f"[splay.socket] bind to port {p + 1} denied: outside this instance's ports ({p}-{p})"),
        ("print", f"nil\tbind to port {p + 1} denied: outside this instance's ports ({p}-{p})"),
        ("warning", f"[splay.socket] bind to port 22 denied: outside this instance's ports ({p}-{p})"),
        ("print", f"nil\tbind to port 22 denied: outside this instance's ports ({p}-{p})"),
        ("warning", f"[splay.socket] bind to port 0 denied: outside this instance's ports ({p}-{p})"),
        ("print", f"nil\tbind to port 0 denied: outside this instance's ports ({p}-{p})"),
        ("print", "tcp{server}: splay\ttrue"),
        ("print", "1"),  # TCP and UDP share the number
    ]


# ---- socket count and byte budgets -----------------------------------------------------------
async def test_more_sockets_than_max_sockets(daemon: HostDaemon) -> None:
    code = '''require "splay.base"
local socks, err = {}, nil
for i = 1, 10000 do
  local s, e
  if i % 2 == 0 then s, e = socket.tcp() else s, e = socket.udp() end
  if not s then err = e break end
  socks[#socks + 1] = s
end
print(#socks, err)
print(socket.connect("127.0.0.1", job.me.port))
socks[1]:close()
print(socket.udp() ~= nil, socket.udp())
'''
    out = await daemon.run_one(code, limits={"max_sockets": 5})
    msg = "too many sockets: network_max_sockets = 5"
    assert outcome(out) == OK
    assert out.lines == [("warning", f"[splay.socket] {msg}"), ("print", f"5\t{msg}"), ("print", f"nil\t{msg}"),
                         ("print", f"true\tnil\t{msg}")]


# A node talking to itself over TCP: server on its own port, a client connected to it.
PAIR = '''require "splay.base"
local srv = assert(socket.bind("127.0.0.1", job.me.port))
local c = assert(socket.connect(job.me.ip, job.me.port))
local s = assert(srv:accept())
local function show(d, err, part) print(d and #d, err, part and #part) end
'''


async def test_send_budget(daemon: HostDaemon) -> None:
    code = PAIR + '''print(c:send(string.rep("x", 600)))
print(c:send(string.rep("x", 600)))
print(c:send(string.rep("x", 400)))
print(c:send("y"))
show(s:receive(1000))
'''
    out = await daemon.run_one(code, limits={"max_send": 1000})
    msg = "send budget exhausted: network_max_send = 1000 bytes"
    assert outcome(out) == OK
    assert out.lines == [("print", "600"), ("warning", f"[splay.socket] {msg}"), ("print", f"nil\t{msg}\t0"),
                         ("print", "400"), ("print", f"nil\t{msg}\t0"), ("print", "1000\tnil\tnil")]


async def test_receive_budget(daemon: HostDaemon) -> None:
    code = PAIR + '''print(c:send(string.rep("x", 3000)))
socket.sleep(0.2)
show(s:receive(600))
show(s:receive(600))
show(s:receive("*a"))
'''
    out = await daemon.run_one(code, limits={"max_receive": 1000})
    msg = "receive budget exhausted: network_max_receive = 1000 bytes"
    assert outcome(out) == OK
    # The student gets exactly the budget's 1000 bytes, never more.
    assert out.lines == [("print", "3000"), ("print", "600\tnil\tnil"), ("warning", f"[splay.socket] {msg}"),
                         ("print", f"nil\t{msg}\t400"), ("print", f"nil\t{msg}\t0")]


async def test_receive_budget_holds_for_a_whole_stream_read(daemon: HostDaemon) -> None:
    code = PAIR + '''print(c:send(string.rep("x", 50000)))
c:close()
show(s:receive("*a"))
'''
    out = await daemon.run_one(code, limits={"max_receive": 1000})
    msg = "receive budget exhausted: network_max_receive = 1000 bytes"
    assert outcome(out) == OK
    assert out.lines == [("print", "50000"), ("warning", f"[splay.socket] {msg}"), ("print", f"nil\t{msg}\t1000")]


async def test_receive_budget_drops_a_datagram_that_does_not_fit(daemon: HostDaemon) -> None:
    code = '''require "splay.base"
local r = assert(socket.udp())
assert(r:setsockname("127.0.0.1", job.me.port))
r:settimeout(0.5)
local u = assert(socket.udp())
for i = 1, 3 do u:sendto(string.rep("d", 100), job.me.ip, job.me.port) end
for i = 1, 3 do local d, err = r:receive() print(d and #d, err) end
'''
    out = await daemon.run_one(code, limits={"max_receive": 250})
    msg = "receive budget exhausted: network_max_receive = 250 bytes"
    assert outcome(out) == OK
    assert out.lines == [("print", "100\tnil"), ("print", "100\tnil"), ("warning", f"[splay.socket] {msg}"),
                         ("print", f"nil\t{msg}")]


# ---- UDP ----------------------------------------------------------------------------------------
UDP_SELF = '''require "splay.base"
local r = assert(socket.udp())
assert(r:setsockname("127.0.0.1", job.me.port))
r:settimeout(0.5)
local u = assert(socket.udp())
local sent = 0
for i = 1, 20 do if u:sendto("datagram " .. i, job.me.ip, job.me.port) then sent = sent + 1 end end
local got = 0
while r:receive() do got = got + 1 end
print("sent", sent, "received", got)
'''


@pytest.mark.parametrize("ratio,received", [(1, 0), (0, 20)])
async def test_udp_drop_ratio(daemon: HostDaemon, ratio: float, received: int) -> None:
    out = await daemon.run_one(UDP_SELF, limits={"udp_drop_ratio": ratio})
    assert outcome(out) == OK
    assert out.lines == [("print", f"sent\t20\treceived\t{received}")]


async def test_udp_flood_to_the_other_node_is_bounded_by_the_send_budget(daemon: HostDaemon) -> None:
    code = '''require "splay.base"
local u = assert(socket.udp())
assert(u:setsockname("127.0.0.1", job.me.port))
local other = job.nodes[3 - job.position]
if job.position == 1 then            -- the flooder: waits for the target to be up
  u:settimeout(5)
  print((u:receive()))
  local data, n, err = string.rep("f", 100), 0, nil
  while true do
    local ok, e = u:sendto(data, other.ip, other.port)
    if not ok then err = e break end
    n = n + 1
  end
  print(n, err)
else                                 -- the target: says "ready" until the flood starts
  u:settimeout(0.05)
  local got, bytes = 0, 0
  while got == 0 do
    u:sendto("ready", other.ip, other.port)
    local d = u:receive()
    if d then got, bytes = 1, #d end
  end
  u:settimeout(1)
  while true do
    local d = u:receive()
    if not d then break end
    got, bytes = got + 1, bytes + #d
  end
  print("received", got, bytes)
end
'''
    flooder, target = await daemon.run(code, nodes=2, limits={"max_send": 10000})
    msg = "send budget exhausted: network_max_send = 10000 bytes"
    assert outcome(flooder) == outcome(target) == OK
    assert flooder.lines == [("print", "ready"), ("warning", f"[splay.socket] {msg}"), ("print", f"100\t{msg}")]
    assert target.lines == [("print", "received\t100\t10000")]


# ---- wall time ----------------------------------------------------------------------------------
@pytest.mark.parametrize("code", [
    pytest.param('local u = socket.udp()\nassert(u:setsockname("127.0.0.1", job.me.port))\nprint("waiting")\n'
                 'print(u:receive())\n', id="udp-receive-main"),
    pytest.param('events.run(function()\n  local s = assert(socket.bind("127.0.0.1", job.me.port))\n'
                 '  local c = assert(socket.connect("127.0.0.1", job.me.port))\n  local a = s:accept()\n'
                 '  print("waiting")\n  print(a:receive("*a"))\nend)\n', id="tcp-receive-thread"),
])
async def test_blocking_forever_on_a_socket_ends_at_the_duration(daemon: HostDaemon, code: str) -> None:
    out = await daemon.run_one('require "splay.base"\n' + code, duration=1)
    assert outcome(out) == ("ENDED", "killed: duration of 1 s reached", -9)
    assert out.lines == [("print", "waiting")]


# ---- restricted io ------------------------------------------------------------------------------
async def test_absolute_paths_map_into_the_instance_dir(daemon: HostDaemon) -> None:
    code = '''print(io.open("/etc/passwd"))
local f = assert(io.open("/etc/passwd", "w"))
f:write("mine") f:close()
local g = assert(io.open("/etc/passwd")) print(g:read("*a")) g:close()
print(io.open("etc/passwd"):read("*a"))
events.sleep(1)
'''
    seen: dict[str, str] = {}
    host_before = Path("/etc/passwd").read_bytes()

    async def look(d: HostDaemon) -> None:
        await asyncio.sleep(0.6)
        node = d.job_dir(1) / "node-1"
        seen["files"] = ",".join(sorted(p.name for p in node.iterdir()))
        seen["content"] = (node / "etc%2Fpasswd").read_text()

    out = await daemon.run_one(code, during=look)
    assert outcome(out) == OK
    assert out.lines == [("print", "nil\t/etc/passwd: No such file or directory"), ("print", "mine"), ("print", "mine")]
    assert seen == {"files": "app.lua,etc%2Fpasswd,job.json", "content": "mine"}
    assert Path("/etc/passwd").read_bytes() == host_before


async def test_dotdot_is_refused(daemon: HostDaemon) -> None:
    code = '''print(io.open("../job.json"))
print(io.open("a/../../node-2/x", "w"))
print(os.remove("../../job-1"))
print(pcall(io.lines, "../../../../etc/passwd"))
'''
    out = await daemon.run_one(code)
    assert outcome(out) == OK
    assert out.lines == [("print", "nil\t../job.json: path escapes the node's directory"),
                         ("print", "nil\ta/../../node-2/x: path escapes the node's directory"),
                         ("print", "nil\t../../job-1: path escapes the node's directory"),
                         ("print", "false\t../../../../etc/passwd: path escapes the node's directory")]


async def test_filling_the_disk_hits_the_runtimes_quota(daemon: HostDaemon) -> None:
    # 1 MB, app.lua and job.json included; 64 KB chunks: 15 fit, the 16th is refused by the
    # runtime before it reaches the disk, so the daemon's own check (killed: disk quota of
    # 1 MB exceeded) never fires and the program goes on.
    code = '''local f = assert(io.open("fill", "w"))
local n, err = 0, nil
while true do
  local ok, e = f:write(string.rep("x", 64 * 1024))
  if not ok then err = e break end
  n = n + 1
end
f:close()
print(n, err)
local g = assert(io.open("other", "w"))
print(g:write(string.rep("y", 64 * 1024)))
events.sleep(1.2)
print("still running")
'''
    out = await daemon.run_one(code, limits={"disk_max_size": 1024 * 1024})
    msg = "disk quota exceeded: disk_max_size = 1048576 bytes"
    assert outcome(out) == OK
    assert out.lines == [("print", f"15\t{msg}"), ("print", f"nil\t{msg}"), ("print", "still running")]


async def test_more_files_than_disk_max_files(daemon: HostDaemon) -> None:
    # app.lua and job.json count: 8 more files make 10.
    code = '''local n, err = 0, nil
for i = 1, 1000 do
  local f, e = io.open("f" .. i, "w")
  if not f then err = e break end
  f:close()
  n = n + 1
end
print(n, err)
print(os.remove("f1"), io.open("again", "w") ~= nil)
events.sleep(1.2)
print("still running")
'''
    out = await daemon.run_one(code, limits={"disk_max_files": 10})
    assert outcome(out) == OK
    assert out.lines == [("print", "8\ttoo many files: disk_max_files = 10"), ("print", "true\ttrue"),
                         ("print", "still running")]


async def test_a_planted_symlink_is_not_followed(daemon: HostDaemon, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("host data")
    prepare = daemon.manager._prepare

    def plant(job, node, port):  # after the daemon made the directory, before the node starts
        inst = prepare(job, node, port)
        (inst.workdir / "secret").symlink_to(victim)
        (inst.workdir / "passwd").symlink_to("/etc/passwd")
        (inst.workdir / "up").symlink_to(tmp_path)
        return inst

    daemon.manager._prepare = plant  # type: ignore[method-assign]
    code = '''print(io.open("secret"))
print(io.open("secret", "w"))
print(io.open("./passwd", "a"))
print(io.open("up"))
print(os.rename("secret", "mine"))
print(os.remove("secret"))
'''
    out = await daemon.run_one(code)
    assert outcome(out) == OK
    assert out.lines == [("print", "nil\tsecret: symbolic links are not followed"),
                         ("print", "nil\tsecret: symbolic links are not followed"),
                         ("print", "nil\t./passwd: symbolic links are not followed"),
                         ("print", "nil\tup: symbolic links are not followed"),
                         ("print", "nil\tsecret: symbolic links are not followed"),
                         ("print", "nil\tsecret: symbolic links are not followed")]
    assert victim.read_text() == "host data"


run_async_tests_in_own_loop(globals())
