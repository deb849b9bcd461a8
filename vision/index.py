"""Find a standard card's corner index by its ink, whatever the deck's layout.

Real decks print the index in many ways: close to the edge or well inside it,
small or jumbo, touching the first pip or the court picture, a rank of one or
two glyphs ("10"), sometimes a letter from another language. Nothing here
assumes one layout: in each corner of the dewarped card the ink is separated
from the paper (against the paper's own local brightness, so a light gradient
or a tinted card does not matter), cut into connected components, and every
plausible *rank over suit* pair near the corner is offered as a candidate.
The classifier (:mod:`vision.glyphs`) then says which candidate is an index
and what it reads; nothing is decided here.

The card is the canonical 200 x 280 dewarp (:func:`vision.detect.dewarp`),
long side vertical. The corners are turned so each is read as a top-left.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]
Ink = NDArray[np.float32]

WINDOW = (0.34, 0.48)
"""The part of the card searched from each corner (fractions of width and height): a jumbo
index with its suit below reaches nearly half way down; the first pips start about a third
in."""

MARGIN = 2
"""Pixels along the card's edges that are left out: a dewarp a little too large takes in
the table there."""

INDEX_INSET = MARGIN + 2
"""Least distance (canonical pixels) of a corner's glyphs from the card's edges for its
reading to be clear of the outline: one a few pixels inside a card cuts each corner's
index alike (an 8 so cut read as a 3 in both, surely, its glyphs at the blank margin);
glyphs of cards read right lay mostly 6-13 px in."""

INDEX_REACH_ACROSS = 90
"""Furthest (canonical pixels of the card's 200) that an index reaches across the card from
its corner (:attr:`CornerReading.extent`), but one whose suit lies at the far end of the
card's top (:data:`ACROSS_FAR_END`). The published designs' faces, read right: 24-68 px,
72 read across (rank and suit side by side). A 9D's pips under an outline round it and
another card were read across as a lone corner's 8D at 0.998, reaching 108 px."""

ACROSS_FAR_END = 160
"""Least reach across (canonical pixels of 200) of an index whose suit is printed at the
far end of the card's top, its rank in the corner (aisleriot-tango-nuevo: 184-187)."""

LEVELS = (0.5, 0.32, 0.66)
"""Ink levels (0 paper .. 1 the darkest ink) at which the corner is cut into glyphs: the
first one usually; a lighter one for faint print; a darker one to part a blurred rank from
its suit or from the picture it touches."""

SIDE_BY_SIDE_TALLER = 1.3
"""A glyph beside a rank and this much taller may be a pip, not the rank's other half."""

MAX_CANDIDATES = 6
"""Rank-over-suit pairs offered per corner (the classifier reads them all)."""


@dataclass(frozen=True)
class Box:
    """A pixel box ``x, y, w, h`` in the corner window."""

    x: int
    y: int
    w: int
    h: int

    @property
    def x1(self) -> int:
        return self.x + self.w

    @property
    def y1(self) -> int:
        return self.y + self.h

    def union(self, other: Box) -> Box:
        """The box round both.

        >>> Box(0, 0, 2, 2).union(Box(3, 1, 2, 4))
        Box(x=0, y=0, w=5, h=5)
        """
        x, y = min(self.x, other.x), min(self.y, other.y)
        return Box(x, y, max(self.x1, other.x1) - x, max(self.y1, other.y1) - y)


@dataclass(frozen=True, eq=False)  # holds arrays
class Candidate:
    """One rank-over-suit pair in a corner: the glyphs' ink, each alone on blank paper."""

    rank: Ink
    suit: Ink
    rank_box: Box
    suit_box: Box
    redness: float
    """How red the glyphs' ink is (:func:`ink_red_and_chroma`): red ink scores about 0.2 and
    up, black ink about 0.1 and below."""
    corner: int
    """0 top-left, 1 bottom-right (where every standard deck prints its index)."""
    chroma: float = 0.0
    """How coloured the glyphs' ink is, whatever its hue (:func:`ink_red_and_chroma`): black ink
    near 0; the blue, green or yellow of a four-colour deck well above."""


def paper_colour(card: Image) -> NDArray[np.float32]:
    """The card's paper, per channel: a bright percentile of a sample of its pixels (the
    light's tint and a cream card both come out here)."""
    sample = card[::4, ::4].reshape(-1, 3)
    return np.maximum(percentile_of_bytes(sample, 92.0).astype(np.float32), 16.0)


def percentile_of_bytes(values: NDArray[np.uint8], q: float) -> NDArray[np.float64]:
    """``np.percentile(values, q, axis=0)`` of 8-bit values, from the two order statistics
    it interpolates between (a partial sort: several times faster than numpy's own for the
    few thousand samples of a card).

    >>> percentile_of_bytes(np.array([[0, 10], [100, 20], [200, 30]], np.uint8), 75.0)
    array([150.,  25.])
    """
    rows = values.shape[0]
    at = q / 100.0 * (rows - 1)
    lo = math.floor(at)
    hi = min(lo + 1, rows - 1)
    ordered = np.partition(values, (lo, hi) if hi != lo else lo, axis=0)
    a, b = ordered[lo].astype(np.float64), ordered[hi].astype(np.float64)
    t = at - lo
    # (numpy's own form of the interpolation, for the same last bit)
    return np.asarray(a + (b - a) * t if t < 0.5 else b - (b - a) * (1.0 - t), np.float64)


PAPER_REACH = 15
"""Width (canonical pixels) of the max filter that finds the paper round each pixel: wider
than any stroke of an ordinary index."""


def _balanced(window: NDArray[np.uint8], paper: NDArray[np.float32],
              ) -> tuple[NDArray[np.float32], ...]:
    """The blue, green and red planes of ``window`` white-balanced to ``paper`` (1 on the
    paper), and the darkest of them at each pixel."""
    # plane by plane: numpy divides an image by a colour several times slower
    b, g, r = (np.divide(plane, paper[i], dtype=np.float32)
               for i, plane in enumerate(cv2.split(np.asarray(window, np.uint8))))
    return b, g, r, np.asarray(cv2.min(cv2.min(b, g), r), np.float32)


def ink_red_and_chroma(window: NDArray[np.uint8], paper: NDArray[np.float32],
                       reach: int = PAPER_REACH,
                       ) -> tuple[Ink, NDArray[np.float32], NDArray[np.float32]]:
    """How much ink covers each pixel of a part of a card, 0 (paper) to about 1, how red
    that ink is, and how coloured, from one white balance of the part.

    Ink is taken from the darkest channel of the white-balanced image (red and black print
    alike), relative to the paper's local brightness round it (a max filter wider than any
    stroke, smoothed), so a shadow or a glare gradient over the corner is no ink. Redness
    is how much more red than the other channels a pixel is, relative to its darkness
    against that paper (where it is darker than the card's):
    red ink scores high, black ink and paper near 0. Chroma is how far the pixel's colour
    is from grey, relative to its darkness: any coloured ink scores high (a four-colour
    deck's blue or green too), black ink and paper near 0.
    """
    # each step in place: these run a dozen times a frame
    b, g, r, darkest = _balanced(window, paper)
    local_paper = cv2.dilate(darkest, cv2.getStructuringElement(cv2.MORPH_RECT, (reach, reach)))
    local = np.maximum(cv2.GaussianBlur(local_paper, (0, 0), reach * 4 / PAPER_REACH), 0.05)
    ink = np.divide(darkest, local)
    np.clip(np.subtract(1.0, ink, out=ink), 0, 1, out=ink)
    # how dark against the paper round it, not the card's: red ink in a shadow over the
    # index is as red for its darkness as in the light
    lit = np.minimum(local, 1.0)
    dark = np.maximum(np.subtract(lit, darkest), np.multiply(lit, 0.05))
    blue_or_green = cv2.max(b, g)
    chroma = np.subtract(cv2.max(blue_or_green, r), darkest)
    np.clip(np.divide(chroma, dark, out=chroma), 0, 2, out=chroma)
    red = np.subtract(r, blue_or_green, out=r)
    np.clip(np.divide(red, dark, out=red), -1, 2, out=red)
    return ink, red, chroma


SHADE_REACH = 41
"""Width (pixels of a card halved, 100 x 140) of the closing that finds the paper round each
pixel for :func:`shadowed_paper`: wider than a pip."""

SHADED = 0.8
"""Paper (a fraction of the card's, :func:`paper_colour`) below which it is in shade."""

SHADE_FLOOR = 0.25
"""The least a shade's paper (its median) is of the card's paper: darker, it is print
reaching the card's edge (a deck whose one giant pip fills the face)."""


def shadowed_paper(card: NDArray[np.uint8], paper: NDArray[np.float32], least_ink: float,
                   reach: int = SHADE_REACH) -> NDArray[np.bool_]:
    """Where a card (halved, BGR) is paper in a shadow cast across it: in shade that
    reaches the card's edge (paper found by a closing, a max filter then a min filter as
    wide), and less than ``least_ink`` darker than that shade's own paper. Along a shadow's
    edge, the max filter of :func:`ink_red_and_chroma` reaches the lit paper across it and
    reads a band of ink on its dark side. (Not for an index: a closing takes a blurred
    glyph wider than its reach for paper.)

    >>> card = np.full((140, 100, 3), 230, np.uint8); card[:, 50:] = 70  # a shadow
    >>> card[60:80, 70:80] = 10  # a pip in it
    >>> shade = shadowed_paper(card, np.float32([230, 230, 230]), 0.25)
    >>> bool(shade[:, 50:70].all()), bool(shade[60:80, 70:80].any()), bool(shade[:, :50].any())
    (True, False, False)
    """
    darkest = _balanced(card, paper)[3]
    local = cv2.morphologyEx(darkest, cv2.MORPH_CLOSE,
                             cv2.getStructuringElement(cv2.MORPH_RECT, (reach, reach)))
    if float(local.min()) >= SHADED:
        return np.zeros(darkest.shape, np.bool_)  # (most cards: no shade at all)
    # a shadow falls across the card from the table: shade that does not reach the card's
    # edge, or is as dark as ink, is print wider than the closing (a giant pip)
    _, labels = cv2.connectedComponents((local < SHADED).astype(np.uint8))
    rim = np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])
    shades = [k for k in np.setdiff1d(rim, [0]).tolist()
              if float(np.median(local[labels == k])) >= SHADE_FLOOR]
    if not shades:
        return np.zeros(darkest.shape, np.bool_)
    ink = 1.0 - darkest / np.maximum(local, 0.05)
    return np.asarray(np.isin(labels, shades) & (ink <= least_ink), np.bool_)


