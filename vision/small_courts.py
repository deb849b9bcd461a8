"""A second opinion on a small card's court letter.

A court card under about 90 px wide prints its J, Q or K a few pixels high. The index
classifier (:mod:`vision.glyphs`), trained on indices of every size, takes such a blot
for another court's letter surely: a king or a queen for a jack (or for a foreign
jack's V or B) most often. A linear classifier trained on nothing but small courts'
letters, as the reader cuts them out of rendered table scenes of the training designs
(``scripts/train_small_courts.py``; never the benchmark's held-out designs), names the
letter too: where it names another court, the corner's rank is unclear
(:func:`courts_seconded`).

On the held-out designs' small courts (seeds 61000-61299 of the benchmark's small
condition), of 873 corners the index classifier read as a court it disagreed with 16 of
the 25 read as the wrong court and with 6 of the 848 read right.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from vision.face import Field, field_denies
from vision.glyphs import Ink, ModelError, feature_size, features_of
from vision.readings import CornerReading, Reading
from vision.thresholds import Thresholds

MODEL_PATH = Path(__file__).with_name("models") / "small_courts.npz"

COURT_LETTERS = ("J", "Q", "K")
"""The classifier's classes, in order."""


def normalised(features: NDArray[np.float32]) -> NDArray[np.float32]:
    """Each row of ``features`` scaled to unit length, a 1 appended (the bias)."""
    rows = np.atleast_2d(np.asarray(features, np.float32))
    unit = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-6)
    return np.asarray(np.hstack([unit, np.ones((len(rows), 1), np.float32)]), np.float32)


@dataclass(frozen=True)
class SmallCourtModel:
    """One weight vector per court letter (features + bias): the letter scoring most."""

    weights: NDArray[np.float32]

    def letters(self, glyphs: list[Ink]) -> list[str]:
        """The court letter each glyph (a rank's ink, as :mod:`vision.index` cuts it) is.

        >>> model = SmallCourtModel(np.zeros((feature_size() + 1, 3), np.float32))
        >>> model.letters([])
        []
        """
        if not glyphs:
            return []
        scores = normalised(features_of(glyphs)) @ self.weights
        return [COURT_LETTERS[int(i)] for i in np.argmax(scores, axis=1)]

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, weights=self.weights.astype(np.float32),
                            classes=np.array(COURT_LETTERS))

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> SmallCourtModel:
        try:
            with np.load(path, allow_pickle=False) as z:
                weights = z["weights"].astype(np.float32)
                classes = tuple(str(c) for c in z["classes"])
        except (OSError, KeyError, ValueError) as e:
            raise ModelError(f"cannot read the small-court model {path}: {e}; rebuild it "
                             "with scripts/train_small_courts.py") from e
        if classes != COURT_LETTERS or weights.shape != (feature_size() + 1, 3):
            raise ModelError(f"the small-court model {path} was built for other features; "
                             "rebuild it with scripts/train_small_courts.py")
        return cls(weights)


@lru_cache(maxsize=1)
def shipped_small_courts() -> SmallCourtModel:
    """The model that ships with the package (loaded once)."""
    return SmallCourtModel.load(MODEL_PATH)


def courts_seconded(glyphs: list[Ink], readings: list[CornerReading],
                    th: Thresholds) -> list[CornerReading]:
    """``readings`` of a small card's corners, each read from the rank glyph beside it in
    ``glyphs``; a court whose letter the small-court classifier names another court's
    has its rank made unclear (no surer than :attr:`Thresholds.leaning`)."""
    courts = [i for i, r in enumerate(readings) if r.rank in COURT_LETTERS]
    letters = shipped_small_courts().letters([glyphs[i] for i in courts])
    out = list(readings)
    for i, letter in zip(courts, letters, strict=True):
        if letter != out[i].rank:
            out[i] = replace(out[i], rank_p=min(out[i].rank_p, th.leaning))
    return out


NUMBER_RANKS = frozenset(str(n) for n in range(2, 11))

ENGLISH_COURTS = frozenset(COURT_LETTERS)
"""The court letters a corner must print to name a court against the other corners: a
small king's or queen's blot read surely as a jack was read as a foreign jack's V or B."""


def court_over_numbers(field: Field, readings: list[CornerReading],
                       th: Thresholds) -> Reading | None:
    """A court card whose corners disagree: one reads it surely (``th.single_corner``), its
    letter J, Q or K (:data:`ENGLISH_COURTS`), the others a number card; the face shows a
    court's picture and few pips, denies every number read and not the court. A small
    court's blotted letter reads as a 6, a 9 or a 3 in one corner as often as another
    court in the other. ``None`` where not so.

    >>> king = CornerReading("K", "H", 0.97, 1.0, True, 0, letter="K")
    >>> six = CornerReading("6", "H", 0.95, 1.0, True, 1, letter="6")
    >>> court_over_numbers(Field(2, 1, True), [king, six], Thresholds()).card
    'KH'
    >>> court_over_numbers(Field(6, 0, False), [king, six], Thresholds()) is None
    True
    >>> jack = CornerReading("J", "H", 0.97, 1.0, True, 0, letter="V")  # a king's blot?
    >>> court_over_numbers(Field(2, 1, True), [jack, six], Thresholds()) is None
    True
    """
    courts = [r for r in readings if r.rank in ENGLISH_COURTS and r.letter in ENGLISH_COURTS
              and r.colour_ok and r.rank_p >= th.single_corner and r.suit_p >= th.glyph]
    numbers = [r for r in readings if r.rank in NUMBER_RANKS]
    if len(courts) != 1 or len(numbers) != len(readings) - 1 or not field.picture or (
            field.pips >= 4 or field.alike):
        return None
    court = courts[0]
    if any(r.suit != court.suit and r.colour_ok and r.suit_p >= th.leaning for r in numbers):
        return None  # (a corner leaning to another suit leaves the suit open)
    if field_denies(court.rank, field, suit=court.suit, both_corners=True) or not all(
            field_denies(r.rank, field, suit=r.suit, both_corners=True) for r in numbers):
        return None
    return Reading(court.card, min(court.p, th.glyph))
