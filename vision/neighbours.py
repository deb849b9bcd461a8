"""An outline's size beside the cards named nearest it: one deck lies on the table, and a
camera's perspective changes a card's size only gradually across it. Unread outlines
alike, side by side along one line, are a patterned table's tiles."""

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


TILES_IN_A_ROW = 3
"""Fewest unread outlines alike in size, side by side along one line, that make a row of a
patterned table's tiles, no cards (:func:`in_a_row_of_tiles`)."""

TILE_ALIKE = 0.2
"""Most that two tiles' short sides, and their long sides, differ (a fraction of the larger)."""

TILE_LINE = 0.08
"""Farthest (in the tiles' short sides, and at least :data:`TILE_LINE_PX`) that a tile's
side lies off the line of its neighbour's side."""

TILE_LINE_PX = 3.0
"""The least of :data:`TILE_LINE`, in pixels (a small tile's sides are drawn a pixel or two
off the pixel grid's)."""

TILE_GAP = (-0.1, 1.25)
"""Least and most room between two tiles along their common line, in their side's length:
touching (a little overlapped), or apart by about one tile (one of the row left unoutlined)."""

TILE_TURN = 0.1
"""Most sine of the angle between two tiles' sides on one line."""


def _side_on_line(a: tuple[Quad, Quad], b: tuple[Quad, Quad], off: float) -> float | None:
    """How far apart sides ``a`` and ``b`` (each two points) lie along one line, in the longer
    one's length (negative where they overlap), or ``None`` where they are not on one line
    (within ``off`` pixels of ``a``'s, and nearly parallel)."""
    along = a[1] - a[0]
    length = float(np.hypot(*along))
    other = b[1] - b[0]
    other_length = float(np.hypot(*other))
    if length < 1.0 or other_length < 1.0:
        return None
    unit = along / length
    if abs(float(unit[0] * other[1] - unit[1] * other[0])) > TILE_TURN * other_length:
        return None
    normal = np.array([-unit[1], unit[0]], np.float32)
    if max(abs(float((b[0] - a[0]) @ normal)), abs(float((b[1] - a[0]) @ normal))) > off:
        return None
    start, end = sorted((float((b[0] - a[0]) @ unit), float((b[1] - a[0]) @ unit)))
    return max(start - length, -end) / max(length, other_length)


def _tiles_side_by_side(a: Quad, b: Quad, size_a: tuple[float, float],
                        size_b: tuple[float, float]) -> bool:
    """Whether outlines ``a`` and ``b`` (their :func:`vision.sides.short_and_long` sizes
    ``size_a`` and ``size_b``) are alike in size and side by side along one line
    (:data:`TILE_ALIKE`, :data:`TILE_LINE`, :data:`TILE_GAP`)."""
    (short_a, long_a), (short_b, long_b) = size_a, size_b
    if (abs(short_a - short_b) > TILE_ALIKE * max(short_a, short_b)
            or abs(long_a - long_b) > TILE_ALIKE * max(long_a, long_b)
            or float(np.hypot(*(a.mean(axis=0) - b.mean(axis=0)))) > (
                TILE_GAP[1] + 1.0) * max(long_a, long_b) + short_a):
        return False  # (cheap tests first: most pairs differ in size or lie far apart)
    off = max(TILE_LINE_PX, TILE_LINE * min(short_a, short_b))
    for i in range(4):
        for j in range(4):
            gap = _side_on_line((a[i], a[(i + 1) % 4]), (b[j], b[(j + 1) % 4]), off)
            if gap is not None and TILE_GAP[0] <= gap <= TILE_GAP[1]:
                return True
    return False


def in_a_row_of_tiles(unread: list[Quad]) -> list[bool]:
    """For each of the ``unread`` outlines, whether it is one of a row of
    :data:`TILES_IN_A_ROW` or more alike in size, each side by side with the next along a
    line its sides lie on: a patterned table's tiles or planks cut by a shadow's edge (an
    arm's over pine planks outlined eight), no cards (cards a player lays in a row are
    read; unread, they are seldom so alike and so aligned).

    >>> tile = np.float32([[0, 0], [40, 0], [40, 30], [0, 30]])
    >>> in_a_row_of_tiles([tile, tile + [43, 0], tile + [86, 0], tile + [300, 200]])
    [True, True, True, False]
    >>> in_a_row_of_tiles([tile, tile + [43, 0], tile * 1.5 + [86, 0]])
    [False, False, False]
    """
    group = list(range(len(unread)))
    sizes = [short_and_long(quad) for quad in unread]

    def root(k: int) -> int:
        while group[k] != k:
            group[k] = group[group[k]]
            k = group[k]
        return k

    for i, a in enumerate(unread):
        for j in range(i + 1, len(unread)):
            if root(i) != root(j) and _tiles_side_by_side(a, unread[j], sizes[i], sizes[j]):
                group[root(i)] = root(j)
    roots = [root(k) for k in range(len(unread))]
    return [roots.count(r) >= TILES_IN_A_ROW for r in roots]


def of_the_tables_pattern(unread: list[Quad], named: list[Quad]) -> list[bool]:
    """For each of the ``unread`` outlines, whether it is the table's pattern, no card: far
    smaller than the ``named`` cards beside it (:func:`a_speck_beside`), or, of the rest,
    one of a row of tiles (:func:`in_a_row_of_tiles`).

    >>> card = np.float32([[0, 0], [60, 0], [60, 84], [0, 84]])
    >>> of_the_tables_pattern([card / 2, card + 500], [card + 100, card + 300])
    [True, False]
    """
    specks = [a_speck_beside(quad, named) for quad in unread]
    rest = [quad for quad, speck in zip(unread, specks, strict=True) if not speck]
    tiles = iter(in_a_row_of_tiles(rest))
    return [speck or next(tiles) for speck in specks]
