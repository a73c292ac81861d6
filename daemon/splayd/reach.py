"""Reachability between daemons (issue 24, docs/volunteer.md "Behind a router").

Nodes of one job on two daemons connect to each other at the addresses their daemons advertise.
A daemon behind a home router (NAT, no port forwarding) can dial out but nobody can dial in, so
the controller asks each daemon to try the others, and keeps the answer per ordered pair.

`ProbeListener`: a TCP listener and a UDP echo on one port (`probe_port`, 0: any free port), on
every interface as nodes' servers are; hello advertises the port as `"probe": {"port": N}`.
A probe sends `SPLAYLAB-PROBE <nonce>` and the listener answers `SPLAYLAB-PROBE <nonce> <name>`:
the name tells the prober it reached that daemon and not another machine that happens to hold the
same private address on the prober's own network (two routers both handing out 192.168.1.10).

`probe_command`: the controller's `probe` command, `{"targets": [{"daemon", "name", "ip", "port"}],
"timeout": s}` → `{"ok": true, "results": [{"daemon", "tcp", "tcp_ms", "tcp_error", "udp",
"udp_error"}]}`, every target tried at once.

Standard library only, no import from the package: the controller's tests load this file to
stand a real listener and prober behind a test daemon (backend/daemons/tests).
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import time
from typing import Any

logger = logging.getLogger("splayd")

MAGIC = b"SPLAYLAB-PROBE"
MAX_LINE = 256  # a probe or its answer; more is not a probe
READ_TIMEOUT = 5.0  # a connection to the listener that says nothing is dropped after this
DEFAULT_TIMEOUT = 2.0
MAX_TIMEOUT = 10.0
MAX_TARGETS = 1000
UDP_TRIES = 3  # datagrams are lost: send again at timeout / UDP_TRIES
CONCURRENCY = 64  # probes in flight at once


class ProbeRefused(ValueError):
    """A malformed `probe` command (JobManager replies ok: false with this reason)."""


def answer(line: bytes, name: str) -> bytes | None:
    """The listener's answer to one probe line, or None for anything else."""
    parts = line.strip().split()
    if len(parts) != 2 or parts[0] != MAGIC or len(parts[1]) > 64:
        return None
    return b"%s %s %s\n" % (MAGIC, parts[1], name.encode())


class _Echo(asyncio.DatagramProtocol):
    def __init__(self, name: str) -> None:
        self.name = name
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        reply = answer(data[:MAX_LINE], self.name)
        if reply is not None and self.transport is not None:
            self.transport.sendto(reply, addr)


class ProbeListener:
    """TCP and UDP on the same port number, so one advertised port covers both."""

    def __init__(self, name: str, port: int = 0, host: str = "0.0.0.0") -> None:
        self.name, self.wanted, self.host = name, port, host
        self.port = 0
        self.server: asyncio.AbstractServer | None = None
        self.udp: asyncio.DatagramTransport | None = None

    async def start(self) -> int:
        loop = asyncio.get_running_loop()
        # A port chosen by the kernel for TCP may be taken for UDP: try a few.
        for _ in range(1 if self.wanted else 5):
            self.server = await asyncio.start_server(self._serve, self.host, self.wanted)
            port = self.server.sockets[0].getsockname()[1]
            try:
                self.udp, _ = await loop.create_datagram_endpoint(lambda: _Echo(self.name),
                                                                  local_addr=(self.host, port))
            except OSError:
                self.server.close()
                await self.server.wait_closed()
                self.server = None
                if self.wanted:
                    raise
                continue
            self.port = port
            return port
        raise OSError(f"no port free for both TCP and UDP on {self.host}")

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), READ_TIMEOUT)
            reply = answer(line[:MAX_LINE], self.name)
            if reply is not None:
                writer.write(reply)
                await writer.drain()
        except (OSError, asyncio.TimeoutError, ValueError):
            pass  # a scanner or a half-open probe: nothing to answer
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    async def stop(self) -> None:
        if self.udp is not None:
            self.udp.close()
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


def _check_answer(reply: bytes, nonce: bytes, name: str) -> str:
    """"" when `reply` is the named daemon's answer to `nonce`, else why not."""
    parts = reply.strip().split()
    if len(parts) != 3 or parts[0] != MAGIC or parts[1] != nonce:
        return "something else answered on that port"
    if parts[2].decode(errors="replace") != name:
        return f"reached daemon {parts[2].decode(errors='replace')!r}, not {name!r} (same address on another network)"
    return ""


