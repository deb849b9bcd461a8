"""``companion pin``: a join code for a friend, or a new table PIN.

A Raspberry Pi at the table has no screen, and the PIN is kept only as a salted hash:
nobody can be shown it again. ``companion pin`` prints a join code instead, six digits
that work like the PIN for ten minutes (the PIN itself when this run just made it, or
when the configuration names it). ``--set`` chooses a new PIN; it works at once, also
for a table that is running, and every phone already in is signed out.
"""

from __future__ import annotations

import argparse
import sys
import time

from companion.config import add_config_option, add_data_dir_option, find_config, load_config
from companion.service.auth import JOIN_CODE_SECONDS, PinRateLimiter, TableAuth
from companion.service.settings import Settings, check_pin
from companion.service.store import EventStore


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion pin",
        description="Print a join code for a friend (it works like the table PIN for ten "
                    "minutes), or set a new table PIN.",
    )
    add_config_option(parser)
    add_data_dir_option(parser)
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
            # The PIN given with --set (or in the configuration) wins; else the stored one.
            known = args.new_pin or config.table.pin
            auth = TableAuth(store, limiter, known)
            code = None if (known or auth.new_pin) else auth.join_code()
    except (ValueError, OSError) as exc:  # SettingsError, StoreError, ConfigError
        print(f"companion pin: {exc}", file=sys.stderr)
        return 2
    if args.new_pin is not None:
        print(f"Table PIN set to {args.new_pin} (phones that were in sign in again)",
              flush=True)
    elif code is None:
        print(f"Table PIN: {known or auth.new_pin}", flush=True)
    else:
        print(f"Join code: {code} (works like the table PIN for "
              f"{round(JOIN_CODE_SECONDS / 60)} minutes; the PIN itself is kept only as a "
              "hash: companion pin --set NEW chooses a new one)", flush=True)
    return 0
