"""Print how the standard deck reads the real photos changed as another set-up would.

    python bench/bench_photo_changes.py [--change NAME ...]

Each photo of ``../shared/photos/`` (one line saying why where they are absent) is changed
(vision/photo_changes.py: turned, smaller, compressed, dimmer, brighter, noisier, blurred,
hazy), its labelled boxes moved with it, and scored as ``companion vision bench --photos``
scores the photos as taken: right, unknown, not found, wrong (a labelled card named as
another, or a named quad in no box), median CPU ms per image on one core.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, honestly: set before numpy loads
os.environ.setdefault("OMP_NUM_THREADS", "1")
import argparse
import statistics
import sys

import cv2

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from vision.bench import timed_detect
from vision.photo_changes import CHANGES, changed
from vision.photobench import score_photo
from vision.photos import load_photos, missing_reason
from vision.pipeline import Recognizer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--change", action="append", choices=list(CHANGES),
                        help="only these changes (default: every one)")
    args = parser.parse_args()
    reason = missing_reason()
    if reason is not None:
        print(reason)
        return 0
    cv2.setNumThreads(1)  # the target is one core of the Pi
    photos = load_photos()
    rec = Recognizer("standard")
    rec.detect(photos[0].read())  # templates and tables are built on first use
    print(f"{'change':16s} {'cards':>5s} {'right':>7s} {'unknown':>7s} {'notfound':>8s} "
          f"{'wrong#':>6s} {'med-cpu':>7s}")
    for change in args.change or list(CHANGES):
        right = unknown = not_found = wrong = cards = 0
        cpu_ms = []
        for photo in photos:
            image, labelled = changed(photo.read(), photo.cards, change)
            detections, _, cpu = timed_detect(rec, image, 1)
            score = score_photo(labelled, detections)
            cards += len(labelled)
            right += score.right
            unknown += sum(score.unknown.values())
            not_found += score.not_found
            wrong += score.wrong + score.off_box
            cpu_ms.append(1000 * cpu)
        print(f"{change:16s} {cards:5d} {right / cards:7.1%} {unknown / cards:7.1%} "
              f"{not_found / cards:8.1%} {wrong:6d} {statistics.median(cpu_ms):7.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