def _error(exc: BaseException, timeout: float) -> str:
    if isinstance(exc, asyncio.TimeoutError):
        return f"no answer within {timeout:g} s"
    if isinstance(exc, OSError) and exc.errno:  # asyncio's strerror is "Connect call failed (...)"
        return os.strerror(exc.errno)
    return str(exc) or type(exc).__name__


async def probe_tcp(ip: str, port: int, name: str, timeout: float) -> tuple[float | None, str]:
    """(round trip in ms from connect to answer, "") or (None, why not)."""
    nonce = secrets.token_hex(8).encode()
    started = time.monotonic()
    writer: asyncio.StreamWriter | None = None
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection(ip, port)
            writer.write(b"%s %s\n" % (MAGIC, nonce))
            await writer.drain()
            reply = await reader.readline()
        if not reply:
            return None, "connection closed without an answer"
        why = _check_answer(reply[:MAX_LINE], nonce, name)
        return (None, why) if why else (round(1000 * (time.monotonic() - started), 2), "")
    except (OSError, asyncio.TimeoutError, ValueError) as exc:
        return None, _error(exc, timeout)
    finally:
        if writer is not None:
            writer.close()


class _Catch(asyncio.DatagramProtocol):
    def __init__(self) -> None:
        self.replies: asyncio.Queue[bytes] = asyncio.Queue()
        self.error: OSError | None = None

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        self.replies.put_nowait(data[:MAX_LINE])

    def error_received(self, exc: Exception) -> None:  # ICMP port unreachable, on Linux
        self.error = exc if isinstance(exc, OSError) else OSError(str(exc))


async def probe_udp(ip: str, port: int, name: str, timeout: float) -> str:
    """"" when the named daemon echoed a datagram within `timeout`, else why not."""
    nonce = secrets.token_hex(8).encode()
    loop = asyncio.get_running_loop()
    try:
        transport, catch = await loop.create_datagram_endpoint(_Catch, remote_addr=(ip, port))
    except OSError as exc:
        return _error(exc, timeout)
    why = f"no answer within {timeout:g} s"
    try:
        deadline = loop.time() + timeout
        for attempt in range(UDP_TRIES):
            transport.sendto(b"%s %s\n" % (MAGIC, nonce))
            until = min(deadline, loop.time() + timeout / UDP_TRIES) if attempt < UDP_TRIES - 1 else deadline
            while (left := until - loop.time()) > 0:
                try:
                    reply = await asyncio.wait_for(catch.replies.get(), left)
                except asyncio.TimeoutError:
                    break
                why = _check_answer(reply, nonce, name)
                if not why:
                    return ""
            if catch.error is not None:
                return _error(catch.error, timeout)
        return why
    finally:
        transport.close()


def _targets(cmd: dict[str, Any]) -> tuple[list[dict[str, Any]], float]:
    targets = cmd.get("targets")
    if not isinstance(targets, list) or len(targets) > MAX_TARGETS:
        raise ProbeRefused(f"targets: expected a list of at most {MAX_TARGETS} daemons")
    timeout = cmd.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= MAX_TIMEOUT:
        raise ProbeRefused(f"timeout: expected seconds in (0, {MAX_TIMEOUT:g}], got {timeout!r}")
    out = []
    for i, t in enumerate(targets):
        ok = (isinstance(t, dict) and isinstance(t.get("ip"), str) and isinstance(t.get("name"), str)
              and isinstance(t.get("port"), int) and not isinstance(t.get("port"), bool)
              and 1 <= t["port"] <= 65535)
        if not ok:
            raise ProbeRefused(f"targets[{i}]: expected {{daemon, name, ip, port}}, got {t!r}")
        out.append(t)
    return out, float(timeout)


async def probe_command(cmd: dict[str, Any]) -> dict[str, Any]:
    targets, timeout = _targets(cmd)
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(t: dict[str, Any]) -> dict[str, Any]:
        async with gate:
            (ms, tcp_why), udp_why = await asyncio.gather(probe_tcp(t["ip"], t["port"], t["name"], timeout),
                                                          probe_udp(t["ip"], t["port"], t["name"], timeout))
        return {"daemon": t.get("daemon"), "tcp": ms is not None, "tcp_ms": ms, "tcp_error": tcp_why,
                "udp": not udp_why, "udp_error": udp_why}

    results = await asyncio.gather(*(one(t) for t in targets))
    logger.info("probe: %d of %d daemons reachable over TCP", sum(r["tcp"] for r in results), len(results))
    return {"ok": True, "results": list(results)}
