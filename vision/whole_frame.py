"""A frame that is one card: a close-up, a scan, a photo cropped to the card.

Such a frame has no table round the card, so no outline is found (the card's sides are
the frame's, and :func:`vision.detect._on_frame` rightly takes an outline along the
frame's border for something the frame cut). Where nothing else in the frame was named,
the frame itself is read as the card, when it is in a card's proportions, the card's
paper margin runs round it and print is on it. The real photos cropped to their labelled
boxes (``bench/bench_photo_changes.py``, "cropped to the card") read 114 of 196 cards
without this, 171 with it (the rest mostly tilted cards whose corners the box cut); 600
windows of the same photos holding no card and 1,248 of rendered scenes (cards cut by
the window's sides among them) named no card that was not there.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]

MOST_ASPECT = 1.6
"""Longest long side over short side of a frame read as one card: a bridge card is 1.56;
a crop stretched square (as image sets store cards) is 1.0. A 16:9 camera frame (1.78)
is never one card."""

RIM = 0.04
"""Width of the frame's rim looked at for the card's paper, in its short side."""

PAPER_LEVEL = 0.75
"""A pixel is paper at this fraction of the frame's brightest (98th percentile) level or
brighter."""

LEAST_PAPER = 0.5
"""Least share of the rim that is paper. A crop of a card, its box drawn by hand a little
loose (a strip of table on a side or two), 0.32-0.83; windows of rendered tables with
cards cut by their sides, the three of 540 whose whole frame read as a card (two of them
wrongly), 0.13-0.45."""

INK_LEVEL = 0.5
"""A pixel is ink under this fraction of the frame's brightest level."""

LEAST_INK = 0.03
"""Least share of the frame that is ink: a card prints its index and pips (the real
photos' cards cropped to their boxes and read so, 4.5-32 %). Windows of the photos' bare
tables in a card's proportions, with paper round their rims, are all but inkless (254:
none at the median, 8 over 3 %), and reading one costs 3-30 ms: not paid for them."""


def paper_and_ink(image: Image) -> tuple[float, float]:
    """The share of the frame's rim that is as light as its paper, and the share of the
    frame as dark as ink.

    >>> card = np.full((280, 200, 3), 230, np.uint8)
    >>> card[30:90, 10:40] = 20  # an index
    >>> [round(share, 3) for share in paper_and_ink(card)]
    [1.0, 0.03]
    >>> table = np.full((280, 200, 3), 90, np.uint8)
    >>> table[40:240, 40:160] = 230  # a card on it
    >>> paper_and_ink(table)[0]
    0.0
    """
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    h, w = gray.shape
    k = max(2, round(RIM * min(h, w)))
    # (levels and shares from every fourth pixel each way: a tenth of the time)
    sampled = gray[::4, ::4]
    top = float(np.percentile(sampled, 98))
    rim = np.concatenate([gray[:k].ravel(), gray[-k:].ravel(), gray[k:-k, :k].ravel(),
                          gray[k:-k, -k:].ravel()])
    paper = float(np.count_nonzero(rim >= PAPER_LEVEL * top)) / rim.size
    return paper, float(np.count_nonzero(sampled < INK_LEVEL * top)) / sampled.size


def frame_as_card(image: Image) -> NDArray[np.float32] | None:
    """The frame's own corners (clockwise from the top left) where the frame may be one
    card: in a card's proportions (:data:`MOST_ASPECT`), paper round its rim
    (:data:`LEAST_PAPER`) and print on it (:data:`LEAST_INK`); otherwise ``None``.

    >>> card = np.full((280, 200, 3), 230, np.uint8)
    >>> card[30:90, 10:40] = 20
    >>> frame_as_card(card).tolist()
    [[0.0, 0.0], [199.0, 0.0], [199.0, 279.0], [0.0, 279.0]]
    >>> frame_as_card(np.full((280, 200, 3), 230, np.uint8)) is None  # a bare table
    True
    >>> frame_as_card(np.full((720, 1280, 3), 230, np.uint8)) is None
    True
    """
    h, w = image.shape[:2]
    if max(h, w) / max(min(h, w), 1) > MOST_ASPECT:
        return None
    paper, ink = paper_and_ink(image)
    if paper < LEAST_PAPER or ink < LEAST_INK:
        return None
    return np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
