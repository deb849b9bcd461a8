"""A card's outline moved onto the card's own edges.

An outline traced in a candidate mask lies off the card by the mask's own making: the
dilated band of edges, an index printed against the edge that the brightness mask
carves out of the card, the card's shadow taken in. On a card 50 px wide, 3-5 px off is
a tenth of the card: the index is cut or the table taken in, and a taught card no longer
lines up with its reference. :func:`snapped_to_edges` moves each side, within reach, to
where the brightness changes most across it, alike along its length: the card's edge.
(A printed frame near the edge can be as strong an edge: a side never moves in across
the card's paper to reach one, and the outline is offered where one did not read, not in
place of one that did.)
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import Image, Quad
from vision.sides import Line, meeting_points

REACH = 0.12
"""How far (in short sides of the card) a side may move either way. Outlines of small
rendered cards that did not read lay up to a tenth of the card off."""

LEAST_REACH_PX = 3.0
"""The reach on the smallest cards (a pixel or two of blur is as wide as the error)."""

STEP_PX = 0.5
"""The steps in which a side's offsets are tried (refined between steps)."""

SAMPLES = 12
"""Points sampled along each half of a side; each half finds its own offset, so a side
may turn as well as move (the corners, where another side's edge crosses, are left
out)."""

ENDS = 0.12
"""The part of each end of a side that is not sampled (the corner's rounding)."""

PAPER_MARGIN = 20.0
"""Grey levels below the card's paper (its 90th percentile) that a strip a side moves in
across must be darker by: the strip is then shadow or table. A side moving in across
paper is moving onto print: a frame a court card prints inside its edge (a small JD's
outline so moved onto its frame cut both indices, and it read as a QD)."""


def _offset_of_peak(score: NDArray[np.float32], offsets: NDArray[np.float64]) -> float:
    """The offset at which ``score`` peaks, between steps by a parabola through the peak.

    >>> float(_offset_of_peak(np.float32([0, 1, 3, 1, 0]), np.arange(-1.0, 1.5, 0.5)))
    0.0
    """
    j = int(np.argmax(score))
    offset = float(offsets[j])
    if 0 < j < len(score) - 1:
        left, mid, right = float(score[j - 1]), float(score[j]), float(score[j + 1])
        bend = left - 2 * mid + right
        if bend < 0:
            offset += STEP_PX * 0.5 * (left - right) / bend
    return offset


def snapped_to_edges(image: Image, quad: Quad, reach: float = REACH) -> Quad | None:
    """``quad`` (four corners, in order round the card, in a BGR or grey ``image``) with
    each side moved to the
    strongest straight edge within ``reach`` of it, corners in the same order; ``None``
    where the card lies too near the frame's border to look round it, or where a side
    would move in across the card's paper (onto print: :data:`PAPER_MARGIN`).

    >>> table = np.full((120, 120), 90, np.uint8)
    >>> table[20:100, 30:86] = 235  # a card 56 x 80 px
    >>> grey = cv2.GaussianBlur(table, (5, 5), 0)
    >>> off = np.float32([[34, 20], [86, 20], [86, 103], [34, 103]])  # two sides off
    >>> found = snapped_to_edges(grey, off)  # the edges lie between pixels
    >>> bool(np.abs(found - [[29.5, 19.5], [85.5, 19.5], [85.5, 99.5], [29.5, 99.5]]
    ...             ).max() < 0.1)
    True
    """
    q = np.asarray(quad, np.float64)
    sides = np.roll(q, -1, axis=0) - q
    short = float(np.linalg.norm(sides, axis=1).min())
    if not short >= 2.0:  # (a side of no length: no line to move; NaN corners too)
        return None
    r = max(LEAST_REACH_PX, reach * short)
    x0, y0 = np.floor(q.min(axis=0) - r - 2).astype(int)
    x1, y1 = np.ceil(q.max(axis=0) + r + 2).astype(int)
    if x0 < 0 or y0 < 0 or x1 >= image.shape[1] or y1 >= image.shape[0]:
        return None
    # (only the part round the card made grey: this runs per unread card, not per frame)
    part = image[y0:y1 + 1, x0:x1 + 1]
    roi = np.asarray(part if part.ndim == 2 else cv2.cvtColor(part, cv2.COLOR_BGR2GRAY),
                     np.float32)
    gx, gy = (cv2.Sobel(roi, cv2.CV_32F, dx, 1 - dx, ksize=3) for dx in (1, 0))
    offsets = np.arange(-r, r + 1e-6, STEP_PX)
    inside = np.zeros(roi.shape, np.uint8)
    cv2.fillConvexPoly(inside, np.round(q - (x0, y0)).astype(np.int32), 1)
    paper = float(np.percentile(roi[inside > 0], 90))
    centre = q.mean(axis=0)
    lines: list[Line] = []
    for k in range(4):
        along = sides[k] / np.linalg.norm(sides[k])
        out = np.array([along[1], -along[0]])
        if float(np.dot(out, q[k] + sides[k] / 2 - centre)) < 0:
            out = -out
        points = []
        for lo, hi in ((ENDS, 0.5), (0.5, 1 - ENDS)):
            s = np.linspace(lo, hi, SAMPLES)
            base = q[k] + s[:, None] * sides[k] - (x0, y0)
            at = base[None] + offsets[:, None, None] * out  # offsets x samples x 2
            mx, my = (np.ascontiguousarray(at[..., i], np.float32) for i in (0, 1))
            across = (cv2.remap(gx, mx, my, cv2.INTER_LINEAR) * out[0]
                      + cv2.remap(gy, mx, my, cv2.INTER_LINEAR) * out[1])
            # the card's edge changes the brightness one way all along; print and the
            # table's texture change it both ways
            score = np.abs(np.asarray(across, np.float32).mean(axis=1))
            offset = _offset_of_peak(score, offsets)
            crossed = (offsets > offset + 1) & (offsets < 0)
            if crossed.any() and float(np.asarray(cv2.remap(roi, mx, my, cv2.INTER_LINEAR),
                                                  np.float32)[crossed].mean()
                                       ) >= paper - PAPER_MARGIN:
                return None
            points.append(q[k] + (lo + hi) / 2 * sides[k] + offset * out)
        direction = (points[1] - points[0]) / np.linalg.norm(points[1] - points[0])
        lines.append((float(direction[0]), float(direction[1]),
                      float(points[0][0]), float(points[0][1])))
    corners = meeting_points(lines)
    if corners is None or not float(np.linalg.norm(corners - q, axis=1).max()) <= 2 * r:
        return None  # (NaN corners fail the test too)
    return corners
