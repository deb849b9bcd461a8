"""Cards on piles, found by their straight sides (vision/piles.py), and how the recognizer
treats such guesses: kept only where they read, never over a card already named."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from tests.vision.scripted import detector_finds
from vision.designs import TRAINING_DESIGNS, published_designs
from vision.detect import (
    CARD_ASPECT,
    FoundCard,
    edge_mask,
    find_cards_with_alternates,
    order_clockwise,
    quad_iou,
)
from vision.enrolled import Gallery
from vision.piles import _cards_at, _corners, _regions, _with_colour_edges
from vision.pipeline import Recognizer
from vision.render import CONDITIONS, render_card, render_scene, with_deck

INSTALLED = tuple(d for d in TRAINING_DESIGNS if d in {p.name for p in published_designs()})


def _card_at(centre: tuple[float, float], size: tuple[float, float], angle: float,
             ) -> np.ndarray:
    return order_clockwise(np.asarray(cv2.boxPoints((centre, size, angle)), np.float32))


def _placed(image: np.ndarray, quad: np.ndarray, card: str) -> None:
    face = render_card("standard", card, 3)
    h, w = face.shape[:2]
    to_image = cv2.getPerspectiveTransform(
        np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32), quad)
    cv2.warpPerspective(face, to_image, (image.shape[1], image.shape[0]), dst=image,
                        borderMode=cv2.BORDER_TRANSPARENT)


def test_two_segments_square_at_their_ends_make_one_corner() -> None:
    # an L: one segment along x, one along y, meeting (nearly) at (10, 10); a third
    # segment parallel to the first makes no corner with it
    segments = np.array([[12, 10, 110, 10], [10, 13, 10, 150], [12, 60, 110, 60]], np.float32)
    corners = _corners(segments)
    meets = {(round(float(m[0])), round(float(m[1]))) for (m, _, _), _ in corners}
    assert meets == {(10, 10)}  # the parallel one meets the upright at its middle
    (_, a, b), lengths = next(c for c in corners if np.hypot(*(c[0][0] - [10, 10])) < 2)
    assert {tuple(np.round(a).astype(int)), tuple(np.round(b).astype(int))} == {(1, 0), (0, 1)}
    assert sorted(lengths) == pytest.approx([98, 137])


def test_a_card_whose_far_side_shows_no_edge_is_guessed_in_a_cards_proportions() -> None:
    # a white card over another white card: three of its sides are edges, the fourth,
    # over the card under it, is none; it is placed where a card's proportions put it
    long = 120 * CARD_ASPECT
    card = np.array([[100, 100], [220, 100], [220, 100 + long], [100, 100 + long]], np.float32)
    edges = np.zeros((400, 400), np.uint8)
    for k in (0, 1, 3):  # its top, right and left sides
        start, end = np.round(card[k]).astype(int), np.round(card[(k + 1) % 4]).astype(int)
        cv2.line(edges, tuple(start.tolist()), tuple(end.tolist()), 255, 3)
    corner = (np.array([100, 100], np.float32), np.array([1, 0], np.float32),
              np.array([0, 1], np.float32))
    guesses = _cards_at(edges, corner, (120.0, 168.0))
    assert [edged for _, _, edged in guesses] == [3]
    assert quad_iou(guesses[0][1], card) > 0.95
    # its fourth side seen, the card is guessed from all four sides (a guess with a side
    # unseen is only ever another card: here one lying across, its long side the top)
    cv2.line(edges, (100, round(100 + long)), (220, round(100 + long)), 255, 3)
    guesses = _cards_at(edges, corner, (120.0, 168.0))
    assert guesses[0][2] == 4 and quad_iou(guesses[0][1], card) > 0.95
    assert all(quad_iou(quad, card) < 0.8 for _, quad, edged in guesses if edged == 3)


def test_a_card_whose_two_far_sides_show_no_edge_is_guessed_by_the_cards_size() -> None:
    # a card on top of a pile of cards of its white: only the two sides at one corner,
    # over the table, are edges; the cards found elsewhere tell its size
    long = 120 * CARD_ASPECT
    card = np.array([[100, 100], [220, 100], [220, 100 + long], [100, 100 + long]], np.float32)
    edges = np.zeros((400, 400), np.uint8)
    cv2.line(edges, (100, 100), (220, 100), 255, 3)
    cv2.line(edges, (100, 100), (100, round(100 + long)), 255, 3)
    corner = (np.array([100, 100], np.float32), np.array([1, 0], np.float32),
              np.array([0, 1], np.float32))
    assert not [g for g in _cards_at(edges, corner, (118.0, 165.0)) if g[2] == 2]
    sized = [g for g in _cards_at(edges, corner, (118.0, 165.0), card=120 * long)
             if g[2] == 2]
    assert max(quad_iou(quad, card) for _, quad, _ in sized) > 0.97
    # a card that size cannot lie across: its short side would end before the segment
    assert len(sized) == 1


@pytest.mark.parametrize(("seed", "card"), [(130006, "7C"), (130009, "QS")])
def test_the_top_card_of_a_pile_of_cards_of_its_white_is_read(seed: int, card: str) -> None:
    # 7C: its two far sides over cards of its white show no edge (placed by the size of
    # the cards found); QS: the guess along the frame printed inside it came first, and
    # the guess along its own sides was taken for another guess at the same card
    scene = render_scene(with_deck(CONDITIONS["overlap"], "standard"), seed)
    top = next(t for t in scene.cards if t.card == card)
    assert top.visible > 0.95
    named = [d for d in Recognizer("standard").detect(scene.image) if d.card is not None]
    assert any(d.card == card and quad_iou(d.quad, top.quad) > 0.9 for d in named)
    assert {d.card for d in named} <= {t.card for t in scene.cards}


def test_an_outline_over_most_of_the_frame_is_the_tables_texture_not_a_pile() -> None:
    # a real cloth's or wood's texture runs into the cards' outlines: one "pile" over the
    # whole frame, whose straight segments cost 60-160 ms a frame; a pile of three is one
    card = 120.0 * 170.0

    def box(x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
        return np.array([[[x0, y0]], [[x1, y0]], [[x1, y1]], [[x0, y1]]], np.int32)
    pile = box(400, 200, 700, 420)
    assert _regions([pile], [], card, (1280, 720)) == [(396, 196, 705, 425)]
    assert _regions([box(5, 5, 1270, 710)], [], card, (1280, 720)) == []
    assert _regions([box(5, 5, 1270, 710), pile], [], card, (1280, 720)) == [
        (396, 196, 705, 425)]


def test_segments_that_do_not_meet_at_an_end_make_no_corner() -> None:
    # a T: the upright segment stops at the middle of the other
    assert _corners(np.array([[10, 10, 110, 10], [60, 12, 60, 150]], np.float32)) == []


@pytest.mark.skipif(not INSTALLED, reason="no published deck design installed "
                    "(scripts/ensure-card-designs.sh)")
def test_a_card_on_a_pile_with_no_outline_of_its_own_is_guessed_and_read() -> None:
    # the king of hearts on top of a pile: its sides run into the cards under it, so no
    # closed outline is its own, and none of its corners is on the pile's outline
    cond = replace(with_deck(CONDITIONS["overlap"], "standard"), published=INSTALLED)
    scene = render_scene(cond, 1029)
    king = next(t for t in scene.cards if t.card == "KH")
    assert king.visible > 0.95
    plain = find_cards_with_alternates(scene.image)
    assert max(quad_iou(f.quad, king.quad) for f in plain) < 0.6
    guessed = [f for f in find_cards_with_alternates(scene.image, piles=True) if f.guessed]
    best = max(guessed, key=lambda f: quad_iou(f.quad, king.quad))
    assert quad_iou(best.quad, king.quad) > 0.85 and best.overlapped
    named = [d for d in Recognizer("standard").detect(scene.image) if d.card is not None]
    assert any(d.card == "KH" and quad_iou(d.quad, king.quad) > 0.85 for d in named)
    truth = {t.card for t in scene.cards}
    assert all(d.card in truth for d in named)


def test_a_guess_that_does_not_read_is_no_card(monkeypatch: pytest.MonkeyPatch) -> None:
    image = np.full((480, 640, 3), (40, 70, 30), np.uint8)
    blank = _card_at((320, 240), (120, 168), 10)
    cv2.fillConvexPoly(image, np.round(blank).astype(np.int32), (235, 235, 235))
    detector_finds(monkeypatch, [FoundCard(blank, [], True, guessed=True)])
    assert Recognizer("standard").detect(image) == []


def test_a_guess_that_reads_replaces_the_unread_outline_it_overlaps(
        monkeypatch: pytest.MonkeyPatch) -> None:
    image = np.full((480, 640, 3), (40, 70, 30), np.uint8)
    card = _card_at((320, 240), (120, 168), 0)
    _placed(image, card, "9C")
    # the first look outlined the card with a pile's corners: both indices cut off
    run_into = card + np.array([[0, 40], [0, 40], [0, -40], [0, -40]], np.float32)
    detector_finds(monkeypatch, [FoundCard(run_into, [], True),
                           FoundCard(card, [], True, guessed=True)])
    seen = Recognizer("standard").detect(image)
    assert [(d.card, quad_iou(d.quad, card) > 0.95) for d in seen] == [("9C", True)]


def test_a_guess_never_overrules_a_card_already_named(monkeypatch: pytest.MonkeyPatch) -> None:
    image = np.full((480, 640, 3), (40, 70, 30), np.uint8)
    card = _card_at((320, 240), (120, 168), 0)
    _placed(image, card, "9C")
    shifted = card + np.array([12, 0], np.float32)  # a guess half on the card, half on the table
    detector_finds(monkeypatch, [FoundCard(card, [], False),
                           FoundCard(shifted, [], True, guessed=True)])
    seen = Recognizer("standard").detect(image)
    assert [d.card for d in seen] == ["9C"] and quad_iou(seen[0].quad, card) > 0.95


@pytest.mark.parametrize(("size", "named"), [(1.0, True), (1.15, True), (1.6, False),
                                             (0.6, False)])
def test_a_guess_is_read_only_about_the_size_of_the_cards_named(
        monkeypatch: pytest.MonkeyPatch, size: float, named: bool) -> None:
    # one deck on the table: a guess at a card on a pile twice as large as the cards named
    # (or under half their size) outlines two cards, or a corner's strokes, not a card
    image = np.full((600, 900, 3), (40, 70, 30), np.uint8)
    found = []
    for centre, card in (((150, 150), "9C"), ((350, 150), "4H"), ((550, 150), "KS")):
        quad = _card_at(centre, (120, 168), 0)
        _placed(image, quad, card)
        found.append(FoundCard(quad, [], False))
    guess = _card_at((450, 420), (120 * size, 168 * size), 0)
    _placed(image, guess, "7D")
    detector_finds(monkeypatch, [*found, FoundCard(guess, [], True, guessed=True)])
    seen = [d.card for d in Recognizer("standard").detect(image)]
    assert seen[:3] == ["9C", "4H", "KS"]
    assert ("7D" in seen) == named


def test_garbage_and_blank_frames_give_no_guess_and_no_crash() -> None:
    rng = np.random.default_rng(3)
    for frame in (rng.integers(0, 256, (720, 1280, 3), dtype=np.uint8),
                  np.full((10, 10, 3), 255, np.uint8), np.zeros((480, 640), np.uint8)):
        assert not [f for f in find_cards_with_alternates(frame, piles=True) if f.guessed]


def test_a_card_is_guessed_round_an_unread_outline_of_two(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # two cards of a pile outlined as one card-shaped quad, its corners showing the two
    # cards' indices (it names neither): the top card still shows its straight sides,
    # and is read from them (and the card under it by its index corner in view,
    # vision.covered)
    image = np.full((480, 640, 3), (40, 70, 30), np.uint8)
    under = _card_at((300, 220), (130, 182), 0)
    top = _card_at((345, 265), (120, 168), 0)
    _placed(image, under, "4D")
    cv2.polylines(image, [np.round(under).astype(np.int32)], True, (150, 150, 150), 1)
    _placed(image, top, "9C")
    cv2.polylines(image, [np.round(top).astype(np.int32)], True, (120, 120, 120), 1)
    both = order_clockwise(np.array([[235, 129], [405, 129], [405, 349], [235, 349]], np.float32))
    detector_finds(monkeypatch, [FoundCard(both, [])])
    seen = {d.card: d.quad for d in Recognizer("standard").detect(image)}
    assert sorted(seen, key=str) == ["4D", "9C"]
    assert quad_iou(seen["9C"], top) > 0.9
    assert quad_iou(seen["4D"], under) > 0.6


def _taught_on(image: np.ndarray, quad: np.ndarray, deck: str, card: str) -> None:
    face = render_card(deck, card)
    h, w = face.shape[:2]
    to_image = cv2.getPerspectiveTransform(
        np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32), quad)
    cv2.warpPerspective(face, to_image, (image.shape[1], image.shape[0]), dst=image,
                        borderMode=cv2.BORDER_TRANSPARENT)


def test_a_guessed_taught_card_partly_under_a_card_found_is_not_read(
        monkeypatch: pytest.MonkeyPatch, galleries: dict[str, Gallery]) -> None:
    # the part of a taught card under another may be all that tells it from its near
    # twins (a star apart): a guess at it is read only where no card found lies on it
    image = np.full((480, 640, 3), (40, 70, 30), np.uint8)
    under = _card_at((280, 250), (130, 182), 0)
    over = _card_at((400, 200), (130, 182), 0)  # over the top right of the first
    _taught_on(image, under, "star-catcher", "D4")
    _taught_on(image, over, "star-catcher", "C9**")
    recognizer = Recognizer(galleries["star-catcher"])
    detector_finds(monkeypatch, [FoundCard(under, [], True, guessed=True)])
    assert [d.card for d in recognizer.detect(image)] == ["D4"]  # alone, it reads
    detector_finds(monkeypatch, [FoundCard(over, [], True),
                                 FoundCard(under, [], True, guessed=True)])
    assert [d.card for d in recognizer.detect(image)] == ["C9**"]


def test_a_guess_a_little_into_a_card_found_is_read_where_the_deck_has_no_near_twins(
        monkeypatch: pytest.MonkeyPatch, galleries: dict[str, Gallery]) -> None:
    # the same pile in Star Plus, whose cards are no near twins: the guess's corner under
    # the card over it (about 6 % of it) hides no mark that tells it from another card
    assert galleries["star-catcher"].near_twins and not galleries["star-plus"].near_twins
    image = np.full((480, 640, 3), (40, 70, 30), np.uint8)
    under = _card_at((280, 250), (130, 182), 0)
    over = _card_at((400, 200), (130, 182), 0)
    _taught_on(image, under, "star-plus", "4")
    _taught_on(image, over, "star-plus", "-3")
    detector_finds(monkeypatch, [FoundCard(over, [], True),
                                 FoundCard(under, [], True, guessed=True)])
    seen = Recognizer(galleries["star-plus"]).detect(image)
    assert sorted(str(d.card) for d in seen) == ["-3", "4"]


@pytest.mark.parametrize(("over_centre", "reads"), [((370, 220), True), ((330, 250), False)])
def test_a_guess_a_quarter_under_a_card_found_is_read_where_the_deck_has_no_near_twins(
        monkeypatch: pytest.MonkeyPatch, galleries: dict[str, Gallery],
        over_centre: tuple[float, float], reads: bool) -> None:
    # a quarter of a Star Plus card under the card over it hides no mark that tells it
    # from another card, and what shows names it (pipeline.GUESS_COVERED_NO_TWINS); two
    # thirds of it under, too little shows to name it
    image = np.full((480, 640, 3), (40, 70, 30), np.uint8)
    under = _card_at((280, 250), (130, 182), 0)
    over = _card_at(over_centre, (130, 182), 0)
    _taught_on(image, under, "star-plus", "4")
    _taught_on(image, over, "star-plus", "-3")
    detector_finds(monkeypatch, [FoundCard(over, [], True),
                                 FoundCard(under, [], True, guessed=True)])
    seen = Recognizer(galleries["star-plus"]).detect(image)
    assert sorted(str(d.card) for d in seen) == (["-3", "4"] if reads else ["-3"])


def test_two_cards_of_one_brightness_and_two_tints_meet_at_an_edge_of_colour() -> None:
    # a pale green card beside a pale pink one, as bright as each other: their grey images
    # meet with no edge; the colour does
    image = np.zeros((160, 200, 3), np.uint8)
    image[:, :100] = (200, 230, 200)  # BGR: pale green
    image[:, 100:] = (225, 205, 255)  # pale pink
    gray = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
    assert abs(int(gray[0, 0]) - int(gray[0, 199])) <= 5
    grey_edges = edge_mask(gray)
    assert not grey_edges[20:140, 95:105].any()
    edges = _with_colour_edges(grey_edges, image, [(40, 10, 160, 150)])
    assert edges[20:140, 97:103].any(axis=1).all()  # all along the side
    assert not edges[:, :90].any() and not edges[:, 110:].any()  # and nowhere else
    assert _with_colour_edges(grey_edges, None, [(40, 10, 160, 150)]) is grey_edges


def test_nothing_off_the_play_area_is_read_or_guessed_at(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the calibration markers' white squares are outline enough for two cards: without the
    # play area they are looked over for cards on piles, which took most of a frame's time
    from vision.simtable import SimTable, rendered_gallery

    table = SimTable("star-plus", ("Ann", "Ben"), size=(800, 450))
    table.show(table.with_added(["2", "4", "1"], "seat:Ann"), wait=False)
    frame = table.render()
    x0, y0, x1, y1 = table.rect
    margin = table.marker_side

    def counts(point: tuple[float, float]) -> bool:  # as the calibrated camera's test
        x, y = point
        near_corner = min(x - x0, x1 - x) < margin and min(y - y0, y1 - y) < margin
        return x0 <= x <= x1 and y0 <= y <= y1 and not near_corner

    read: list[tuple[float, float]] = []
    read_quad = Recognizer._read_quad

    def spy(self: Recognizer, image: np.ndarray, quad: np.ndarray, *args: object,
            **kwargs: object) -> tuple[str | None, float, object]:
        centre = quad.mean(axis=0)
        read.append((float(centre[0]), float(centre[1])))
        return read_quad(self, image, quad, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Recognizer, "_read_quad", spy)
    recognizer = Recognizer(rendered_gallery("star-plus"))
    everywhere = recognizer.detect(frame)
    assert not all(counts(p) for p in read)  # the markers were looked at
    read.clear()
    on_the_area = recognizer.detect(frame, counts)
    assert read and all(counts(p) for p in read)
    assert sorted(str(d.card) for d in on_the_area) == ["1", "2", "4"]
    assert sorted(str(d.card) for d in everywhere if counts(tuple(d.quad.mean(axis=0)))) \
        == ["1", "2", "4"]
