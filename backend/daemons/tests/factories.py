from django.utils import timezone

from daemons.models import Daemon
from daemons.services import daemon_create_or_rekey


def daemon_make(name: str = "lab-1", *, state: str = Daemon.State.ONLINE, max_instances: int = 10,
                ports: tuple[int, int] = (20000, 20999), **extra: object) -> tuple[Daemon, str]:
    """A daemon and its plain key (as daemon_create would print it)."""
    daemon, key = daemon_create_or_rekey(name=name, max_instances=max_instances,
                                         port_lo=ports[0], port_hi=ports[1])
    daemon.state = state
    daemon.ip = "127.0.0.1"
    daemon.last_contact = timezone.now()
    for field, value in extra.items():
        setattr(daemon, field, value)
    daemon.save()
    return daemon, key
