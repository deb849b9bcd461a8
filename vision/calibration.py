"""Table calibration: from the camera image to a top-down view of the table.

Four ArUco markers (DICT_4X4_50, ids 0-3, printed from
``docs/aruco-markers.svg``) lie at the corners of the play area: 0 top-left,
1 top-right, 2 bottom-right, 3 bottom-left, with the first player's seat
along the bottom edge; or four corners are tapped on the phone. Either gives the
homography from image pixels to table millimetres, so a card's size in
pixels is known anywhere on the table (no magic area thresholds), and every
point has a zone: the centre, or the area in front of one seat.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]
Point = tuple[float, float]

CARD_MM = (63.0, 88.0)
MIN_TAPPED_SHARE = 0.05
"""Tapped corners must outline at least this share of the picture (a few cards' size)."""


class CalibrationError(ValueError):
    """The markers or tapped corners do not give a usable table."""


def detect_markers(image: Image) -> dict[int, NDArray[np.float64]]:
    """Centres of the ArUco markers 0-3 found in ``image`` (id -> x, y)."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = detector.detectMarkers(grey)
    found: dict[int, NDArray[np.float64]] = {}
    marker_ids = [] if ids is None or len(ids) == 0 else np.asarray(ids).ravel().tolist()
    for quad, marker in zip(corners, marker_ids, strict=True):
        if 0 <= marker <= 3:
            found[int(marker)] = np.asarray(quad, np.float64).reshape(4, 2).mean(axis=0)
    return found


@dataclass(frozen=True)
class TableGeometry:
    """The table plane as seen by the camera, and its zones."""

    image_to_table: tuple[float, ...]  # 3 x 3 homography, row-major, to millimetres
    size_mm: tuple[float, float]  # the rectangle spanned by the four reference points
    seats: tuple[str, ...] = ()
    centre_fraction: float = 0.3  # the centre zone's half-size, as a fraction of the table

    @classmethod
    def from_points(cls, points: list[Point] | NDArray[np.float64], size_mm: tuple[float, float],
                    seats: tuple[str, ...] = ()) -> TableGeometry:
        """From the image positions of the table rectangle's corners (TL, TR, BR, BL)."""
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        if pts.shape != (4, 2) or not np.isfinite(pts).all():
            raise CalibrationError("calibration needs exactly 4 corner points (top-left, "
                                   f"top-right, bottom-right, bottom-left), got {len(pts)}")
        w, h = size_mm
        if w <= 0 or h <= 0:
            raise CalibrationError(f"table size must be positive millimetres, got {size_mm}")
        contour = pts.astype(np.float32)
        if not cv2.isContourConvex(contour) or cv2.contourArea(contour) < 100:
            raise CalibrationError("the 4 corners must outline the table (a convex area, "
                                   "given clockwise from top-left)")
        dst = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float64)
        hom = cv2.getPerspectiveTransform(pts.astype(np.float32), dst.astype(np.float32))
        return cls(tuple(float(v) for v in np.asarray(hom).ravel()), (float(w), float(h)),
                   seats)

    @classmethod
    def from_tapped(cls, points: list[Point] | NDArray[np.float64], frame_size: tuple[int, int],
                    size_mm: tuple[float, float], seats: tuple[str, ...] = ()
                    ) -> TableGeometry:
        """From four corners tapped on the phone's view of a ``frame_size`` (w, h) frame.

        Stricter than :meth:`from_points`: every tap inside the frame, the four in
        order (top-left, top-right, bottom-right, bottom-left, the first seat at the
        bottom) and the area at least :data:`MIN_TAPPED_SHARE` of the frame.

        >>> g = TableGeometry.from_tapped([(100, 50), (700, 60), (720, 400), (80, 390)],
        ...                               (800, 450), (600, 400))
        >>> g.zone_of((400, 225))
        'centre'
        >>> TableGeometry.from_tapped([(100, 50), (700, 60), (720, 400)], (800, 450),
        ...                           (600, 400))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        vision.calibration.CalibrationError: tap exactly 4 corners ..., got 3
        """
        try:
            pts = np.asarray(points, np.float64).reshape(-1, 2)
        except (TypeError, ValueError):
            raise CalibrationError("the corners must be 4 [x, y] pairs of numbers") from None
        if pts.shape != (4, 2) or not np.isfinite(pts).all():
            raise CalibrationError("tap exactly 4 corners (top-left, top-right, bottom-right, "
                                   f"bottom-left), got {len(pts)}")
        w, h = frame_size
        outside = [i + 1 for i, (x, y) in enumerate(pts) if not (0 <= x <= w and 0 <= y <= h)]
        if outside:
            raise CalibrationError(f"corner {outside[0]} is outside the {w} x {h} picture; "
                                   "tap the corners on the live view")
        contour = pts.astype(np.float32)
        # shoelace sum: positive when the taps go clockwise on screen (y points down)
        turn = float(np.sum(pts[:, 0] * np.roll(pts[:, 1], -1) - np.roll(pts[:, 0], -1)
                            * pts[:, 1]))
        if not cv2.isContourConvex(contour) or turn <= 0:
            raise CalibrationError("the 4 corners must go round the play area in order: "
                                   "top-left, top-right, bottom-right, bottom-left")
        if cv2.contourArea(contour) < MIN_TAPPED_SHARE * w * h:
            raise CalibrationError(
                f"the corners outline less than {MIN_TAPPED_SHARE:.0%} of the picture; tap the "
                "corners of the whole play area (or move the camera closer)")
        return cls.from_points(pts, size_mm, seats)

    def outline(self) -> list[tuple[list[Point], str]]:
        """Image polylines of the play area, the centre and the seat borders, with labels.

        Each item is (points, label): the play area and the centre are closed
        outlines; a seat border is a line; a label point (one point) names a seat.
        """
        w, h = self.size_mm
        f = self.centre_fraction

        def at(dx: float, dy: float) -> Point:
            return self.to_image((w / 2 + dx * w, h / 2 + dy * h))

        shapes: list[tuple[list[Point], str]] = [
            ([at(-.5, -.5), at(.5, -.5), at(.5, .5), at(-.5, .5)], "table"),
            ([at(-f, -f), at(f, -f), at(f, f), at(-f, f)], "centre"),
        ]
        if not self.seats:
            return shapes
        share = 360 / len(self.seats)
        for k, seat in enumerate(self.seats):
            for angle, kind in ((k * share + share / 2, "border"), (k * share, "seat:" + seat)):
                dx, dy = -math.sin(math.radians(angle)), math.cos(math.radians(angle))
                start = f / max(abs(dx), abs(dy))  # out of the centre square ...
                end = 0.5 / max(abs(dx), abs(dy))  # ... to the table's edge
                if kind == "border":
                    if len(self.seats) > 1:
                        shapes.append(([at(dx * start, dy * start), at(dx * end, dy * end)],
                                       kind))
                else:
                    mid = (start + end) / 2
                    shapes.append(([at(dx * mid, dy * mid)], kind))
        return shapes

    @classmethod
    def from_markers(cls, image: Image, size_mm: tuple[float, float],
                     seats: tuple[str, ...] = ()) -> TableGeometry:
        """From the four ArUco markers (their centres are the rectangle's corners)."""
        found = detect_markers(image)
        missing = [i for i in range(4) if i not in found]
        if missing:
            raise CalibrationError(
                f"calibration markers {missing} not seen; the camera must see all four "
                "(0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left)")
        return cls.from_points([tuple(found[i]) for i in range(4)], size_mm, seats)

    @property
    def homography(self) -> NDArray[np.float64]:
        return np.array(self.image_to_table, np.float64).reshape(3, 3)

    def to_table(self, point: Point) -> Point:
        """Image pixels to table millimetres."""
        p = cv2.perspectiveTransform(np.array([[point]], np.float64), self.homography)
        return float(p[0, 0, 0]), float(p[0, 0, 1])

    def to_image(self, point: Point) -> Point:
        inv = np.linalg.inv(self.homography)
        p = cv2.perspectiveTransform(np.array([[point]], np.float64), inv)
        return float(p[0, 0, 0]), float(p[0, 0, 1])

    def card_area_px(self, at: Point | None = None) -> float:
        """The area in image pixels of a flat card at ``at`` (table mm; default the centre)."""
        cx, cy = at if at is not None else (self.size_mm[0] / 2, self.size_mm[1] / 2)
        w, h = CARD_MM
        corners = [(cx - w / 2, cy - h / 2), (cx + w / 2, cy - h / 2),
                   (cx + w / 2, cy + h / 2), (cx - w / 2, cy + h / 2)]
        img = np.array([self.to_image(c) for c in corners], np.float32)
        return float(cv2.contourArea(img))

    def zone_of(self, point: Point) -> str | None:
        """``centre``, ``seat:NAME`` for the area in front of a seat, or ``None`` off the table.

        Seats sit round the table clockwise from the bottom edge's middle.
        """
        x, y = self.to_table(point)
        w, h = self.size_mm
        if not (0 <= x <= w and 0 <= y <= h):
            return None
        dx, dy = (x - w / 2) / w, (y - h / 2) / h
        if abs(dx) <= self.centre_fraction and abs(dy) <= self.centre_fraction:
            return "centre"
        if not self.seats:
            return "edge"
        # angle measured clockwise (y down) from straight down, the first seat's side
        angle = (math.degrees(math.atan2(-dx, dy)) + 360) % 360
        share = 360 / len(self.seats)
        return "seat:" + self.seats[int(((angle + share / 2) % 360) // share)]


def marker_sheet_svg(side_mm: float = 50.0) -> str:
    """A printable A4 SVG with markers 0-3 and where each one goes."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    cells = 6  # 4 x 4 data bits plus the black border
    cell = side_mm / cells
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="210mm" height="297mm" '
             'viewBox="0 0 210 297">', '<rect width="210" height="297" fill="white"/>',
             '<text x="105" y="18" font-size="6" text-anchor="middle" font-family="sans-serif">'
             'Table Companion calibration markers (ArUco DICT_4X4_50). Print at 100%, '
             'cut out, lay at the play area corners.</text>']
    where = ["top-left", "top-right", "bottom-right", "bottom-left"]
    for i in range(4):
        bits = cv2.aruco.generateImageMarker(dictionary, i, cells)
        ox = 25 + (i % 2) * (side_mm + 60)
        oy = 40 + (i // 2) * (side_mm + 70)
        for r in range(cells):
            for c in range(cells):
                if bits[r, c] < 128:
                    parts.append(f'<rect x="{ox + c * cell:.3f}" y="{oy + r * cell:.3f}" '
                                 f'width="{cell:.3f}" height="{cell:.3f}" fill="black"/>')
        parts.append(f'<text x="{ox + side_mm / 2:.1f}" y="{oy + side_mm + 10:.1f}" '
                     'font-size="5" text-anchor="middle" font-family="sans-serif">'
                     f'marker {i}: {where[i]}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