def _corner_view(a: NDArray[Any], corner: int) -> NDArray[Any]:
    """The array turned so that ``corner`` is its top-left (the bottom-right corner turned
    180 degrees: its index is printed upside down)."""
    return a[::-1, ::-1] if corner == 1 else a


def _labelled(labels: NDArray[np.int32], keep: list[int]) -> NDArray[np.bool_]:
    """Where ``labels`` is one of ``keep`` (a handful of ids: cheaper than ``np.isin``)."""
    out = np.asarray(labels == keep[0], np.bool_)
    for k in keep[1:]:
        out |= labels == k
    return out


def _glyph(ink: Ink, labels: NDArray[np.int32], keep: list[int], box: Box) -> Ink:
    """The ink of the components ``keep`` inside ``box`` (with a 1 px rim), all else blank:
    a pip or a picture edge that pokes into the box does not change the glyph."""
    x0, y0 = max(box.x - 1, 0), max(box.y - 1, 0)
    x1, y1 = min(box.x1 + 1, ink.shape[1]), min(box.y1 + 1, ink.shape[0])
    # the rim round a glyph is kept (dilated): anti-aliased edges below the cut belong to it
    own = cv2.dilate(_labelled(labels[y0:y1, x0:x1], keep).astype(np.uint8),
                     np.ones((3, 3), np.uint8))
    return np.asarray(ink[y0:y1, x0:x1] * own, np.float32)


