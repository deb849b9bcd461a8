"""Benchmark: per deck and condition, detection recall, identification accuracy,
wrong-identity rate and milliseconds per 1280 x 720 frame, on rendered scenes.

Enrolled decks are enrolled from clean design-0 faces; scenes use other seeds,
print variations, and for the standard deck only the held-out designs; the
``published`` rows draw the standard deck in published designs held out of training;
``published-taught`` rows read a deck none of ours, taught from one published face a
card (24 cards of the first held-out design). ``designs`` (``--designs``) draws both
published rows in other designs instead: ``vision.designs.FRESH_DESIGNS``, held out and
never looked at while the reader was tuned, are scored so.

Time is measured round detection plus identification of each frame, two ways:
``cpu-ms`` is the CPU time this process spent (``time.process_time``: all its
threads, none of the time the core spent on other programs), the figure to
compare on a shared machine (``med-cpu`` is its median frame: a few frames whose cards
are read again, larger or turned, pull the mean far above the typical frame);
``wall-ms`` is the elapsed time, which also counts waiting for a core that other
programs were using. OpenCV runs on one thread
during the run (the target is one core of a Raspberry Pi); set
``OPENBLAS_NUM_THREADS=1`` before Python starts for numpy (``bench/bench_vision.py``
does).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.decks import deck_ids
from vision.detect import quad_iou
from vision.enrolled import Gallery
from vision.pipeline import Detection, Recognizer
from vision.render import (
    CONDITIONS,
    Conditions,
    Scene,
    TrueCard,
    render_card,
    render_scene,
    with_deck,
)

VISIBLE = 0.85  # a card counts as findable when at least this much of it shows
COVERED = 0.35
"""Least share in view of a card partly under others that the report counts apart."""
PUBLISHED = "published"
"""The standard deck drawn in the published designs held out of training
(:data:`vision.designs.BENCH_DESIGNS`, those installed here), read by the standard reader."""
NO_REASON = "(no reason)"
"""The key of unknown cards whose reader gave no reason."""


class Detector(Protocol):
    """What the benchmarks time and score: a recognizer, or a stand-in in tests."""

    def detect(self, image: NDArray[np.uint8]) -> list[Detection]: ...


def reason_key(d: Detection) -> str:
    """How an unknown card is counted: by its reader's reason."""
    return NO_REASON if d.reason is None else d.reason.value


def timed_detect(rec: Detector, image: NDArray[np.uint8], repeat: int,
                 ) -> tuple[list[Detection], float, float]:
    """``rec.detect(image)`` run ``repeat`` times: the first pass's cards, and the least
    wall and CPU seconds of the passes (timeit's convention: the least is the least
    disturbed by other programs on the machine)."""
    passes = []
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        dets = rec.detect(image)
        passes.append((time.perf_counter() - t0, time.process_time() - c0, dets))
    return passes[0][2], min(p[0] for p in passes), min(p[1] for p in passes)


