"""The renderer: every deck's faces, seeded scenes, honest ground truth."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vision.decks import DECKS, deck_ids
from vision.render import (
    CONDITIONS,
    FACE_H,
    FACE_W,
    STANDARD_DESIGNS,
    TEST_DESIGNS,
    TRAIN_DESIGNS,
    Conditions,
    RenderError,
    render_card,
    render_scene,
    with_deck,
)


@pytest.mark.parametrize("deck", list(DECKS))
def test_every_card_of_every_deck_has_its_own_face(deck: str) -> None:
    faces = {c: render_card(deck, c).astype(np.int16) for c in deck_ids(deck)}
    for face in faces.values():
        assert face.shape == (FACE_H, FACE_W, 3)
    for (a, fa), (b, fb) in itertools.combinations(faces.items(), 2):
        differing = int((np.abs(fa - fb).max(axis=2) > 40).sum())
        assert differing > 300, f"{a} and {b} look the same"


def test_standard_designs_differ_and_test_designs_are_held_out() -> None:
    assert not set(TRAIN_DESIGNS) & set(TEST_DESIGNS)
    assert len(TEST_DESIGNS) >= 2
    fonts = {STANDARD_DESIGNS[d].font for d in TEST_DESIGNS}
    assert not fonts & {STANDARD_DESIGNS[d].font for d in TRAIN_DESIGNS}
    a, b = (render_card("standard", "QS", d).astype(np.int16) for d in TEST_DESIGNS)
    assert np.abs(a - b).mean() > 1


@pytest.mark.parametrize(("deck", "card"), [("standard", "1S"), ("standard", "QX"),
                                            ("star-catcher", "X7"), ("star-plus", "10"),
                                            ("cant-catch-harry", "voldemort")])
def test_unknown_cards_are_refused_in_plain_words(deck: str, card: str) -> None:
    with pytest.raises(RenderError, match="expected"):
        render_card(deck, card)


def test_scenes_are_reproducible_from_their_seed() -> None:
    cond = with_deck(CONDITIONS["lighting"], "star-catcher")
    a, b = render_scene(cond, 5), render_scene(cond, 5)
    assert np.array_equal(a.image, b.image)
    assert [t.card for t in a.cards] == [t.card for t in b.cards]
    assert not np.array_equal(a.image, render_scene(cond, 6).image)


@pytest.mark.parametrize("name", list(CONDITIONS))
def test_ground_truth_quads_lie_in_the_image(name: str) -> None:
    scene = render_scene(with_deck(CONDITIONS[name], "standard"), 3)
    h, w = scene.image.shape[:2]
    assert (h, w) == (720, 1280)
    for t in scene.cards:
        assert t.quad.shape == (4, 2)
        assert (t.quad[:, 0] >= 0).all() and (t.quad[:, 0] <= w).all()
        assert (t.quad[:, 1] >= 0).all() and (t.quad[:, 1] <= h).all()
        assert 0.0 <= t.visible <= 1.0
    if name == "empty":
        assert scene.cards == ()


def test_overlaps_and_hands_hide_part_of_some_cards() -> None:
    hidden = [t.visible for seed in range(6)
              for t in render_scene(with_deck(CONDITIONS["overlap"], "star-plus"), seed).cards]
    assert min(hidden) < 0.85
    assert max(hidden) > 0.99
    hands = [t.visible for seed in range(6)
             for t in render_scene(with_deck(CONDITIONS["hand"], "star-plus"), seed).cards]
    assert min(hands) < 0.95


def test_tilt_makes_cards_non_rectangular() -> None:
    flat = render_scene(Conditions(deck="star-plus", n_cards=4), 2).cards
    tilted = render_scene(Conditions(deck="star-plus", n_cards=4, tilt=35.0), 2).cards

    def skew(q: np.ndarray) -> float:
        top, bottom = np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[3])
        return float(abs(top - bottom) / max(top, bottom))

    assert max(skew(t.quad) for t in flat) < 0.01
    assert max(skew(t.quad) for t in tilted) > 0.02
