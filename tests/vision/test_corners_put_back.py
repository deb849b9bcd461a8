"""A taught card with a corner under another card or a hand: outlined round what shows,
read in the outline with that corner put back where the other three place it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.bench import TAUGHT_PUBLISHED, bench_designs, conditions_for, recognizer_for
from vision.detect import quad_iou
from vision.outline_moves import corners_put_back
from vision.render import render_scene


def _card(angle: float, centre: tuple[float, float] = (400.0, 300.0)) -> np.ndarray:
    """A card's corners, 120 x 168 px, turned ``angle`` degrees about ``centre``."""
    box = cv2.boxPoints(((centre[0], centre[1]), (120.0, 168.0), angle))
    return np.asarray(box, np.float32)


@pytest.mark.parametrize("angle", [0.0, 17.0, 38.0, 71.0])
@pytest.mark.parametrize("covered", [0, 1, 2, 3])
def test_a_corner_cut_off_by_a_cover_is_put_back_first(angle: float, covered: int) -> None:
    card = _card(angle)
    outline = card.copy()
    # what shows: the covered corner cut off a third of the way along the diagonal
    outline[covered] = card[covered] + (card[(covered + 2) % 4] - card[covered]) / 3
    found = corners_put_back(outline)
    assert found, "the cut corner was not put back"
    assert np.abs(found[0] - card).max() < 0.01


@pytest.mark.parametrize("angle", [0.0, 23.0, 60.0])
def test_a_whole_card_or_a_square_thing_has_no_corner_put_back(angle: float) -> None:
    assert corners_put_back(_card(angle)) == []  # (a card outlined whole: nothing cut off)
    square = cv2.boxPoints(((300.0, 300.0), (150.0, 150.0), angle)).astype(np.float32)
    assert corners_put_back(square) == []


def test_a_taught_card_under_the_corner_of_another_is_read() -> None:
    # the bench's overlap scene 58002: a 7S of a held-out design, taught from its faces,
    # its top corner under another card; its outline round what shows read as no card
    if not bench_designs():
        pytest.skip("no published deck design installed (scripts/ensure-card-designs.sh)")
    scene = render_scene(conditions_for(TAUGHT_PUBLISHED, "overlap"), 58002)
    seven = scene.cards[0]
    assert seven.card == "7S" and seven.visible >= 0.85
    found = recognizer_for(TAUGHT_PUBLISHED).detect(scene.image)
    on_it = [d for d in found if quad_iou(d.quad, seven.quad) >= 0.5]
    assert [d.card for d in on_it] == ["7S"]