@dataclass
class Tally:
    findable: int = 0
    found: int = 0
    right: int = 0
    labelled: int = 0
    wrong: int = 0
    phantoms: int = 0
    frames: int = 0
    wall_seconds: float = 0.0  # elapsed time
    cpu_per_frame: list[float] = field(default_factory=list)  # CPU time of this process,
    # seconds, frame by frame
    refusals: Counter[str] = field(default_factory=Counter)
    """Findable cards found but not named, by the reader's reason."""
    covered: int = 0
    """Cards partly under others (:data:`COVERED` to :data:`VISIBLE` of them in view): not
    findable, but a player sees them."""
    covered_right: int = 0
    """Of :attr:`covered`, those a detection on them names right."""

    def add(self, scene: Scene, detections: list[Detection], wall_seconds: float,
            cpu_seconds: float) -> None:
        """Score one frame's detections, which took ``wall_seconds`` and ``cpu_seconds``."""
        self.frames += 1
        self.wall_seconds += wall_seconds
        self.cpu_per_frame.append(cpu_seconds)
        best: dict[int, tuple[float, Detection]] = {}
        named_right: set[int] = set()
        for d in detections:
            owner = _owner(d, scene.cards)
            if owner is None:
                self.phantoms += 1
                if d.card is not None:
                    self.labelled += 1
                    self.wrong += 1
                continue
            i, iou = owner
            if d.card is not None:
                self.labelled += 1
                if d.card != scene.cards[i].card:
                    self.wrong += 1
                else:
                    named_right.add(i)
            if iou > best.get(i, (0.0, d))[0]:
                best[i] = (iou, d)
        for i, tc in enumerate(scene.cards):
            if COVERED <= tc.visible < VISIBLE:
                self.covered += 1
                self.covered_right += i in named_right
            if tc.visible < VISIBLE:
                continue
            self.findable += 1
            if i in best and best[i][0] >= 0.6:
                self.found += 1
                seen = best[i][1]
                if seen.card == tc.card:
                    self.right += 1
                elif seen.card is None:
                    self.refusals[reason_key(seen)] += 1

    @property
    def cpu_seconds(self) -> float:
        """CPU time of this process over every frame."""
        return float(sum(self.cpu_per_frame))

    def row(self) -> dict[str, float]:
        return {
            "recall": self.found / self.findable if self.findable else float("nan"),
            "accuracy": self.right / self.findable if self.findable else float("nan"),
            "wrong": self.wrong / self.labelled if self.labelled else 0.0,
            "wall_ms": 1000 * self.wall_seconds / max(self.frames, 1),
            "cpu_ms": 1000 * self.cpu_seconds / max(self.frames, 1),
            "cpu_median_ms": 1000 * float(np.median(self.cpu_per_frame))
            if self.cpu_per_frame else 0.0,
        }


def _owner(d: Detection, cards: tuple[TrueCard, ...]) -> tuple[int, float] | None:
    """The true card a detection shows: the best overlap, but a card buried under
    another one (little of it visible) cannot be what the camera sees, unless the
    detection names it and outlines it better than any other card (a card under others
    read by the index corner it shows, :mod:`vision.covered`)."""
    ious = [quad_iou(d.quad, tc.quad) for tc in cards]
    scored = [(iou * min(1.0, 2 * tc.visible), iou, i)
              for i, (iou, tc) in enumerate(zip(ious, cards, strict=True))]
    if not scored:
        return None
    _, iou, i = max(scored, key=lambda s: s[1])
    if d.card is not None and d.card == cards[i].card and iou >= 0.3:
        return i, iou
    _, iou, i = max(scored)
    return (i, iou) if iou >= 0.3 else None


def bench_designs() -> tuple[str, ...]:
    """The held-out published designs installed here (``scripts/ensure-card-designs.sh``)."""
    from vision.designs import BENCH_DESIGNS, published_designs

    installed = {d.name for d in published_designs()}
    return tuple(d for d in BENCH_DESIGNS if d in installed)


TAUGHT_PUBLISHED = "published-taught"
"""A deck none of ours: 24 cards of the first held-out published design, taught from
their published faces (one image a card, as ``companion vision enroll`` takes them) and
read in scenes of those cards only."""

TAUGHT_CARDS = tuple(sorted(random.Random(7).sample(list(deck_ids("standard")), 24)))
"""The cards of :data:`TAUGHT_PUBLISHED` (the test of the same deck takes the same)."""


def taught_published(design: str) -> Gallery:
    """:data:`TAUGHT_CARDS` of a published ``design`` taught from their faces (each on
    white, round its rounded corners: one image a card, as a user would give them)."""
    from vision.designs import on_background, published_face

    return Gallery.from_faces(TAUGHT_PUBLISHED, {
        card: on_background(published_face(design, card), 255.0) for card in TAUGHT_CARDS})


