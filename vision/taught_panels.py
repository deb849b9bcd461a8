"""The panel a taught deck prints inside its cards, and the card found round it.

Many decks print a picture panel inside a coloured frame, with a name label below it
(Can't Catch Harry). Where a card lies among others, the frame's outline can merge
with theirs, and the panel's clear edges are all the camera outlines: the panel alone
is no reference. The panel's place on the card is learnt from the taught faces
themselves (nothing about any deck is assumed), so a panel found in the camera can be
grown back into its card and read.

>>> face = np.full((CARD_H, CARD_W, 3), 200, np.uint8)
>>> face[30:210, 20:180] = 250  # a light panel, its label space below it
>>> panel_of(face)  # its edge pixels too
(19, 29, 162, 182)
>>> [round(m, 3) for m in panel_sides([face, face])]  # top, right, bottom, left
[0.223, 0.117, 0.531, 0.117]
>>> panel_sides([np.full((CARD_H, CARD_W, 3), 200, np.uint8)] * 2) is None  # no panel
True
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.canny import canny
from vision.detect import CARD_H, CARD_W

Image = NDArray[np.uint8]
Sides = tuple[float, float, float, float]

PANEL_AREA = (0.3, 0.85)
"""Smallest and largest panel, as fractions of the card."""

PANEL_SQUARE = 0.9
"""Least fraction of its box that a panel's outline encloses (a rectangle fills it)."""

EDGE_CLEAR = 4
"""Pixels from the card's edge that a panel keeps clear of (else it is the card's edge)."""

UNEVEN = 0.03
"""Least spread of a panel's four margins (card widths) for it to be worth a try: an even
border round the whole face is tried anyway (see ``vision.pipeline.BORDER_GUESSES``)."""


def panel_of(face: Image) -> tuple[int, int, int, int] | None:
    """The largest rectangular panel drawn inside a canonical face, as (x, y, width,
    height), or ``None``."""
    gray = cv2.GaussianBlur(cv2.cvtColor(face, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    contours, _ = cv2.findContours(canny(np.asarray(gray, np.uint8), 30, 90), cv2.RETR_LIST,
                                   cv2.CHAIN_APPROX_SIMPLE)
    best: tuple[int, int, int, int] | None = None
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if min(x, y) <= EDGE_CLEAR or x + w >= CARD_W - EDGE_CLEAR or (
                y + h >= CARD_H - EDGE_CLEAR):
            continue
        area = w * h
        if not PANEL_AREA[0] * CARD_W * CARD_H <= area <= PANEL_AREA[1] * CARD_W * CARD_H:
            continue
        if cv2.contourArea(cv2.convexHull(contour)) < PANEL_SQUARE * area:
            continue
        if best is None or area > best[2] * best[3]:
            best = (x, y, w, h)
    return best


def panel_sides(faces: Sequence[Image]) -> Sides | None:
    """How far (in widths of the panel, as :func:`vision.pipeline.sides_out` takes them:
    top, right, bottom, left) the card reaches beyond the panel most of a deck's
    ``faces`` print; ``None`` when fewer than half print one, or its border is even."""
    boxes = [b for b in (panel_of(f) for f in faces) if b is not None]
    if not faces or len(boxes) * 2 < len(faces):
        return None
    x, y, w, h = (float(v) for v in np.median(np.array(boxes, np.float64), axis=0))
    # the panel is dewarped to a whole card's size: its heights count CARD_H / CARD_W
    tall = CARD_H / CARD_W
    sides = (y / h * tall, (CARD_W - x - w) / w, (CARD_H - y - h) / h * tall, x / w)
    return sides if max(sides) - min(sides) >= UNEVEN else None
