"""Jobs on this daemon: slot and port reservations, and the commands that act on them.

State lives here, in memory: `jobs[job_id]` holds the reserved ports (one slot each), the
code and node list from `list`, and the Instances. A slot is released when its instance
ends, when the controller frees it, or when a reservation is not started within
RESERVATION_TIMEOUT. A job's working directory (work_dir/job-<id>/) is removed when the job
holds no slot any more.

Docker backend: a job's container (docker_backend.DockerJobSandbox, `job.sandbox`) is opened at
the job's first `start` (its directory exists by then) and closed (killed and removed) when
the job is freed or stopped, or the daemon shuts down (`kill_all` waits for the closes).

What the commands carry is checked in jobspec.py (limits, network, bootstrap list); a churn
job's scenario is timeline.py's.
"""
from __future__ import annotations

import asyncio
import heapq
import ipaddress
import json
import logging
import shutil
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import MB, Config
from .instances import GATE_FILE, LEAVE_GRACE, Instance, Limits, fmt_seconds, fmt_size
from .docker_backend import NODE_ARGV, DockerJobSandbox, DockerSandboxError
from .isolation import TMP_SIZE, Isolation
from .jobspec import (CommandError, bootstrap_nodes, compile_network, int_arg, netmodel_module,
                      runtime_limits, trace_block)
from .outbox import Outbox
from .timeline import Timeline, parse_churn_events, parse_timeline

logger = logging.getLogger("splayd")

RESERVATION_TIMEOUT = 120.0  # seconds a registered slot may wait for `start`
KILL_WAIT = 3.0  # seconds `stop` waits for killed processes to be reaped
SCENARIO_ENDED = "the scenario ended"  # a churn job's end; the controller knows it by this reason

Reply = dict[str, Any]


@dataclass
class Job:
    id: int
    limits: Limits
    ports: set[int] = field(default_factory=set)  # reserved slots
    reserved_at: float = field(default_factory=time.monotonic)
    code: str | None = None
    nodes: list[dict[str, Any]] = field(default_factory=list)
    list_type: str = "head"
    list_size: int = 0
    listed: dict[int, int] = field(default_factory=dict)  # node -> port
    instances: dict[int, Instance] = field(default_factory=dict)  # node -> Instance
    sandbox: Any = None  # docker_backend.DockerJobSandbox (Docker backend), once started
    net_blocks: dict[int, Any] = field(default_factory=dict)  # node -> job.json "net" (emulated WAN)
    net_epoch: float | None = None  # wall clock of the first START: partition offsets count from it
    timeline: Timeline | None = None  # a churn job's scenario (docs/churn.md, "On the service")
    blacklist: list[str] = field(default_factory=list)  # the controller's blacklist when listed
    trace: dict[str, int] | None = None  # job.json "trace" (docs/trace.md), None: no message trace

    def deadline(self) -> float | None:
        """A churn job's end on the monotonic clock: its duration or the scenario's stop."""
        tl = self.timeline
        if tl is None or tl.t0 is None:
            return None
        ends = [x for x in (self.limits.duration, tl.end) if x is not None]
        return tl.t0 + min(ends) if ends else None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


