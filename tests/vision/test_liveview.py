"""The dashboard's live camera view."""

from __future__ import annotations

import cv2
import numpy as np

from vision.liveview import KNOWN, UNKNOWN, annotate, jpeg, label, mjpeg_part
from vision.pipeline import Detection
from vision.refusal import Refusal


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


def _label_strip(detection: Detection) -> np.ndarray:
    """The row of the view through the label above the card, on a light frame."""
    frame = np.full((360, 640, 3), 200, np.uint8)
    view = annotate(frame, [detection], width=640)
    strip: np.ndarray = view[int(detection.quad[:, 1].min()) - 10]
    return strip


def test_an_unknown_card_shows_its_reason_beside_the_question_mark() -> None:
    quad = np.array([[100, 100], [200, 100], [200, 240], [100, 240]], np.float32)
    bare = _label_strip(Detection(None, quad, 0.0))
    why = _label_strip(Detection(None, quad, 0.0, Refusal.CORNERS_DISAGREE))
    dark = (why.max(axis=1) < 100) | (np.abs(why.astype(int) - UNKNOWN).max(axis=1) < 60)
    x_end = int(np.flatnonzero(dark).max())
    bare_dark = np.flatnonzero(bare.max(axis=1) < 100)
    # "? corners disagree" runs well past the lone "?", in the unknown colour
    assert x_end > int(bare_dark.max()) + 80
    assert (np.abs(why[100:x_end].astype(int) - UNKNOWN).max(axis=1) < 60).any()
    assert label(Detection(None, quad, 0.0, Refusal.CORNERS_DISAGREE)) == "? corners disagree"
    # a named card shows its name only, even if a reason was left on it
    assert label(Detection("QS", quad, 0.9, Refusal.GLARE)) == "QS"


def test_mjpeg_parts_carry_their_length() -> None:
    part = mjpeg_part(b"\xff\xd8data\xff\xd9")
    head, body = part.split(b"\r\n\r\n", 1)
    assert b"Content-Length: 8" in head
    assert body == b"\xff\xd8data\xff\xd9\r\n"
