"""`splayd --config FILE` (installed by `pip install ./daemon`) or `python -m splayd --config FILE`.

Also `splayd --version` and `splayd --check-config FILE` (validate, print a summary, exit 0;
exit 2 with the reason otherwise).

The Lua runtime (node.lua, lib/, netmodel.py, data/): an installed package carries a copy in
splayd/runtime/ (daemon/setup.py copies it at build time); from a checkout it is the
repository's sandbox/ (config.DEFAULT_SANDBOX_DIR). A `sandbox_dir` in the config wins.
"""
from __future__ import annotations

import argparse
import logging
import shutil
import sys

from . import PROTOCOL_VERSION, __version__
from .config import ConfigError, load_config


def check_config(path: str) -> int:
    try:
        config = load_config(path)
    except ConfigError as e:
        print(f"splayd: {e}", file=sys.stderr)
        return 2
    luajit = shutil.which(config.luajit)
    print(f"{path}: ok")
    print(f"  name {config.name}, controller {config.controller}")
    print(f"  max_instances {config.max_instances}, ports {config.ports[0]}-{config.ports[1]}, ip {config.ip}")
    print(f"  sandbox {config.sandbox}, runtime {config.sandbox_dir}")
    print(f"  work_dir {config.work_dir}")
    if luajit is None:
        print(f"splayd: {path}: luajit: {config.luajit!r} not found on PATH (Debian package luajit)",
              file=sys.stderr)
        return 2
    print(f"  luajit {luajit}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="splayd", description="SplayLab daemon")
    parser.add_argument("--config", help="TOML configuration file")
    parser.add_argument("--check-config", metavar="FILE",
                        help="validate FILE (and find luajit and the runtime), print a summary, exit")
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    parser.add_argument("--version", action="version",
                        version=f"splayd {__version__} (protocol {PROTOCOL_VERSION})")
    args = parser.parse_args(argv)
    if args.check_config:
        return check_config(args.check_config)
    if not args.config:
        parser.error("--config FILE is required")
    logging.basicConfig(
        level=args.log_level,
        stream=sys.stderr,
        format="%(asctime)s splayd %(levelname)s %(message)s",
    )
    try:
        config = load_config(args.config)
    except ConfigError as e:
        print(f"splayd: {e}", file=sys.stderr)
        return 2
    from .server import Server
    return Server(config).run()


def cli() -> None:
    """The `splayd` console script."""
    sys.exit(main())


if __name__ == "__main__":
    cli()
