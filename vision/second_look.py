"""A second, more sensitive look at the edges where the frame's first look fell short.

A light card on a light table can show only its shadowed sides, or only a panel
printed on it, to the edge thresholds of the whole frame; lower thresholds everywhere
would merge small cards with their shadows. So only such places are looked at again:
round a card-shaped hull that no card found explains (:func:`cards_left_open`), and
round a panel that could not be read as a card (:func:`cards_round_panel`,
:func:`card_round_print`). A card only two of whose sides show at all is guessed from
them (:func:`cards_of_two_sides`), and so is one three of whose sides show, its outline
left open by the fourth.
"""

from __future__ import annotations

from collections.abc import Iterator

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.canny import canny
from vision.detect import (
    EDGE_HIGH,
    LARGE_CARD,
    SMALL_PANEL,
    DetectorSettings,
    Image,
    Quad,
    _area_limits,
    _contains,
    _iou,
    _median,
    _on_frame,
    _panel_of,
    _print_on,
    _refined,
    _square_cornered,
    inside,
    order_clockwise,
    quad_from_contour,
)
from vision.sides import side_lengths

SECOND_LOOK_LOW = 0.15
"""Canny's lower threshold (of the median brightness) when looking again round a panel."""


def cards_round_panel(image: Image, panel: NDArray[np.floating],
                      settings: DetectorSettings | None = None) -> list[Quad]:
    """Card outlines round ``panel`` (a quad that may be a panel printed on a card),
    found by a second, more sensitive look at the edges just round it.

    On a light table a light card's sides without a drop shadow can be too faint for
    the edge thresholds of the whole frame, which then finds only a panel printed on
    the card. Lower thresholds everywhere would merge small cards with their shadows,
    so only this neighbourhood is looked at again (by a caller that could not read
    the panel as a card).
    """
    settings = settings or DetectorSettings()
    inner = np.asarray(panel, np.float32)
    found = []
    shortest = cv2.arcLength(inner, True)  # a card round the panel goes further round
    for contour, q in _outlines_near(image, inner, 1.8, shortest, settings, SECOND_LOOK_LOW):
        if _panel_of(inner, q):
            found.append((cv2.contourArea(q), _refined(contour, q)))
    found.sort(key=lambda t: -t[0])  # the card before a printed band round the panel
    return [q for _, q in found]


def card_round_print(image: Image, quad: Quad, settings: DetectorSettings) -> Quad | None:
    """The card that ``quad``, an outline whose index could not be found, may be printed
    on: the hull of the faint edges round it, or ``None``.

    In haze, or overexposed, a light card's sides on a light table are a few grey levels
    from it, and the frame's edges outline only the panel printed round its pips, whose
    own corners have no index. A fainter look round the panel finds the card's sides,
    but broken where a rounded corner or an index touching the edge meets them, so no
    contour closes: the convex hull of the long edges there, the panel's own left out,
    outlines the card (:func:`cards_round_panel` needs a closed one)."""
    h, w = image.shape[:2]
    looked = _edges_round(image, quad, ROUND_PRINT_REACH, ROUND_PRINT_FAINT, ROUND_PRINT_FAINT)
    if looked is None:
        return None
    edges, x0, y0 = looked
    # the panel's own sides, and what is printed in it, are no side of the card
    centre = quad.mean(axis=0)
    panel = centre + (quad - centre) * 1.08 - np.array([x0, y0], np.float32)
    cv2.fillConvexPoly(edges, np.round(panel).astype(np.int32), 0)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(edges, connectivity=8)
    shortest = 0.5 * float(side_lengths(quad)[:2].min())
    # (specks of the table's grain, a glyph of the index: too short for a side)
    long = [i for i in range(1, count) if max(stats[i, 2], stats[i, 3]) >= shortest]
    if not long:
        return None
    ys, xs = np.nonzero(np.isin(labels, long))
    hull = np.asarray(cv2.convexHull(np.column_stack([xs + x0, ys + y0]).astype(np.int32)),
                      np.int32)
    card = quad_from_contour(hull, settings, float(h * w), refine=False)
    # (square to the card, with a border on every side: the hull of two cards' edges round
    # a court's picture on a pile lies askew to it)
    if card is None or _on_frame(card, w, h) or not _panel_of(quad, card, SMALL_PANEL):
        return None
    return card


ROUND_PRINT_REACH = 2.3
"""How far round an outline without an index :func:`card_round_print` looks (times its
size): a panel may be a fifth of its card (:data:`vision.detect.SMALL_PANEL`)."""

