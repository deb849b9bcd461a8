"""A light card whose outline stays open, a side and a half showing no edge, is guessed from
the two whole sides that show and named where it reads (the guess itself: the doctests of
vision.second_look._three_sides)."""

from __future__ import annotations

import pytest

from vision.photo_changes import changed
from vision.photos import load_photos, missing_reason
from vision.pipeline import Recognizer


@pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or "")
def test_a_real_webcam_photo_overexposed_is_read_by_its_three_sides() -> None:
    # wmcnicho's train17 made brighter (bench_photo_changes' "overexposed"): the 6S's
    # bottom side and half its left one wash into the table; found nowhere before
    photo = next(p for p in load_photos() if p.name == "wmcnicho/train17.jpg")
    image, cards = changed(photo.read(), photo.cards, "overexposed")
    named = [d.card for d in Recognizer("standard").detect(image) if d.card is not None]
    assert named == [c.card for c in cards] == ["6S"]
