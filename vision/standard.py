"""Standard 52-card identification from the printed corner index, no enrollment.

Every standard deck prints the rank above the suit in two opposite corners,
each upright when that corner is at the top left. So a dewarped card (long
side vertical) shows an upright index at its top-left corner in one of its
two 180-degree orientations, and usually in both; both are read, and
disagreement means "unknown".

The index is found by connected components of the ink (not a fixed crop),
so "10" is one rank however wide the font prints it. Rank and suit glyphs
are compared with templates taken from the *training* designs of the
renderer (several fonts and suit shapes); the colour (red or black) limits
the suit to two candidates. A reading is accepted only when its best class
clearly beats the runner-up.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.decks import RANKS, STANDARD, is_red
from vision.detect import CARD_H, CARD_W
from vision.render import TRAIN_DESIGNS, render_card

Image = NDArray[np.uint8]
Vector = NDArray[np.float32]

RANK_SIZE = (20, 28)
SUIT_SIZE = (24, 24)
CROP = (2, 2, 52, 100)  # x0, y0, x1, y1 of the index search area on a 200 x 280 card


@dataclass(frozen=True)
class Thresholds:
    """When a reading counts. Tuned on seeds the benchmark does not use."""

    rank_score: float = 0.72
    weak_rank_score: float = 0.6  # below this a corner is unreadable, pips or not
    rank_margin: float = 0.07
    rank_ratio: float = 2.0  # or: the runner-up at least this many times as far (1 - score)
    rank_ratio_score: float = 0.9
    suit_score: float = 0.72
    suit_margin: float = 0.05
    suit_ratio: float = 2.0
    single_corner_score: float = 0.82  # only one corner readable (overlap, hand)


@dataclass(frozen=True)
class Glyphs:
    """The rank and suit glyphs found in one corner, as feature vectors."""

    rank: Vector
    rank_aspect: float
    suit: Vector
    suit_aspect: float
    red: bool


def _percentiles(gray: NDArray[np.uint8], qs: tuple[float, ...]) -> list[float]:
    """Percentiles of a uint8 image from its histogram (much cheaper than sorting)."""
    cdf = np.cumsum(np.bincount(gray.ravel(), minlength=256))
    total = float(cdf[-1])
    return [float(np.searchsorted(cdf, q / 100 * total)) for q in qs]


def _feature(ink: NDArray[np.float32], box: tuple[int, int, int, int],
             size: tuple[int, int]) -> Vector:
    x, y, w, h = box
    patch = ink[y:y + h, x:x + w]
    v = cv2.resize(patch, size, interpolation=cv2.INTER_LINEAR).ravel().astype(np.float32)
    v -= v.mean()
    n = float(np.linalg.norm(v))
    return v / n if n > 1e-6 else v


def read_corner(card: Image) -> Glyphs | None:
    """The index glyphs at the top-left of a canonical (200 x 280 BGR) card, if any."""
    x0, y0, x1, y1 = CROP
    crop = card[y0:y1, x0:x1]
    gray8 = np.asarray(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), np.uint8)
    paper, dark = _percentiles(gray8, (90, 3))
    gray = gray8.astype(np.float32)
    if paper - dark < 45:
        return None
    ink = np.clip((paper - gray) / (paper - dark), 0, 1).astype(np.float32)
    mask = (ink > 0.45).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    ch, cw = mask.shape
    comps = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area < 10 or h < 5:
            continue
        if x + w >= cw - 1 or y + h >= ch - 1:  # runs out of the index area: card art
            continue
        if x <= 0 and h > 0.6 * ch:  # the card's own edge
            continue
        comps.append((x, y, w, h))
    tall = [c for c in comps if c[3] >= 12]
    if not tall:
        return None
    anchor = min(tall, key=lambda c: c[1])
    ay0, ay1 = anchor[1], anchor[1] + anchor[3]
    group = [c for c in comps
             if min(ay1, c[1] + c[3]) - max(ay0, c[1]) >= 0.5 * min(anchor[3], c[3])
             and c[0] < anchor[0] + anchor[2] + anchor[3] and c[0] + c[2] > anchor[0] - anchor[3]]
    rx0 = min(c[0] for c in group)
    ry0 = min(c[1] for c in group)
    rx1 = max(c[0] + c[2] for c in group)
    ry1 = max(c[1] + c[3] for c in group)
    below = [c for c in comps if c[1] >= ry1 - 2 and c[1] < ry1 + (ry1 - ry0)
             and abs((c[0] + c[2] / 2) - (rx0 + rx1) / 2) < max(rx1 - rx0, 14)]
    if not below:
        return None
    suit = max(below, key=lambda c: c[2] * c[3])
    sx, sy, sw, sh = suit
    if sh < 6 or sw < 6:
        return None
    rank_box = (rx0, ry0, rx1 - rx0, ry1 - ry0)
    sel = mask[sy:sy + sh, sx:sx + sw] > 0
    pix = crop[sy:sy + sh, sx:sx + sw][sel].astype(np.float32)
    b, g, r = pix.mean(axis=0)
    return Glyphs(
        rank=_feature(ink, rank_box, RANK_SIZE),
        rank_aspect=rank_box[2] / rank_box[3],
        suit=_feature(ink, suit, SUIT_SIZE),
        suit_aspect=sw / sh,
        red=bool(r - (g + b) / 2 > 25),
    )


PIP_AREA = (36, 36, 164, 244)  # x0, y0, x1, y1 of the pip field on a 200 x 280 card


def read_pips(card: Image) -> list[Vector]:
    """Suit feature vectors of the pips in the card's centre (number cards and aces)."""
    x0, y0, x1, y1 = PIP_AREA
    crop = card[y0:y1, x0:x1]
    gray8 = np.asarray(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), np.uint8)
    paper, dark = _percentiles(gray8, (90, 1))
    gray = gray8.astype(np.float32)
    if paper - dark < 45:
        return []
    ink = np.clip((paper - gray) / (paper - dark), 0, 1).astype(np.float32)
    mask = (ink > 0.45).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    ch, cw = mask.shape
    pips = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area < 60 or h < 12 or x <= 0 or y <= 0 or x + w >= cw or y + h >= ch:
            continue
        if not 0.55 <= w / h <= 1.5:
            continue
        pips.append((area, _feature(ink, (x, y, w, h), SUIT_SIZE), w / h))
    if not pips:
        return []
    median = float(np.median([a for a, _, _ in pips]))
    return [v for a, v, _ in pips if 0.6 * median <= a <= 1.6 * median]


