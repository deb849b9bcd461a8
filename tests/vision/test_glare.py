"""Enrolled decks under glare: a bright spot washes out part of a card.

The print under a glare spot is mostly still there, only lifted and flattened,
so a card is read from its detail where the spot did not saturate it. Glare must
never make a card look like another one: what it washed out stays unknown, and
what is not one of the deck's cards stays unknown too.
"""

from __future__ import annotations

import random
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.card_faces import published_card
from vision.decks import STANDARD, deck_ids
from vision.designs import published_designs
from vision.detect import CARD_H, CARD_W
from vision.enrolled import Gallery
from vision.render import TEST_DESIGNS, render_card

DECKS = ("star-catcher", "star-plus", "cant-catch-harry")


def _glared(face: np.ndarray, centre: tuple[float, float], radius: float, strength: float,
            gain: float) -> np.ndarray:
    """``face`` as the camera sees it under a glare spot (added light, as the renderer
    draws it), then dimmed by ``gain``."""
    card = cv2.resize(face, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA).astype(np.float32)
    yy, xx = np.mgrid[0:CARD_H, 0:CARD_W].astype(np.float32)
    spot = np.exp(-((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (2 * radius * radius))
    card += (strength * spot)[:, :, None]
    return np.asarray(np.clip(card * gain, 0, 255), np.uint8)


def _random_glare(face: np.ndarray, rng: random.Random) -> np.ndarray:
    """A spot somewhere over the middle of the card, sometimes the card turned round."""
    centre = (CARD_W / 2 + rng.uniform(-40, 40), CARD_H / 2 + rng.uniform(-50, 50))
    seen = _glared(face, centre, rng.uniform(30, 60), rng.uniform(170, 260),
                   rng.uniform(0.6, 1.0))
    return np.ascontiguousarray(seen[::-1, ::-1]) if rng.random() < 0.5 else seen


def _without_glare_handling(gallery: Gallery) -> Gallery:
    return replace(gallery, glare_score=2.0, glare_found=2.0)


def test_cards_under_glare_are_read_from_what_it_leaves(
        galleries: dict[str, Gallery]) -> None:
    for deck, least in (("star-plus", 0.8), ("cant-catch-harry", 0.9)):
        rng = random.Random(1000)
        g = galleries[deck]
        before = _without_glare_handling(g)
        right = wrong = right_before = total = 0
        for card in deck_ids(deck):
            for _ in range(2):
                seen = _random_glare(render_card(deck, card), rng)
                got = g.identify(seen).card
                right += got == card
                wrong += got is not None and got != card
                right_before += before.identify(seen).card == card
                total += 1
        assert wrong == 0
        assert right >= least * total
        assert right > right_before


def test_glare_that_would_fool_the_second_stage_leaves_the_card_unknown(
        galleries: dict[str, Gallery]) -> None:
    # D9** turned round shows a 6; a glare spot beside it once made the second stage
    # (near-identical faces) read it as D7**
    face = render_card("star-catcher", "D9**")
    seen = np.ascontiguousarray(
        _glared(face, (85.4, 167.4), 33.5, 172.9, 0.80)[::-1, ::-1])
    assert galleries["star-catcher"].identify(seen).card in (None, "D9**")


@pytest.mark.parametrize("deck", DECKS)
def test_other_cards_and_random_images_under_glare_stay_unknown(
        deck: str, galleries: dict[str, Gallery]) -> None:
    rng = random.Random(1001)
    g = galleries[deck]
    others = [render_card("standard", card, TEST_DESIGNS[0]) for card in list(STANDARD)[::4]]
    others += [render_card(d, card) for d in DECKS if d != deck for card in deck_ids(d)[::2]]
    noise = np.random.default_rng(1001)
    for _ in range(20):
        blobs = np.asarray(noise.integers(0, 256, (CARD_H // 8, CARD_W // 8, 3)), np.uint8)
        others.append(np.asarray(cv2.resize(cv2.GaussianBlur(blobs, (3, 3), 0),
                                            (CARD_W, CARD_H)), np.uint8))
    for face in others:
        assert g.identify(_random_glare(face, rng)).card is None


@pytest.mark.parametrize("deck", DECKS)
def test_a_card_mostly_under_glare_stays_unknown(deck: str,
                                                 galleries: dict[str, Gallery]) -> None:
    g = galleries[deck]
    for card in deck_ids(deck)[::3]:
        seen = _glared(render_card(deck, card), (CARD_W / 2, CARD_H / 2), 130, 400, 0.9)
        assert g.identify(seen).card is None


def test_glare_handling_costs_nothing_where_there_is_none(
        galleries: dict[str, Gallery], monkeypatch: pytest.MonkeyPatch) -> None:
    g = galleries["star-catcher"]
    looks: list[int] = []
    real = Gallery._through_glare

    def counted(self: Gallery, card: np.ndarray, inner: np.ndarray | None) -> int | None:
        looks.append(1)
        return real(self, card, inner)

    monkeypatch.setattr(Gallery, "_through_glare", counted)
    for card in deck_ids("star-catcher"):
        face = np.asarray(cv2.resize(render_card("star-catcher", card), (CARD_W, CARD_H),
                                     interpolation=cv2.INTER_AREA), np.uint8)
        assert g.identify(face).card == card
    assert not looks


def test_near_twins_under_a_strong_spot_and_a_dewarp_a_little_off_are_read(
        galleries: dict[str, Gallery]) -> None:
    # Star Catcher's digit washed grey by a lamp, the dewarp 4 % too large: the detail
    # is laid onto the best guess by an affine fit (not a shift only), and its contrast
    # is fitted apart under the spot and elsewhere (glare lowers it only where it lies)
    g = galleries["star-catcher"]
    right = wrong = total = 0
    for scale in (1.0, 1.04):
        for card in deck_ids("star-catcher"):
            seen = _glared(render_card("star-catcher", card), (100, 130), 40, 200, 0.85)
            m = cv2.getRotationMatrix2D((CARD_W / 2, CARD_H / 2), 0, scale)
            seen = np.asarray(cv2.warpAffine(seen, m, (CARD_W, CARD_H),
                                             borderMode=cv2.BORDER_REPLICATE), np.uint8)
            got = g.identify(seen).card
            right += got == card
            wrong += got not in (None, card)
            total += 1
    # this version: 58 of 80 (the version before: 20); the rest stay unknown
    assert wrong == 0
    assert right >= 0.6 * total


def test_a_spot_that_washes_pips_white_does_not_turn_one_card_into_another() -> None:
    # a standard deck taught from its faces: a lamp over the middle of a three washes its
    # middle pip white, and what is left is a two. The glare found against the two's
    # reference misses it (a spot on what the two prints as blank paper is light the two
    # explains), so saturated white on part of the paper hides a rival's marks too
    cards = [f"{rank}{suit}" for rank in ("A", *map(str, range(2, 11))) for suit in "SH"]
    gallery = Gallery.from_faces("spots", {
        c: render_card("standard", c, TEST_DESIGNS[1]) for c in cards})
    rng = random.Random(5)
    right = wrong = 0
    for card in cards:
        face = render_card("standard", card, TEST_DESIGNS[1])
        for _ in range(4):
            centre = (CARD_W / 2 + rng.uniform(-20, 20), CARD_H / 2 + rng.uniform(-30, 30))
            seen = _glared(face, centre, rng.uniform(25, 45), rng.uniform(170, 300),
                           rng.uniform(0.85, 1.0))
            got = gallery.identify(seen).card
            right += got == card
            wrong += got not in (None, card)
    # this version: 13 of 80 right, none wrong (the version before: 26 right, 7 wrong)
    assert wrong == 0
    assert right >= 10


FADING_DESIGNS = ("ours", "aisleriot-anglo", "npm-letele")


@pytest.mark.parametrize("design", FADING_DESIGNS)
def test_a_pip_faded_grey_under_a_spot_tells_which_card_it_is(design: str) -> None:
    # a lamp over the middle of a standard card taught from its faces fades the middle
    # pip grey and whitens the paper round it. A five was named a four (all a four prints
    # is there) 3-5 times in 108 in each design, before glare was read as taking print
    # away, never adding it (vision.taught_evidence.print_shows). Print only one card
    # has, seen, rules the other out, and names the one rival whose own print shows:
    # the published designs' cards read 20 and 16 of 108 before (anglo, letele), 46 and
    # 35 after; our design's, whose index is small beside its pips, 10 and 11
    if design != "ours" and design not in {d.name for d in published_designs()}:
        pytest.skip(f"{design} is not installed here (sh scripts/ensure-card-designs.sh)")

    def face(card: str) -> np.ndarray:
        if design == "ours":
            return render_card("standard", card, TEST_DESIGNS[1])
        return published_card(design, card)[0]

    cards = [f"{rank}{suit}" for rank in map(str, range(2, 11)) for suit in "SHDC"]
    gallery = Gallery.from_faces("spots", {c: face(c) for c in cards})
    rng = random.Random(7)
    right = wrong = 0
    for card in cards:
        for _ in range(3):
            centre = (CARD_W / 2 + rng.uniform(-15, 15), CARD_H / 2 + rng.uniform(-20, 20))
            seen = _glared(face(card), centre, rng.uniform(35, 50), rng.uniform(180, 230),
                           rng.uniform(0.9, 1.0))
            got = gallery.identify(seen).card
            right += got == card
            wrong += got not in (None, card)
    assert wrong == 0
    assert right >= (0.08 if design == "ours" else 0.3) * 3 * len(cards)
