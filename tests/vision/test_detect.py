"""Card detection on rendered scenes: found where they are, nothing where they are not."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

import vision.second_look as second_look
from vision.bench import PUBLISHED, bench_designs, conditions_for
from vision.detect import (
    DetectorSettings,
    _panel_of,
    dewarp,
    find_cards,
    find_cards_halved,
    find_cards_with_alternates,
    order_clockwise,
    portrait,
    quad_from_contour,
    quad_iou,
)
from vision.enrolled import Gallery
from vision.one_corner import one_index_covered
from vision.outline_moves import pushed
from vision.photo_changes import changed
from vision.photos import load_photos, missing_reason
from vision.pipeline import Detection, Recognizer, _black_named_surely
from vision.refusal import Refusal
from vision.render import CONDITIONS, TRAIN_DESIGNS, render_card, render_scene, with_deck
from vision.second_look import card_round_print, cards_left_open, cards_round_panel
from vision.standard import identify_standard
from vision.thresholds import Thresholds


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


@pytest.mark.parametrize(("seed", "card"), [(1033, "lamp"), (1039, "fox"), (1044, "harry")])
def test_a_card_round_an_off_centre_panel_wins_over_the_panel(seed: int, card: str) -> None:
    # Can't Catch Harry's picture panel leaves room for the name below it: it is not
    # centred on the card, yet it is the card round it that must be found
    scene = render_scene(with_deck(CONDITIONS["lighting"], "cant-catch-harry"), seed)
    truth = next(t for t in scene.cards if t.card == card)
    quads = find_cards(scene.image)
    assert max(quad_iou(q, truth.quad) for q in quads) > 0.9


def test_a_card_inside_the_outline_of_overlapping_cards_is_not_taken_for_a_panel() -> None:
    scene = render_scene(with_deck(CONDITIONS["overlap"], "cant-catch-harry"), 1003)
    truth = next(t for t in scene.cards if t.card == "twin")
    assert max(quad_iou(q, truth.quad) for q in find_cards(scene.image)) > 0.8


def test_a_panel_is_square_to_its_card_with_a_border_on_every_side() -> None:
    card = np.array([[0, 0], [100, 0], [100, 140], [0, 140]], np.float32)
    # room for a name below
    panel = np.array([[10, 16], [90, 16], [90, 100], [10, 100]], np.float32)
    assert _panel_of(panel, card)
    assert _panel_of(np.roll(panel, 1, axis=0), np.roll(card, 2, axis=0))  # any corner order
    # two cards in one outline
    blob = np.array([[0, 0], [100, 0], [100, 200], [0, 200]], np.float32)
    assert not _panel_of(card, blob)  # the top card touches the blob's outline
    # a card lying across a blob
    askew = np.array([[20, 5], [95, 20], [80, 95], [5, 80]], np.float32)
    assert not _panel_of(askew, np.array([[0, 0], [100, 0], [100, 100], [0, 100]], np.float32))


@pytest.mark.parametrize(("seed", "card"), [(1086, "lamp"), (1171, "furry")])
def test_a_card_whose_faint_sides_hid_it_is_found_round_its_panel(
        seed: int, card: str, galleries: dict[str, Gallery]) -> None:
    # a light card on a light table: only its printed panel is outlined by the frame's
    # edges; a second look round the card-shaped hull of its faint sides finds the card
    # (the panel gives way to it), and a caller holding the panel alone finds it too
    scene = render_scene(with_deck(CONDITIONS["lighting"], "cant-catch-harry"), seed)
    truth = next(t for t in scene.cards if t.card == card)
    assert max(quad_iou(q, truth.quad) for q in find_cards(scene.image)) > 0.9
    centre = truth.quad.mean(axis=0)
    panel = np.array(centre + 0.75 * (truth.quad - centre), np.float32)
    assert max(quad_iou(q, truth.quad) for q in cards_round_panel(scene.image, panel)) > 0.9
    seen = Recognizer(galleries["cant-catch-harry"]).detect(scene.image)
    best = max(seen, key=lambda d: quad_iou(d.quad, truth.quad))
    assert best.card == card
    assert quad_iou(best.quad, truth.quad) > 0.9


def test_no_card_is_found_round_a_lone_quad_on_a_bare_table() -> None:
    scene = render_scene(with_deck(CONDITIONS["empty"], "standard"), 300)
    square = np.array([[600, 300], [680, 300], [680, 400], [600, 400]], np.float32)
    assert cards_round_panel(scene.image, square) == []
    assert cards_round_panel(scene.image, square - 700) == []  # off the image


@pytest.mark.parametrize(("seed", "card"), [(1013, "5H"), (1112, "2H"), (1243, "2C")])
def test_a_light_card_whose_outline_did_not_close_is_found_by_a_second_look(
        seed: int, card: str) -> None:
    # a light card on a light table under a gradient, blurred and noisy: only its two
    # shadowed sides pass the frame's edge thresholds, and its unlit middle leaks out of
    # the brightness mask; the card-shaped hull of what was seen is looked at again
    cond = replace(with_deck(CONDITIONS["lighting"], "standard"), designs=TRAIN_DESIGNS)
    scene = render_scene(cond, seed)
    truth = next(t for t in scene.cards if t.card == card)
    assert max(quad_iou(q, truth.quad) for q in find_cards(scene.image)) > 0.9
    seen = Recognizer("standard").detect(scene.image)
    best = max(seen, key=lambda d: quad_iou(d.quad, truth.quad))
    assert best.card in (card, None)  # never another card


def test_a_card_shaped_hull_on_a_bare_table_is_not_a_card() -> None:
    scene = render_scene(with_deck(CONDITIONS["empty"], "standard"), 300)
    gray = np.asarray(cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY), np.uint8)
    # three sides of a card-sized quad: an outline that did not close
    sides = np.array([[[600 + x, 300]] for x in range(90)] + [[[690, 300 + y]] for y in range(125)]
                     + [[[690 - x, 425]] for x in range(90)], np.int32)
    settings = DetectorSettings()
    hull = np.asarray(cv2.convexHull(sides), np.int32)
    assert quad_from_contour(hull, settings, float(gray.size)) is not None  # card-shaped
    assert cards_left_open(gray, [sides], [], settings) == []
    # an outline inside a card already found is that card's print, not another card
    card = np.array([[600, 300], [690, 300], [690, 425], [600, 425]], np.float32)
    assert cards_left_open(gray, [sides], [card], settings) == []


def test_a_blurred_light_card_on_a_light_table_is_found_by_a_fainter_look(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a camera out of focus (2.5 px): a light card's sides on a light table are graded
    # over several pixels, under the upper edge threshold of the frame and of the usual
    # second look; where a card-shaped hull is there, a fainter look closes the outline
    image = np.full((480, 640), 165, np.float32)
    cv2.rectangle(image, (220, 100), (419, 379), 195, -1)
    gray = np.asarray(np.clip(cv2.GaussianBlur(image, (0, 0), 2.5), 0, 255), np.uint8)
    sides = np.array([[[220 + x, 100]] for x in range(200)]
                     + [[[419, 100 + y]] for y in range(280)]
                     + [[[419 - x, 379]] for x in range(200)], np.int32)
    card = np.array([[220, 100], [419, 100], [419, 379], [220, 379]], np.float32)
    found = cards_left_open(gray, [sides], [], DetectorSettings())
    assert len(found) == 1 and quad_iou(found[0], card) > 0.95
    # nothing on the table: the fainter look finds nothing either
    bare = np.asarray(cv2.GaussianBlur(np.full((480, 640), 165, np.uint8), (0, 0), 2.5), np.uint8)
    assert cards_left_open(bare, [sides], [], DetectorSettings()) == []
    monkeypatch.setattr(second_look, "OPEN_LOOKS", second_look.OPEN_LOOKS[:-1])
    assert cards_left_open(gray, [sides], [], DetectorSettings()) == []


@pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or "")
def test_a_blurred_real_photo_of_a_card_on_a_light_table_is_read() -> None:
    # a webcam photo of a seven of clubs on a light grey sheet, blurred as an unfocused
    # camera would: no edge of the frame's first look goes round it
    photo = next(p for p in load_photos() if p.name == "wmcnicho/test11.jpg")
    image = np.asarray(cv2.GaussianBlur(photo.read(), (0, 0), 2.5), np.uint8)
    assert [d.card for d in Recognizer("standard").detect(image)] == ["7C"]


def _hazy_framed_card(gap: bool = True, card_on_table: bool = True) -> np.ndarray:
    """A light card on a light grey table in haze, its sides 16 grey levels from the
    table, a dark frame printed round its pips (a fifth of it), a gap in its left side
    where a pale corner meets it."""
    image = np.full((480, 640), 168, np.uint8)
    if card_on_table:
        cv2.rectangle(image, (210, 65), (412, 365), 184, -1)
        if gap:
            image[300:365, 208:214] = 168  # the side fades into the table
            image[300:365, 214:218] = 176
    cv2.rectangle(image, (262, 126), (360, 297), 110, 2)
    cv2.putText(image, "2", (228, 105), cv2.FONT_HERSHEY_SIMPLEX, 1.1, 150, 3)
    return np.asarray(cv2.GaussianBlur(image, (0, 0), 1.0), np.uint8)


def test_a_hazy_card_is_found_round_the_panel_printed_on_it() -> None:
    panel = np.array([[262, 126], [360, 126], [360, 297], [262, 297]], np.float32)
    card = np.array([[210, 65], [412, 65], [412, 365], [210, 365]], np.float32)
    settings = DetectorSettings()
    # the card's sides are broken: no contour round the panel closes
    assert cards_round_panel(_hazy_framed_card(), panel, settings) == []
    found = card_round_print(_hazy_framed_card(), panel, settings)
    assert found is not None and quad_iou(found, card) > 0.9
    # a frame on the bare table is no card's panel
    assert card_round_print(_hazy_framed_card(card_on_table=False), panel, settings) is None
    # nor is an outline under a fifth of the hull round it (on a pile, a court's picture
    # and the hull of its own card's edges and its neighbours')
    centre = panel.mean(axis=0)
    small = np.asarray(centre + (panel - centre) * 0.8, np.float32)
    assert card_round_print(_hazy_framed_card(), small, settings) is None


@pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or "")
def test_a_real_photo_in_haze_is_read_round_the_panel_printed_on_the_card() -> None:
    # a webcam photo of a two of hearts with a frame round its pips, at 60 % contrast:
    # the frame's edges outline only the frame
    photo = next(p for p in load_photos() if p.name == "wmcnicho/test30.jpg")
    image = np.asarray(np.clip(photo.read() * 0.6 + 102, 0, 255), np.uint8)
    assert [d.card for d in Recognizer("standard").detect(image)] == ["2H"]


def _two_shadowed_sides() -> np.ndarray:
    """White paper, a white card on it lit from the top right: only its left and bottom
    sides cast a shadow (a line of the paper's grey), nothing shows the other two."""
    image = np.full((720, 960, 3), 232, np.uint8)
    cv2.polylines(image, [np.array([[300, 200], [300, 480], [500, 480]], np.int32)], False,
                  (150, 150, 150), 3)
    return np.asarray(cv2.GaussianBlur(image, (0, 0), 1.0), np.uint8)


def test_a_card_two_of_whose_sides_alone_show_is_guessed_from_them() -> None:
    found = find_cards_with_alternates(_two_shadowed_sides(),
                                       DetectorSettings(), piles=True)
    two_sided = [f for f in found if f.two_sided]
    card = np.array([[300, 200], [500, 200], [500, 480], [300, 480]], np.float32)
    assert len(two_sided) == 1 and quad_iou(two_sided[0].quad, card) > 0.9
    # without its guesses at piles, a caller gets no guess from two sides either, unless
    # it asks for those alone
    assert not any(f.two_sided for f in find_cards_with_alternates(
        _two_shadowed_sides(), DetectorSettings()))
    alone = find_cards_with_alternates(_two_shadowed_sides(), DetectorSettings(),
                                       two_sides=True)
    assert [f.two_sided for f in alone] == [True] and not any(f.guessed for f in alone)
    # a guess from two sides is a card only if it reads: two lines on the paper are none
    assert Recognizer("standard").detect(_two_shadowed_sides()) == []


@pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or "")
@pytest.mark.parametrize(("name", "card"), [("guillex7/query/q6.jpg", "AC"),
                                            ("guillex7/query/q7.jpg", "AS")])
