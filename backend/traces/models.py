"""The runtime's measurement plane of a job (docs/trace.md): its message trace and its
harness's probe records, kept apart from the app's logs and metrics.

TraceChunk holds the rows of one node's `trace` lines in one daemon batch as JSON arrays, not
packed arrays like MetricChunk: a row mixes numbers and strings (type, peer as a position or
"ip:port", name, outcome, op), it is read back whole (the API, the CLI), and the volume is
bounded by the runtime (each node lists at most max_events rows, 20,000 by default, then
aggregates once a second), so one ORM row per node and batch (tens to a few hundred rows)
is cheap and a JSON array is the plainest faithful copy. Row `t` is stored in epoch seconds
(the node's clock live; a simulated job's virtual seconds plus its start), converted to
seconds since the job started on the way out.

TraceSummary is the job's incremental summary (lib/trace.py `Summary`, updated in the
ingest's transaction) and the per-node high-water mark that drops a batch a daemon sends
again after a reconnection."""
from django.db import models


class TraceChunk(models.Model):
    """The trace rows of one node in one daemon batch, in the order the node wrote them."""
    job = models.ForeignKey("jobs.Job", on_delete=models.CASCADE, related_name="trace_chunks")
    node = models.PositiveIntegerField()
    size = models.PositiveIntegerField()  # rows
    rows = models.JSONField()  # [[t, type, peer, name, out, in, outcome, op, depth, dur, count], ...]

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["job", "id"], name="tracechunk_job_id_idx")]


class ProbeChunk(models.Model):
    """The probe records (the assignment's harness's, never the app's) of one node in one batch."""
    job = models.ForeignKey("jobs.Job", on_delete=models.CASCADE, related_name="probe_chunks")
    node = models.PositiveIntegerField()
    size = models.PositiveIntegerField()  # records
    records = models.JSONField()  # [{"t": epoch seconds, "name": .., "value": .., "fields": {..} | null}, ...]

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["job", "id"], name="probechunk_job_id_idx")]


class TraceSummary(models.Model):
    job = models.OneToOneField("jobs.Job", on_delete=models.CASCADE, related_name="trace_summary")
    # lib.trace.Summary.state(): {"nodes": {"<node>": [rows, messages_out, messages_in,
    # bytes_out, bytes_in, capped, [peers]]}, "ops": {"<op>": [name, messages, bytes, max_depth]},
    # "ops_truncated": bool}
    state = models.JSONField(default=dict)
    # {"<node>": highest seq taken}: a trace or probe line at or below it was taken already.
    marks = models.JSONField(default=dict)
