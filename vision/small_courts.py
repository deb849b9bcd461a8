"""Second opinions on a small card's court letter and black suit.

A card under about 90 px wide prints its index a few pixels high. The index classifier
(:mod:`vision.glyphs`), trained on indices of every size, takes such a blot for another
court's letter surely (a king or a queen for a jack, or for a foreign jack's V or B),
and a spade's for a club's or the other way round. Two linear classifiers trained on
nothing but small cards' glyphs, as the reader cuts them out of rendered table scenes
of the training designs (``scripts/train_small_courts.py``; never the benchmark's
held-out designs), name the court letter and the black suit too: where one names
another, the corner's rank or suit is unclear (:func:`index_seconded`).

On the held-out designs' small cards (seeds 61000-61299 of the benchmark's small
condition): of 873 corners the index classifier read as a court, the court model
disagreed with 16 of the 25 read as the wrong court and with 8 of the 848 read right;
of 2,217 black suits read, the suit model disagreed (by :data:`SUIT_MARGIN`) with 74 of
the 156 read wrong and with 6 of the 2,061 read right.
"""

from __future__ import annotations

from collections.abc import Sequence
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
SUIT_MODEL_PATH = Path(__file__).with_name("models") / "small_suits.npz"

COURT_LETTERS = ("J", "Q", "K")
"""The court classifier's classes, in order."""

BLACK_SUIT_NAMES = ("S", "C")
"""The suit classifier's classes, in order."""

SUIT_MARGIN = 0.2
"""How much more the suit classifier must score the other black suit to doubt a corner's:
a spade and a club a few pixels high are near each other (trained on the published
designs alone, at 0 it disagreed with 26 of 2,061 suits read right, at 0.2 with 6)."""


def normalised(features: NDArray[np.float32]) -> NDArray[np.float32]:
    """Each row of ``features`` scaled to unit length, a 1 appended (the bias)."""
    rows = np.atleast_2d(np.asarray(features, np.float32))
    unit = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-6)
    return np.asarray(np.hstack([unit, np.ones((len(rows), 1), np.float32)]), np.float32)


@dataclass(frozen=True)
class SmallGlyphModel:
    """One weight vector per class (features + bias): the class scoring most."""

    weights: NDArray[np.float32]
    classes: tuple[str, ...]

    def scores(self, glyphs: list[Ink]) -> NDArray[np.float32]:
        """Each glyph's (a rank's or a suit's ink, as :mod:`vision.index` cuts it) score
        for each class: glyphs x classes."""
        if not glyphs:
            return np.zeros((0, len(self.classes)), np.float32)
        return self.scores_of(features_of(glyphs))

    def scores_of(self, features: NDArray[np.float32]) -> NDArray[np.float32]:
        """:meth:`scores` of glyphs whose :func:`vision.glyphs.features_of` rows are made."""
        if len(features) == 0:
            return np.zeros((0, len(self.classes)), np.float32)
        return np.asarray(normalised(features) @ self.weights, np.float32)

    def names(self, glyphs: list[Ink]) -> list[str]:
        """The class each glyph is.

        >>> model = SmallGlyphModel(np.zeros((feature_size() + 1, 3), np.float32), COURT_LETTERS)
        >>> model.names([])
        []
        """
        return [self.classes[int(i)] for i in np.argmax(self.scores(glyphs), axis=1)]

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, weights=self.weights.astype(np.float32),
                            classes=np.array(self.classes))

    @classmethod
    def load(cls, path: Path, classes: tuple[str, ...]) -> SmallGlyphModel:
        try:
            with np.load(path, allow_pickle=False) as z:
                weights = z["weights"].astype(np.float32)
                saved = tuple(str(c) for c in z["classes"])
        except (OSError, KeyError, ValueError) as e:
            raise ModelError(f"cannot read the small-index model {path}: {e}; rebuild it "
                             "with scripts/train_small_courts.py") from e
        if saved != classes or weights.shape != (feature_size() + 1, len(classes)):
            raise ModelError(f"the small-index model {path} was built for other features; "
                             "rebuild it with scripts/train_small_courts.py")
        return cls(weights, classes)