def test_a_white_card_on_white_paper_is_read_by_its_two_shadowed_sides(
        name: str, card: str) -> None:
    # an ace on a sheet of white paper, lit from the far side: its two near sides cast a
    # thin shadow, its other two are no edge at all (the spade's seen from a seat, its
    # near corner at 115 degrees)
    photo = next(p for p in load_photos() if p.name == name)
    assert [d.card for d in Recognizer("standard").detect(photo.read())] == [card]


def _card_quad(centre: tuple[float, float], width: float, angle: float) -> np.ndarray:
    """Corners of a card ``width`` pixels wide (poker proportions) turned ``angle`` degrees."""
    box = cv2.boxPoints(((centre[0], centre[1]), (width, width * 88 / 63), angle))
    return order_clockwise(np.asarray(box, np.float32))


def _table(cards: list[np.ndarray], size: tuple[int, int] = (720, 1280), seed: int = 0,
           sheet: tuple[int, int, int, int] | None = None) -> np.ndarray:
    """A wood-brown, grainy table with light cards on it: rounded corners, a corner index
    and a pip each, a soft shadow (a camera's photo, drawn); ``sheet`` (x0, y0, x1, y1):
    a pale blue sheet of paper under the cards."""
    rng = np.random.default_rng(seed)
    h, w = size
    grain = cv2.GaussianBlur(rng.normal(0, 12, (h, w)).astype(np.float32), (0, 0), 3)
    wood = np.array([60, 95, 140], np.float32)
    image: np.ndarray = np.clip(wood + grain[..., None], 0, 255).astype(np.uint8)
    if sheet is not None:
        x0, y0, x1, y1 = sheet
        paper = np.array([190, 175, 160], np.float32)
        image[y0:y1, x0:x1] = np.clip(paper + grain[y0:y1, x0:x1, None], 0, 255).astype(np.uint8)
    for quad in cards:
        side = float(np.linalg.norm(quad[1] - quad[0]))
        short = min(side, float(np.linalg.norm(quad[2] - quad[1])))
        radius = max(2, round(0.07 * short))
        face = np.full((280, 200, 3), 235, np.uint8)
        cv2.putText(face, "7", (12, 42), cv2.FONT_HERSHEY_SIMPLEX, 1.3, (20, 20, 20), 3)
        cv2.circle(face, (100, 140), 28, (30, 30, 200), -1)
        mask = np.zeros((280, 200), np.uint8)
        r = round(radius * 200 / short)
        cv2.rectangle(mask, (r, 0), (199 - r, 279), 255, -1)
        cv2.rectangle(mask, (0, r), (199, 279 - r), 255, -1)
        for cx, cy in ((r, r), (199 - r, r), (r, 279 - r), (199 - r, 279 - r)):
            cv2.circle(mask, (cx, cy), r, 255, -1)
        q = portrait(quad)
        m = cv2.getPerspectiveTransform(
            np.array([[0, 0], [200, 0], [200, 280], [0, 280]], np.float32), q)
        shadow = cv2.warpPerspective(mask, m, (w, h))
        shadow = cv2.GaussianBlur(np.roll(shadow, (3, 3), axis=(0, 1)), (0, 0), 2)
        image = (image * (1 - 0.35 * shadow[..., None] / 255.0)).astype(np.uint8)
        warped = cv2.warpPerspective(face, m, (w, h))
        alpha = cv2.warpPerspective(mask, m, (w, h))[..., None] / 255.0
        image = (image * (1 - alpha) + warped * alpha).astype(np.uint8)
    return image


