"""Synthetic card faces, our own art, seeded and reproducible.

The shipped art of Star Catcher, Star Plus and Can't Catch Harry is not
available, so these faces are our own art (shapes, numbers, stars; zodiac
values; character names). Standard cards come in several designs (fonts,
suit shapes, index sizes); :data:`TRAIN_DESIGNS` are the only ones the
standard recognizer learns from, :data:`TEST_DESIGNS` are held out for
benchmarks and tests. A published deck design (:mod:`vision.designs`) can
stand in for a standard face (:func:`published_card`). The scenes these faces
are laid in are :mod:`vision.render`.

>>> face = render_card("standard", "10H", design=0)
>>> face.shape
(350, 250, 3)
"""

from __future__ import annotations

import itertools
import math
import random
import zlib
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.decks import HARRY, RANKS, ZODIAC, deck_ids, is_red

Image = NDArray[np.uint8]
FloatArray = NDArray[np.float64]

FACE_W, FACE_H = 250, 350
"""Size of a rendered card face (poker size, 63 x 88 mm)."""

CORNER_RADIUS = 14

WHITE = (250, 250, 250)
INK_BLACK = (25, 25, 25)
INK_RED = (30, 30, 200)


class RenderError(ValueError):
    """A request the renderer cannot draw (unknown deck, card or design)."""


@dataclass(frozen=True)
class StandardDesign:
    """How one standard deck prints its faces."""

    name: str
    font: int
    thickness: int
    index_height: int  # pixel height of the rank glyph in the corner
    index_x: int
    index_y: int
    suit_size: int
    heart_lobe: float  # suit shape parameters: lobe radius, diamond width, stem width
    diamond_width: float
    stem: float
    paper: tuple[int, int, int] = WHITE
    red: tuple[int, int, int] = INK_RED
    black: tuple[int, int, int] = INK_BLACK


STANDARD_DESIGNS: tuple[StandardDesign, ...] = (
    StandardDesign("classic", cv2.FONT_HERSHEY_SIMPLEX, 3, 30, 10, 12, 24, 0.30, 0.62, 0.18),
    StandardDesign("modern", cv2.FONT_HERSHEY_DUPLEX, 2, 34, 12, 10, 22, 0.27, 0.55, 0.14),
    StandardDesign("ornate", cv2.FONT_HERSHEY_COMPLEX, 3, 28, 9, 14, 26, 0.32, 0.70, 0.22,
                   paper=(235, 245, 250)),
    # held out: never used to build the recognizer's templates
    StandardDesign("triplex", cv2.FONT_HERSHEY_TRIPLEX, 2, 32, 11, 11, 23, 0.29, 0.58, 0.16,
                   paper=(240, 248, 252), red=(40, 20, 180)),
    StandardDesign("plain-bold", cv2.FONT_HERSHEY_PLAIN, 3, 31, 10, 13, 25, 0.31, 0.66, 0.20,
                   red=(20, 40, 215), black=(40, 30, 20)),
)
TRAIN_DESIGNS: tuple[int, ...] = (0, 1, 2)
TEST_DESIGNS: tuple[int, ...] = (3, 4)


def _blank_face(paper: tuple[int, int, int] = WHITE) -> Image:
    face = np.empty((FACE_H, FACE_W, 3), np.uint8)
    face[:] = paper
    return face


def rounded_rectangle(h: int, w: int, r: int) -> NDArray[np.uint8]:
    """An ``h`` x ``w`` alpha: 255 inside a rectangle with corners rounded to radius ``r``.

    >>> m = rounded_rectangle(20, 10, 3)
    >>> int(m[0, 0]), int(m[10, 5]), int(m[0, 5])
    (0, 255, 255)
    """
    mask = np.zeros((h, w), np.uint8)
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


@lru_cache(maxsize=1)
def card_mask() -> NDArray[np.uint8]:
    """The face's alpha: 255 inside the rounded-corner card outline."""
    return rounded_rectangle(FACE_H, FACE_W, CORNER_RADIUS)