@lru_cache(maxsize=1)
def shipped_small_courts() -> SmallGlyphModel:
    """The court-letter model that ships with the package (loaded once)."""
    return SmallGlyphModel.load(MODEL_PATH, COURT_LETTERS)


@lru_cache(maxsize=1)
def shipped_small_suits() -> SmallGlyphModel:
    """The black-suit model that ships with the package (loaded once)."""
    return SmallGlyphModel.load(SUIT_MODEL_PATH, BLACK_SUIT_NAMES)


def load_models() -> None:
    """Load both models now (:func:`vision.standard.prepare`: not on the first small card)."""
    shipped_small_courts()
    shipped_small_suits()


def index_seconded(rank_features: NDArray[np.float32], suit_features: NDArray[np.float32],
                   readings: list[CornerReading], th: Thresholds) -> list[CornerReading]:
    """``readings`` of a small card's corners, each read from the rank and suit glyphs whose
    :func:`vision.glyphs.features_of` rows are beside it in ``rank_features`` and
    ``suit_features`` (the index classifier's, not made again): a court whose letter the
    court classifier names another court's has its rank made unclear, a spade or a club
    the suit classifier scores the other black suit by :data:`SUIT_MARGIN` its suit (no
    surer than :attr:`Thresholds.leaning`)."""
    out = list(readings)
    courts = [i for i, r in enumerate(out) if r.rank in COURT_LETTERS]
    letters = shipped_small_courts().scores_of(rank_features[courts]).argmax(axis=1)
    for i, letter in zip(courts, letters, strict=True):
        if COURT_LETTERS[int(letter)] != out[i].rank:
            out[i] = replace(out[i], rank_p=min(out[i].rank_p, th.leaning))
    black = [i for i, r in enumerate(out) if r.suit in BLACK_SUIT_NAMES]
    scores = shipped_small_suits().scores_of(suit_features[black])
    for i, score in zip(black, scores, strict=True):
        mine = BLACK_SUIT_NAMES.index(out[i].suit)
        if score[1 - mine] - score[mine] >= SUIT_MARGIN:
            out[i] = replace(out[i], suit_p=min(out[i].suit_p, th.leaning))
    return out


NUMBER_RANKS = frozenset(str(n) for n in range(2, 11))
"""The ranks a card's pips count out (an ace's one pip is its face)."""

ENGLISH_COURTS = frozenset(COURT_LETTERS)
"""The court letters a corner must print to name a court against the other corners: a
small king's or queen's blot read surely as a jack was read as a foreign jack's V or B."""


