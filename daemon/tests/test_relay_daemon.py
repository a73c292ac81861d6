"""A real daemon's nodes through the node relay (issue 24): welcome's "relay" gives the daemon
its link, `list`'s "relay" its ticket and the peers it cannot reach; a luajit node connects to
such a peer at its job address (a router's, where nothing answers) and the bytes go through the
relay to the other daemon's node, and a datagram to it and back through the relay's UDP door. A
non-job address is refused as a direct connect is."""
from __future__ import annotations

import asyncio
import socket
import time

from splayd.relay import Relay, link_token, ticket_mac
from splayd.relay_link import RelayLink

from .test_relay import SECRET, echo_server
from .utils import FakeController

A_IP, B_IP = "198.51.100.1", "198.51.100.2"

APP = '''require "splay.base"
events.run(function()
  local peer = job.nodes[2]
  local c, err = socket.connect(peer.ip, peer.port)
  if not c then print("failed", err) return end
  c:settimeout(5)
  assert(c:send("hello through the relay\\n"))
  print("echo", c:receive("*l"))
  c:close()
  local _, denied = socket.connect(peer.ip, peer.port + 1)
  print("other", denied)
  local u = socket.udp()
  assert(u:setsockname("*", job.me.port))
  u:settimeout(5)
  assert(u:sendto("ping", peer.ip, peer.port))
  local data, ip, port = u:receivefrom()
  print("udp", data, ip, port == peer.port)
  local v = socket.udp()  -- no node port (as splay.urpc's client socket): answered all the same
  v:settimeout(5)
  assert(v:sendto("ping2", peer.ip, peer.port))
  data, ip = v:receivefrom()
  print("udp2", data, ip)
end)
'''


async def udp_answer(port: int, link: RelayLink, job: int) -> bytes:
    """Node 2's UDP socket: takes two datagrams from its daemon's door (the sender's job address,
    then the data), answers each ("pong", "pong2") through the door; returns the first."""
    loop = asyncio.get_running_loop()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", port))
        s.setblocking(False)
        got = []
        for answer in (b"pong", b"pong2"):
            data, _ = await loop.sock_recvfrom(s, 2048)
            sender = data.split(b"\n", 1)[0].decode()
            await loop.sock_sendto(s, f"{job} {sender}\n".encode() + answer, ("127.0.0.1", link.udp_port))
            got.append(data)
        return got[0]


async def test_a_node_reaches_a_peer_behind_another_router_through_the_relay(
        controller: FakeController, run_daemon) -> None:
    relay = Relay(SECRET, "127.0.0.1", 0)
    await relay.start()
    server, b_port = await echo_server()  # node 2, on the other daemon
    expires = int(time.time()) + 3600
    other = RelayLink(f"ws://127.0.0.1:{relay.port}/", 2, expires, link_token(SECRET, 2, expires))
    await other.start()
    controller.welcome_extra = {"relay": {"url": f"ws://127.0.0.1:{relay.port}/", "daemon": 1, "expires": expires,
                                          "token": link_token(SECRET, 1, expires)}}
    try:
        async with run_daemon() as daemon:
            for _ in range(100):  # the welcome is read a moment after the controller sent it
                if daemon.jobs.relay is not None:
                    break
                await asyncio.sleep(0.05)
            await asyncio.wait_for(daemon.jobs.relay.up.wait(), 5)
            await asyncio.wait_for(other.up.wait(), 5)
            reply = await controller.command("register", job=9, count=1, max_mem=128 * 1024 * 1024, max_cpu=5,
                                             duration=10)
            assert reply["ok"], reply
            a_port = reply["ports"][0]
            b_addr = f"{B_IP}:{b_port}"
            other.ticket(9, [b_addr], ticket_mac(SECRET, 2, 9, [b_addr]))
            a_addrs = [f"{A_IP}:{a_port}"]
            nodes = [{"ip": A_IP, "port": a_port}, {"ip": B_IP, "port": b_port}]
            udp_node = asyncio.create_task(udp_answer(b_port, other, 9))  # node 2's UDP side, same port
            reply = await controller.command(
                "list", job=9, code=APP, filename="app.lua", nodes=nodes, instances=[{"node": 1, "port": a_port}],
                relay={"addrs": a_addrs, "mac": ticket_mac(SECRET, 1, 9, a_addrs), "peers": [nodes[1]]})
            assert reply["ok"], reply
            assert (await controller.command("start", job=9))["ok"]
            final = await controller.wait_final(9, 1, timeout=15)
            lines = [ln["text"] for ln in controller.lines(9, 1)]
            assert (final["state"], final["exit_code"]) == ("ENDED", 0), (final, lines)
            refusal = f"connect to {B_IP}:{b_port + 1} denied: not a node of this job"
            assert lines == ["echo\thello through the relay", f"[splay.socket] {refusal}", f"other\t{refusal}",
                             f"udp\tpong\t{B_IP}\ttrue", f"udp2\tpong2\t{B_IP}"]
            assert (await asyncio.wait_for(udp_node, 5)) == f"{A_IP}:{a_port}\n".encode() + b"ping"
            assert relay.bytes_relayed == 2 * len("hello through the relay\n") + len("pingpong") + len("ping2pong2")
    finally:
        await other.stop()
        server.close()
        await relay.stop()
