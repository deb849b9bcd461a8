"""Name the glyphs of a card's corner index: a small learned classifier.

The model is a one-hidden-layer network over two views of a glyph's ink (its
pixels at 16 x 24 and a histogram of oriented gradients at 24 x 32) and its
proportions. It was fitted by ``scripts/train_index_model.py`` on glyphs cut
out by :mod:`vision.index` itself from many published deck designs and system
fonts under random camera conditions, never from one renderer, and ships as
``vision/models/index_glyphs.npz``. Running it needs numpy and OpenCV only.

Classes are the ranks as printed (``A 2 .. 10 J Q K`` and the court letters of
French and German decks, ``R D V B``), the four suits, and ``other`` for ink
that is no index glyph (a pip, a corner of a picture).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

Ink = NDArray[np.float32]

MODEL_PATH = Path(__file__).with_name("models") / "index_glyphs.npz"

PRINTED_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
                 "R", "D", "V", "B")
SUITS = ("S", "C", "H", "D")
CLASSES = (*PRINTED_RANKS, *(f"suit:{s}" for s in SUITS), "other")
"""The classifier's outputs, in order."""

RANK_OF_LETTER = {"R": "K", "D": "Q", "V": "J", "B": "J"}
"""Court letters of other languages: French Roi, Dame, Valet; German Bube (Dame, König
print D and K)."""

RANK_COLUMNS = np.array([CLASSES.index(r) for r in PRINTED_RANKS])
"""The classifier's outputs that are ranks as printed, in :data:`PRINTED_RANKS` order."""


def rank_of(printed: str) -> str:
    """The project's rank of a rank as printed (:data:`RANK_OF_LETTER`).

    >>> rank_of("D"), rank_of("10")
    ('Q', '10')
    """
    return RANK_OF_LETTER.get(printed, printed)

PIXELS = (16, 24)
HOG_WINDOW = (24, 32)
HOG_CELL = 4
HOG_BINS = 8


class ModelError(ValueError):
    """The index model file is missing or not what this code expects."""


def features(glyph: Ink) -> NDArray[np.float32]:
    """The classifier's input for one glyph's ink patch (any size, 0 paper .. 1 ink).

    >>> f = features(np.ones((20, 12), np.float32))
    >>> f.shape == (feature_size(),)
    True
    """
    return np.asarray(features_of([glyph])[0], np.float32)


def features_of(glyphs: list[Ink]) -> NDArray[np.float32]:
    """:func:`features` of many glyphs, one row each: the gradients of all of them are
    taken in one pass (a card's dozen glyphs cost little more than one).

    >>> features_of([np.ones((20, 12), np.float32), np.eye(9, dtype=np.float32)]).shape
    (2, 770)
    """
    n = len(glyphs)
    pix = np.empty((n, PIXELS[0] * PIXELS[1]), np.float32)
    shape = np.empty((n, 2), np.float32)
    hw, ww = HOG_WINDOW[1], HOG_WINDOW[0]
    # each glyph at its own proportions, centred on its canvas with a blank rim of 2 px or
    # more: canvases stacked one under another then see no gradient across their seams
    canvases = np.zeros((n * hw, ww), np.float32)
    for i, glyph in enumerate(glyphs):
        h, w = glyph.shape
        peak = max(float(glyph.max()), 1e-3)
        g = np.asarray(glyph / peak, np.float32)
        pix[i] = cv2.resize(g, PIXELS, interpolation=cv2.INTER_AREA).ravel()
        scale = min((hw - 4) / h, (ww - 4) / w)
        nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
        y0, x0 = (hw - nh) // 2, (ww - nw) // 2
        canvases[i * hw + y0:i * hw + y0 + nh, x0:x0 + nw] = cv2.resize(
            g, (nw, nh), interpolation=cv2.INTER_AREA)
        # (plain floats: a numpy scalar per glyph cost as much as both resizes)
        shape[i, 0] = math.log(w / h)
        shape[i, 1] = cv2.sumElems(g)[0] / (h * w)
    # quantised to 8 bits as the model was trained (the blank rims stay 0)
    canvases = np.clip(canvases * 255, 0, 255).astype(np.uint8).astype(np.float32) / np.float32(
        255)
    return np.concatenate([pix, oriented_gradients_of(canvases, n), shape], axis=1)


CLUB_NOTCH = 0.08
"""How deep a notch between a club's top lobe and a side lobe is, at the least, as a
part of the glyph's width (a spade's sides run unbroken from its tip to its widest)."""


