"""Cards spread in a row under a card found, each read by the index corner its strip shows.

Collector's collected cards and a hand laid down lie spread so that each card's index shows:
every card the same size and turned alike, each shifted by about one step from the card
over it. The frame's first look finds the card on top; the strips beside it have no
outline of their own, and their corners, a step apart, crowd each other
(:mod:`vision.covered` looks for one corner at a time and finds few). Here each card
under the top one is that card shifted by a step: the step that puts the sides it shows
on the frame's edges. Card after card is placed so (the step may vary a little from one
to the next), and each one's index corner in view is read alone, what lies under the
cards over it blanked, named only where it reads surely (:func:`vision.covered._index_at_corner`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import CARD_ASPECT, Quad, edge_mask, portrait
from vision.sides import side_lengths

Image = NDArray[np.uint8]
Region = tuple[int, int, int, int]

STEP_RANGE = (0.12, 0.9)
"""Least and most step between two cards of a row, along either side, as a fraction of
that side: less, a card's own edge and its shadow pass for a card under it; more, the
card under it shows whole and has an outline of its own."""

VIEW_SCALE = 0.5
"""Scale of the card's own view in which its first step is looked for (to the frame)."""

FIRST_STEP_GRID = 2
"""Spacing (pixels of that view) of the first steps tried, on the edges widened to match;
each is then found to the pixel of the frame."""

NEXT_STEP_REACH = 6.0
"""How far (pixels, each way) the next card's step may differ from the one before it."""

OUTLINE_SPACING = 3.0
"""Spacing (pixels) of the points along a card's sides at which edges are looked for."""

SIDES_ON_EDGES = 0.8
"""Least share of a card's sides in view that must lie on the frame's edges."""

NEAR_BEST = 0.1
"""Least share of sides on edges, below the best step's, for a shorter step to be taken."""

LEAST_SIDE_SHOWN = 0.6
"""Least length of a card's sides in view, in the card's short side (a card that shows
less has no strip to read)."""

CLEAR_OF_ABOVE = 3.0
"""Distance (pixels) from the cards over it within which a card's side is not looked at:
their own edges and shadows lie there."""

FIRST_STEPS = 4
"""Most first steps from the top card along which a row is followed."""

DISTINCT_STEPS = 0.1
"""Least difference of two first steps (across and down together, in the card's short
side) for both to be followed."""

MOST_CARDS = 12
"""Most cards in one row under its top card."""


ROW_OUTLINE = 1.6
"""Least long side of an outline, in its short side, for it to be taken for the outline
of a row of cards (a card's is 1.4, a tilted camera's up to about 1.5)."""


def row_ends(outline: Quad) -> list[Quad]:
    """The cards at the two ends of ``outline`` where it is a row's (:data:`ROW_OUTLINE`),
    each as wide as the outline: first those of a row spread along the cards' short side
    (the outline's width is a card's height), then along their long side. The card on top
    of a row lies whole at one of its ends, and a row whose cards' sides over each other
    show no edge is outlined so whole.

    >>> ends = row_ends(np.float32([[0, 0], [300, 0], [300, 140], [0, 140]]))
    >>> [(round(float(e[:, 0].min())), round(float(e[:, 0].max()))) for e in ends[:2]]
    [(0, 100), (200, 300)]
    >>> row_ends(np.float32([[0, 0], [100, 0], [100, 140], [0, 140]]))
    []
    """
    sides = side_lengths(outline)
    k = 0 if sides[0] + sides[2] >= sides[1] + sides[3] else 1
    p0, p1, p2, p3 = (outline[(k + j) % 4] for j in range(4))
    length = float(sides[k] + sides[k + 2]) / 2
    width = float(sides[k + 1] + sides[(k + 3) % 4]) / 2
    if length < ROW_OUTLINE * width:
        return []
    near, far = (p1 - p0) / max(length, 1e-6), (p2 - p3) / max(length, 1e-6)
    out = []
    for along in (width / CARD_ASPECT, width * CARD_ASPECT):
        if along > 0.9 * length:
            continue
        out.append(np.array([p0, p0 + along * near, p3 + along * far, p3], np.float32))
        out.append(np.array([p1 - along * near, p1, p2, p2 - along * far], np.float32))
    return out


