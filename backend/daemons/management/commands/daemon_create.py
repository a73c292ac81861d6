"""daemon_create NAME: create (or re-key, by name) a daemon and write splayd's TOML config."""
import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from daemons.services import daemon_create_or_rekey


def _ports(value: str) -> tuple[int, int]:
    try:
        lo, hi = (int(x) for x in value.split("-", 1))
    except ValueError as exc:
        raise CommandError(f"--ports must look like 20000-20999, not {value!r}") from exc
    if not 1 <= lo <= hi <= 65535:
        raise CommandError(f"bad port range {value!r}")
    return lo, hi


def config_toml(*, name: str, controller: str, key: str, max_instances: int, ports: tuple[int, int],
                work_dir: str, ca_file: str = "", nice: int = 0) -> str:
    s = json.dumps  # a JSON string is a valid TOML basic string
    return (
        "# splayd configuration written by `manage.py daemon_create`; keep the key secret.\n"
        f"name = {s(name)}\n"
        f"controller = {s(controller)}\n"
        f"key = {s(key)}\n"
        f"max_instances = {max_instances}\n"
        f"ports = [{ports[0]}, {ports[1]}]\n"
        'ip = "127.0.0.1"\n'
        f"max_mem_mb = {settings.SPLAYLAB_MAX_MEM_MB}\n"
        f"max_cpu_seconds = {settings.SPLAYLAB_MAX_CPU_SECONDS}\n"
        f"work_dir = {s(work_dir)}\n"
        + (f"ca_file = {s(ca_file)}\n" if ca_file else "")
        + (f"nice = {nice}\n" if nice else "")
    )


class Command(BaseCommand):
    help = "Create or re-key daemon NAME (idempotent by name) and write its splayd config."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--max-instances", type=int, default=100)
        parser.add_argument("--nice", type=int, default=0, help="the instances' niceness (0-19: splayd's `nice`)")
        parser.add_argument("--ports", default="20000-20999", help="LO-HI")
        parser.add_argument("--controller", default="ws://127.0.0.1:8000/ws/daemon/")
        parser.add_argument("--write-config", metavar="PATH",
                            help="write the TOML here (default: print it)")
        parser.add_argument("--work-dir", help="instances' working folders "
                            "(default: <config dir>/<name>-work)")
        parser.add_argument("--ca-file", default="", help="wss:// controller: the CA (PEM) the "
                            "daemon trusts instead of the system's, e.g. a self-signed certificate")

    def handle(self, *args: object, **opts: object) -> None:
        name = str(opts["name"])
        max_instances = int(opts["max_instances"])  # type: ignore[call-overload]
        if max_instances < 1:
            raise CommandError("--max-instances must be at least 1")
        lo, hi = _ports(str(opts["ports"]))
        nice = int(opts["nice"])  # type: ignore[call-overload]
        if not 0 <= nice <= 19:
            raise CommandError(f"--nice must be from 0 to 19, not {nice}")
        if hi - lo + 1 < max_instances:
            raise CommandError(f"{max_instances} instances need {max_instances} ports; "
                               f"{lo}-{hi} has {hi - lo + 1}")
        path = Path(str(opts["write_config"])).resolve() if opts["write_config"] else None
        work_dir = str(opts["work_dir"] or ((path.parent if path else Path.cwd()) / f"{name}-work"))
        daemon, key = daemon_create_or_rekey(name=name, max_instances=max_instances,
                                             port_lo=lo, port_hi=hi)
        text = config_toml(name=name, controller=str(opts["controller"]), key=key,
                           max_instances=max_instances, ports=(lo, hi), work_dir=work_dir,
                           ca_file=str(Path(str(opts["ca_file"])).resolve()) if opts["ca_file"] else "",
                           nice=nice)
        if path is None:
            self.stdout.write(text, ending="")
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.chmod(0o600)  # holds the key
        path.write_text(text)
        self.stdout.write(f"daemon {daemon.name} (id {daemon.id}): config written to {path}")