@dataclass(frozen=True, eq=False)  # holds arrays
class CornerInk:
    """The ink and its redness in the window of one corner, turned to the top-left."""

    ink: Ink
    red: NDArray[np.float32]
    corner: int
    card_size: tuple[int, int]  # the card's height and width
    chroma: NDArray[np.float32] | None = None


def corner_ink(card: Image, paper: NDArray[np.float32], corner: int) -> CornerInk:
    """The ink of one corner's window of a canonical card (BGR), its edges left out."""
    h, w = card.shape[:2]
    wh, ww = round(WINDOW[1] * h), round(WINDOW[0] * w)
    window = np.ascontiguousarray(_corner_view(card, corner)[:wh, :ww])
    ink, red, chroma = ink_red_and_chroma(window, paper)
    ink[:MARGIN, :] = 0
    ink[:, :MARGIN] = 0
    return CornerInk(ink, red, corner, (h, w), chroma)


CUT_RANGE = (0.06, 0.2)
"""Where (fractions of the card's width from its edge) an index may end and a picture or
a pip it touches begin."""


def cut_off(window: CornerInk, most: int = 2) -> list[CornerInk]:
    """The corner with everything right of a likely end of the index blanked out: for an
    index that touches the court picture or a large pip beside it (they are one blob at
    every ink level). The cuts are the columns, in :data:`CUT_RANGE`, where the least ink
    crosses the index's height (a glyph's edge touching a picture at a point)."""
    ink = window.ink
    h, w = window.card_size
    top = ink[: round(0.3 * h)]
    columns = (top > LEVELS[0]).sum(axis=0).astype(np.float32)
    lo, hi = round(CUT_RANGE[0] * w), round(CUT_RANGE[1] * w)
    if hi - lo < 3 or float(columns[lo:hi].max()) == 0.0:
        return []
    inside = columns[lo:hi]
    # local minima, thinnest first, that are clearly thinner than the index's ink
    minima = [i for i in range(1, len(inside) - 1)
              if inside[i] <= inside[i - 1] and inside[i] <= inside[i + 1]
              and inside[i] <= 0.4 * float(inside.max())]
    out = []
    for i in sorted(minima, key=lambda i: inside[i])[:most]:
        cut = np.array(ink, copy=True)
        cut[:, lo + i:] = 0
        out.append(CornerInk(cut, window.red, window.corner, window.card_size, window.chroma))
    return out


