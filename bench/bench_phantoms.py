"""Phantom sensor changes: how many changes the Pi reports that the board never made.

Run: .venv/bin/python bench/bench_phantoms.py [--frames N] [--seed S]

Plays N board frames (default 10^6; the 16-bit wire number laps about 15
times) through a wire that drops, bit-flips, truncates, reorders and replays
frames (any earlier frame, snapshots included) and adds random bytes, into the
Pi's real decoder and tracker; the board answers the tracker's requests. The
harness (tests/hardware/phantoms.py) checks every report against the board's
true state. The goal: 0 phantoms, and a Pi in step with the board at the end.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hardware.boardmap import load_board_map
from tests.hardware.phantoms import Damage, run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    damage = Damage()
    start = time.perf_counter()
    tally = run(load_board_map(), seed=args.seed, frames=args.frames, first_seq=0x1_0000 - 500,
                damage=damage)
    took = time.perf_counter() - start
    hurt = sum(tally.damaged.values())
    print(f"frames sent by the board: {tally.frames:,} (sequence numbers "
          f"{0x1_0000 - 500:#x} on: the 16-bit wire number lapped "
          f"{(0x1_0000 - 500 + tally.frames) // 0x1_0000} times)")
    print(f"wire trouble: {hurt:,} events: "
          + ", ".join(f"{k} {v:,}" for k, v in sorted(tally.damaged.items())))
    print(f"changes the board made: {tally.made:,}; changes the Pi reported: {tally.reported:,} "
          "(a resync reports the net difference)")
    print(f"frames dropped as not newer than held: {tally.stale_dropped:,}; "
          f"frames the decoder refused: {tally.decoder_errors:,}; "
          f"snapshot requests: {tally.resync_requests:,}")
    print(f"PHANTOM sensor changes: {tally.phantoms} (goal: 0)")
    print(f"in step with the board at the end: {'yes' if tally.final_ok else 'NO'}")
    print(f"({took:.0f} s, {took / max(1, tally.frames) * 1e6:.0f} us a frame)")
    return 0 if tally.phantoms == 0 and tally.final_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