def draw_text_box(img: Image, text: str, font: int, thickness: int, height: int,
                  centre: tuple[float, float], colour: tuple[int, int, int]) -> None:
    """Draw ``text`` with its glyph box ``height`` pixels tall, centred on ``centre``."""
    (w, h), _ = cv2.getTextSize(text, font, 1.0, thickness)
    scale = height / max(h, 1)
    (w, h), _ = cv2.getTextSize(text, font, scale, thickness)
    org = (round(centre[0] - w / 2), round(centre[1] + h / 2))
    cv2.putText(img, text, org, font, scale, colour, thickness, cv2.LINE_AA)


def draw_suit(img: Image, suit: str, centre: tuple[float, float], size: float,
              colour: tuple[int, int, int], design: StandardDesign) -> None:
    """Draw one suit symbol about ``size`` pixels tall, centred on ``centre``."""
    s = 4  # draw with sub-pixel precision (shift bits)
    cx, cy = centre
    half = size / 2

    def p(x: float, y: float) -> tuple[int, int]:
        return (round((cx + x * half) * (1 << s)), round((cy + y * half) * (1 << s)))

    lobe = design.heart_lobe
    if suit == "D":
        w = design.diamond_width
        pts = np.array([p(0, -1), p(w, 0), p(0, 1), p(-w, 0)], np.int32)
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA, s)
        return
    rad = round(lobe * 2 * half * (1 << s) * 0.85)
    if suit == "H":
        cv2.circle(img, p(-lobe * 1.3, -0.45), rad, colour, -1, cv2.LINE_AA, s)
        cv2.circle(img, p(lobe * 1.3, -0.45), rad, colour, -1, cv2.LINE_AA, s)
        pts = np.array([p(-lobe * 2.45, -0.25), p(lobe * 2.45, -0.25), p(0, 1)], np.int32)
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA, s)
        return
    stem = design.stem
    base = np.array([p(-stem, 0.45), p(stem, 0.45), p(stem * 2.2, 1), p(-stem * 2.2, 1)],
                    np.int32)
    cv2.fillPoly(img, [base], colour, cv2.LINE_AA, s)
    if suit == "S":
        cv2.circle(img, p(-lobe * 1.3, 0.3), rad, colour, -1, cv2.LINE_AA, s)
        cv2.circle(img, p(lobe * 1.3, 0.3), rad, colour, -1, cv2.LINE_AA, s)
        pts = np.array([p(-lobe * 2.45, 0.1), p(lobe * 2.45, 0.1), p(0, -1)], np.int32)
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA, s)
        return
    if suit == "C":
        r3 = round(lobe * 2 * half * (1 << s) * 0.78)
        cv2.circle(img, p(0, -0.45), r3, colour, -1, cv2.LINE_AA, s)
        cv2.circle(img, p(-lobe * 1.6, 0.15), r3, colour, -1, cv2.LINE_AA, s)
        cv2.circle(img, p(lobe * 1.6, 0.15), r3, colour, -1, cv2.LINE_AA, s)
        return
    raise RenderError(f"unknown suit {suit!r}; expected one of S, H, D, C")


_PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.5, 0.0), (0.5, 1.0)),
    3: ((0.5, 0.0), (0.5, 0.5), (0.5, 1.0)),
    4: ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)),
    5: ((0.0, 0.0), (1.0, 0.0), (0.5, 0.5), (0.0, 1.0), (1.0, 1.0)),
    6: ((0.0, 0.0), (1.0, 0.0), (0.0, 0.5), (1.0, 0.5), (0.0, 1.0), (1.0, 1.0)),
    7: ((0.0, 0.0), (1.0, 0.0), (0.5, 0.25), (0.0, 0.5), (1.0, 0.5), (0.0, 1.0), (1.0, 1.0)),
    8: ((0.0, 0.0), (1.0, 0.0), (0.5, 0.25), (0.0, 0.5), (1.0, 0.5), (0.5, 0.75),
        (0.0, 1.0), (1.0, 1.0)),
    9: ((0.0, 0.0), (1.0, 0.0), (0.0, 1 / 3), (1.0, 1 / 3), (0.5, 0.5), (0.0, 2 / 3),
        (1.0, 2 / 3), (0.0, 1.0), (1.0, 1.0)),
    10: ((0.0, 0.0), (1.0, 0.0), (0.5, 1 / 6), (0.0, 1 / 3), (1.0, 1 / 3), (0.0, 2 / 3),
         (1.0, 2 / 3), (0.5, 5 / 6), (0.0, 1.0), (1.0, 1.0)),
}


