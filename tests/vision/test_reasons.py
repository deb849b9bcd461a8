"""Every unknown card carries the reader's reason; a card too small to read is not read."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import vision.pipeline as pipeline
from tests.vision.scripted import detector_finds
from vision.cli import main
from vision.detect import FoundCard, portrait
from vision.enrolled import Gallery, Match
from vision.pipeline import MIN_SIDE_PX, Recognizer, short_side
from vision.readings import Reading
from vision.refusal import Refusal


def _quad(x: float, y: float, w: float) -> np.ndarray:
    return np.array([[x, y], [x + w, y], [x + w, y + 1.4 * w], [x, y + 1.4 * w]], np.float32)


def _found(monkeypatch: pytest.MonkeyPatch, *quads: np.ndarray) -> None:
    """The detector finds exactly ``quads`` (no alternates)."""
    detector_finds(monkeypatch, [FoundCard(q, []) for q in quads])


def test_the_standard_readers_reason_reaches_the_detection(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the reader tells the two cards by their width (an unknown card is read twice: again
    # a little larger)
    def reader(card: np.ndarray, card_px: float, overlapped: bool = False,
               may_turn: bool = True, hidden: bool = False, own_sides: bool = False) -> Reading:
        return (Reading(None, 0.0, Refusal.CORNERS_DISAGREE) if card_px < 105
                else Reading("QS", 0.9))

    monkeypatch.setattr(pipeline, "identify_standard", reader)
    _found(monkeypatch, _quad(10, 10, 100), _quad(300, 10, 110))
    unknown, named = Recognizer("standard").detect(np.zeros((300, 500, 3), np.uint8))
    assert (unknown.card, unknown.reason) == (None, Refusal.CORNERS_DISAGREE)
    assert (named.card, named.reason) == ("QS", None)


def test_a_named_card_never_carries_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    # a reader that leaves a stale reason on a named card must not show "? glare"
    monkeypatch.setattr(pipeline, "identify_standard",
                        lambda card, **_: Reading("7H", 0.8, Refusal.GLARE))
    _found(monkeypatch, _quad(10, 10, 100))
    [d] = Recognizer("standard").detect(np.zeros((300, 300, 3), np.uint8))
    assert (d.card, d.reason) == ("7H", None)


def test_a_taught_decks_reason_reaches_the_detection(monkeypatch: pytest.MonkeyPatch,
                                                     galleries: dict[str, Gallery]) -> None:
    gallery = galleries["star-plus"]
    monkeypatch.setattr(type(gallery), "identify",
                        lambda self, card: Match(None, 0.5, 0.49, Refusal.AMBIGUOUS))
    # a dark frame: no panel outline round the quad, and the grown quads leave the frame
    _found(monkeypatch, _quad(2, 2, 100))
    [d] = Recognizer(gallery).detect(np.zeros((300, 300, 3), np.uint8))
    assert (d.card, d.reason) == (None, Refusal.AMBIGUOUS)


def test_a_card_too_small_is_refused_without_running_the_reader(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def reader(card: object) -> Reading:
        raise AssertionError("the reader ran on a card too small to read")

    monkeypatch.setattr(pipeline, "identify_standard", reader)
    small = _quad(10, 10, MIN_SIDE_PX - 5)
    _found(monkeypatch, small)
    [d] = Recognizer("standard").detect(np.zeros((300, 300, 3), np.uint8))
    assert (d.card, d.reason, d.score) == (None, Refusal.TOO_SMALL, 0.0)
    np.testing.assert_array_equal(d.quad, small)


def test_the_size_is_the_short_side_however_the_card_lies() -> None:
    # a card lying sideways (long side horizontal), tilted: its width is the short side
    sideways = np.array([[0, 0], [84, 0], [84, 60], [0, 60]], np.float32)
    assert short_side(portrait(sideways)) == 60.0
    slanted = np.array([[0, 0], [30, 0], [40, 56], [0, 56]], np.float32)
    assert short_side(slanted) == 35.0


def test_detect_prints_the_reason_of_each_unknown_card(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import cv2

    image = tmp_path / "table.png"
    cv2.imwrite(str(image), np.zeros((300, 500, 3), np.uint8))
    readings = iter([Reading(None, 0.0, Refusal.GLARE), Reading("10D", 0.7)])
    monkeypatch.setattr(pipeline, "identify_standard", lambda card, **_: next(readings))
    _found(monkeypatch, _quad(10, 10, 100), _quad(300, 10, 100), _quad(200, 250, 20))
    assert main(["detect", "--deck", "standard", str(image)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(c["card"], c["reason"]) for c in out["cards"]] == [
        (None, "glare"), ("10D", None), (None, "too small")]


def test_an_overlapped_card_is_read_by_both_its_corners(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the detector says which cards lie against others; the reader is told (one corner of
    # such a card may show the other card's index)
    told: list[bool] = []

    def reader(card: np.ndarray, card_px: float, overlapped: bool = False,
               may_turn: bool = True, hidden: bool = False, own_sides: bool = False) -> Reading:
        told.append(overlapped)
        return Reading("QS", 0.9)

    monkeypatch.setattr(pipeline, "identify_standard", reader)
    detector_finds(monkeypatch, [FoundCard(_quad(10, 10, 100), [], overlapped=True),
                                 FoundCard(_quad(300, 10, 100), [])])
    Recognizer("standard").detect(np.zeros((300, 500, 3), np.uint8))
    assert told == [True, False]
