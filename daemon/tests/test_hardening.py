"""Limits, bootstrap lists, the disk measure and the isolation choice (no controller)."""
from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from splayd.config import DEFAULT_SANDBOX_DIR, ConfigError
from splayd.instances import fmt_size, measure_dir
from splayd.isolation import Isolation, isolation_choose
from splayd.jobspec import CommandError, bootstrap_nodes, runtime_limits

from .utils import make_config

MB = 1024 * 1024
NODES = [{"ip": "127.0.0.1", "port": p} for p in range(20000, 20010)]


def test_bootstrap_lists() -> None:
    assert bootstrap_nodes(NODES, "head", 0) == NODES
    assert bootstrap_nodes(NODES, "head", 3) == NODES[:3]
    assert bootstrap_nodes(NODES, "random", 50) == NODES
    picked = bootstrap_nodes(NODES, "random", 4, random.Random(1))
    assert len(picked) == 4 and all(n in NODES for n in picked) and len({n["port"] for n in picked}) == 4


def test_runtime_limits_default_to_the_config_and_a_request_above_a_ceiling_is_refused(tmp_path: Path) -> None:
    cfg = make_config(tmp_path, "ws://x/", disk_max_size_mb=8, max_sockets=10)
    assert runtime_limits(cfg, None) == {"max_sockets": 10, "max_send": 1024 * MB, "max_receive": 1024 * MB,
                                         "udp_drop_ratio": 0.0, "disk_max_size": 8 * MB, "disk_max_files": 1000,
                                         "log_lines_per_second": 1000, "log_max_size": 50 * MB}
    got = runtime_limits(cfg, {"max_sockets": 7, "disk_max_size": MB, "udp_drop_ratio": 0.5})
    assert (got["max_sockets"], got["disk_max_size"], got["udp_drop_ratio"]) == (7, MB, 0.5)
    assert runtime_limits(cfg, {"max_sockets": 10, "disk_max_size": 8 * MB})["max_sockets"] == 10  # the ceiling itself
    with pytest.raises(CommandError, match=r"^INVALID_SOCKETS: asked 99 sockets per node, this daemon allows 10$"):
        runtime_limits(cfg, {"max_sockets": 99})
    with pytest.raises(CommandError, match=r"^INVALID_DISK: asked 9 MB of disk per node, this daemon allows 8 MB$"):
        runtime_limits(cfg, {"disk_max_size": 9 * MB})
    with pytest.raises(CommandError, match=r"limits.cpu: unknown limit"):
        runtime_limits(cfg, {"cpu": 1})
    with pytest.raises(CommandError, match=r"limits.udp_drop_ratio: expected a number between 0 and 1, got 2"):
        runtime_limits(cfg, {"udp_drop_ratio": 2})
    with pytest.raises(CommandError, match=r"limits.max_send: expected an integer >= 0, got -1"):
        runtime_limits(cfg, {"max_send": -1})


def test_config_sandbox_field(tmp_path: Path) -> None:
    assert make_config(tmp_path, "ws://x/").sandbox == "auto"
    assert make_config(tmp_path, "ws://x/", sandbox="docker").sandbox == "docker"
    with pytest.raises(ConfigError, match=r"sandbox: expected auto, docker, bwrap or rlimits, got 'podman'"):
        make_config(tmp_path, "ws://x/", sandbox="podman")


def test_fmt_size() -> None:
    assert [fmt_size(n) for n in (64 * MB, 20000000, 512 * 1024, 1500, 100)] == [
        "64 MB", "19.1 MB", "512 KB", "1.5 KB", "100 bytes"]


def test_measure_counts_everything_but_never_follows_links(tmp_path: Path) -> None:
    root = tmp_path / "node-1"
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / "app.lua").write_bytes(b"x" * 5000)  # the daemon's own files are not counted
    (root / "job.json").write_bytes(b"{}")
    (root / "a").write_bytes(b"x" * 3000)
    (root / "sub" / "deeper" / "b").write_bytes(b"y" * 10)
    os.symlink("/usr", root / "usr_link")
    os.symlink("/", root / "sub" / "root_link")
    size, entries, too_deep = measure_dir(root)
    assert entries == 6  # a, sub, deeper, b, usr_link, root_link
    assert 3010 <= size <= 3 * 4096 + 10 and not too_deep  # nothing of /usr
    assert measure_dir(root, max_entries=2)[1] == 3  # stops early
    assert measure_dir(root / "usr_link") == (0, 0, False)  # the top itself is never followed


def test_measure_stops_at_the_depth_limit(tmp_path: Path) -> None:
    path = tmp_path / "n"
    deep = path / "/".join(["d"] * 105)
    deep.mkdir(parents=True)
    _, entries, too_deep = measure_dir(path)
    assert too_deep and entries == 101


def test_isolation_choice(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    luajit = shutil.which("luajit") or "luajit"
    assert isolation_choose("rlimits", "bwrap", DEFAULT_SANDBOX_DIR, luajit, tmp_path).backend == "rlimits"
    chosen = isolation_choose("auto", "bwrap", DEFAULT_SANDBOX_DIR, luajit, tmp_path)
    assert chosen.backend == ("bwrap" if shutil.which("bwrap") else "rlimits")
    missing = isolation_choose("auto", "no-such-bwrap", DEFAULT_SANDBOX_DIR, luajit, tmp_path)
    assert missing.backend == "rlimits"
    assert "sandbox: rlimits only (bwrap unusable: bwrap not found (Debian package bubblewrap))" in caplog.text


def test_bwrap_exit_status_of_a_signal_becomes_minus_the_signal() -> None:
    b = Isolation("bwrap", "/usr/bin/bwrap", DEFAULT_SANDBOX_DIR, "luajit")
    assert [b.returncode(rc) for rc in (0, 1, 4, 137, 152, 153)] == [0, 1, 4, -9, -24, -25]
    assert Isolation("rlimits").returncode(137) == 137


def test_bwrap_runs_a_runtime_and_working_dir_that_live_under_tmp(tmp_path: Path) -> None:
    """A checkout under /tmp (CI clones, pytest's tmp_path) must stay visible under the private
    /tmp that bwrap mounts: the binds come after the tmpfs."""
    import subprocess
    assert str(tmp_path).startswith("/tmp/")
    sandbox = tmp_path / "checkout" / "sandbox"
    shutil.copytree(DEFAULT_SANDBOX_DIR, sandbox)
    work = tmp_path / "node-1"
    work.mkdir()
    (work / "app.lua").write_text('print("hello from under /tmp")\n')
    (work / "job.json").write_text('{"me": {"ip": "127.0.0.1", "port": 20000}, '
                                   '"nodes": [{"ip": "127.0.0.1", "port": 20000}], "position": 1}')
    luajit = shutil.which("luajit") or "luajit"
    iso = Isolation("bwrap", shutil.which("bwrap") or "bwrap", sandbox, luajit)
    argv = iso.wrap([luajit, str(sandbox / "node.lua"), "job.json", "app.lua"], work)
    result = subprocess.run(argv, cwd=work, capture_output=True, text=True, timeout=30)
    assert (result.returncode, result.stdout, result.stderr) == (0, "print\thello from under /tmp\n", "")
