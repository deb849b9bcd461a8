"""A taught deck's references: each card's face and what is derived from it.

Each card is kept as its canonical face; its descriptor and fine view (both ways
up: a card lies either way round on a table), its detail, its keypoints, and which
cards are near twins or most alike are made from the faces when a deck is built or
loaded, so that a change to how cards are compared needs no new teaching. What is
made per pair of cards (where two references differ) is cached as it is first
needed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Self

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import CARD_H, CARD_W
from vision.taught_keypoints import Features, features
from vision.taught_panels import Sides, panel_sides
from vision.taught_store import BACK, EnrollmentError, canonical_from_photo
from vision.taught_views import (
    DESC_SIZE,
    FINE_SIZE,
    by_channel,
    describe,
    detail_of,
    fine_view,
    grey_of,
)

Image = NDArray[np.uint8]

TWIN = 0.95  # descriptor likeness of near-identical faces, which share one keypoint fit
RIVALS = 6  # cards most like a card that it must beat where a cover may hide them

Ref = tuple[int, int]
"""A reference: (card index, side), side 1 being the card turned round (180 degrees)."""


@dataclass(frozen=True)
class References:
    """The references of one deck: its faces and the views made from them."""

    deck: str
    cards: tuple[str, ...]
    descriptors: NDArray[np.float32]  # len(cards) x 2 orientations x D
    fine: NDArray[np.float32]  # len(cards) x 2 orientations x FINE_SIZE view
    faces: NDArray[np.uint8] | None = field(default=None, compare=False, repr=False)
    """The canonical face of each card (len(cards) x CARD_H x CARD_W x 3), when known."""
    # where two references differ, cached per pair and orientation: pixel indices
    _differ: dict[tuple[int, int, int, int], NDArray[np.intp]] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    # each reference's fine view at DESC_SIZE, for the quick look for glare
    _small: dict[Ref, NDArray[np.float32]] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    # the grey fine view of each reference the second stage aligned a card onto
    _grey: dict[Ref, NDArray[np.float32]] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    @property
    def has_back(self) -> bool:
        """Whether the deck's back was taught beside its faces (:data:`BACK`)."""
        return BACK in self.cards

    @property
    def card_count(self) -> int:
        """How many cards' faces were taught (not counting the back)."""
        return len(self.cards) - self.has_back

    @classmethod
    def from_faces(cls, deck: str, faces: dict[str, Image]) -> Self:
        """Build a gallery from one canonical (or photographed) image per card id."""
        if not faces:
            raise EnrollmentError(f"deck {deck!r} needs at least one card image")
        cards = tuple(sorted(faces))
        return cls.from_canonical(deck, cards, np.array(
            [canonical_from_photo(faces[card]) for card in cards], np.uint8))

    @classmethod
    def from_canonical(cls, deck: str, cards: tuple[str, ...], faces: NDArray[np.uint8],
                       ) -> Self:
        """A gallery from each card's canonical face (CARD_H x CARD_W), in ``cards`` order."""
        if faces.shape != (len(cards), CARD_H, CARD_W, 3) or not cards:
            raise EnrollmentError(f"deck {deck!r} needs one {CARD_W} x {CARD_H} face per card")
        rows = []
        fine = []
        for c in faces:
            turned = np.ascontiguousarray(c[::-1, ::-1])
            rows.append([describe(c), describe(turned)])
            fine.append([fine_view(c), fine_view(turned)])
        return cls(deck, cards, np.array(rows, np.float32), np.array(fine, np.float32),
                   np.ascontiguousarray(faces, np.uint8))

    def __post_init__(self) -> None:
        if self.faces is not None:
            self._features  # noqa: B018 - made once, not in the middle of a frame
            self.panel_sides  # noqa: B018 - likewise

    @cached_property
    def panel_sides(self) -> Sides | None:
        """How far the cards reach beyond the panel the deck prints inside them, if it
        prints one (:func:`vision.taught_panels.panel_sides`; its back, if taught, is not
        asked)."""
        return None if self.faces is None else panel_sides(
            [face for card, face in zip(self.cards, self.faces, strict=True) if card != BACK])

    @cached_property
    def _features(self) -> list[Features]:
        assert self.faces is not None
        return [features(f) for f in self.faces]

    @cached_property
    def _likeness(self) -> NDArray[np.float32]:
        """How alike each two cards are by their descriptors, either way up (cards x cards)."""
        sim = np.einsum("id,jkd->ijk", self.descriptors[:, 0], self.descriptors).max(axis=2)
        return np.asarray(sim, np.float32)

    @cached_property
    def _twins(self) -> NDArray[np.bool_]:
        """Which references are near-identical faces (cards x cards): their keypoints are
        the same, so one keypoint fit serves them all."""
        n = len(self.cards)
        return np.asarray(self._likeness >= TWIN, bool) | np.eye(n, dtype=bool)

    @cached_property
    def _neighbours(self) -> NDArray[np.intp]:
        """Each reference's most alike other references (cards x RIVALS): the cards a
        partly covered card may be."""
        sim = self._likeness.copy()
        np.fill_diagonal(sim, -np.inf)
        return np.argsort(-sim, axis=1)[:, :RIVALS]

    @cached_property
    def _details(self) -> NDArray[np.float32]:
        """The detail (see :func:`~vision.taught_views.detail_of`) of every reference:
        (cards x 2) x pixels x 3."""
        n = len(self.cards)
        flat = self.fine.reshape(n * 2, FINE_SIZE[1], FINE_SIZE[0], 3)
        return np.array([detail_of(v).reshape(-1, 3) for v in flat], np.float32)

    def _detail(self, ref: Ref) -> NDArray[np.float32]:
        """The detail of reference ``ref`` (card, side): pixels x 3."""
        return np.asarray(self._details[2 * ref[0] + ref[1]], np.float32)

    @cached_property
    def _details_by_channel(self) -> NDArray[np.float32]:
        """:attr:`_details` laid out for :func:`~vision.taught_views.masked_correlation`."""
        return by_channel(self._details)

    def _differ_at(self, mine: Ref, other: Ref) -> NDArray[np.intp]:
        """The fine-view pixels where two references differ."""
        key = (*mine, *other)
        if key not in self._differ:
            a, b = self.fine[mine].reshape(-1, 3), self.fine[other].reshape(-1, 3)
            self._differ[key] = np.flatnonzero(np.abs(a - b).sum(axis=1) > 1.5)
        return self._differ[key]

    def _grey_reference(self, ref: Ref) -> NDArray[np.float32]:
        """The grey of a reference's fine view."""
        if ref not in self._grey:
            self._grey[ref] = grey_of(self.fine[ref])
        return self._grey[ref]

    def _small_reference(self, ref: Ref) -> NDArray[np.float32]:
        """A reference's fine view at ``DESC_SIZE`` (pixels x 3)."""
        if ref not in self._small:
            self._small[ref] = np.asarray(cv2.resize(self.fine[ref], DESC_SIZE,
                                                     interpolation=cv2.INTER_AREA),
                                          np.float32).reshape(-1, 3)
        return self._small[ref]
