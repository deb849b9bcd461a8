"""Where the play area is in the picture: the printed markers, or corners tapped on a phone.

:class:`TableCorners` keeps the camera's calibration (a
:class:`~vision.calibration.TableGeometry`). Corners tapped on the live view
(the ``/camera`` page) are kept in the data directory and win over the
printed ArUco markers; clearing them goes back to the markers. Without
either, the whole picture is the centre and seats cannot be told apart.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.inputs.camera.errors import CameraFeedError, CameraRequestError
from vision.calibration import CalibrationError, TableGeometry
from vision.play_area import centre_of

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Image = NDArray[np.uint8]

log = logging.getLogger(__name__)

CORNERS_FILE = "camera-corners.json"
"""Where the tapped corners are kept, in the table's data directory."""
TABLE_MM = (600.0, 400.0)
"""The play area's nominal size: zones are fractions of it, so any size works."""
EDGE_SHARE = 0.08
"""Detections this close (in table widths and heights) to a corner marker are dropped."""
RETRY_SECONDS = 2.0
"""How often a picture without markers is looked at again for them."""

Corners = tuple[tuple[float, float], ...]
Tapped = tuple[Corners, tuple[int, int]]
"""Tapped corners and the frame size (width, height) they were tapped on."""


class TableCorners:
    """The camera's calibration: read on the worker thread, except :meth:`status`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tapped: Tapped | None = load_corners(path)
        self.geometry: TableGeometry | None = None
        self._next_look = 0.0

    def forget(self) -> None:
        """The seats changed (a new match): calibrate again on the next frame."""
        self.geometry = None
        self._next_look = 0.0

    @property
    def looked(self) -> bool:
        """Whether a frame has been looked at for the markers since the last :meth:`forget`."""
        return self._next_look != 0.0

    def calibrate(self, frame: Image, players: Sequence[str]) -> None:
        """Find the play area in ``frame``, if it is not known and it is time to look."""
        if self.geometry is not None or time.monotonic() < self._next_look:
            return
        if self.tapped is not None:  # set on purpose on the phone: they win over markers
            corners = scaled(self.tapped, (frame.shape[1], frame.shape[0]))
            try:
                self.geometry = TableGeometry.from_points(corners, TABLE_MM, tuple(players))
                return
            except CalibrationError:
                log.warning("the tapped corners do not fit this camera; using the markers")
        try:
            self.geometry = TableGeometry.from_markers(frame, TABLE_MM, tuple(players))
        except CalibrationError:
            self.geometry = None  # no markers: the whole picture is the centre
            self._next_look = time.monotonic() + RETRY_SECONDS

    def zone_of(self, point: tuple[float, float]) -> str | None:
        geometry = self.geometry
        return "centre" if geometry is None else geometry.zone_of(point)

    def on_play_area(self, point: tuple[float, float]) -> bool:
        """Whether a card centred at ``point`` counts (everywhere, uncalibrated)."""
        geometry = self.geometry
        return geometry is None or on_play_area(geometry, point)

    def on_play_area_quad(self, quad: Any) -> bool:
        """Whether a card outlined by ``quad`` counts (for the deck being taught)."""
        return self.on_play_area(centre_of(quad))

    def status(self, frame_size: tuple[int, int] | None) -> dict[str, Any]:
        """How the camera knows the table: ``tapped`` corners, ``markers`` or ``none``."""
        tapped, geometry = self.tapped, self.geometry
        corners = None
        if tapped is not None:
            at = scaled(tapped, frame_size) if frame_size is not None else tapped[0]
            corners = [[round(x, 1), round(y, 1)] for x, y in at]
        source = "tapped" if tapped is not None else "markers" if geometry is not None \
            else "none"
        return {"source": source, "corners": corners,
                "frame": None if frame_size is None else list(frame_size)}

    def tap(self, points: Any, frame_size: tuple[int, int] | None,
            players: Sequence[str]) -> dict[str, Any]:
        """Use and keep four tapped corners (frame pixels: TL, TR, BR, BL)."""
        if frame_size is None:
            raise CameraFeedError("the camera has not delivered a picture yet: the corners "
                                  "are tapped on the live view")
        try:
            geometry = TableGeometry.from_tapped(points, frame_size, TABLE_MM, tuple(players))
        except CalibrationError as exc:
            raise CameraRequestError(str(exc)) from None
        corners = tuple(_as_pairs(points))
        try:
            _save_corners(self.path, corners, frame_size)
        except OSError as exc:
            raise CameraFeedError(f"the corners could not be kept ({exc}); try again") from None
        self.tapped = (corners, frame_size)
        self.geometry = geometry
        return self.status(frame_size)

    def untap(self, frame_size: tuple[int, int] | None) -> dict[str, Any]:
        """Forget the tapped corners: the markers (or nothing) calibrate again."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self.tapped = None
        self.forget()  # the markers, when the camera sees them, on the next frame
        return self.status(frame_size)


def _as_pairs(points: Any) -> list[tuple[float, float]]:
    return [(float(p[0]), float(p[1])) for p in points]


def scaled(tapped: Tapped, size: tuple[int, int]) -> list[tuple[float, float]]:
    """Tapped corners for a frame of ``size`` (the camera's resolution may have changed).

    >>> scaled((((10.0, 20.0),), (100, 100)), (200, 50))
    [(20.0, 10.0)]
    """
    corners, (w, h) = tapped
    sx, sy = size[0] / w, size[1] / h
    return [(x * sx, y * sy) for x, y in corners]


def _save_corners(path: Path, corners: Corners, size: tuple[int, int]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"corners": [list(c) for c in corners], "frame": list(size)}),
                   encoding="utf-8")
    os.replace(tmp, path)


def load_corners(path: Path) -> Tapped | None:
    """The kept corners, or ``None`` (none kept, or a file that is not ours: markers then)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        corners = tuple(_as_pairs(data["corners"]))
        w, h = (int(v) for v in data["frame"])
        TableGeometry.from_tapped(list(corners), (w, h), TABLE_MM)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        log.warning("ignoring the kept camera corners in %s: %s", path, exc)
        return None
    return corners, (w, h)


def on_play_area(geometry: TableGeometry, point: tuple[float, float]) -> bool:
    """Inside the markers' rectangle, away from its corners (the markers lie there: a
    marker's white border can pass for an unreadable card)."""
    x, y = geometry.to_table(point)
    w, h = geometry.size_mm
    inside = 0 <= x <= w and 0 <= y <= h
    near_corner = min(x, w - x) < EDGE_SHARE * w and min(y, h - y) < EDGE_SHARE * h
    return inside and not near_corner