@pytest.mark.parametrize(("width", "angle"), [(420, 3.0), (460, -8.0), (640, 90.0)])
def test_a_card_filling_much_of_the_frame_is_a_card(width: float, angle: float) -> None:
    # a low camera or a card held up to it: a third to two thirds of the frame
    quad = _card_quad((640, 360), width, angle)
    assert cv2.contourArea(quad) > 0.25 * 1280 * 720
    quads = find_cards(_table([quad]))
    assert len(quads) == 1
    assert quad_iou(quads[0], quad) > 0.93


def test_cards_60_pixels_wide_in_a_1280_by_720_frame_are_found() -> None:
    truth = [_card_quad((160 + 190 * i, 200 + 280 * (i % 2)), 60, 25.0 * i) for i in range(6)]
    quads = find_cards(_table(truth, seed=1))
    assert len(quads) == len(truth)
    for t in truth:
        assert max(quad_iou(q, t) for q in quads) > 0.85


def test_the_table_or_a_sheet_cut_by_the_frame_is_not_a_card() -> None:
    # a light sheet of paper reaching out of the frame, in a card's proportions where it
    # shows, with one card on it: only the card
    card = _card_quad((700, 380), 150, 10.0)
    quads = find_cards(_table([card], sheet=(300, 80, 1280, 720)))
    assert len(quads) == 1
    assert quad_iou(quads[0], card) > 0.85
    # nor is a frame whose middle is lighter than its dark border (vignetting)
    frame = np.full((720, 1280, 3), 200, np.uint8)
    frame[:12] = frame[-12:] = frame[:, :12] = frame[:, -12:] = 40
    assert find_cards(frame) == []


