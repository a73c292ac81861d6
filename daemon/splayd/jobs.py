"""Jobs on this daemon: slot and port reservations, and the commands that act on them.

State lives here, in memory: `jobs[job_id]` (job.Job) holds the reserved ports (one slot
each), the code and node list from `list`, and the Instances. A slot is released when its
instance ends, when the controller frees it, or when a reservation is not started within
RESERVATION_TIMEOUT. A job's working directory (workdir.job_dir) is removed when the job holds
no slot any more.

START answers at once and launches the nodes in a task of the job's own (launch.py, mixed in
with the Docker container's opening and closing); a `stop` or `free` arriving meanwhile stops
the launch first. The daemon's shutdown waits for the containers' removal (`kill_all`).

Elsewhere: what the commands carry is checked in jobspec.py (limits, network, bootstrap list)
and owner.py (the owner's ceilings, blacklist entries); a node's files are workdir.py's; a churn
job's scenario is timeline.py's, run by churn_runner.py.
"""
from __future__ import annotations

import asyncio
import logging
import shutil
import time
from pathlib import Path
from typing import Any

from .churn_runner import ChurnRunner
from .config import Config
from .docker_backend import DockerSandboxError
from .instances import Instance, Limits, fmt_seconds
from .isolation import Isolation
from .job import KILL_WAIT, RESERVATION_TIMEOUT, SCENARIO_ENDED, Job, plural, port_is_free
from .jobspec import CommandError, compile_network, int_arg, trace_block
from .launch import Launcher
from .outbox import Outbox
from .owner import ceilings, network_within_bandwidth, parse_blacklist, request_limits
from .reach import ProbeRefused, probe_command
from .relay_link import RelayLink, relay_listed
from .timeline import parse_churn_events, parse_timeline
from .workdir import job_dir, node_argv, node_env, node_files_write

logger = logging.getLogger("splayd")

__all__ = ["JobManager", "Job", "RESERVATION_TIMEOUT", "KILL_WAIT", "SCENARIO_ENDED", "port_is_free"]

Reply = dict[str, Any]


class JobManager(Launcher, ChurnRunner):
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
        self.relay: RelayLink | None = None  # the node relay's link (welcome's "relay"; relay_link.py)

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
        return ceilings(self.config)

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
    parse_blacklist = staticmethod(parse_blacklist)

    def set_blacklist(self, addresses: Any) -> list[str]:
        """Replace the blacklist given to jobs listed from now on. Never raises: bad entries
        are left out and logged; returns their messages."""
        if not isinstance(addresses, list):
            addresses = []
        good: list[str] = []
        errors: list[str] = []
        for a in addresses:
            try:
                good += [x for x in parse_blacklist([a]) if x not in good]
            except CommandError as e:
                errors.append(str(e))
                logger.warning("blacklist: %s (left out)", e)
        self.blacklist = good
        logger.info("blacklist: %d address(es) for jobs listed from now on", len(good))
        return errors

    async def cmd_blacklist(self, cmd: dict[str, Any]) -> Reply:
        self.set_blacklist(parse_blacklist(cmd.get("addresses")))
        return {"ok": True, "addresses": list(self.blacklist)}

    async def cmd_probe(self, cmd: dict[str, Any]) -> Reply:
        """Try the other daemons' probe listeners (reach.py): who this one can reach."""
        try:
            return await probe_command(cmd)
        except ProbeRefused as e:
            raise CommandError(str(e)) from None

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
            return {"ok": False, "reason": f"NO_SLOTS: asked {plural(count, 'slot')}, only {free} free "
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
            return {"ok": False, "reason": f"BUSY_PORTS: asked {plural(count, 'port')}, only {len(ports)} "
                                          f"free in {lo}-{hi}"}
        job = self.jobs.get(job_id)
        if job is None:
            job = self.jobs[job_id] = Job(id=job_id, limits=limits)
        else:
            job.limits = limits
            job.reserved_at = time.monotonic()
        job.ports.update(ports)
        logger.info("job %s: reserved %d ports (%s-%s)", job_id, len(ports), min(ports), max(ports))
        return {"ok": True, "ports": ports}

    def _limits(self, cmd: dict[str, Any]) -> Limits:
        return request_limits(self.config, cmd)

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
        network = network_within_bandwidth(self.config, cmd.get("network"), len(nodes), job.id)
        if network is not None:
            job.net_blocks = await asyncio.to_thread(compile_network, self.config.sandbox_dir, network,
                                                     sorted(listed), job.limits.duration or 3600)
        if "churn" in cmd:
            job.timeline = parse_timeline(cmd["churn"], listed)
        job.code, job.nodes, job.listed = code, nodes, listed
        job.list_type, job.list_size = list_type, list_size
        job.blacklist = list(self.blacklist)
        job.trace = trace
        job.relay = relay_listed(self.relay, job.id, cmd.get("relay"))
        return {"ok": True}

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

    def _report_down(self, job: Job, node: int, state: str, reason: str) -> None:
        """End a node that is not running (never started, or LEFT): report it, keep its seq."""
        before = job.instances.get(node)
        ended = Instance(job.id, node, job.listed[node], Path("."), job.limits, self.outbox)
        if before is not None:
            ended.seq = before.seq
        ended.finish(state, reason)
        job.instances[node] = ended

    # helpers
    def job_dir(self, job_id: int) -> Path:
        return job_dir(self.config, job_id)

    def _prepare(self, job: Job, node: int, port: int, held: bool = False) -> Instance:
        """The node's working directory (workdir.node_files_write) and its Instance."""
        workdir = node_files_write(self.config, job, node, port, held=held)
        inst = Instance(job.id, node, port, workdir, job.limits, self.outbox, on_end=self._on_end,
                        isolation=self.isolation, sandbox=job.sandbox)
        job.instances[node] = inst
        return inst

    def _argv(self) -> list[str]:
        return node_argv(self.config, self.luajit, self.isolation.is_docker)

    @staticmethod
    def _env(workdir: Path) -> dict[str, str]:
        return node_env(workdir)

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
        if job.launch is not None and not job.launch.done():
            job.stopping = True  # nothing left to launch for: the launch ends, then cleans up
            job.launch.add_done_callback(lambda _: self._maybe_cleanup(job))
            return
        if self.jobs.get(job.id) is job:
            del self.jobs[job.id]
            if self.relay is not None and job.relay is not None:
                self.relay.ticket(job.id, [], "")  # the relay forgets this daemon's nodes of it
        self._close_sandbox(job)
        shutil.rmtree(self.job_dir(job.id), ignore_errors=True)
        logger.info("job %s: freed", job.id)

    async def _kill_job(self, job: Job, state: str, reason: str, grace: float = 0.0) -> None:
        """Stop its launch, kill the job's instances (`grace` > 0: SIGTERM first, SIGKILL
        `grace` s later), report its listed nodes that do not run, and free it once they are
        reaped."""
        job.stopping = True
        if job.launch is not None and not job.launch.done():
            await asyncio.wait([job.launch])  # the nodes being spawned now, no more
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
            if not job.instances and job.launch is None and job.ports and now - job.reserved_at > RESERVATION_TIMEOUT:
                logger.warning("job %s: reservation not started within %d s, freed", job.id, RESERVATION_TIMEOUT)
                job.ports.clear()
                self._maybe_cleanup(job)

    def supervisor_tasks(self) -> list[asyncio.Task[None]]:
        return [i.task for i in self.instances() if i.task is not None]
