import hashlib
import secrets

from django.db import models


def daemon_key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def daemon_key_generate() -> str:
    return secrets.token_urlsafe(32)


class Daemon(models.Model):
    class State(models.TextChoices):
        ONLINE = "ONLINE"
        OFFLINE = "OFFLINE"  # socket closed; its instances wait for the unseen timeout
        UNSEEN = "UNSEEN"  # silent longer than SPLAYLAB_DAEMON_UNSEEN_AFTER; instances LOST

    name = models.CharField(max_length=100, unique=True)
    key_hash = models.CharField(max_length=64, unique=True)  # sha256 hex; the key is never stored
    state = models.CharField(max_length=8, choices=State.choices, default=State.OFFLINE)
    last_contact = models.DateTimeField(null=True, blank=True)
    ip = models.GenericIPAddressField(null=True, blank=True)
    max_instances = models.PositiveIntegerField(default=0)
    port_lo = models.PositiveIntegerField(default=0)
    port_hi = models.PositiveIntegerField(default=0)
    session = models.CharField(max_length=64, blank=True)
    version = models.PositiveIntegerField(default=0)
    sandbox = models.CharField(max_length=16, blank=True)  # "docker" | "bwrap" | "rlimits", from hello
    channel_name = models.CharField(max_length=200, blank=True)  # current consumer, if any
    created_at = models.DateTimeField(auto_now_add=True)
    # The owner's side, from hello (daemon/README.md "Availability" and "Owner's limits"):
    labels = models.JSONField(default=dict, blank=True)  # {"room": "B12", "owner": "volunteer"}
    limits = models.JSONField(default=dict, blank=True)  # ceilings: {"max_mem_mb": 256, ...}
    availability = models.CharField(max_length=16, blank=True)  # "always" | "idle" | "windows"
    available = models.BooleanField(default=True)  # the owner's policy lets it run nodes now
    unavailable_reason = models.CharField(max_length=300, blank=True)
    load = models.FloatField(null=True, blank=True)  # 1-min load average, from heartbeats
    rtt_ms = models.FloatField(null=True, blank=True)  # heartbeat → ack round trip
    # its link to the node relay is up (heartbeat "relay", issue 24): only then are its pairs
    # that cannot reach each other placed together (daemons.relay)
    relay_up = models.BooleanField(default=False)
    # The instructor's side:
    drained = models.BooleanField(default=False)  # no new jobs; running ones continue
    revoked_at = models.DateTimeField(null=True, blank=True)  # key refused from then on
    # Sessions: the last outbox sequence number the controller has processed (docs/architecture.md).
    acked_seq = models.BigIntegerField(default=0)
    # Its probe listener (hello's "probe"; daemon/splayd/reach.py): 0 = it advertises none
    probe_port = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def key_set(self, key: str) -> None:
        self.key_hash = daemon_key_hash(key)


class BlacklistEntry(models.Model):
    """An address nodes must not reach (pushed to daemons with the controller's own)."""

    address = models.CharField(max_length=100, unique=True)  # IPv4/IPv6 address or CIDR
    note = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["address"]

    def __str__(self) -> str:
        return self.address


class Reachability(models.Model):
    """Whether `src` reached `dst`'s advertised address, as `src` measured it (daemons.reachability):
    one row per ordered pair, the latest measure. A home router lets its daemon dial out but
    nobody dial in, so A -> B and B -> A differ."""

    class Status(models.TextChoices):
        DIRECT = "direct"  # TCP answered: nodes on src can connect to nodes on dst
        NONE = "none"  # no relay yet (issue 24): a job cannot span these two

    src = models.ForeignKey(Daemon, on_delete=models.CASCADE, related_name="reach_out")
    dst = models.ForeignKey(Daemon, on_delete=models.CASCADE, related_name="reach_in")
    status = models.CharField(max_length=8, choices=Status.choices)
    tcp = models.BooleanField(default=False)
    udp = models.BooleanField(default=False)  # the UDP echo answered too
    tcp_ms = models.FloatField(null=True, blank=True)  # connect -> answer
    error = models.CharField(max_length=300, blank=True)  # why not (TCP's, else UDP's)
    address = models.CharField(max_length=60, blank=True)  # what was tried: ip:port
    measured_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["src", "dst"], name="reachability_pair")]
        ordering = ["src_id", "dst_id"]

    def __str__(self) -> str:
        return f"{self.src_id} -> {self.dst_id}: {self.status}"
