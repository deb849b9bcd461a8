"""Taught decks on real photos, on a published design, and the parts that make them hold.

A deck is taught the way a user teaches it (a folder of one photo per card, saved and
loaded again), then real scenes of that deck are read through the whole recognizer.
The real photos live outside the repository (``../shared/photos``); the tests that
need them skip with one line where they are absent. The rates asserted keep a margin
below what this version reaches (noted beside each), never above it: a wrong card is
worse than none, so wrong cards are held to zero.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.enrolled as enrolled
from vision.bench import TAUGHT_CARDS, bench_designs, taught_published
from vision.decks import deck_ids
from vision.detect import CARD_H, CARD_W, DetectorSettings
from vision.enrolled import (
    FORMAT_VERSION,
    EnrollmentError,
    Gallery,
    canonical_from_photo,
    enroll_folder,
    quarter_turned,
)
from vision.photo_changes import changed
from vision.photobench import score_photo
from vision.photos import Photo, load_photos, missing_reason
from vision.pipeline import Recognizer
from vision.refusal import Refusal
from vision.render import CONDITIONS, TEST_DESIGNS, render_card, render_scene
from vision.taught_views import DESC_SIZE, FINE_SIZE, inner_part

needs_photos = pytest.mark.skipif(missing_reason() is not None,
                                  reason=str(missing_reason()))

LARGE = DetectorSettings(max_area_fraction=0.9)
"""The real photos were taken close: a card may fill more than a quarter of the frame."""

_RANK = {"1": "A", "11": "J", "12": "Q", "13": "K"}
_SUIT = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}


def _canonical(face: np.ndarray) -> np.ndarray:
    return np.asarray(cv2.resize(face, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA),
                      np.uint8)


def _read(rec: Recognizer, photos: list[Photo]) -> tuple[int, int, int]:
    """Right, unknown and wrong labelled cards (a card is found when the centre of a
    detected quad lies in its box); a named card in no box counts as wrong."""
    right = unknown = wrong = 0
    for photo in photos:
        detections = rec.detect(photo.read())
        inside = [[d for d in detections if card.contains(*d.quad.mean(axis=0))]
                  for card in photo.cards]
        for card, found in zip(photo.cards, inside, strict=True):
            named = {d.card for d in found if d.card is not None}
            right += card.card in named
            wrong += bool(named - {card.card})
            unknown += not named
        boxed = {id(d) for found in inside for d in found}
        wrong += sum(d.card is not None and id(d) not in boxed
                     and photo.name != "guillex7/query/q12.jpg"  # a photo of the cards on
                     for d in detections)                        # a monitor, unlabelled
    return right, unknown, wrong


@needs_photos
def test_a_deck_taught_from_one_photo_per_card_reads_real_scenes_of_it(
        tmp_path: Path) -> None:
    photos = load_photos()
    # the user's folder: one photo per card, named by the card (QS.jpg), on a wooden table
    folder = tmp_path / "photos"
    folder.mkdir()
    for p in photos:
        if p.folder == "guillex7/template":
            suit, rank = p.image.stem.split("_")
            (folder / f"{_RANK.get(rank, rank)}{_SUIT[suit]}.jpg").symlink_to(p.image)
    taught = enroll_folder("real-deck", folder, tmp_path / "decks")
    assert len(taught.cards) == 52
    rec = Recognizer("real-deck", store=tmp_path / "decks", settings=LARGE)
    scenes = [p for p in photos if p.folder == "guillex7/query"]
    right, _, wrong = _read(rec, scenes)
    total = sum(len(p.cards) for p in scenes)
    assert total == 26
    # this version: 25 right; the ace on a pile, outlined with the edge of the card under
    # it and so taken sideways, is read a quarter-turn round; the white AC on white paper,
    # two of whose sides alone cast a shadow, is guessed from them as the standard reader
    # guesses it; the white AS so guessed is refused for glare (bench/bench_taught_photos.py)
    assert wrong == 0
    assert right >= 25


def _webcam_pairs() -> list[list[Photo]]:
    """The wmcnicho photos, two of each card (the cards photographed once are left out)."""
    by_card: dict[str, list[Photo]] = {}
    for p in load_photos():
        if p.folder == "wmcnicho":
            by_card.setdefault(p.cards[0].card, []).append(p)
    return [ps for ps in by_card.values() if len(ps) == 2]


@needs_photos
def test_a_webcam_deck_taught_from_one_photo_reads_its_second_photo() -> None:
    # 32 cards (ranks 2-9), each photographed twice by an overhead webcam: teach from one
    # photo of each, read the other, both ways round
    pairs = _webcam_pairs()
    assert len(pairs) == 32
    right = wrong = total = 0
    for teach, read in ((0, 1), (1, 0)):
        gallery = Gallery.from_faces("webcam", {ps[teach].cards[0].card: ps[teach].read()
                                                for ps in pairs})
        r, _, w = _read(Recognizer(gallery, settings=LARGE), [ps[read] for ps in pairs])
        right, wrong, total = right + r, wrong + w, total + len(pairs)
    # this version: 64 of 64
    assert wrong == 0
    assert right >= 0.9 * total


@needs_photos
def test_a_webcam_deck_taught_in_even_light_reads_its_cards_in_a_shadow() -> None:
    # the same deck taught from its first photos; its second photos with a shadow's soft
    # edge across them (light 0.3): the whole-card comparison read 4 of 32; relit, 15
    pairs = _webcam_pairs()
    gallery = Gallery.from_faces("webcam", {ps[0].cards[0].card: ps[0].read() for ps in pairs})
    rec = Recognizer(gallery, settings=LARGE)
    right = wrong = 0
    for photo in (ps[1] for ps in pairs):
        image, cards = changed(photo.read(), photo.cards, "shadow across")
        score = score_photo(cards, rec.detect(image))
        right, wrong = right + score.right, wrong + score.wrong + score.off_box
    assert wrong == 0
    assert right >= 12


@pytest.fixture(scope="module")
def published_deck() -> Iterator[tuple[str, tuple[str, ...], Gallery]]:
    """24 cards of a published design (not ours), taught from their faces: the
    benchmark's published-taught deck."""
    designs = bench_designs()
    if not designs:
        pytest.skip("no published deck design is installed (scripts/ensure-card-designs.sh)")
    yield designs[0], TAUGHT_CARDS, taught_published(designs[0])


