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
    large_suit_score: float = 0.97  # the pips (or a court's panel suit) deciding alone
    large_suit_ratio: float = 3.0
    corner_tolerance: float = 0.005  # how much a corner may prefer the other suit then


@dataclass(frozen=True)
class Glyphs:
    """The rank and suit glyphs found in one corner, as feature vectors."""

    rank: Vector
    rank_aspect: float
    suit: Vector
    suit_aspect: float
    red: bool


def matvec(matrix: NDArray[np.float32], v: Vector) -> NDArray[np.float32]:
    """``matrix @ v`` on this core: BLAS spreads even small products over threads, which
    stall when the other core is busy (twice the time per card on a loaded Pi).

    >>> matvec(np.eye(2, dtype=np.float32), np.float32([3, 4])).tolist()
    [3.0, 4.0]
    """
    return np.asarray(np.einsum("...j,j->...", matrix, v), np.float32)


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


@dataclass(frozen=True)
class Reading:
    card: str | None
    score: float
    """How sure: the weaker of the rank and suit match scores (0 when unknown)."""


def _suit_scores(vectors: NDArray[np.float32], labels: tuple[str, ...], v: Vector,
                 allowed: frozenset[str]) -> dict[str, float]:
    return _per_label_max(matvec(vectors, v), labels, allowed)


@lru_cache(maxsize=4)
def _pip_rows(suits: frozenset[str]) -> tuple[NDArray[np.float32], tuple[NDArray[np.intp], ...]]:
    """The pip templates of ``suits`` as one matrix, and each suit's rows in it."""
    t = templates()
    labels = np.array(t.pip_labels)
    order = sorted(suits)
    rows = [np.flatnonzero(labels == s) for s in order]
    matrix = np.ascontiguousarray(t.pip_vectors[np.concatenate(rows)])
    starts = np.cumsum([0, *(len(r) for r in rows)])
    return matrix, tuple(np.arange(starts[i], starts[i + 1]) for i in range(len(order)))


def _pip_evidence(t: Templates, pips: NDArray[np.float32],
                  allowed: frozenset[str]) -> dict[str, float]:
    """Per suit, the mean over the pips of the best template score (one matrix product)."""
    matrix, rows = _pip_rows(allowed)
    scores = np.stack([matvec(matrix, p) for p in pips], axis=1)  # templates x pips
    return {s: float(scores[r].max(axis=0).mean())
            for s, r in zip(sorted(allowed), rows, strict=True)}


def _rank_scores(g: Glyphs) -> dict[str, float]:
    t = templates()
    scores = matvec(t.rank_vectors, g.rank) - 0.5 * np.abs(np.log(t.rank_aspects
                                                           / max(g.rank_aspect, 1e-3)))
    return _per_label_max(scores, t.rank_labels)


def _pip_count_rank(corners: list[dict[str, float]], pips: int, th: Thresholds) -> str | None:
    """The one number rank that every corner reads nearly as well as its best and
    that the pip count confirms (a blurred 5 and 8 look alike; five pips do not)."""
    # a faint corner (shaded, clipped) does not veto what a clear one and the pips agree on
    corners = [c for c in corners if max(c.values()) >= th.rank_score] or corners
    near = {r for c in corners for r, v in c.items() if v >= max(c.values()) - th.rank_margin}
    if near & {"J", "Q", "K"}:
        return None  # a court card's panel letter and suit count as two "pips"
    candidates = [r for r in corners[0]
                  if all(c[r] >= max(th.rank_score, max(c.values()) - th.rank_margin)
                         for c in corners)
                  and (1 if r == "A" else int(r)) == pips]
    return candidates[0] if len(candidates) == 1 else None


def _court_suit(card: Image, allowed: frozenset[str]) -> dict[str, float] | None:
    """Suit scores of the large suit printed in a court card's panel: the pip-like
    component that looks most like a suit (the other is the panel's rank letter)."""
    t = templates()
    best: dict[str, float] | None = None
    for v in read_pips(card):
        scores = _pip_evidence(t, v[None, :], allowed)
        if best is None or max(scores.values()) > max(best.values()):
            best = scores
    return best