JOINED_HEIGHT = (0.3, 0.5)
"""Height of a blob in the index's place (fractions of the card's height) that is a rank
and the suit under it run together: taller than any glyph (see :func:`_glyph_boxes`)."""

NECK_RANGE = (0.3, 0.75)
"""Where down such a blob (fractions of its height) the rank may end and its suit begin."""


def parted(window: CornerInk) -> list[CornerInk]:
    """The corner with a rank parted from the suit under it, where blur ran them into one
    blob (a large Q's tail into its heart): at the blob's narrowest row in
    :data:`NECK_RANGE`, where it is clearly thinner than the blob at its widest. Only a
    blob in the index's place, from near the corner, as narrow as a glyph."""
    h, w = window.card_size
    n, found, stats, _ = cv2.connectedComponentsWithStats(
        (window.ink > LEVELS[0]).astype(np.uint8), connectivity=8)
    labels = np.asarray(found, np.int32)
    out = []
    for i in range(1, n):
        x, y, bw, bh, _ = (int(v) for v in stats[i])
        if not (JOINED_HEIGHT[0] * h < bh <= JOINED_HEIGHT[1] * h and bw <= 0.25 * w
                and x <= ACROSS_CORNER * w and y <= ACROSS_CORNER * h):
            continue
        widths = (labels[y:y + bh, x:x + bw] == i).sum(axis=1)
        lo, hi = round(NECK_RANGE[0] * bh), round(NECK_RANGE[1] * bh)
        neck = lo + int(np.argmin(widths[lo:hi]))
        if widths[neck] > 0.4 * widths.max():
            continue
        cut = np.array(window.ink, copy=True)
        cut[y + neck:y + neck + 2, x:x + bw] = 0
        out.append(CornerInk(cut, window.red, window.corner, window.card_size, window.chroma))
    return out


