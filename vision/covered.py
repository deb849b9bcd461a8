"""Cards partly under others, read by an index corner that shows.

A card under another shows part of itself, often an index corner sticking out from under
the card over it, and no outline of its own: its other sides run under the pile. The
frame's first look finds the card on top; what lies beside it as bright as its paper,
under no card found, may be such a card (:func:`_beside_the_cards`). There, where two
straight segments meet at a right angle (:func:`vision.piles._corners`) round paper, a
card may have its corner. A standard card prints its index at two opposite corners, its
top-left and its bottom-right, so which way the card runs from that corner is told by
the turn from one side to the other (seen from an index corner, the short side lies
clockwise of the long one). The card is put there at the size of the cards found (or of
the sides seen, where longer) and its index corner read alone: named only where the
reading is sure, the index wholly in view, a fair part of the card in view, and the card
named nowhere else in the frame. Not among cards under 90 px wide
(:attr:`Thresholds.small_card_px`), whose index is a few pixels: there both corners must
read a card. Cards spread in a row under a card named (:mod:`vision.spread`) are read
alike, each by the index corner its strip shows (:func:`_rows`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import (
    CARD_H,
    CARD_W,
    Quad,
    _overlaps_another,
    dewarp,
    quad_iou,
)
from vision.piles import Corner, _corners, _segments
from vision.readings import CornerReading
from vision.sides import side_lengths
from vision.spread import MOST_CARDS, edges_in, rows_under
from vision.standard import read_corners
from vision.thresholds import Thresholds

Image = NDArray[np.uint8]

LOOK = 2
"""The frame is looked at for paper beside the cards at every LOOK-th pixel each way (at
4, strips of cards under others 30 px wide were lost: 262 -> 247 of a bench's named)."""

PAPER_SHARES = (0.8, 0.9, 0.95)
"""Brightness, as a share of the found cards' paper, from which a pixel may be paper: the
first, and the next where it finds more bright than :data:`BARE` allows and no patch of
it in size. A light grey table as bright as 0.8 of white paper is all "paper", and the
cards under a pile on it were not looked for: overlapping scenes of the held-out designs,
770 -> 781 of 959 cards a third or more in view named right, none wrong; piles of two on
a grey table (215 of 255), 4 -> 17 of 21 cards under another named; on 235, 14."""

BARE = (0.1, 4.0)
"""Least and most paper beside the cards found, under none of them, in one patch (in
cards' areas), where cards under them are looked for: less is a sliver of a shadow's
edge or of glare; more is a light table or a sheet of paper, no card."""

REGION = 0.3
"""How far round a patch of bare paper and the cards it touches its corners are looked
for (times the cards' long side)."""

LSD_SHORT = 90.0
"""Short side (pixels) of the cards found to which a region is shrunk to find its
segments: a larger card's sides are found as well in a fraction of the time."""

SEGMENT_LEAST = 0.25
"""Least length of a side seen, as a fraction of the cards' short side."""

PAPER_AT_CORNER = 0.3
"""Least share of bare paper just inside a corner (a third of a card's width each way):
a corner of a card's shows the paper round its index."""

LONGEST_SEEN = 1.4
"""Longest side seen from a corner, in the found cards' side the same way: longer, the
segments are no card's (the cards of one deck differ in the frame by tilt alone)."""

SURE = 0.97
"""Least probability of the corner's rank and of its suit: one corner reads the card."""

WINDOW = (0.3, 0.45)
"""The part of a card (fractions of its width and height) its index must lie in."""

ROW_INDEX = (0.22, 0.45)
"""The part of a card spread in a row (fractions of its width and height) that must show
whole where its index lies: a strip a third of a card wide shows most decks' index, not
all of :data:`WINDOW`."""

ROW_MISSES = 1
"""Most cards in a row, one after another, that may not read where the row goes on past
the cards whose sides show."""

ROW_LEAST_SHOWN = 0.2
"""Least share in view of a card spread in a row for it to be named: a row's strips are
often a quarter of a card (:data:`LEAST_SHOWN` is for a card under a pile)."""

MOST_HIDDEN = 0.05
"""Most of that part that may lie under a card found: its index must show whole."""

LEAST_WINDOW = (0.2, 0.3)
"""The part of a card (fractions of its width and height) by its corner that must show
for its index to be read where :data:`WINDOW` does not show whole: most decks' index
lies in it, and the index read must then show whole itself (:func:`_index_shows`)."""

INDEX_RIM = 10
"""How far past the index read (canonical pixels of a card's 200 x 280) the card must
show too where :data:`WINDOW` does not: an index cut by a card over it reaches no
further than the blanking of that card (:data:`COVER_RIM`) and so is refused."""

LEAST_SHOWN = 0.35
"""Least share of a card under others in view for it to be named: a corner of a card
all but hidden is no card a player counts as on the table."""

UNREAD_CARD = 0.8
"""Least area of an unread outline, in the named cards' (their median), that is taken for
a card lying there: smaller, it may outline the part in view of a card under another."""

MAX_COVERED_READS = 8
"""Most corners read in one frame (each costs a reading; a cluttered frame has many)."""

SAME_CORNER = 0.7
"""Overlap (IoU) of two cards put at corners above which they are one corner's."""

INK_LOOK = (40, 56)
"""Size (pixels) at which a card's index corner is looked at for ink before it is read."""

INK_LEVEL = 0.65
"""Brightness, as a share of the paper's, below which a pixel is ink (red ink too)."""

LEAST_INK = 0.02
"""Least share of ink where a card's index would be for its corner to be read."""


class CoveredCard(NamedTuple):
    """A card under others, named by its index corner in view."""

    card: str
    quad: Quad  # where a card of the found cards' size lies from that corner
    p: float  # the corner reading's probability


def covered_cards(image: Image, cards: list[tuple[str | None, Quad]],
                  th: Thresholds | None = None) -> list[CoveredCard]:
    """The cards under the ``cards`` found in ``image`` (each its name, ``None`` where
    unread, and its quad) that an index corner in view names, those by a corner of their
    own first, then those spread in rows under the cards named, none of them one of those
    named already. An unread outline over or under a card named, or smaller than the cards
    named, may be round the part in view of a card under them: it hides nothing here.

    >>> covered_cards(np.zeros((90, 160, 3), np.uint8), [])
    []
    """
    th = th or Thresholds()
    named_quads = [q for card, q in cards if card is not None]
    if not named_quads:
        return []
    least = UNREAD_CARD * float(np.median([cv2.contourArea(q) for q in named_quads]))
    found = named_quads + [q for card, q in cards if card is None and cv2.contourArea(q) >= least
                           and not _overlaps_another(q, named_quads)]
    named = {card for card, _ in cards if card is not None}
    short, long = _sizes(found)
    if short < th.small_card_px:
        return []  # (a small card's index is a few pixels: one corner never names it)
    bare, regions = _beside_the_cards(image, found, short * long, REGION * long)
    if not regions:
        return []
    gray = np.asarray(image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY),
                      np.uint8)
    # every corner's card first, twins dropped (a thick edge's two sides make two
    # segments), those showing no print where the index would be left unread
    candidates: list[Quad] = []
    for region in regions:
        for corner, lengths in _corners_in(gray, region, short):
            quad = _card_at(corner, lengths, (short, long), bare, found, image.shape[:2])
            if quad is not None and not any(quad_iou(quad, q) > SAME_CORNER
                                            for q in candidates) and (
                    _ink_in_index(gray, quad) >= LEAST_INK):
                candidates.append(quad)
    out: list[CoveredCard] = []
    for quad in candidates[:MAX_COVERED_READS]:
        if any(quad_iou(quad, c.quad) > 0.3 for c in out):
            continue
        r = _index_at_corner(image, quad, found, th, window=None)
        if r is not None and r.card not in named and _index_shows(quad, r, found):
            named.add(r.card)
            out.append(CoveredCard(r.card, quad, r.p))
    return out + _rows(image, named_quads, [c.quad for c in out], named, bare, regions, th)


