"""Card detection on the real photos of ``../shared/photos/``: recall per source, quads that
match no labelled card, milliseconds per image.

    python bench/bench_detect_photos.py [--photos DIR] [--dump DIR] [--verbose]

A labelled card counts as found when the centre of a detected quad lies inside its box
(the photos' README). A quad whose centre lies in no box is counted as "extra": a phantom,
or a real card that was not labelled (``--verbose`` lists them; ``--dump DIR`` writes each
image with its quads drawn, and every found card dewarped, as PNG files to look at).
Time is the detector's alone (``find_cards_with_alternates``), one core, the least of
``--repeat`` passes per image.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, honestly: set before numpy loads
os.environ.setdefault("OMP_NUM_THREADS", "1")
import argparse
import json
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

REPO = Path(__file__).resolve().parent.parent


def photos_dir() -> Path:
    """``$TABLE_COMPANION_PHOTOS``, else ``../shared/photos`` beside the repository."""
    env = os.environ.get("TABLE_COMPANION_PHOTOS")
    return Path(env) if env else REPO.parent / "shared" / "photos"


def source_of(image: str) -> str:
    """The folder a photo comes from (``guillex7/template``, ``alkenderesi``, ...)."""
    parts = image.split("/")
    return "/".join(parts[:2]) if parts[0] == "guillex7" else parts[0]


@dataclass
class Tally:
    images: int = 0
    cards: int = 0
    found: int = 0
    extra: int = 0
    ms: list[float] = field(default_factory=list)


def inside(box: list[float], point: np.ndarray) -> bool:
    x0, y0, x1, y1 = box
    return bool(x0 <= point[0] <= x1 and y0 <= point[1] <= y1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=Path, default=None)
    ap.add_argument("--dump", type=Path, default=None, help="write overlays and crops here")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    root = args.photos or photos_dir()
    labels = root / "labels.jsonl"
    if not labels.is_file():
        print(f"skipped: no real photos at {root} (set TABLE_COMPANION_PHOTOS)")
        return 0
    cv2.setNumThreads(1)
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
    tallies: dict[str, Tally] = defaultdict(Tally)
    for line in labels.read_text().splitlines():
        entry = json.loads(line)
        image = cv2.imread(str(root / entry["image"]))
        if image is None:
            continue
        best = float("inf")
        for _ in range(max(1, args.repeat)):
            t0 = time.perf_counter()
            found = find_cards_with_alternates(image)
            best = min(best, time.perf_counter() - t0)
        quads = [q for q, _ in found]
        centres = [q.mean(axis=0) for q in quads]
        t = tallies[source_of(entry["image"])]
        t.images += 1
        t.ms.append(1000 * best)
        boxes = [c["box"] for c in entry["cards"]]
        hit = [any(inside(b, c) for c in centres) for b in boxes]
        extra = [i for i, c in enumerate(centres) if not any(inside(b, c) for b in boxes)]
        t.cards += len(boxes)
        t.found += sum(hit)
        t.extra += len(extra)
        if args.verbose and (not all(hit) or extra):
            missed = [c["card"] for c, h in zip(entry["cards"], hit, strict=True) if not h]
            print(f"{entry['image']}: missed {missed} extra "
                  f"{[quads[i].round().astype(int).tolist() for i in extra]}")
        if args.dump:
            stem = entry["image"].replace("/", "_").rsplit(".", 1)[0]
            shown = image.copy()
            for b in boxes:
                cv2.rectangle(shown, (int(b[0]), int(b[1])), (int(b[2]), int(b[3])),
                              (255, 0, 0), 2)
            for i, q in enumerate(quads):
                colour = (0, 0, 255) if i in extra else (0, 255, 0)
                cv2.polylines(shown, [q.round().astype(np.int32)], True, colour, 2)
                cv2.imwrite(str(args.dump / f"{stem}_card{i}.png"), dewarp(image, portrait(q)))
            cv2.imwrite(str(args.dump / f"{stem}.png"), shown)
    print(f"{'source':20} {'images':>6} {'cards':>6} {'found':>6} {'recall':>7} "
          f"{'extra':>6} {'ms/img':>7} {'max ms':>7}")
    total = Tally()
    for name in sorted(tallies):
        t = tallies[name]
        total.images += t.images
        total.cards += t.cards
        total.found += t.found
        total.extra += t.extra
        total.ms += t.ms
        print(f"{name:20} {t.images:6} {t.cards:6} {t.found:6} "
              f"{100 * t.found / max(t.cards, 1):6.1f}% {t.extra:6} "
              f"{statistics.median(t.ms):7.1f} {max(t.ms):7.1f}")
    print(f"{'all':20} {total.images:6} {total.cards:6} {total.found:6} "
          f"{100 * total.found / max(total.cards, 1):6.1f}% {total.extra:6} "
          f"{statistics.median(total.ms):7.1f} {max(total.ms):7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
