"""Synthetic card faces and table scenes, seeded and reproducible.

The shipped art of Star Catcher, Star Plus and Can't Catch Harry is not
available, so these faces are our own art (shapes, numbers, stars; zodiac
values; character names). Standard cards come in several designs (fonts,
suit shapes, index sizes); :data:`TRAIN_DESIGNS` are the only ones the
standard recognizer learns from, :data:`TEST_DESIGNS` are held out for
benchmarks and tests.

A scene is a top-down table plane seen through a camera homography (tilt up
to 35 degrees), with cards laid on it and the usual nuisances applied: light
gradients, glare, blur, noise, JPEG, textured or light tables, hands and
overlaps. Ground truth comes with every scene.

>>> face = render_card("standard", "10H", design=0)
>>> face.shape
(350, 250, 3)
>>> scene = render_scene(Conditions(deck="star-plus", n_cards=3), seed=1)
>>> scene.image.shape, len(scene.cards)
((720, 1280, 3), 3)
"""

from __future__ import annotations

import itertools
import math
import random
import zlib
from dataclasses import dataclass, field, replace
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


# --------------------------------------------------------------------------- faces


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


def render_card(deck: str, card: str, design: int = 0) -> Image:
    """The clean, flat, upright face of one card (``FACE_H`` x ``FACE_W`` BGR).

    ``design`` picks the standard deck's print design; other decks have one.
    """
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


# --------------------------------------------------------------------------- scenes


@dataclass(frozen=True)
class Conditions:
    """What a rendered table scene shows and which nuisances it applies."""

    deck: str = "standard"
    n_cards: int = 5
    designs: tuple[int, ...] = TEST_DESIGNS
    rotation: float = 360.0  # cards are rotated by up to +- rotation / 2 degrees (360: free)
    tilt: float = 0.0  # camera tilt up to this many degrees
    table: str = "any"  # dark, wood, light or any
    card_width: tuple[float, float] = (95.0, 135.0)
    gradient: bool = False
    glare: bool = False
    blur: bool = False
    noise: bool = False
    jpeg: bool = False
    hand: bool = False
    overlap: bool = False
    print_variation: bool = True
    markers: bool = False  # the four ArUco calibration markers at the table's corners
    size: tuple[int, int] = (1280, 720)
    # published deck designs (vision.designs names): when set, a standard card's face is
    # drawn from one of them (chosen per card) instead of our own ``designs``
    published: tuple[str, ...] = ()


CONDITIONS: dict[str, Conditions] = {
    "upright": Conditions(rotation=10.0, table="dark"),
    "rotation": Conditions(),
    "tilt35": Conditions(tilt=35.0),
    "lighting": Conditions(tilt=35.0, gradient=True, blur=True, noise=True, jpeg=True),
    "light-table": Conditions(table="light", tilt=20.0, gradient=True),
    "glare": Conditions(glare=True, gradient=True, tilt=20.0),
    "hand": Conditions(hand=True, tilt=20.0),
    "overlap": Conditions(overlap=True, n_cards=6),
    "small": Conditions(card_width=(48.0, 62.0), n_cards=8, tilt=20.0),
    "empty": Conditions(n_cards=0, gradient=True, hand=True, tilt=20.0),
}
"""The benchmark's named conditions (the deck is filled in per run)."""


@dataclass(frozen=True)
class TrueCard:
    """Ground truth for one card in a scene."""

    card: str
    quad: FloatArray  # 4 x 2 image pixels: the face's corners clockwise from its top-left
    visible: float  # fraction of the face not covered by cards, hands or the image edge


@dataclass(frozen=True)
class Placement:
    """One card laid on the table plane (plane pixels, degrees)."""

    card: str
    x: float
    y: float
    angle: float = 0.0
    width: float = 110.0
    design: int = 0


@dataclass
class Scene:
    image: Image
    cards: tuple[TrueCard, ...]
    plane_to_image: FloatArray = field(repr=False)


def camera_homography(tilt: float, azimuth: float, size: tuple[int, int],
                      focal: float = 1000.0) -> FloatArray:
    """Plane-to-image homography of a camera tilted ``tilt`` degrees, re-centred.

    A camera rotated about its own centre sees the plane through
    ``K R K^-1``; the result is shifted so the plane's centre stays centred.
    """
    w, h = size
    k = np.array([[focal, 0, w / 2], [0, focal, h / 2], [0, 0, 1]])
    az, t = math.radians(azimuth), math.radians(tilt)
    axis = np.array([math.cos(az), math.sin(az), 0.0])
    rot, _ = cv2.Rodrigues(axis * t)
    hom = k @ rot @ np.linalg.inv(k)
    c = hom @ np.array([w / 2, h / 2, 1.0])
    c = c[:2] / c[2]
    shift = np.array([[1, 0, w / 2 - c[0]], [0, 1, h / 2 - c[1]], [0, 0, 1]])
    out: FloatArray = shift @ hom
    return out


