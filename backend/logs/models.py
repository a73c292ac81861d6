from django.db import models


class LogLine(models.Model):
    class Level(models.TextChoices):
        DEBUG = "debug"
        INFO = "info"
        WARNING = "warning"
        ERROR = "error"
        PRINT = "print"
        METRIC = "metric"  # splay.metrics records: JSON text {"name", "value", "type", "fields"?}

    job = models.ForeignKey("jobs.Job", on_delete=models.CASCADE, related_name="log_lines")
    node = models.PositiveIntegerField()
    seq = models.PositiveIntegerField()  # per (job, node), from 1, never repeats
    t = models.FloatField()  # epoch seconds, stamped by the daemon
    level = models.CharField(max_length=8, choices=Level.choices)
    text = models.TextField()

    class Meta:
        ordering = ["id"]
        constraints = [
            # A daemon may resend a batch after a reconnect: the duplicate is dropped.
            models.UniqueConstraint(fields=["job", "node", "seq"], name="logline_job_node_seq_unique"),
        ]
        indexes = [models.Index(fields=["job", "id"], name="logline_job_id_idx")]
