"""Cards on top of other cards, found in the outline round a cluster of them.

Overlapping cards make one outline round them all, which is no card's shape
(:mod:`vision.detect` keeps only card-shaped outlines). The top card still shows
three of its corners on that outline, with full sides between: those give the fourth
corner, and the card is kept when its sides lie on edges all round.

Cards side by side can make one outline in a card's proportions too: it is no card
(:func:`without_blobs`).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import (
    _NEXT,
    _UNIT_SQUARE,
    PANEL_MARGIN,
    DetectorSettings,
    FoundCard,
    Image,
    Outline,
    Quad,
    _area_limits,
    _contains,
    _iou,
    _overlaps_another,
    _side_ratio,
    order_clockwise,
)
from vision.sides import Line, fit_line, meeting_points, side_lengths

CLUSTER_CORNER = 20.0
"""Degrees from square within which three corners of a cluster's outline can be a card's."""

CLUSTER_PAPER = 0.45
"""Least fraction of a card's area that the brightness mask must cover (paper, not table)."""

MAX_CLUSTER_CARDS = 8
"""Most cards taken out of clusters in one frame (bounds a cluttered frame's time)."""


def cards_in_clusters(outlines: list[NDArray[np.int32]], kept: list[Quad],
                       masks: list[Image], settings: DetectorSettings) -> list[Quad]:
    """Cards on top of other cards, whose outlines ran into those below.

    Overlapping cards make one outline round them all, which is no card's shape. A
    card on top still shows three of its corners on that outline, one side full length
    between each pair: two sides at right angles, in a card's proportions, give the
    fourth corner. Such a card must lie on paper-bright ground in the brightness mask,
    have an edge all along its four sides (the top card's fourth side shadows the card
    below; corners of two different cards leave a side across a card's face), and be
    no card already found.
    """
    edges, bright = masks
    h, w = bright.shape[:2]
    image_area = float(h * w)
    lo, hi = _area_limits(settings, image_area)
    if kept:
        # one deck: about the size of the cards found (tilt makes far cards smaller)
        median = float(np.median([cv2.contourArea(k) for k in kept]))
        lo, hi = max(lo, 0.4 * median), min(hi, 2.5 * median)
    found: list[Quad] = []
    for contour in outlines:
        if len(found) >= MAX_CLUSTER_CARDS:
            break
        _, _, bw, bh = cv2.boundingRect(contour)
        if bw * bh < 1.3 * lo:  # room for more than one card only
            continue
        poly = cv2.approxPolyDP(contour, max(2.5, 0.12 * math.sqrt(lo)), True).reshape(-1, 2)
        n = len(poly)
        if n < 5:
            continue  # a quad was already judged as one
        pts = poly.astype(np.float32)
        square = _square_corners(pts, 1.0 if cv2.contourArea(pts, oriented=True) >= 0 else -1.0)
        for i in range(n):
            if not (square[i - 1] and square[i] and square[(i + 1) % n]):
                continue
            a, b, c = pts[i - 1], pts[i], pts[(i + 1) % n]
            quad = order_clockwise(np.array([a, b, c, a + c - b], np.float32))
            area = cv2.contourArea(quad)
            if not lo <= area <= hi or not (
                    settings.aspect_range[0] <= _side_ratio(quad) <= settings.aspect_range[1]):
                continue
            if any(_iou(quad, k) > 0.3 or _contains(quad, k.mean(axis=0))
                   or _contains(k, quad.mean(axis=0)) for k in kept + found):
                continue
            if _paper(bright, quad) < CLUSTER_PAPER:
                continue
            # the corners of a rough outline are a few pixels off: the card's sides are
            # the edges along them
            snapped = _snapped(edges, quad)
            if snapped is not None and _edged(edges, snapped):
                found.append(snapped)
    return found


SNAP_BAND = 5.0
"""Pixels either side of a rough side within which its edge is looked for."""


def _snapped(edges: Image, quad: Quad) -> Quad | None:
    """``quad`` with each side moved onto the edge pixels along it (a line fitted to
    them), or ``None`` when a corner would move far (no edge there to follow)."""
    h, w = edges.shape[:2]
    x, y, bw, bh = cv2.boundingRect(quad.astype(np.int32))
    pad = int(SNAP_BAND) + 1
    x0, y0 = max(x - pad, 0), max(y - pad, 0)
    x1, y1 = min(x + bw + pad, w), min(y + bh + pad, h)
    ys, xs = np.nonzero(edges[y0:y1, x0:x1])
    pts = np.stack([xs + x0, ys + y0], axis=1).astype(np.float32)
    lines: list[Line] = []
    for a, b in zip(quad, quad[_NEXT], strict=True):
        side = b - a
        length = float(np.hypot(*side))
        if length < 4:
            return None
        unit = side / length
        rel = pts - a
        t = (rel @ unit) / length
        dist = np.abs(rel[:, 0] * unit[1] - rel[:, 1] * unit[0])
        sel = pts[(t > 0.15) & (t < 0.85) & (dist <= SNAP_BAND)]
        if len(sel) < 10:
            lines.append((float(unit[0]), float(unit[1]), float(a[0]), float(a[1])))
        else:
            lines.append(fit_line(sel))
    out = meeting_points(lines)
    if out is None or float(np.hypot(*(out - quad).T).max()) > 0.1 * math.sqrt(
            cv2.contourArea(quad)):
        return None
    return order_clockwise(out)


