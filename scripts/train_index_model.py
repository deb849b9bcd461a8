"""Rebuild the card-index classifier, vision/models/index_glyphs.npz.

    make index-model                        # all of the below

    pip install -e '.[train]'
    sh scripts/apt-install.sh FONTS...      # the Makefile's TRAIN_FONTS: the fonts the
                                            # shipped model was trained on
    sh scripts/ensure-card-designs.sh       # published deck designs (Debian, npm)
    python scripts/train_index_model.py [--cards N] [--out PATH]

Glyphs are cut out of cards by the reader's own segmenter (vision.index), so
the classifier learns exactly what it will be shown. Two kinds of card go in:

* cards drawn here with the rank and suit of every system font (many
  typefaces, weights and widths; court letters of other languages too),
  beside a pip or a court frame at random;
* the faces of the published designs in vision.designs.TRAINING_DESIGNS
  (never BENCH_DESIGNS, which the benchmark keeps for scoring), and of our
  own renderer's designs (the simulated camera table draws them).

Each card is put through a random camera: its size in the frame (45 to 450
px wide), blur, noise, JPEG, a light gradient and a tint, a little glare,
and a dewarp a few pixels off, as vision.detect.dewarp would give it.
The real photos are never used, so they can score the result.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.decks import STANDARD
from vision.glyphs import CLASSES, MODEL_PATH, PRINTED_RANKS, GlyphModel, features
from vision.index import Box, Candidate, index_candidates
from vision.render import STANDARD_DESIGNS, render_card

Image = NDArray[np.uint8]
FACE_W, FACE_H = 600, 840
CANON_W, CANON_H = 200, 280

SUIT_CHARS = {"S": "\u2660", "C": "\u2663", "H": "\u2665", "D": "\u2666"}
OUTLINE_SUIT_CHARS = {"S": "\u2664", "C": "\u2667", "H": "\u2661", "D": "\u2662"}
NOT_TEXT = ("symbol", "d050000l", "dingbat", "fallback", "math", "nushu", "domestic",
            "abogado", "wasn_t", "junkyard", "penguin", "wargames")
"""Fonts whose letters are symbols, or too fanciful for any card's index."""


def fonts() -> tuple[list[str], list[str]]:
    """Font files that draw digits and letters, and those that draw the four suits."""
    from PIL import ImageFont

    text, suits = [], []
    root = Path("/usr/share/fonts")
    paths = sorted(str(p) for ext in ("ttf", "otf") for p in root.rglob(f"*.{ext}"))
    for path in paths:
        try:
            font = ImageFont.truetype(path, 48)
        except OSError:
            continue
        tofu = bytes(font.getmask("\ue000"))

        def has(ch: str, font: ImageFont.FreeTypeFont = font, tofu: bytes = tofu) -> bool:
            mask = font.getmask(ch)
            return mask.getbbox() is not None and bytes(mask) != tofu
        name = Path(path).name.lower()
        if not any(s in name for s in NOT_TEXT) and all(has(c) for c in "A8QKJ10"):
            text.append(path)
        if all(has(c) for c in SUIT_CHARS.values()):
            suits.append(path)
    return text, suits


def _family(path: str) -> str:
    """A font file's family: its name up to the first dash (style suffixes differ)."""
    return Path(path).name.split("-")[0].split(".")[0].split("_")[0].lower()


def _by_family(paths: list[str]) -> list[list[str]]:
    families: dict[str, list[str]] = {}
    for p in paths:
        families.setdefault(_family(p), []).append(p)
    return list(families.values())


def _pick(rng: random.Random, families: list[list[str]]) -> str:
    """A font, each family as likely as another (Noto ships dozens of files per family)."""
    return rng.choice(rng.choice(families))


