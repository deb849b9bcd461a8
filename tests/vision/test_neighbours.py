"""Outlines sized against the cards named beside them: an unread outline far smaller than
they are (a tile of a patterned table, a key of a keyboard) is no card, and no "?"; nor
are unread outlines alike, side by side along one line (a table's tiles or planks)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.bench import PUBLISHED, bench_designs, conditions_for, recognizer_for
from vision.detect import quad_iou
from vision.neighbours import SPECK, a_speck_beside, in_a_row_of_tiles
from vision.pipeline import short_side
from vision.render import render_scene


def _box(x: float, y: float, w: float, h: float) -> np.ndarray:
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def test_an_outline_is_a_speck_only_beside_two_cards_named_and_far_smaller() -> None:
    card = _box(0, 0, 100, 140)
    named = [card + 300, card + 600]
    assert a_speck_beside(_box(0, 0, 50, 70), named)
    assert not a_speck_beside(_box(0, 0, 50, 70), named[:1])  # (no two to size it by)
    # a card's strip in view beside another over it keeps a card's long side
    assert not a_speck_beside(_box(0, 0, 100, 40), named)
    assert a_speck_beside(_box(0, 0, 60, 0.99 * SPECK * 100), named)
    assert not a_speck_beside(_box(0, 0, 60, 1.01 * SPECK * 100), named)


def test_tiles_of_a_patterned_table_beside_the_cards_are_not_reported() -> None:
    if not bench_designs():
        pytest.skip("no published deck design installed (scripts/ensure-card-designs.sh)")
    scene = render_scene(conditions_for(PUBLISHED, "upright"), 58000)
    image = scene.image.copy()
    cards = [np.asarray(c.quad, np.float32) for c in scene.cards]
    width = float(np.median([short_side(q) for q in cards]))
    # pale tiles outlined dark, in a card's proportions, a third of a card across, where
    # no card lies (a tiled table's, a keyboard's keys)
    tile = 0.4 * width
    tiles = []
    for y in range(20, 700 - int(1.4 * tile), int(1.4 * tile) + 12):
        for x in range(20, 1260 - int(tile), int(tile) + 12):
            box = _box(x, y, tile, 1.4 * tile)
            room = _box(x - 20, y - 20, tile + 40, 1.4 * tile + 40)
            if all(quad_iou(room, q) == 0.0 for q in cards):
                tiles.append(box)
    assert len(tiles) >= 6
    for box in tiles[:12]:
        cv2.fillConvexPoly(image, box.astype(np.int32), (205, 215, 220))
        cv2.polylines(image, [box.astype(np.int32)], True, (40, 40, 40), 2)
    found = recognizer_for(PUBLISHED).detect(image)
    named = [d for d in found if d.card is not None]
    assert {d.card for d in named} == {c.card for c in scene.cards if c.visible >= 0.85}
    on_tiles = [d for d in found if any(quad_iou(d.quad, box) > 0.3 for box in tiles[:12])]
    assert on_tiles == []


def test_unread_outlines_alike_side_by_side_along_a_line_are_a_row_of_tiles() -> None:
    row = [_box(x, 0, 60, 42) for x in (0, 63, 126, 189)]
    assert in_a_row_of_tiles(row) == [True] * 4
    # one of the row not outlined leaves a gap of about a tile: still the row
    assert in_a_row_of_tiles([row[0], row[1], row[3]]) == [True] * 3
    # two alike are no row; nor three staggered (no side of one on a line of the next's),
    # nor three of sizes unlike
    assert in_a_row_of_tiles(row[:2]) == [False, False]
    staggered = [_box(x, y, 60, 42) for x, y in ((0, 0), (63, 20), (126, 40))]
    assert in_a_row_of_tiles(staggered) == [False] * 3
    assert in_a_row_of_tiles([row[0], row[1], _box(126, 0, 90, 63)]) == [False] * 3
