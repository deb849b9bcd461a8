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

Where the frame is no card either (a tilted card's corners at its border, table in the
corners; a card cut by it), the frame is laid in a border of the colour its rim shows and
looked at again (:func:`close_up`): the card's sides close on the border. One card
named so is kept where it covers most of the frame (:data:`LEAST_SHARE`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import (
    DetectorSettings,
    FoundCard,
    _area_limits,
    _on_frame,
    find_cards_with_alternates,
)
from vision.frame_cut import seen_area
from vision.play_area import PlaceTest

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


BORDER = 0.06
"""Width of the border laid round a frame for the close-up look (:func:`close_up`), as
a part of the frame's long side."""

CLOSE_UP_SIDE = 640
"""Longest side, in pixels, of a frame looked at for a card close up: such a card covers
half the frame or more, and is read as well shrunk (the real photos cropped to their
cards' boxes, up to 655 px, read alike), for a quarter of the work on a 1280 x 720
frame."""

LEAST_SHARE = 0.5
"""Least share of the frame that the one card named in the close-up look covers. The real
photos' cards cropped to their boxes and read so cover 0.54-0.95 of the crop. With no
least share, windows of rendered tables cut across cards named two that were not there:
a 6C cut by the window's side, its pips in view a four's, as a 4C, and an AH where a
covered card's index showed; with it, none."""


def may_fill_the_frame(settings: DetectorSettings, w: int, h: int) -> bool:
    """Whether a card may cover :data:`LEAST_SHARE` of a ``w`` x ``h`` frame: not where the
    table was calibrated and its cards are smaller (the look then costs nothing)."""
    return _area_limits(settings, float(w * h))[1] >= LEAST_SHARE * w * h


def fills_the_frame(quad: NDArray[np.float32], w: int, h: int) -> bool:
    """Whether the part of ``quad`` in a ``w`` x ``h`` frame covers :data:`LEAST_SHARE`
    of it.

    >>> fills_the_frame(np.float32([[0, 0], [80, 0], [80, 100], [0, 100]]), 100, 100)
    True
    >>> fills_the_frame(np.float32([[0, 0], [40, 0], [40, 60], [0, 60]]), 100, 100)
    False
    """
    return seen_area(quad, w, h) >= LEAST_SHARE * w * h


@dataclass(frozen=True)
class CloseUp:
    """A frame looked at for one card close up (:func:`close_up`)."""

    framed: Image
    """The frame, shrunk to :data:`CLOSE_UP_SIDE` at most, laid in a border."""
    border: int
    scale: float
    """``framed``'s pixels per pixel of the frame."""
    counts: PlaceTest | None
    """Where cards count, in ``framed``'s pixels."""
    cards: list[FoundCard]
    """The cards found in ``framed`` that cover :data:`LEAST_SHARE` of the frame."""
    size: tuple[int, int]
    """The frame's width and height."""

    def in_frame(self, quad: NDArray[np.float32]) -> NDArray[np.float32]:
        """``quad``, in ``framed``'s pixels, in the frame's."""
        return np.asarray((quad - self.border) / self.scale, np.float32)

    def filled_by(self, quad: NDArray[np.float32]) -> bool:
        """Whether ``quad``, in the frame's pixels, covers :data:`LEAST_SHARE` of it."""
        return fills_the_frame(quad, *self.size)


def close_up(image: Image, settings: DetectorSettings, counts: PlaceTest | None) -> CloseUp:
    """The frame laid in a border of its rim's median colour, and the cards found in it
    that cover most of the frame (a card whose side runs along the frame's border flagged
    ``cut``, its pips partly out of view, and ``overlapped``: both its index corners must
    read it).

    A close-up of a card (a low camera, a card held up, a photo cropped to the card) has
    the card's corners at the frame's border or its sides cut by it: no outline closes
    round it, and the frame itself is no card (:func:`frame_as_card`: a tilted card, or a
    strip of table at a side). Laid in the colour its rim mostly shows, the card's sides
    close on the border. A card that covers half the frame is large: the frame is looked
    at shrunk (:data:`CLOSE_UP_SIDE`), and only such cards are read; none where the
    table's cards, calibrated, are smaller (:func:`may_fill_the_frame`).

    >>> close_up(np.full((360, 640, 3), 90, np.uint8), DetectorSettings(), None).cards
    []
    """
    h, w = image.shape[:2]
    if not may_fill_the_frame(settings, w, h):
        return CloseUp(image, 0, 1.0, counts, [], (w, h))
    scale = min(1.0, CLOSE_UP_SIDE / max(h, w))
    if scale < 1.0:
        image = np.asarray(cv2.resize(image, (round(w * scale), round(h * scale)),
                                      interpolation=cv2.INTER_AREA), np.uint8)
    size = (w, h)
    h, w = image.shape[:2]
    m = max(8, round(BORDER * max(h, w)))
    rim = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])
    colour = np.median(rim.reshape(len(rim), -1), axis=0).tolist()
    framed = np.asarray(cv2.copyMakeBorder(image, m, m, m, m, cv2.BORDER_CONSTANT,
                                           value=colour), np.uint8)
    place = None if counts is None else (
        lambda point: counts(((point[0] - m) / scale, (point[1] - m) / scale)))
    # (no guesses on piles: a card filling the frame is no pile's, and they cost most)
    found = [f for f in find_cards_with_alternates(framed, settings, squares=True,
                                                   two_sides=True)
             if fills_the_frame(f.quad - m, w, h)]
    return CloseUp(framed, m, scale, place, [
        replace(f, overlapped=True, cut=True) if _on_frame(f.quad - m, w, h) else f
        for f in found], size)