def identify_standard(card: Image, th: Thresholds | None = None) -> Reading:
    """Identify a canonical card image (200 x 280 BGR, long side vertical).

    The rank must read the same in every readable corner (or, for number cards,
    the pip count must settle between ranks that read nearly alike); a number
    card's pips must be as many as its rank says; the suit's colour comes from
    the ink and its shape from the corner and centre pips (or a court card's
    panel suit) together.
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
    corner_scores = []
    for g in glyphs:
        per_rank = _rank_scores(g)
        (rank, rs), (_, runner_up) = sorted(per_rank.items(), key=lambda kv: -kv[1])[:2]
        rm = rs - runner_up
        if rs < th.weak_rank_score:
            continue  # like no glyph at all (a clipped or shaded corner): the other decides
        clear = rm >= th.rank_margin or (
            rs >= th.rank_ratio_score and (1 - rs + rm) >= th.rank_ratio * (1 - rs))
        weak = weak or rs < th.rank_score or not clear
        ranks.append((rank, rs))
        readable.append(g)
        corner_scores.append(per_rank)
    glyphs = readable
    if not glyphs:
        return Reading(None, 0.0)
    if len({g.red for g in glyphs}) > 1:
        return Reading(None, 0.0)
    red = glyphs[0].red
    allowed = frozenset({"H", "D"} if red else {"S", "C"})
    pips: list[Vector] | None = None
    rank = ranks[0][0]
    rank_score = min(s for _, s in ranks)
    if len({r for r, _ in ranks}) > 1 or weak:
        # corners that disagree or read faintly: only the pip count can settle it
        pips = read_pips(views[0])
        settled = _pip_count_rank(corner_scores, len(pips), th)
        if settled is None:
            if len({r for r, _ in ranks}) > 1:
                return Reading(None, 0.0)
        else:
            rank, weak = settled, False
            rank_score = min(c[rank] for c in corner_scores)
    if len(glyphs) == 1 and (weak or rank_score < th.single_corner_score):
        return Reading(None, 0.0)
    corners = [_suit_scores(t.suit_vectors, t.suit_labels, g.suit, allowed) for g in glyphs]
    evidence: list[dict[str, float]] = list(corners)
    large: dict[str, float] | None = None  # the pips' or the court panel's suit
    if rank in ("J", "Q", "K"):
        if weak:
            return Reading(None, 0.0)  # a faint court index has no pips to confirm it
        panel = _court_suit(views[0], allowed)
        # a panel suit washed out by glare can look like the panel's letter: only a clear
        # one counts
        if panel is not None and max(panel.values()) >= th.large_suit_score:
            # the panel suit is large and sharp where the corner suits blur alike
            evidence += [panel] * len(glyphs)
            large = panel
    else:
        # the pips are independent evidence: their count must be the rank (this is what
        # lets a faint but consistent index through), and their shape weighs as much as
        # both corner suits together, being larger
        if pips is None:
            pips = read_pips(views[0])
        expected = 1 if rank == "A" else int(rank)
        if len(pips) != expected:
            return Reading(None, 0.0)  # pips hidden, or the rank was misread
        large = _pip_evidence(t, np.array(pips, np.float32), allowed)
        evidence += [large] * len(glyphs)
    if large is not None:
        from_corners = {s: float(np.mean([c[s] for c in corners])) for s in allowed}
        (cb, cs), (_, cs2) = sorted(from_corners.items(), key=lambda kv: -kv[1])
        if max(large, key=lambda k: large[k]) != cb and cs - cs2 >= th.suit_margin:
            return Reading(None, 0.0)  # clear corners and the large suits disagree
    combined = {s: float(np.mean([e[s] for e in evidence])) for s in allowed}
    (best, bs), (_, second) = sorted(combined.items(), key=lambda kv: -kv[1])
    # blur makes every glyph alike, so also accept a runner-up that is clearly farther off
    d_best, d_second = 1 - bs, 1 - second
    clear = bs - second >= th.suit_margin or (
        d_second - d_best >= 0.01 and d_second >= th.suit_ratio * max(d_best, 1e-3))
    if not clear and large is not None:
        # small corner suits blur alike (spades and clubs most): the large printed suits
        # decide alone when they are clear and no corner prefers the other suit
        (lb, ls), (_, lsecond) = sorted(large.items(), key=lambda kv: -kv[1])
        ld_best, ld_second = 1 - ls, 1 - lsecond
        if (ls >= th.large_suit_score and ld_second - ld_best >= 0.01
                and ld_second >= th.large_suit_ratio * max(ld_best, 1e-3)
                and all(c[lb] >= max(c.values()) - th.corner_tolerance for c in corners)):
            best, bs, clear = lb, ls, True
    if bs < th.suit_score or not clear:
        return Reading(None, 0.0)
    card_id = rank + best
    assert rank in RANKS and is_red(card_id) == red
    return Reading(card_id, float(min(rank_score, bs)))
