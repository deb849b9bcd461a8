"""Guided enrollment: one card at a time, held still, never the same card twice."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cli import main
from vision.enroll import Enroller
from vision.enrolled import EnrollmentError, Gallery
from vision.render import Conditions, Placement, compose_scene, render_card

COND = Conditions(deck="star-plus", table="wood", tilt=15.0)


def _shown(*cards: str, seed: int = 3) -> np.ndarray:
    places = [Placement(c, 500 + 260 * i, 360, 12 + 30 * i, 160) for i, c in enumerate(cards)]
    return compose_scene(places, "star-plus", seed, COND).image


def test_each_card_is_captured_once_held_still() -> None:
    enroller = Enroller("mine", ("5", "Z"))
    assert enroller.next_card == "5"
    empty = compose_scene([], "star-plus", 3, COND).image
    assert enroller.offer(empty) == "show one card"
    assert enroller.offer(_shown("5", "Z")) == "only one card at a time, please"
    five = _shown("5")
    assert [enroller.offer(five) for _ in range(3)] == ["hold still", "hold still",
                                                        "captured 5"]
    assert enroller.next_card == "Z"
    # the same card again is refused, however still
    assert [enroller.offer(five) for _ in range(3)][-1] == (
        "that looks like 5, shown already; show Z")
    zeus = _shown("Z")
    assert [enroller.offer(zeus) for _ in range(3)][-1] == "captured Z"
    assert set(enroller.faces) == {"5", "Z"}  # nothing left to show
    gallery = enroller.gallery()
    face = np.asarray(cv2.resize(render_card("star-plus", "Z"), (200, 280)), np.uint8)
    assert gallery.identify(face).card == "Z"


def test_an_unfinished_enrollment_names_the_missing_cards() -> None:
    with pytest.raises(EnrollmentError, match="cards not shown yet: 5, Z"):
        Enroller("mine", ("5", "Z")).gallery()
    with pytest.raises(EnrollmentError, match="at least 2 distinct"):
        Enroller("mine", ("5", "5"))


def test_the_guided_command_prompts_and_saves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    frames = tmp_path / "camera"
    frames.mkdir()
    n = 0
    for card in ("1", "2", "Z"):
        image = _shown(card, seed=4)
        for _ in range(4):
            cv2.imwrite(str(frames / f"{n:03d}.png"), image)
            n += 1
    monkeypatch.setattr("sys.stdin", io.StringIO("\n" * 3))
    store = tmp_path / "decks"
    assert main(["enroll", "--deck", "sp", "--camera", f"replay:{frames}",
                 "--cards", "1,2,Z", "--store", str(store)]) == 0
    out = capsys.readouterr().out
    assert out.count("captured") == 3 and "enrolled 3 cards" in out
    assert Gallery.load(store, "sp").cards == ("1", "2", "Z")


def test_guided_enrollment_errors_are_plain(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["enroll", "--deck", "mine", "--camera", "replay:/nowhere",
                 "--store", str(tmp_path)]) == 2
    assert "list them with --cards" in capsys.readouterr().err
    assert main(["enroll", "--deck", "mine", "--camera", f"replay:{tmp_path}/nothing",
                 "--cards", "a,b", "--store", str(tmp_path)]) == 2
    assert "does not exist" in capsys.readouterr().err
