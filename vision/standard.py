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

Blur makes small glyphs alike, so the larger print in the card's centre helps:
a number card's pips must be as many as its rank and their shape weighs in the
suit (a linear discriminant, learned at many sizes and blurs, tells blurred
spades from clubs where every template fits both); a court card's large panel
letter confirms a faint corner rank (a small K blurs towards an 8; a large K
does not). Every pip must look like a suit (a blurred court's panel letter beside
its suit is no pair of pips), and pips that do can settle a rank that reads nearly
like a court (a far-off 9 and Q). A corner that reads faintly at the usual ink
level is re-read at a lighter and a darker one, and replaced only by a firm reading.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.decks import RANKS, STANDARD, is_red
from vision.detect import CARD_H, CARD_W
from vision.refusal import Refusal
from vision.render import TRAIN_DESIGNS, render_card

Image = NDArray[np.uint8]
Vector = NDArray[np.float32]

COURTS = ("J", "Q", "K")

RANK_SIZE = (20, 28)
SUIT_SIZE = (24, 24)
FIRM_INK = 0.6  # the ink level that parts a blurred rank from its suit
INK_LEVELS = (0.3, FIRM_INK)  # to re-read a faint corner at (first read at 0.45)
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
    pip_shape_score: float = 0.6  # every pip of a number card this close to a suit
    large_suit_score: float = 0.97  # the pips (or a court's panel suit) deciding alone
    large_suit_ratio: float = 3.0
    corner_tolerance: float = 0.005  # how much a corner may prefer the other suit then
    pip_z: float = 0.3  # the pips' mean discriminant score (+-1 at the suits' means)
    corner_z: float = 0.3  # how far the corners' mean score may lean the other way
    pips_alone_z: float = 0.5  # the pips' mean score for them to outweigh the corners'
    discriminant_pip_score: float = 0.95  # for a discriminant to decide: the pips this close
    discriminant_corner_score: float = 0.9  # to a suit template, and every corner suit this
    panel_letter_score: float = 0.85  # a court's large panel letter, confirming a faint index
    panel_letter_margin: float = 0.02  # over the other court letters (the corners tell
    # the courts apart well; it is numbers they confuse them with)


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


def _ink(crop: Image, darkest_percentile: float) -> NDArray[np.float32] | None:
    """How dark each pixel of ``crop`` is, from 0 (its paper) to 1 (its darkest ink, at
    that percentile); ``None`` when the crop has no print to speak of."""
    gray8 = np.asarray(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), np.uint8)
    paper, dark = _percentiles(gray8, (90, darkest_percentile))
    if paper - dark < 45:
        return None
    ink = np.clip((paper - gray8.astype(np.float32)) / (paper - dark), 0, 1)
    return np.asarray(ink, np.float32)


def read_corner(card: Image, ink_level: float = 0.45) -> Glyphs | None:
    """The index glyphs at the top-left of a canonical (200 x 280 BGR) card, if any.

    ``ink_level``: how dark (0 paper .. 1 darkest) a pixel must be to count as ink."""
    x0, y0, x1, y1 = CROP
    crop = card[y0:y1, x0:x1]
    ink = _ink(crop, 3)
    if ink is None:
        return None
    mask = (ink > ink_level).astype(np.uint8)
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
Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Field:
    """The ink of a card's centre (its pip field) and the shapes found in it."""

    ink: NDArray[np.float32]
    boxes: tuple[tuple[int, Box], ...]  # (area, (x, y, w, h)) of each whole shape


def read_field(card: Image) -> Field | None:
    """The ink shapes in the centre of a canonical card: pips, or a court's panel
    letter and suit (``None`` when the centre has no contrast at all)."""
    x0, y0, x1, y1 = PIP_AREA
    ink = _ink(card[y0:y1, x0:x1], 1)
    if ink is None:
        return None
    mask = (ink > 0.45).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    ch, cw = mask.shape
    boxes = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area < 60 or h < 12 or x <= 0 or y <= 0 or x + w >= cw or y + h >= ch:
            continue
        boxes.append((area, (x, y, w, h)))
    return Field(ink, tuple(boxes))


