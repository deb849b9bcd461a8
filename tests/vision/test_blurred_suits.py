"""A spade or a club read in a blurred index is read again sharpened (vision.blurred_suits)."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest

import vision.blurred_suits as blurred_suits
from vision.blurred_suits import (
    BLURRED_INDEX,
    black_suit_seen,
    index_blur,
    shipped_blurred_suits,
    suit_read_sharpened,
)
from vision.index import Candidate
from vision.photos import load_photos, missing_reason
from vision.pipeline import Recognizer
from vision.readings import CornerReading, Reading
from vision.refusal import Refusal
from vision.small_courts import BLACK_SUIT_NAMES
from vision.thresholds import Thresholds


def _card(blur: float) -> np.ndarray:
    """A light card with a dark index glyph in each corner, blurred ``blur`` pixels."""
    card = np.full((280, 200, 3), 235, np.uint8)
    card[12:40, 8:24] = 25
    card[240:268, 176:192] = 25
    return card if blur == 0 else np.asarray(cv2.GaussianBlur(card, (0, 0), blur), np.uint8)


def _corner(card: str, corner: int, suit_p: float = 0.95) -> CornerReading:
    return CornerReading(card[:-1], card[-1], 1.0, suit_p, True, corner, (30, 48))


def test_an_index_measures_about_as_blurred_as_it_was_made() -> None:
    measured = [index_blur(_card(blur), _corner("7S", 1)) for blur in (0.0, 1.5, 2.5, 3.5)]
    assert measured == sorted(measured)
    assert measured[0] < BLURRED_INDEX < measured[2]
    assert abs(measured[3] - 3.5) < 0.4


def test_a_blurred_black_card_takes_the_suit_both_sharpened_corners_read() -> None:
    named = Reading("6C", 0.9)
    clubs = [_corner("6C", 0), _corner("6C", 1)]
    looked: list[np.ndarray] = []

    def sharpened_reads(*cards: str, suit_p: float = 0.97,
                        ) -> Callable[[np.ndarray], list[CornerReading]]:
        def read_again(seen: np.ndarray) -> list[CornerReading]:
            looked.append(seen)
            return [_corner(card, corner, suit_p) for corner, card in enumerate(cards)]
        return read_again

    blurred = _card(2.5)
    assert suit_read_sharpened(named, blurred, clubs, sharpened_reads("6S", "6S")) == (
        Reading("6S", 0.97))
    # the sharpened image is sharper than the blurred one it was made from
    assert index_blur(looked[-1], clubs[0]) < index_blur(blurred, clubs[0])
    # one sharpened corner, or one read as another rank, is not enough
    for one in (("6S", "6C"), ("6S",), ("6S", "5S")):
        assert suit_read_sharpened(named, blurred, clubs, sharpened_reads(*one)) == named
    # sharpened corners no surer of the other suit than the blurred ones were of theirs
    # (a held-out design's 5S, its sharpened corners leaning to clubs at 0.68 and 0.72) do
    # not rename it
    unsure = sharpened_reads("6S", "6S", suit_p=0.7)
    assert suit_read_sharpened(named, blurred, clubs, unsure) == named
    # a sharp index is not read again
    looked.clear()
    assert suit_read_sharpened(named, _card(0), clubs, sharpened_reads("6S", "6S")) == named
    assert looked == []
    # corners torn between the two suits were weighed when the card was named
    torn = [_corner("6C", 0), _corner("6S", 1)]
    assert suit_read_sharpened(named, blurred, torn, sharpened_reads("6S", "6S")) == named
    # a court's large suit signs of the suit first named keep it; of the other, or none,
    # not; a number card's pips blur as its index does: they are not asked
    queens = [_corner("QC", 0), _corner("QC", 1)]
    def face_shows(suit: str | None) -> Callable[[], str | None]:
        return lambda: suit

    for face, read in (("C", "QC"), ("S", "QS"), (None, "QS")):
        assert suit_read_sharpened(Reading("QC", 0.9), blurred, queens,
                                   sharpened_reads("QS", "QS"), face_shows(face)
                                   ).card == read
    assert suit_read_sharpened(named, blurred, clubs, sharpened_reads("6S", "6S"),
                               face_shows("C")) == Reading("6S", 0.97)
    # a red card is never read again
    hearts = Reading("6H", 0.9)
    assert suit_read_sharpened(hearts, blurred, clubs, sharpened_reads("6S", "6S")) == hearts


@pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or "")
@pytest.mark.parametrize(("name", "card"), [("wmcnicho/test13.jpg", "6S"),
                                            ("wmcnicho/test9.jpg", "7S")])
def test_a_real_spade_blurred_as_an_unfocused_webcam_would_is_no_club(
        name: str, card: str) -> None:
    # a 640 x 480 webcam photo blurred 2.5 px: both corners and the pips read a club
    photo = next(p for p in load_photos() if p.name == name)
    image = np.asarray(cv2.GaussianBlur(photo.read(), (0, 0), 2.5), np.uint8)
    assert [d.card for d in Recognizer("standard").detect(image)] == [card]


def _suit_weighed(monkeypatch: pytest.MonkeyPatch, lead: float | None,
                  corners: int = 2) -> list[str]:
    """The blurred-suit classifier made to lead to spades by ``lead`` (negative: clubs;
    ``None``: no corner read the rank) in ``corners`` corners; the ranks it was asked
    about."""
    asked: list[str] = []

    def weighed(looked: list[tuple[Candidate, CornerReading]], rank: str, th: object,
                ) -> tuple[float, int] | None:
        asked.append(rank)
        return None if lead is None else (lead, corners)

    monkeypatch.setattr(blurred_suits, "blurred_suit_lead", weighed)
    return asked


def _index_blurred(blur: float) -> np.ndarray:
    """A card whose two index corners measure about ``blur`` (canonical pixels)."""
    card = np.full((280, 200, 3), 230, np.uint8)
    card[12:30, 8:22] = 30
    card[-30:-12, -22:-8] = 30
    return np.asarray(cv2.GaussianBlur(card, (0, 0), blur), np.uint8)


def test_a_black_card_blurred_past_its_index_is_named_where_both_readers_are_sure_of_its_suit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clubs, very = Reading("9C", 0.97), _index_blurred(3.5)
    asked = _suit_weighed(monkeypatch, -0.5)
    assert black_suit_seen(clubs, very, 100, lambda: []) == clubs
    assert asked == ["9"]
    _suit_weighed(monkeypatch, -1.0, 1)
    assert black_suit_seen(clubs, very, 100, lambda: []) == clubs
    _suit_weighed(monkeypatch, 0.5)
    assert black_suit_seen(Reading("9S", 0.97), very, 100, lambda: []).card == "9S"
    # the other suit (never renamed: the two readers disagree), not sure enough, sure from
    # one corner only by less than a lone corner must be, or torn: unnamed, as every black
    # card so blurred was before
    for lead, corners in ((0.5, 2), (-0.2, 2), (-0.5, 1), (None, 2)):
        _suit_weighed(monkeypatch, lead, corners)
        assert black_suit_seen(clubs, very, 100, lambda: []).reason is Refusal.SUIT_UNCLEAR


def test_the_blurred_suit_classifier_is_not_asked_of_sharp_wide_small_or_red_cards(
        monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _suit_weighed(monkeypatch, 0.5)  # (leaning away: would unname)
    clubs = Reading("9C", 0.97)
    for blur in (1.0, 2.6):  # (an index blurred less than TOO_BLURRED keeps its reading)
        assert black_suit_seen(clubs, _index_blurred(blur), 100, lambda: []) == clubs
    for width in (60, 200):  # a small card is read its own way; a wide one sharpened
        assert black_suit_seen(clubs, _index_blurred(3.5), width, lambda: []) == clubs
    hearts = Reading("9H", 0.97)
    assert black_suit_seen(hearts, _index_blurred(3.5), 100, lambda: []) == hearts
    assert asked == []


def test_the_blurred_suit_model_ships_with_the_package() -> None:
    assert shipped_blurred_suits().classes == BLACK_SUIT_NAMES
    # nothing shown, nothing weighed
    assert blurred_suits.blurred_suit_lead([], "9", Thresholds()) is None
