"""A card whose corner the frame cuts off: its outline's fifth side runs along the frame.

A card near the edge of the camera's view, turned, loses a corner out of view. Its outline
then has five sides, one of them the frame's border, and is no quad: the card was not
found at all (a 6S in one of the real photos, both its index corners in view). The card's
two sides that run out of the frame meet beyond it, at the corner out of view. Where the
card's edges run out of the frame, no outline of the edges closes round it: the frame's
border closes them (:func:`outlines_cut_by_frame`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

Quad = NDArray[np.float32]

FRAME_MARGIN = 3.0
"""Pixels from the image's border within which a point (a quad's corner) lies on the
frame."""

MOST_CUT = 0.25
"""Most of the card (a fraction of its area) the frame may cut off: a card mostly out of
view shows too little of itself to be told from a table's shape cut by the frame."""


def outlines_cut_by_frame(edges: NDArray[np.uint8], contours: Sequence[NDArray[Any]],
                          least: float = 0.0) -> list[NDArray[np.int32]]:
    """The outlines of the edges running out of the frame, each closed by the frame's
    border: a card cut by the frame has no closed outline of its own (its edges run out of
    the frame), the border closes it. ``contours``: those of ``edges``
    (``cv2.RETR_LIST``); only the outer ones that touch the border, whose bounding box is
    ``least`` or larger and whose hull is a card's with a corner cut off
    (:func:`corner_beyond_frame`), are closed. Each is the contour round what its edges
    and the border enclose.

    >>> edges = np.zeros((200, 300), np.uint8)  # a card's sides, its top corner cut off
    >>> sides = np.int32([[80, 0], [30, 50], [110, 130], [180, 60], [120, 0]])
    >>> _ = cv2.polylines(edges, [sides], False, 255, 3)
    >>> found, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    >>> [cv2.boundingRect(c) for c in outlines_cut_by_frame(edges, found)]
    [(28, 0, 155, 133)]
    """
    h, w = edges.shape[:2]
    if not (edges[0].any() or edges[-1].any() or edges[:, 0].any() or edges[:, -1].any()):
        return []  # (nothing runs out of the frame)
    out, fewest = [], 2 * math.sqrt(least)
    for contour in contours:
        if len(contour) < fewest:
            continue  # (too short to go round the smallest card: as vision.detect asks)
        x, y, cw, ch = cv2.boundingRect(contour)
        if cw * ch < least or not (min(x, y) == 0 or x + cw == w or y + ch == h):
            continue
        if cv2.contourArea(contour, oriented=True) > 0 or not _cut_corner_shaped(
                np.asarray(contour, np.int32), w, h):
            continue  # (a hole's; or no card: the edges' hull is the hull of what they enclose)
        # these edges alone (no other edges inside their box), a pixel of room round them,
        # the border between the first and last of them on it drawn in: whatever the
        # room's rim cannot reach is enclosed
        room = np.zeros((ch + 2, cw + 2), np.uint8)
        cv2.drawContours(room, [contour], -1, 255, cv2.FILLED, offset=(1 - x, 1 - y))
        for line, on in ((room[1], y == 0), (room[-2], y + ch == h),
                         (room[:, 1], x == 0), (room[:, -2], x + cw == w)):
            lit = np.flatnonzero(line)
            if on and len(lit):
                line[lit[0]:lit[-1] + 1] = 255
        reached = room.copy()
        cv2.floodFill(reached, None, (0, 0), 128)
        enclosed = np.asarray(reached != 128, np.uint8)
        found, _ = cv2.findContours(enclosed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        out += [np.asarray(c, np.int32) + np.array([x - 1, y - 1], np.int32) for c in found]
    return out


EPSILONS = (0.02, 0.035, 0.05, 0.07)
"""Tolerances (fractions of the hull's perimeter) of the polygons tried round an outline
(:func:`vision.detect.quad_from_contour` tries them in turn)."""


def _cut_corner_shaped(contour: NDArray[np.int32], w: int, h: int) -> bool:
    """Whether the hull of ``contour`` is a five-sided outline of a card whose corner the
    frame cuts off (:func:`corner_beyond_frame`), at one of :data:`EPSILONS`."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    return any(len(poly) == 5 and corner_beyond_frame(poly, w, h) is not None
               for poly in (cv2.approxPolyDP(hull, eps * peri, True) for eps in EPSILONS))


def _border_of(point: NDArray[np.float32], w: int, h: int) -> set[str]:
    """The image borders ``point`` lies on (within :data:`FRAME_MARGIN`)."""
    x, y = float(point[0]), float(point[1])
    return {name for name, on in (("left", x <= FRAME_MARGIN), ("top", y <= FRAME_MARGIN),
                                  ("right", x >= w - 1 - FRAME_MARGIN),
                                  ("bottom", y >= h - 1 - FRAME_MARGIN)) if on}


def _meeting(a0: NDArray[np.float32], a1: NDArray[np.float32], b0: NDArray[np.float32],
             b1: NDArray[np.float32]) -> NDArray[np.float32] | None:
    """Where the line through ``a0``, ``a1`` meets the one through ``b0``, ``b1``."""
    da, db = a1 - a0, b1 - b0
    det = float(da[0] * db[1] - da[1] * db[0])
    if abs(det) < 1e-6 * float(np.hypot(*da) * np.hypot(*db)):
        return None
    s = float((b0[0] - a0[0]) * db[1] - (b0[1] - a0[1]) * db[0]) / det
    return np.asarray(a0 + s * da, np.float32)


def corner_beyond_frame(poly: NDArray[Any], w: int, h: int) -> Quad | None:
    """The quad of a five-sided outline one of whose sides runs along the border of a
    ``w`` x ``h`` image: its two neighbouring sides extended to meet beyond the frame
    (``None`` where the outline is not such, or they meet inside the frame, or more than
    :data:`MOST_CUT` of the quad lies beyond it). The corners go round as ``poly`` does.

    >>> cut = np.array([[20, 0], [60, 0], [80, 20], [50, 90], [0, 60]])
    >>> corner_beyond_frame(cut, 200, 200).round().tolist()
    [[30.0, -30.0], [80.0, 20.0], [50.0, 90.0], [0.0, 60.0]]
    >>> corner_beyond_frame(cut + 10, 200, 200) is None  # no side along the frame
    True
    """
    pts = np.asarray(poly, np.float32).reshape(-1, 2)
    if len(pts) != 5:
        return None
    for i in range(5):
        a, b = pts[i], pts[(i + 1) % 5]
        if not _border_of(a, w, h) & _border_of(b, w, h):
            continue
        corner = _meeting(pts[i - 1], a, b, pts[(i + 2) % 5])
        if corner is None or (0 <= corner[0] <= w - 1 and 0 <= corner[1] <= h - 1):
            return None
        quad = np.asarray([corner if k == i else pts[k] for k in range(5)
                           if k != (i + 1) % 5], np.float32)
        whole = cv2.contourArea(quad)
        if whole <= 0 or 1.0 - cv2.contourArea(pts) / whole > MOST_CUT:
            return None
        return quad
    return None


def seen_area(quad: Quad, w: int, h: int) -> float:
    """The area of ``quad`` inside a ``w`` x ``h`` image.

    >>> seen_area(np.float32([[30, -30], [80, 20], [50, 90], [0, 60]]), 200, 200)
    4600.0
    """
    frame = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    return float(cv2.intersectConvexConvex(np.asarray(quad, np.float32), frame)[0])


OUT_OF_VIEW = 0.03
"""Share of a card's outline beyond the frame from which part of the card is out of view
(:func:`cut_by_frame`): a card the frame's border grazes, or an outline fitted a pixel or
two past it, shows all it prints."""


def cut_by_frame(quad: Quad, w: int, h: int) -> bool:
    """Whether more than :data:`OUT_OF_VIEW` of ``quad`` lies outside a ``w`` x ``h`` image.

    >>> cut_by_frame(np.float32([[30, -30], [80, 20], [50, 90], [0, 60]]), 200, 200)
    True
    >>> cut_by_frame(np.float32([[0, -1], [50, -1], [50, 70], [0, 70]]), 200, 200)
    False
    """
    whole = float(cv2.contourArea(np.asarray(quad, np.float32)))
    return whole > 0 and seen_area(quad, w, h) < (1.0 - OUT_OF_VIEW) * whole
