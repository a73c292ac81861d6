import importlib.util
import sys
from pathlib import Path
from types import ModuleType

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


SPLAYD_DIR = Path(__file__).resolve().parents[3] / "daemon" / "splayd"


def splayd_module(name: str) -> ModuleType:
    """daemon/splayd/NAME.py loaded from its file: the controller does not import the daemon
    package, but its tests drive the daemon's own code (reach.py, relay.py: standard library and
    websockets only) to check that both sides agree."""
    spec = importlib.util.spec_from_file_location(f"splayd_{name}_under_test", SPLAYD_DIR / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