GLARE_LEVEL = 248  # a washed-out pixel: every channel this bright (clipped by glare)
PAPER_STRIPS = ((60, 0, 140, 30), (60, 250, 140, 280), (0, 110, 30, 170), (170, 110, 200, 170))


def glare_hidden_pips(card: Image, field: Field | None, found: int) -> int:
    """How many pips a washed-out patch (glare: every channel clipped, brighter than the
    card's paper) in the pip field could hide, judged by the size of the pips found.

    A card whose paper itself is clipped (overexposed) shows no glare: its pips are dark
    on it, so nothing is hidden (0)."""
    if field is None or found < 1:
        return 0
    paper = np.concatenate([card[y0:y1, x0:x1].min(axis=2).ravel()
                            for x0, y0, x1, y1 in PAPER_STRIPS])
    if float(np.percentile(paper, 25)) > GLARE_LEVEL - 15:
        return 0
    x0, y0, x1, y1 = PIP_AREA
    washed = int(np.count_nonzero(card[y0:y1, x0:x1].min(axis=2) >= GLARE_LEVEL))
    pip_sizes = [w * h for _, (_, _, w, h) in field.boxes if 0.45 <= w / h <= 1.5]
    if not pip_sizes:
        return 0
    return int(washed // float(np.median(pip_sizes)))


def read_pips(card: Image) -> list[Vector]:
    """Suit feature vectors of the pips in the card's centre (number cards and aces)."""
    return pips_of(read_field(card))


def pips_of(field: Field | None) -> list[Vector]:
    """Suit feature vectors of the pips among a pip field's shapes (alike in size)."""
    if field is None:
        return []
    pips = [(area, box) for area, box in field.boxes if 0.45 <= box[2] / box[3] <= 1.5]
    if not pips:
        return []
    median = float(np.median([a for a, _ in pips]))
    return [_feature(field.ink, box, SUIT_SIZE) for a, box in pips
            if 0.6 * median <= a <= 1.6 * median]


def read_letters(field: Field | None) -> list[tuple[Vector, float, Box]]:
    """Rank-like features (vector, aspect, box) of the tall shapes in a card's centre:
    a court card prints its rank large there, where blur cannot hide it."""
    if field is None:
        return []
    return [(_feature(field.ink, box, RANK_SIZE), box[2] / box[3], box)
            for _, box in field.boxes if box[3] >= 40 and 0.3 <= box[2] / box[3] <= 1.3]


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
    letter_vectors: NDArray[np.float32]  # a court's large panel letter, both ways up
    letter_aspects: NDArray[np.float32]
    letter_labels: tuple[str, ...]


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
    lv: list[Vector] = []
    la: list[float] = []
    ll: list[str] = []
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
                if card[:-1] in COURTS:
                    letters = read_letters(read_field(view))
                    if letters:
                        # upright, the panel prints its letter above its suit
                        v, aspect, _ = min(letters, key=lambda t: t[2][1])
                        lv.extend((v, v[::-1].copy()))
                        la.extend((aspect, aspect))
                        ll.extend((card[:-1], card[:-1]))
    return Templates(np.array(rv), np.array(ra, np.float32), tuple(rl),
                     np.array(sv), np.array(sa, np.float32), tuple(sl),
                     np.array(pv), tuple(pl),
                     np.array(lv), np.array(la, np.float32), tuple(ll))


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


def upright_pip(v: Vector, size: tuple[int, int] = SUIT_SIZE) -> Vector:
    """A pip's feature turned so that its heavier half is on top: pips print both ways up,
    and one fixed rule makes every pip of one suit face the same way.

    >>> upright_pip(np.float32([0, 0, 0, 1]), (2, 2)).tolist()  # ink low: turned over
    [1.0, 0.0, 0.0, 0.0]
    """
    w, h = size
    patch = v.reshape(h, w)
    return v if patch[:h // 2].sum() >= patch[h - h // 2:].sum() else v[::-1].copy()


@dataclass(frozen=True)
class Discriminant:
    """A linear test between the two suits of one colour (spades or clubs, hearts or
    diamonds), learned from the training designs at many sizes and blurs: where blur makes
    both suits correlate alike with every template, the few pixels where they differ (a
    spade's point, a club's round top lobe) still tell them apart. ``score`` is about +1
    for ``first``, -1 for ``second``."""

    first: str
    second: str
    weights: Vector
    bias: float

    def score(self, v: Vector) -> float:
        return float(np.dot(self.weights, v)) - self.bias


def _fit_discriminant(first: str, second: str, a: NDArray[np.float32],
                      b: NDArray[np.float32], shrink: float = 1.0) -> Discriminant:
    """Fisher's linear discriminant with a shrunk covariance (few samples, many pixels),
    scaled so that the class means score +1 and -1."""
    mu_a, mu_b = a.mean(axis=0), b.mean(axis=0)
    centred = np.vstack([a - mu_a, b - mu_b]).astype(np.float64)
    cov = centred.T @ centred / len(centred)
    cov += shrink * np.trace(cov) / len(cov) * np.eye(len(cov))
    w = np.linalg.solve(cov, (mu_a - mu_b).astype(np.float64))
    sa, sb = float(np.mean(a @ w)), float(np.mean(b @ w))
    half = (sa - sb) / 2
    return Discriminant(first, second, (w / half).astype(np.float32), (sa + sb) / 2 / half)


def _degraded_views(face: Image) -> list[Image]:
    """A face as a camera sees it at several distances and blurs, canonical size."""
    out = []
    for width in (200, 90, 60):
        small = cv2.resize(face, (width, round(width * 1.4)), interpolation=cv2.INTER_AREA)
        for sigma in (0.0, 1.1):
            view = cv2.GaussianBlur(small, (0, 0), sigma) if sigma else small
            out.append(np.asarray(cv2.resize(view, (CARD_W, CARD_H),
                                             interpolation=cv2.INTER_LINEAR), np.uint8))
    return out


@lru_cache(maxsize=1)
def discriminants() -> dict[str, tuple[Discriminant, Discriminant]]:
    """Per colour (``"black"``, ``"red"``): the corner-suit and the pip discriminants
    (built once, from number cards of the training designs)."""
    corner: dict[str, list[Vector]] = {s: [] for s in "SCHD"}
    pip: dict[str, list[Vector]] = {s: [] for s in "SCHD"}
    for design in TRAIN_DESIGNS:
        for card in STANDARD:
            if card[:-1] in COURTS:
                continue
            for view in _degraded_views(render_card("standard", card, design)):
                g = read_corner(view)
                if g is not None:
                    corner[card[-1]].append(g.suit)
                pip[card[-1]].extend(upright_pip(v) for v in read_pips(view))
    out: dict[str, tuple[Discriminant, Discriminant]] = {}
    for colour, first, second in (("black", "S", "C"), ("red", "H", "D")):
        out[colour] = (
            _fit_discriminant(first, second, np.array(corner[first]), np.array(corner[second])),
            _fit_discriminant(first, second, np.array(pip[first]), np.array(pip[second])))
    return out


def prepare() -> None:
    """Build the templates and the suit discriminants now (1-2 s of CPU on x86, several on
    a Pi) rather than while the first card waits to be read."""
    templates()
    discriminants()


@dataclass(frozen=True)
class Reading:
    card: str | None
    score: float
    """How sure: the weaker of the rank and suit match scores (0 when unknown)."""
    reason: Refusal | None = None
    """Why ``card`` is ``None`` (``None`` when it was named)."""


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
    return _pip_match(pips, allowed)[0]


def _pip_match(pips: NDArray[np.float32], allowed: frozenset[str],
               ) -> tuple[dict[str, float], float]:
    """Per suit, the mean over the pips of the best template score; and the score of the
    pip that looks least like any suit."""
    matrix, rows = _pip_rows(allowed)
    scores = np.stack([matvec(matrix, p) for p in pips], axis=1)  # templates x pips
    return ({s: float(scores[r].max(axis=0).mean())
             for s, r in zip(sorted(allowed), rows, strict=True)},
            float(scores.max(axis=0).min()))


def _rank_scores(g: Glyphs) -> dict[str, float]:
    t = templates()
    scores = matvec(t.rank_vectors, g.rank) - 0.5 * np.abs(np.log(t.rank_aspects
                                                           / max(g.rank_aspect, 1e-3)))
    return _per_label_max(scores, t.rank_labels)


def _pip_count_rank(corners: list[dict[str, float]], pips: int, th: Thresholds,
                    suit_shaped: bool = False) -> str | None:
    """The one number rank that every corner reads nearly as well as its best and
    that the pip count confirms (a blurred 5 and 8 look alike; five pips do not).
    ``suit_shaped``: every pip looks like a suit (no court's panel letter among them)."""
    # a faint corner (shaded, clipped) does not veto what a clear one and the pips agree on
    corners = [c for c in corners if max(c.values()) >= th.rank_score] or corners
    near = {r for c in corners for r, v in c.items() if v >= max(c.values()) - th.rank_margin}
    if near & {"J", "Q", "K"} and (pips < 4 or not suit_shaped):
        # a court card's panel letter and suit count as two "pips"; four or more shapes,
        # each a suit, are no court (a blurred Q and 9 look alike; nine pips do not)
        return None
    candidates = [r for r in corners[0] if r not in COURTS
                  and all(c[r] >= max(th.rank_score, max(c.values()) - th.rank_margin)
                          for c in corners)
                  and (1 if r == "A" else int(r)) == pips]
    return candidates[0] if len(candidates) == 1 else None


def _panel_letter(field: Field | None, th: Thresholds) -> str | None:
    """The court letter printed large in a card's centre, when one reads clearly (the
    pips of a number card look nothing like a letter: they score below 0.3)."""
    t = templates()
    best = dict.fromkeys(COURTS, -1.0)
    for v, aspect, _ in read_letters(field):
        scores = matvec(t.letter_vectors, v) - 0.5 * np.abs(np.log(t.letter_aspects / aspect))
        for letter, score in _per_label_max(scores, t.letter_labels).items():
            best[letter] = max(best[letter], score)
    (letter, score), (_, second) = sorted(best.items(), key=lambda kv: -kv[1])[:2]
    if score >= th.panel_letter_score and score - second >= th.panel_letter_margin:
        return letter
    return None


def _court_rank(corners: list[dict[str, float]], letter: str | None,
                th: Thresholds) -> str | None:
    """The court rank that the panel's large letter shows and every corner reads nearly
    as well as its best and best of the courts (blur makes a small K look like an 8;
    a large K does not)."""
    if letter is None:
        return None
    corners = [c for c in corners if max(c.values()) >= th.rank_score] or corners
    if all(c[letter] >= max(c.values()) - th.rank_margin
           and c[letter] >= max(c[k] for k in COURTS) for c in corners):
        return letter
    return None


def _court_suit(field: Field | None, allowed: frozenset[str],
                ) -> tuple[dict[str, float] | None, Vector | None]:
    """Suit scores and feature of the large suit printed in a court card's panel: the
    pip-like component that looks most like a suit (the other is the panel's letter)."""
    t = templates()
    best: dict[str, float] | None = None
    shape: Vector | None = None
    for v in pips_of(field):
        scores = _pip_evidence(t, v[None, :], allowed)
        if best is None or max(scores.values()) > max(best.values()):
            best, shape = scores, v
    return best, shape


def _discriminant_suit(glyphs: list[Glyphs], pips: list[Vector], red: bool,
                       large: dict[str, float] | None, th: Thresholds,
                       ) -> tuple[str | None, str | None]:
    """The suit the pips' (or a court's panel suit's) discriminant clearly names and the
    corners' does not deny; and the suit the pips' discriminant leans to, denied or not.

    Only for glyphs that are surely suits of this colour, blurred (every template fits them
    closely): a discriminant names one of two suits for anything, a shape that is no suit
    (another card's edge, a bad outline, a court's panel letter) included."""
    t = templates()
    allowed = frozenset({"H", "D"} if red else {"S", "C"})
    if large is None or max(large.values()) < th.discriminant_pip_score or any(
            max(_suit_scores(t.suit_vectors, t.suit_labels, g.suit, allowed).values())
            < th.discriminant_corner_score for g in glyphs):
        return None, None
    by_corner, by_pip = discriminants()["red" if red else "black"]
    pip_z = float(np.mean([by_pip.score(upright_pip(v)) for v in pips]))
    corner_z = float(np.mean([by_corner.score(g.suit) for g in glyphs]))
    named = by_pip.first if pip_z > 0 else by_pip.second
    leaning = named if abs(pip_z) >= th.pip_z else None
    if (len(glyphs) == 2 and len(pips) >= 2 and abs(pip_z) >= th.pips_alone_z
            and max(large, key=lambda k: large[k]) == named):
        # several pips, templates and discriminant naming the same suit, outweigh small
        # corner suits, whose discriminant is noise once a card is far off (a few pixels)
        return named, leaning
    if leaning is not None and (abs(corner_z) <= th.corner_z or (pip_z > 0) == (corner_z > 0)):
        return leaning, leaning  # the corners do not deny it
    return None, leaning


def _read_index(card: Image) -> tuple[list[Image], list[tuple[Image, Glyphs]], bool]:
    """The card's two 180-degree views and the index glyphs read in their top-left corners
    (each with the view it was read in).

    A blurred rank can run into its suit below: then a darker ink level parts them. When
    neither view shows an index, the outline's long and short sides may have been taken
    for each other (a card foreshortened by a tilted camera): the quarter-turned card,
    stretched back to shape, is read instead (and ``True`` says so).
    """
    views: list[Image] = []
    glyphs: list[tuple[Image, Glyphs]] = []
    for turn in (False, True):
        upright = _quarter_turn(card) if turn else card
        views = [upright, np.asarray(cv2.flip(upright, -1), np.uint8)]
        found = [(v, read_corner(v) or read_corner(v, FIRM_INK)) for v in views]
        glyphs = [(v, g) for v, g in found if g is not None]
        if glyphs:
            return views, glyphs, turn
    return views, glyphs, False


def _rank_reading(g: Glyphs, th: Thresholds) -> tuple[dict[str, float], bool]:
    """A corner's score per rank, and whether its best rank is clear and firm."""
    per_rank = _rank_scores(g)
    (_, rs), (_, runner_up) = sorted(per_rank.items(), key=lambda kv: -kv[1])[:2]
    rm = rs - runner_up
    clear = rm >= th.rank_margin or (
        rs >= th.rank_ratio_score and (1 - rs + rm) >= th.rank_ratio * (1 - rs))
    return per_rank, clear and rs >= th.rank_score


def _best_corner(view: Image, g: Glyphs, th: Thresholds,
                 ) -> tuple[Glyphs, dict[str, float], bool]:
    """A corner's glyphs as read most clearly: a small or blurred index that is faint at
    the usual ink level (its rank run into its suit, or broken in two) often reads clearly
    at a lighter or darker one. Only the corner's own glyphs are re-read: what it then
    says must still agree with the other corner and the pips."""
    per_rank, firm = _rank_reading(g, th)
    if max(per_rank.values()) >= th.rank_score:
        # a rank that matches well but not clearly is blur making two ranks alike (K and 8),
        # not a bad ink level: another level only picks one of them at random
        return g, per_rank, firm
    # only a firm reading replaces the first: faint ones at several levels would just give
    # the likeliest wrong rank more chances
    best: tuple[Glyphs, dict[str, float], bool] | None = None
    for level in INK_LEVELS:
        other = read_corner(view, level)
        if other is None:
            continue
        scores, other_firm = _rank_reading(other, th)
        if other_firm and (best is None or max(scores.values()) > max(best[1].values())):
            best = (other, scores, other_firm)
    return best or (g, per_rank, firm)


def _quarter_turn(card: Image) -> Image:
    turned = cv2.rotate(card, cv2.ROTATE_90_CLOCKWISE)
    return np.asarray(cv2.resize(turned, (CARD_W, CARD_H), interpolation=cv2.INTER_LINEAR),
                      np.uint8)


def identify_standard(card: Image, th: Thresholds | None = None) -> Reading:
    """Identify a canonical card image (200 x 280 BGR, long side vertical).

    The rank must read the same in every readable corner (or, for number cards,
    the pip count must settle between ranks that read nearly alike, and for court
    cards the panel's large letter); a number card's pips must be as many as its
    rank says; the suit's colour comes from the ink and its shape from the corner
    and centre pips (or a court card's panel suit) together, and for number cards
    the suit discriminant must not deny it.
    """
    th = th or Thresholds()
    t = templates()
    views, found, turned = _read_index(card)
    if not found:
        return Reading(None, 0.0)
    ranks = []
    weak = False
    readable: list[Glyphs] = []
    corner_scores = []
    for view, first in found:
        g, per_rank, firm = _best_corner(view, first, th)
        rank, rs = max(per_rank.items(), key=lambda kv: kv[1])
        if rs < th.weak_rank_score:
            continue  # like no glyph at all (a clipped or shaded corner): the other decides
        weak = weak or not firm
        ranks.append((rank, rs))
        readable.append(g)
        corner_scores.append(per_rank)
    glyphs = readable
    if not glyphs or (turned and (len(glyphs) < 2 or weak or len({r for r, _ in ranks}) > 1)):
        # a turned outline must show both corners, clear and alike: one could be another
        # card's (an outline round two overlapping cards)
        return Reading(None, 0.0)
    if len({g.red for g in glyphs}) > 1:
        return Reading(None, 0.0)
    red = glyphs[0].red
    allowed = frozenset({"H", "D"} if red else {"S", "C"})
    field = read_field(views[0])
    letter: str | None = None
    if weak or len({r for r, _ in ranks}) > 1 or ranks[0][0] in (*COURTS, "A", "2"):
        # a number card's pips are no letter: only when a court is possible, or when its
        # two "pips" (the panel letter and suit) could pass for a 2 or an ace
        letter = _panel_letter(field, th)
    pips: list[Vector] | None = None
    rank = ranks[0][0]
    rank_score = min(s for _, s in ranks)
    if len({r for r, _ in ranks}) > 1 or weak:
        # corners that disagree or read faintly: only the pip count, or a court's large
        # panel letter, can settle it
        pips = pips_of(field)
        suit_shaped = bool(pips) and _pip_match(np.array(pips, np.float32),
                                                allowed)[1] >= th.pip_shape_score
        settled = (_pip_count_rank(corner_scores, len(pips), th, suit_shaped)
                   if letter is None else None)
        settled = settled or _court_rank(corner_scores, letter, th)
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
    if rank in COURTS:
        if weak or letter not in (None, rank):
            # a faint court index with no panel letter to confirm it, or a panel letter
            # that says another court
            return Reading(None, 0.0)
        panel, panel_shape = _court_suit(field, allowed)
        shapes = [] if panel_shape is None else [panel_shape]
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
            pips = pips_of(field)
        expected = 1 if rank == "A" else int(rank)
        # glare may hide pips: then two corners that read the rank firmly and alike decide,
        # with fewer pips, as long as the washed-out patch is large enough to hide the rest
        hidden = (len(glyphs) == 2 and not weak and not turned and len({r for r, _ in ranks}) == 1
                  and 0 < len(pips) < expected
                  and glare_hidden_pips(views[0], field, len(pips)) >= expected - len(pips))
        if (len(pips) != expected and not hidden) or letter is not None:
            return Reading(None, 0.0)  # pips hidden, or the rank was misread
        large, least = _pip_match(np.array(pips, np.float32), allowed)
        if least < th.pip_shape_score:
            # a "pip" that is no suit: a blurred court's panel letter beside its suit reads
            # as two pips under an index that blurs from J to 2 (real pips score above 0.85)
            return Reading(None, 0.0)
        evidence += [large] * len(glyphs)
        panel, shapes = large, pips
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
    if shapes:
        # the discriminants see where blurred spades and clubs still differ; they must not
        # contradict a reading, and can settle one the templates leave open
        verdict, leaning = _discriminant_suit(glyphs, shapes, red, panel, th)
        if clear and (verdict not in (None, best) or leaning not in (None, best)):
            # even pips the corners outvote must not lean to the other suit: blurred small
            # hearts can look like diamonds in the corners, never in all nine pips
            return Reading(None, 0.0)
        if not clear and verdict is not None:
            best, bs, clear = verdict, combined[verdict], True
    if bs < th.suit_score or not clear:
        return Reading(None, 0.0)
    card_id = rank + best
    assert rank in RANKS and is_red(card_id) == red
    return Reading(card_id, float(min(rank_score, bs)))
