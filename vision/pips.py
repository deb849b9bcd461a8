"""The rank a number card's pips spell out by where they lie.

Every French-suited deck lays its pips out the same way: in a left and a right
column, mirror images of each other, and a middle column between them; and the
whole layout looks the same turned half round, except the seven's one extra pip.
A card whose corner index is a few blurred pixels still shows its pips as clear
blots. Where they lie settles its rank, and only a layout that is exactly one
rank's counts: a pip hidden by a finger or a card makes no rank's layout (or the
reader, which sees the finger, does not ask).

>>> layout_rank([(0.3, 0.2), (0.7, 0.2), (0.5, 0.5), (0.3, 0.8), (0.7, 0.8)])
'5'
>>> layout_rank([(0.3, 0.2), (0.7, 0.2), (0.3, 0.8)]) is None  # one pip short of a four
True
>>> columns = [(x, y) for x in (0.3, 0.7) for y in (0.2, 0.4, 0.6, 0.8)]
>>> layout_rank(columns + [(0.5, 0.5)]), layout_rank(columns)  # a nine, its centre hidden
('9', None)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from vision.decks import RED_SUITS
from vision.glyphs import SUITS

SIDE_COLUMN = 0.38
"""A pip whose centre lies nearer an edge than this (fraction of the card's width) is
in a side column."""

MIDDLE_COLUMN = 0.42
"""A pip whose centre lies at least this far from both edges is in the middle column.
A pip between the two columns is in no layout (the inner pips of a card seen through
the wrong outline)."""

LEVEL = 0.07
"""How far (fraction of the card's height) two pips may be from the same height, or from
mirror images of each other, and still count as laid out alike."""

LAYOUTS: dict[tuple[int, int, int], str] = {
    (0, 2, 0): "2",
    (0, 3, 0): "3",
    (2, 0, 2): "4",
    (2, 1, 2): "5",
    (3, 0, 3): "6",
    (3, 1, 3): "7",
    (3, 2, 3): "8",
    (4, 1, 4): "9",
    (4, 2, 4): "10",
}
"""Pips in the left, middle and right columns, by rank. Eights laid out in two columns
of four are left out: a nine with its centre pip hidden would look like one."""


PART_OF: dict[str, frozenset[str]] = {
    "2": frozenset({"3", "8", "10"}),  # the middle column's two ends, or two middle pips
    "4": frozenset({"5", "6", "7", "8", "9", "10"}),  # the side columns' ends
    "5": frozenset({"9"}),
    "6": frozenset({"7", "8"}),
    "7": frozenset({"8"}),
}
"""The ranks whose layout holds, where they lie, all of a rank's pips: a finger over some
of a card's pips leaves another rank's whole layout only where it is one of these (three
pips down the middle are never part of a five)."""


def hidden_within(shown: str, rank: str) -> bool:
    """Whether pips laid out as ``shown`` may be those of a ``rank`` card partly hidden.

    >>> hidden_within("4", "6"), hidden_within("3", "5")
    (True, False)
    """
    return rank in PART_OF.get(shown, frozenset())


MIDDLE_HEIGHT = 0.12
"""How far (fraction of the card's height) from half-way down a pip in a side column may
lie and be beside the card's middle (:func:`sides_at_middle`)."""

BARE_SIDES_UP_TO = 5
"""The highest rank whose side columns leave the middle of the card bare: a two's and a
three's pips lie down the middle column, a four's and a five's at the columns' ends; from
the six on (the nine's and ten's at 0.4 and 0.6 of the height) the sides reach the middle."""


def sides_at_middle(centres: Sequence[tuple[float, float]]) -> bool:
    """Whether pips at ``centres`` (as for :func:`layout_rank`) lie side by side, one in
    each side column, half-way down the card: a six's or a higher rank's, never a two's
    to a five's, however many pips are hidden. The pips need not make any rank's whole
    layout (some may lie under a card, or outside an outline drawn inside the card).

    >>> sides_at_middle([(0.3, 0.47), (0.7, 0.48), (0.35, 0.75)])
    True
    >>> sides_at_middle([(0.3, 0.2), (0.7, 0.2), (0.5, 0.5), (0.3, 0.8), (0.7, 0.8)])
    False
    """
    left = [y for x, y in centres if x < SIDE_COLUMN and abs(y - 0.5) <= MIDDLE_HEIGHT]
    right = [y for x, y in centres if x > 1.0 - SIDE_COLUMN and abs(y - 0.5) <= MIDDLE_HEIGHT]
    return any(abs(a - b) <= LEVEL for a in left for b in right)


LEVEL_TO_DENY = 0.1
"""The :data:`LEVEL` at which pips laid out as one rank deny another
(:func:`vision.face.field_denies`): an outline a few pixels off a card on a pile moved a
three's middle pip 0.07-0.08 from half-way, and its index, cut, read as a 5 (two in
2,000 overlapping published cards)."""


def _mirrored(ys: Sequence[float], level: float = LEVEL) -> bool:
    """Whether heights, sorted, look the same turned half round (about the card's middle)."""
    s = sorted(ys)
    return all(abs(a + b - 1.0) <= level for a, b in zip(s, reversed(s), strict=True))


def layout_rank(centres: Sequence[tuple[float, float]], level: float = LEVEL) -> str | None:
    """The rank whose layout the pips at ``centres`` (x, y as fractions of the card's
    width and height, long side vertical) make, or ``None`` when they make none;
    ``level``: how far from level or mirrored two pips may be (:data:`LEVEL`).

    >>> off = [(0.46, 0.16), (0.50, 0.46), (0.54, 0.82)]  # a three in an outline off it
    >>> layout_rank(off), layout_rank(off, LEVEL_TO_DENY)
    (None, '3')
    """
    left = sorted(y for x, y in centres if x < SIDE_COLUMN)
    right = sorted(y for x, y in centres if x > 1.0 - SIDE_COLUMN)
    middle = sorted(y for x, y in centres if MIDDLE_COLUMN <= x <= 1.0 - MIDDLE_COLUMN)
    if len(left) + len(middle) + len(right) != len(centres):
        return None
    rank = LAYOUTS.get((len(left), len(middle), len(right)))
    if rank is None:
        return None
    # the side columns are mirror images, each the same turned half round
    if any(abs(a - b) > level for a, b in zip(left, right, strict=True)):
        return None
    if not _mirrored(left, level):
        return None
    if rank == "7":
        # the seven's extra pip sits between the middle and one end of its columns
        return rank if abs(middle[0] - 0.5) > level else None
    if len(middle) == 1:
        return rank if abs(middle[0] - 0.5) <= level else None
    if rank == "8" and any(abs(y - 0.5) <= level for y in middle):
        return None  # an eight's middle pips sit apart, above and below the centre
    return rank if _mirrored(middle, level) else None


def pooled_suit(suit_p: NDArray[np.float32], red: bool | None, least: float,
                lead: float = 3.0) -> str | None:
    """The suit that one card's pips make together (``suit_p``: their suit probabilities,
    a row each, columns in :data:`vision.glyphs.SUITS` order), among the suits of their
    ink's colour (``red``; ``None`` when unclear): each blurred pip alone may be unclear,
    and all are one suit. ``None`` unless one suit has at least ``least`` on average and
    ``lead`` times the other suit of that colour. (A small card's blurred pips give most
    of their probability to no suit at all, but hardly any to the wrong one.)

    >>> hearts_or_diamonds = np.array([[0.1, 0.1, 0.7, 0.1], [0.1, 0.1, 0.6, 0.2]])
    >>> pooled_suit(hearts_or_diamonds, True, 0.6)
    'H'
    >>> pooled_suit(hearts_or_diamonds, None, 0.6) is None  # colour unclear
    True
    >>> pooled_suit(np.array([[0.3, 0.2, 0.0, 0.0]]), False, 0.25) is None  # no lead
    True
    """
    if red is None:
        return None
    fits = np.array([(s in RED_SUITS) == red for s in SUITS])
    mean = np.where(fits, suit_p.mean(axis=0), 0.0)
    first, second = np.sort(mean)[::-1][:2]
    if first < least or first < lead * second:
        return None
    return SUITS[int(np.argmax(mean))]


PIP_SIZED = 0.4
"""Least share of the largest blob's area for a blob to count as pip-sized
(:func:`pip_sized`): a two's index signs are a tenth of its pips' area (a real 2H lying
sideways on an oblique photo, its index blurred past reading), a six's corner pips as
large as its middle ones."""


def pip_sized(areas: Sequence[int]) -> int:
    """How many blobs (their ``areas``, corners included) are about a pip's size: a face
    that shows a two's layout with more such blobs is another rank's, seen sideways with
    its corner pips left out as indices.

    >>> pip_sized([250, 22, 257, 23]), pip_sized([250, 240, 260, 255, 248, 251])
    (2, 6)
    >>> pip_sized([])
    0
    """
    most = max(areas, default=0)
    return sum(a >= PIP_SIZED * most for a in areas) if most else 0
