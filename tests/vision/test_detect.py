"""Card detection on rendered scenes: found where they are, nothing where they are not."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detect import dewarp, find_cards, order_clockwise, portrait, quad_iou
from vision.render import CONDITIONS, render_scene, with_deck


def _recall(name: str, deck: str, seeds: range) -> tuple[int, int]:
    found = total = 0
    for seed in seeds:
        scene = render_scene(with_deck(CONDITIONS[name], deck), seed)
        quads = find_cards(scene.image)
        for t in scene.cards:
            if t.visible < 0.85:
                continue
            total += 1
            found += any(quad_iou(q, t.quad) > 0.8 for q in quads)
    return found, total


@pytest.mark.parametrize("name", ["upright", "rotation", "tilt35", "lighting", "light-table",
                                  "small"])
def test_cards_are_found_with_tight_quads(name: str) -> None:
    found, total = _recall(name, "star-catcher", range(200, 204))
    assert total >= 16
    assert found >= 0.9 * total


def test_the_top_card_of_an_overlap_is_found() -> None:
    found, total = _recall("overlap", "star-plus", range(200, 206))
    assert found >= 0.8 * total


@pytest.mark.parametrize("deck", ["standard", "star-catcher"])
def test_empty_tables_have_no_phantom_cards(deck: str) -> None:
    for seed in range(300, 308):
        scene = render_scene(with_deck(CONDITIONS["empty"], deck), seed)
        assert find_cards(scene.image) == [], f"phantom card on empty table seed {seed}"


def test_printed_panels_inside_a_card_are_not_cards() -> None:
    # Star Catcher faces carry a coloured panel shaped like a smaller card
    scene = render_scene(with_deck(CONDITIONS["upright"], "star-catcher"), 11)
    quads = find_cards(scene.image)
    assert len(quads) == len(scene.cards)


def test_dewarp_gives_an_upright_canonical_card() -> None:
    scene = render_scene(with_deck(CONDITIONS["upright"], "star-plus"), 4)
    quads = find_cards(scene.image)
    card = dewarp(scene.image, portrait(quads[0]))
    assert card.shape == (280, 200, 3)


def test_garbage_input_gives_no_cards_and_no_crash() -> None:
    rng = np.random.default_rng(0)
    assert find_cards(rng.integers(0, 256, (720, 1280, 3), dtype=np.uint8)) == []
    assert find_cards(np.full((10, 10, 3), 255, np.uint8)) == []
    assert find_cards(np.zeros((480, 640), np.uint8)) == []


def test_order_clockwise_handles_any_rotation() -> None:
    square = np.array([[10, 0], [20, 10], [10, 20], [0, 10]], float)
    for k in range(4):
        q = order_clockwise(np.roll(square, k, axis=0))
        assert q[0].tolist() in ([10, 0], [0, 10])
        (ax, ay), (bx, by) = q[1] - q[0], q[2] - q[1]
        assert ax * by - ay * bx > 0  # clockwise with y pointing down


@pytest.mark.parametrize(("deck", "seed", "card"), [
    ("cant-catch-harry", 1010, "lamp"),  # a large panel printed inside it
    ("standard", 1030, "4S"),  # stretched by the tilt, near the image edge
    ("standard", 1069, "QD"),  # foreshortened by the tilt to nearly square
])
def test_cards_hard_to_outline_under_tilt_are_found(deck: str, seed: int, card: str) -> None:
    scene = render_scene(with_deck(CONDITIONS["tilt35"], deck), seed)
    truth = next(t for t in scene.cards if t.card == card)
    assert any(quad_iou(q, truth.quad) > 0.8 for q in find_cards(scene.image))
