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

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def key_set(self, key: str) -> None:
        self.key_hash = daemon_key_hash(key)
