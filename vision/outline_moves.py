"""A card's outline moved outwards, side by side, in the card's own perspective: where an
outline lies a little inside the card (blur, a printed border, a pile's outline through
its index), the card is read again in a larger one. A small card that did not read is
read again in its outline shifted a part of a pixel four ways, and named where they agree
(:func:`voted`)."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import CARD_H, CARD_W, corner_skew, dewarp, inside
from vision.face import COURTS
from vision.readings import Reading
from vision.sides import short_and_long
from vision.standard import identify_standard
from vision.thresholds import Thresholds


def sides_out(quad: NDArray[np.float32], top: float, right: float, bottom: float,
              left: float) -> NDArray[np.float32]:
    """``quad`` with each side moved outwards by so many card widths (inwards when
    negative), in the card's own perspective; ``quad[0]`` is the card's top-left."""
    rect = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float32)
    to_image = cv2.getPerspectiveTransform(rect, np.asarray(quad, np.float32))
    out = rect + CARD_W * np.array([[-left, -top], [right, -top], [right, bottom],
                                    [-left, bottom]], np.float32)
    return np.asarray(cv2.perspectiveTransform(out[None], to_image)[0], np.float32)


def grown(quad: NDArray[np.float32], border: float) -> NDArray[np.float32]:
    """``quad`` grown outwards by ``border`` card widths on every side, in the card's own
    perspective.

    >>> square = np.array([[0, 0], [100, 0], [100, 140], [0, 140]], np.float32)
    >>> grown(square, 0.1).round(1).tolist()
    [[-10.0, -10.0], [110.0, -10.0], [110.0, 150.0], [-10.0, 150.0]]
    """
    return sides_out(quad, border, border, border, border)


def pushed(quad: NDArray[np.float32], side: int, amount: float) -> NDArray[np.float32]:
    """``quad`` with one side (0 top, 1 right, 2 bottom, 3 left, as the card lies in
    ``quad``) moved outwards by ``amount`` card widths, in the card's own perspective.

    >>> square = np.array([[0, 0], [100, 0], [100, 140], [0, 140]], np.float32)
    >>> pushed(square, 3, 0.1).round(1).tolist()
    [[-10.0, 0.0], [100.0, 0.0], [100.0, 140.0], [-10.0, 140.0]]
    """
    top, right, bottom, left = (amount if i == side else 0.0 for i in range(4))
    return sides_out(quad, top, right, bottom, left)


CORNER_MOVED = 0.1
"""Least a corner put back (:func:`corners_put_back`) moves, in the card's short sides:
less, and the outline was the card's already."""

CARD_PROPORTIONS = (1.2, 1.75)
"""Long over short side of a quad with a corner put back that may be a card's (poker and
bridge cards 1.4-1.56, leaning away from the camera a little more or less)."""


def corners_put_back(quad: NDArray[np.float32]) -> list[NDArray[np.float32]]:
    """``quad`` with one corner at a time put back where its other three corners place it
    (the fourth corner of the parallelogram they span), where that moves the corner
    outwards by :data:`CORNER_MOVED` or more and leaves a card's proportions
    (:data:`CARD_PROPORTIONS`) and squarer corners, squarest first: a card with a corner
    under another card or a hand is outlined round what shows, its covered corner cut off
    by a side drawn across it.

    >>> cut = np.array([[0, 0], [100, 0], [100, 100], [60, 140], [0, 140]], np.float32)
    >>> outline = cut[[0, 1, 3, 4]]  # the covered corner (100, 140) cut off
    >>> [q.round().tolist() for q in corners_put_back(outline)]
    [[[0.0, 0.0], [100.0, 0.0], [100.0, 140.0], [0.0, 140.0]]]
    """
    q = np.asarray(quad, np.float32)
    found = []
    skew = corner_skew(q)
    for i in range(4):
        back = q.copy()
        back[i] = q[(i - 1) % 4] + q[(i + 1) % 4] - q[(i + 2) % 4]
        short, long = short_and_long(back)
        moved = float(np.linalg.norm(back[i] - q[i]))
        if (short > 0 and moved >= CORNER_MOVED * short
                and CARD_PROPORTIONS[0] <= long / short <= CARD_PROPORTIONS[1]
                and cv2.contourArea(back) > cv2.contourArea(q) and corner_skew(back) < skew):
            found.append(back)
    return sorted(found, key=corner_skew)


JITTER_PX = 0.75
"""How far (image pixels, across and down) a small card's outline is shifted to be read
again: a few-pixel index falls on the pixels another way."""

JITTER_AGREE = 3
"""Least of the four shifted readings of a small number card that must name one card
(none naming another) for it to be named (all four for a court card)."""


def voted(image: NDArray[np.uint8], quad: NDArray[np.float32], side: float) -> Reading | None:
    """A small card that did not read, named where its outline shifted by a part of a
    pixel, four ways, reads it alike (:data:`JITTER_AGREE`) and never as another card:
    each reading is as strict as the first, and a misreading that comes and goes with
    the pixels does not outvote the others. A court card must read alike all four ways:
    its picture cannot deny a J, Q or K that a blot in the index keeps reading."""
    shifts = ((1, 1), (-1, 1), (1, -1), (-1, -1))
    names: list[str | None] = []
    for dx, dy in shifts:
        moved = np.asarray(quad + JITTER_PX * np.array([dx, dy], np.float32), np.float32)
        names.append(identify_standard(dewarp(image, moved), card_px=side, may_turn=False
                                       ).card if inside(moved, image) else None)
        named = {n for n in names if n is not None}
        # (stopped as soon as the vote cannot name one card: a small card's reading is dear)
        need = len(shifts) if any(n[:-1] in COURTS for n in named) else JITTER_AGREE
        if len(named) > 1 or names.count(None) > len(shifts) - need:
            return None
    card = max(names, key=names.count)
    return Reading(card, Thresholds.glyph) if card is not None else None
