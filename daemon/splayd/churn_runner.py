"""A churn job's scenario on this daemon (docs/churn.md, "On the service"): START fixes t = 0
(`lead` s later), then every join and leave of `timeline.Timeline` runs against this daemon's
clock, each in a task of its own, chained per node. A planned join starts its node
JOIN_PRESTART ahead, held at its gate, and opens the gate at the planned instant; a leave kills
(graceful: SIGTERM, SIGKILL LEAVE_GRACE later). `ChurnRunner` is mixed into jobs.JobManager,
whose slots, working directories and instance reports it uses."""
from __future__ import annotations

import asyncio
import heapq
import logging
import time
from typing import Any

from .docker_backend import DockerSandboxError
from .instances import LEAVE_GRACE
from .job import KILL_WAIT, SCENARIO_ENDED, Job

logger = logging.getLogger("splayd")

Reply = dict[str, Any]


class ChurnRunner:
    # provided by jobs.JobManager
    jobs: dict[int, Job]
    isolation: Any

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
                unavailable = await self._open_sandbox(job)  # type: ignore[attr-defined]
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
        inst = self._prepare(job, node, job.listed[node], held=held)  # type: ignore[attr-defined]
        if previous is not None:
            inst.seq = previous.seq  # a node's log seq never repeats across its sessions
        inst.churn_clock = tl.now
        inst.rejoins = lambda: tl.rejoins(node)
        inst.churn_next = {"event": "join", "planned": planned}
        if node in tl.plays:
            inst.churn_next["plays"] = tl.plays[node]
        await self._spawn(job, inst, held=held)  # type: ignore[attr-defined]
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
                self._report_down(job, node, "ENDED", "spare, not needed" if node in tl.spares and  # type: ignore[attr-defined]
                                  node not in tl.plays else SCENARIO_ENDED)
        job.ports.clear()
        self._maybe_cleanup(job)  # type: ignore[attr-defined]