def _edged(edges: Image, quad: Quad) -> bool:
    """Whether every side of ``quad`` runs along the edge mask for most of its length
    (its ends left out: rounded corners)."""
    return float(side_support(edges, quad).min()) >= CLUSTER_EDGED


def side_support(edges: Image, quad: Quad) -> NDArray[np.float64]:
    """The fraction of each side of ``quad`` that runs along the edge mask (its ends left
    out: rounded corners), looking two pixels either way across it (a side is rarely
    perfectly straight)."""
    t = np.linspace(0.1, 0.9, EDGE_SAMPLES, dtype=np.float32)[None, :, None]
    a, b = quad[:, None, :], quad[_NEXT][:, None, :]
    pts = np.round(a + t * (b - a)).astype(np.int32)  # sides x samples x 2
    normal = np.stack([a[..., 1] - b[..., 1], b[..., 0] - a[..., 0]], axis=-1)
    normal /= np.maximum(np.hypot(normal[..., 0], normal[..., 1]), 1e-6)[..., None]
    h, w = edges.shape[:2]
    # the three looks across each side at once: offsets x sides x samples x 2
    off = np.round(pts + _ACROSS * normal).astype(np.int32)
    hits = edges[np.clip(off[..., 1], 0, h - 1), np.clip(off[..., 0], 0, w - 1)].any(axis=0)
    return np.asarray(hits.mean(axis=1), np.float64)


_ACROSS = np.array([-2, 0, 2], np.float32)[:, None, None, None]
"""Offsets (pixels) across a side at which :func:`side_support` looks for the edge mask."""


EDGE_SAMPLES = 32
"""Points looked at along each side of a card found in a cluster."""

CLUSTER_EDGED = 0.4
"""Least fraction of each side of a card found in a cluster that lies on an edge."""


def _square_corners(pts: NDArray[np.float32], sign: float) -> NDArray[np.bool_]:
    """Whether the closed outline ``pts`` turns outwards (convex, by ``sign``, its
    orientation) by about a right angle at each of its points."""
    before, after = np.roll(pts, 1, axis=0), np.roll(pts, -1, axis=0)
    u, v = before - pts, after - pts
    nu, nv = np.hypot(u[:, 0], u[:, 1]), np.hypot(v[:, 0], v[:, 1])
    cross = -u[:, 0] * v[:, 1] + u[:, 1] * v[:, 0]
    cosine = np.clip((u * v).sum(axis=1) / np.maximum(nu * nv, 1e-6), -1.0, 1.0)
    angle = np.degrees(np.arccos(cosine))
    return np.asarray((nu >= 1) & (nv >= 1) & (cross * sign > 0)
                      & (np.abs(angle - 90) <= CLUSTER_CORNER), np.bool_)


def _paper(bright: Image, quad: Quad) -> float:
    """Fraction of ``quad`` that the brightness mask covers."""
    x, y, bw, bh = cv2.boundingRect(quad.astype(np.int32))
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + bw, bright.shape[1]), min(y + bh, bright.shape[0])
    if x1 <= x0 or y1 <= y0:
        return 0.0
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(inside, np.round(quad - [x0, y0]).astype(np.int32), 1)
    total = int(inside.sum())
    return float((bright[y0:y1, x0:x1][inside > 0] > 0).sum()) / total if total else 0.0


BLOB_PART = (0.15, 0.7)
"""Area of a card inside a blob of cards, as a fraction of the blob's outline."""