def _card_at(centre: tuple[float, float], size: tuple[float, float], angle: float,
             ) -> np.ndarray:
    box = cv2.boxPoints((centre, size, angle))
    return order_clockwise(np.asarray(box, np.float32))


def test_a_card_on_top_of_others_is_found_in_their_joint_outline() -> None:
    # three cards overlapping on a dark cloth: their outlines run into one another, so
    # no closed outline is the top card's; three of its corners on the joint outline are
    image = np.full((480, 640, 3), (40, 70, 30), np.uint8)
    under = [_card_at((250, 220), (120, 168), 10), _card_at((390, 250), (120, 168), -35)]
    top = _card_at((320, 300), (120, 168), 65)
    for quad in (*under, top):
        cv2.fillConvexPoly(image, np.round(quad).astype(np.int32), (235, 235, 235))
        cv2.polylines(image, [np.round(quad).astype(np.int32)], True, (120, 120, 120), 2)
    found = find_cards_with_alternates(image)
    best = max(found, key=lambda f: quad_iou(f.quad, top))
    assert quad_iou(best.quad, top) > 0.9
    assert best.overlapped  # its corners may show the others' indices
    assert all(quad_iou(f.quad, top) > 0.9 or max(quad_iou(f.quad, u) for u in under) > 0.5
               for f in found)  # nothing made up of pieces of two cards


