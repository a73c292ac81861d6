"""What a node may use and how its end reads: the Limits of a job on this daemon (rlimits,
duration, disk, output limits), the rlimits applied between fork and exec, and the exit's
state and reason in the student's words ("killed: CPU time limit of 30 s exceeded").
"""
from __future__ import annotations

import os
import resource
import signal
from dataclasses import dataclass, field
from typing import Any, Callable

from .output_limits import JOB_BUDGET_KEY, JobBudget, fmt_size

MB = 1024 * 1024
CPU_HARD_GRACE = 2  # seconds between SIGXCPU (soft limit) and SIGKILL (hard limit)


@dataclass(frozen=True)
class Limits:
    max_mem: int  # bytes (RLIMIT_AS)
    max_cpu: int  # seconds (RLIMIT_CPU soft)
    max_open_files: int
    max_file_size: int  # bytes
    duration: float | None  # wall seconds, enforced by the daemon's clock
    disk_max_size: int | None = None  # bytes in the working directory (periodic check)
    disk_max_files: int | None = None
    log_lines_per_second: int | None = None  # the owner's; runtime's "log_lines_per_second" (asked) wins
    runtime: dict[str, Any] = field(default_factory=dict)  # job.json "limits"
    nice: int = 0  # the node's niceness (config `nice`: the owner's CPU share)
    # The job's output budget (runtime's "log_max_size"), shared by every Instance made with
    # these Limits: a job's nodes on this daemon.
    budget: JobBudget = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "budget", JobBudget(self.runtime.get("log_max_size"),
                                                     self.runtime.get(JOB_BUDGET_KEY)))

    @property
    def lines_per_second(self) -> int | None:
        return self.runtime.get("log_lines_per_second", self.log_lines_per_second)

    @property
    def mem_mb(self) -> int:
        return self.max_mem // MB

    @property
    def file_size_is_quota(self) -> bool:
        """RLIMIT_FSIZE was lowered to the disk quota: a too big file is the quota's fault."""
        return self.disk_max_size is not None and self.max_file_size >= self.disk_max_size


def fmt_seconds(s: float) -> str:
    return f"{s:g}"


def _set_rlimit(res: int, soft: int, hard: int) -> None:
    _, cur_hard = resource.getrlimit(res)
    if cur_hard != resource.RLIM_INFINITY:
        hard = min(hard, cur_hard)
    resource.setrlimit(res, (min(soft, hard), hard))


def rlimit_preexec(limits: Limits, no_fork: bool = True) -> Callable[[], None]:
    """The function run in the child between fork and exec. `no_fork=False` under bwrap,
    which must fork to set up its namespaces (its PID namespace holds any child)."""

    def apply() -> None:
        _set_rlimit(resource.RLIMIT_AS, limits.max_mem, limits.max_mem)
        _set_rlimit(resource.RLIMIT_CPU, limits.max_cpu, limits.max_cpu + CPU_HARD_GRACE)
        _set_rlimit(resource.RLIMIT_NOFILE, limits.max_open_files, limits.max_open_files)
        _set_rlimit(resource.RLIMIT_FSIZE, limits.max_file_size, limits.max_file_size)
        _set_rlimit(resource.RLIMIT_CORE, 0, 0)
        if limits.nice:
            # At least the owner's niceness (never lower than the daemon's own: that would
            # need privileges); under bwrap the node inherits it.
            current = os.getpriority(os.PRIO_PROCESS, 0)
            os.setpriority(os.PRIO_PROCESS, 0, max(current, limits.nice))
        if no_fork:
            # A node never forks (not enforced for root, which has CAP_SYS_RESOURCE).
            _set_rlimit(resource.RLIMIT_NPROC, 0, 0)

    return apply


def exit_outcome(
    returncode: int,
    limits: Limits,
    first_error: str | None,
    wall_seconds: float,
) -> tuple[str, str]:
    """Map a node's exit to (state, reason); the reason names the limit that was hit."""
    detail = f": {first_error}" if first_error else ""
    memory = f"killed: memory limit of {fmt_size(limits.max_mem)} reached"
    if first_error and "not enough memory" in first_error and returncode in (1, 3, 4):
        return "FAILED", memory
    if returncode == 0:
        return "ENDED", "ended normally"
    if returncode == 1:
        return "FAILED", f"runtime error{detail}"
    if returncode == 2:
        return "FAILED", f"Lua syntax error{detail}"
    if returncode == 3:
        return "FAILED", f"runtime internal error{detail}"
    if returncode == 4:
        return "FAILED", memory
    if returncode < 0:
        sig = -returncode
        cpu = f"killed: CPU time limit of {fmt_seconds(limits.max_cpu)} s exceeded"
        if sig == signal.SIGXCPU:
            return "FAILED", cpu
        if sig == signal.SIGKILL and wall_seconds >= limits.max_cpu:
            # Not sent by the daemon (that case has a kill reason): the CPU hard limit.
            return "FAILED", cpu
        if sig == signal.SIGXFSZ:
            if limits.file_size_is_quota:
                assert limits.disk_max_size is not None
                return "FAILED", f"killed: disk quota of {fmt_size(limits.disk_max_size)} exceeded"
            return "FAILED", f"killed: file size limit of {fmt_size(limits.max_file_size)} exceeded"
        try:
            name = f" ({signal.Signals(sig).name})"
        except ValueError:
            name = ""
        return "FAILED", f"killed by signal {sig}{name}"
    return "FAILED", f"exited with code {returncode}{detail}"