def candidates_in_ink(window: CornerInk, levels: tuple[float, ...] = LEVELS,
                      ) -> list[Candidate]:
    """Rank-over-suit pairs in one corner's ink, cut at each of ``levels``."""
    ink, red, corner, chroma = window.ink, window.red, window.corner, window.chroma
    h, w = window.card_size
    wh, ww = ink.shape
    if float(ink.max()) < 0.25:
        return []
    out: list[Candidate] = []
    seen: set[tuple[int, int, int, int, int, int, int, int]] = set()
    for level in levels:
        mask = (ink > level).astype(np.uint8)
        n, found, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        labels = np.asarray(found, np.int32)
        comps: list[tuple[int, Box]] = []
        for i, b in _glyph_boxes(stats, n, (h, w)):
            if b.x1 >= ww - 1 and b.y1 >= wh - 1:
                continue  # runs out of the window both ways: a picture, not a glyph
            if (b.w <= 3 and b.h > 6 * b.w and (b.h > 0.2 * h or b.x <= MARGIN + 1)) or (
                    b.h <= 3 and b.w > 6 * b.h):
                continue  # a thin line: the card's edge or a frame (a thin "1" is kept)
            comps.append((i, b))
        for pair in _pairs(comps, h):
            rank_ids, rank_box, suit_id, suit_box = pair
            key = (rank_box.x, rank_box.y, rank_box.w, rank_box.h,
                   suit_box.x, suit_box.y, suit_box.w, suit_box.h)
            if key in seen:
                continue
            seen.add(key)
            out.append(_candidate(ink, red, chroma, labels, rank_ids, rank_box, suit_id,
                                  suit_box, corner))
            if len(out) >= MAX_CANDIDATES:
                return out
    return out


def _glyph_boxes(stats: NDArray[Any], n: int, card_size: tuple[int, int],
                 ) -> list[tuple[int, Box]]:
    """The connected components (``stats`` of ``n`` labels, 0 the paper) that may be a
    glyph: no speck, and neither as tall as a frame line nor as wide as a picture."""
    h, w = card_size
    # (tested all at once: a textured corner has hundreds of specks)
    boxes = np.asarray(stats[1:n], np.int64).reshape(-1, 5)
    bw, bh = boxes[:, cv2.CC_STAT_WIDTH], boxes[:, cv2.CC_STAT_HEIGHT]
    glyphs = ((boxes[:, cv2.CC_STAT_AREA] >= 6) & (bh >= 4) & (bh <= 0.3 * h)
              & (bw <= 0.25 * w))
    return [(k + 1, Box(*boxes[k, :4].tolist())) for k in np.flatnonzero(glyphs).tolist()]


def _candidate(ink: Ink, red: NDArray[np.float32], chroma: NDArray[np.float32] | None,
               labels: NDArray[np.int32], rank_ids: list[int], rank_box: Box, suit_id: int,
               suit_box: Box, corner: int) -> Candidate:
    """The rank (components ``rank_ids``) and suit (``suit_id``) as a candidate: each
    glyph's ink alone, and how red and how coloured their ink is together."""
    sel = _labelled(labels, [suit_id, *rank_ids])
    redness = float(red[sel].mean()) if sel.any() else 0.0
    coloured = float(chroma[sel].mean()) if chroma is not None and sel.any() else 0.0
    return Candidate(_glyph(ink, labels, rank_ids, rank_box),
                     _glyph(ink, labels, [suit_id], suit_box), rank_box, suit_box, redness,
                     corner, coloured)