def lobed_like_a_club(glyph: Ink) -> bool:
    """Whether a suit glyph's outline has a round-lobed club's notches: one each side,
    between its top lobe and a side lobe, a third to three fifths of the way down and out
    to the side. The classifier takes such clubs for spades, large and clean ones too
    (aisleriot-plastic's); a spade's notches are at its tip or by its stem, and those by
    its stem, the spade turned over, lie higher and closer in. Too few pixels to show a
    notch is no club (nor is a club whose lobes stand apart: the classifier knows it).

    >>> clover = np.zeros((32, 27), np.float32)  # a big top lobe, two side lobes, a stem
    >>> for centre, radius in (((13, 9), 8), ((6, 20), 7), ((20, 20), 7)):
    ...     _ = cv2.circle(clover, centre, radius, 1.0, -1)
    >>> _ = cv2.rectangle(clover, (12, 19), (14, 31), 1.0, -1)
    >>> lobed_like_a_club(clover)
    True
    >>> spade = np.zeros((28, 26), np.float32)
    >>> _ = cv2.fillPoly(spade, [np.array([[13, 1], [24, 17], [13, 22], [2, 17]])], 1.0)
    >>> _ = cv2.rectangle(spade, (12, 15), (14, 26), 1.0, -1)
    >>> lobed_like_a_club(spade)
    False
    """
    peak = max(float(glyph.max()), 1e-3)
    ink = cv2.copyMakeBorder(np.asarray(glyph / peak > 0.5, np.uint8), 2, 2, 2, 2,
                             cv2.BORDER_CONSTANT, value=0)
    outlines, _ = cv2.findContours(ink, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not outlines:
        return False
    outline = max(outlines, key=cv2.contourArea)
    x, y, w, h = cv2.boundingRect(outline)
    if h < 12 or w < 10 or len(outline) < 5:
        return False
    try:
        found = cv2.convexityDefects(outline, cv2.convexHull(outline, returnPoints=False))
    except cv2.error:  # an outline that crosses itself
        return False
    # (none found comes back as None)
    notches: list[list[int]] = np.asarray(
        found if found is not None else [], np.int32).reshape(-1, 4).tolist()
    sides = set()
    for _, _, deepest, depth in notches:
        px, py = (int(v) for v in outline[deepest][0])
        across = (px - x) / w
        # (out to the sides and below its top third: the notches by a spade's stem, the
        # spade turned over, lie closer in and higher)
        if (0.32 <= (py - y) / h <= 0.58 and depth / 256 >= CLUB_NOTCH * w
                and not 0.34 <= across <= 0.66):
            sides.add(across < 0.5)
    return len(sides) == 2


TE_READ_AS = frozenset({"J", "7"})
"""The ranks the classifier takes a Cyrillic Te for: a J, and blurred, a 7."""


def cyrillic_te(glyph: Ink) -> bool:
    """Whether a rank glyph the classifier calls a jack (or, blurred, a 7) is a Cyrillic Te
    (tuz: a Russian deck's ace), a letter it was never taught: a bar across the top over a
    straight stem in the middle, nothing to either side below (a J's foot hooks aside, a
    7's stem slants, or the stem stands off the middle, or the top is no bar).

    >>> te = np.zeros((26, 14), np.float32)
    >>> te[:4], te[:, 5:9] = 1.0, 1.0
    >>> cyrillic_te(te)
    True
    >>> j = np.zeros((26, 14), np.float32)  # a bar, a stem, its foot hooked to the left
    >>> j[:4], j[:23, 5:9], j[21:, 1:6] = 1.0, 1.0, 1.0
    >>> cyrillic_te(j)
    False
    """
    ink = glyph / max(float(glyph.max()), 1e-3) > 0.5
    ys, xs = np.nonzero(ink)
    if len(xs) < 10:
        return False
    ink = ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    h, w = int(ink.shape[0]), int(ink.shape[1])
    if h < 8 or w < 5:
        return False

    def middle(rows: NDArray[np.bool_]) -> float:
        """Where the ink of these rows lies across the glyph, on average (0 left, 1 right)."""
        weights = rows.sum(axis=0)
        return float((weights * (np.arange(w) + 0.5)).sum()) / max(float(weights.sum()), 1) / w

    low = ink[round(0.4 * h):]
    columns = np.flatnonzero(low.any(axis=0))
    stem = middle(ink[round(0.4 * h):round(0.75 * h)])
    # a bar over a straight stem in the middle: no hook
    return bool(ink[:max(1, round(0.2 * h))].any(axis=0).mean() >= TE_BAR
                and (columns[-1] - columns[0] + 1) / w <= TE_STEM
                and abs(stem - 0.5) <= TE_CENTRED
                and abs(middle(ink[round(0.85 * h):]) - stem) <= TE_CENTRED)


TE_BAR, TE_STEM, TE_CENTRED = 0.85, 0.5, 0.06
"""A Te's top bar spans at least this much of its width, its stem below at most this much;
the stem and its foot lie this near the middle. Of 2,410 readings as a J of the Latin J
indices of 34 published designs (70 to 200 px cards, sharp and blurred), one is taken
for a Te (a 90 px blurred card); of 82 of the Te indices of two Russian designs, 80. Of
2,668 readings as a 7 of the Latin 7 indices, none; of 23 blurred Te read as a 7, 6."""


DE_READ_AS = frozenset({"K", "J", "A"})
"""The ranks the classifier takes a Cyrillic De (dama: a Russian deck's queen) for."""


def cyrillic_de(glyph: Ink) -> bool:
    """Whether a rank glyph is a Cyrillic De, a letter the classifier was never taught: a
    bar the glyph's full width low down, short feet at both ends below it and nothing
    between them, and above it a body of two walls with paper between, its top flat (an A
    whose crossbar is as low has long legs and a pointed top; a K, no full-width bar).

    >>> de = np.zeros((30, 16), np.float32)
    >>> de[:3, 3:13] = de[:24, 3:6] = de[:24, 10:13] = 1.0  # the flat top, two walls
    >>> de[24:27] = 1.0  # the bar
    >>> de[27:, :3] = de[27:, 13:] = 1.0  # the feet
    >>> cyrillic_de(de)
    True
    >>> a = de.copy()
    >>> a[:3] = 0.0
    >>> a[:3, 7:9] = 1.0  # a pointed top
    >>> cyrillic_de(a)
    False
    """
    ink = glyph / max(float(glyph.max()), 1e-3) > 0.5
    # a rank cut out with a glyph beside it (the suit, touching at a small size): each part
    # between blank columns is looked at alone
    inked = np.flatnonzero(ink.any(axis=0))
    if len(inked) < 2:
        return False
    splits = np.flatnonzero(np.diff(inked) > 1) + 1
    return any(_de_alone(ink[:, part[0]:part[-1] + 1]) for part in np.split(inked, splits))


def _de_alone(ink: NDArray[np.bool_]) -> bool:
    """:func:`cyrillic_de` of one glyph's ink, blank columns on neither side."""
    ys, xs = np.nonzero(ink)
    if len(xs) < 10:
        return False
    ink = ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    h, w = int(ink.shape[0]), int(ink.shape[1])
    rows = np.arange(h)
    bar = np.flatnonzero((ink.mean(axis=1) >= DE_BAR) & (rows >= 0.55 * h) & (rows <= 0.93 * h))
    if h < 10 or w < 6 or len(bar) == 0:
        return False
    feet = ink[bar[-1] + 1:]
    side = max(1, round(0.3 * w))
    if (len(feet) < max(1, round(0.05 * h)) or not feet[:, :side].any()
            or not feet[:, -side:].any() or feet[:, side:w - side].any()):
        return False
    top = np.flatnonzero(ink[:max(1, round(0.1 * h))].any(axis=0))
    # each row of the body: its ink from first to last column, paper in between or not
    spans = [r[cols[0]:cols[-1] + 1] for r in ink[round(0.3 * h):bar[0]]
             if len(cols := np.flatnonzero(r))]
    walls = sum(1 for span in spans if not span.all())
    return bool((top[-1] - top[0] + 1) >= DE_TOP * w and spans
                and walls >= DE_WALLS * len(spans))


DE_BAR, DE_TOP, DE_WALLS = 0.85, 0.45, 0.6
"""A De's bar inks this much of its width at least; its flat top spans this much of it
(an A's point a third); this share of its body's rows shows paper between two walls. Of
8,403 readings as a K, J or A of the Latin K, J and A indices of 31 installed designs
(cards 70 to 200 px wide, sharp and blurred by up to 2 px), none is taken for a De; of
458 such readings of the two Russian designs' queens, 194 (clean faces: 37 of 45)."""


def cyrillic_rank(rank: str, glyph: Ink) -> str | None:
    """The rank a Cyrillic letter the classifier was never taught stands for, where
    ``glyph`` (read as ``rank``) is one: a Te (tuz) an ace, a De (dama) a queen; else
    ``None``."""
    if rank in TE_READ_AS and cyrillic_te(glyph):
        return "A"
    if rank in DE_READ_AS and cyrillic_de(glyph):
        return "Q"
    return None


def oriented_gradients_of(stacked: NDArray[np.float32], n: int) -> NDArray[np.float32]:
    """Per image of ``n`` equal images stacked one under another, a histogram of gradient
    orientations per 4 x 4 cell (HOG without its blocks; the HOG descriptor left OpenCV's
    main modules in 5.0), square-rooted and normalised.

    >>> oriented_gradients_of(np.zeros((64, 24), np.float32), 2).shape
    (2, 384)
    """
    gx = cv2.Sobel(stacked, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(stacked, cv2.CV_32F, 0, 1, ksize=3)
    magnitude, angle = cv2.cartToPolar(gx, gy)
    # unsigned orientation: dark-on-light and light-on-dark strokes alike (the angle is
    # 0 .. 2 pi, so truncation is the floor)
    bins = (angle * np.float32(HOG_BINS / np.pi)).astype(np.int32) % HOG_BINS
    rows, w = stacked.shape
    per_image = (rows // n // HOG_CELL) * (w // HOG_CELL)
    index = (_cell_bases(n, rows // n, w) + bins).ravel()
    size = n * per_image * HOG_BINS
    energy = np.bincount(index, weights=magnitude.ravel(), minlength=size)[:size].reshape(
        n, per_image * HOG_BINS)
    # each histogram square-rooted, then scaled to unit length: its length is the root of
    # the energy's sum
    norm = np.sqrt(energy.sum(axis=1, keepdims=True))
    return np.asarray(np.sqrt(energy) / np.where(norm > 1e-6, norm, 1.0), np.float32)


@lru_cache(maxsize=32)
def _cell_bases(n: int, h: int, w: int) -> NDArray[np.int32]:
    """Per pixel of ``n`` stacked ``h`` x ``w`` images, the first histogram bin of its
    cell (the bin of an orientation is added to it); the same for every call of a size."""
    per_image = (h // HOG_CELL) * (w // HOG_CELL)
    r = np.arange(n * h)
    cells = ((r // h) * per_image + ((r % h) // HOG_CELL) * (w // HOG_CELL))[:, None] + (
        np.arange(w)[None] // HOG_CELL)
    bases = np.asarray(cells * HOG_BINS, np.int32)
    bases.flags.writeable = False
    return bases


def feature_size() -> int:
    cells = (HOG_WINDOW[0] // HOG_CELL) * (HOG_WINDOW[1] // HOG_CELL)
    return PIXELS[0] * PIXELS[1] + cells * HOG_BINS + 2


@dataclass(frozen=True, eq=False)  # holds arrays
class GlyphModel:
    """Standardisation and the network's weights (``predict`` gives class probabilities)."""

    mean: NDArray[np.float32]
    scale: NDArray[np.float32]
    w1: NDArray[np.float32]
    b1: NDArray[np.float32]
    w2: NDArray[np.float32]
    b2: NDArray[np.float32]
    classes: tuple[str, ...]

    def predict(self, x: NDArray[np.float32]) -> NDArray[np.float32]:
        """Class probabilities, one row per row of ``x`` (features)."""
        z = (np.atleast_2d(x) - self.mean) / self.scale
        hidden = np.maximum(z @ self.w1 + self.b1, 0)
        logits = hidden @ self.w2 + self.b2
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return np.asarray(e / e.sum(axis=1, keepdims=True), np.float32)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # float16 weights: a third of the size, the same answers to three decimals
        np.savez_compressed(path, mean=self.mean, scale=self.scale,
                            w1=self.w1.astype(np.float16), b1=self.b1,
                            w2=self.w2.astype(np.float16), b2=self.b2,
                            classes=np.array(self.classes))

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> GlyphModel:
        try:
            with np.load(path, allow_pickle=False) as z:
                model = cls(z["mean"].astype(np.float32), z["scale"].astype(np.float32),
                            z["w1"].astype(np.float32), z["b1"].astype(np.float32),
                            z["w2"].astype(np.float32), z["b2"].astype(np.float32),
                            tuple(str(c) for c in z["classes"]))
        except (OSError, KeyError, ValueError) as e:
            raise ModelError(f"cannot read the card-index model {path}: {e}; rebuild it "
                             "with scripts/train_index_model.py") from e
        if model.classes != CLASSES or model.mean.shape != (feature_size(),):
            raise ModelError(f"the card-index model {path} was built for other features; "
                             "rebuild it with scripts/train_index_model.py")
        return model


@lru_cache(maxsize=1)
def shipped_model() -> GlyphModel:
    """The model that ships with the package (loaded once)."""
    return GlyphModel.load(MODEL_PATH)
