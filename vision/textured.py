"""How busy a table's texture is: the share of a frame that its edges cover.

A printed cloth, wood grain, granite or burlap covers most of a frame with edges; the
first look's outlines of cards there run into the table's own (a card left out, or
outlined askew and unread), where the look at the frame halved, its texture finer than
it can resolve, often outlines them cleanly. Our own tables' frames are covered under
9 % halved; real surfaces' (GIMP's photographs, :mod:`vision.real_tables`) 5-87 %.

A tiled floor's own tiles may be outlined as cards, unread: inside such an outline lies
the table itself, its colour the colour round it (:func:`the_table_inside`): a coloured
tile's even colour, or a white marble tile's veins with no ink on them.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import _contains, edge_mask

Image = NDArray[np.uint8]
Quad = NDArray[np.float32]

TEXTURED = 0.15
"""Least share of a frame halved that its (dilated) edges cover, for its table to be
textured (:func:`textured_table`). The renderer's tables in the bench's rows: 0.006-0.09;
the real surfaces: pine 0.13-0.21, paper 0.10-0.24, printed cloth 0.64-0.68, burlap
0.86-0.88 (smooth cork, marble and crinkled paper 0.05-0.06)."""


def textured_table(image: Image) -> bool:
    """Whether the frame's table is textured (:data:`TEXTURED`), judged on the frame halved
    (a quarter of the pixels: about a millisecond).

    >>> flat = np.full((120, 160, 3), 90, np.uint8)
    >>> busy = np.random.default_rng(0).integers(0, 255, (120, 160, 3), dtype=np.uint8)
    >>> textured_table(flat), textured_table(busy)
    (False, True)
    """
    gray = np.asarray(image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY),
                      np.uint8)
    h, w = gray.shape
    halved = np.asarray(cv2.resize(gray, (w // 2, h // 2), interpolation=cv2.INTER_AREA),
                        np.uint8)
    return float(np.count_nonzero(edge_mask(halved))) > TEXTURED * halved.size


TABLE_ALIKE = 30.0
"""Most distance (8-bit L*a*b*) between the median colours inside an outline and round it
for the inside to be the table's (:func:`the_table_inside`). Terracotta tiles outlined
on a real terracotta floor: 1-26; unread cards: 8-150, the white paper of those under 30
on white marble uncoloured (chroma 0-8)."""

SLIVER_ALIKE = 45.0
"""Most distance (as :data:`TABLE_ALIKE`) between the median colours inside an outline too
small to read and round it for a coloured inside to be the table's: a parquet's strips
outlined on the empty floor, 32-37 (wood's grain is no even colour)."""

EVEN_INSIDE = 30.0
"""Most spread of lightness (10th to 90th percentile, 8-bit L*) inside an outline for its
inside to be even: terracotta tiles 9-15; a card's ink on its paper, 100-240 (0 where
the paper alone shows, white, uncoloured)."""

COLOURED = 30.0
"""Least chroma (8-bit a*, b* from grey) of an outline's inside for it to be no paper:
terracotta 44-64; the paper of unread cards 0-23."""

VEINED = 20.0
"""Least spread of lightness (as :data:`EVEN_INSIDE`) inside an uncoloured outline for it to
be veined like a stone: white marble tiles outlined on a real marble floor (GIMP's
marble2, a surface no rule here was fitted on), 28-47; the bare paper of a white card, a
few levels of noise."""

VEINS_SLACK = 8.0
"""How much more spread of lightness an uncoloured outline's inside may have than the
table round it (over the same percentiles) for it to be the table's veins: marble tiles
up to 4 more; a real photo's card, hazed to 60 % contrast and unread, 16 more."""

NO_INK, INK_BELOW = 0.03, 60.0
"""Most share of an uncoloured outline's inside darker than the table round it by
:data:`INK_BELOW` (8-bit L*) for it to carry no print: marble tiles 0-0.021 (veins); the
unread cards on the real surfaces and in the real photos, 0.04-0.4 but under haze."""

INSIDE, ROUND = 0.8, (1.1, 1.4)
"""What an outline's inside is (the outline shrunk to this, about its centre) and what lies
round it (grown from the first to the second: clear of its edge and shadow)."""


def the_table_inside(image: Image, quad: Quad, sliver: bool = False) -> bool:
    """Whether what lies inside an outline (``quad``, in a BGR ``image``) is the table's own
    surface, no card: of the colour round it (:data:`TABLE_ALIKE`) and either even
    (:data:`EVEN_INSIDE`) and coloured (:data:`COLOURED`: no paper, no white card on a white
    table), or uncoloured, veined (:data:`VEINED`) no more than the table round it
    (:data:`VEINS_SLACK`) and without ink (:data:`NO_INK`: a card's print). A terracotta
    floor's tiles, and a white marble floor's, were outlined and left unread so where cards
    lay and on the empty floor. A ``sliver`` (an outline too small to read) that is
    coloured and near the table's colour (:data:`SLIVER_ALIKE`) is the table's, grained
    or not: a parquet's strips.

    >>> tiles = np.zeros((200, 200, 3), np.uint8); tiles[:] = (60, 110, 200)  # terracotta
    >>> tile = np.float32([[70, 60], [130, 60], [130, 140], [70, 140]])
    >>> card = tiles.copy(); card[60:140, 70:130] = 245; card[70:80, 75:82] = 20
    >>> the_table_inside(tiles, tile), the_table_inside(card, tile)
    (True, False)
    """
    if image.ndim != 3:
        return False
    q = np.asarray(quad, np.float32)
    centre = q.mean(axis=0)
    h, w = image.shape[:2]
    grown = centre + (q - centre) * ROUND[1]
    x0, y0 = (max(int(v), 0) for v in np.floor(grown.min(axis=0)))
    x1, y1 = (min(int(v) + 1, side) for v, side in zip(np.ceil(grown.max(axis=0)), (w, h),
                                                        strict=True))
    if x1 - x0 < 3 or y1 - y0 < 3:
        return False
    lab = cv2.cvtColor(np.ascontiguousarray(image[y0:y1, x0:x1]), cv2.COLOR_BGR2LAB)

    def filled(scale: float) -> NDArray[np.uint8]:
        mask = np.zeros(lab.shape[:2], np.uint8)
        corners = centre + (q - centre) * scale - np.array([x0, y0], np.float32)
        cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 1)
        return mask

    inside = lab[filled(INSIDE) > 0].astype(np.float32)
    round_it = lab[(filled(ROUND[1]) > 0) & (filled(ROUND[0]) == 0)].astype(np.float32)
    if len(inside) < 20 or len(round_it) < 20:
        return False
    mine, table = np.median(inside, axis=0), np.median(round_it, axis=0)
    apart = float(np.linalg.norm(mine - table))
    coloured = float(np.hypot(mine[1] - 128, mine[2] - 128)) >= COLOURED
    if sliver and coloured and apart <= SLIVER_ALIKE:
        return True
    if apart > TABLE_ALIKE:
        return False
    spread = _spread(inside[:, 0])
    if coloured:
        return spread <= EVEN_INSIDE
    # uncoloured: a stone's veins, as varied as round it, never a card's print
    inked = float(np.count_nonzero(inside[:, 0] < table[0] - INK_BELOW)) / len(inside)
    return (VEINED <= spread <= _spread(round_it[:, 0]) + VEINS_SLACK
            and inked <= NO_INK)


def _spread(lightness: NDArray[np.float32]) -> float:
    """Lightness's spread, 10th to 90th percentile."""
    low, high = np.percentile(lightness, (10, 90))
    return float(high - low)


def round_named_cards(quad: Quad, named: list[Quad]) -> bool:
    """Whether an unread outline (``quad``) holds the centres of two or more cards named
    (``named``): the edge of a mat, of a textured table or of the frame's vignette round the
    cards, no card (its "?" lay over the whole table on a burl wood, the cards read inside).

    >>> table = np.float32([[10, 10], [630, 10], [630, 470], [10, 470]])
    >>> card = np.float32([[100, 100], [160, 100], [160, 184], [100, 184]])
    >>> round_named_cards(table, [card, card + 200]), round_named_cards(table, [card])
    (True, False)
    """
    return sum(_contains(quad, q.mean(axis=0)) for q in named) >= 2