def _flat_topped(glyph: NDArray[np.float32]) -> NDArray[np.float32]:
    """A "3" redrawn with the flat top and diagonal that many card indices print (few
    system fonts have it, and a 3 read as a 5 is a wrong card)."""
    h, w = glyph.shape
    ink = (glyph > 0.5).astype(np.uint8)
    dist = cv2.distanceTransform(ink, cv2.DIST_L2, 3)
    stroke = max(2, round(2 * float(dist.max())))
    out = glyph.copy()
    cut = round(0.42 * h)
    out[:cut] = 0
    canvas = np.zeros_like(out)
    cv2.line(canvas, (round(0.08 * w), stroke // 2), (round(0.92 * w), stroke // 2), 1.0,
             stroke, cv2.LINE_AA)
    cv2.line(canvas, (round(0.92 * w) - stroke // 2, stroke // 2),
             (round(0.42 * w), round(0.46 * h)), 1.0, stroke, cv2.LINE_AA)
    return np.asarray(np.maximum(out, canvas), np.float32)


def _glyph_image(font_path: str, text: str, height: int, squeeze: float, bold: int,
                 spacing: float = 0.0, flat_top: bool = False,
                 ) -> NDArray[np.float32] | None:
    """``text`` in the font, its ink 0..1, scaled to ``height`` px, ``squeeze`` wide."""
    from PIL import Image as PILImage
    from PIL import ImageDraw, ImageFont

    font = ImageFont.truetype(font_path, 120)
    parts = list(text) if spacing and len(text) > 1 else [text]
    images = []
    for part in parts:
        box = font.getbbox(part)
        w, h = round(box[2] - box[0]) + 8, round(box[3] - box[1]) + 8
        im = PILImage.new("L", (max(w, 1), max(h, 1)), 0)
        ImageDraw.Draw(im).text((4 - box[0], 4 - box[1]), part, fill=255, font=font)
        images.append(np.asarray(im, np.float32) / 255)
    if len(images) > 1:
        top = max(i.shape[0] for i in images)
        gap = round(spacing * top)
        padded = [np.pad(i, ((0, top - i.shape[0]), (0, 0))) for i in images]
        if gap >= 0:
            glyph = np.hstack([padded[0], np.zeros((top, gap), np.float32), *padded[1:]])
        else:
            a, b = padded
            glyph = np.zeros((top, a.shape[1] + b.shape[1] + gap), np.float32)
            glyph[:, :a.shape[1]] = a
            glyph[:, a.shape[1] + gap:] = np.maximum(glyph[:, a.shape[1] + gap:], b)
    else:
        glyph = images[0]
    ys, xs = np.nonzero(glyph > 0.1)
    if not len(ys):
        return None  # the font has no such glyph after all
    glyph = glyph[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    if flat_top:
        glyph = _flat_topped(glyph)
    scale = height / glyph.shape[0]
    w = max(2, round(glyph.shape[1] * scale * squeeze))
    out = cv2.resize(glyph, (w, height), interpolation=cv2.INTER_AREA)
    if bold:
        out = cv2.dilate(out, np.ones((bold, bold), np.uint8))
    return np.asarray(out, np.float32)


def _drawn_suit(suit: str, height: int, rng: random.Random) -> NDArray[np.float32]:
    from vision.render import STANDARD_DESIGNS, draw_suit

    design = STANDARD_DESIGNS[0].__class__(
        "x", 0, 1, 10, 0, 0, 10, rng.uniform(0.24, 0.34), rng.uniform(0.5, 0.75),
        rng.uniform(0.1, 0.24))
    size = height * 2
    img = np.zeros((size * 2, size * 2, 3), np.uint8)
    draw_suit(img, suit, (size, size), size, (255, 255, 255), design)
    ink = img[..., 0].astype(np.float32) / 255
    ys, xs = np.nonzero(ink > 0.1)
    ink = ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    w = max(2, round(ink.shape[1] * height / ink.shape[0]))
    return np.asarray(cv2.resize(ink, (w, height), interpolation=cv2.INTER_AREA), np.float32)


def _stamp(face: NDArray[np.float32], ink: NDArray[np.float32], x: int, y: int,
           colour: NDArray[np.float32]) -> Box | None:
    h, w = ink.shape
    if x < 0 or y < 0 or x + w > face.shape[1] or y + h > face.shape[0]:
        return None
    region = face[y:y + h, x:x + w]
    region[:] = region * (1 - ink[..., None]) + colour * ink[..., None]
    return Box(x, y, w, h)


def font_card(rng: random.Random, text_fonts: list[list[str]], suit_fonts: list[list[str]],
              only: str | None = None) -> tuple[Image, str, Box, str, Box] | None:
    """A card drawn with a random font: its face, printed rank and box, suit and box."""
    weights = [3 if r not in "RDVB" else 1 for r in PRINTED_RANKS]
    # a lone "1" or "0": half of a "10" whose other half was lost is no rank
    printed = only or rng.choices((*PRINTED_RANKS, "0", "1"), [*weights, 1, 1])[0]
    suit = rng.choice("SCHD")
    paper = np.array([rng.uniform(225, 255) for _ in range(3)], np.float32)
    face = np.empty((FACE_H, FACE_W, 3), np.float32)
    face[:] = paper
    red = suit in "HD"
    colour = (np.array([rng.uniform(10, 70), rng.uniform(10, 60), rng.uniform(150, 230)],
                       np.float32) if red else
              np.full(3, rng.uniform(0, 60), np.float32) + np.array(
                  [rng.uniform(0, 30), 0, 0], np.float32))
    rank_h = round(FACE_H * math.exp(rng.uniform(math.log(0.055), math.log(0.17))))
    squeeze = rng.uniform(0.6, 1.25) * (0.75 if printed == "10" else 1.0)
    bold = rng.choice((0, 0, 0, 3, 5))
    spacing = rng.uniform(-0.12, 0.08) if printed == "10" else 0.0
    rank_ink = _glyph_image(_pick(rng, text_fonts), printed, rank_h, squeeze, bold, spacing,
                            flat_top=printed == "3" and rng.random() < 0.4)
    suit_h = round(rank_h * rng.uniform(0.5, 1.0))
    suit_ink: NDArray[np.float32] | None
    if rng.random() < 0.3:
        suit_ink = _drawn_suit(suit, suit_h, rng)
    else:
        chars = OUTLINE_SUIT_CHARS if rng.random() < 0.03 else SUIT_CHARS
        suit_ink = _glyph_image(_pick(rng, suit_fonts), chars[suit], suit_h,
                                rng.uniform(0.8, 1.2), 0)
    if rank_ink is None or suit_ink is None:
        return None
    x = round(rng.uniform(0.015, 0.08) * FACE_W)
    y = round(rng.uniform(0.015, 0.07) * FACE_H)
    column = max(rank_ink.shape[1], suit_ink.shape[1])
    rank_box = _stamp(face, rank_ink, x + (column - rank_ink.shape[1]) // 2, y, colour)
    sy = y + rank_h + round(rank_h * rng.uniform(0.04, 0.35))
    suit_box = _stamp(face, suit_ink, x + (column - suit_ink.shape[1]) // 2, sy, colour)
    if rank_box is None or suit_box is None:
        return None
    right = x + column + round(rng.uniform(0.02, 0.12) * FACE_W)
    kind = rng.random()
    if kind < 0.4:  # the first pip of a number card
        pip_h = round(FACE_H * rng.uniform(0.09, 0.2))
        pip = _drawn_suit(suit, pip_h, rng)
        _stamp(face, pip, right, round(rng.uniform(0.03, 0.3) * FACE_H), colour)
    elif kind < 0.75:  # a court frame with a picture in it
        x0, y0 = right, round(rng.uniform(0.03, 0.12) * FACE_H)
        thick = rng.randint(2, 8)
        frame_colour = tuple(float(v) for v in (colour if rng.random() < 0.5 else
                                               [rng.uniform(0, 255) for _ in range(3)]))
        cv2.rectangle(face, (x0, y0), (FACE_W - x0, FACE_H - y0), frame_colour, thick)
        for _ in range(rng.randint(5, 25)):
            c = tuple(rng.uniform(0, 255) for _ in range(3))
            cx = rng.randint(min(x0, FACE_W - x0), max(x0, FACE_W - x0))  # a wide index
            cy = rng.randint(y0, FACE_H // 2)
            r = rng.randint(5, 60)
            if rng.random() < 0.5:
                cv2.circle(face, (cx, cy), r, c, -1)
            else:
                cv2.ellipse(face, (cx, cy), (r, r // 2), rng.uniform(0, 180), 0, 360, c,
                            rng.randint(2, 8))
    return np.asarray(np.clip(face, 0, 255), np.uint8), printed, rank_box, suit, suit_box


def camera(face: Image, rng: random.Random) -> tuple[Image, NDArray[np.float64]]:
    """``face`` (a flat card, BGR) as a camera would see it, dewarped to 200 x 280, and
    the homography from face pixels to that view."""
    fh, fw = face.shape[:2]
    width = math.exp(rng.uniform(math.log(45), math.log(450)))
    s = width / fw
    pad = 12
    bg = np.array([rng.uniform(0, 255) for _ in range(3)], np.float32)
    cw, ch = round(fw * s) + 2 * pad, round(fh * s) + 2 * pad
    canvas = np.empty((ch, cw, 3), np.float32)
    canvas[:] = bg
    canvas += np.asarray(cv2.GaussianBlur(np.random.default_rng(rng.randrange(1 << 30))
                                          .normal(0, 12, (ch, cw, 1)).astype(np.float32),
                                          (0, 0), 2))[..., None]
    place = np.array([[s, 0, pad], [0, s, pad], [0, 0, 1]], np.float64)
    small = cv2.warpPerspective(face.astype(np.float32), place, (cw, ch),
                                flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_TRANSPARENT, dst=canvas)
    img = small
    # light: a gradient, a tint, sometimes a glare spot
    gx, gy = np.meshgrid(np.linspace(-1, 1, cw, dtype=np.float32),
                         np.linspace(-1, 1, ch, dtype=np.float32))
    a, b = rng.uniform(-0.25, 0.25), rng.uniform(-0.25, 0.25)
    gain = rng.uniform(0.55, 1.1) * (1 + a * gx + b * gy)
    tint = np.array([rng.uniform(0.8, 1.1) for _ in range(3)], np.float32)
    img = img * gain[..., None] * tint
    if rng.random() < 0.15:
        cx, cy = rng.uniform(0, cw), rng.uniform(0, ch)
        r = rng.uniform(0.1, 0.4) * cw
        spot = np.exp(-((gx * cw / 2 - cx + cw / 2) ** 2 + (gy * ch / 2 - cy + ch / 2) ** 2)
                      / (2 * r * r))
        img = img + rng.uniform(60, 200) * spot[..., None]
    sigma = rng.uniform(0, 1.3)
    if sigma > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    img = img + np.random.default_rng(rng.randrange(1 << 30)).normal(
        0, rng.uniform(0, 7), img.shape).astype(np.float32)
    img8 = np.asarray(np.clip(img, 0, 255), np.uint8)
    if rng.random() < 0.7:
        _, buf = cv2.imencode(".jpg", img8, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(35, 95)])
        img8 = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    # the detector's quad: the card's corners, each a little off
    corners = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float64)
    quad = (corners * s + pad).astype(np.float32)
    off = rng.uniform(0.0, 0.03) * width
    quad += np.array([[rng.uniform(-off, off), rng.uniform(-off, off)] for _ in range(4)],
                     np.float32)
    to_canon = cv2.getPerspectiveTransform(
        quad, np.array([[0, 0], [CANON_W, 0], [CANON_W, CANON_H], [0, CANON_H]], np.float32))
    canon = cv2.warpPerspective(img8, to_canon, (CANON_W, CANON_H), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(canon, np.uint8), to_canon @ place


def _mapped(box: Box, h: NDArray[np.float64]) -> Box:
    pts = np.array([[[box.x, box.y], [box.x1, box.y], [box.x1, box.y1], [box.x, box.y1]]],
                   np.float64)
    p = cv2.perspectiveTransform(pts, h)[0]
    x0, y0 = p.min(axis=0)
    x1, y1 = p.max(axis=0)
    return Box(round(x0), round(y0), round(x1 - x0), round(y1 - y0))


def _iou(a: Box, b: Box) -> float:
    ix = max(0, min(a.x1, b.x1) - max(a.x, b.x))
    iy = max(0, min(a.y1, b.y1) - max(a.y, b.y))
    inter = ix * iy
    union = a.w * a.h + b.w * b.h - inter
    return inter / union if union else 0.0


def font_samples(n: int, seed: int, only: str | None = None,
                 ) -> tuple[list[NDArray[np.float32]], list[int]]:
    rng = random.Random(seed)
    text_files, suit_files = fonts()
    text_fonts, suit_fonts = _by_family(text_files), _by_family(suit_files)
    if seed % 100 == 0:
        print(f"fonts: {len(text_files)} files in {len(text_fonts)} families for ranks, "
              f"{len(suit_files)} in {len(suit_fonts)} for suits", flush=True)
    xs: list[NDArray[np.float32]] = []
    ys: list[int] = []
    other = CLASSES.index("other")
    made = 0
    while made < n:
        drawn = font_card(rng, text_fonts, suit_fonts, only)
        if drawn is None:
            continue
        face, printed, rank_box, suit, suit_box = drawn
        canon, h = camera(face, rng)
        made += 1
        true_rank, true_suit = _mapped(rank_box, h), _mapped(suit_box, h)
        rank_label = CLASSES.index(printed) if printed in CLASSES else other
        for cand in index_candidates(canon, (0,)):
            for glyph, box, label in ((cand.rank, cand.rank_box, rank_label),
                                      (cand.suit, cand.suit_box,
                                       CLASSES.index(f"suit:{suit}"))):
                own = _iou(box, true_suit if box is cand.suit_box else true_rank)
                near = max(_iou(box, true_rank), _iou(box, true_suit))
                if own > 0.5:
                    xs.append(features(glyph))
                    ys.append(label)
                elif near < 0.1:
                    xs.append(features(glyph))
                    ys.append(other)
    return xs, ys


def design_samples(model: GlyphModel | None, per_card: int, seed: int,
                   ) -> tuple[list[NDArray[np.float32]], list[int]]:
    """Glyphs of the training designs; which candidate is the index is decided by the
    first model (the one that reads the true rank and suit best)."""
    try:
        from vision.designs import (
            TRAINING_DESIGNS,
            on_background,
            published_designs,
            published_face,
        )
    except ImportError:
        print("vision.designs is missing: no published designs", flush=True)
        return [], []
    if model is None:
        return [], []
    rng = random.Random(seed)
    have = {d.name: d for d in published_designs()}
    names = [n for n in TRAINING_DESIGNS if n in have]
    print(f"designs: {len(names)} of {len(TRAINING_DESIGNS)} training designs installed",
          flush=True)
    xs: list[NDArray[np.float32]] = []
    ys: list[int] = []
    # our own renderer's designs too: the simulated camera table draws them
    for design_index in range(len(STANDARD_DESIGNS)):
        for card in STANDARD:
            face = render_card("standard", card, design_index)
            for _ in range(per_card):
                canon, _h = camera(face, rng)
                _label_by_model(model, index_candidates(canon, (0, 1)), card[:-1], card[-1],
                                xs, ys)
    for name in names:
        try:
            published_face(name, "AS", 600)
        except Exception as e:  # a design that does not render here is left out, and said
            print(f"design {name} left out: {e}", flush=True)
            continue
        design = have[name]
        letters = {"A": design.ace_letter, "J": design.court_letters[0],
                   "Q": design.court_letters[1], "K": design.court_letters[2]}
        for card in STANDARD:
            rank, suit = card[:-1], card[-1]
            printed = letters.get(rank, rank)
            if printed not in CLASSES:
                continue
            bg = np.array([rng.uniform(0, 255) for _ in range(3)], np.float32)
            face = on_background(published_face(name, card, 600), bg)
            for _ in range(per_card):
                canon, _h = camera(face, rng)
                _label_by_model(model, index_candidates(canon, (0, 1)), printed, suit,
                                xs, ys)
    return xs, ys


def _label_by_model(model: GlyphModel, cands: list[Candidate], printed: str, suit: str,
                    xs: list[NDArray[np.float32]], ys: list[int]) -> None:
    if not cands:
        return
    r, s = CLASSES.index(printed), CLASSES.index(f"suit:{suit}")
    rank_p = model.predict(np.array([features(c.rank) for c in cands]))
    suit_p = model.predict(np.array([features(c.suit) for c in cands]))
    # the index is the candidate whose upper glyph is surely *a* rank and whose lower one
    # is the card's suit: not "the true rank", or a design's unusual glyph (a flat-topped 3
    # the first model reads as a 5) would never be learned
    any_rank = rank_p[:, :len(PRINTED_RANKS)].sum(axis=1)
    for corner in {c.corner for c in cands}:
        idx = [i for i, c in enumerate(cands) if c.corner == corner]
        best = max(idx, key=lambda i: any_rank[i] * suit_p[i, s])
        if any_rank[best] * suit_p[best, s] < 0.3:
            continue
        chosen = cands[best]
        xs += [features(chosen.rank), features(chosen.suit)]
        ys += [r, s]
        # ink elsewhere in the corner (pips, pieces of a court picture) is what "other" is
        for i in idx:
            for glyph, box in ((cands[i].rank, cands[i].rank_box),
                               (cands[i].suit, cands[i].suit_box)):
                if max(_iou(box, chosen.rank_box), _iou(box, chosen.suit_box)) < 0.1:
                    xs.append(features(glyph))
                    ys.append(CLASSES.index("other"))


def fit(xs: list[NDArray[np.float32]], ys: list[int], hidden: int, seed: int) -> GlyphModel:
    from sklearn.neural_network import MLPClassifier

    x = np.array(xs, np.float32)
    y = np.array(ys)
    mean = x.mean(axis=0)
    scale = x.std(axis=0) + 1e-3
    # every class must be seen, so that the output layer has a row per class
    present = set(y.tolist())
    missing = [i for i in range(len(CLASSES)) if i not in present]
    if missing:
        raise SystemExit(f"no training glyph of {[CLASSES[i] for i in missing]}")
    net = MLPClassifier(hidden_layer_sizes=(hidden,), alpha=1e-3, batch_size=256,
                        learning_rate_init=1e-3, max_iter=60, early_stopping=True,
                        validation_fraction=0.08, n_iter_no_change=6, random_state=seed)
    net.fit((x - mean) / scale, y)
    print(f"fit: {net.n_iter_} epochs, validation {net.best_validation_score_:.4f}", flush=True)
    order = list(net.classes_)
    w2 = net.coefs_[1][:, order]
    b2 = net.intercepts_[1][order]
    return GlyphModel(mean.astype(np.float32), scale.astype(np.float32),
                      net.coefs_[0].astype(np.float32), net.intercepts_[0].astype(np.float32),
                      w2.astype(np.float32), b2.astype(np.float32), CLASSES)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cards", type=int, default=30000, help="font-drawn cards")
    p.add_argument("--per-design-card", type=int, default=4,
                   help="camera views of each card of each training design")
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--out", type=Path, default=MODEL_PATH)
    p.add_argument("--extra", action="append", default=[], metavar="RANK:N",
                   help="N more font-drawn cards of this printed rank (after the cache)")
    p.add_argument("--font-cache", type=Path,
                   help="keep the font glyphs' features in this file, and reuse them")
    args = p.parse_args()
    cv2.setNumThreads(1)
    t0 = time.time()
    if args.font_cache and args.font_cache.is_file():
        with np.load(args.font_cache) as z:
            xs, ys = list(z["x"]), [int(v) for v in z["y"]]
    else:
        with multiprocessing.Pool(args.jobs) as pool:
            parts = pool.starmap(font_samples, [(args.cards // args.jobs, 100 * (args.seed + i))
                                                for i in range(args.jobs)])
        xs = [x for part in parts for x in part[0]]
        ys = [y for part in parts for y in part[1]]
        if args.font_cache:
            np.savez_compressed(args.font_cache, x=np.array(xs), y=np.array(ys))
    for extra in args.extra:
        rank, _, count = extra.partition(":")
        more_x, more_y = font_samples(int(count), 7919 + len(xs), only=rank)
        xs += more_x
        ys += more_y
    print(f"font glyphs: {len(xs)} ({time.time() - t0:.0f} s)", flush=True)
    first = fit(xs, ys, args.hidden, args.seed)
    dx, dy = design_samples(first, args.per_design_card, args.seed + 1)
    print(f"design glyphs: {len(dx)} ({time.time() - t0:.0f} s)", flush=True)
    model = fit(xs + dx, ys + dy, args.hidden, args.seed) if dx else first
    counts = Counter(CLASSES[i] for i in ys + dy)
    print("glyphs per class:", dict(sorted(counts.items())), flush=True)
    model.save(args.out)
    print(f"wrote {args.out} ({os.path.getsize(args.out) // 1024} KiB, "
          f"{time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
