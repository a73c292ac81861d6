"""`python -m splayd --config FILE` (later `./splaylab daemon --config FILE`)."""
from __future__ import annotations

import argparse
import logging
import sys

from .config import ConfigError, load_config
from .server import Server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="splayd", description="SplayLab daemon")
    parser.add_argument("--config", required=True, help="TOML configuration file")
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    args = parser.parse_args(argv)
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
    return Server(config).run()


if __name__ == "__main__":
    sys.exit(main())
