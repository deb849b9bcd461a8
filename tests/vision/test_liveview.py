"""The dashboard's live camera view."""

from __future__ import annotations

import cv2
import numpy as np

from vision.liveview import FACE_DOWN, KNOWN, UNKNOWN, annotate, jpeg, label, mjpeg_part
from vision.pipeline import Detection
from vision.refusal import Refusal


def test_cards_are_outlined_known_green_unknown_orange_backs_grey() -> None:
    frame = np.full((720, 1280, 3), 40, np.uint8)
    left = np.array([[100, 100], [300, 100], [300, 380], [100, 380]], np.float32)
    known = Detection("QS", left, 0.9)
    unknown = Detection(None, left + np.array([600, 0], np.float32), 0.3)
    back = Detection(None, left + np.array([900, 0], np.float32), 0.0, Refusal.CARD_BACK)
    data = jpeg(frame, [known, unknown, back], width=640, quality=95)
    view = np.asarray(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR), np.uint8)
    assert view.shape == (360, 640, 3)
    # the left edge of each outline, at half scale
    assert np.abs(view[120, 50].astype(int) - KNOWN).max() < 60
    assert np.abs(view[120, 350].astype(int) - UNKNOWN).max() < 60
    # a card face down is no "?" to fix
    assert np.abs(view[120, 500].astype(int) - FACE_DOWN).max() < 60
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
    assert label(Detection("QS", quad, 0.9, Refusal.GLARE)) == "Queen of spades"


def test_a_standard_card_shows_its_rank_and_a_drawn_suit_in_the_suits_colour() -> None:
    quad = np.array([[100, 100], [200, 100], [200, 240], [100, 240]], np.float32)
    red = _label_strip(Detection("9D", quad, 0.9))
    black = _label_strip(Detection("9S", quad, 0.9))
    code = _label_strip(Detection("baby-james", quad, 0.9))  # words, not an index

    def reddish(strip: np.ndarray) -> int:
        s = strip.astype(int)
        return int(((s[:, 2] > 150) & (s[:, 0] < 100) & (s[:, 1] < 100)).sum())

    # the diamond (and the 9) in red ink, the spade in black, on a light chip
    assert reddish(red) >= 6 and reddish(black) == 0
    assert (black[100:160].max(axis=1) < 60).sum() >= 6
    assert (red[100:160].min(axis=1) > 220).sum() >= 4  # the light chip
    # two suits of the same rank differ only where the suit is drawn, right of the rank
    differ = np.flatnonzero(np.abs(red.astype(int) - black.astype(int)).max(axis=1) > 80)
    assert differ.size and differ.max() > differ.min() + 8
    assert not np.array_equal(red, code)
    assert label(Detection("9D", quad, 0.9)) == "9 of diamonds"


def test_a_taught_deck_card_is_named_as_printed_in_green() -> None:
    quad = np.array([[100, 100], [300, 100], [300, 240], [100, 240]], np.float32)
    frame = np.full((360, 640, 3), 200, np.uint8)
    band = annotate(frame, [Detection("sandwich-artist", quad, 0.9)], width=640)[70:97]
    green = (np.abs(band.astype(int) - KNOWN).max(axis=2) < 60).any(axis=0)
    drawn = np.flatnonzero(green)
    (tw, _), _ = cv2.getTextSize("Sandwich Artist", cv2.FONT_HERSHEY_SIMPLEX, 0.55, 2)
    assert abs(int(drawn.max() - drawn.min()) - tw) <= 8  # the printed name, written out
    assert label(Detection("sandwich-artist", quad, 0.9)) == "Sandwich Artist"
    assert label(Detection("C9**", quad, 0.9)) == "Circle 9, 2 stars"
    assert label(Detection("Z", quad, 0.9), deck="star-plus") == "Zeus"


def test_mjpeg_parts_carry_their_length() -> None:
    part = mjpeg_part(b"\xff\xd8data\xff\xd9")
    head, body = part.split(b"\r\n\r\n", 1)
    assert b"Content-Length: 8" in head
    assert body == b"\xff\xd8data\xff\xd9\r\n"