@dataclass(frozen=True)
class Templates:
    rank_vectors: NDArray[np.float32]
    rank_aspects: NDArray[np.float32]
    rank_labels: tuple[str, ...]
    suit_vectors: NDArray[np.float32]
    suit_aspects: NDArray[np.float32]
    suit_labels: tuple[str, ...]
    pip_vectors: NDArray[np.float32]
    pip_labels: tuple[str, ...]


def _training_views(face: Image) -> list[Image]:
    """A clean canonical view and a small, soft one (a distant card)."""
    clean = cv2.resize(face, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA)
    small = cv2.resize(face, (55, 77), interpolation=cv2.INTER_AREA)
    soft = cv2.resize(cv2.GaussianBlur(small, (0, 0), 0.6), (CARD_W, CARD_H),
                      interpolation=cv2.INTER_LINEAR)
    mid = cv2.resize(cv2.resize(face, (90, 126), interpolation=cv2.INTER_AREA),
                     (CARD_W, CARD_H), interpolation=cv2.INTER_LINEAR)
    blurred = cv2.resize(cv2.GaussianBlur(cv2.resize(face, (110, 154),
                                                     interpolation=cv2.INTER_AREA), (0, 0), 1.2),
                         (CARD_W, CARD_H), interpolation=cv2.INTER_LINEAR)
    return [np.asarray(v, np.uint8) for v in (clean, mid, soft, blurred)]


@lru_cache(maxsize=1)
def templates() -> Templates:
    """Rank and suit templates from the renderer's training designs (built once)."""
    rv: list[Vector] = []
    ra: list[float] = []
    rl: list[str] = []
    sv: list[Vector] = []
    sa: list[float] = []
    sl: list[str] = []
    pv: list[Vector] = []
    pl: list[str] = []
    for design in TRAIN_DESIGNS:
        for card in STANDARD:
            for view in _training_views(render_card("standard", card, design)):
                g = read_corner(view)
                if g is None:
                    continue
                rv.append(g.rank)
                ra.append(g.rank_aspect)
                rl.append(card[:-1])
                sv.append(g.suit)
                sa.append(g.suit_aspect)
                sl.append(card[-1])
                if card[:-1] in ("A", "2", "5", "10"):
                    for v in read_pips(view):
                        # pips print both ways up: the 180-degree turn is the reversed vector
                        pv.extend((v, v[::-1].copy()))
                        pl.extend((card[-1], card[-1]))
    return Templates(np.array(rv), np.array(ra, np.float32), tuple(rl),
                     np.array(sv), np.array(sa, np.float32), tuple(sl),
                     np.array(pv), tuple(pl))


def _per_label_max(scores: NDArray[np.float32], labels: tuple[str, ...],
                   allowed: frozenset[str] | None = None) -> dict[str, float]:
    index = _label_index(labels)
    return {label: float(scores[rows].max()) for label, rows in index.items()
            if allowed is None or label in allowed}


_INDEX_CACHE: dict[int, dict[str, NDArray[np.intp]]] = {}


