"""``python -m hardware.watch [SPEC]``: test the board sensor by sensor, before the doctor.

Prints the link status, what differs from a board set up for a new game, how
fast the board scans (its own figures), then every sensor change with where it
is on the board. Wave a magnet over each
recess in turn and check that the right name appears. SPEC is ``auto``
(default), ``sim``, ``gpio`` or a serial port path.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from hardware.boardmap import load_board_map
from hardware.connect import make_source, setup_problems
from hardware.sources import LinkStatus


def watch(spec: str, seconds: float | None, out: TextIO) -> int:
    board = load_board_map()
    source = make_source(spec, board)

    def on_status(status: LinkStatus) -> None:
        print(f"link: {status.state}" + (f" ({status.detail})" if status.detail else ""),
              file=out, flush=True)

    source.subscribe_status(on_status)
    with source:
        deadline = time.monotonic() + 5
        while source.link_status.state != "connected" and time.monotonic() < deadline:
            time.sleep(0.05)
        if source.link_status.state == "connected":
            problems = setup_problems(board, source.snapshot())
            print(f"{len(source.snapshot())} magnets seen; "
                  f"{len(problems) or 'no'} differences from a new game's setup",
                  file=out, flush=True)
            for line in problems:
                print(f"  - {line}", file=out, flush=True)
            seen = time.monotonic() + 0.6  # the Pico's heartbeat comes every 250 ms
            while source.scan_speed is None and time.monotonic() < seen:
                time.sleep(0.02)
            speed = source.scan_speed
            if speed is not None:
                print(f"scanning {speed.scans_per_s:.0f} times a second (target "
                      f"{speed.target_hz}{', TOO SLOW' if speed.below_target else ''}), "
                      f"slowest scan {speed.slowest_scan_s * 1000:.2f} ms", file=out, flush=True)
        end = None if seconds is None else time.monotonic() + seconds
        try:
            while end is None or time.monotonic() < end:
                left = None if end is None else max(0.01, end - time.monotonic())
                for change in source.changes(timeout=left if left is not None else 1.0):
                    sensor = board.sensor(change.sensor_id)
                    state = "magnet" if change.present else "empty "
                    print(f"{state} {sensor.id:10} {sensor.label}", file=out, flush=True)
                    if end is not None and time.monotonic() >= end:
                        break
        except KeyboardInterrupt:
            pass
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hardware.watch", description=__doc__)
    parser.add_argument("spec", nargs="?", default="auto")
    parser.add_argument("--seconds", type=float, help="stop after this long (default: Ctrl-C)")
    args = parser.parse_args(argv)
    return watch(args.spec, args.seconds, sys.stdout)


if __name__ == "__main__":
    raise SystemExit(main())