def _table_texture(kind: str, size: tuple[int, int], rng: random.Random) -> Image:
    w, h = size
    nrng = np.random.default_rng(rng.randrange(1 << 30))
    if kind == "wood":
        base = np.array([rng.uniform(30, 60), rng.uniform(60, 100), rng.uniform(100, 150)])
        ys = np.arange(h, dtype=np.float32)[:, None]
        xs = np.arange(w, dtype=np.float32)[None, :]
        grain = np.sin(ys / rng.uniform(4, 9) + 3 * np.sin(xs / rng.uniform(80, 200)))
        shade = 1 + 0.12 * grain + nrng.normal(0, 0.04, (h, w))
        img = base[None, None, :] * shade[:, :, None]
    elif kind == "light":
        base = np.array([rng.uniform(170, 205), rng.uniform(180, 210), rng.uniform(185, 215)])
        small = nrng.normal(0, 6, (h // 8 + 1, w // 8 + 1)).astype(np.float32)
        blotch = cv2.resize(small, (w, h))[:, :, None]
        img = base[None, None, :] + blotch + nrng.normal(0, 3, (h, w, 1))
    else:  # dark felt
        base = np.array([rng.uniform(20, 70), rng.uniform(50, 110), rng.uniform(10, 50)])
        img = base[None, None, :] + nrng.normal(0, 7, (h, w, 1))
    return np.asarray(np.clip(img, 0, 255), np.uint8)


@lru_cache(maxsize=4)
def _warped_table(kind: str, size: tuple[int, int], seed: int,
                  hom: tuple[float, ...], markers: bool = False) -> Image:
    """The bare table as the camera sees it (cached: footage repeats one table)."""
    table = _table_texture(kind, size, random.Random(seed))
    if markers:
        draw_markers(table)
    out = np.asarray(cv2.warpPerspective(table, np.array(hom).reshape(3, 3), size,
                                         borderMode=cv2.BORDER_REFLECT), np.uint8)
    out.setflags(write=False)
    return out


MARKER_SIDE = 48
MARKER_INSET = (220, 150)  # marker centres from the plane's edges: inside a tilted view


def marker_centres(size: tuple[int, int] = (1280, 720)) -> FloatArray:
    """Plane positions of the calibration markers 0-3 (top-left, clockwise)."""
    w, h = size
    cx, cy = MARKER_INSET
    return np.array([(cx, cy), (w - cx, cy), (w - cx, h - cy), (cx, h - cy)], np.float64)


def draw_markers(table: Image) -> None:
    """Print ArUco markers 0-3 (DICT_4X4_50) with a white quiet zone at the plane's corners."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    h, w = table.shape[:2]
    for i, (cx, cy) in enumerate(marker_centres((w, h))):
        marker = cv2.aruco.generateImageMarker(dictionary, i, MARKER_SIDE)
        x0, y0 = round(cx - MARKER_SIDE / 2), round(cy - MARKER_SIDE / 2)
        pad = 12
        table[y0 - pad:y0 + MARKER_SIDE + pad, x0 - pad:x0 + MARKER_SIDE + pad] = 245
        table[y0:y0 + MARKER_SIDE, x0:x0 + MARKER_SIDE] = marker[:, :, None]


def _card_quad_plane(p: Placement) -> FloatArray:
    hw, hh = p.width / 2, p.width * FACE_H / FACE_W / 2
    a = math.radians(p.angle)
    ca, sa = math.cos(a), math.sin(a)
    corners = [(-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh)]
    return np.array([(p.x + ca * x - sa * y, p.y + sa * x + ca * y) for x, y in corners])


def _to_image(h: FloatArray, pts: FloatArray) -> FloatArray:
    out = cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float64), h)
    return np.asarray(out, np.float64).reshape(-1, 2)


def _warp_into(canvas: NDArray[np.float32], ids: NDArray[np.int32], index: int, face: Image,
               quad: FloatArray, shadow: bool, mask: NDArray[np.uint8] | None = None) -> None:
    """Composite one face onto ``canvas`` at ``quad`` (with a soft drop shadow).

    ``mask``: the face's alpha (its own outline); our rounded outline by default.
    """
    hgt, wid = ids.shape
    x0 = max(int(np.floor(quad[:, 0].min())) - 8, 0)
    y0 = max(int(np.floor(quad[:, 1].min())) - 8, 0)
    x1 = min(int(np.ceil(quad[:, 0].max())) + 9, wid)
    y1 = min(int(np.ceil(quad[:, 1].max())) + 9, hgt)
    if x1 <= x0 or y1 <= y0:
        return
    src = np.array([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]], np.float32)
    dst = (quad - [x0, y0]).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(face, m, size, flags=cv2.INTER_AREA)
    alpha = cv2.warpPerspective(card_mask() if mask is None else mask, m, size,
                                flags=cv2.INTER_LINEAR)
    a = alpha.astype(np.float32)[:, :, None] / 255.0
    roi = canvas[y0:y1, x0:x1]
    if shadow:
        sh = cv2.GaussianBlur(np.roll(np.roll(a[:, :, 0], 3, 0), 2, 1), (0, 0), 2.5)
        roi *= 1 - 0.45 * sh[:, :, None]
    roi[:] = roi * (1 - a) + warped.astype(np.float32) * a
    ids[y0:y1, x0:x1][alpha > 127] = index


def _draw_hand(canvas: NDArray[np.float32], ids: NDArray[np.int32], target: FloatArray,
               rng: random.Random) -> None:
    """A hand and forearm reaching from the image edge over ``target`` (a point)."""
    hgt, wid = ids.shape
    skin = (rng.uniform(90, 150), rng.uniform(130, 180), rng.uniform(170, 230))
    edge = rng.choice([(target[0], hgt + 60), (target[0], -60), (-60, target[1]),
                       (wid + 60, target[1])])
    mask = np.zeros((hgt, wid), np.uint8)
    tx, ty = float(target[0]), float(target[1])
    dx, dy = tx - edge[0], ty - edge[1]
    norm = math.hypot(dx, dy) or 1.0
    ux, uy = dx / norm, dy / norm
    palm = (round(tx - ux * 25), round(ty - uy * 25))
    cv2.line(mask, (round(edge[0]), round(edge[1])), palm, 255, 70)
    ang = math.degrees(math.atan2(uy, ux))
    cv2.ellipse(mask, palm, (62, 48), ang, 0, 360, 255, -1)
    for k in range(4):
        off = (k - 1.5) * 22
        base = (palm[0] + ux * 40 - uy * off, palm[1] + uy * 40 + ux * off)
        tip = (base[0] + ux * rng.uniform(40, 70), base[1] + uy * rng.uniform(40, 70))
        cv2.line(mask, (round(base[0]), round(base[1])), (round(tip[0]), round(tip[1])),
                 255, 18)
    soft = cv2.GaussianBlur(mask, (0, 0), 1.5).astype(np.float32)[:, :, None] / 255.0
    shade = 0.85 + 0.15 * np.linspace(0, 1, wid, dtype=np.float32)[None, :, None]
    canvas[:] = canvas * (1 - soft) + np.array(skin, np.float32) * shade * soft
    ids[mask > 127] = -1


def compose_scene(placements: list[Placement], deck: str, seed: int = 0,
                  conditions: Conditions | None = None,
                  hand_at: tuple[float, float] | None = None) -> Scene:
    """Render explicit card placements (plane pixels) under ``conditions``.

    ``hand_at``: a plane point a hand reaches over (besides any random hand).
    """
    cond = conditions or Conditions(deck=deck, table="dark")
    rng = random.Random(seed)
    w, h = cond.size
    hom = camera_homography(rng.uniform(0, cond.tilt), rng.uniform(0, 360), cond.size)
    kind = cond.table if cond.table != "any" else rng.choice(["dark", "wood", "light"])
    canvas = _warped_table(kind, cond.size, rng.randrange(1 << 30),
                           tuple(hom.ravel().tolist()), cond.markers).astype(np.float32)
    ids = np.full((h, w), -1, np.int32)
    quads: list[FloatArray] = []
    for i, p in enumerate(placements):
        mask = None
        if cond.published and deck == "standard":
            face, mask = published_card(rng.choice(cond.published), p.card)
        else:
            face = render_card(deck, p.card, p.design)
        if cond.print_variation:
            face = print_variation(face, rng)
        quad = _to_image(hom, _card_quad_plane(p))
        quads.append(quad)
        _warp_into(canvas, ids, i, face, quad, shadow=True, mask=mask)
    if cond.hand and placements:
        _draw_hand(canvas, ids, rng.choice(quads).mean(axis=0) + rng.uniform(-30, 30), rng)
    elif cond.hand:
        _draw_hand(canvas, ids, np.array([rng.uniform(200, w - 200), rng.uniform(150, h - 150)]),
                   rng)
    if hand_at is not None:
        _draw_hand(canvas, ids, _to_image(hom, np.array([hand_at], np.float64))[0], rng)
    if cond.glare and quads:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        for _ in range(rng.randint(1, 2)):
            cx, cy = rng.choice(quads).mean(axis=0) + rng.uniform(-25, 25)
            r = rng.uniform(18, 40)
            blob = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
            canvas += (rng.uniform(170, 260) * blob)[:, :, None]
    if cond.gradient:
        a = rng.uniform(0, 2 * math.pi)
        ramp = (np.cos(a) * (np.arange(w)[None, :] - w / 2) / w
                + np.sin(a) * (np.arange(h)[:, None] - h / 2) / h)
        lo, hi = rng.uniform(0.5, 0.7), rng.uniform(1.0, 1.15)
        gain = lo + (hi - lo) * (ramp - ramp.min()) / (np.ptp(ramp) or 1.0)
        canvas *= gain.astype(np.float32)[:, :, None]
    img = np.clip(canvas, 0, 255).astype(np.uint8)
    if cond.blur:
        img = np.asarray(cv2.GaussianBlur(img, (0, 0), rng.uniform(0.8, 1.6)), np.uint8)
    if cond.noise:
        nrng = np.random.default_rng(rng.randrange(1 << 30))
        img = np.clip(img + nrng.normal(0, rng.uniform(3, 7), img.shape), 0,
                      255).astype(np.uint8)
    if cond.jpeg:
        _ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(45, 80)])
        img = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    truth = []
    for i, (p, quad) in enumerate(zip(placements, quads, strict=True)):
        area = cv2.contourArea(quad.astype(np.float32))
        visible = float(np.count_nonzero(ids == i)) / max(area * 0.99, 1.0)
        truth.append(TrueCard(p.card, quad, min(visible, 1.0)))
    return Scene(img, tuple(truth), hom)


def _overlaps(a: FloatArray, b: FloatArray, margin: float) -> bool:
    ca = a.mean(axis=0)
    grow_a = ca + (a - ca) * (1 + margin)
    inter, _ = cv2.intersectConvexConvex(grow_a.astype(np.float32), b.astype(np.float32))
    return bool(inter > 0)


def random_placements(cond: Conditions, rng: random.Random,
                      hom: FloatArray | None = None) -> list[Placement]:
    """Random card positions under ``cond`` that stay inside the image."""
    ids = deck_ids(cond.deck)
    w, h = cond.size
    hom = np.eye(3) if hom is None else hom
    chosen = rng.sample(list(ids), min(cond.n_cards, len(ids)))
    placements: list[Placement] = []
    quads: list[FloatArray] = []
    for card in chosen:
        for _attempt in range(60):
            width = rng.uniform(*cond.card_width)
            angle = rng.uniform(-cond.rotation / 2, cond.rotation / 2)
            if cond.rotation < 360 and rng.random() < 0.5:
                angle += 180
            if cond.overlap and placements and rng.random() < 0.7:
                base = rng.choice(placements)
                d = rng.uniform(0.45, 0.75) * width
                a = rng.uniform(0, 2 * math.pi)
                x, y = base.x + d * math.cos(a), base.y + d * math.sin(a) * 1.3
            else:
                x, y = rng.uniform(90, w - 90), rng.uniform(90, h - 90)
            p = Placement(card, x, y, angle, width, rng.choice(cond.designs))
            quad_plane = _card_quad_plane(p)
            quad = _to_image(hom, quad_plane)
            if quad[:, 0].min() < 8 or quad[:, 1].min() < 8 or quad[:, 0].max() > w - 8 \
                    or quad[:, 1].max() > h - 8:
                continue
            if not cond.overlap and any(_overlaps(quad_plane, q, 0.12) for q in quads):
                continue
            placements.append(p)
            quads.append(quad_plane)
            break
    return placements


def render_scene(cond: Conditions, seed: int) -> Scene:
    """A random scene under ``cond``; the same seed always gives the same scene."""
    rng = random.Random(seed)
    # the camera is drawn first by compose_scene from the same seed: replay that draw
    probe = random.Random(seed)
    hom = camera_homography(probe.uniform(0, cond.tilt), probe.uniform(0, 360), cond.size)
    placements = random_placements(cond, random.Random(rng.randrange(1 << 30)), hom)
    return compose_scene(placements, cond.deck, seed, cond)


def with_deck(cond: Conditions, deck: str) -> Conditions:
    """``cond`` for another deck (standard keeps the held-out designs, others design 0)."""
    designs = cond.designs if deck == "standard" else (0,)
    return replace(cond, deck=deck, designs=designs)
