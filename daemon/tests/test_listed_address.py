"""A node's job.me is its own entry of the controller's node list (daemon/splayd/workdir.py):
on the controller's host every node has a loopback address of its own (docs/decisions.md, "One
address per node"), its servers listen there and its connections leave from there."""
from __future__ import annotations

from .utils import FakeController

# Node 1 serves on "*" (its own address) and prints who connected; node 2 connects to it.
APP = '''require "splay.base"
print("me", job.me.ip, job.me.port)
events.run(function()
  if job.position == 1 then
    local srv = assert(socket.bind("*", job.me.port))
    srv:settimeout(5)
    local c = assert(srv:accept())
    print("accepted from", (c:getpeername()))
  else
    for _ = 1, 100 do
      local c = socket.connect(job.nodes[1].ip, job.nodes[1].port)
      if c then print("connected from", (c:getsockname())) c:close() return end
      events.sleep(0.05)
    end
    print("no connection")
  end
end)
'''


async def test_each_node_gets_its_listed_address_and_peers_see_it(controller: FakeController, run_daemon) -> None:
    async with run_daemon():
        reply = await controller.command("register", job=3, count=2, max_mem=128 * 1024 * 1024, max_cpu=5, duration=10)
        assert reply["ok"], reply
        ports = reply["ports"]
        ips = ["127.1.250.1", "127.1.250.2"]
        nodes = [{"ip": ip, "port": p} for ip, p in zip(ips, ports)]
        reply = await controller.command("list", job=3, code=APP, filename="app.lua", nodes=nodes,
                                         instances=[{"node": k + 1, "port": p} for k, p in enumerate(ports)])
        assert reply["ok"], reply
        assert (await controller.command("start", job=3))["ok"]
        for k in (1, 2):
            final = await controller.wait_final(3, k, timeout=10)
            assert (final["state"], final["exit_code"]) == ("ENDED", 0), final
        assert [ln["text"] for ln in controller.lines(3, 1)] == [f"me\t{ips[0]}\t{ports[0]}", f"accepted from\t{ips[1]}"]
        assert [ln["text"] for ln in controller.lines(3, 2)] == [f"me\t{ips[1]}\t{ports[1]}", f"connected from\t{ips[1]}"]


async def test_a_node_missing_from_the_list_gets_the_daemons_address(controller: FakeController, run_daemon) -> None:
    async with run_daemon():
        reply = await controller.command("register", job=4, count=1, max_mem=128 * 1024 * 1024, max_cpu=5, duration=10)
        port = reply["ports"][0]
        reply = await controller.command("list", job=4, code='print(job.me.ip, job.me.port)', filename="app.lua",
                                         nodes=[{"ip": "127.1.250.3", "port": port + 50}],
                                         instances=[{"node": 1, "port": port}])
        assert reply["ok"], reply
        assert (await controller.command("start", job=4))["ok"]
        await controller.wait_final(4, 1, timeout=10)
        assert [ln["text"] for ln in controller.lines(4, 1)] == [f"127.0.0.1\t{port}"]


# Both nodes are this daemon's, listed at a router's address (203.0.113.7: documentation space,
# nothing answers there): node 1 serves TCP and UDP on its job address, node 2 reaches it there.
ROUTED_APP = '''require "splay.base"
events.run(function()
  if job.position == 1 then
    local srv = assert(socket.bind(job.me.ip, job.me.port))
    local u = socket.udp()
    assert(u:setsockname(job.me.ip, job.me.port))
    srv:settimeout(5); u:settimeout(5)
    local c = assert(srv:accept())
    c:settimeout(5)
    print("tcp", c:receive("*l"))
    local data, ip, port = u:receivefrom()
    print("udp", data, ip, port == job.nodes[2].port)
    assert(u:sendto("pong", ip, port))
  else
    local u = socket.udp()
    assert(u:setsockname("*", job.me.port))
    u:settimeout(5)
    for _ = 1, 100 do
      local c = socket.connect(job.nodes[1].ip, job.nodes[1].port)
      if c then
        c:send("hello\\n")
        local _, peer_port = c:getpeername()
        print("connected to", (c:getpeername()), peer_port == job.nodes[1].port)
        c:close()
        assert(u:sendto("ping", job.nodes[1].ip, job.nodes[1].port))
        local data, ip = u:receivefrom()
        print("udp", data, ip)
        return
      end
      events.sleep(0.05)
    end
    print("no connection")
  end
end)
'''


async def test_nodes_of_one_daemon_listed_at_a_routers_address_reach_each_other(
        controller: FakeController, run_daemon) -> None:
    """Issue 24's same-machine shortcut: behind a router without port forwarding the controller
    lists the router's address, where nothing reaches this machine; the runtime sends the
    daemon's own nodes' traffic over 127.0.0.1 and the apps see only job addresses."""
    router = "203.0.113.7"
    async with run_daemon():
        reply = await controller.command("register", job=5, count=2, max_mem=128 * 1024 * 1024, max_cpu=5, duration=10)
        assert reply["ok"], reply
        ports = reply["ports"]
        nodes = [{"ip": router, "port": p} for p in ports]
        reply = await controller.command("list", job=5, code=ROUTED_APP, filename="app.lua", nodes=nodes,
                                         instances=[{"node": k + 1, "port": p} for k, p in enumerate(ports)])
        assert reply["ok"], reply
        assert (await controller.command("start", job=5))["ok"]
        for k in (1, 2):
            final = await controller.wait_final(5, k, timeout=10)
            assert (final["state"], final["exit_code"]) == ("ENDED", 0), (final, controller.lines(5, k))
        assert [ln["text"] for ln in controller.lines(5, 1)] == ["tcp\thello", f"udp\tping\t{router}\ttrue"]
        assert [ln["text"] for ln in controller.lines(5, 2)] == [f"connected to\t{router}\ttrue", f"udp\tpong\t{router}"]
