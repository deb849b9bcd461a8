"""Print how the standard deck reads the real photos changed as another set-up would.

    python bench/bench_photo_changes.py [--change NAME ...]

Each photo of ``../shared/photos/`` (one line saying why where they are absent) is changed
(vision/photo_changes.py: turned, smaller, compressed, dimmer, brighter, noisier, blurred,
hazy, shadowed), its labelled boxes moved with it, and scored as ``companion vision
bench --photos`` scores the photos as taken: right, unknown, not found, wrong (a labelled
card named as another, or a named quad in no box), median CPU ms per image on one core.
The last row, "cropped to the card", reads each labelled card cut out of its photo by its
box: a frame that is one card, as a close-up, a scan or an image set's crop shows it.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, honestly: set before numpy loads
os.environ.setdefault("OMP_NUM_THREADS", "1")
import argparse
import statistics
import sys
from functools import partial

import cv2

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from vision.photo_changes import CHANGES, CROPPED, changed, cropped_to_the_card, one_card_each
from vision.photobench import ALL, run_photos
from vision.photos import load_photos, missing_reason
from vision.pipeline import Recognizer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--change", action="append", choices=[*CHANGES, CROPPED],
                        help="only these changes (default: every one)")
    args = parser.parse_args()
    reason = missing_reason()
    if reason is not None:
        print(reason)
        return 0
    cv2.setNumThreads(1)  # the target is one core of the Pi
    photos = load_photos()
    rec = Recognizer("standard")
    print(f"{'change':19s} {'cards':>5s} {'right':>7s} {'unknown':>7s} {'notfound':>8s} "
          f"{'wrong#':>6s} {'med-cpu':>7s}")
    for name in args.change or [*CHANGES, CROPPED]:
        if name == CROPPED:
            t = run_photos(one_card_each(photos), rec, change=cropped_to_the_card)[ALL]
        else:
            t = run_photos(photos, rec, change=partial(changed, change=name))[ALL]
        cards = t.labelled
        print(f"{name:19s} {cards:5d} {t.right / cards:7.1%} "
              f"{sum(t.unknown.values()) / cards:7.1%} {t.not_found / cards:8.1%} "
              f"{t.wrong + t.off_box:6d} {statistics.median(t.cpu_ms):7.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
