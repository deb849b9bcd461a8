"""Start-up time and resident memory of `companion serve`.

Starts the real command (simulated board and camera by default) in a fresh
data folder, measures the time until the dashboard answers, then samples the
process's resident memory for a few seconds with the inputs running.
Goal on a Pi 4: a few seconds to start, under 250 MB with the camera running.

Run: .venv/bin/python bench/bench_startup.py [--board sim] [--camera sim] [--seconds 10]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from processes import free_port


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="sim")
    parser.add_argument("--camera", default="sim")
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    port = free_port()
    companion = Path(sys.executable).with_name("companion")
    with tempfile.TemporaryDirectory() as data:
        command = [
            str(companion), "serve", "--port", str(port), "--host", "127.0.0.1",
            "--data-dir", data, "--pin", "1234", "--no-mdns",
            "--board", args.board, "--camera", args.camera,
        ]
        started = time.perf_counter()
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=os.environ.copy()
        )
        try:
            ready = None
            while time.perf_counter() - started < 60:
                try:
                    with urllib.request.urlopen(
                        f"http://127.0.0.1:{port}/api/state", timeout=1
                    ) as response:
                        if response.status == 200:
                            ready = time.perf_counter() - started
                            break
                except OSError:
                    time.sleep(0.02)
            if ready is None:
                process.kill()
                print("the service did not answer within 60 s")
                print(process.communicate()[1].decode()[-2000:])
                return
            at_start = rss_mib(process.pid)
            peak = at_start
            end = time.perf_counter() + args.seconds
            while time.perf_counter() < end:
                peak = max(peak, rss_mib(process.pid))
                time.sleep(0.25)
            print(f"companion serve --board {args.board} --camera {args.camera}")
            print(f"ready after {ready:.2f} s; resident memory {at_start:.0f} MiB at start, "
                  f"{peak:.0f} MiB peak over {args.seconds:.0f} s (goal: under 250 MB)")
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


if __name__ == "__main__":
    main()
