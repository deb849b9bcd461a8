"""The steps of teaching a deck, frame by frame (the core the phone's page drives)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.detect import dewarp, find_cards, portrait
from vision.enroll import Enroller
from vision.simtable import Laid, SimTable

SIZE = (800, 450)
Image = NDArray[np.uint8]


def frame_of(table: SimTable, card: str, x: float = 400, y: float = 225) -> Image:
    table.show([Laid(card, "centre", x, y)], wait=False)
    return table.render()


def offer_until_said(enroller: Enroller, frame: Image, frames: int = 5) -> str:
    said = ""
    for _ in range(frames):
        said = enroller.offer(frame)
        if said != "hold still":
            return said
    return said


def test_cards_one_star_apart_are_two_cards_and_a_second_view_is_refused() -> None:
    table = SimTable("star-catcher", (), size=SIZE, markers=False)
    cards = ("D5", "D5*", "D5**", "D8**", "C5*")
    enroller = Enroller("star-catcher", cards)
    for card in cards:
        assert offer_until_said(enroller, frame_of(table, card)) == f"captured {card}"
    assert enroller.next_card is None
    # each card seen again elsewhere, in other light, is the one shown already
    other = SimTable("star-catcher", (), size=SIZE, markers=False, seed=7)
    for card in cards:
        seen = frame_of(other, card, 260, 160)
        quads = find_cards(seen)
        assert len(quads) == 1
        assert enroller.shown_already(dewarp(seen, portrait(quads[0]))) == card


def test_a_refused_card_stays_refused_until_another_is_laid() -> None:
    table = SimTable("star-plus", (), size=SIZE, markers=False)
    enroller = Enroller("star-plus", ("1", "2", "Z"))
    one = frame_of(table, "1")
    assert offer_until_said(enroller, one) == "captured 1"
    refusal = "that looks like 1, shown already; show 2"
    assert offer_until_said(enroller, one) == refusal
    assert [enroller.offer(one) for _ in range(4)] == [refusal] * 4  # no flicker
    # another card in the very same place is looked at afresh
    assert offer_until_said(enroller, frame_of(table, "2")) == "captured 2"
    assert enroller.undo() == "2" and enroller.next_card == "2"
    assert offer_until_said(enroller, frame_of(table, "2")) == "captured 2"
    assert offer_until_said(enroller, frame_of(table, "Z")) == "captured Z"
    assert enroller.undo() == "Z" and enroller.undo() == "2" and enroller.undo() == "1"
    assert enroller.undo() is None


def test_quads_off_the_play_area_are_not_cards() -> None:
    table = SimTable("star-plus", (), size=SIZE, markers=False)
    enroller = Enroller("star-plus", ("1", "2"))
    frame = frame_of(table, "1")
    assert enroller.offer(frame, keep=lambda quad: bool(quad[:, 0].mean() < 200)) == \
        "show one card"
    assert enroller.last_quads == []
    assert offer_until_said(enroller, frame) == "captured 1"
