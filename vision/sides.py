"""Straight sides fitted to an outline: a card's corners where its sides' lines meet.

A contour's polygon cuts a card's rounded corners and follows the pixel grid; a line
fitted to each side's points, away from the corners, places the side to a fraction of a
pixel, and neighbouring sides' lines meet at the corners of the card's bounding rectangle.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

Quad = NDArray[np.float32]  # 4 x 2, clockwise in image coordinates

_NEXT = np.array([1, 2, 3, 0])
"""Each corner's next, going round (side i runs from corner i to corner _NEXT[i])."""


def side_lengths(q: Quad) -> NDArray[np.float64]:
    """The lengths of ``q``'s sides, side i running from corner i to the next.

    >>> side_lengths(np.float32([[0, 0], [30, 0], [30, 40], [0, 40]])).tolist()
    [30.0, 40.0, 30.0, 40.0]
    """
    d = q[_NEXT] - q
    return np.asarray(np.hypot(d[:, 0], d[:, 1]), np.float64)


def short_and_long(q: Quad) -> tuple[float, float]:
    """The mean lengths of ``q``'s shorter and its longer pair of opposite sides.

    >>> short_and_long(np.float32([[0, 0], [40, 0], [40, 30], [0, 30]]))
    (30.0, 40.0)
    """
    s = side_lengths(q)
    a, b = float(s[0] + s[2]) / 2, float(s[1] + s[3]) / 2
    return min(a, b), max(a, b)


Line = tuple[float, float, float, float]
"""A line as ``cv2.fitLine`` gives it: direction (vx, vy) and a point (x, y)."""


FIT_POINTS = 200
"""About the most points a side's line is fitted to."""


HUBER_C = 1.345
"""OpenCV's Huber constant (pixels) for ``cv2.fitLine``'s ``param`` 0: points nearer the
line than this count fully, farther ones less."""


def fit_line(pts: NDArray[np.float32]) -> Line:
    """Direction and a point of the line through ``pts``, robust to a few points off it
    (a notch, a neighbour's edge). A plain least-squares fit with the far points
    dropped is cheaper but reads small cards measurably worse. Of a long side's points,
    about :data:`FIT_POINTS` evenly spread are fitted."""
    # a large card's side has thousands of points: a few hundred place the line as well,
    # at a fraction of the cost
    pts = pts[::max(1, len(pts) // FIT_POINTS)]
    vx, vy, x0, y0 = cv2.fitLine(pts, cv2.DIST_L2, 0, 0.01, 0.01).ravel().tolist()
    # where every point lies nearer than the Huber constant, each weighs fully in the
    # robust fit: the least-squares line, found exactly and fifty times cheaper (OpenCV's
    # robust fit restarts twenty times and stops loosely; on rendered scenes the corners
    # of both lie as near the true ones)
    if float(np.abs((pts[:, 0] - x0) * vy - (pts[:, 1] - y0) * vx).max()) >= HUBER_C:
        vx, vy, x0, y0 = cv2.fitLine(pts, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel().tolist()
    return vx, vy, x0, y0


def refine_corners(contour: NDArray[np.int32], approx: Quad) -> Quad:
    """Fit a line to each side's contour points and intersect neighbours.

    Rounded card corners pull polygon vertices inwards; the intersection of
    the fitted straight sides is the corner of the card's bounding rectangle.
    """
    pts = contour.reshape(-1, 2).astype(np.float32)
    a = np.asarray(approx, np.float32)
    ab = a[_NEXT] - a
    length = np.hypot(ab[:, 0], ab[:, 1])
    if length.min() < 4:
        return approx
    # all four sides at once, by one product each: position along each side (from its
    # first corner), and distance from it
    unit = ab / length[:, None]
    normal = unit[:, ::-1] * np.array([1, -1], np.float32)
    along = pts @ unit.T - (a * unit).sum(axis=1)  # points x sides
    across = np.abs(pts @ normal.T - (a * normal).sum(axis=1))
    near = ((along > 0.15 * length) & (along < 0.85 * length)
            & (across < np.maximum(3.0, 0.04 * length))).T
    lines: list[Line] = []
    for i in range(4):
        sel = pts[near[i]]
        if len(sel) < 5:
            return approx
        lines.append(fit_line(sel))
    out = meeting_points(lines)
    if out is None or float(np.hypot(*(out - a).T).max()) > 0.2 * math.sqrt(
            cv2.contourArea(a)):
        return approx
    return out


def meeting_points(lines: list[Line]) -> Quad | None:
    """Where each side's line meets the previous side's: the four corners (``None``
    when two neighbouring sides are parallel)."""
    corners = []
    for i in range(4):
        vx1, vy1, x1, y1 = lines[i - 1]
        vx2, vy2, x2, y2 = lines[i]
        det = vx2 * vy1 - vx1 * vy2
        if abs(det) < 1e-6:
            return None
        s = ((x2 - x1) * (-vy2) - (y2 - y1) * (-vx2)) / det
        corners.append((x1 + s * vx1, y1 + s * vy1))
    return np.array(corners, np.float32)