def _label_index(labels: tuple[str, ...]) -> dict[str, NDArray[np.intp]]:
    key = id(labels)
    if key not in _INDEX_CACHE:
        arr = np.array(labels)
        _INDEX_CACHE[key] = {lab: np.flatnonzero(arr == lab) for lab in dict.fromkeys(labels)}
    return _INDEX_CACHE[key]


def _best_two(vectors: NDArray[np.float32], aspects: NDArray[np.float32],
              labels: tuple[str, ...], v: Vector, aspect: float,
              allowed: frozenset[str] | None = None) -> tuple[str, float, float]:
    scores = vectors @ v - 0.5 * np.abs(np.log(aspects / max(aspect, 1e-3)))
    best = _per_label_max(scores, labels, allowed)
    ranked = sorted(best.items(), key=lambda kv: -kv[1])
    top, second = ranked[0], (ranked[1][1] if len(ranked) > 1 else -1.0)
    return top[0], top[1], top[1] - second


@dataclass(frozen=True)
class Reading:
    card: str | None
    score: float
    """How sure: the weaker of the rank and suit match scores (0 when unknown)."""


def _suit_scores(vectors: NDArray[np.float32], labels: tuple[str, ...], v: Vector,
                 allowed: frozenset[str]) -> dict[str, float]:
    return _per_label_max(vectors @ v, labels, allowed)


def identify_standard(card: Image, th: Thresholds | None = None) -> Reading:
    """Identify a canonical card image (200 x 280 BGR, long side vertical).

    The rank must read the same in every readable corner; a number card's
    pips must be as many as its rank says; the suit's colour comes from the
    ink and its shape from the corner and centre pips together.
    """
    th = th or Thresholds()
    t = templates()
    views = [card, np.ascontiguousarray(card[::-1, ::-1])]
    glyphs = [g for g in (read_corner(v) for v in views) if g is not None]
    if not glyphs:
        return Reading(None, 0.0)
    ranks = []
    weak = False
    readable = []
    for g in glyphs:
        rank, rs, rm = _best_two(t.rank_vectors, t.rank_aspects, t.rank_labels, g.rank,
                                 g.rank_aspect)
        if rs < th.weak_rank_score:
            continue  # like no glyph at all (a clipped or shaded corner): the other decides
        clear = rm >= th.rank_margin or (
            rs >= th.rank_ratio_score and (1 - rs + rm) >= th.rank_ratio * (1 - rs))
        weak = weak or rs < th.rank_score or not clear
        ranks.append((rank, rs))
        readable.append(g)
    glyphs = readable
    if not glyphs:
        return Reading(None, 0.0)
    if len({r for r, _ in ranks}) > 1 or len({g.red for g in glyphs}) > 1:
        return Reading(None, 0.0)
    rank = ranks[0][0]
    rank_score = min(s for _, s in ranks)
    if len(glyphs) == 1 and (weak or rank_score < th.single_corner_score):
        return Reading(None, 0.0)
    if weak and rank in ("J", "Q", "K"):
        return Reading(None, 0.0)  # a faint court index has no pips to confirm it
    red = glyphs[0].red
    allowed = frozenset({"H", "D"} if red else {"S", "C"})
    evidence: list[dict[str, float]] = [
        _suit_scores(t.suit_vectors, t.suit_labels, g.suit, allowed) for g in glyphs]
    if rank not in ("J", "Q", "K"):
        # the pips are independent evidence: their count must be the rank (this is what
        # lets a faint but consistent index through), and their shape weighs as much as
        # both corner suits together, being larger
        pips = [p for v in views[:1] for p in read_pips(v)]
        expected = 1 if rank == "A" else int(rank)
        if len(pips) != expected:
            return Reading(None, 0.0)  # pips hidden, or the rank was misread
        pip_scores = [_suit_scores(t.pip_vectors, t.pip_labels, v, allowed) for v in pips]
        pip_evidence = {s: float(np.mean([p[s] for p in pip_scores])) for s in allowed}
        evidence += [pip_evidence] * len(glyphs)
    combined = {s: float(np.mean([e[s] for e in evidence])) for s in allowed}
    (best, bs), (_, second) = sorted(combined.items(), key=lambda kv: -kv[1])
    # blur makes every glyph alike, so also accept a runner-up that is clearly farther off
    d_best, d_second = 1 - bs, 1 - second
    clear = bs - second >= th.suit_margin or (
        d_second - d_best >= 0.01 and d_second >= th.suit_ratio * max(d_best, 1e-3))
    if bs < th.suit_score or not clear:
        return Reading(None, 0.0)
    card_id = rank + best
    assert rank in RANKS and is_red(card_id) == red
    return Reading(card_id, float(min(rank_score, bs)))
