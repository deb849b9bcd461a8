"""How long `companion serve` takes to exit after SIGTERM, at moments during and after its start.

systemd's `systemctl stop` sends SIGTERM and kills the service after the unit's
TimeoutStopSec (deploy/table-companion.service). Goal on a Pi: out within 5 s at any moment
after start, whatever start-up is still doing (the board, the camera, the deck's model).

Run: .venv/bin/python bench/bench_stop.py [--board sim] [--camera sim] [--at 0.5,1,2,3,5]
"""

from __future__ import annotations

import argparse
import configparser
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from processes import free_port

UNIT = Path(__file__).resolve().parents[1] / "deploy" / "table-companion.service"


def timeout_stop_sec() -> float:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.read(UNIT)
    return float(unit["Service"]["TimeoutStopSec"])


def stop_after(at: float | None, board: str, camera: str, limit: float) -> tuple[float, float]:
    """SIGTERM ``at`` seconds after start (None: once it answers); (seconds to exit, started)."""
    port = free_port()
    companion = Path(sys.executable).with_name("companion")
    with tempfile.TemporaryDirectory() as data:
        started = time.perf_counter()
        process = subprocess.Popen(
            [str(companion), "serve", "--port", str(port), "--host", "127.0.0.1",
             "--data-dir", data, "--pin", "1234", "--no-mdns", "--board", board,
             "--camera", camera],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            if at is None:
                while True:
                    try:
                        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
                        break
                    except OSError:
                        time.sleep(0.05)
            else:
                time.sleep(at)
            signalled = time.perf_counter()
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(limit)
            except subprocess.TimeoutExpired:
                return float("inf"), signalled - started
            return time.perf_counter() - signalled, signalled - started
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="sim")
    parser.add_argument("--camera", default="sim")
    parser.add_argument("--at", default="0.5,1,2,3,5",
                        help="comma-separated seconds after start to send SIGTERM")
    args = parser.parse_args()
    limit = timeout_stop_sec()
    print(f"TimeoutStopSec={limit:g}; goal: out within 5 s")
    moments: list[float | None] = [float(a) for a in args.at.split(",") if a]
    for at in [*moments, None]:
        took, when = stop_after(at, args.board, args.camera, limit)
        label = "once it answers" if at is None else f"{at:g} s after start"
        verdict = "never (killed)" if took == float("inf") else f"{took:.2f} s"
        print(f"SIGTERM {label} (at {when:.1f} s): exit after {verdict}")


if __name__ == "__main__":
    main()
