"""What this daemon holds for one job (`Job`): its reserved slots, what `list` carried, its
instances, and its launch or churn scenario in progress. Pure state; the commands that change
it are jobs.JobManager's."""
from __future__ import annotations

import asyncio
import socket
import time
from dataclasses import dataclass, field
from typing import Any

from .instances import Instance, Limits
from .timeline import Timeline

RESERVATION_TIMEOUT = 120.0  # seconds a registered slot may wait for `start`
KILL_WAIT = 3.0  # seconds `stop` waits for killed processes to be reaped
SCENARIO_ENDED = "the scenario ended"  # a churn job's end; the controller knows it by this reason


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
    # START answers at once; its nodes are launched by this task (jobs.JobManager._launch) and
    # each reported RUNNING or FAILED as it starts. `stopping`: no further node is launched.
    launch: asyncio.Task[None] | None = None
    stopping: bool = False
    json_parts: dict[Any, Any] = field(default_factory=dict)  # job.json's shared parts (workdir.py)
    # job.json "relay" (issue 24): {"port": the relay link's door, "peers": [nodes reached only
    # through the relay]}, None: every peer is reached directly
    relay: dict[str, Any] | None = None

    def deadline(self) -> float | None:
        """A churn job's end on the monotonic clock: its duration or the scenario's stop."""
        tl = self.timeline
        if tl is None or tl.t0 is None:
            return None
        ends = [x for x in (self.limits.duration, tl.end) if x is not None]
        return tl.t0 + min(ends) if ends else None


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True
