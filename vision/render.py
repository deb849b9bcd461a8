"""Synthetic table scenes, seeded and reproducible.

A scene is a top-down table plane seen through a camera homography (tilt up
to 35 degrees), with cards laid on it and the usual nuisances applied: light
gradients, glare, blur, noise, JPEG, textured or light tables, hands and
overlaps. Ground truth comes with every scene.

The faces laid on the table are :mod:`vision.card_faces` (our own art, or a
published design); what a scene shows and which nuisances it applies are
:mod:`vision.conditions`. Both are importable from here too, as before.

>>> face = render_card("standard", "10H", design=0)
>>> face.shape
(350, 250, 3)
>>> scene = render_scene(Conditions(deck="star-plus", n_cards=3), seed=1)
>>> scene.image.shape, len(scene.cards)
((720, 1280, 3), 3)
"""


from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.card_faces import (
    CORNER_RADIUS,
    FACE_H,
    FACE_W,
    INK_BLACK,
    INK_RED,
    STANDARD_DESIGNS,
    TEST_DESIGNS,
    TRAIN_DESIGNS,
    WHITE,
    FloatArray,
    Image,
    RenderError,
    StandardDesign,
    card_mask,
    draw_suit,
    draw_text_box,
    print_variation,
    published_card,
    render_card,
    rounded_rectangle,
)
from vision.conditions import CONDITIONS, Conditions, with_deck
from vision.decks import deck_ids
from vision.real_tables import SURFACE, table_of


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
    if kind.startswith(SURFACE):  # a real surface's photograph (vision.real_tables)
        return table_of(kind[len(SURFACE):], size, rng.uniform(1.0, 2.5))
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
    ids = cond.cards or deck_ids(cond.deck)
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


__all__ = [  # the scenes, and the faces and conditions they are made of (imported from here)
    "CONDITIONS",
    "CORNER_RADIUS",
    "FACE_H",
    "FACE_W",
    "INK_BLACK",
    "INK_RED",
    "MARKER_INSET",
    "MARKER_SIDE",
    "STANDARD_DESIGNS",
    "TEST_DESIGNS",
    "TRAIN_DESIGNS",
    "WHITE",
    "Conditions",
    "FloatArray",
    "Image",
    "Placement",
    "RenderError",
    "Scene",
    "StandardDesign",
    "TrueCard",
    "camera_homography",
    "card_mask",
    "compose_scene",
    "draw_markers",
    "draw_suit",
    "draw_text_box",
    "marker_centres",
    "print_variation",
    "published_card",
    "random_placements",
    "render_card",
    "render_scene",
    "rounded_rectangle",
    "with_deck",
]