def test_an_overlapped_card_whose_outline_cuts_its_index_is_read_pushed_out() -> None:
    # where a card lies over another of the same white, the pile's outline can put one
    # of its sides through the card's index: the card is read with that side pushed out

    image = np.full((480, 640, 3), (40, 70, 30), np.uint8)
    card = _card_at((320, 240), (110, 154), 0)
    face = render_card("standard", "10C", 3)
    h, w = face.shape[:2]
    to_image = cv2.getPerspectiveTransform(
        np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32), card)
    cv2.warpPerspective(face, to_image, (640, 480), dst=image,
                        borderMode=cv2.BORDER_TRANSPARENT)
    narrowed = pushed(card, 3, -0.14)  # the left side a seventh of the card inside
    # read as it is, one corner's index is cut, and an overlapped card needs both
    assert identify_standard(dewarp(image, narrowed), card_px=110, overlapped=True).card is None
    assert Recognizer("standard")._read_quad(image, narrowed, overlapped=True)[0] == "10C"


@pytest.mark.skipif(not bench_designs(), reason="no published deck design installed "
                    "(scripts/ensure-card-designs.sh)")
def test_an_outline_with_a_side_across_paper_names_no_other_card() -> None:
    # three overlapping cards: one outline takes the corners of the five of spades and the
    # nine of spades with a side across the jack of diamonds between them, and its top
    # corner reads the five. A side along no edge makes the outline overlapped: both of
    # its corners must read the card it names, and here they do not
    scene = render_scene(conditions_for(PUBLISHED, "overlap"), 514)
    found = find_cards_with_alternates(scene.image)
    across = [f for f in found if all(quad_iou(f.quad, t.quad) < 0.6 for t in scene.cards)]
    assert across and all(f.overlapped for f in across)
    for d in Recognizer("standard").detect(scene.image):
        if d.card is not None:
            truth = next(t for t in scene.cards if t.card == d.card)
            assert quad_iou(d.quad, truth.quad) > 0.6, d.card


@pytest.mark.skipif(not bench_designs(), reason="no published deck design installed "
                    "(scripts/ensure-card-designs.sh)")
def test_an_overlapped_card_pushed_out_is_not_also_read_a_quarter_round() -> None:
    # an outline on a pile whose corners read no index, read again with a side pushed out
    # (its index may have been cut): read a quarter round as well, the nine of diamonds'
    # index and the seven's pips under it named a king of diamonds, a card not on the table
    scene = render_scene(conditions_for(PUBLISHED, "overlap"), 37004)
    named = {d.card for d in Recognizer("standard").detect(scene.image)} - {None}
    assert named <= {t.card for t in scene.cards}