def row_top(outline: Quad, read: Callable[[Quad], tuple[str | None, float, Any]],
            named: set[str]) -> tuple[str, Quad, float] | None:
    """The card on top of a row that ``outline`` (unread) may be round, its outline and
    how sure ``read`` (both its index corners must agree) is of it: the first card at one
    of :func:`row_ends` that reads, none of those ``named``; ``None`` where none reads."""
    for end in row_ends(outline):
        quad = portrait(end)
        card, score, _ = read(quad)
        if card is not None and card not in named:
            return card, quad, score
    return None


class RegionEdges(NamedTuple):
    """The frame's edges in a region, and where the region lies in the frame."""

    mask: NDArray[np.bool_]
    origin: NDArray[np.float32]  # the region's top-left corner in the frame


def edges_in(image: Image, region: Region) -> RegionEdges:
    """The frame's edges (:func:`vision.detect.edge_mask`) in ``region`` (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = region
    gray = image[y0:y1, x0:x1]
    if gray.ndim == 3:
        gray = np.asarray(cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY), np.uint8)
    return RegionEdges(edge_mask(np.asarray(gray, np.uint8)) > 0,
                       np.array([x0, y0], np.float32))


def rows_under(edges: RegionEdges, top: Quad, others: list[Quad]) -> list[Quad]:
    """The cards spread in a row under ``top`` (a card found in the region of ``edges``),
    nearest first, each where its sides in view lie on the frame's edges. ``others`` are
    the other cards found: a card of the row lies under none of them."""
    card = np.asarray(top - edges.origin, np.float32)
    rest = [np.asarray(q - edges.origin, np.float32) for q in others]
    # of the first steps that fit, the one the most cards follow: a line printed on the card
    # under the top one (a court's frame) fits as well as its side, but no row follows it
    rows = [_row_from(edges.mask, card, rest, _best_step(
        edges.mask, card, [card], rest, _steps_near(step, FIRST_STEP_GRID / VIEW_SCALE)))
        for step in _first_steps(edges.mask, card, rest)]
    return [np.asarray(under + edges.origin, np.float32)
            for under in max(rows, key=len, default=[])]


def _row_from(edges: NDArray[np.bool_], card: Quad, others: list[Quad],
              step: NDArray[np.float32] | None) -> list[Quad]:
    """The cards under ``card``, the first ``step`` from it, each next one about a step
    from the one before where its sides in view lie on ``edges``."""
    above = [card]
    while step is not None and len(above) <= MOST_CARDS:
        above.append(np.asarray(above[-1] + step, np.float32))
        step = _best_step(edges, above[-1], above, others, _steps_near(step))
    return above[1:]


def _first_steps(edges: NDArray[np.bool_], card: Quad, others: list[Quad],
                 ) -> list[NDArray[np.float32]]:
    """The likeliest steps from ``card`` to the card under it (at most
    :data:`FIRST_STEPS`, the shortest first), none where no card lies so.

    Every step is tried, :data:`FIRST_STEP_GRID` pixels apart, in the card's own view (the
    frame's edges warped square to it, at :data:`VIEW_SCALE`): there each side of the card
    under it is a row or a column, and how much of it lies on edges is a difference of two
    running sums."""
    sides = VIEW_SCALE * side_lengths(card)
    wide, tall = round(float(sides[0] + sides[2]) / 2), round(float(sides[1] + sides[3]) / 2)
    pad_x, pad_y = math.ceil(STEP_RANGE[1] * wide) + 2, math.ceil(STEP_RANGE[1] * tall) + 2
    size = (wide + 2 * pad_x, tall + 2 * pad_y)
    square = np.array([[pad_x, pad_y], [pad_x + wide, pad_y], [pad_x + wide, pad_y + tall],
                       [pad_x, pad_y + tall]], np.float32)
    to_view = cv2.getPerspectiveTransform(card, square)
    # (any edge in a pixel of the view, widened by a pixel each way: the steps tried are
    # FIRST_STEP_GRID apart)
    view = np.asarray(cv2.dilate(np.asarray(cv2.warpPerspective(
        edges.astype(np.uint8), to_view, size, flags=cv2.INTER_LINEAR) > 0, np.uint8),
        np.ones((3, 3), np.uint8)), np.int32)
    in_frame = np.asarray(cv2.warpPerspective(np.ones(edges.shape, np.uint8), to_view, size,
                                              flags=cv2.INTER_NEAREST), np.bool_)
    down_sums = np.vstack([np.zeros((1, size[0]), np.int32), np.cumsum(view, axis=0)])
    across_sums = np.hstack([np.zeros((size[1], 1), np.int32), np.cumsum(view, axis=1)])
    a, b = np.meshgrid(np.arange(-pad_x + 2, pad_x - 1, FIRST_STEP_GRID),
                       np.arange(-pad_y + 2, pad_y - 1, FIRST_STEP_GRID))
    keep = (np.abs(a) >= STEP_RANGE[0] * wide) | (np.abs(b) >= STEP_RANGE[0] * tall)
    a, b = a[keep], b[keep]
    left, top = pad_x + a, pad_y + b
    # the two long sides are columns of the view, the two short ones rows (of its sums
    # turned over)
    on_long, seen_long = _sides_on_edges(down_sums, (left, pad_x, wide), (top, pad_y, tall))
    on_short, seen_short = _sides_on_edges(across_sums.T, (top, pad_y, tall),
                                           (left, pad_x, wide))
    seen = seen_long + seen_short
    share = (on_long + on_short) / np.maximum(seen, 1)
    whole = (in_frame[top, left] & in_frame[top, left + wide - 1]
             & in_frame[top + tall - 1, left] & in_frame[top + tall - 1, left + wide - 1])
    good = whole & (seen >= LEAST_SIDE_SHOWN * wide) & (share >= SIDES_ON_EDGES)
    if not good.any():
        return []
    # of the steps nearly as good as the best, the shortest first: the card two steps down
    # shows its sides as well as the next
    near_best = good & (share >= float(share[good].max()) - NEAR_BEST)
    from_view = np.linalg.inv(to_view)
    taken: list[int] = []
    out: list[NDArray[np.float32]] = []
    for k in np.argsort(np.where(near_best, np.hypot(a, b), np.inf)):
        if not near_best[k] or len(out) == FIRST_STEPS:
            break
        if any(abs(a[k] - a[j]) + abs(b[k] - b[j]) < DISTINCT_STEPS * wide for j in taken):
            continue
        under = np.asarray(cv2.perspectiveTransform(
            (square + np.array([a[k], b[k]], np.float32)).reshape(1, 4, 2), from_view)[0],
            np.float32)
        if not any(_covers_much(q, under) for q in others):
            taken.append(int(k))
            out.append(np.asarray((under - card).mean(axis=0), np.float32))
    return out


def _sides_on_edges(sums: NDArray[np.int32],
                    across: tuple[NDArray[np.int64], int, int],
                    along: tuple[NDArray[np.int64], int, int],
                    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """How many pixels of two opposite sides of each card tried lie on edges, and how many
    are in view, from the running sums of the view's edges down each of its columns
    (``sums``, a row of zeros first). Each side is a column: ``across`` gives where each
    card's first side lies, where the card over it does, and how far apart the two sides
    are; ``along``, where each card starts along them, where the card over it does, and
    how long they are (their rounded tenths at each end left out)."""
    first, over_at, apart = across
    start, over_from, length = along
    m = round(VIEW_SCALE * CLEAR_OF_ABOVE)
    on = np.zeros(len(first), np.int64)
    seen = np.zeros(len(first), np.int64)
    for line in (first, first + apart):
        blocked = (line >= over_at - m) & (line <= over_at + apart + m)
        for lo, hi in _in_view(start + round(0.1 * length), start + length - round(0.1 * length),
                               blocked, over_from - m, over_from + length + m):
            on += sums[hi, line] - sums[lo, line]
            seen += hi - lo
    return on, seen


def _in_view(lo: NDArray[np.int64], hi: NDArray[np.int64], blocked: NDArray[np.bool_],
             block_lo: int, block_hi: int,
             ) -> list[tuple[NDArray[np.int64], NDArray[np.int64]]]:
    """The parts of the spans ``lo``-``hi`` outside ``block_lo``-``block_hi`` where
    ``blocked`` (each span its own), as two spans each (empty ones from ``lo`` to ``lo``)."""
    before = np.where(blocked, np.minimum(hi, block_lo), hi)
    after = np.where(blocked, np.maximum(lo, block_hi), hi)
    return [(lo, np.maximum(before, lo)), (np.minimum(after, hi), hi)]


def _steps_near(step: NDArray[np.float32], reach: float = NEXT_STEP_REACH,
                ) -> NDArray[np.float32]:
    """Steps within ``reach`` of ``step`` (pixels, each way), a pixel apart."""
    d = np.arange(-reach, reach + 1e-6, 1.0, dtype=np.float32)
    dx, dy = np.meshgrid(d, d)
    return np.asarray(step + np.column_stack([dx.ravel(), dy.ravel()]), np.float32)


def _best_step(edges: NDArray[np.bool_], card: Quad, above: list[Quad], others: list[Quad],
               steps: NDArray[np.float32]) -> NDArray[np.float32] | None:
    """Of ``steps``, the one that puts the card under ``card`` (``card`` shifted by it) with
    the most of its sides in view on ``edges``, where that is :data:`SIDES_ON_EDGES` or
    more; its sides in view are those clear of the cards ``above`` it (and of ``others``:
    it lies under none of them)."""
    points = _outline_points(card)
    h, w = edges.shape
    short = float(min(side_lengths(card)))
    least = LEAST_SIDE_SHOWN * short / OUTLINE_SPACING
    shifted = points[None, :, :] + steps[:, None, :]
    flat = shifted.reshape(-1, 2)
    inside = (flat[:, 0] >= 0) & (flat[:, 0] < w) & (flat[:, 1] >= 0) & (flat[:, 1] < h)
    clear = inside.copy()
    for q in above:
        clear &= ~_near_or_in(q, flat)
    on_edge = np.zeros(len(flat), np.bool_)
    xs = np.clip(np.round(flat[:, 0]).astype(np.int64), 0, w - 1)
    ys = np.clip(np.round(flat[:, 1]).astype(np.int64), 0, h - 1)
    on_edge[clear] = edges[ys[clear], xs[clear]]
    shown = clear.reshape(len(steps), -1).sum(axis=1)
    share = on_edge.reshape(len(steps), -1).sum(axis=1) / np.maximum(shown, 1)
    # (a card wholly in the frame: the part of a card off the frame shows no side)
    whole = inside.reshape(len(steps), -1).all(axis=1)
    good = whole & (shown >= least) & (share >= SIDES_ON_EDGES)
    for k in np.argsort(-share):
        if not good[k]:
            break
        if not any(_covers_much(q, np.asarray(card + steps[k], np.float32)) for q in others):
            return np.asarray(steps[k], np.float32)
    return None


def _covers_much(over: Quad, card: Quad) -> bool:
    """Whether ``over`` lies on a tenth or more of ``card``."""
    return bool(cv2.intersectConvexConvex(over, card)[0] > 0.1 * cv2.contourArea(card))


def _outline_points(card: Quad) -> NDArray[np.float32]:
    """Points along ``card``'s four sides, :data:`OUTLINE_SPACING` apart, its rounded
    corners (a tenth of each side) left out."""
    out = []
    for k in range(4):
        a, b = card[k], card[(k + 1) % 4]
        n = max(int(float(np.linalg.norm(b - a)) / OUTLINE_SPACING), 2)
        t = np.linspace(0.1, 0.9, n, dtype=np.float32)[:, None]
        out.append(a + t * (b - a))
    return np.asarray(np.concatenate(out), np.float32)


def _near_or_in(quad: Quad, points: NDArray[np.float32]) -> NDArray[np.bool_]:
    """Which ``points`` lie inside ``quad`` or within :data:`CLEAR_OF_ABOVE` of it.

    >>> card = np.float32([[0, 0], [10, 0], [10, 14], [0, 14]])
    >>> _near_or_in(card, np.float32([[5, 5], [12, 5], [20, 5]])).tolist()
    [True, True, False]
    """
    # a convex quad: inside lies on one side of every side, the same for all four
    (ax, ay), (bx, by) = quad[1] - quad[0], quad[2] - quad[1]
    turn = 1.0 if float(ax * by - ay * bx) > 0 else -1.0
    inside = np.ones(len(points), np.bool_)
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        side = b - a
        normal = turn * np.array([-side[1], side[0]], np.float32) / max(
            float(np.linalg.norm(side)), 1e-6)
        inside &= (points - a) @ normal >= -CLEAR_OF_ABOVE
    return inside