def _published_designs(designs: Sequence[str] = ()) -> tuple[str, ...]:
    """``designs`` (every one installed), or else the held-out ones installed here."""
    from vision.designs import design_info, published_designs

    if designs:
        installed = {d.name for d in published_designs()}
        for name in designs:
            design_info(name)  # an unknown name: UnknownDesign, naming the known ones
            if name not in installed:
                raise ValueError(f"card design {name!r} is not installed here; "
                                 "run scripts/ensure-card-designs.sh")
        return tuple(designs)
    found = bench_designs()
    if not found:
        raise ValueError("no published deck design is installed; "
                         "run scripts/ensure-card-designs.sh")
    return found


def conditions_for(deck: str, condition: str, designs: Sequence[str] = ()) -> Conditions:
    """The scenes of one row: ``deck`` (or :data:`PUBLISHED`, :data:`TAUGHT_PUBLISHED`)
    under ``condition``; the published rows in ``designs``, else in the held-out ones."""
    if deck == PUBLISHED:
        return replace(with_deck(CONDITIONS[condition], "standard"),
                       published=_published_designs(designs))
    if deck == TAUGHT_PUBLISHED:
        return replace(with_deck(CONDITIONS[condition], "standard"),
                       published=_published_designs(designs)[:1], cards=TAUGHT_CARDS)
    return with_deck(CONDITIONS[condition], deck)


def recognizer_for(deck: str, designs: Sequence[str] = ()) -> Recognizer:
    if deck in ("standard", PUBLISHED):
        return Recognizer("standard")
    if deck == TAUGHT_PUBLISHED:
        return Recognizer(taught_published(_published_designs(designs)[0]))
    faces = {c: render_card(deck, c) for c in deck_ids(deck)}
    return Recognizer(Gallery.from_faces(deck, faces))


def run(decks: Iterable[str], conditions: Iterable[str], scenes: int, first_seed: int = 0,
        repeat: int = 1, designs: Sequence[str] = ()) -> list[tuple[str, str, Tally]]:
    """Score every deck under every condition on ``scenes`` seeded scenes; the published
    rows in ``designs`` (default: the held-out designs installed, :func:`bench_designs`).

    Each frame is recognised ``repeat`` times and its least CPU and wall time kept
    (``timeit``'s convention): on a shared machine the slower passes measure the other
    programs, not the pipeline. The cards are those of the first pass."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, not {repeat}")
    out = []
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)  # one core, as on the Pi
    try:
        for deck in decks:
            rec = recognizer_for(deck, designs)
            warm_up = render_scene(conditions_for(deck, "upright", designs), 999_999)
            rec.detect(warm_up.image)
            for name in conditions:
                cond = conditions_for(deck, name, designs)
                tally = Tally()
                for k in range(scenes):
                    scene = render_scene(cond, first_seed + k)
                    tally.add(scene, *timed_detect(rec, scene.image, repeat))
                out.append((deck, name, tally))
    finally:
        cv2.setNumThreads(threads)
    return out


def report(results: list[tuple[str, str, Tally]]) -> str:
    """One line per deck and condition; time in milliseconds per frame, CPU then wall.
    Under a row whose found cards stayed unknown, an indented line counts them by reason."""
    lines = [f"{'deck':17s} {'condition':12s} {'cards':>5s} {'recall':>7s} {'ident':>7s} "
             f"{'wrong':>7s} {'wrong#':>6s} {'phantom':>7s} {'cpu-ms':>7s} {'med-cpu':>7s} "
             f"{'wall-ms':>7s}"]
    for deck, name, t in results:
        r = t.row()
        lines.append(f"{deck:17s} {name:12s} {t.findable:5d} {r['recall']:7.1%} "
                     f"{r['accuracy']:7.1%} {r['wrong']:7.2%} {t.wrong:6d} {t.phantoms:7d} "
                     f"{r['cpu_ms']:7.1f} {r['cpu_median_ms']:7.1f} {r['wall_ms']:7.1f}")
        if t.refusals:
            lines.append("    unknown: " + ", ".join(
                f"{reason} {n}" for reason, n in t.refusals.most_common()))
        if t.covered:
            lines.append(f"    partly covered ({COVERED:.0%}-{VISIBLE:.0%} in view, not in the "
                         f"cards above): {t.covered_right} of {t.covered} named right")
    return "\n".join(lines)
