"""splay.metrics records of a job, stored compactly and aggregated as they arrive.

A metric record (`metrics.observe(name, value, fields)` / `metrics.count(name, n)`) is not a log
row: at up to 1000 records per second per node one ORM row each cannot keep up (bench/metric_ingest.py).
Each log batch from a daemon becomes one MetricChunk per metric holding parallel arrays,
and the job's MetricSeries row for that metric is updated in the same transaction."""
from django.db import models


class Kind(models.TextChoices):
    OBSERVE = "observe"  # a sample (latency, hops...): CDF, percentiles
    COUNT = "count"  # an increment of a counter (messages sent...): sums


class MetricSeries(models.Model):
    """The incremental aggregate of one metric of one job (lib/sketch.py for the histogram)."""
    job = models.ForeignKey("jobs.Job", on_delete=models.CASCADE, related_name="metric_series")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    count = models.PositiveBigIntegerField(default=0)  # records
    total = models.FloatField(default=0.0)  # sum of values
    min = models.FloatField(null=True)
    max = models.FloatField(null=True)
    # {"positive": {"i": n}, "negative": {"i": n}, "zero": n}: log buckets of relative width GAMMA.
    histogram = models.JSONField(default=dict)
    # {"<node>": [count, sum, last value, highest seq taken]}: per-node counters, and the
    # high-water mark that drops a batch a daemon sends again after a reconnection.
    nodes = models.JSONField(default=dict)
    # {"hops": {"3": n}}: histograms of small integer fields of the records.
    fields = models.JSONField(default=dict)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["job", "name"], name="metricseries_job_name_unique")]

    def __str__(self) -> str:
        return f"job {self.job_id} metric {self.name}"


class MetricChunk(models.Model):
    """The samples of one metric in one daemon batch (the nodes of one daemon), in arrival order."""
    job = models.ForeignKey("jobs.Job", on_delete=models.CASCADE, related_name="metric_chunks")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    size = models.PositiveIntegerField()  # samples
    # Parallel packed arrays (packing.py): little-endian int32 node, float64 t (epoch seconds,
    # stamped by the daemon) and value. Packed bytes, not ArrayFields: a quarter of the disk
    # space and no per-item text escaping on the way in (bench/metric_ingest.py).
    node = models.BinaryField()
    t = models.BinaryField()
    value = models.BinaryField()
    fields = models.JSONField(null=True)  # list parallel to value (null entries), or null: none had fields

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["job", "id"], name="metricchunk_job_id_idx")]
