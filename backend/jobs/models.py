import hashlib

from django.conf import settings
from django.db import models


class Job(models.Model):
    class State(models.TextChoices):
        QUEUED = "QUEUED"
        REGISTERING = "REGISTERING"
        RUNNING = "RUNNING"
        ENDED = "ENDED"
        KILLED = "KILLED"
        FAILED = "FAILED"
        NO_RESOURCES = "NO_RESOURCES"

    class Mode(models.TextChoices):
        LIVE = "live"   # one LuaJIT process per node, on daemons
        SIM = "sim"     # every node in one process on a virtual clock (jobs.simulation)

    TERMINAL = frozenset({State.ENDED, State.KILLED, State.FAILED, State.NO_RESOURCES})
    ACTIVE = frozenset({State.QUEUED, State.REGISTERING, State.RUNNING})

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="jobs")
    name = models.CharField(max_length=200, blank=True)
    code = models.TextField()
    filename = models.CharField(max_length=100, default="app.lua")
    nodes = models.PositiveIntegerField()
    duration = models.PositiveIntegerField(help_text="seconds")
    # The parsed resource descriptor block of the code (lib.descriptor), {} without one.
    descriptor = models.JSONField(default=dict, blank=True)
    # The emulated network (lib.network / sandbox/netmodel.py options), {} for the plain LAN.
    network = models.JSONField(default=dict, blank=True)
    state = models.CharField(max_length=16, choices=State.choices, default=State.QUEUED)
    reason = models.TextField(blank=True)
    error_line = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    # Set once when a stop is under way (Stop pressed or duration passed): claims the stop task.
    stop_requested_at = models.DateTimeField(null=True, blank=True)
    # Churn (docs/churn.md): the scenario's text ("" without one), its library name, and where
    # its nodes live: positions 1..churn_positions follow the scenario, the `churn_spares` after
    # them replace nodes that die on their own (keep_population). churn_epoch: wall-clock time
    # (epoch seconds, like log and metric `t`) of the scenario's t = 0, set at START.
    churn = models.TextField(blank=True)
    churn_name = models.CharField(max_length=100, blank=True)
    keep_population = models.BooleanField(default=False)
    churn_positions = models.PositiveIntegerField(null=True, blank=True)
    churn_spares = models.PositiveIntegerField(default=0)
    churn_epoch = models.FloatField(null=True, blank=True)
    # Simulation (docs/simulation.md): the mode, the seed that fixes every draw of a simulated
    # run, and its progress {virtual_t, events, events_per_s, nodes_started} ({} until known).
    mode = models.CharField(max_length=4, choices=Mode.choices, default=Mode.LIVE)
    seed = models.IntegerField(null=True, blank=True)
    progress = models.JSONField(default=dict, blank=True)
    # The runtime's message trace (docs/trace.md): {"max_events": N} (lib.descriptor.trace_clean)
    # sent to the daemons in `list`, null for none.
    trace = models.JSONField(null=True, blank=True)
    # An assignment's harness run with the code (simulated jobs only, docs/trace.md "Operations"):
    # its operations and probes land in the job's trace; `harness_of` names where it came from.
    harness = models.TextField(blank=True)
    harness_of = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["state"]), models.Index(fields=["owner", "-id"])]

    def __str__(self) -> str:
        return f"job {self.id} ({self.state})"

    @property
    def has_churn(self) -> bool:
        return self.churn_positions is not None

    @property
    def code_version(self) -> str:
        """Names the code a run ran (legends, comparisons): 8 hex digits of its SHA-256."""
        return hashlib.sha256(self.code.encode()).hexdigest()[:8]


class JobInstance(models.Model):
    class State(models.TextChoices):
        RESERVED = "RESERVED"
        RUNNING = "RUNNING"
        ENDED = "ENDED"
        FAILED = "FAILED"
        KILLED = "KILLED"
        LOST = "LOST"
        LEFT = "LEFT"  # down by the churn scenario, joins again later (keeps its slot)

    ACTIVE = frozenset({State.RESERVED, State.RUNNING, State.LEFT})  # holds a daemon slot
    TERMINAL = frozenset({State.ENDED, State.FAILED, State.KILLED, State.LOST})
    BAD = frozenset({State.FAILED, State.LOST})

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="instances")
    # node is None while the slot is only reserved (scheduler has not kept it yet).
    node = models.PositiveIntegerField(null=True, blank=True)
    daemon = models.ForeignKey("daemons.Daemon", on_delete=models.SET_NULL, null=True,
                               related_name="instances")
    port = models.PositiveIntegerField(null=True, blank=True)
    # The node's own address (its job.me.ip, sandbox/node_address.py), set when it is assigned.
    ip = models.GenericIPAddressField(null=True, blank=True)
    state = models.CharField(max_length=8, choices=State.choices, default=State.RESERVED)
    exit_reason = models.TextField(blank=True)
    exit_code = models.IntegerField(null=True, blank=True)
    # A spare started in place of a dead node (keep_population): the position it plays.
    plays = models.PositiveIntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["node", "id"]
        constraints = [
            models.UniqueConstraint(fields=["job", "node"], name="instance_job_node_unique",
                                    condition=models.Q(node__isnull=False)),
        ]
        indexes = [models.Index(fields=["daemon", "state"])]

    def __str__(self) -> str:
        return f"job {self.job_id} node {self.node} ({self.state})"


class ChurnEvent(models.Model):
    """One up/down transition of a churn job's node: the actual population is the joins minus
    the leaves and fails so far. `t` is seconds since the scenario's start (Job.churn_epoch),
    by the daemon's clock for joins and leaves, the controller's for fails."""
    class Event(models.TextChoices):
        JOIN = "join"
        LEAVE = "leave"   # by the scenario
        FAIL = "fail"     # on its own: crashed, killed by a limit, or its daemon was lost

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="churn_events")
    node = models.PositiveIntegerField()
    plays = models.PositiveIntegerField(null=True, blank=True)
    event = models.CharField(max_length=5, choices=Event.choices)
    t = models.FloatField()
    planned = models.FloatField(null=True, blank=True)  # the scenario's time; None: not planned
    graceful = models.BooleanField(default=False)
    text = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["job", "id"], name="churnevent_job_id_idx")]
