"""``companion serve``: run the table service on the LAN.

Prints the URL phones open (an IP address), its QR code and the table PIN.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from companion.service.app import create_app
from companion.service.auth import PinRateLimiter, TableAuth
from companion.service.join import lan_address, qr_terminal, table_url
from companion.service.server import TableServer
from companion.service.settings import Settings, SettingsError
from companion.service.store import EventStore


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion serve",
        description="Run the table: the live scoreboard and manual entry for every phone. "
        "Options override the [table] section of the configuration file.",
    )
    parser.add_argument("--config", type=Path, default=None,
                        help="configuration file (default: /etc/table-companion/companion.toml "
                             "when it exists)")
    parser.add_argument("--host", default=None, help="address to listen on (0.0.0.0: all)")
    parser.add_argument("--port", type=int, default=None, help="port to listen on (8000)")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="where the table's SQLite file lives (./data)")
    parser.add_argument("--pin", default=None,
                        help="table PIN, 4-8 digits (default: keep the stored one, "
                             "or make one up on the first start)")
    parser.add_argument("--public-host", default=None,
                        help="address phones should use (default: this machine's LAN IP)")
    parser.add_argument("--no-mdns", action="store_true",
                        help="do not announce the table on mDNS")
    return parser


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings from the configuration file (if any), the environment, then the options."""
    given: dict[str, object] = {
        key: value for key, value in {
            "host": args.host, "port": args.port, "data_dir": args.data_dir, "pin": args.pin,
            "public_host": args.public_host,
        }.items() if value is not None
    }
    if args.no_mdns:
        given["mdns"] = False
    try:
        from companion.config import find_config, load_config
    except ImportError:  # the shared configuration module is optional here
        if args.config is not None:
            raise SettingsError("--config needs the companion.config module") from None
        return Settings(
            data_dir=args.data_dir or Path("data"), host=args.host or "0.0.0.0",
            port=8000 if args.port is None else args.port, pin=args.pin,
            public_host=args.public_host, mdns=not args.no_mdns,
        )
    table = load_config(find_config(args.config), table=given).table
    return Settings(data_dir=table.data_dir, host=table.host, port=table.port, pin=table.pin,
                    public_host=table.public_host, mdns=table.mdns)


def main(argv: list[str]) -> int:
    """Run until interrupted; 0 on a clean stop, 2 on bad options or an unusable data dir."""
    args = build_parser().parse_args(argv)
    try:
        settings = settings_from(args)
        # Settle the PIN now so it can be printed before the first phone arrives.
        with EventStore(settings.database) as store:
            limiter = PinRateLimiter(settings.pin_attempts, settings.pin_lockout_seconds,
                                     time.time)
            pin = TableAuth(store, limiter, settings.pin).pin
    except (ValueError, OSError) as exc:  # SettingsError, StoreError, ConfigError
        print(f"companion serve: {exc}", file=sys.stderr)
        return 2
    public = settings.public_host or (
        settings.host if settings.host not in ("0.0.0.0", "::", "") else lan_address()
    )
    url = table_url(public, settings.port)
    print(f"Table Companion is serving at {url}", flush=True)
    print(qr_terminal(url), flush=True)
    print(f"Table PIN: {pin}   (history: {settings.database})", flush=True)
    server = TableServer(create_app(settings), settings.host, settings.port, log_level="warning")
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    except SystemExit as exc:  # uvicorn exits when it cannot bind the port
        return int(exc.code) if isinstance(exc.code, int) else 1
    return 0 if server.started else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
