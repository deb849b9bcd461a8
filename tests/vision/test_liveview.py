"""The dashboard's live camera view."""

from __future__ import annotations

import cv2
import numpy as np

from vision.liveview import KNOWN, UNKNOWN, jpeg, mjpeg_part
from vision.pipeline import Detection


def test_cards_are_outlined_known_green_unknown_orange() -> None:
    frame = np.full((720, 1280, 3), 40, np.uint8)
    left = np.array([[100, 100], [300, 100], [300, 380], [100, 380]], np.float32)
    known = Detection("QS", left, 0.9)
    unknown = Detection(None, left + np.array([600, 0], np.float32), 0.3)
    data = jpeg(frame, [known, unknown], width=640, quality=95)
    view = np.asarray(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR), np.uint8)
    assert view.shape == (360, 640, 3)
    # the left edge of each outline, at half scale
    assert np.abs(view[120, 50].astype(int) - KNOWN).max() < 60
    assert np.abs(view[120, 350].astype(int) - UNKNOWN).max() < 60
    assert np.abs(view[120, 200].astype(int) - 40).max() < 10  # inside: untouched


def test_mjpeg_parts_carry_their_length() -> None:
    part = mjpeg_part(b"\xff\xd8data\xff\xd9")
    head, body = part.split(b"\r\n\r\n", 1)
    assert b"Content-Length: 8" in head
    assert body == b"\xff\xd8data\xff\xd9\r\n"
