"""Print how many cards of rows spread so each index shows are read.

    python bench/bench_spread_rows.py [--steps 0.3,0.4] [--cases]

A collection laid in a row so each card's index shows (Collector), or a hand put down:
eight cards of the held-out published designs (``vision.designs.BENCH_DESIGNS``, card art
nothing here drew), each a step of a card's width from the one over it, the last on top,
the row turned four ways, drawn by ``vision.render.compose_scene`` (a camera tilted up to
15 degrees, shadows, any table). Per step: the cards named right (by name: each card of
the row is named once at most), the names of no card of the row (wrong), CPU ms per frame
(median, one core). ``--cases`` prints each row's cards named.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, honestly: set before numpy loads
os.environ.setdefault("OMP_NUM_THREADS", "1")
import argparse
import math
import statistics
import sys
import time

import cv2

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from vision.conditions import Conditions
from vision.designs import BENCH_DESIGNS
from vision.pipeline import Recognizer
from vision.render import Placement, compose_scene

ROW = ("2H", "5S", "9D", "KC", "7H", "QD", "3C", "10S")
"""The row's cards, the first at the bottom."""

ANGLES = (0.0, 20.0, -70.0, 200.0)
"""The ways the row runs (degrees)."""

WIDTH = 110.0
"""The cards' width (pixels of the table's plane)."""


def measure(step: float, cases: bool) -> tuple[int, int, int, list[float]]:
    """Cards named right, cards in the rows, wrong names, CPU ms of each frame."""
    cv2.setNumThreads(1)
    recognizer = Recognizer("standard")
    right = total = wrong = 0
    times: list[float] = []
    for k, design in enumerate(BENCH_DESIGNS):
        for j, angle in enumerate(ANGLES):
            cond = Conditions(deck="standard", published=(design,), tilt=15.0, table="any")
            way = math.radians(angle)
            dx, dy = math.cos(way) * WIDTH * step, math.sin(way) * WIDTH * step
            placements = [Placement(card, 640 + (i - 3.5) * dx, 360 + (i - 3.5) * dy, -angle,
                                    WIDTH) for i, card in enumerate(ROW)]
            image = compose_scene(placements, "standard", seed=100 * k + j,
                                  conditions=cond).image
            started = time.process_time()
            named = {d.card for d in recognizer.detect(image) if d.card is not None}
            times.append(1000 * (time.process_time() - started))
            right += len(named & set(ROW))
            wrong += len(named - set(ROW))
            total += len(ROW)
            if cases:
                print(f"  {design:24} {angle:6.1f}  {sorted(named & set(ROW))}"
                      f"{'  wrong: ' + str(sorted(named - set(ROW))) if named - set(ROW) else ''}")
    return right, total, wrong, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="0.3,0.4",
                        help="steps between the cards, in card widths (comma-separated)")
    parser.add_argument("--cases", action="store_true", help="print each row's cards named")
    args = parser.parse_args()
    print("step   named right    wrong  med-cpu-ms")
    for step in (float(s) for s in args.steps.split(",")):
        right, total, wrong, times = measure(step, args.cases)
        median = statistics.median(times)
        print(f"{step:4.2f}   {right:4d} of {total:4d}  {wrong:5d}  {median:9.1f}")


if __name__ == "__main__":
    main()
