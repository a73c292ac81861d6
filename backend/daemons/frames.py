"""The database side of DaemonConsumer's frames, one call per frame, so the consumer hops to a
thread once per frame (docs/architecture.md, "Daemon ⇄ controller protocol").

hello: authenticate the key, decide the address (daemons.addresses), open or resume the
session (services.daemon_hello) and read the blacklist for `welcome`.
log: the job's nodes this daemon may write for, then logs.frames.frame_ingest.
logs (a tick's lines of several jobs, one batch per job): the same per batch, in one call, each
batch in its own transaction; a batch that cannot be stored is recorded as below and the others
are kept.
instance: jobs.services.instance_update with the frame's fields checked.
A frame that cannot be stored anyway: frame_unstorable_record writes, for each node it names,
an error line saying why (at the seq of that node's first line in the frame, which was not
stored), or, for an instance report, applies it with that note as its reason, so the node
shows the hole and the daemon's journal moves on."""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

from jobs.models import JobInstance
from jobs.services import instance_update
from logs.frames import UNREACHABLE, FrameStored, frame_ingest
from logs.payloads import LogLineDict
from logs.services import INT_MAX, log_lines_ingest
from logs.text import storable_text

from .actions import blacklist_addresses
from .addresses import AddressRefused, hello_address
from .services import HelloResult, daemon_authenticate, daemon_hello

logger = logging.getLogger(__name__)

MAX_REASON = 2000  # characters of an instance's end reason (its first error line, often)
EXIT_CODE_MAX = 2**31 - 1  # a PostgreSQL integer


@dataclass
class HelloAccepted:
    result: HelloResult | None  # None: refused
    refusal: str = ""
    blacklist: list[str] = field(default_factory=list)
    address: str = ""


def hello_accept(*, content: dict[str, Any], peer: str | None, channel_name: str) -> HelloAccepted:
    daemon, refusal = daemon_authenticate(key=str(content.get("key") or ""))
    if daemon is None:
        return HelloAccepted(None, refusal)
    try:
        address = hello_address(claimed=content.get("ip"), peer=peer)
    except AddressRefused as exc:
        logger.warning("daemon %s refused: %s", daemon.name, exc)
        return HelloAccepted(None, str(exc))
    result = daemon_hello(daemon_id=daemon.id, hello=content, channel_name=channel_name, ip=address.address)
    return HelloAccepted(result, "", blacklist_addresses(), address.address)


def job_nodes(daemon_id: int, job_id: int) -> set[int]:
    return set(JobInstance.objects.filter(job_id=job_id, daemon_id=daemon_id, node__isnull=False)
               .values_list("node", flat=True))


def log_frame_ingest(*, daemon_id: int, job_id: int, nodes: set[int] | None,
                     lines: list[Any]) -> tuple[set[int], FrameStored]:
    """(the job's nodes on this daemon, what was stored). `nodes`: the consumer's cache."""
    if not nodes:
        nodes = job_nodes(daemon_id, job_id)
    return nodes, frame_ingest(job_id=job_id, nodes=nodes, raw_lines=lines)


@dataclass
class BatchStored:
    job_id: int
    nodes: set[int] = field(default_factory=set)  # the consumer's cache, refreshed
    stored: FrameStored = field(default_factory=FrameStored)
    notes: list[LogLineDict] = field(default_factory=list)  # the batch was unstorable: why, per node


def logs_frame_ingest(*, daemon_id: int, batches: list[Any],
                      nodes_of: dict[int, set[int]]) -> list[BatchStored]:
    """A `logs` frame: each {job, lines} batch as a `log` frame would be (UNREACHABLE still
    propagates: the frame is then not acked and comes again)."""
    out: list[BatchStored] = []
    for batch in batches:
        job_id = _int(batch.get("job")) if isinstance(batch, dict) else None
        lines = batch.get("lines") if isinstance(batch, dict) else None
        if job_id is None or not isinstance(lines, list) or not lines:
            continue
        try:
            nodes, stored = log_frame_ingest(daemon_id=daemon_id, job_id=job_id, nodes=nodes_of.get(job_id), lines=lines)
            out.append(BatchStored(job_id, nodes, stored))
        except UNREACHABLE:
            raise
        except Exception as exc:  # noqa: BLE001 - one job's batch must not cost the others theirs
            logger.exception("daemon %s: job %s's batch of a logs frame cannot be stored; recorded on its nodes",
                             daemon_id, job_id)
            notes = frame_unstorable_record(daemon_id=daemon_id, content={"type": "log", "job": job_id, "lines": lines},
                                            error=f"{type(exc).__name__}: {str(exc)[:300]}")
            out.append(BatchStored(job_id, notes=notes))
    return out


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return None


def instance_frame_apply(*, daemon_id: int, content: dict[str, Any]) -> bool:
    job_id, node = _int(content.get("job")), _int(content.get("node"))
    if job_id is None or node is None or not (1 <= node <= INT_MAX):
        return False
    exit_code = _int(content.get("exit_code"))
    if exit_code is not None and abs(exit_code) > EXIT_CODE_MAX:
        exit_code = None
    churn = content.get("churn")
    return instance_update(daemon_id=daemon_id, job_id=job_id, node=node, state=str(content.get("state")),
                           exit_code=exit_code,
                           reason=storable_text(content.get("reason") or "", limit=MAX_REASON),
                           churn=churn if isinstance(churn, dict) else None)


def frame_unstorable_record(*, daemon_id: int, content: dict[str, Any], error: str) -> list[LogLineDict]:
    """An error line per node of a frame the controller could not store (the frame is acked
    all the same); an instance report is applied with that note as its reason. Returns
    the lines stored, to publish."""
    job_id = _int(content.get("job"))
    if job_id is None:
        return []
    mine = job_nodes(daemon_id, job_id)
    notes: list[dict[str, Any]] = []
    if content.get("type") == "log":
        seqs: dict[int, list[int]] = {}
        for raw in content.get("lines") if isinstance(content.get("lines"), list) else []:
            if isinstance(raw, dict) and _int(raw.get("node")) in mine and _int(raw.get("seq")) is not None:
                seqs.setdefault(_int(raw["node"]), []).append(_int(raw["seq"]))  # type: ignore[arg-type]
        for node, numbers in sorted(seqs.items()):
            notes.append({"node": node, "seq": min(numbers), "level": "error",
                          "text": f"the controller could not store {len(numbers)} line{'s' if len(numbers) != 1 else ''} of this node "
                                  f"(seq {min(numbers)}-{max(numbers)}): {error}"})
    elif content.get("type") == "instance" and _int(content.get("node")) in mine:
        # No seq to file a line under: the note becomes the instance's end reason.
        instance_frame_apply(daemon_id=daemon_id, content={
            **content, "churn": None,
            "reason": f"the controller could not store this node's report as sent: {error}"})
    if not notes:
        return []
    now = time.time()
    return log_lines_ingest(job_id=job_id, nodes=None, raw_lines=[{**n, "t": now} for n in notes])
