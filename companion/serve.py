"""``companion serve``: run the table service on the LAN.

Prints the URL phones open (an IP address), its QR code and the table PIN.

This is the composition root: the one place that reads the configuration, builds
the inputs it asks for (:func:`companion.inputs.build_attachments`: the board, the
camera, demo bots) and hands them to :func:`companion.service.app.create_app`. The
service itself never imports an input, so it runs (and is tested) without OpenCV or
a serial port.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from contextlib import ExitStack
from datetime import UTC, datetime

from companion.config import (
    BOARD_SOURCES,
    CAMERA_SOURCES,
    CompanionConfig,
    add_config_option,
    add_data_dir_option,
    find_config,
    load_config,
)
from companion.inputs import build_attachments, input_overrides
from companion.service.app import TableAttachment, create_app
from companion.service.auth import PinRateLimiter, TableAuth
from companion.service.backup import hold_data_dir
from companion.service.join import lan_address, qr_terminal, table_url
from companion.service.server import TableServer
from companion.service.settings import Settings
from companion.service.store import EventStore, check_data_dir


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion serve",
        description="Run the table: the live scoreboard and manual entry for every phone. "
        "Options override the [table] section of the configuration file.",
    )
    add_config_option(parser)
    parser.add_argument("--host", default=None, help="address to listen on (0.0.0.0: all)")
    parser.add_argument("--port", type=int, default=None, help="port to listen on (8000)")
    add_data_dir_option(parser)
    parser.add_argument("--pin", default=None,
                        help="table PIN, 4-8 digits, 6 or more advised (default: keep the "
                             "stored one, or make up 6 digits on the first start); another "
                             "PIN than before signs every phone out")
    parser.add_argument("--public-host", default=None,
                        help="address phones should use (default: this machine's LAN IP)")
    parser.add_argument("--no-mdns", action="store_true",
                        help="do not announce the table on mDNS")
    parser.add_argument("--board", default=None, metavar="SOURCE",
                        help=f"Catch Mag board: {BOARD_SOURCES} (default from the "
                             "configuration: sim)")
    parser.add_argument("--camera", default=None, metavar="SOURCE",
                        help=f"card camera: {CAMERA_SOURCES} (default from the "
                             "configuration: sim)")
    parser.add_argument("--demo", action="store_true",
                        help="bots play a full match of the chosen game through the board "
                             "and camera paths, at human pace, to watch on the dashboard")
    parser.add_argument("--speed", type=float, default=1.0,
                        help="demo pace multiplier (2 plays twice as fast; default 1)")
    parser.add_argument("--game", default=None,
                        help="with --demo: the game the bots start (default: catch-mag)")
    return parser


def config_from(args: argparse.Namespace) -> CompanionConfig:
    """The configuration file (if any), the environment, then the command-line options."""
    table: dict[str, object] = {
        key: value for key, value in {
            "host": args.host, "port": args.port, "data_dir": args.data_dir, "pin": args.pin,
            "public_host": args.public_host,
        }.items() if value is not None
    }
    if args.no_mdns:
        table["mdns"] = False
    overrides = {"table": table, **input_overrides(args.board, args.camera)}
    return load_config(find_config(args.config), **overrides)


def settings_from(config: CompanionConfig) -> Settings:
    table = config.table
    return Settings(data_dir=table.data_dir, host=table.host, port=table.port, pin=table.pin,
                    public_host=table.public_host, mdns=table.mdns,
                    allowed_hosts=table.allowed_hosts, trusted_proxies=table.trusted_proxies,
                    token_idle_days=table.token_idle_days, backup_minutes=table.backup_minutes,
                    backups_kept=table.backups_kept)


def main(argv: list[str]) -> int:
    """Run until interrupted; 0 on a clean stop, 2 on bad options or an unusable data dir."""
    # numpy's OpenBLAS would split the camera's small matrix products over every core and
    # stall whenever another core is busy: one thread is faster on a Pi. Set before the
    # camera path first imports numpy; an explicit setting in the environment wins.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    args = build_parser().parse_args(argv)
    if args.speed <= 0:
        print("companion serve: --speed must be a positive number, e.g. 2", file=sys.stderr)
        return 2
    held = ExitStack()
    try:
        config = config_from(args)
        settings = settings_from(config)
        attachments = build_attachments(
            config, demo=args.demo, speed=args.speed, game=args.game
        )
        check_data_dir(settings.data_dir)  # read-only or full: one plain line
        held.enter_context(hold_data_dir(settings.data_dir))
        # Check the history and settle the PIN now, so a damaged file stops the start
        # in one line and the PIN is printed before the first phone arrives.
        with EventStore(settings.database) as store:
            limiter = PinRateLimiter(settings.pin_attempts, settings.pin_lockout_seconds,
                                     time.time)
            auth = TableAuth(store, limiter, settings.pin)
            pin_line = pin_message(auth, store)
    except (ValueError, OSError) as exc:  # SettingsError, StoreError, ConfigError
        held.close()
        print(f"companion serve: {exc}", file=sys.stderr)
        return 2
    with held:
        return _serve(settings, attachments, pin_line)


def pin_message(auth: TableAuth, store: EventStore) -> str:
    """What the host screen says about the PIN: it can be shown only when this start set
    it (it is kept as a hash)."""
    if auth.new_pin is not None:
        short = ("   (4-5 digits can be guessed in weeks: 6 or more advised)"
                 if len(auth.new_pin) < 6 else "")
        return f"Table PIN: {auth.new_pin}{short}"
    since = store.get_meta("pin_set")
    when = (datetime.fromtimestamp(float(since), UTC).strftime("%Y-%m-%d")
            if since else "an earlier start")
    return (f"Table PIN: unchanged since {when} (kept only as a hash; "
            "start with --pin NNNNNN to set a new one)")


def _serve(settings: Settings, attachments: list[TableAttachment], pin_line: str) -> int:
    public = settings.public_host or (
        settings.host if settings.host not in ("0.0.0.0", "::", "") else lan_address()
    )
    url = table_url(public, settings.port)

    def announce() -> None:
        print(f"Table Companion is serving at {url}", flush=True)
        print(qr_terminal(url), flush=True)
        print(f"{pin_line}   (history: {settings.database})", flush=True)

    app = create_app(settings, attachments=attachments)
    server = TableServer(app, settings.host, settings.port, log_level="warning",
                         trusted_proxies=settings.trusted_proxies, on_started=announce)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    except SystemExit as exc:  # uvicorn exits when it cannot bind the port
        return int(exc.code) if isinstance(exc.code, int) else 1
    return 0 if server.started else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