def test_a_card_foreshortened_to_a_square_is_read_and_a_square_tile_is_no_card() -> None:
    # a camera tilted steeply makes a card's long sides as short as its short ones: the
    # outline is square, and kept because it reads; a blank square tile reads nothing
    image = np.full((480, 640, 3), (40, 70, 30), np.uint8)
    face = render_card("standard", "7D", 3)
    h, w = face.shape[:2]
    card = np.array([[150, 170], [290, 170], [290, 310], [150, 310]], np.float32)
    to_image = cv2.getPerspectiveTransform(
        np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32), card)
    cv2.warpPerspective(face, to_image, (640, 480), dst=image,
                        borderMode=cv2.BORDER_TRANSPARENT)
    tile = np.array([[400, 170], [540, 170], [540, 310], [400, 310]], np.float32)
    cv2.fillConvexPoly(image, tile.astype(np.int32), (235, 235, 235))
    assert find_cards_with_alternates(image) == []  # squarer than a card
    found_apart = find_cards_with_alternates(image, squares=True)
    assert all(f.square for f in found_apart)  # each a card only if it reads
    assert any(quad_iou(f.quad, card) > 0.85 for f in found_apart)
    assert any(quad_iou(f.quad, tile) > 0.85 for f in found_apart)
    found = Recognizer("standard").detect(image)
    assert [d.card for d in found] == ["7D"]
    assert quad_iou(found[0].quad, card) > 0.85


def test_one_index_corner_under_another_card_leaves_the_other_to_name_the_card() -> None:
    card = np.array([[100, 100], [200, 100], [200, 240], [100, 240]], np.float32)
    over_bottom = np.array([[170, 200], [300, 200], [300, 380], [170, 380]], np.float32)
    over_both = np.array([[50, 50], [300, 50], [300, 380], [50, 380]], np.float32)
    aside = np.array([[400, 100], [500, 100], [500, 240], [400, 240]], np.float32)
    assert one_index_covered(card, [over_bottom, aside])
    assert not one_index_covered(card, [aside])  # neither: both must read as any card's
    assert not one_index_covered(card, [over_both])  # both: nothing of its own shows
    # an outline across a pile, far longer than a card: its clear corner may be any card's
    across = np.array([[100, 100], [200, 100], [200, 300], [100, 300]], np.float32)
    over_its_bottom = np.array([[170, 260], [300, 260], [300, 440], [170, 440]], np.float32)
    assert not one_index_covered(across, [over_its_bottom])


@pytest.mark.skipif(not bench_designs(), reason="no published deck design installed "
                    "(scripts/ensure-card-designs.sh)")
def test_an_overlapped_card_with_its_other_index_under_a_card_is_read_from_one() -> None:
    # the ace of clubs, its bottom-right corner under the seven of hearts lying over it:
    # the outline's side there is faint, so it counts as overlapped, and its one clear
    # index names it
    scene = render_scene(conditions_for(PUBLISHED, "overlap"), 27)
    ace = next(t for t in scene.cards if t.card == "AC")
    found = [d for d in Recognizer("standard").detect(scene.image)
             if quad_iou(d.quad, ace.quad) > 0.8]
    assert [d.card for d in found] == ["AC"]


def test_an_outline_round_a_card_and_half_the_card_under_it_does_not_name_that_one() -> None:
    # a seven of clubs lies half under a nine of spades (our design, a fresh seed): one
    # outline ran round the seven's top half and the nine's bottom, its far sides 108 and
    # 179 px long; read as one card alone, its one clear index named the seven over the
    # nine. Uneven sides make it an outline over a pile: the nine is found and read
    scene = render_scene(with_deck(CONDITIONS["overlap"], "standard"), 44039)
    nine = next(t for t in scene.cards if t.card == "9S")
    found = [d for d in Recognizer("standard").detect(scene.image)
             if quad_iou(d.quad, nine.quad) > 0.3]
    assert [d.card for d in found] == ["9S"]
    assert quad_iou(found[0].quad, nine.quad) > 0.9