def without_blobs(found: list[tuple[float, Quad, float, NDArray[np.int32]]],
                   ) -> list[tuple[float, Quad, float, NDArray[np.int32]]]:
    """``found`` less the outlines round several cards.

    Cards side by side, or four in a square, make one outline in a card's proportions
    (two cards long side to long side: 126 x 88 mm, a card's 1.4), larger than either
    card, so it would be taken first and hide them. It holds two or more separate
    card-shaped outlines that each reach its edge on two or more sides. One such
    outline is not enough: a card's own outline often holds a fragment of it (a part
    the light or the print cut off); a card's printed panel keeps a border all round.
    """
    if len(found) < 3:
        return found
    areas = np.array([f[0] for f in found])
    centres = np.array([f[1].mean(axis=0) for f in found])
    blobs: set[int] = set()
    for i, (area, q, _, _) in enumerate(found):
        (x0, y0), (x1, y1) = q.min(axis=0), q.max(axis=0)
        # smaller outlines whose centres lie in this one's bounding box (vectorised: most
        # outlines have none)
        maybe = np.flatnonzero((areas >= BLOB_PART[0] * area) & (areas <= BLOB_PART[1] * area)
                               & (centres[:, 0] >= x0) & (centres[:, 0] <= x1)
                               & (centres[:, 1] >= y0) & (centres[:, 1] <= y1))
        if len(maybe) < 2:
            continue
        to_unit: NDArray[np.float64] | None = None
        parts: list[Quad] = []
        for j in maybe.tolist():
            inner = found[j][1]
            if not _contains(q, centres[j]):
                continue
            if any(_iou(inner, p) > 0.2 for p in parts):
                continue  # the same card again (its inner and outer outline)
            if to_unit is None:
                to_unit = np.asarray(cv2.getPerspectiveTransform(
                    np.asarray(q, np.float32), _UNIT_SQUARE), np.float64)
            uv = cv2.perspectiveTransform(np.asarray(inner, np.float32)[None], to_unit)[0]
            lo, hi = uv.min(axis=0), uv.max(axis=0)
            if int((lo < PANEL_MARGIN).sum() + (hi > 1 - PANEL_MARGIN).sum()) >= 2:
                parts.append(inner)
                if len(parts) == 2:
                    blobs.add(i)
                    break
    return [f for i, f in enumerate(found) if i not in blobs]


def without_fragments(out: list[tuple[Quad, list[Outline]]],
                      ) -> list[tuple[Quad, list[Outline]]]:
    """One deck on one table: a quad far smaller than the others (three or more) is a
    fragment (the uncovered part of a card beside a hand), not a card."""
    if len(out) < 3:
        return out
    median = float(np.median([cv2.contourArea(q) for q, _ in out]))
    return [(q, alt) for q, alt in out
            if cv2.contourArea(q) >= 0.25 * median]  # tilt: far cards are small


EDGED_SIDE = 0.4
"""Least fraction of each side of a card's outline that runs along an edge: an outline
with a side across paper (round the corners of one card and the face of another under
it) counts as overlapped, and then names a card only where both its corners read it
(overlapping held-out scenes, seeds 500-559: 3 more cards in 171 read, 2 wrong fewer)."""


UNEVEN_SIDES = 1.4
"""Most that one side of an outline may be longer than the side across from it for the
outline to be taken for one card lying alone. A camera tilted 35 degrees made the
sides of cards outlined right differ by at most 1.14 (1.21 at the 99th percentile of
cards on piles); an outline round one card and part of the card under it (a seven's
top half, a nine's bottom) differed by more, and read the card over it with its index
in one corner only (held-out published and our designs on piles, fresh seeds: 6 more
cards in 1,330 read, 2 fewer named wrongly, none lost). 1.2 lost two cards on piles, and
1.3 a king whose outline a hand over it cut (1.33): read as overlapped, both its
corners had to read."""


def uneven_sides(q: Quad) -> bool:
    """Whether one side of ``q`` is more than :data:`UNEVEN_SIDES` times as long as the
    side across from it: no card's outline, seen from above.

    >>> uneven_sides(np.float32([[0, 0], [100, 0], [100, 140], [0, 140]]))
    False
    >>> uneven_sides(np.float32([[0, 0], [100, 0], [160, 140], [0, 140]]))
    True
    """
    s = side_lengths(q)
    return bool(max(s[0], s[2]) > UNEVEN_SIDES * min(s[0], s[2])
                or max(s[1], s[3]) > UNEVEN_SIDES * min(s[1], s[3]))


def found_cards(out: list[tuple[Quad, list[Outline]]], clustered: list[Quad],
                square: list[Quad], edges: Image) -> list[FoundCard]:
    """The cards found (``out``: quads and runner-up outlines), each saying whether it
    is overlapped: it lies over or under another, was found in a cluster's outline
    (``clustered``), has a side along no edge (round parts of two cards: one card's
    corners and the other's face) or sides too uneven for one card
    (:func:`uneven_sides`); then the ``square`` outlines apart from them all."""
    quads = [q for q, _ in out]
    cards = [FoundCard(q, alt, any(q is c for c in clustered) or _overlaps_another(q, quads)
                       or uneven_sides(q) or float(side_support(edges, q).min()) < EDGED_SIDE)
             for q, alt in out]
    for q in square:
        if not any(cv2.intersectConvexConvex(q, k)[0] > 0 for k in quads):
            quads.append(q)
            cards.append(FoundCard(q, [], square=True))
    return cards
