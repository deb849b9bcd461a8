"""Benchmark: per deck and condition, detection recall, identification accuracy,
wrong-identity rate and milliseconds per 1280 x 720 frame, on rendered scenes.

Enrolled decks are enrolled from clean design-0 faces; scenes use other seeds,
print variations, and for the standard deck only the held-out designs.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from vision.decks import deck_ids
from vision.detect import quad_iou
from vision.enrolled import Gallery
from vision.pipeline import Detection, Recognizer
from vision.render import CONDITIONS, Scene, TrueCard, render_card, render_scene, with_deck

VISIBLE = 0.85  # a card counts as findable when at least this much of it shows


@dataclass
class Tally:
    findable: int = 0
    found: int = 0
    right: int = 0
    labelled: int = 0
    wrong: int = 0
    phantoms: int = 0
    frames: int = 0
    seconds: float = 0.0

    def add(self, scene: Scene, detections: list[Detection], seconds: float) -> None:
        self.frames += 1
        self.seconds += seconds
        best: dict[int, tuple[float, Detection]] = {}
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
            if iou > best.get(i, (0.0, d))[0]:
                best[i] = (iou, d)
        for i, tc in enumerate(scene.cards):
            if tc.visible < VISIBLE:
                continue
            self.findable += 1
            if i in best and best[i][0] >= 0.6:
                self.found += 1
                if best[i][1].card == tc.card:
                    self.right += 1

    def row(self) -> dict[str, float]:
        return {
            "recall": self.found / self.findable if self.findable else float("nan"),
            "accuracy": self.right / self.findable if self.findable else float("nan"),
            "wrong": self.wrong / self.labelled if self.labelled else 0.0,
            "ms": 1000 * self.seconds / max(self.frames, 1),
        }


def _owner(d: Detection, cards: tuple[TrueCard, ...]) -> tuple[int, float] | None:
    """The true card a detection shows: the best overlap, but a card buried under
    another one (little of it visible) cannot be what the camera sees."""
    scored = [(quad_iou(d.quad, tc.quad) * min(1.0, 2 * tc.visible), quad_iou(d.quad, tc.quad), i)
              for i, tc in enumerate(cards)]
    if not scored:
        return None
    _, iou, i = max(scored)
    return (i, iou) if iou >= 0.3 else None


def recognizer_for(deck: str) -> Recognizer:
    if deck == "standard":
        return Recognizer("standard")
    faces = {c: render_card(deck, c) for c in deck_ids(deck)}
    return Recognizer(Gallery.from_faces(deck, faces))


def run(decks: Iterable[str], conditions: Iterable[str], scenes: int, first_seed: int = 0,
        ) -> list[tuple[str, str, Tally]]:
    out = []
    for deck in decks:
        rec = recognizer_for(deck)
        rec.detect(render_scene(with_deck(CONDITIONS["upright"], deck), 999_999).image)  # warm-up
        for name in conditions:
            cond = with_deck(CONDITIONS[name], deck)
            tally = Tally()
            for k in range(scenes):
                scene = render_scene(cond, first_seed + k)
                t0 = time.perf_counter()
                dets = rec.detect(scene.image)
                tally.add(scene, dets, time.perf_counter() - t0)
            out.append((deck, name, tally))
    return out


def report(results: list[tuple[str, str, Tally]]) -> str:
    lines = [f"{'deck':17s} {'condition':12s} {'cards':>5s} {'recall':>7s} {'ident':>7s} "
             f"{'wrong':>7s} {'wrong#':>6s} {'phantom':>7s} {'ms/frame':>8s}"]
    for deck, name, t in results:
        r = t.row()
        lines.append(f"{deck:17s} {name:12s} {t.findable:5d} {r['recall']:7.1%} "
                     f"{r['accuracy']:7.1%} {r['wrong']:7.2%} {t.wrong:6d} {t.phantoms:7d} "
                     f"{r['ms']:8.1f}")
    return "\n".join(lines)
