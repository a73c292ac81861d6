"""manage.py daemon_create"""
import stat
import tomllib
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from daemons.models import Daemon, daemon_key_hash


def test_writes_a_splayd_config_with_a_working_key(db, tmp_path) -> None:
    path = tmp_path / "etc" / "lab-1.toml"
    call_command("daemon_create", "lab-1", "--max-instances", "50", "--ports", "21000-21099",
                 "--controller", "ws://ctl:8000/ws/daemon/", "--write-config", str(path), stdout=StringIO())
    config = tomllib.loads(path.read_text())
    assert config | {"key": None} == {
        "name": "lab-1", "controller": "ws://ctl:8000/ws/daemon/", "key": None, "max_instances": 50,
        "ports": [21000, 21099], "ip": "127.0.0.1", "max_mem_mb": 256, "max_cpu_seconds": 60,
        "work_dir": str(tmp_path / "etc" / "lab-1-work")}
    daemon = Daemon.objects.get(name="lab-1")
    assert daemon.key_hash == daemon_key_hash(config["key"])
    assert config["key"] not in daemon.key_hash
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_running_twice_rekeys_the_same_daemon(db, tmp_path) -> None:
    path = tmp_path / "d.toml"
    call_command("daemon_create", "lab-1", "--write-config", str(path), stdout=StringIO())
    first = tomllib.loads(path.read_text())["key"]
    call_command("daemon_create", "lab-1", "--write-config", str(path), stdout=StringIO())
    second = tomllib.loads(path.read_text())["key"]
    assert Daemon.objects.count() == 1
    assert first != second
    assert Daemon.objects.get().key_hash == daemon_key_hash(second)


def test_prints_the_config_without_write_config(db) -> None:
    out = StringIO()
    call_command("daemon_create", "lab-2", "--ports", "30000-30009", "--max-instances", "10", stdout=out)
    assert tomllib.loads(out.getvalue())["ports"] == [30000, 30009]


def test_rejects_more_instances_than_ports(db) -> None:
    with pytest.raises(CommandError, match="need 20 ports"):
        call_command("daemon_create", "lab-3", "--ports", "30000-30009", "--max-instances", "20")


def test_nice_is_written_for_the_instances_and_checked(db, tmp_path) -> None:
    """The stack's local daemons run their nodes at niceness 10 (cli/stack.py: the controller
    shares their machine); a daemon created without it keeps splayd's default (0)."""
    path = tmp_path / "lab-1.toml"
    call_command("daemon_create", "lab-1", "--nice", "10", "--write-config", str(path), stdout=StringIO())
    assert tomllib.loads(path.read_text())["nice"] == 10
    with pytest.raises(CommandError, match="--nice must be from 0 to 19, not 20"):
        call_command("daemon_create", "lab-1", "--nice", "20", "--write-config", str(path), stdout=StringIO())