def _rows(image: Image, named_quads: list[Quad], by_corner: list[Quad], named: set[str],
          bare: NDArray[np.bool_], regions: list[tuple[int, int, int, int]], th: Thresholds,
          ) -> list[CoveredCard]:
    """The cards spread in rows under the cards named (``named_quads``; ``by_corner``,
    those named by an index corner in view) in ``regions`` (:func:`vision.spread.rows_under`),
    each named by the index corner its strip shows, where it reads surely and is not one
    of those ``named`` (which it joins). A row's top card is one named: an outline unread
    is as likely a pile's."""
    out: list[CoveredCard] = []
    followed: set[int] = set()  # (each top card once, in the largest region round it)
    for region in sorted(regions, key=lambda r: -(r[2] - r[0]) * (r[3] - r[1])):
        x0, y0, x1, y1 = region
        tops = [k for k, q in enumerate(named_quads) if k not in followed
                and (q.min(axis=0) >= (x0, y0)).all() and (q.max(axis=0) < (x1, y1)).all()]
        if not tops:
            continue
        followed.update(tops)
        edges = edges_in(image, region)
        for top in (named_quads[k] for k in tops):
            above = [top]
            # (an unread outline in a row is often round strips of it: no card over it)
            row = rows_under(edges, top, [q for q in named_quads if q is not top])
            for under in row:
                above.append(under)
                r = _row_card(image, above, named_quads, by_corner, bare, th)
                if r is not None and r.card not in named:
                    named.add(r.card)
                    out.append(r)
            # the row goes on a step further where no side of its next card shows (cards
            # of one white meet with no edge between them) while its cards read, all but
            # one at a time
            missed = 0
            while row and len(above) <= MOST_CARDS and missed <= ROW_MISSES:
                under = np.asarray(2 * above[-1] - above[-2], np.float32)
                if under.min() < 0 or (under.max(axis=0) >= image.shape[1::-1]).any():
                    break
                above.append(under)
                r = _row_card(image, above, named_quads, by_corner, bare, th)
                if r is None or r.card in named:
                    missed += 1
                    continue
                missed = 0
                named.add(r.card)
                out.append(r)
    return out


