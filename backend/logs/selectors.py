from django.db.models import QuerySet

from .models import LogLine


def log_lines_after(*, job_id: int, after: int = 0, node: int | None = None, level: str | None = None,
                    limit: int = 1000) -> list[LogLine]:
    qs: QuerySet[LogLine] = LogLine.objects.filter(job_id=job_id, id__gt=after)
    if node is not None:
        qs = qs.filter(node=node)
    if level is not None:
        qs = qs.filter(level=level)
    return list(qs.order_by("id")[:limit])


def log_rows_in_time_order(*, job_id: int, node: int | None = None, level: str | None = None,
                           q: str = "") -> QuerySet:
    """(t, node, seq, level, text) tuples of a job's lines ordered by (t, node, seq): the
    order of the job page and the download. `q`: a case-insensitive substring of the text."""
    qs: QuerySet[LogLine] = LogLine.objects.filter(job_id=job_id)
    if node is not None:
        qs = qs.filter(node=node)
    if level is not None:
        qs = qs.filter(level=level)
    if q:
        qs = qs.filter(text__icontains=q)
    return qs.order_by("t", "node", "seq").values_list("t", "node", "seq", "level", "text")
