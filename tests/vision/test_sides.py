"""Sides fitted to an outline: lines through a side's points, and the corners they meet at."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import pytest

from vision.detect import DetectorSettings, quad_from_contour
from vision.sides import HUBER_C, fit_line, refine_corners


def _offset(line: Sequence[float], x: float, y: float) -> float:
    """Distance of the point (x, y) from ``line``."""
    vx, vy, x0, y0 = line
    return abs((x - x0) * vy - (y - y0) * vx)


def test_a_clean_side_is_fitted_by_least_squares_and_a_notched_one_robustly() -> None:
    xs = np.arange(0, 150, dtype=np.float32)
    # a side of a card at y = 40 + 0.1 x, its points on the pixel grid (half a pixel off)
    clean = np.stack([xs, np.round(40 + 0.1 * xs)], axis=1).astype(np.float32)
    line = fit_line(clean)
    least_squares = cv2.fitLine(clean, cv2.DIST_L2, 0, 0.01, 0.01).ravel().tolist()
    assert line == pytest.approx(least_squares)
    assert max(_offset(line, x, 40 + 0.1 * x) for x in (0.0, 149.0)) < 0.3
    # the same side with a neighbour's edge 8 px off along a fifth of it: the least-squares
    # line is pulled towards it, the robust one is not
    notched = clean.copy()
    notched[60:90, 1] += 8
    pulled = cv2.fitLine(notched, cv2.DIST_L2, 0, 0.01, 0.01).ravel().tolist()
    assert max(_offset(pulled, x, 40 + 0.1 * x) for x in (0.0, 149.0)) > HUBER_C
    line = fit_line(notched)
    assert max(_offset(line, x, 40 + 0.1 * x) for x in (0.0, 149.0)) < 0.6


def test_corners_of_a_rounded_card_are_where_its_straight_sides_meet() -> None:
    # a card 130 x 180 px with corners rounded by 10 px, turned 6 degrees
    card = np.zeros((300, 300), np.uint8)
    x0, y0, x1, y1, r = 85, 60, 215, 240, 10
    cv2.rectangle(card, (x0 + r, y0), (x1 - r, y1), 255, -1)
    cv2.rectangle(card, (x0, y0 + r), (x1, y1 - r), 255, -1)
    for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x1 - r, y1 - r), (x0 + r, y1 - r)):
        cv2.circle(card, (cx, cy), r, 255, -1)
    turn = cv2.getRotationMatrix2D((150, 150), 6, 1.0)
    turned = np.asarray(cv2.warpAffine(card, turn, (300, 300)) > 127, np.uint8)
    square = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    corners = np.asarray(cv2.transform(square[None], turn)[0], np.float32)
    contours, _ = cv2.findContours(turned, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    contour = np.asarray(max(contours, key=cv2.contourArea), np.int32)
    rough = quad_from_contour(contour, DetectorSettings(), 300.0 * 300.0, refine=False)
    assert rough is not None
    found = refine_corners(contour, rough)
    # each found corner lies on a true corner; the rough quad's cut the rounding off
    error = [float(np.linalg.norm(corners - c, axis=1).min()) for c in found]
    rough_error = [float(np.linalg.norm(corners - c, axis=1).min()) for c in rough]
    assert max(error) < 1.0
    assert max(rough_error) > 2.5