ROUND_PRINT_FAINT = 0.15
"""Canny's thresholds, both (of the median brightness there), when looking round an
outline without an index for the card it is printed on: a hazy card's side is a step of
15-20 grey levels."""


def _edges_round(image: Image, quad: Quad, reach: float, low: float, high: float,
                 blur: int = 5) -> tuple[Image, int, int] | None:
    """Canny's edges in ``quad`` grown ``reach`` times about its centre, and where that
    region starts (x, y), or ``None`` where it is too small to look at. ``low`` and
    ``high``: Canny's thresholds as fractions of the median brightness there, after a
    ``blur`` px Gaussian. ``image`` is grey or BGR; only the region is converted."""
    h, w = image.shape[:2]
    centre = quad.mean(axis=0)
    region = centre + (quad - centre) * reach
    x0, y0 = np.maximum(np.floor(region.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(region.max(axis=0)).astype(int) + 1, [w, h])
    if x1 - x0 < 16 or y1 - y0 < 16:
        return None
    roi = image[y0:y1, x0:x1]
    gray = roi if roi.ndim == 2 else cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY)
    smooth = cv2.GaussianBlur(gray, (blur, blur), 0)
    med = _median(np.asarray(smooth, np.uint8))  # of the card and the table beside it
    edges = canny(np.asarray(smooth, np.uint8), max(8.0, low * med), max(16.0, high * med),
                  l2gradient=True)
    return edges, int(x0), int(y0)


def _outlines_near(image: Image, quad: Quad, reach: float, shortest: float,
                   settings: DetectorSettings, low: float, blur: int = 5,
                   high: float = EDGE_HIGH) -> list[tuple[NDArray[np.int32], Quad]]:
    """Card-shaped outlines (contour and rough quad, in image pixels) found by a second,
    more sensitive look at the edges in ``quad`` grown ``reach`` times about its centre
    (``low``: Canny's lower threshold as a fraction of the median brightness there).
    ``image`` is grey or BGR; only the region looked at is converted."""
    h, w = image.shape[:2]
    looked = _edges_round(image, quad, reach, low, high, blur)
    if looked is None:
        return []
    edges, x0, y0 = looked
    edges = np.asarray(cv2.dilate(edges, np.ones((3, 3), np.uint8)), np.uint8)
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    out = []
    for c in contours:
        if len(c) < shortest:
            continue
        contour = np.asarray(c, np.int32) + np.array([x0, y0], np.int32)
        q = quad_from_contour(contour, settings, float(h * w), refine=False)
        if q is not None and not _on_frame(q, w, h) and not (
                cv2.contourArea(q) > LARGE_CARD * h * w and _square_cornered(contour, q)):
            out.append((contour, q))
    return out


def _explained(q: Quad, cards: list[Quad]) -> bool:
    """Whether ``q`` overlaps one of ``cards`` (it is that card, a part of it, or round it)."""
    centre = q.mean(axis=0)
    return any(_iou(q, k) > 0.2 or _contains(k, centre) or _contains(q, k.mean(axis=0))
               for k in cards)