ACROSS_BAND = 0.3
"""The band along a card's top end (fraction of its height) where a deck that prints its
rank and suit side by side across the top puts them."""

ACROSS_PAPER_REACH = 31
"""The paper's reach (see :data:`PAPER_REACH`) for an index across the top: such decks
print it large, and a solid suit wider than the usual reach came out as its rim alone (a
diamond of aisleriot-tango-nuevo, 50 px wide, read as no suit)."""

ACROSS_CORNER = 0.12
"""How far from the card's side and top end (fractions of its width and height) the rank
of an index across the top starts."""


def candidates_across(card: Image, paper: NDArray[np.float32], corner: int,
                      level: float = LEVELS[0]) -> list[Candidate]:
    """Rank-and-suit pairs printed across the card's top rather than one over the other:
    the rank in the corner, its suit further along the top at the rank's height (some
    modern decks print one such index only: aisleriot-tango-nuevo). ``corner`` is the end
    the rank is in (1: the card upside down)."""
    h, w = card.shape[:2]
    band = np.ascontiguousarray(_corner_view(card, corner)[: round(ACROSS_BAND * h)])
    ink, red, chroma = ink_red_and_chroma(band, paper, ACROSS_PAPER_REACH)
    ink[:MARGIN] = 0
    ink[:, :MARGIN] = 0
    ink[:, -MARGIN:] = 0
    n, found, stats, _ = cv2.connectedComponentsWithStats((ink > level).astype(np.uint8),
                                                          connectivity=8)
    labels = np.asarray(found, np.int32)
    comps = _glyph_boxes(stats, n, (h, w))
    out: list[Candidate] = []
    left = [(i, b) for i, b in comps if b.x1 <= WINDOW[0] * w]
    for i, b in left:
        if not 0.035 * h <= b.h <= 0.26 * h or b.x > ACROSS_CORNER * w or (
                b.y > ACROSS_CORNER * h):
            continue  # no rank in the corner (a stroke of a court picture further in)
        # (a "10"'s second digit may reach past the corner's window)
        for ids, box in _ranks_from(i, b, comps):
            middle = box.y + box.h / 2
            for j, c in comps:
                if c.x < box.x1 or abs(c.y + c.h / 2 - middle) > 0.5 * box.h or not (
                        0.4 * box.h <= c.h <= 1.5 * box.h):
                    continue
                out.append(_candidate(ink, red, chroma, labels, ids, box, j, c, corner))
                if len(out) >= MAX_CANDIDATES:
                    return out
    return out


def _pairs(comps: list[tuple[int, Box]], card_h: int,
           ) -> list[tuple[list[int], Box, int, Box]]:
    """Plausible (rank components, rank box, suit component, suit box), nearest the
    corner first."""
    tall = [(i, b) for i, b in comps if 0.035 * card_h <= b.h <= 0.26 * card_h]
    tall.sort(key=lambda ib: ib[1].y + 0.5 * ib[1].x)
    out = []
    for i, b in tall[:5]:
        for ids, box in _ranks_from(i, b, comps):
            suit = _suit_below(ids, box, comps)
            if suit is not None:
                out.append((ids, box, *suit))
    return out