def court_over_numbers(field: Field, readings: list[CornerReading], th: Thresholds,
                       overlapped: bool = False, cuts: Sequence[CornerReading] = (),
                       ) -> Reading | None:
    """A court card whose corners disagree: one reads it surely (``th.single_corner``), its
    letter J, Q or K (:data:`ENGLISH_COURTS`), the others a number card; the face shows a
    court's picture and few pips, denies every number read and not the court. A small
    court's blotted letter reads as a 6, a 9 or a 3 in one corner as often as another
    court in the other. ``None`` where not so, or on a card ``overlapped`` (over or under
    another: a corner may show the other card's index), or where some cut of a corner
    (``cuts``) reads another court's letter and a suit clearly (``th.glyph``): a small
    queen's blot reads J surely in one corner, Q and 7 in the other.

    >>> king = CornerReading("K", "H", 0.97, 1.0, True, 0, letter="K")
    >>> six = CornerReading("6", "H", 0.95, 1.0, True, 1, letter="6")
    >>> court_over_numbers(Field(2, 1, True), [king, six], Thresholds()).card
    'KH'
    >>> court_over_numbers(Field(6, 0, False), [king, six], Thresholds()) is None
    True
    >>> jack = CornerReading("J", "H", 0.97, 1.0, True, 0, letter="V")  # a king's blot?
    >>> court_over_numbers(Field(2, 1, True), [jack, six], Thresholds()) is None
    True
    >>> queen = CornerReading("Q", "H", 0.76, 1.0, True, 1, letter="Q")  # cut beside the six
    >>> court_over_numbers(Field(2, 1, True), [king, six], Thresholds(), cuts=[queen]) is None
    True
    """
    courts = [r for r in readings if r.rank in ENGLISH_COURTS and r.letter in ENGLISH_COURTS
              and r.colour_ok and r.rank_p >= th.single_corner and r.suit_p >= th.glyph]
    numbers = [r for r in readings if r.rank in NUMBER_RANKS]
    if overlapped or len(courts) != 1 or len(numbers) != len(readings) - 1 or (
            not field.picture or field.pips >= 4 or field.alike):
        return None
    court = courts[0]
    if any(r.suit != court.suit and r.colour_ok and r.suit_p >= th.leaning for r in numbers):
        return None  # (a corner leaning to another suit leaves the suit open)
    if another_court_cut(cuts, court.rank, th.glyph):
        return None  # (which court is open)
    if field_denies(court.rank, field, suit=court.suit, both_corners=True) or not all(
            field_denies(r.rank, field, suit=r.suit, both_corners=True) for r in numbers):
        return None
    return Reading(court.card, min(court.p, th.glyph))


def another_court_cut(cuts: Sequence[CornerReading], rank: str, least: float) -> bool:
    """Whether a cut of the corners (``cuts``) reads a court other than ``rank``, its letter
    and suit both at ``least`` or more, in ink of its suit's colour: which court a small
    card is stays open (a queen's blot reads J in some cut).

    >>> jack = CornerReading("J", "S", 0.49, 1.0, True, 0, letter="J")
    >>> another_court_cut([jack], "Q", 0.3), another_court_cut([jack], "Q", 0.6)
    (True, False)
    """
    return any(r.rank in ENGLISH_COURTS and r.rank != rank and r.colour_ok and r.p >= least
               for r in cuts)


def court_in_every_cut(field: Field, cuts: list[CornerReading], th: Thresholds,
                       ) -> Reading | None:
    """A small court whose two corners each read its letter surely in some cut of their
    ink (``cuts``: every cut's reading, not only each corner's best), though another cut
    read better (its blotted letter with the suit beside it reads as a number); no other
    court letter sure in either; the face shows a court's picture and denies it not.
    Its suit: the one the letter's cuts read surely in ink of its colour, else the face's
    large suit signs.

    >>> queen = CornerReading("Q", "D", 1.0, 0.98, True, 1, letter="Q")
    >>> blot = CornerReading("Q", "S", 1.0, 0.92, False, 0, letter="Q")
    >>> five = CornerReading("5", "D", 1.0, 0.9, True, 0, letter="5")
    >>> court_in_every_cut(Field(2, 1, True), [five, blot, queen], Thresholds()).card
    'QD'
    >>> court_in_every_cut(Field(6, 0, False), [five, blot, queen], Thresholds()) is None
    True
    >>> court_in_every_cut(Field(2, 1, True), [five, queen], Thresholds()) is None
    True
    """
    if not field.picture or field.pips >= 4 or field.alike:
        return None
    letters = [{r.rank for r in cuts if r.corner == corner and r.rank in ENGLISH_COURTS
                and r.letter == r.rank and r.rank_p >= th.single_corner} for corner in (0, 1)]
    if len(letters[0]) != 1 or letters[0] != letters[1]:
        return None
    rank = next(iter(letters[0]))
    suits = {r.suit for r in cuts if r.rank == rank and r.colour_ok and r.suit_p >= th.glyph}
    suit = next(iter(suits), field.suit)
    if len(suits) > 1 or suit is None or field_denies(rank, field, suit=suit,
                                                      both_corners=True):
        return None
    return Reading(rank + suit, th.glyph)