def cards_left_open(gray: Image, outlines: list[NDArray[np.int32]], kept: list[Quad],
                     settings: DetectorSettings) -> list[Quad]:
    """Cards whose outline did not close, found by a second look round card-shaped hulls
    that no card found explains.

    A light card on a light table may show only its two shadowed sides to the frame's
    edge thresholds, and in the brightness mask its unlit middle leaks out through the
    faint sides: either way the outline's hull is card-shaped but it encloses nothing.
    Only such places are looked at again, more sensitively (lower thresholds everywhere
    merge small cards with their shadows), and only a closed card outline there counts.
    """
    h, w = gray.shape[:2]
    image_area = float(h * w)
    # one deck on one table: an outline far smaller than the cards found is a panel or a
    # fragment of a card that others cover, not a card
    smallest = (OPEN_LEAST_SIZE * float(np.median([cv2.contourArea(k) for k in kept]))
                if kept else 0.0)
    looked: list[Quad] = []
    cards: list[Quad] = []
    for contour in outlines:
        x, y, bw, bh = cv2.boundingRect(contour)
        if max(bw, bh) > 3 * min(bw, bh):  # no card, however turned or tilted
            continue
        middle = np.array([x + bw / 2, y + bh / 2], np.float32)
        inside = [k for k in kept if _contains(k, middle)]  # a found card's print or halo
        if inside and bw * bh < 1.5 * max(cv2.contourArea(k) for k in inside):
            continue  # (cheap test first: only an outline larger than them may be a card)
        # every few points suffice to place the second look, at a fraction of the cost
        hull = np.asarray(cv2.convexHull(
            np.ascontiguousarray(contour[::max(1, len(contour) // 96)])), np.int32)
        q = quad_from_contour(hull, settings, image_area, refine=False)
        if q is None or any(_iou(q, k) > 0.5 for k in looked):
            continue
        # a panel printed on a card may be all that was outlined (a dark frame on a light
        # card whose own sides are faint): the card round it is still to be found
        others = [k for k in kept if not _print_on(k, q)]
        if any(_contains(k, middle) for k in others) or _explained(q, others + cards):
            continue
        if len(looked) == MAX_OPEN_LOOKS:  # a cluttered table: bound the frame's time
            break
        looked.append(q)
        # noise breaks a faint side's edge into pieces; smoothing more may join them
        # (or blur a corner away), so the usual smoothing is tried first
        for blur, high in OPEN_LOOKS:
            near = [(_iou(rough, q), c, rough) for c, rough in
                    _outlines_near(gray, q, OPEN_REACH, 0.7 * cv2.arcLength(q, True), settings,
                                   OPEN_LOOK_LOW, blur, high)]
            iou, c, rough = max(near, key=lambda t: t[0], default=(0.0, hull, q))
            if (iou >= 0.7 and cv2.contourArea(rough) >= smallest
                    and not _explained(rough, others + cards)):
                cards.append(_refined(c, rough))
                break
    return cards


OPEN_REACH = 1.25
"""How far round a card-shaped hull the second look reaches (times its size)."""

OPEN_LOOK_LOW = 0.1
"""Canny's lower threshold (of the median brightness) when looking again round a hull."""

OPEN_LEAST_SIZE = 0.5
"""Least area of a card found by a second look, as a fraction of the median card found."""

MAX_OPEN_LOOKS = 4
"""Most hulls looked at again in one frame (overlapping cards and hands leave many)."""

OPEN_LOOKS = ((5, EDGE_HIGH), (7, EDGE_HIGH), (5, 0.15))
"""Gaussian smoothing kernel and Canny's upper threshold (of the median brightness) tried,
in turn, when looking again round a hull. The last, fainter look is for a camera out of
focus: blurred 2.5 px, a light card's side on a light table reaches 40-50 (of Canny's L2
gradient) where the usual upper threshold asks for 75 and more (the real photos blurred
2.5 px: 130 -> 147 of 196 read; nothing rendered changed)."""


def cards_of_two_sides(outlines: list[NDArray[np.int32]], cards: list[Quad],
                       image: Image, settings: DetectorSettings) -> list[Quad]:
    """Cards guessed from two of their sides alone: outlines (of the frame's edges) that
    run along two sides of a corner, square enough and in a card's proportions, and
    nothing else. The card is the parallelogram they span (a guess the reader must
    confirm in both corners).

    A white card on white paper lit from one side shows only the two sides that cast a
    shadow; the other two are no edge at any threshold, so no outline closes and the
    hull of the two is a triangle, no card. Its two index corners are the far ends of
    the two sides seen."""
    h, w = image.shape[:2]
    lo, hi = _area_limits(settings, float(h * w))
    found: list[Quad] = []
    for contour in sorted(outlines, key=len, reverse=True)[:TWO_SIDES_LOOKED]:
        x, y, bw, bh = cv2.boundingRect(contour)
        middle = np.array([x + bw / 2, y + bh / 2], np.float32)
        if bw * bh < lo or any(_contains(k, middle) for k in cards):
            continue  # (cheap tests first: a glyph's or a pip's outline, a found card's)
        hull_corners = _hull_corners(contour)
        corner = _two_sides(contour, hull_corners)
        if corner is not None:
            a, b, c = corner
            quad = order_clockwise(np.array([a, b, c, a + c - b], np.float32))
        else:
            three = _three_sides(contour, settings, hull_corners)
            if three is None:
                continue
            quad = three
        if not (lo <= cv2.contourArea(quad) <= hi and inside(quad, image)) or _on_frame(
                quad, w, h):
            continue
        if _explained(quad, cards + found):
            continue
        found.append(quad)
        if len(found) == MAX_TWO_SIDED:
            break
    return found


def _hull_corners(contour: NDArray[np.int32]) -> NDArray[np.int32] | None:
    """The corners of ``contour``'s hull, its polygon within 3 % of its perimeter (``None``
    where the outline is too short to be a card's sides; ``hull_corners`` of
    :func:`_two_sides` and :func:`_three_sides`, found once for both)."""
    if len(contour) < TWO_SIDES_LEAST_POINTS:
        return None
    hull = cv2.convexHull(contour)
    return np.asarray(cv2.approxPolyDP(hull, 0.03 * cv2.arcLength(hull, True), True), np.int32)


def _card_corner(a: NDArray[np.float32], b: NDArray[np.float32], c: NDArray[np.float32],
                 aspect: tuple[float, float]) -> float | None:
    """The shorter of the sides from ``b`` to ``a`` and to ``c`` where they make a card's
    corner: square enough (:data:`TWO_SIDES_SQUARE`), the longer over the shorter within
    ``aspect``; ``None`` otherwise.

    >>> corner = np.float32([[0, 0], [0, 140], [100, 140]])
    >>> _card_corner(*corner, (1.0, 1.9)), _card_corner(*corner, (1.5, 2.0))
    (100.0, None)
    """
    one, other = float(np.linalg.norm(a - b)), float(np.linalg.norm(c - b))
    if abs(float((a - b) @ (c - b))) / (one * other + 1e-9) > TWO_SIDES_SQUARE or not (
            aspect[0] <= max(one, other) / max(min(one, other), 1e-6) <= aspect[1]):
        return None
    return min(one, other)


Point = NDArray[np.float32]


def _card_corners(contour: NDArray[np.int32], hull_corners: NDArray[np.int32] | None,
                  count: int, aspect: tuple[float, float],
                  ) -> Iterator[tuple[Point, Point, Point, float]]:
    """Each corner ``b`` of ``contour``'s hull, where it has ``count`` corners (none
    otherwise), at which the sides to its neighbours ``a`` and ``c`` make a card's corner
    (:func:`_card_corner`), with the shorter side's length. ``hull_corners``: the hull's
    corners where already found (:func:`_hull_corners`)."""
    corners = _hull_corners(contour) if hull_corners is None else hull_corners
    if corners is None or len(corners) != count:
        return
    poly = np.asarray(corners, np.float32).reshape(count, 2)
    for k in range(count):
        a, b, c = poly[k - 1], poly[k], poly[(k + 1) % count]
        shorter = _card_corner(a, b, c, aspect)
        if shorter is not None:
            yield a, b, c, shorter


def _two_sides(contour: NDArray[np.int32], hull_corners: NDArray[np.int32] | None = None,
               ) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.float32]] | None:
    """The far end of one side, the corner and the far end of the other, where
    ``contour`` runs along two sides of a card's corner and nothing else (``None``
    otherwise): its hull a triangle, square at one corner, the two sides in a card's
    proportions (or foreshortened to a square), every point near one of them.

    >>> band = np.zeros((200, 200), np.uint8)
    >>> _ = cv2.polylines(band, [np.int32([[20, 20], [20, 160], [120, 160]])], False, 255, 3)
    >>> outline = max(cv2.findContours(band, cv2.RETR_EXTERNAL,
    ...                                cv2.CHAIN_APPROX_NONE)[0], key=len)
    >>> end, corner, other_end = _two_sides(outline)
    >>> corner.tolist(), sorted([end.tolist(), other_end.tolist()])
    ([18.0, 160.0], [[20.0, 18.0], [120.0, 162.0]])
    >>> _ = cv2.line(band, (20, 20), (120, 160), 255, 3)  # a triangle outlined: no card
    >>> _two_sides(max(cv2.findContours(band, cv2.RETR_EXTERNAL,
    ...                                 cv2.CHAIN_APPROX_NONE)[0], key=len)) is None
    True
    """
    points = np.asarray(contour, np.float32).reshape(-1, 2)
    for a, b, c, shorter in _card_corners(contour, hull_corners, 3, TWO_SIDES_ASPECT):
        # distance of every point from the nearer side: an L, not a filled triangle
        off = np.minimum(_off_line(points, b, a), _off_line(points, b, c))
        if float((off <= TWO_SIDES_BAND * shorter).mean()) >= TWO_SIDES_ON:
            return a, b, c
    return None


def _three_sides(contour: NDArray[np.int32], settings: DetectorSettings,
                 hull_corners: NDArray[np.int32] | None = None) -> Quad | None:
    """The card two whole sides of which ``contour`` follows, at a corner, and a third in
    part (``None`` otherwise): its hull four-cornered, the two sides square enough and in
    a card's proportions, every point of the outline near the parallelogram they span.
    Overexposed, a white card on a light table shows three sides or less (the side away
    from the light shows no step of brightness), its outline open.

    >>> band = np.zeros((200, 200), np.uint8)
    >>> _ = cv2.polylines(band, [np.int32([[20, 90], [20, 20], [120, 20], [120, 160]])],
    ...                   False, 255, 3)
    >>> outline = max(cv2.findContours(band, cv2.RETR_EXTERNAL,
    ...                                cv2.CHAIN_APPROX_NONE)[0], key=len)
    >>> _three_sides(outline, DetectorSettings()).round().tolist()
    [[20.0, 18.0], [122.0, 20.0], [120.0, 162.0], [18.0, 160.0]]
    >>> _ = cv2.line(band, (20, 90), (120, 160), 255, 3)  # a diagonal: no card's side
    >>> _three_sides(max(cv2.findContours(band, cv2.RETR_EXTERNAL,
    ...                                   cv2.CHAIN_APPROX_NONE)[0], key=len),
    ...              DetectorSettings()) is None
    True
    """
    points = np.asarray(contour, np.float32).reshape(-1, 2)
    found: list[Quad] = []
    for a, b, c, shorter in _card_corners(contour, hull_corners, 4, settings.aspect_range):
        quad = order_clockwise(np.array([a, b, c, a + c - b], np.float32))
        band = TWO_SIDES_BAND * shorter
        near = np.zeros(len(points), bool)
        for i in range(4):  # (near a side, not its line beyond the card's corners)
            start, way = quad[i], quad[(i + 1) % 4] - quad[i]
            along = ((points - start) @ way) / max(float(way @ way), 1e-9)
            near |= (_off_line(points, start, quad[(i + 1) % 4]) <= band) & (
                along > -TWO_SIDES_BAND) & (along < 1 + TWO_SIDES_BAND)
        if float(near.mean()) >= TWO_SIDES_ON and all(
                _followed(points[_off_line(points, b, end) <= band], b, end) for end in (a, c)):
            found.append(quad)
    # (a corner one of whose sides is the third, partly seen, spans part of the card)
    return max(found, key=lambda q: float(cv2.contourArea(q)), default=None)


def _followed(points: NDArray[np.float32], start: NDArray[np.float32],
              end: NDArray[np.float32]) -> bool:
    """Whether ``points`` (those near the side from ``start`` to ``end``) run along most of
    it (:data:`THREE_SIDES_FOLLOWED` of its :data:`THREE_SIDES_BINS` pieces)."""
    way = end - start
    along = ((points - start) @ way) / max(float(way @ way), 1e-9)
    inside = along[(along >= 0) & (along < 1)]
    return len(np.unique((inside * THREE_SIDES_BINS).astype(int))) >= (
        THREE_SIDES_FOLLOWED * THREE_SIDES_BINS)


def _off_line(points: NDArray[np.float32], start: NDArray[np.float32],
              end: NDArray[np.float32]) -> NDArray[np.float32]:
    """Each point's distance from the line through ``start`` and ``end``."""
    way = end - start
    across = way[0] * (points[:, 1] - start[1]) - way[1] * (points[:, 0] - start[0])
    return np.asarray(np.abs(across) / max(float(np.linalg.norm(way)), 1e-9), np.float32)


TWO_SIDES_LOOKED = 40
"""Most outlines (longest first) looked at for two sides of a card in one frame."""

MAX_TWO_SIDED = 3
"""Most cards guessed from two sides in one frame."""

TWO_SIDES_LEAST_POINTS = 60
"""Least points of an outline that may run along two sides of a card."""

TWO_SIDES_SQUARE = 0.45
"""Largest cosine of the angle between two sides of a card (63-117 degrees: a camera
looking from a seat skews a card's near corner to 115 degrees). From 0.34 (70-110
degrees): the real photos as taken 191 -> 192 of 196, one more in four changes, nothing
rendered changed."""

TWO_SIDES_ASPECT = (1.0, 1.9)
"""Ratio of the longer of two sides to the shorter (a card's 1.4, foreshortened from
square to long)."""

TWO_SIDES_BAND = 0.06
"""Distance from a side (of the shorter side's length) within which an outline's point
runs along it."""

TWO_SIDES_ON = 0.9
"""Least fraction of an outline's points along the two sides."""

THREE_SIDES_BINS = 20
"""Pieces each side of a card guessed from three sides is cut into, to tell how much of
it the outline follows."""

THREE_SIDES_FOLLOWED = 0.7
"""Least share of a side's pieces the outline must run along for the side to show."""