def _ranks_from(i: int, b: Box, comps: list[tuple[int, Box]]) -> list[tuple[list[int], Box]]:
    """The rank that glyph ``i`` starts: with the glyphs side by side at its height ("10",
    or a broken glyph), and without those much taller too (a large pip beside a faint
    rank, or beside a "10", is no part of it)."""
    ids, box = [i], b
    alike_ids, alike_box = [i], b  # the glyphs side by side but the much taller ones
    taller = False
    for j, c in comps:
        if j == i:
            continue
        overlap = min(box.y1, c.y1) - max(box.y, c.y)
        gap = max(c.x - box.x1, box.x - c.x1)
        if (overlap >= 0.6 * min(box.h, c.h) and gap <= 0.35 * box.h
                and 0.5 * box.h <= c.h <= 1.6 * box.h):
            ids.append(j)
            box = box.union(c)
            if c.h > SIDE_BY_SIDE_TALLER * b.h:
                taller = True
            elif max(c.x - alike_box.x1, alike_box.x - c.x1) <= 0.35 * b.h:
                alike_ids.append(j)
                alike_box = alike_box.union(c)
    out = [(ids, box)] if box.w <= 2.0 * box.h else []  # wider: a row of pips
    return [*out, (alike_ids, alike_box)] if taller else out


def _suit_below(ids: list[int], box: Box, comps: list[tuple[int, Box]],
                ) -> tuple[int, Box] | None:
    """The suit under a rank: the nearest glyph below it, about its width."""
    centre = box.x + box.w / 2
    below = []
    for j, c in comps:
        if j in ids:
            continue
        if not (box.y1 - 0.25 * box.h <= c.y <= box.y1 + 0.9 * box.h):
            continue
        if abs(c.x + c.w / 2 - centre) > 0.45 * max(box.w, c.w) + 2:
            continue
        if not 0.3 * box.h <= c.h <= 1.4 * box.h or c.w > 1.8 * box.h:
            continue
        below.append((j, c))
    # the nearest one under the rank (a suit's stem can break off below it)
    return min(below, key=lambda jc: jc[1].y) if below else None


def index_candidates(card: Image, corners: tuple[int, ...] = (0, 1)) -> list[Candidate]:
    """Every rank-over-suit candidate in the given corners of a canonical card (BGR), cut
    at every ink level."""
    paper = paper_colour(card)
    return [cand for corner in corners
            for cand in candidates_in_ink(corner_ink(card, paper, corner))]


OVERLAY_REACH = (0.22, 0.3)
"""The part of each corner (fractions of the card's width and height) matched to lay one
index over the other: the index, little of the pips or picture beyond it."""

OVERLAY_SHIFT = 5
"""Most pixels (of the canonical card) one index may lie off the other once turned."""


def overlaid_corners(card: Image, paper: NDArray[np.float32]) -> CornerInk | None:
    """The two corners' ink laid over each other and averaged: the same index printed
    twice, each copy a few blurred pixels on a small card, read as one that is less
    noisy than either. The bottom-right corner is turned and shifted onto the top-left
    one where their ink matches best; ``None`` where it matches best at the edge of the
    shifts tried (no index alike in both)."""
    first, second = corner_ink(card, paper, 0), corner_ink(card, paper, 1)
    h, w = first.card_size
    reach_y, reach_x = round(OVERLAY_REACH[1] * h), round(OVERLAY_REACH[0] * w)
    r = OVERLAY_SHIFT
    pattern = second.ink[r:reach_y, r:reach_x]
    if float(pattern.max()) < 0.25:
        return None
    scores = cv2.matchTemplate(first.ink[:reach_y + r, :reach_x + r], pattern,
                               cv2.TM_CCOEFF_NORMED)
    _, _, _, (x, y) = cv2.minMaxLoc(scores)
    if x in (0, 2 * r) or y in (0, 2 * r):
        return None
    shift = np.array([[1, 0, x - r], [0, 1, y - r]], np.float32)
    size = (first.ink.shape[1], first.ink.shape[0])

    def laid(a: NDArray[np.float32], b: NDArray[np.float32]) -> NDArray[np.float32]:
        return np.asarray((a + cv2.warpAffine(b, shift, size)) / 2, np.float32)

    chroma = (laid(first.chroma, second.chroma)
              if first.chroma is not None and second.chroma is not None else None)
    return CornerInk(laid(first.ink, second.ink), laid(first.red, second.red), 0,
                     first.card_size, chroma)