def _standard_face(card: str, design: StandardDesign) -> Image:
    rank, suit = card[:-1], card[-1]
    if rank not in RANKS or suit not in "SHDC":
        raise RenderError(f"unknown standard card {card!r}; expected a rank A,2-10,J,Q,K "
                          "then a suit S,H,D,C, like 'QS' or '10H'")
    colour = design.red if is_red(card) else design.black
    face = _blank_face(design.paper)
    half = np.zeros_like(face)  # the top half's index, drawn twice (upright and rotated)
    half[:] = design.paper
    ix, iy, ih = design.index_x, design.index_y, design.index_height
    (tw, _), _ = cv2.getTextSize(rank, design.font, 1.0, design.thickness)
    (_, th), _ = cv2.getTextSize("8", design.font, 1.0, design.thickness)
    width = tw * ih / th
    cx = ix + max(width, design.suit_size) / 2
    draw_text_box(half, rank, design.font, design.thickness, ih, (cx, iy + ih / 2), colour)
    draw_suit(half, suit, (cx, iy + ih + 8 + design.suit_size / 2), design.suit_size, colour,
              design)
    corner_h, corner_w = iy + ih + design.suit_size + 14, 56
    face[:corner_h, :corner_w] = half[:corner_h, :corner_w]
    face[FACE_H - corner_h:, FACE_W - corner_w:] = half[:corner_h, :corner_w][::-1, ::-1]
    if rank in ("J", "Q", "K"):
        x0, y0, x1, y1 = 70, 60, FACE_W - 71, FACE_H - 61
        cv2.rectangle(face, (x0, y0), (x1, y1), colour, 3, cv2.LINE_AA)
        inner = (200, 225, 240) if design.name != "modern" else (230, 215, 200)
        cv2.rectangle(face, (x0 + 6, y0 + 6), (x1 - 6, y1 - 6), inner, -1)
        draw_text_box(face, rank, design.font, design.thickness + 2, 80,
                      (FACE_W / 2, FACE_H / 2 - 40), colour)
        draw_suit(face, suit, (FACE_W / 2, FACE_H / 2 + 55), 60, colour, design)
        return face
    n = 1 if rank == "A" else int(rank)
    size = 90 if n == 1 else 34
    x0, x1, y0, y1 = 88, FACE_W - 88, 78, FACE_H - 78
    for px, py in _PIPS[n]:
        draw_suit(face, suit, (x0 + px * (x1 - x0), y0 + py * (y1 - y0)), size, colour, design)
    return face


def _star(img: Image, centre: tuple[float, float], radius: float,
          colour: tuple[int, int, int]) -> None:
    pts = []
    for k in range(10):
        r = radius if k % 2 == 0 else radius * 0.45
        a = -math.pi / 2 + k * math.pi / 5
        pts.append((round((centre[0] + r * math.cos(a)) * 16),
                    round((centre[1] + r * math.sin(a)) * 16)))
    cv2.fillPoly(img, [np.array(pts, np.int32)], colour, cv2.LINE_AA, 4)


