"""Config loading: defaults, and errors that name the file and the field."""
from __future__ import annotations

from pathlib import Path

import pytest

from splayd.config import DEFAULT_SANDBOX_DIR, ConfigError, load_config

GOOD = """
name = "lab-1"
controller = "ws://127.0.0.1:8000/ws/daemon/"
key = "k"
max_instances = 4
ports = [20000, 20099]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "splayd.toml"
    path.write_text(text)
    return path


def test_minimal_file_gets_the_documented_defaults(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, GOOD))
    assert cfg.ports == (20000, 20099)
    assert (cfg.ip, cfg.max_mem_mb, cfg.max_cpu_seconds) == ("127.0.0.1", 256, 60)
    assert (cfg.max_open_files, cfg.max_file_size_mb, cfg.luajit) == (256, 16, "luajit")
    assert cfg.work_dir == tmp_path.resolve() / "splayd-work-lab-1"
    assert cfg.sandbox_dir == DEFAULT_SANDBOX_DIR
    assert cfg.node_lua.is_file()


def test_relative_paths_are_resolved_against_the_config_folder(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, GOOD + 'work_dir = "w"\nmax_mem_mb = 64\n'))
    assert cfg.work_dir == tmp_path.resolve() / "w"
    assert cfg.max_mem_bytes == 64 * 1024 * 1024


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope\.toml: config file not found"):
        load_config(tmp_path / "nope.toml")


def test_invalid_toml_is_reported_with_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"splayd\.toml: invalid TOML"):
        load_config(write(tmp_path, "name = \n"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.replace('key = "k"\n', ""), r"key: required field is missing"),
        (lambda t: t + "colour = 1\n", r"colour: unknown field"),
        (lambda t: t.replace("ws://", "http://"), r"controller: expected a ws:// or wss:// URL"),
        (lambda t: t.replace("[20000, 20099]", "[20000]"), r"ports: expected \[lo, hi\]"),
        (lambda t: t.replace("[20000, 20099]", "[20099, 20000]"), r"ports: expected 1024 <= lo <= hi"),
        (lambda t: t.replace("[20000, 20099]", "[20000, 20001]"), r"ports: range 20000-20001 holds 2 ports"),
        (lambda t: t.replace("max_instances = 4", "max_instances = 0"), r"max_instances: expected an integer >= 1"),
        (lambda t: t.replace("max_instances = 4", 'max_instances = "4"'), r"max_instances: expected an integer"),
        (lambda t: t.replace('"lab-1"', '"../x"'), r"name: expected 1-64 letters"),
        (lambda t: t + 'sandbox_dir = "/nonexistent"\n', r"sandbox_dir: /nonexistent has no node\.lua"),
    ],
)
def test_bad_fields_are_named(tmp_path: Path, change, message: str) -> None:
    with pytest.raises(ConfigError, match=r"splayd\.toml: " + message):
        load_config(write(tmp_path, change(GOOD)))


def test_the_example_config_loads() -> None:
    cfg = load_config(Path(__file__).resolve().parents[1] / "splayd.example.toml")
    assert cfg.name == "lab-1"