def _row_card(image: Image, above: list[Quad], named_quads: list[Quad],
              by_corner: list[Quad], bare: NDArray[np.bool_], th: Thresholds,
              ) -> CoveredCard | None:
    """The last of ``above`` (a row's cards, its top card first) named by the index corner
    its strip shows, where the index shows whole on paper, a fair part of the card is in
    view (under none of the cards named), and the corner reads surely; else ``None``. An
    unread outline hides none of it: beside a row it is often round the row's strips."""
    under = above[-1]
    quad = _index_first(under, under.mean(axis=0) - above[-2].mean(axis=0))
    window = _window(quad, ROW_INDEX)
    over = named_quads + above[:-1]
    # (a card named by its corner may lie over it or under it, which is not known: its
    # part in view is counted as if they all lay over it)
    if _overlaps_another(window, over, MOST_HIDDEN) or (
            _share_in(bare, window / LOOK) < PAPER_AT_CORNER) or (
            _shown(quad, over + by_corner) < ROW_LEAST_SHOWN):
        return None
    r = _index_at_corner(image, quad, over, th)
    return None if r is None else CoveredCard(r.card, quad, r.p)


def _index_first(card: Quad, way: NDArray[np.float32]) -> Quad:
    """``card`` with the index corner furthest along ``way`` (of its first and third:
    where a standard card prints its index) first."""
    return card if float((card[0] - card[2]) @ way) >= 0 else np.asarray(
        np.roll(card, -2, axis=0), np.float32)


def _window(quad: Quad, part: tuple[float, float]) -> Quad:
    """The ``part`` of ``quad`` (fractions of its width and height) by its first corner."""
    across, down = quad[1] - quad[0], quad[3] - quad[0]
    return np.array([quad[0], quad[0] + part[0] * across,
                     quad[0] + part[0] * across + part[1] * down,
                     quad[0] + part[1] * down], np.float32)


PART = 0.6
"""Least share of an unread outline inside a card named under others for it to be taken
for an outline of that card's part in view."""


def part_of(outline: Quad, card: Quad) -> bool:
    """Whether the unread ``outline`` lies mostly inside ``card`` (:data:`PART`): an
    outline of the part in view of a card under others, not a card over it.

    >>> card = np.array([[0, 0], [100, 0], [100, 140], [0, 140]], np.float32)
    >>> part_of(card * 0.5, card), part_of(card + 60, card)
    (True, False)
    """
    area = cv2.contourArea(outline)
    return area > 0 and cv2.intersectConvexConvex(outline, card)[0] >= PART * area


