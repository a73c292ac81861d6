"""What retention knows of each job: how many bytes of raw data it stores, whether staff asked
to keep it, and what was pruned (the job page says why its logs are gone).

One row per job, made by the first sweep that measures it (services.usage_measure); the byte
counts are the sweep's pg_column_size sums, not counted at ingest, so the hot ingest path pays
nothing for retention."""
from django.conf import settings
from django.db import models


class JobRetention(models.Model):
    job = models.OneToOneField("jobs.Job", on_delete=models.CASCADE, primary_key=True,
                               related_name="retention")
    # A course's instructor or TA marked the job "keep": neither age nor size prunes it.
    keep = models.BooleanField(default=False)
    keep_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                blank=True, related_name="+")
    # Bytes stored (pg_column_size of the rows) per kind: log lines, metric chunks, trace and
    # probe chunks.
    log_bytes = models.PositiveBigIntegerField(default=0)
    metric_bytes = models.PositiveBigIntegerField(default=0)
    trace_bytes = models.PositiveBigIntegerField(default=0)
    measured_at = models.DateTimeField(null=True, blank=True)
    # Measured after the job ended and settled (SPLAYLAB_RETENTION_SETTLE): no new rows come,
    # so only a prune changes the counts from then on.
    settled = models.BooleanField(default=False)
    # Pruning: when last, what so far ({"log_lines": n, "metric_chunks": n, "trace_chunks": n,
    # "probe_chunks": n}), whether the age rule took everything, and the sentence the job page shows.
    pruned_at = models.DateTimeField(null=True, blank=True)
    pruned = models.JSONField(default=dict, blank=True)
    pruned_all = models.BooleanField(default=False)
    pruned_note = models.TextField(blank=True)

    class Meta:
        indexes = [models.Index(fields=["settled", "measured_at"], name="retention_measure_idx")]

    def __str__(self) -> str:
        return f"retention of job {self.job_id}"

    @property
    def total_bytes(self) -> int:
        return self.log_bytes + self.metric_bytes + self.trace_bytes