class JobManager:
    def __init__(self, config: Config, outbox: Outbox, luajit: str,
                 isolation: Isolation | None = None) -> None:
        self.config = config
        self.outbox = outbox
        self.luajit = luajit
        self.isolation = isolation or Isolation("rlimits")
        self.jobs: dict[int, Job] = {}
        self.closing: set[asyncio.Task[None]] = set()  # Docker containers being removed
        # The owner's availability (availability.AvailabilityMonitor sets it): while not
        # available, register, list, start and join are refused "UNAVAILABLE: <why>".
        self.available = True
        self.unavailable_reason = ""
        self.blacklist: list[str] = []  # the controller's (welcome, `blacklist`): for jobs listed from then on

    # queries
    def used_slots(self) -> int:
        return sum(len(j.ports) for j in self.jobs.values())

    def instances(self) -> list[Instance]:
        return [i for j in self.jobs.values() for i in j.instances.values()]

    def running(self) -> list[Instance]:
        return [i for i in self.instances() if i.running]

    def hello_instances(self) -> list[dict[str, Any]]:
        return [{"job": i.job, "node": i.node, "state": i.state} for i in self.running()]

    def ceilings(self) -> dict[str, int]:
        """The owner's limits (hello's "limits"): the controller may ask less, never more."""
        c = self.config
        return {"max_mem_mb": c.max_mem_mb, "max_cpu_seconds": c.max_cpu_seconds,
                "disk_max_size_mb": c.disk_max_size_mb, "disk_max_files": c.disk_max_files,
                "max_sockets": c.max_sockets, "max_send_mb": c.max_send_mb,
                "max_receive_mb": c.max_receive_mb, "nice": c.nice,
                "max_bandwidth_kbps": c.max_bandwidth_kbps}

    def _network_within_bandwidth(self, network: Any, total_nodes: int, job_id: int) -> Any:
        """The job's emulated network under the owner's `max_bandwidth_kbps`: a job asking a
        higher bandwidth is refused (INVALID_NET); one asking none (or no network at all) is
        emulated at that rate, each node's sends shaped by the runtime's netem token bucket."""
        cap_kbps = self.config.max_bandwidth_kbps
        if not cap_kbps:
            return network
        if network is None:
            network = {"options": {"net": "lan"}, "seed": job_id, "nodes": total_nodes}
        if not isinstance(network, dict) or not isinstance(network.get("options"), dict):
            return network  # compile_network refuses it with its own reason
        netmodel = netmodel_module(self.config.sandbox_dir)
        asked = network["options"].get("bandwidth")
        if asked:
            try:
                rate = netmodel.parse_rate(str(asked))
            except netmodel.NetModelError:
                return network  # likewise
            if rate * 8 / 1000 > cap_kbps:
                raise CommandError(f"INVALID_NET: asked a bandwidth of {asked} per node, this daemon "
                                   f"allows {cap_kbps} kbit/s")
            return network
        return {**network, "options": {**network["options"], "bandwidth": f"{cap_kbps}kbit"}}

    def hello_owner(self) -> dict[str, Any]:
        """The owner's side of hello: labels, ceilings, availability (docs/architecture.md,
        "Sessions, owners and administration")."""
        return {
            "labels": dict(self.config.labels),
            "limits": self.ceilings(),
            "availability": {"policy": self.config.availability, "available": self.available,
                             "reason": "" if self.available else self.unavailable_reason},
        }

    def set_availability(self, available: bool, reason: str) -> None:
        self.available = available
        self.unavailable_reason = "" if available else reason

    def _check_available(self) -> None:
        if not self.available:
            raise CommandError(f"UNAVAILABLE: {self.unavailable_reason}")

    # blacklist (welcome's "blacklist", the `blacklist` command)
    @staticmethod
    def parse_blacklist(addresses: Any) -> list[str]:
        """IP addresses and networks (CIDR), normalized ("10.0.0.1", "192.168.7.0/24"); a bad
        entry raises CommandError naming it."""
        if not isinstance(addresses, list):
            raise CommandError(f"addresses: expected a list of IP addresses or networks, got {addresses!r}")
        out: list[str] = []
        for a in addresses:
            if not isinstance(a, str):
                raise CommandError(f"addresses: {a!r} is not an IP address or network")
            try:
                net = ipaddress.ip_network(a.strip(), strict=False)
            except ValueError:
                raise CommandError(f"addresses: {a!r} is not an IP address or network") from None
            text = str(net.network_address) if net.num_addresses == 1 else str(net)
            if text not in out:
                out.append(text)
        return out

    def set_blacklist(self, addresses: Any) -> list[str]:
        """Replace the blacklist given to jobs listed from now on. Never raises: bad entries
        are left out and logged; returns their messages."""
        if not isinstance(addresses, list):
            addresses = []
        good: list[str] = []
        errors: list[str] = []
        for a in addresses:
            try:
                good += [x for x in self.parse_blacklist([a]) if x not in good]
            except CommandError as e:
                errors.append(str(e))
                logger.warning("blacklist: %s (left out)", e)
        self.blacklist = good
        logger.info("blacklist: %d address(es) for jobs listed from now on", len(good))
        return errors

    async def cmd_blacklist(self, cmd: dict[str, Any]) -> Reply:
        self.set_blacklist(self.parse_blacklist(cmd.get("addresses")))
        return {"ok": True, "addresses": list(self.blacklist)}

    # commands
    async def handle(self, cmd: dict[str, Any]) -> Reply:
        handler = getattr(self, f"cmd_{cmd.get('type')}", None)
        if handler is None:
            return {"ok": False, "reason": f"unknown command {cmd.get('type')!r}"}
        try:
            return await handler(cmd)
        except CommandError as e:
            return {"ok": False, "reason": str(e)}

    def _job(self, cmd: dict[str, Any]) -> Job:
        job_id = int_arg(cmd, "job", 1)
        job = self.jobs.get(job_id)
        if job is None:
            raise CommandError(f"job {job_id} has no reservation on this daemon")
        return job

    async def cmd_register(self, cmd: dict[str, Any]) -> Reply:
        """Reserve `count` slots, each with a port, within the owner's limits; refusals start
        with a SPLAY-style code (UNAVAILABLE, INVALID_*, NO_SLOTS, BUSY_PORTS)."""
        job_id = int_arg(cmd, "job", 1)
        count = int_arg(cmd, "count", 1)
        cfg = self.config
        self._check_available()
        limits = self._limits(cmd)
        free = cfg.max_instances - self.used_slots()
        if count > free:
            return {"ok": False, "reason": f"NO_SLOTS: asked {_plural(count, 'slot')}, only {free} free "
                                          f"of {cfg.max_instances}"}
        taken = {p for j in self.jobs.values() for p in j.ports}
        lo, hi = cfg.ports
        ports: list[int] = []
        for port in range(lo, hi + 1):
            if port not in taken and port_is_free(port):
                ports.append(port)
                if len(ports) == count:
                    break
        if len(ports) < count:
            return {"ok": False, "reason": f"BUSY_PORTS: asked {_plural(count, 'port')}, only {len(ports)} "
                                          f"free in {lo}-{hi}"}
        job = self.jobs.get(job_id)
        if job is None:
            job = self.jobs[job_id] = Job(id=job_id, limits=limits)
        else:
            job.limits = limits
            job.reserved_at = time.monotonic()
        job.ports.update(ports)
        logger.info("job %s: reserved ports %s", job_id, ports)
        return {"ok": True, "ports": ports}

    def _limits(self, cmd: dict[str, Any]) -> Limits:
        cfg = self.config
        max_mem = cmd.get("max_mem")
        max_cpu = cmd.get("max_cpu")
        duration = cmd.get("duration")
        if not (isinstance(max_mem, int) and not isinstance(max_mem, bool) and max_mem > 0):
            max_mem = cfg.max_mem_bytes  # not asked: the ceiling
        elif max_mem > cfg.max_mem_bytes:
            raise CommandError(f"INVALID_MEM: asked {fmt_size(max_mem)} per node, "
                               f"this daemon allows {fmt_size(cfg.max_mem_bytes)}")
        if not (isinstance(max_cpu, int) and not isinstance(max_cpu, bool) and max_cpu > 0):
            max_cpu = cfg.max_cpu_seconds
        elif max_cpu > cfg.max_cpu_seconds:
            raise CommandError(f"INVALID_CPU: asked {max_cpu} s of CPU per node, "
                               f"this daemon allows {cfg.max_cpu_seconds} s")
        runtime = runtime_limits(cfg, cmd.get("limits"))
        return Limits(
            max_mem=max_mem,
            max_cpu=max_cpu,
            max_open_files=cfg.max_open_files,
            # RLIMIT_FSIZE caps one file; never above the whole directory's quota.
            max_file_size=min(cfg.max_file_size_mb * MB, runtime["disk_max_size"]),
            duration=float(duration) if isinstance(duration, (int, float)) and duration > 0 else None,
            disk_max_size=runtime["disk_max_size"],
            disk_max_files=runtime["disk_max_files"],
            log_lines_per_second=cfg.log_lines_per_second,
            runtime=runtime,
            nice=cfg.nice,
        )

    async def cmd_free(self, cmd: dict[str, Any]) -> Reply:
        job_id = int_arg(cmd, "job", 1)
        job = self.jobs.get(job_id)
        if job is None:
            return {"ok": True, "ports": []}
        ports = cmd.get("ports")
        wanted = set(job.ports) if ports is None else {p for p in ports if p in job.ports}
        for inst in list(job.instances.values()):
            if inst.port in wanted:
                inst.kill("KILLED", "freed by the controller")
        job.ports -= wanted
        self._maybe_cleanup(job)
        return {"ok": True, "ports": sorted(wanted)}

    async def cmd_list(self, cmd: dict[str, Any]) -> Reply:
        self._check_available()
        job = self._job(cmd)
        code = cmd.get("code")
        if not isinstance(code, str):
            raise CommandError("code: expected the Lua source as a string")
        nodes = cmd.get("nodes")
        if not isinstance(nodes, list) or not all(isinstance(n, dict) for n in nodes):
            raise CommandError("nodes: expected a list of {ip, port}")
        listed: dict[int, int] = {}
        for item in cmd.get("instances") or []:
            node, port = int_arg(item, "node", 1), int_arg(item, "port", 1)
            if port not in job.ports:
                raise CommandError(f"port {port} is not reserved for job {job.id}")
            listed[node] = port
        if not listed:
            raise CommandError("instances: expected at least one {node, port}")
        list_type = cmd.get("list_type", "head")
        if list_type not in ("head", "random"):
            raise CommandError(f"list_type: expected head or random, got {list_type!r}")
        list_size = int_arg(cmd, "list_size", 0) if "list_size" in cmd else 0
        trace = trace_block(cmd.get("trace"))
        if "limits" in cmd:  # the same limits as register's (a `list` may correct them)
            job.limits = self._limits({**cmd, "max_mem": job.limits.max_mem, "max_cpu": job.limits.max_cpu,
                                       "duration": job.limits.duration})
        network = self._network_within_bandwidth(cmd.get("network"), len(nodes), job.id)
        if network is not None:
            job.net_blocks = await asyncio.to_thread(compile_network, self.config.sandbox_dir, network,
                                                     sorted(listed), job.limits.duration or 3600)
        if "churn" in cmd:
            job.timeline = parse_timeline(cmd["churn"], listed)
        job.code, job.nodes, job.listed = code, nodes, listed
        job.list_type, job.list_size = list_type, list_size
        job.blacklist = list(self.blacklist)
        job.trace = trace
        return {"ok": True}

    async def cmd_start(self, cmd: dict[str, Any]) -> Reply:
        self._check_available()
        job = self._job(cmd)
        if job.code is None:
            raise CommandError(f"job {job.id} was not listed before start")
        if job.timeline is not None:
            return await self._start_timeline(job, cmd)
        started: list[int] = []
        errors: list[str] = []
        if job.net_epoch is None:
            job.net_epoch = time.time()
        todo = [(n, p) for n, p in sorted(job.listed.items()) if n not in job.instances]
        unavailable = await self._open_sandbox(job) if todo and self.isolation.is_docker else None
        for node, port in todo:
            inst = self._prepare(job, node, port)
            if unavailable:
                inst.finish("FAILED", f"cannot start the node runtime: {unavailable}")
                errors.append(f"node {node}: {unavailable}")
                continue
            try:
                await inst.start(self._argv(), None if job.sandbox else self._env(inst.workdir))
                started.append(node)
            except (OSError, ValueError, DockerSandboxError) as e:
                errors.append(f"node {node}: {e}")
        if errors and not started:
            return {"ok": False, "reason": "; ".join(errors)}
        return {"ok": True, "started": started}

    async def cmd_join(self, cmd: dict[str, Any]) -> Reply:
        """keep_population: start spare `node` now in place of position `plays`, then follow
        `events` (that position's remaining timeline)."""
        self._check_available()
        job = self._job(cmd)
        tl = job.timeline
        if tl is None or tl.t0 is None:
            raise CommandError(f"job {job.id} has no running churn scenario on this daemon")
        node = int_arg(cmd, "node", 1)
        if node not in job.listed:
            raise CommandError(f"node {node} is not listed on this daemon")
        current = job.instances.get(node)
        if current is not None and (current.running or (current.done.is_set() and not tl.rejoins(node))):
            raise CommandError(f"node {node} is not a free spare")
        tl.plays[node] = int_arg(cmd, "plays", 1)
        tl.add(parse_churn_events(node, cmd.get("events") or []))
        try:
            await self._churn_join(job, node, planned=None)
        except (OSError, ValueError, DockerSandboxError) as e:
            raise CommandError(f"cannot start node {node}: {e}") from None
        return {"ok": True, "t": round(tl.now(), 3)}

    async def cmd_stop(self, cmd: dict[str, Any]) -> Reply:
        job_id = int_arg(cmd, "job", 1)
        job = self.jobs.get(job_id)
        if job is None:
            return {"ok": True}
        await self._kill_job(job, "KILLED", "stopped by the controller")
        return {"ok": True}

    # churn (docs/churn.md, "On the service")
    async def _start_timeline(self, job: Job, cmd: dict[str, Any]) -> Reply:
        """t = 0 is `lead` seconds from now; no node starts before its join."""
        tl = job.timeline
        assert tl is not None
        if tl.t0 is None:
            lead = cmd.get("lead", 0)
            lead = min(10.0, max(0.0, float(lead))) if isinstance(lead, (int, float)) else 0.0
            tl.t0, tl.epoch = time.monotonic() + lead, time.time() + lead
            job.net_epoch = tl.epoch  # the scenario's partitions count from its t = 0
            if self.isolation.is_docker:
                unavailable = await self._open_sandbox(job)
                if unavailable:
                    return {"ok": False, "reason": f"cannot start the node runtime: {unavailable}"}
            tl.task = asyncio.create_task(self._run_timeline(job), name=f"job{job.id}-churn")
        return {"ok": True, "started": [], "epoch": tl.epoch}

    async def _run_timeline(self, job: Job) -> None:
        tl = job.timeline
        assert tl is not None and tl.t0 is not None
        while self.jobs.get(job.id) is job:
            delay = tl.t0 + tl.events[0][0] - time.monotonic() if tl.events else None
            if delay is None or delay > 0:
                tl.wake.clear()
                try:
                    await asyncio.wait_for(tl.wake.wait(), timeout=delay)
                except asyncio.TimeoutError:
                    pass
                continue
            _, t, node, kind, graceful = heapq.heappop(tl.events)
            self._dispatch(job, node, kind, t, graceful)

    def _dispatch(self, job: Job, node: int, kind: str, t: float, graceful: bool) -> None:
        """Run one event in a task of its own, so that starting processes (a burst of joins)
        never delays the events after it; a node's events still run in order (a leave waits
        for the node's join to have started it)."""
        tl = job.timeline
        assert tl is not None
        before = tl.chains.get(node)
        if kind == "join":
            tl.joining.add(node)

        async def run() -> None:
            if before is not None and not before.done():
                await asyncio.wait([before])
            try:
                if kind == "join":
                    await self._churn_join(job, node, planned=t)
                else:
                    self._churn_leave(job, node, planned=t, graceful=graceful)
            except (OSError, ValueError, DockerSandboxError) as e:
                logger.warning("job %s node %s: %s at %.3f s failed: %s", job.id, node, kind, t, e)
            finally:
                if kind == "join":
                    tl.joining.discard(node)

        task = tl.chains[node] = asyncio.create_task(run(), name=f"job{job.id}-node{node}-{kind}")
        task.add_done_callback(lambda done: tl.chains.pop(node, None) if tl.chains.get(node) is done else None)

    async def _churn_join(self, job: Job, node: int, planned: float | None) -> None:
        """Start the node; a planned join starts it held at its gate (JOIN_PRESTART) and opens
        the gate at the planned instant, which is the join's reported time."""
        tl = job.timeline
        assert tl is not None and tl.t0 is not None
        previous = job.instances.get(node)
        if previous is not None and previous.running and previous.kill_reason:
            # its leave is under way (a graceful one lasts up to LEAVE_GRACE): the new session
            # starts once the old one is reaped, in the same working directory
            try:
                await asyncio.wait_for(previous.done.wait(), LEAVE_GRACE + KILL_WAIT)
            except asyncio.TimeoutError:
                pass
        if tl.ended or previous is not None and previous.running:
            return
        held = planned is not None
        inst = self._prepare(job, node, job.listed[node], held=held)
        if previous is not None:
            inst.seq = previous.seq  # a node's log seq never repeats across its sessions
        inst.churn_clock = tl.now
        inst.rejoins = lambda: tl.rejoins(node)
        inst.churn_next = {"event": "join", "planned": planned}
        if node in tl.plays:
            inst.churn_next["plays"] = tl.plays[node]
        await inst.start(self._argv(), None if job.sandbox else self._env(inst.workdir), held=held)
        if held:
            delay = tl.t0 + planned - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            if not tl.ended and inst.running and not inst.kill_reason:
                inst.release()
        if tl.ended:  # ended, stopped or evicted while it was starting
            inst.rejoins = None
            if tl.ended_as is not None:
                inst.kill(*tl.ended_as)
            else:
                inst.kill("KILLED" if self.jobs.get(job.id) is not job else "ENDED", SCENARIO_ENDED)

    def _churn_leave(self, job: Job, node: int, planned: float, graceful: bool) -> None:
        tl = job.timeline
        assert tl is not None
        inst = job.instances.get(node)
        if inst is None or not inst.running or inst.kill_reason:
            return  # down already (it crashed): nothing to take away
        how = "gracefully" if graceful else "as a failure"
        state = "LEFT" if tl.rejoins(node) else "ENDED"
        inst.churn_next = {"event": "leave", "planned": planned, "graceful": graceful, "t": round(tl.now(), 3)}
        inst.kill(state, f"left at {planned:g} s by the scenario ({how})", graceful=graceful)

    def _end_timeline(self, job: Job) -> None:
        """The scenario's end (its stop or the job's duration): nodes up end, nodes down or
        never started and unused spares are reported ended, every slot is released."""
        tl = job.timeline
        assert tl is not None
        tl.close()
        for node, port in sorted(job.listed.items()):
            inst = job.instances.get(node)
            if inst is not None and inst.running:
                inst.rejoins = None
                inst.kill("ENDED", SCENARIO_ENDED)
            elif inst is None or inst.state == "LEFT":
                self._report_down(job, node, "ENDED", "spare, not needed" if node in tl.spares and
                                  node not in tl.plays else SCENARIO_ENDED)
        job.ports.clear()
        self._maybe_cleanup(job)

    def _report_down(self, job: Job, node: int, state: str, reason: str) -> None:
        """End a node that is not running (never started, or LEFT): report it, keep its seq."""
        before = job.instances.get(node)
        ended = Instance(job.id, node, job.listed[node], Path("."), job.limits, self.outbox)
        if before is not None:
            ended.seq = before.seq
        ended.finish(state, reason)
        job.instances[node] = ended

    # helpers
    async def _open_sandbox(self, job: Job) -> str | None:
        """Docker backend: open the job's container (once); None, or why it cannot run."""
        if job.sandbox is not None:
            return None
        job_dir = self.job_dir(job.id)
        job_dir.mkdir(parents=True, exist_ok=True)
        count = max(len(job.listed), len(job.ports), 1)
        try:
            sandbox = await asyncio.to_thread(
                DockerJobSandbox, daemon_name=self.config.name, job=job.id, job_dir=job_dir,
                sandbox_dir=self.config.sandbox_dir, limits=job.limits, instances=count,
                image=self.isolation.image, luajit=self.luajit,
                # the same private /tmp budget per instance as bubblewrap's (one tmpfs per job)
                tmp_mb=count * max(1, TMP_SIZE // MB))
            job.sandbox = sandbox
            await sandbox.open()
        except Exception as e:  # DockerSandboxError, ImageError, DockerException
            logger.error("job %s: cannot open its sandbox container: %s", job.id, e)
            if job.sandbox is not None:
                self._close_sandbox(job)
            return str(e) or type(e).__name__
        logger.info("job %s: container %s for %d instance(s)", job.id, sandbox.name, count)
        return None

    def _close_sandbox(self, job: Job) -> None:
        sandbox, job.sandbox = job.sandbox, None
        if sandbox is None:
            return
        task = asyncio.create_task(sandbox.close(), name=f"job{job.id}-close")
        self.closing.add(task)
        task.add_done_callback(self.closing.discard)

    async def wait_closed(self) -> None:
        """Wait for the containers being removed (shutdown)."""
        if self.closing:
            await asyncio.gather(*list(self.closing), return_exceptions=True)

    def job_dir(self, job_id: int) -> Path:
        return self.config.work_dir / f"job-{int(job_id)}"

    def _prepare(self, job: Job, node: int, port: int, held: bool = False) -> Instance:
        """The node's working directory with its app.lua and job.json; `held`: the runtime waits
        at its gate (a FIFO) before it loads the app, until Instance.release()."""
        workdir = self.job_dir(job.id) / f"node-{int(node)}"
        if workdir.exists():
            shutil.rmtree(workdir)
        workdir.mkdir(parents=True)
        (workdir / "app.lua").write_text(job.code or "", encoding="utf-8")
        spec = {
            "me": {"ip": self.config.ip, "port": port},
            "nodes": bootstrap_nodes(job.nodes, job.list_type, job.list_size),
            "all_nodes": job.nodes,
            "list_type": job.list_type,
            "list_size": job.list_size,
            "position": node,
            "job_id": job.id,
            "duration": job.limits.duration,
            "limits": {**job.limits.runtime, "connect_deny": job.blacklist},
        }
        if node in job.net_blocks:
            spec["net"], spec["net_epoch"] = job.net_blocks[node], job.net_epoch
        if job.trace is not None:
            spec["trace"] = dict(job.trace)
        if held:
            spec["gate"] = GATE_FILE
        (workdir / "job.json").write_text(json.dumps(spec), encoding="utf-8")
        inst = Instance(job.id, node, port, workdir, job.limits, self.outbox, on_end=self._on_end,
                        isolation=self.isolation, sandbox=job.sandbox)
        job.instances[node] = inst
        return inst

    def _argv(self) -> list[str]:
        if self.isolation.is_docker:  # paths inside the container
            return list(NODE_ARGV)
        return [self.luajit, str(self.config.node_lua), "job.json", "app.lua"]

    @staticmethod
    def _env(workdir: Path) -> dict[str, str]:
        return {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(workdir)}

    def _on_end(self, inst: Instance) -> None:
        job = self.jobs.get(inst.job)
        if job is None:
            return
        if inst.state == "LEFT":
            return  # keeps its slot for its next join
        if job.timeline is not None and job.instances.get(inst.node) is not inst:
            return  # an earlier session of a node that runs again
        job.ports.discard(inst.port)
        self._maybe_cleanup(job)

    def _maybe_cleanup(self, job: Job) -> None:
        if job.ports or any(i.running for i in job.instances.values()):
            return
        if self.jobs.get(job.id) is job:
            del self.jobs[job.id]
        self._close_sandbox(job)
        shutil.rmtree(self.job_dir(job.id), ignore_errors=True)
        logger.info("job %s: freed", job.id)

    async def _kill_job(self, job: Job, state: str, reason: str, grace: float = 0.0) -> None:
        """Kill the job's instances (`grace` > 0: SIGTERM first, SIGKILL `grace` s later),
        report its listed nodes that do not run, and free it once they are reaped."""
        if job.timeline is not None:
            if state == "LOST":
                job.timeline.ended_as = (state, reason)
            job.timeline.close()
        for node in job.listed:
            inst = job.instances.get(node)
            if inst is None or inst.state == "LEFT":  # listed, not running: report it too
                self._report_down(job, node, state, reason)
        insts = list(job.instances.values())
        for inst in insts:
            inst.kill(state, reason, graceful=grace > 0, grace=grace)
        waits = [asyncio.create_task(i.done.wait()) for i in insts if not i.done.is_set()]
        if waits:
            _, pending = await asyncio.wait(waits, timeout=KILL_WAIT + grace)
            for w in pending:
                w.cancel()
        job.ports.clear()
        self._maybe_cleanup(job)

    async def evict(self, why: str, grace: float) -> None:
        """The owner wants the machine back: every instance gets SIGTERM, SIGKILL `grace` s
        later, and is reported LOST "evicted: <why>" (churn for the controller); every slot
        is freed."""
        reason = f"evicted: {why}"
        await asyncio.gather(*(self._kill_job(j, "LOST", reason, grace=grace) for j in list(self.jobs.values())))

    async def kill_all(self, reason: str) -> None:
        await asyncio.gather(*(self._kill_job(j, "KILLED", reason) for j in list(self.jobs.values())))
        await self.wait_closed()

    def on_tick(self, now: float) -> None:
        """Enforce wall-clock durations and expire unused reservations (every 0.1 s)."""
        for job in list(self.jobs.values()):
            deadline = job.deadline()
            if deadline is not None:
                for inst in job.instances.values():
                    if inst.running:
                        inst.report_dropped(now)
                if now >= deadline:
                    self._end_timeline(job)
                continue
            d = job.limits.duration
            for inst in job.instances.values():
                if not inst.running:
                    continue
                inst.report_dropped(now)
                if d is not None and now - inst.started_at >= d:
                    inst.kill("ENDED", f"killed: duration of {fmt_seconds(d)} s reached")
            if not job.instances and job.ports and now - job.reserved_at > RESERVATION_TIMEOUT:
                logger.warning("job %s: reservation not started within %d s, freed", job.id, RESERVATION_TIMEOUT)
                job.ports.clear()
                self._maybe_cleanup(job)

    def supervisor_tasks(self) -> list[asyncio.Task[None]]:
        return [i.task for i in self.instances() if i.task is not None]