def _corners_in(gray: Image, region: tuple[int, int, int, int], short: float,
                ) -> list[tuple[Corner, tuple[float, float]]]:
    """The corners of straight segments in ``region`` (x0, y0, x1, y1) of the frame (grey),
    shrunk so that a card's short side (``short``) is :data:`LSD_SHORT` at most."""
    x0, y0, x1, y1 = region
    scale = min(1.0, LSD_SHORT / short)
    shrunk = np.asarray(cv2.resize(gray[y0:y1, x0:x1], None, fx=scale, fy=scale,
                                   interpolation=cv2.INTER_AREA), np.uint8)
    segments = np.asarray(_segments(shrunk, SEGMENT_LEAST * short * scale) / scale
                          + np.array([x0, y0, x0, y0], np.float32), np.float32)
    return _corners(segments)


def _ink_in_index(gray: Image, quad: Quad) -> float:
    """The share of ink (darker than :data:`INK_LEVEL` of the paper) where ``quad``'s index
    would be, looked at small: a corner with no print there has no index to read."""
    small = dewarp(gray, quad, INK_LOOK)
    window = small[:round(WINDOW[1] * INK_LOOK[1]), :round(WINDOW[0] * INK_LOOK[0])]
    paper = float(np.percentile(window, 90))
    return float((window < INK_LEVEL * paper).mean())


def _sizes(quads: list[Quad]) -> tuple[float, float]:
    """The median short and long side of ``quads``."""
    sides = np.array([side_lengths(q) for q in quads])
    one, other = (sides[:, 0] + sides[:, 2]) / 2, (sides[:, 1] + sides[:, 3]) / 2
    return float(np.median(np.minimum(one, other))), float(np.median(np.maximum(one, other)))