def _star_catcher_face(card: str) -> Image:
    face = _blank_face()
    font = cv2.FONT_HERSHEY_DUPLEX
    if card == "M":
        cv2.rectangle(face, (14, 14), (FACE_W - 15, FACE_H - 15), (90, 90, 200), -1)
        cv2.ellipse(face, (125, 170), (70, 70), 0, 180, 360, (60, 60, 60), 36, cv2.LINE_AA)
        for x in (55, 195):
            cv2.rectangle(face, (x - 18, 170), (x + 18, 230), (60, 60, 60), -1)
            cv2.rectangle(face, (x - 18, 230), (x + 18, 262), (230, 230, 230), -1)
        draw_text_box(face, "M", font, 3, 34, (40, 45), (250, 250, 250))
        draw_text_box(face, "MAGNET", font, 2, 24, (125, 310), (250, 250, 250))
        return face
    kind, rest = card[0], card[1:]
    number = rest.rstrip("*")
    stars = len(rest) - len(number)
    if kind not in "DC" or not number.isdigit():
        raise RenderError(f"unknown Star Catcher card {card!r}; expected D<n>, C<n> "
                          "with stars '*', or M")
    panel = (200, 150, 60) if kind == "D" else (60, 150, 230)
    cv2.rectangle(face, (14, 14), (FACE_W - 15, FACE_H - 15), panel, -1)
    cx, cy = FACE_W / 2, 160
    if kind == "D":
        pts = np.array([(cx, cy - 95), (cx + 75, cy), (cx, cy + 95), (cx - 75, cy)], np.int32)
        cv2.fillPoly(face, [pts], (250, 245, 235), cv2.LINE_AA)
    else:
        cv2.circle(face, (round(cx), cy), 78, (235, 245, 250), -1, cv2.LINE_AA)
    draw_text_box(face, number, font, 5, 70, (cx, cy), (40, 30, 30))
    for corner in ((38, 42), (FACE_W - 38, 42)):
        draw_text_box(face, number, font, 3, 30, corner, (250, 250, 250))
    for k in range(stars):
        _star(face, (cx + (k - (stars - 1) / 2) * 58, 295), 25, (40, 215, 250))
    return face


def _constellation(seed: int) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    return [(rng.randint(40, 210), rng.randint(150, 270)) for _ in range(6)]


def _star_plus_face(card: str) -> Image:
    if card not in ZODIAC:
        raise RenderError(f"unknown Star Plus card {card!r}; expected 1..9, -1..-3 or Z")
    face = _blank_face()
    cv2.rectangle(face, (12, 12), (FACE_W - 13, FACE_H - 13), (90, 40, 50), -1)
    font = cv2.FONT_HERSHEY_TRIPLEX
    gold = (80, 200, 240)
    if card == "Z":
        bolt = np.array([(140, 60), (80, 190), (125, 190), (100, 300), (175, 150),
                         (130, 150), (160, 60)], np.int32)
        cv2.fillPoly(face, [bolt], gold, cv2.LINE_AA)
    else:
        draw_text_box(face, card, font, 4, 80, (FACE_W / 2, 95), gold)
        pts = _constellation(zlib.crc32(card.encode()))
        for a, b in itertools.pairwise(pts):
            cv2.line(face, a, b, (200, 200, 200), 2, cv2.LINE_AA)
        for q in pts:
            cv2.circle(face, q, 7, (250, 250, 250), -1, cv2.LINE_AA)
    draw_text_box(face, ZODIAC[card].upper(), cv2.FONT_HERSHEY_SIMPLEX, 2, 20,
                  (FACE_W / 2, 315), (240, 240, 240))
    return face


def _harry_face(card: str) -> Image:
    if card not in HARRY:
        raise RenderError(f"unknown Can't Catch Harry card {card!r}; expected one of "
                          + ", ".join(HARRY))
    face = _blank_face()
    rng = random.Random(zlib.crc32(card.encode()))
    band = tuple(rng.randint(60, 230) for _ in range(3))
    cv2.rectangle(face, (12, 12), (FACE_W - 13, FACE_H - 13), band, -1)
    cv2.rectangle(face, (24, 40), (FACE_W - 25, 262), (235, 240, 245), -1)
    if card == "everyone":
        for k, c in enumerate(((60, 60, 220), (60, 200, 240), (80, 200, 80), (220, 120, 60))):
            cv2.rectangle(face, (24, 40 + k * 55), (FACE_W - 25, 95 + k * 55), c, -1)
    for _ in range(5):
        colour = tuple(rng.randint(0, 200) for _ in range(3))
        centre = (rng.randint(60, 190), rng.randint(80, 220))
        if rng.random() < 0.5:
            axes = (rng.randint(15, 45), rng.randint(15, 45))
            cv2.ellipse(face, centre, axes, rng.randint(0, 180), 0, 360,
                        colour, -1, cv2.LINE_AA)
        else:
            pts = np.array([(centre[0] + rng.randint(-50, 50), centre[1] + rng.randint(-50, 50))
                            for _ in range(3)], np.int32)
            cv2.fillPoly(face, [pts], colour, cv2.LINE_AA)
    words = card.upper().split("-")
    for k, word in enumerate(words):
        draw_text_box(face, word, cv2.FONT_HERSHEY_DUPLEX, 2, 20,
                      (FACE_W / 2, 292 + k * 28 - (len(words) - 1) * 12), (20, 20, 20))
    return face


