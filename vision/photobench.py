"""Benchmark on real photos: the standard deck read from ``../shared/photos/``.

Per collection (:data:`vision.photos.FOLDERS`) and overall, every labelled card is
one of: read right; unknown (found but not named, counted by its
:class:`~vision.refusal.Refusal` reason); wrong (found and named as another card);
not found. A card is found when the centre of a detected quad lies inside its
hand-drawn box (where boxes overlap, a quad goes to the box of the card it names,
else to the box whose centre is nearest). A named quad whose centre lies in no box
is counted apart ("off-box"): a wrong card, or a real card nobody labelled (only
cards that could be named with certainty are). Unnamed quads in no box are
"extra" (a phantom or an unlabelled card).

Time is measured round detection plus identification of each image, CPU and wall
(see :mod:`vision.bench`), on the image as stored (at most 1280 px on its long
side; the report lists the sizes).

>>> from vision.photos import LabelledCard
>>> quad = np.array([[10, 10], [60, 10], [60, 80], [10, 80]], np.float32)
>>> score_photo((LabelledCard("QS", (0, 0, 70, 90)),), [Detection("QS", quad, 0.9)]).right
1
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.bench import Detector, reason_key, timed_detect
from vision.photos import FOLDERS, LabelledCard, Photo, load_photos, missing_reason
from vision.pipeline import Detection, Recognizer
from vision.play_area import centre_of

ALL = "all"


@dataclass
class PhotoScore:
    """The outcome of one photo's labelled cards and detections."""

    right: int = 0
    wrong: int = 0  # labelled cards named as another card
    unknown: Counter[str] = field(default_factory=Counter)  # by reason
    not_found: int = 0
    off_box: int = 0  # named quads whose centre lies in no labelled box
    extra: int = 0  # unnamed quads in no labelled box


def _box_for(d: Detection, cards: Sequence[LabelledCard]) -> int | None:
    """The labelled card a detection falls on, if any."""
    x, y = centre_of(d.quad)
    inside = [i for i, c in enumerate(cards) if c.contains(x, y)]
    if not inside:
        return None
    same = [i for i in inside if cards[i].card == d.card]
    if same:
        return same[0]

    def distance(i: int) -> float:
        x0, y0, x1, y1 = cards[i].box
        return float(np.hypot(x - (x0 + x1) / 2, y - (y0 + y1) / 2))

    return min(inside, key=distance)


def score_photo(cards: Sequence[LabelledCard], detections: Iterable[Detection]) -> PhotoScore:
    """Score one photo. Each labelled card has one outcome: wrong if any quad on it names
    another card (several quads on one card happen; a wrong name is never excused by a
    right one), else right if one names it, else unknown (the first unknown quad's
    reason), else not found."""
    score = PhotoScore()
    on: list[list[Detection]] = [[] for _ in cards]
    for d in detections:
        i = _box_for(d, cards)
        if i is not None:
            on[i].append(d)
        elif d.card is not None:
            score.off_box += 1
        else:
            score.extra += 1
    for card, dets in zip(cards, on, strict=True):
        names = [d.card for d in dets if d.card is not None]
        if any(n != card.card for n in names):
            score.wrong += 1
        elif names:
            score.right += 1
        elif dets:
            score.unknown[reason_key(dets[0])] += 1
        else:
            score.not_found += 1
    return score


@dataclass
class PhotoTally:
    """The sum of one collection's photos (or of all of them)."""

    images: int = 0
    labelled: int = 0
    right: int = 0
    wrong: int = 0
    unknown: Counter[str] = field(default_factory=Counter)
    not_found: int = 0
    off_box: int = 0
    extra: int = 0
    sizes: Counter[tuple[int, int]] = field(default_factory=Counter)  # (width, height)
    cpu_ms: list[float] = field(default_factory=list)
    wall_ms: list[float] = field(default_factory=list)

    def add(self, labelled: int, score: PhotoScore, size: tuple[int, int],
            wall_seconds: float, cpu_seconds: float) -> None:
        self.images += 1
        self.labelled += labelled
        self.right += score.right
        self.wrong += score.wrong
        self.unknown.update(score.unknown)
        self.not_found += score.not_found
        self.off_box += score.off_box
        self.extra += score.extra
        self.sizes[size] += 1
        self.cpu_ms.append(1000 * cpu_seconds)
        self.wall_ms.append(1000 * wall_seconds)

    @property
    def named(self) -> int:
        """Every card the reader named, right or not."""
        return self.right + self.wrong + self.off_box


