"""How long `companion serve` takes to stop with phones watching (goal: well under 1 s).

Starts the real command (simulated board and camera) in a fresh data folder, opens
two live streams the way phones do, sends Ctrl-C after a pause, and times until the
process has exited. Each pause is run a few times: just after start (inputs still
opening), and once everything is running. A stop that needs uvicorn's 3 s graceful
timeout (a stream left open) shows as a figure above 3 s.

Run: .venv/bin/python bench/bench_shutdown.py [--runs 3] [--pauses 0,0.2,3]
"""

from __future__ import annotations

import argparse
import http.client
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

from processes import free_port


def wait_ready(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit("companion serve exited before it answered")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("companion serve did not answer within 60 s")


def open_stream(port: int) -> http.client.HTTPConnection:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/api/stream")
    response = connection.getresponse()
    response.readline()  # the first frame has started: the stream is live
    return connection


def one_stop(pause: float) -> float:
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        process = subprocess.Popen(
            [sys.executable, "-m", "companion.serve", "--host", "127.0.0.1", "--port",
             str(port), "--data-dir", data, "--pin", "2468", "--no-mdns", "--board", "sim",
             "--camera", "sim"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_ready(port, process)
            phones = [open_stream(port) for _ in range(2)]
            time.sleep(pause)
            started = time.monotonic()
            process.send_signal(signal.SIGINT)
            process.wait(30)
            took = time.monotonic() - started
            for phone in phones:
                phone.close()
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pauses", default="0,0.2,3",
                        help="seconds after start-up to stop at, comma-separated")
    args = parser.parse_args()
    print("pause_s  runs  mean_stop_s  worst_stop_s")
    for pause in (float(p) for p in args.pauses.split(",")):
        times = [one_stop(pause) for _ in range(args.runs)]
        print(f"{pause:7.1f}  {len(times):4d}  {statistics.mean(times):11.2f}  "
              f"{max(times):12.2f}")


if __name__ == "__main__":
    main()