BACK_CARD = "back"
"""What :func:`render_card` draws the back of our own decks for (a card laid face down on
the simulated table: :data:`vision.taught_store.BACK`)."""


def _our_back(deck: str) -> Image:
    """Our decks' back: a picture on white paper, no lattice, nor one colour all over, nor a
    print that recurs: :func:`vision.backs.shows_its_back` does not tell it from a face, a
    deck taught with it does."""
    face = _blank_face()
    rng = random.Random(zlib.crc32(deck.encode()))
    ink = tuple(rng.randint(40, 160) for _ in range(3))
    cv2.rectangle(face, (14, 14), (FACE_W - 15, FACE_H - 15), ink, 5, cv2.LINE_AA)
    centre = (FACE_W // 2, FACE_H // 2)
    cv2.circle(face, centre, 78, ink, -1, cv2.LINE_AA)
    star = np.array([(centre[0] + (66 if k % 2 == 0 else 27) * math.sin(k * math.pi / 5),
                      centre[1] - (66 if k % 2 == 0 else 27) * math.cos(k * math.pi / 5))
                     for k in range(10)], np.int32)
    cv2.fillPoly(face, [star], (60, 210, 240), cv2.LINE_AA)
    for y in (70, FACE_H - 70):
        cv2.ellipse(face, (centre[0], y), (70, 16), 0, 0, 360, ink, 3, cv2.LINE_AA)
    return face


def render_card(deck: str, card: str, design: int = 0) -> Image:
    """The clean, flat, upright face of one card (``FACE_H`` x ``FACE_W`` BGR), or of our
    decks, ``card`` :data:`BACK_CARD`, their back.

    ``design`` picks the standard deck's print design; other decks have one.
    """
    if card == BACK_CARD and deck != "standard":
        deck_ids(deck)
        return _our_back(deck)
    if deck == "standard":
        if not 0 <= design < len(STANDARD_DESIGNS):
            raise RenderError(f"standard design must be 0..{len(STANDARD_DESIGNS) - 1}, "
                              f"got {design}")
        return _standard_face(card, STANDARD_DESIGNS[design])
    deck_ids(deck)
    draw = {"star-catcher": _star_catcher_face, "star-plus": _star_plus_face,
            "cant-catch-harry": _harry_face}[deck]
    return draw(card)


@lru_cache(maxsize=256)
def published_card(design: str, card: str) -> tuple[Image, NDArray[np.uint8]]:
    """A published design's face (:mod:`vision.designs`) at the renderer's face size:
    ``FACE_H`` x ``FACE_W`` BGR and its alpha (the design's own rounded outline)."""
    from vision.designs import MASTER_HEIGHT, published_face

    face = published_face(design, card, MASTER_HEIGHT)
    small = cv2.resize(face, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)
    bgr = np.ascontiguousarray(small[:, :, :3], dtype=np.uint8)
    alpha = np.ascontiguousarray(small[:, :, 3], dtype=np.uint8)
    bgr.setflags(write=False)
    alpha.setflags(write=False)
    return bgr, alpha


def print_variation(face: Image, rng: random.Random) -> Image:
    """The same face as another print run would give it: ink, colour and registration drift."""
    gains = np.array([rng.uniform(0.9, 1.06) for _ in range(3)], np.float32)
    out = face.astype(np.float32) * gains + rng.uniform(-8, 8)
    shift = np.array([[1, 0, rng.uniform(-2, 2)], [0, 1, rng.uniform(-2, 2)]], np.float32)
    moved = cv2.warpAffine(out, shift, (FACE_W, FACE_H), borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(np.clip(moved, 0, 255), np.uint8)
