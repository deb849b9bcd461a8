"""A card's outline moved onto its edges (vision.edges), and the small cards it reads."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.test_detect import _card_quad
from vision.card_faces import render_card
from vision.detect import quad_iou
from vision.edges import REACH, snapped_to_edges
from vision.enrolled import Gallery
from vision.outline_moves import pushed
from vision.pipeline import Recognizer
from vision.refusal import Refusal


def _on_table(face: np.ndarray, quad: np.ndarray, seed: int = 0) -> np.ndarray:
    """``face`` laid on a grainy grey table in ``quad``, casting a soft shadow to the
    lower right (as a lamp above and to one side does)."""
    rng = np.random.default_rng(seed)
    grain = cv2.GaussianBlur(rng.normal(0, 10, (360, 480)).astype(np.float32), (0, 0), 2)
    table = np.clip(150 + grain[..., None], 0, 255).astype(np.uint8).repeat(3, axis=2)
    h, w = face.shape[:2]
    to_table = cv2.getPerspectiveTransform(
        np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32), np.asarray(quad, np.float32))
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), to_table, (480, 360))
    shadow = cv2.GaussianBlur(np.roll(mask, (3, 3), axis=(0, 1)), (0, 0), 1.5)
    table = (table * (1 - 0.4 * shadow[..., None] / 255.0)).astype(np.uint8)
    cv2.warpPerspective(face, to_table, (480, 360), dst=table,
                        borderMode=cv2.BORDER_TRANSPARENT)
    return np.asarray(cv2.GaussianBlur(table, (3, 3), 0), np.uint8)


def test_outlines_a_little_off_are_moved_onto_the_cards_edges() -> None:
    # cards 45-120 px wide at any angle, each side moved in or out by up to most of the
    # reach (a cut index, the shadow taken in). A heuristic, so a share, measured on a
    # fixed set: 200 of 200 land within 2 px (or 4 % of the card) here
    rng = np.random.default_rng(0)
    faces = {card: render_card("standard", card) for card in ("AS", "7D", "10C", "QH")}
    close = worse = 0
    cases = 120
    for case in range(cases):
        width = float(rng.uniform(45, 120))
        truth = _card_quad((240, 180), width, float(rng.uniform(-90, 90)))
        image = _on_table(faces[("AS", "7D", "10C", "QH")[case % 4]], truth, seed=case)
        off = truth
        for side, move in enumerate(rng.uniform(-0.8, 0.8, 4)):
            off = pushed(off, side, float(move) * REACH)
        grey = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
        found = snapped_to_edges(grey, off)
        if found is None:
            continue
        # its corners in the order given
        close += float(np.linalg.norm(found - truth, axis=1).max()) < max(2.0, 0.04 * width)
        worse += quad_iou(found, truth) < quad_iou(off, truth)
    assert close >= 0.95 * cases
    assert worse <= 0.01 * cases


def test_an_outline_too_near_the_frames_border_to_look_round_is_left() -> None:
    truth = _card_quad((30, 180), 50, 0.0)
    image = _on_table(render_card("standard", "7D"), truth)
    grey = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
    assert snapped_to_edges(grey, truth) is None


@pytest.mark.parametrize(("width", "angle"), [(56, 10.0), (64, -25.0), (50, 80.0)])
def test_a_side_is_not_moved_in_across_the_cards_paper_onto_a_printed_frame(
        width: float, angle: float) -> None:
    # a frame printed inside the card's edge, on a light table where the card's own edge
    # is faint: the frame is the stronger edge, but the strip a side would cross to reach
    # it is the card's paper (a small jack so cut read as a queen)
    face = np.full((280, 200, 3), 235, np.uint8)
    cv2.rectangle(face, (22, 30), (178, 250), (160, 60, 30), 4)
    truth = _card_quad((240, 180), width, angle)
    lit = _on_table(face, truth).astype(np.float32)
    image = np.clip((lit - 150) * 0.3 + 215, 0, 255).astype(np.uint8)  # a light table
    found = snapped_to_edges(np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8),
                             truth)
    assert found is None or quad_iou(found, truth) > 0.95


def test_a_degenerate_outline_is_left() -> None:
    grey = np.full((120, 120), 90, np.uint8)
    point = np.array([[60, 60]] * 4, np.float32)
    assert snapped_to_edges(grey, point) is None
    nan = np.array([[40, 40], [80, 40], [80, np.nan], [40, 90]], np.float32)
    assert snapped_to_edges(grey, nan) is None


def test_a_small_card_whose_outline_cuts_its_index_is_read_on_its_edges() -> None:
    truth = _card_quad((240, 180), 62, 12.0)
    image = _on_table(render_card("standard", "9H"), truth)
    cut = pushed(truth, 3, -0.1)  # the left side through the index
    recognizer = Recognizer("standard")
    first = recognizer._read_quad(image, cut)
    assert first[0] is None
    (card, _, _), outline = recognizer._read_snapped(image, cut, first)
    assert card == "9H"
    assert quad_iou(outline, truth) > 0.95


def test_a_small_taught_card_whose_outline_is_off_is_read_on_its_edges() -> None:
    # near twins (a five of spades is a four with a pip more): a card out of line with
    # its reference by a few pixels looks like glare, or like no card taught
    cards = [f"{rank}{suit}" for rank in range(2, 11) for suit in "SH"]
    taught = Gallery.from_faces("numbers", {c: render_card("standard", c) for c in cards})
    truth = _card_quad((240, 180), 48, -20.0)
    image = _on_table(render_card("standard", "5S"), truth)
    off = pushed(pushed(truth, 1, -0.1), 2, 0.08)  # a side cut, another in the shadow
    recognizer = Recognizer(taught)
    first = recognizer._read_quad(image, off)
    assert first[0] is None
    (card, _, _), outline = recognizer._read_snapped(image, off, first)
    assert card == "5S"
    assert quad_iou(outline, truth) > 0.95


@pytest.mark.parametrize("width", [95.0, 150.0])
def test_a_card_not_small_is_not_moved_onto_edges_its_print_may_make(width: float) -> None:
    # a larger card's printed frame can be a stronger edge than its own: left as it is
    truth = _card_quad((240, 180), width, 0.0)
    image = _on_table(render_card("standard", "7D"), truth)
    cut = pushed(truth, 3, -0.3)
    recognizer = Recognizer("standard")
    first = (None, 0.0, Refusal.INDEX_NOT_FOUND)
    assert recognizer._read_snapped(image, cut, first) == (first, cut)