def _blurred_card_on_a_light_sheet(card: str, blur: float = 2.5) -> np.ndarray:
    """A card whose paper is 18 grey levels above a light grey sheet, 200 x 280 px in a
    640 x 480 frame, the whole frame blurred ``blur`` px (a webcam out of focus)."""
    image = np.full((480, 640, 3), 172, np.uint8)
    face = cv2.resize(render_card("standard", card, TRAIN_DESIGNS[0]), (200, 280),
                      interpolation=cv2.INTER_AREA).astype(np.float32)
    image[90:370, 220:420] = np.clip(face * 190 / 250, 0, 255).astype(np.uint8)
    return np.asarray(cv2.GaussianBlur(image, (0, 0), blur), np.uint8)


def test_a_blurred_card_that_no_outline_finds_is_found_at_half_size() -> None:
    image = _blurred_card_on_a_light_sheet("6D")
    card = np.array([[220, 90], [420, 90], [420, 370], [220, 370]], np.float32)
    # the blur spreads its sides' 18 grey levels below the edge thresholds ...
    assert find_cards_with_alternates(image, piles=True, squares=True) == []
    # ... half as far at half the size
    (found,) = find_cards_halved(image)
    assert quad_iou(found.quad, card) > 0.85
    assert [d.card for d in Recognizer("standard").detect(image)] == ["6D"]
    # a blurred empty sheet shows no card at either size
    empty = np.asarray(cv2.GaussianBlur(np.full((480, 640, 3), 172, np.uint8), (0, 0), 2.5),
                       np.uint8)
    assert find_cards_halved(empty) == [] and Recognizer("standard").detect(empty) == []


def test_a_black_card_found_only_at_half_size_is_named_only_surely() -> None:
    quad = np.array([[0, 0], [50, 0], [50, 70], [0, 70]], np.float32)
    # (its face or an unsure corner named it: blurred so, a spade's pips look a club's)
    unsure = _black_named_surely(Detection("5C", quad, Thresholds.glyph))
    assert unsure.card is None and unsure.reason is Refusal.SUIT_UNCLEAR
    assert _black_named_surely(Detection("5C", quad, 0.97)).card == "5C"
    assert _black_named_surely(Detection("5H", quad, 0.5)).card == "5H"


@pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or "")
def test_a_real_photo_blurred_so_that_no_outline_shows_is_read() -> None:
    # a webcam photo of a six of diamonds on a light grey sheet, blurred 2.5 px: its
    # sides show at half the size only (it was "not found")
    photo = next(p for p in load_photos() if p.name == "wmcnicho/test16.jpg")
    image, _ = changed(photo.read(), photo.cards, "blur 2.5 px")
    assert [d.card for d in Recognizer("standard").detect(image)] == ["6D"]


def test_a_blurred_card_beside_an_outlined_thing_that_names_nothing_is_found_at_half_size(
        ) -> None:
    # a dark coaster's strong edges outline at full size, the blurred card's do not: the
    # first look names nothing, so the frame is looked at halved, as if it outlined nothing
    image = _blurred_card_on_a_light_sheet("6D")
    image[150:250, 40:140] = cv2.GaussianBlur(np.full((100, 100, 3), 60, np.uint8), (0, 0), 1)
    coaster = np.array([[40, 150], [140, 150], [140, 250], [40, 250]], np.float32)
    seen = Recognizer("standard").detect(image)
    assert [d.card for d in seen if d.card is not None] == ["6D"]
    # the coaster shows once (as the first look outlined it, or the second), unnamed
    assert len([d for d in seen if d.card is None and quad_iou(d.quad, coaster) > 0.5]) <= 1


def test_a_blurred_taught_card_that_no_outline_finds_is_found_at_half_size() -> None:
    # a deck taught from its faces (the standard deck's, in one design), read on the
    # blurred light sheet: the look at half the size finds it for a taught deck too (the
    # real webcam photos blurred 2.5 px, taught from their other photos: 40 -> 63 of 64)
    faces = {c: render_card("standard", c, TRAIN_DESIGNS[0]) for c in ("6D", "9C", "QS", "2H")}
    rec = Recognizer(Gallery.from_faces("four-cards", faces))
    assert [d.card for d in rec.detect(_blurred_card_on_a_light_sheet("6D"))] == ["6D"]
    empty = np.asarray(cv2.GaussianBlur(np.full((480, 640, 3), 172, np.uint8), (0, 0), 2.5),
                       np.uint8)
    assert rec.detect(empty) == []
