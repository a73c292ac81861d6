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
