"""Card detection on the real photos of ``../shared/photos/``: recall per source, quads that
match no labelled card, milliseconds per image.

    python bench/bench_detect_photos.py [--photos DIR] [--dump DIR] [--verbose]

A labelled card counts as found when the centre of a detected quad lies inside its box
(the photos' README); "loose" counts the found cards whose largest such quad covers less
than 40 % of the box (a panel or a fragment of the card, not its outline: a card turned
45 degrees still covers half its box). A quad whose centre lies in no box is counted as
"extra": a phantom, or a real card that was not labelled (``--verbose`` lists them;
``--dump DIR`` writes each image with its quads drawn, and every found card dewarped, as
PNG files to look at).
CPU time of the detector alone (``find_cards_with_alternates``), one core, the least of
``--repeat`` passes per image.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, honestly: set before numpy loads
os.environ.setdefault("OMP_NUM_THREADS", "1")
import argparse
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from vision.detect import dewarp, find_cards_with_alternates, portrait
from vision.photos import FOLDERS, load_photos, missing_reason, photos_dir


@dataclass
class Tally:
    images: int = 0
    cards: int = 0
    found: int = 0
    extra: int = 0
    loose: int = 0
    ms: list[float] = field(default_factory=list)


LOOSE = 0.4
"""A found card's quad covering less of its labelled box than this is not its outline."""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=Path, default=None)
    ap.add_argument("--dump", type=Path, default=None, help="write overlays and crops here")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    root = args.photos or photos_dir()
    reason = missing_reason(root)
    if reason is not None:
        print(f"skipped: {reason}")
        return 0
    cv2.setNumThreads(1)
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
    tallies: dict[str, Tally] = defaultdict(Tally)
    for photo in load_photos(root):
        image = photo.read()
        best = float("inf")
        for _ in range(max(1, args.repeat)):
            t0 = time.process_time()  # CPU time: other programs share this machine
            found = find_cards_with_alternates(image)
            best = min(best, time.process_time() - t0)
        quads = [f.quad for f in found]
        centres = [q.mean(axis=0) for q in quads]
        t = tallies[photo.folder]
        t.images += 1
        t.ms.append(1000 * best)
        hit = [any(card.contains(*c) for c in centres) for card in photo.cards]
        extra = [i for i, c in enumerate(centres)
                 if not any(card.contains(*c) for card in photo.cards)]
        t.cards += len(hit)
        t.found += sum(hit)
        for card in photo.cards:
            x0, y0, x1, y1 = card.box
            areas = [cv2.contourArea(q) for q, c in zip(quads, centres, strict=True)
                     if card.contains(*c)]
            t.loose += bool(areas) and max(areas) < LOOSE * (x1 - x0) * (y1 - y0)
        t.extra += len(extra)
        if args.verbose and (not all(hit) or extra):
            missed = [c.card for c, h in zip(photo.cards, hit, strict=True) if not h]
            print(f"{photo.name}: missed {missed} extra "
                  f"{[quads[i].round().astype(int).tolist() for i in extra]}")
        if args.dump:
            stem = photo.name.replace("/", "_").rsplit(".", 1)[0]
            shown = image.copy()
            for card in photo.cards:
                x0, y0, x1, y1 = card.box
                cv2.rectangle(shown, (x0, y0), (x1, y1), (255, 0, 0), 2)
            for i, q in enumerate(quads):
                colour = (0, 0, 255) if i in extra else (0, 255, 0)
                cv2.polylines(shown, [q.round().astype(np.int32)], True, colour, 2)
                cv2.imwrite(str(args.dump / f"{stem}_card{i}.png"), dewarp(image, portrait(q)))
            cv2.imwrite(str(args.dump / f"{stem}.png"), shown)
    print(f"{'source':20} {'images':>6} {'cards':>6} {'found':>6} {'recall':>7} "
          f"{'loose':>6} {'extra':>6} {'ms/img':>7} {'max ms':>7}")
    total = Tally()
    for name in [f for f in FOLDERS if f in tallies] + sorted(set(tallies) - set(FOLDERS)):
        t = tallies[name]
        total.images += t.images
        total.cards += t.cards
        total.found += t.found
        total.extra += t.extra
        total.loose += t.loose
        total.ms += t.ms
        print(f"{name:20} {t.images:6} {t.cards:6} {t.found:6} "
              f"{100 * t.found / max(t.cards, 1):6.1f}% {t.loose:6} {t.extra:6} "
              f"{statistics.median(t.ms):7.1f} {max(t.ms):7.1f}")
    print(f"{'all':20} {total.images:6} {total.cards:6} {total.found:6} "
          f"{100 * total.found / max(total.cards, 1):6.1f}% {total.loose:6} {total.extra:6} "
          f"{statistics.median(total.ms):7.1f} {max(total.ms):7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
