"""``companion pin``: print the table PIN, or set a new one.

A Raspberry Pi at the table has no screen: the host finds the PIN here (or on a phone
that is already in, under History). With ``--set`` the new PIN works at once, also for
a table that is running; phones that are in stay in.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from companion.config import find_config, load_config
from companion.service.auth import PinRateLimiter, TableAuth
from companion.service.settings import Settings, check_pin
from companion.service.store import EventStore


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion pin",
        description="Print the table PIN that phones enter to join in, or set a new one.",
    )
    parser.add_argument("--config", type=Path, default=None,
                        help="configuration file (default: /etc/table-companion/companion.toml "
                             "when it exists)")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="where the table's SQLite file lives (default from the "
                             "configuration: ./data)")
    parser.add_argument("--set", dest="new_pin", default=None, metavar="PIN",
                        help="set this PIN instead (4 to 8 digits)")
    return parser


def main(argv: list[str]) -> int:
    """0 with the PIN printed; 2 with a plain message on bad options or an unusable table."""
    args = build_parser().parse_args(argv)
    try:
        overrides: dict[str, object] = {}
        if args.data_dir is not None:
            overrides["data_dir"] = args.data_dir
        config = load_config(find_config(args.config), table=overrides)
        if args.new_pin is not None:
            check_pin(args.new_pin)
        settings = Settings(data_dir=config.table.data_dir)
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        with EventStore(settings.database) as store:
            limiter = PinRateLimiter(1, 0.0, time.time)
            # The PIN given in the configuration (or --set) wins; else the stored one.
            pin = TableAuth(store, limiter, args.new_pin or config.table.pin).pin
    except (ValueError, OSError) as exc:  # SettingsError, StoreError, ConfigError
        print(f"companion pin: {exc}", file=sys.stderr)
        return 2
    if args.new_pin is not None:
        print(f"Table PIN set to {pin}", flush=True)
    else:
        print(f"Table PIN: {pin}", flush=True)
    return 0
