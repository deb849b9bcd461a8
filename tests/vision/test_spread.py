"""Cards spread in a row, each showing a strip with its index, are named card by card."""

from __future__ import annotations

import cv2
import numpy as np

from vision.designs import BENCH_DESIGNS, published_face
from vision.detect import order_clockwise, portrait, quad_iou
from vision.pipeline import Detection, Recognizer
from vision.spread import edges_in, row_ends, rows_under

from .test_covered import TABLES, _laid

ROW = ("2H", "9S", "KD", "5C", "QH", "7S")
"""A row spread from left to right, the last card on top."""


def _row(design: str, angle: float, step: float, seed: int,
         ) -> tuple[np.ndarray, list[np.ndarray]]:
    """The cards of :data:`ROW` (``design``'s faces, 120 px wide) spread ``step`` of a card
    apart along their short side, turned ``angle`` degrees; the frame and each card's
    corners."""
    rng = np.random.default_rng(seed)
    frame = np.empty((720, 1280, 3), np.float32)
    frame[:] = TABLES[seed % len(TABLES)]
    frame += rng.normal(0, 3, frame.shape)
    quads = []
    way = np.array([np.cos(np.radians(-angle)), np.sin(np.radians(-angle))])
    for k, card in enumerate(ROW):
        centre = np.array([640.0, 360.0]) + (k - 2.5) * step * 120.0 * way
        frame, quad = _laid(frame, published_face(design, card, height=420), centre, angle)
        quads.append(quad)
    return np.clip(frame, 0, 255).astype(np.uint8), quads


def _named_in_place(found: list[Detection], quads: list[np.ndarray]) -> int:
    return sum(any(d.card == card and quad_iou(d.quad, quad) > 0.6 for d in found)
               for card, quad in zip(ROW, quads, strict=True))


def test_the_cards_of_a_spread_row_are_named_where_they_lie() -> None:
    # seven published designs nothing here drew, two ways round: 9 of 84 were named before
    # (the top card and a few bottom cards by their corner); 38 where the row is followed
    # from its top card found; 57 where, unfound (its side over the card under it as white
    # as that card, no shadow), the top card is read at an end of the row's outline
    rec = Recognizer("standard")
    named = wrong = 0
    for k, design in enumerate(BENCH_DESIGNS):
        for turn, angle in enumerate((-15.0, 170.0)):
            frame, quads = _row(design, angle, 0.4, seed=2 * k + turn)
            found = rec.detect(frame)
            named += _named_in_place(found, quads)
            wrong += sum(d.card is not None and d.card not in ROW for d in found)
    assert wrong == 0
    assert named >= 50


def test_a_row_is_followed_card_by_card_from_its_top_card() -> None:
    frame, quads = _row(BENCH_DESIGNS[2], 10.0, 0.35, seed=3)
    top = portrait(quads[-1].astype(np.float32))
    row = rows_under(edges_in(frame, (0, 0, 1280, 720)), top, [])
    assert len(row) == len(ROW) - 1
    for under, truth in zip(row, quads[-2::-1], strict=True):
        assert quad_iou(under, truth.astype(np.float32)) > 0.85


def test_a_card_alone_has_no_row_under_it() -> None:
    frame, quads = _row(BENCH_DESIGNS[2], 10.0, 0.0, seed=1)  # (all six in one place)
    top = portrait(quads[-1].astype(np.float32))
    assert rows_under(edges_in(frame, (0, 0, 1280, 720)), top, []) == []


def test_the_card_on_top_lies_at_an_end_of_its_row_s_outline() -> None:
    _, quads = _row(BENCH_DESIGNS[0], 10.0, 0.3, seed=0)
    outline = order_clockwise(np.asarray(cv2.boxPoints(cv2.minAreaRect(
        np.concatenate(quads).astype(np.float32))), np.float32))
    top = quads[-1].astype(np.float32)
    assert max(quad_iou(end, top) for end in row_ends(outline)) > 0.85
    assert row_ends(top) == []  # (one card's outline is no row's)