def _beside_the_cards(image: Image, found: list[Quad], card_area: float, reach: float,
                      ) -> tuple[NDArray[np.bool_], list[tuple[int, int, int, int]]]:
    """Where the frame (halved) is as bright as the found cards' paper but under none of
    them, and the regions (x0, y0, x1, y1) round each patch of it that touches a card found
    and is :data:`BARE` in size, with the cards it touches; bright by the next of
    :data:`PAPER_SHARES` where a light table is all bright. Looked at halved: a patch is
    many pixels, and this runs on every frame with cards in it."""
    h, w = image.shape[:2]
    # (every other pixel will do, and costs a tenth of the frame's averaging)
    half = np.asarray(cv2.resize(image, (w // LOOK, h // LOOK),
                                 interpolation=cv2.INTER_NEAREST), np.uint8)
    if half.ndim == 3:
        half = np.asarray(cv2.cvtColor(half, cv2.COLOR_BGR2GRAY), np.uint8)
    cards = np.zeros(half.shape, np.uint8)
    for q in found:
        cv2.fillConvexPoly(cards, np.round(q / LOOK).astype(np.int32), 1)
    levels = np.cumsum(cv2.calcHist([half], [0], cards, [256], [0, 256]).ravel())
    if levels[-1] == 0:
        return np.zeros((0, 0), np.bool_), []
    paper = float(np.searchsorted(levels, 0.75 * levels[-1]))
    rim = np.ones((5, 5), np.uint8)  # (10 px round each card: its edge and shadow)
    near = cv2.dilate(cards, rim)
    touching = cv2.dilate(near, rim) > 0
    for share in PAPER_SHARES:
        _, bright = cv2.threshold(half, math.ceil(share * paper) - 1, 1, cv2.THRESH_BINARY)
        patches = np.asarray(cv2.morphologyEx(cv2.subtract(bright, near), cv2.MORPH_OPEN,
                                              np.ones((3, 3), np.uint8)), np.uint8)
        bare = LOOK**2 * cv2.countNonZero(patches)
        if bare < BARE[0] * card_area:
            return np.zeros((0, 0), np.bool_), []  # (most frames: no paper beside cards)
        regions = _patches_by_cards(patches, touching, found, card_area, reach, (w, h))
        if regions or bare <= BARE[1] * card_area:
            break
    return np.asarray(patches > 0, np.bool_), regions


def _patches_by_cards(patches: Image, touching: NDArray[np.bool_], found: list[Quad],
                      card_area: float, reach: float, frame: tuple[int, int],
                      ) -> list[tuple[int, int, int, int]]:
    """The regions (x0, y0, x1, y1, in the ``frame``'s pixels, its width and height) round
    each patch of bright ``patches`` (the frame halved) that touches a card found and is
    :data:`BARE` in size, with the cards ``found`` it comes within ``reach`` of; each region
    once."""
    w, h = frame
    _, labels, stats, _ = cv2.connectedComponentsWithStats(patches, connectivity=8)
    regions = []
    areas = LOOK**2 * stats[:, cv2.CC_STAT_AREA]
    for label in np.flatnonzero((areas >= BARE[0] * card_area) & (areas <= BARE[1] * card_area)):
        if label == 0:
            continue  # (the background)
        x, y, bw, bh, _ = (int(v) for v in stats[label])
        patch = labels[y:y + bh, x:x + bw] == label
        if not (patch & touching[y:y + bh, x:x + bw]).any():
            continue
        box = LOOK * np.array([[x, y], [x + bw, y + bh]], np.float32)
        for q in found:
            if _boxes_meet(box, q, reach):
                box = np.array([np.minimum(box[0], q.min(axis=0)),
                                np.maximum(box[1], q.max(axis=0))], np.float32)
        x0, y0 = np.maximum(box[0] - reach, 0).astype(int)
        x1, y1 = np.minimum(box[1] + reach, (w, h)).astype(int)
        regions.append((int(x0), int(y0), int(x1), int(y1)))
    # (patches beside the same cards often make the same region: looked at once)
    return list(dict.fromkeys(regions))


def _boxes_meet(box: NDArray[np.float32], quad: Quad, reach: float) -> bool:
    """Whether ``quad``'s bounding box comes within ``reach`` of ``box`` (two corners)."""
    lo, hi = quad.min(axis=0), quad.max(axis=0)
    return bool((lo <= box[1] + reach).all() and (hi >= box[0] - reach).all())


def _card_at(corner: Corner,
             lengths: tuple[float, float], size: tuple[float, float],
             bare: NDArray[np.bool_], found: list[Quad], frame: tuple[int, ...],
             ) -> Quad | None:
    """The card whose index corner ``corner`` (the point, a unit vector along each side
    away from it) may be, sized as the cards found (``size``: short and long side), or
    ``None`` where no card's corner can be there or its index cannot show."""
    meet, way_a, way_b = corner
    short, long = size
    if _share_in(bare, np.array([meet, meet + 0.3 * short * way_a,
                                 meet + 0.3 * short * (way_a + way_b),
                                 meet + 0.3 * short * way_b]) / LOOK) < PAPER_AT_CORNER:
        return None
    # seen from an index corner (a top-left, or a bottom-right turned round), the short
    # side turns clockwise onto the long one: image y runs down, so their cross is > 0
    cross = float(way_a[0] * way_b[1] - way_a[1] * way_b[0])
    (across, down), (seen_across, seen_down) = (
        ((way_a, way_b), lengths) if cross > 0 else ((way_b, way_a), lengths[::-1]))
    if seen_across > LONGEST_SEEN * short or seen_down > LONGEST_SEEN * long:
        return None
    # (a side seen longer than the cards found gives this card its size)
    wide = max(short, seen_across, seen_down * short / long)
    tall = wide * long / short
    quad = np.array([meet, meet + across * wide, meet + across * wide + down * tall,
                     meet + down * tall], np.float32)
    window = _window(quad, WINDOW)
    h, w = frame[:2]
    if window.min() < 0 or window[:, 0].max() >= w or window[:, 1].max() >= h:
        return None
    if _overlaps_another(_window(quad, LEAST_WINDOW), found, MOST_HIDDEN) or _shown(
            quad, found) < LEAST_SHOWN:
        return None
    return quad


def _index_shows(quad: Quad, reading: CornerReading, found: list[Quad]) -> bool:
    """Whether the index ``reading`` read at ``quad``'s first corner shows whole: inside
    :data:`WINDOW` where that shows, else as far as it reaches and :data:`INDEX_RIM`
    beyond, under no card ``found`` (:data:`MOST_HIDDEN`).

    >>> card = np.array([[0, 0], [200, 0], [200, 280], [0, 280]], np.float32)
    >>> index = CornerReading("7", "C", 1.0, 1.0, True, 0, (40, 80))
    >>> over = card + np.array([55, 0], np.float32)  # over the window, not the index
    >>> _index_shows(card, index, [over]), _index_shows(card, index, [over - np.float32([10, 0])])
    (True, False)
    """
    width, height = reading.extent
    if width <= WINDOW[0] * CARD_W and height <= WINDOW[1] * CARD_H and not (
            _overlaps_another(_window(quad, WINDOW), found, MOST_HIDDEN)):
        return True
    reach = ((width + INDEX_RIM) / CARD_W, (height + INDEX_RIM) / CARD_H)
    return not _overlaps_another(_window(quad, reach), found, MOST_HIDDEN)


def _index_at_corner(image: Image, quad: Quad, found: list[Quad], th: Thresholds,
                     window: tuple[float, float] | None = WINDOW) -> CornerReading | None:
    """The reading of ``quad``'s first corner where it names a card surely, its colour
    fitting its suit and its index inside ``window`` (fractions of the card's width and
    height; ``None``: anywhere in the corner the reader looks at). What lies under the cards
    ``found`` is none of this card's print: it is blanked before reading (the corner of
    the card over it may touch its index)."""
    card = dewarp(image, quad)
    paper = tuple(int(v) for v in np.percentile(card[:CARD_H // 2, :CARD_W // 2].reshape(-1, 3),
                                                90, axis=0))
    to_card = cv2.getPerspectiveTransform(
        quad, np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float32))
    for q in found:
        over = cv2.perspectiveTransform(q.reshape(1, 4, 2).astype(np.float32), to_card)[0]
        cv2.fillConvexPoly(card, np.round(_grown(over, COVER_RIM)).astype(np.int32), paper)
    # (the far corner lies under the pile: blanked, it costs no reading)
    card[-CARD_H // 2:, -CARD_W // 2:] = paper
    readings, _ = read_corners(card, th)
    r = next((r for r in readings if r.corner == 0), None)
    if r is None or not r.colour_ok or r.p < SURE:
        return None
    if window is not None and (r.extent[0] > window[0] * CARD_W
                               or r.extent[1] > window[1] * CARD_H):
        return None
    return r


COVER_RIM = 4.0
"""How far past a card found (canonical pixels of the card under it) its blanking reaches:
the card's edge and its shadow are no print of the card under it."""


def _grown(quad: NDArray[np.float32], by: float) -> NDArray[np.float32]:
    """``quad`` with each corner moved ``by`` away from its centre."""
    centre = quad.mean(axis=0)
    way = quad - centre
    return np.asarray(quad + by * way / np.maximum(np.linalg.norm(way, axis=1, keepdims=True),
                                                   1e-6), np.float32)


def _share_in(mask: NDArray[np.bool_], poly: NDArray[np.floating]) -> float:
    """The share of the polygon ``poly`` where ``mask`` is set (0 outside the mask).

    >>> mask = np.zeros((10, 10), np.bool_); mask[:, :5] = True
    >>> round(_share_in(mask, np.array([[0, 0], [9, 0], [9, 9], [0, 9]], np.float32)), 1)
    0.5
    """
    points = np.round(poly).astype(np.int32)
    x0, y0 = np.maximum(points.min(axis=0), 0)
    x1, y1 = np.minimum(points.max(axis=0) + 1, (mask.shape[1], mask.shape[0]))
    if x1 <= x0 or y1 <= y0:
        return 0.0
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(inside, points - np.array([x0, y0], np.int32), 1)
    n = int(inside.sum())
    return float(mask[y0:y1, x0:x1][inside > 0].sum()) / n if n else 0.0


def _shown(quad: Quad, found: list[Quad]) -> float:
    """The share of ``quad`` under none of the ``found`` cards."""
    origin = np.floor(quad.min(axis=0))
    size = np.ceil(quad.max(axis=0) - origin).astype(int) + 1
    mask = np.zeros((size[1], size[0]), np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad - origin).astype(np.int32), 1)
    total = int(mask.sum())
    for q in found:
        cv2.fillConvexPoly(mask, np.round(q - origin).astype(np.int32), 0)
    return int(mask.sum()) / max(total, 1)
