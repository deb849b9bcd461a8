"""Decoder throughput: how fast the Pi turns serial bytes into checked frames and changes.

Run: .venv/bin/python bench/bench_decoder.py [--frames N]

Prints bytes/s and frames/s for the pure FrameDecoder, for decoder + BoardTracker,
and the same on a stream with 5% of frames damaged. For scale: a board at full
tilt sends well under 2 kB/s (four heartbeats a second plus a change frame per move).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hardware.boardmap import load_board_map
from hardware.protocol import Changes, FrameDecoder, Heartbeat, Hello, Snapshot, encode
from hardware.tracker import BoardTracker


def stream(frames: int, damage: float, seed: int = 1) -> tuple[bytes, int]:
    board = load_board_map()
    n = len(board.sensors)
    rng = random.Random(seed)
    present = {board.sensor(s).index for s in board.initial_layout()}
    parts = [encode(Hello(0, (2, 0, 0), board.map_hash, n, 1000, 5)),
             encode(Snapshot(1, n, frozenset(present)))]
    seq = 1
    for i in range(2, frames):
        roll = rng.random()
        if roll < 0.02:  # a heartbeat names the last frame sent and takes no number
            frame = encode(Heartbeat(seq, i // 200, 1000))
        elif roll < 0.04:
            seq += 1
            frame = encode(Snapshot(seq, n, frozenset(present)))
        else:
            changes = []
            for index in rng.sample(range(n), rng.randint(1, 4)):
                present ^= {index}
                changes.append((index, index in present))
            seq += 1
            frame = encode(Changes(seq, tuple(changes)))
        if rng.random() < damage:
            at = rng.randrange(len(frame))
            frame = frame[:at] + bytes([rng.randrange(256)]) + frame[at + 1:]
        parts.append(frame)
    return b"".join(parts), frames


def measure(data: bytes, frames: int, chunk: int, with_tracker: bool) -> tuple[float, int]:
    decoder = FrameDecoder()
    tracker = BoardTracker(load_board_map()) if with_tracker else None
    if tracker is not None:
        tracker.link_opened(0.0)
    decoded = 0
    start = time.perf_counter()
    for at in range(0, len(data), chunk):
        out = decoder.feed(data[at:at + chunk])
        decoded += len(out)
        if tracker is not None:
            tracker.feed(out, 0.0)
    return time.perf_counter() - start, decoded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=50_000)
    parser.add_argument("--chunk", type=int, default=64, help="bytes per read (pyserial-like)")
    args = parser.parse_args()
    for label, damage in (("clean stream", 0.0), ("5% frames damaged", 0.05)):
        data, frames = stream(args.frames, damage)
        for tracked in (False, True):
            seconds, decoded = measure(data, frames, args.chunk, tracked)
            what = "decoder + tracker" if tracked else "decoder"
            print(f"{label:18} {what:18} {len(data) / seconds / 1e6:6.2f} MB/s "
                  f"{decoded / seconds:10,.0f} frames/s  ({decoded}/{frames} frames, "
                  f"{len(data):,} bytes, {seconds * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
