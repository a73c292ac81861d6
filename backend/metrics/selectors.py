from __future__ import annotations

from typing import Any

from jobs.models import Job
from lib.network import network_label

from .models import MetricChunk, MetricSeries
from .services import MetricChunkDict, chunk_to_dict
from .sketch import histogram_out


def metric_chunks_after(*, job_id: int, after: int = 0, name: str | None = None,
                        limit: int = 500) -> list[MetricChunkDict]:
    qs = MetricChunk.objects.filter(job_id=job_id, id__gt=after)
    if name is not None:
        qs = qs.filter(name=name)
    return [chunk_to_dict(c) for c in qs.order_by("id")[:limit]]


def run_label(job: Job) -> str:
    """How plots name a run: its job, code version and network model."""
    return f"job #{job.id} · code {job.code_version} · {network_label(job.network) or 'lan'}"


def series_to_dict(s: MetricSeries) -> dict[str, Any]:
    return {
        "name": s.name, "kind": s.kind, "count": s.count, "sum": s.total, "min": s.min, "max": s.max,
        "histogram": histogram_out(s.histogram),
        "nodes": sorted(({"node": int(n), "count": c, "sum": total, "last": last}
                         for n, (c, total, last, _seq) in s.nodes.items()), key=lambda d: d["node"]),
        "fields": {k: sorted([int(v), n] for v, n in h.items()) for k, h in s.fields.items()},
    }


def metric_summary(*, job: Job) -> dict[str, Any]:
    return {"job": job.id, "label": run_label(job),
            "series": [series_to_dict(s) for s in MetricSeries.objects.filter(job=job).order_by("name")]}