PhotoChange = Callable[[NDArray[np.uint8], Sequence[LabelledCard]],
                       tuple[NDArray[np.uint8], Sequence[LabelledCard]]]
"""A photo and its labelled cards as another set-up would show them
(:func:`vision.photo_changes.changed`)."""


def run_photos(photos: Sequence[Photo], recognizer: Detector | None = None,
               repeat: int = 1, change: PhotoChange | None = None) -> dict[str, PhotoTally]:
    """Score ``recognizer`` (the standard deck's by default) on ``photos``: one tally per
    folder, in :data:`~vision.photos.FOLDERS` order first, then :data:`ALL`; each photo
    first changed by ``change``, where given.

    Each image is recognised ``repeat`` times and its least CPU and wall time kept, as
    :func:`vision.bench.run` does; the cards are those of the first pass."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, not {repeat}")
    rec: Detector = recognizer or Recognizer("standard")
    order = [f for f in FOLDERS if any(p.folder == f for p in photos)]
    order += sorted({p.folder for p in photos} - set(order))
    tallies = {f: PhotoTally() for f in [*order, ALL]}
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)  # one core, as on the Pi
    try:
        if photos:  # templates and tables are built on first use: not part of any image
            rec.detect(photos[0].read())
        for photo in photos:
            image = photo.read()
            cards: Sequence[LabelledCard] = photo.cards
            if change is not None:
                image, cards = change(image, cards)
            dets, wall, cpu = timed_detect(rec, image, repeat)
            score = score_photo(cards, dets)
            size = (image.shape[1], image.shape[0])
            for key in (photo.folder, ALL):
                tallies[key].add(len(cards), score, size, wall, cpu)
    finally:
        cv2.setNumThreads(threads)
    return tallies


def _sizes(sizes: Counter[tuple[int, int]]) -> str:
    """The commonest image sizes, briefly.

    >>> _sizes(Counter({(960, 1280): 50, (959, 1280): 2, (640, 480): 1}))
    '960x1280 x50, 959x1280 x2, +1 more'
    """
    common = [f"{w}x{h} x{n}" for (w, h), n in sizes.most_common(2)]
    rest = len(sizes) - len(common)
    return ", ".join(common + ([f"+{rest} more"] if rest else []))


def _pct(n: int, of: int) -> str:
    return f"{n / of:7.1%}" if of else f"{'-':>7s}"


def report_photos(tallies: dict[str, PhotoTally]) -> str:
    """One line per collection and overall (percentages of labelled cards; ``wrong%`` of
    the cards named), then the unknown cards by reason and the image sizes."""
    lines = [f"{'photos':18s} {'images':>6s} {'cards':>5s} {'right':>7s} {'unknown':>7s} "
             f"{'notfound':>8s} {'wrong#':>6s} {'off-box':>7s} {'wrong%':>7s} {'extra':>5s} "
             f"{'cpu-ms':>7s} {'med-cpu':>7s} {'wall-ms':>7s}"]
    for name, t in tallies.items():
        unknown = sum(t.unknown.values())
        wrong = t.wrong + t.off_box
        cpu = statistics.fmean(t.cpu_ms) if t.cpu_ms else 0.0
        med = statistics.median(t.cpu_ms) if t.cpu_ms else 0.0
        wall = statistics.fmean(t.wall_ms) if t.wall_ms else 0.0
        lines.append(f"{name:18s} {t.images:6d} {t.labelled:5d} {_pct(t.right, t.labelled)} "
                     f"{_pct(unknown, t.labelled)} {_pct(t.not_found, t.labelled)} "
                     f"{t.wrong:6d} {t.off_box:7d} {_pct(wrong, t.named)} {t.extra:5d} "
                     f"{cpu:7.1f} {med:7.1f} {wall:7.1f}")
    total = tallies.get(ALL)
    if total is not None and total.unknown:
        lines.append("unknown by reason: " + ", ".join(
            f"{reason} {n}" for reason, n in total.unknown.most_common()))
    for name, t in tallies.items():
        if name != ALL:
            lines.append(f"sizes {name}: {_sizes(t.sizes)}")
    return "\n".join(lines)


def bench_photos(repeat: int = 1) -> str:
    """The report on the shared photos, or one line saying why there is none."""
    reason = missing_reason()
    if reason is not None:
        return reason
    return report_photos(run_photos(load_photos(), repeat=repeat))
