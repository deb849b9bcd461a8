"""A frame that is one card (a close-up, a scan, a photo cropped to the card) is read as
that card; a frame cut across cards on a table is not."""

from __future__ import annotations

import numpy as np
import pytest

from vision.designs import on_background, published_face
from vision.photo_changes import cropped_to_the_card, one_card_each
from vision.photobench import score_photo
from vision.photos import load_photos, missing_reason
from vision.pipeline import Recognizer
from vision.whole_frame import frame_as_card, paper_and_ink

FACES = [("aisleriot-anglo", "5C"), ("npm-svg-cards", "KH"), ("aisleriot-paris", "9D"),
         ("npm-heruka", "QS"), ("aisleriot-bonded", "2S"), ("npm-younestouati", "7H")]


@pytest.mark.parametrize(("design", "card"), FACES)
def test_a_frame_that_is_one_published_card_names_it(design: str, card: str) -> None:
    # no table round the card: its sides are the frame's, so no outline is found
    frame = on_background(published_face(design, card, height=420), 255.0)
    found = Recognizer("standard").detect(frame)
    assert [d.card for d in found if d.card is not None] == [card]


def test_a_frame_cut_across_a_card_on_a_table_names_nothing() -> None:
    # a card-shaped window of a table whose corner holds a card's index corner: the
    # frame's rim is table, not paper, and only one index shows
    face = on_background(published_face("aisleriot-anglo", "5C", height=420), 90.0)
    frame = np.full((420, 300, 3), 90, np.uint8)
    frame[:210, :150] = face[-210:, -150:]
    assert paper_and_ink(frame)[0] < 0.5 and frame_as_card(frame) is None
    assert [d.card for d in Recognizer("standard").detect(frame)] == []


def test_a_wide_camera_frame_is_never_read_as_one_card() -> None:
    frame = np.full((720, 1280, 3), 230, np.uint8)
    frame[100:200, 100:160] = 20  # print on a white sheet
    assert paper_and_ink(frame)[0] == 1.0 and frame_as_card(frame) is None


@pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or "")
def test_the_real_webcam_photos_cropped_to_their_card_are_read() -> None:
    # wmcnicho's 64 photos, each cropped to its labelled box (the card's sides at the
    # frame's, or cut where the hand-drawn box is tight): 53 read before the frame was
    # read as the card
    rec = Recognizer("standard")
    right = wrong = 0
    for photo in one_card_each([p for p in load_photos() if p.folder == "wmcnicho"]):
        crop, cards = cropped_to_the_card(photo.read(), photo.cards)
        score = score_photo(cards, rec.detect(crop))
        right, wrong = right + score.right, wrong + score.wrong + score.off_box
    assert right >= 62 and wrong == 0