@pytest.mark.parametrize("condition, least", [("upright", 0.95), ("glare", 0.75),
                                              ("hand", 0.9)])
def test_a_published_deck_taught_card_by_card_is_read_in_scenes(
        condition: str, least: float, published_deck: tuple[str, tuple[str, ...], Gallery],
        monkeypatch: pytest.MonkeyPatch) -> None:
    design, cards, gallery = published_deck
    import vision.render as render

    monkeypatch.setattr(render, "deck_ids",  # scenes of the taught cards only
                        lambda deck: cards if deck == "standard" else deck_ids(deck))
    rec = Recognizer(gallery)
    cond = replace(CONDITIONS[condition], deck="standard", published=(design,))
    right = wrong = total = 0
    for seed in range(700, 706):
        scene = render_scene(cond, seed)
        detections = rec.detect(scene.image)
        for truth in scene.cards:
            if truth.visible >= 0.85:
                total += 1
                right += any(d.card == truth.card and _iou(d.quad, truth.quad) > 0.6
                             for d in detections)
        for d in detections:
            if d.card is not None:
                owner = max(scene.cards, key=lambda t: _iou(d.quad, t.quad))
                wrong += d.card != owner.card
    # this version (seeds 700-705): npm-younestouati upright 100 %, glare 83 %, hand 96 %;
    # aisleriot-tigullio (the first design installed without the npm decks) 100 / 80 / 100 %
    assert wrong == 0
    assert right >= least * total


