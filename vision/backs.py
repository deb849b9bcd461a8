"""A card lying face down shows its back: a pattern, not an index.

The index reader looks for ink in a card's corners, and a back's lattice gives it
some: published backs laid on rendered tables were named as cards in 34 of 1,316
outlines (a blue lattice's cells read as diamonds, a QD or a 10D); 4 since this check.
A face-down card is on every table (a draw pile, a card to turn up later), so a card
named by its corners is looked at once more: a back has little paper, or its corner's
print recurs along its sides, where a face's index does not (its pips and pictures lie
inside a paper margin); a card of one strong colour shows no face either.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import CARD_H, CARD_W
from vision.index import paper_colour

Image = NDArray[np.uint8]

HALF = (CARD_W // 2, CARD_H // 2)
"""Both measures are taken on the canonical card halved: a tenth of the time, the
same answers."""

PAPER_REACH = 15
"""Side of the window (halved pixels) whose brightest pixel is a pixel's paper: a
shadow's paper is its own (as the index reader weighs ink)."""

PAPER = 0.8
"""A pixel is paper at this fraction of its window's brightest or brighter."""

INNER = 0.12
"""Margin left out of the paper share, in card widths: the rim, the table beside it."""

BACKS = ((0.0, 0.12), (0.8, 0.42), (0.97, 0.58))
"""(least recurrence of the corner's print along the card, share of paper below which
the card is a back), each rule on its own. The figures below were measured on the
card's lightness (Lab L); on its grey, as here, the rules took none of 3,536 published
faces, 3,546 readings of the real photos (nineteen changes of them) or 1,748 of rendered
scenes for a back. A card with under 0.12 of paper inside its margin shows no face:
faces of the 34 published designs have 0.2 and more (the lowest a court of
aisleriot-orell), named cards of the real photos 0.28 and more (2,021 readings over
eleven changes of them, shadows among them), of rendered scenes 0.24; lattice backs
0.04-0.12. Faces whose corner recurs 0.8 or more (pips beside the index, blurred) have
0.48 of paper or more, 0.66 or more where it recurs 0.97; such backs 0.15-0.35 and, a
fine lattice recurring 0.99-1.0, 0.47-0.52. Recurrence is the normalised correlation of
each index corner's print with the print along the card away from both corners, the
less of the two."""

PLAIN_COLOUR = 0.7
"""Chroma of a card's paper (brightest channel less dimmest, of the brightest) at or above
which it shows no face: a back of one plain colour, or a large pip or a coloured thing
outlined as a card (a close-up of a 10D: one of its red diamonds, 120 px across, read
surely as a 10H in one corner). Named faces: 0.18 at most in rendered scenes (1,418
readings, tinted paper and light among them), 0.45 in the real photos under nineteen
changes (3,744 readings; warm light, cream paper, dim); published faces 0.08; that
diamond 0.9. An incandescent lamp uncorrected tints white paper about 0.6."""

CORNER = (slice(0, 30), slice(0, 18))
"""The index corner inside the margin (halved pixels: the index of a face)."""

AWAY = (40, 22)
"""Offsets (rows, columns) from an index corner within which a match is the corner's
own print, not a recurrence."""


def _paper_share(gray: NDArray[np.uint8]) -> float:
    local = cv2.dilate(gray, np.ones((PAPER_REACH, PAPER_REACH), np.uint8))
    paper = gray.astype(np.float32) >= PAPER * local.astype(np.float32)
    h, w = gray.shape
    m = round(INNER * w)
    return float(paper[m:h - m, m:w - m].mean())


def _corner_recurs(gray: NDArray[np.uint8]) -> float:
    """How well each index corner's print (black top-hat: ink darker than the paper
    round it) matches the print elsewhere along the card, the less of the two."""
    ink = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, np.ones((7, 7), np.uint8))[5:-5, 5:-5]
    least = 1.0
    for seen in (ink, ink[::-1, ::-1]):
        corner = np.ascontiguousarray(seen[CORNER])
        if float(corner.std()) < 1.0:
            return 0.0  # (a corner with no print: nothing to recur)
        match = cv2.matchTemplate(np.ascontiguousarray(seen), corner, cv2.TM_CCOEFF_NORMED)
        h, w = match.shape
        match[:AWAY[0], :AWAY[1]] = -1.0
        match[h - AWAY[0]:, w - AWAY[1]:] = -1.0
        least = min(least, float(match.max()))
    return least


def shows_its_back(card: Image) -> bool:
    """Whether a canonical card (200 x 280 BGR) shows a back rather than a face.

    >>> face = np.full((280, 200, 3), 235, np.uint8)
    >>> face[20:50, 12:30] = 30  # an index
    >>> face[110:170, 70:130] = 30  # a pip
    >>> shows_its_back(face)
    False
    >>> y, x = np.mgrid[0:280, 0:200]
    >>> lattice = np.where((x + y) % 12 < 3, 235, 60).astype(np.uint8)  # white lines
    >>> shows_its_back(np.dstack([lattice] * 3))
    True
    >>> shows_its_back(np.full((280, 200, 3), (30, 20, 160), np.uint8))  # all red
    True
    """
    paper_tint = paper_colour(card)
    if float(paper_tint.max() - paper_tint.min()) >= PLAIN_COLOUR * float(paper_tint.max()):
        return True
    gray = np.asarray(cv2.resize(cv2.cvtColor(card, cv2.COLOR_BGR2GRAY), HALF,
                                 interpolation=cv2.INTER_AREA), np.uint8)
    paper = _paper_share(gray)
    if paper >= max(below for _, below in BACKS):
        return False  # (most faces: not worth the recurrence)
    recurs = _corner_recurs(gray) if paper >= BACKS[0][1] else 1.0
    return any(recurs >= least and paper < below for least, below in BACKS)
