"""An outline's size beside the cards named nearest it: one deck lies on the table, and a
camera's perspective changes a card's size only gradually across it."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.sides import short_and_long

Quad = NDArray[np.float32]

GUESS_SIZES = (0.4, 2.0)
"""Least and most area of a guess at a card on a pile, in the mean area of the two cards
named nearest it: a guess outside these is an outline round two cards, or a corner's few
straight strokes, not a card. Rendered piles and hands (3,100 cards, seeds 66000-70059,
cards 95-135 px wide in one frame): a jack named round itself and the nine under it (2.16
times) and a king named on a quarter-card of a hand (0.25) are not; read guesses lay at
0.43-1.85; the real photos, turned, tilted and smaller, unchanged."""

SPECK = 0.75
"""Most length of an unread outline's long sides, in the short sides of the two cards named
nearest it, at which it is no card of the deck on the table (:func:`a_speck_beside`): a
tile of a patterned table, a pip, a printed panel. A card of theirs is 1.4 times as long.
Real table surfaces (GIMP's 18, the bench's seeds 130000-130002, published designs): the
outlines on no card where cards were named 111 -> 10; of the unread outlines on cards in
view, one of a 3C half outlined in the dark went too; none read changed."""


def _nearest(quad: Quad, named: list[Quad]) -> list[Quad]:
    """The two of ``named`` whose centres lie nearest ``quad``'s."""
    centre = quad.mean(axis=0)
    return sorted(named, key=lambda q: float(np.hypot(*(q.mean(axis=0) - centre))))[:2]


def sized_like_its_neighbours(quad: Quad, named: list[Quad]) -> bool:
    """Whether ``quad`` is about the size of the two ``named`` cards nearest it
    (:data:`GUESS_SIZES`; true where fewer than two are named).

    >>> card = np.float32([[0, 0], [60, 0], [60, 84], [0, 84]])
    >>> named = [card + 100, card + 200, card * 3 + 900]
    >>> sized_like_its_neighbours(card, named), sized_like_its_neighbours(card * 2, named)
    (True, False)
    """
    if len(named) < 2:
        return True
    ratio = cv2.contourArea(quad) / float(np.mean([cv2.contourArea(q)
                                                   for q in _nearest(quad, named)]))
    return GUESS_SIZES[0] <= ratio <= GUESS_SIZES[1]


def a_speck_beside(quad: Quad, named: list[Quad]) -> bool:
    """Whether ``quad`` (an outline that did not read) is far smaller than the two ``named``
    cards nearest it (:data:`SPECK`; false where fewer than two are named).

    >>> card = np.float32([[0, 0], [60, 0], [60, 84], [0, 84]])
    >>> named = [card + 100, card + 300]
    >>> a_speck_beside(card / 2, named), a_speck_beside(card * [1.0, 0.5], named)
    (True, False)
    """
    if len(named) < 2:
        return False
    width = float(np.mean([short_and_long(q)[0] for q in _nearest(quad, named)]))
    return short_and_long(quad)[1] < SPECK * width