def _under_a_lamp(face: np.ndarray, centre: tuple[int, int], radius: float,
                  strength: float) -> np.ndarray:
    """A canonical card under a warm light (its paper no longer white) with a glare spot."""
    card = cv2.resize(face, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA).astype(np.float32)
    yy, xx = np.mgrid[:CARD_H, :CARD_W]
    spot = np.exp(-((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (2 * radius ** 2))
    lit = card * np.array([0.85, 0.9, 0.95], np.float32) + strength * spot[..., None]
    return np.asarray(np.clip(lit, 0, 255), np.uint8)


def test_a_glare_spot_over_what_tells_a_taught_card_from_its_neighbour_names_no_other(
        published_deck: tuple[str, tuple[str, ...], Gallery]) -> None:
    # a spot over a five's middle pip, or a three's, leaves it unknown (or still read, where
    # the pip shows through), never read as the card without that pip
    _design, cards, gallery = published_deck
    assert gallery.faces is not None
    faces = dict(zip(cards, gallery.faces, strict=True))
    assert {"2S", "3S", "4S", "5S"} <= set(cards)
    for card in ("3S", "5S"):
        # (a spot that washes the pip wholly white, strength 255, still can: see
        # docs/vision.md, what the camera cannot read yet)
        for spot in (((100, 140), 45, 200), ((100, 140), 30, 120), ((140, 190), 35, 160)):
            assert gallery.identify(_under_a_lamp(faces[card], *spot)).card in (card, None)


def test_a_spot_on_what_the_guessed_card_has_as_blank_paper_is_glare(
        published_deck: tuple[str, tuple[str, ...], Gallery]) -> None:
    # a three whose middle pip a spot washes out looks like a two: to the two's reference,
    # lit like the card, the spot lies on blank paper. The white patch is glare all the
    # same, so the card is looked at as glared (its rivals' marks must not show through)
    _design, cards, gallery = published_deck
    assert gallery.faces is not None
    faces = dict(zip(cards, gallery.faces, strict=True))
    two = (cards.index("2S"), 0)
    for spot in (((100, 140), 45, 200), ((100, 140), 30, 120), ((100, 140), 40, 255)):
        small = inner_part(_under_a_lamp(faces["3S"], *spot), DESC_SIZE)
        assert gallery._glared(small, two)
    # the same card under the warm light alone shows none
    assert not gallery._glared(inner_part(_under_a_lamp(faces["3S"], (100, 140), 30, 0),
                                          DESC_SIZE), two)


def test_the_colour_of_a_card_seen_through_glare_is_judged_by_how_much_of_it_shows(
        published_deck: tuple[str, tuple[str, ...], Gallery]) -> None:
    # a black card under a slightly tinted light: the tint's faint variation must not
    # correlate it with a red twin's print, nor keep it from its own grey reference
    _design, cards, gallery = published_deck
    assert gallery.faces is not None
    faces = dict(zip(cards, gallery.faces, strict=True))
    ref = {card: (cards.index(card), 0) for card in cards}
    everywhere = np.ones(FINE_SIZE[0] * FINE_SIZE[1], bool)

    def seen(card: str, tint: tuple[float, float, float]) -> np.ndarray:
        lit = np.clip(faces[card].astype(np.float32) * np.array(tint, np.float32), 0, 255)
        blurred = cv2.GaussianBlur(lit.astype(np.uint8), (0, 0), 2)
        return inner_part(blurred, FINE_SIZE).astype(np.float32).reshape(-1, 3)

    black = seen("3S", (1.0, 1.0, 0.94))
    assert gallery._colour_match(black, ref["3S"], everywhere) >= gallery.min_score
    assert gallery._colour_match(black, ref["3H"], everywhere) < gallery.min_score
    red = seen("3H", (0.85, 0.9, 1.0))  # a warm light
    assert gallery._colour_match(red, ref["3H"], everywhere) >= gallery.min_score
    assert gallery._colour_match(red, ref["3S"], everywhere) < gallery.min_score


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    from vision.detect import quad_iou

    return quad_iou(np.asarray(a, np.float32), np.asarray(b, np.float32))


# -- the parts ---------------------------------------------------------------------


def test_a_face_already_cut_out_is_taken_whole_and_a_photo_is_searched() -> None:
    face = render_card("cant-catch-harry", "harry")  # its picture panel is a card-like quad
    assert np.abs(canonical_from_photo(face).astype(int)
                  - _canonical(face).astype(int)).mean() < 1
    # a photo (4:3) with the card filling 40 % of it, on wood
    photo = np.full((960, 1280, 3), (40, 90, 150), np.uint8)
    card = cv2.resize(face, (420, 588), interpolation=cv2.INTER_AREA)
    photo[186:774, 430:850] = card
    found = canonical_from_photo(photo)
    assert np.abs(found.astype(int) - _canonical(face).astype(int)).mean() < 12


def test_a_published_face_in_other_proportions_is_taught_whole(
        published_deck: tuple[str, tuple[str, ...], Gallery]) -> None:
    # published faces are often bridge-sized (taller than 7:5), and their print (an index
    # and a pip column) can close into a card-like quad inside the face: that quad is no
    # card, since paper lies on both sides of it
    design, cards, gallery = published_deck
    assert gallery.faces is not None
    designs = pytest.importorskip("vision.designs")
    for i, card in enumerate(cards):
        face = designs.published_face(design, card)[:, :, :3]
        whole = _canonical(face).astype(int)
        found = gallery.faces[i].astype(int)
        # the faces are composited on white (rounded corners): compare inside them
        assert np.abs(found[20:-20, 20:-20] - whole[20:-20, 20:-20]).mean() < 12, card


def test_a_card_seen_under_another_light_is_read(galleries: dict[str, Gallery]) -> None:
    for deck in ("star-plus", "cant-catch-harry"):
        g = galleries[deck]
        for card in deck_ids(deck)[::3]:
            face = _canonical(render_card(deck, card)).astype(np.float32)
            warm_and_dim = face * np.array([0.55, 0.75, 0.95], np.float32) + 12  # B, G, R
            assert g.identify(np.asarray(np.clip(warm_and_dim, 0, 255), np.uint8)).card == card


def test_a_card_taken_a_quarter_turn_round_is_read(galleries: dict[str, Gallery]) -> None:
    # a tilted camera foreshortens a card's long side: the detector takes it for the short
    # one, and the dewarped card is sideways and squashed
    g = galleries["cant-catch-harry"]
    for card in deck_ids("cant-catch-harry")[::4]:
        face = _canonical(render_card("cant-catch-harry", card))
        sideways = _canonical(cv2.rotate(face, cv2.ROTATE_90_COUNTERCLOCKWISE))
        assert g._look(sideways).found is None  # the whole-card look alone cannot
        assert g.identify(sideways).card == card
        assert np.abs(quarter_turned(sideways).astype(int) - face.astype(int)).mean() < 12


def test_a_card_taken_a_quarter_turn_round_is_read_though_it_looks_glared(
        galleries: dict[str, Gallery]) -> None:
    # a sideways card shows paper where its reference has print: the quick look takes
    # that for glare, which must not keep the card from being looked at the other way
    g = galleries["star-catcher"]
    glared = 0
    for card in ("D1", "D4*", "D7**", "C2", "C5*"):
        face = _canonical(render_card("star-catcher", card))
        sideways = _canonical(cv2.rotate(face, cv2.ROTATE_90_COUNTERCLOCKWISE))
        glared += g._look(sideways).reason is Refusal.GLARE
        assert g.identify(sideways).card == card
    assert glared >= 3  # the case this is about (how many look glared varies by OpenCV)


def _under_finger(face: np.ndarray, top: int, bottom: int, x: int) -> np.ndarray:
    out = face.copy()
    cv2.line(out, (x, top), (x, bottom), (120, 160, 215), 40)  # skin, BGR
    cv2.circle(out, (x, bottom), 20, (120, 160, 215), -1)
    return out


def test_a_finger_over_part_of_a_card_leaves_it_readable(
        galleries: dict[str, Gallery]) -> None:
    g = galleries["star-plus"]
    right = 0
    for card in deck_ids("star-plus"):
        seen = _under_finger(_canonical(render_card("star-plus", card)), 0, 90, 60)
        got = g.identify(seen)
        assert got.card in (None, card)
        right += got.card == card
    assert right >= 0.8 * len(deck_ids("star-plus"))  # this version: all


def test_a_finger_over_what_tells_two_cards_apart_leaves_it_unknown(
        galleries: dict[str, Gallery]) -> None:
    # D7* is D7 with a star at the foot of the card: covered, the card may be either
    g = galleries["star-catcher"]
    for card in ("D7", "D7*"):
        face = _canonical(render_card("star-catcher", card))
        covered = _under_finger(face, 200, 280, 100)
        cv2.line(covered, (40, 262), (160, 262), (120, 160, 215), 40)
        assert g.identify(covered).card is None


def test_glare_that_washes_out_a_mark_does_not_make_another_card() -> None:
    # a 3 whose middle pip is washed out by a lamp looks like a 2: never named as one (the
    # card lit like a table, its paper at 200; on paper already white to the last grey
    # level, a spot of glare does not show at all)
    cards = ("2S", "3S", "2D", "3D", "7S", "6S", "4S")
    g = Gallery.from_faces("pips", {c: render_card("standard", c, TEST_DESIGNS[0])
                                    for c in cards})
    for card, pip_y in (("3S", 140), ("3D", 140), ("7S", 105)):
        face = 0.8 * _canonical(render_card("standard", card, TEST_DESIGNS[0])).astype(np.float32)
        yy, xx = np.mgrid[0:CARD_H, 0:CARD_W].astype(np.float32)
        spot = np.exp(-((xx - 100) ** 2 + (yy - pip_y) ** 2) / (2 * 26.0 ** 2))
        seen = np.asarray(np.clip(face + 240 * spot[:, :, None], 0, 255), np.uint8)
        assert g.identify(seen).card in (None, card)


def test_a_card_inside_a_larger_outline_is_not_that_outline(
        galleries: dict[str, Gallery]) -> None:
    # the outline of a pile (or of two cards) holds a whole card in one part of it: the
    # keypoints find that card, but the outline is not it
    g = galleries["cant-catch-harry"]
    canvas = np.full((CARD_H, CARD_W, 3), 200, np.uint8)
    canvas[10:150, 20:120] = cv2.resize(render_card("cant-catch-harry", "fox"), (100, 140))
    assert g.identify(canvas).card is None


def test_every_unknown_says_why(galleries: dict[str, Gallery]) -> None:
    g = galleries["star-catcher"]
    noise = np.random.default_rng(3).integers(0, 255, (CARD_H, CARD_W, 3)).astype(np.uint8)
    other = _canonical(render_card("standard", "QS", TEST_DESIGNS[0]))
    for face in (noise, other, np.full((CARD_H, CARD_W, 3), 128, np.uint8)):
        m = g.identify(face)
        assert m.card is None and isinstance(m.reason, Refusal)
    named = g.identify(_canonical(render_card("star-catcher", "D7*")))
    assert (named.card, named.reason) == ("D7*", None)


def test_keypoints_are_looked_at_only_when_the_whole_card_is_not_clear(
        galleries: dict[str, Gallery], monkeypatch: pytest.MonkeyPatch) -> None:
    looks: list[int] = []
    real = enrolled.features

    def counted(card: np.ndarray) -> enrolled.Features:
        looks.append(1)
        return real(card)

    monkeypatch.setattr(enrolled, "features", counted)
    for deck in ("star-catcher", "star-plus", "cant-catch-harry"):
        for card in deck_ids(deck):
            assert galleries[deck].identify(_canonical(render_card(deck, card))).card == card
    assert not looks


def test_a_saved_gallery_is_its_faces_and_loads_the_same(
        tmp_path: Path, galleries: dict[str, Gallery]) -> None:
    g = galleries["star-plus"]
    folder = g.save(tmp_path)
    with np.load(folder / "references.npz") as data:
        assert set(data.files) == {"faces"}
    loaded = Gallery.load(tmp_path, "star-plus")
    assert loaded.cards == g.cards
    np.testing.assert_array_equal(loaded.descriptors, g.descriptors)
    assert FORMAT_VERSION == 2


def test_a_gallery_saved_by_the_old_version_says_to_teach_it_again(tmp_path: Path) -> None:
    folder = tmp_path / "star-plus"
    folder.mkdir()
    (folder / "deck.json").write_text('{"version": 1, "deck": "star-plus", "cards": ["1"]}',
                                      encoding="utf-8")
    np.savez_compressed(folder / "references.npz", descriptors=np.zeros((1, 2, 3780)),
                        fine=np.zeros((1, 2, 84, 60, 3)))
    with pytest.raises(EnrollmentError, match=r"older version.*teach it again"):
        Gallery.load(tmp_path, "star-plus")
