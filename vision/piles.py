"""Cards lying on piles of other cards, found by their straight sides.

A card on a pile has no outline of its own to the frame's first look: its sides run
into the edges of the cards under it, and its corners may all lie inside the pile's
outline (:mod:`vision.clusters` needs three of them on it). Its four sides are still
edges, straight and at right angles. Where two straight segments meet at a right
angle, each at one of its ends, a card may have a corner; its other two sides are
looked for along them, as edges running parallel the whole way. A quad in a card's
proportions with an edge all along each side is a guess that the reader must confirm:
the caller keeps only those it names (both corners alike, as any overlapped card).
"""

from __future__ import annotations

import math
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.canny import canny
from vision.clusters import CLUSTER_EDGED, side_support
from vision.detect import (
    CARD_ASPECT,
    DetectorSettings,
    FoundCard,
    Image,
    Quad,
    _area_limits,
    _iou,
    edge_mask,
    inside,
    order_clockwise,
)
from vision.play_area import PlaceTest

PILE_SIZE = 1.3
"""Least area of a pile's bounding box, as a multiple of a card's: room for two cards."""

MAX_PILES = 3
"""Most piles looked at in one frame (largest first; bounds a cluttered frame's time)."""

MOST_OF_THE_FRAME = 0.5
"""Largest share of the frame a pile's bounding box may cover: larger, it is the table's own
texture run into the cards' outlines, no pile. On photographs of real table surfaces
(:mod:`vision.real_tables`) such "piles" spanned 27-53 cards' areas, the whole frame, and
their straight segments cost 60-160 ms a frame; our overlapping scenes' piles span 2-11."""

MAX_SEGMENTS = 60
"""Most straight segments (longest first) taken from one pile."""

SEGMENT_LEAST = 0.12
"""Least length of a segment, as a fraction of its pile's shorter side."""

SQUARE_WITHIN = 12.0
"""Degrees from square within which two segments can be two sides of one card."""

CORNER_REACH = (0.15, 3.0)
"""How far a segment may end from the corner it makes with another: a fraction of the
shorter segment, plus pixels (a card's corner is rounded)."""

MAX_CORNERS = 30
"""Most corners (of the longest segments) looked at round in one pile."""

SIDE_SUPPORT = 0.55
"""Least fraction of a far side that must lie on edges for it to be a card's side."""

ASPECT = (1.1, 1.9)
"""Long side over short side of a card on a pile (a tilted camera skews it)."""

MAX_PILE_CARDS = 14
"""Most guesses at cards on piles in one frame (each costs a reading): the best guess at
each card before the second best at any."""

MAX_SIZED_GUESSES = 4
"""Most guesses at cards on piles placed by the size of the cards found (both far sides
unseen: :func:`_cards_at`), read after the others, in one frame. With 4 (and
:data:`ONE_CARD` at 0.75), 770 overlapping cards of fresh seeds (four decks) read 10 more,
none fewer, one wrong fewer; an overlap frame costs about a tenth more (120 -> 133 ms)."""


def cards_on_piles(gray: Image, edges: Image, piles: list[NDArray[np.int32]],
                   cards: list[FoundCard], settings: DetectorSettings,
                   colour: Image | None = None, counts: PlaceTest | None = None,
                   ) -> list[Quad]:
    """Guesses at cards on piles (outlines round several cards, ``piles``), best first:
    none is one of the ``cards`` found already, but one may be a better outline of a
    card found overlapped. ``edges`` is the frame's dilated edge mask; ``colour`` the
    frame (BGR), whose edges of colour are looked at on the piles too. Piles centred
    where ``counts`` says no card counts are left alone (a calibration marker's white
    square is outline enough for two cards, and costs as much to look over)."""
    known = [c.quad for c in cards]
    card = _card_area(known)
    lo = _area_limits(settings, float(gray.shape[0] * gray.shape[1]))[0]
    boxes = _regions(piles, cards, max(card, lo), gray.shape[1::-1], counts)
    return _guesses(gray, _with_colour_edges(edges, colour, boxes), boxes, known, card,
                    settings)


def cards_round(image: Image, unread: list[Quad], known: list[Quad],
                settings: DetectorSettings) -> list[Quad]:
    """Guesses at cards round outlines that did not read (``unread``), best first: an
    outline round two cards of a pile, in a card's proportions, names neither; a card
    on it may still show its own straight sides. ``known`` are the outlines found."""
    gray = np.asarray(image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY),
                      np.uint8)
    h, w = gray.shape
    boxes = []
    for quad in unread[:MAX_PILES]:
        centre = quad.mean(axis=0)
        (x0, y0), (x1, y1) = (centre + (quad - centre) * ROUND_UNREAD).min(axis=0), (
            centre + (quad - centre) * ROUND_UNREAD).max(axis=0)
        boxes.append((max(int(x0), 0), max(int(y0), 0), min(int(x1) + 1, w), min(int(y1) + 1, h)))
    edges = _with_colour_edges(edge_mask(gray), image if image.ndim == 3 else None, boxes)
    return _guesses(gray, edges, boxes, known, _card_area(known), settings)


def _with_colour_edges(edges: Image, colour: Image | None,
                       boxes: list[tuple[int, int, int, int]]) -> Image:
    """``edges`` with the edges of colour (Lab's a and b) in ``boxes`` added: two cards
    of different tints (pale pink over pale green) meet with hardly a change in
    brightness, and the side where they meet is not in the grey image's edges."""
    if colour is None or not boxes:
        return edges
    out = edges.copy()
    for x0, y0, x1, y1 in boxes:
        lab = cv2.cvtColor(colour[y0:y1, x0:x1], cv2.COLOR_BGR2LAB)
        found = np.zeros(lab.shape[:2], np.uint8)
        for channel in (1, 2):
            smooth = cv2.GaussianBlur(lab[:, :, channel], (5, 5), 0)
            found |= canny(np.asarray(smooth, np.uint8), *COLOUR_EDGE, l2gradient=True)
        out[y0:y1, x0:x1] |= np.asarray(cv2.dilate(found, np.ones((3, 3), np.uint8)), np.uint8)
    return out


COLOUR_EDGE = (10.0, 25.0)
"""Canny's thresholds on Lab's colour channels (a tint that changes by about 5 of 255
across a side is an edge)."""


ROUND_UNREAD = 1.3
"""How far round an unread outline guesses are looked for (times its size)."""


def _card_area(known: list[Quad]) -> float:
    """The median area of the ``known`` outlines (0 when there are none)."""
    return float(np.median([cv2.contourArea(k) for k in known])) if known else 0.0


def _guesses(gray: Image, edges: Image, boxes: list[tuple[int, int, int, int]],
             known: list[Quad], card: float, settings: DetectorSettings) -> list[Quad]:
    """Card outlines guessed from the straight segments in ``boxes`` (x0, y0, x1, y1),
    best first, none of them one of the ``known`` outlines (``card``: their median
    area)."""
    h, w = gray.shape[:2]
    lo, hi = _area_limits(settings, float(h * w))
    # one deck: a guess about the size of the cards found is likelier a card
    guesses: list[tuple[float, Quad]] = []
    sized: list[tuple[float, Quad]] = []
    for x0, y0, x1, y1 in boxes:
        if min(x1 - x0, y1 - y0) < 16:
            continue
        least = SEGMENT_LEAST * min(x1 - x0, y1 - y0)
        segments = _segments(gray[y0:y1, x0:x1], least) + np.array([x0, y0, x0, y0],
                                                                     np.float32)
        for corner, lengths in _corners(segments):
            for score, quad, edged in _cards_at(edges, corner, lengths, card):
                if not lo <= (area := cv2.contourArea(quad)) <= hi:
                    continue
                sides = np.sort(side_support(edges, quad))
                if float(sides[4 - edged]) >= CLUSTER_EDGED:  # (its edged sides, at least)
                    size = abs(math.log(area / card)) if card > 0 else 0.0
                    (sized if edged == 2 else guesses).append(
                        (score + float(sides.mean()) - SIZE_WEIGHT * size, quad))
    ranked = _ranked(guesses, known, gray)
    chosen = _card_by_card(ranked, MAX_PILE_CARDS)
    # guesses placed by the cards' size come after, a few: each costs a reading
    return chosen + _card_by_card(_ranked(sized, known + ranked, gray), MAX_SIZED_GUESSES)


def _ranked(guesses: list[tuple[float, Quad]], known: list[Quad], gray: Image) -> list[Quad]:
    """The outlines of ``guesses`` (score, outline), best first, none of them one of the
    ``known`` outlines or a better guess's, each inside the frame."""
    ranked: list[Quad] = []
    for _, quad in sorted(guesses, key=lambda g: -g[0]):
        if not _explained(quad, known, ranked) and inside(quad, gray):
            ranked.append(quad)
    return ranked


def _card_by_card(ranked: list[Quad], budget: int) -> list[Quad]:
    """At most ``budget`` of the guesses ``ranked`` (best first), the best guess at each
    card before the second best at any: the guesses at one card (its sides placed a little
    apart) do not take the whole budget from the other cards of the pile.

    >>> a = np.array([[0, 0], [50, 0], [50, 70], [0, 70]], np.float32)
    >>> b = a + 200
    >>> [int(q[0, 0]) for q in _card_by_card([a, a + 2, a + 4, b], 3)]
    [0, 200, 2]
    """
    cards: list[list[Quad]] = []
    for quad in ranked:
        same = next((group for group in cards if _iou(quad, group[0]) > ONE_CARD), None)
        if same is None:
            cards.append([quad])
        else:
            same.append(quad)
    return [group[k] for k in range(budget) for group in cards if k < len(group)][:budget]


ONE_CARD = 0.75
"""Overlap (IoU) of two guesses above which they are guesses at the same card. A guess
along the frame a design prints inside its card overlaps the card's own about 0.65: at
0.6 the two were one card's, and the better placed was read only after the first guess
at every other card (often past the budget)."""


SIZE_WEIGHT = 0.3
"""How much a guess loses, in fractions of its sides' support, per e-fold its area is off
the cards found."""


def _regions(piles: list[NDArray[np.int32]], cards: list[FoundCard], card: float,
             size: tuple[int, int], counts: PlaceTest | None = None,
             ) -> list[tuple[int, int, int, int]]:
    """The bounding boxes (x0, y0, x1, y1) of the largest piles, a little padded: each
    with room for two cards, and half a card or more of it that no card found alone
    covers (an outline round a lone card and its shadow is no pile). A box inside one
    already taken is left out, and one centred where ``counts`` says no card counts."""
    boxes = sorted(((cv2.boundingRect(p), p) for p in piles), key=lambda b: -b[0][2] * b[0][3])
    out: list[tuple[int, int, int, int]] = []
    narrowest = PILE_NARROWEST * math.sqrt(card / CARD_ASPECT)  # of a card's short side
    for (x, y, bw, bh), pile in boxes:
        if len(out) == MAX_PILES or bw * bh < PILE_SIZE * card:
            break
        if min(bw, bh) < narrowest or bw * bh > MOST_OF_THE_FRAME * size[0] * size[1]:
            continue  # a streak of the table's grain, a shadow along a card; the grain whole
        if counts is not None and not counts((x + bw / 2, y + bh / 2)):
            continue  # off the play area: a calibration marker's white square
        box = (max(x - 4, 0), max(y - 4, 0), min(x + bw + 4, size[0]), min(y + bh + 4, size[1]))
        if any(o[0] <= box[0] and o[1] <= box[1] and box[2] <= o[2] and box[3] <= o[3]
               for o in out):
            continue
        inside = np.zeros((bh, bw), np.uint8)
        cv2.drawContours(inside, [pile - np.array([x, y], np.int32)], -1, 1, cv2.FILLED)
        for c in cards:
            if not c.overlapped:
                cv2.fillConvexPoly(inside, np.round(c.quad - [x, y]).astype(np.int32), 0)
        if int(inside.sum()) >= UNEXPLAINED * card:
            out.append(box)
    return out


PILE_NARROWEST = 0.7
"""Least width of a pile's bounding box, as a fraction of a card's short side."""

UNEXPLAINED = 0.5
"""Least area of a pile that no card found alone covers, as a fraction of a card's, for
cards to be guessed on it."""


def _segments(gray: Image, least: float) -> NDArray[np.float32]:
    """Straight segments (x0, y0, x1, y1) at least ``least`` long, longest first.

    OpenCV's line segment detector follows a faint side (white card on white card) that
    a Hough transform of the edge mask breaks into pieces."""
    # (None where there is no segment, whatever OpenCV's stubs say)
    found = cast("NDArray[np.float32] | None", cv2.createLineSegmentDetector().detect(gray)[0])
    if found is None:
        return np.zeros((0, 4), np.float32)
    lines = np.asarray(found, np.float32).reshape(-1, 4)
    length = np.hypot(lines[:, 2] - lines[:, 0], lines[:, 3] - lines[:, 1])
    order = np.argsort(-length)
    return np.asarray(lines[order[length[order] >= least][:MAX_SEGMENTS]], np.float32)


Corner = tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.float32]]


def _corners(segments: NDArray[np.float32]) -> list[tuple[Corner, tuple[float, float]]]:
    """Where two segments meet at about a right angle, each near one of its ends: the
    corner, and the unit vectors along each segment away from it, with their lengths."""
    if len(segments) < 2:
        return []
    start, end = segments[:, :2], segments[:, 2:]
    length = np.maximum(np.hypot(*(end - start).T), 1e-6)
    unit = (end - start) / length[:, None]
    i, j = np.triu_indices(len(segments), 1)
    cross = unit[i, 0] * unit[j, 1] - unit[i, 1] * unit[j, 0]
    square = np.abs(cross) >= math.cos(math.radians(SQUARE_WITHIN))
    i, j, cross = i[square], j[square], cross[square]
    gap = start[j] - start[i]
    along_i = (gap[:, 0] * unit[j, 1] - gap[:, 1] * unit[j, 0]) / cross
    meet = start[i] + along_i[:, None] * unit[i]
    reach = CORNER_REACH[0] * np.minimum(length[i], length[j]) + CORNER_REACH[1]
    # each segment's end nearer the meeting point, and the other: both near ends in reach
    # (all pairs at once: most square pairs do not meet, and a loop over them costs)
    near_start, met = [], np.ones(len(i), bool)
    for s in (i, j):
        from_start = np.hypot(*(start[s] - meet).T)
        from_end = np.hypot(*(end[s] - meet).T)
        near_start.append(from_start <= from_end)
        met &= np.minimum(from_start, from_end) <= reach
    out = []
    seen: set[tuple[int, ...]] = set()
    for k in np.flatnonzero(met).tolist():
        ways = []
        for s, starts in zip((i[k], j[k]), near_start, strict=True):
            far = end[s] if starts[k] else start[s]
            ways.append((far - meet[k]) / max(float(np.hypot(*(far - meet[k]))), 1e-6))
        # the two sides of one thick edge make twin segments, and twin corners
        key = (*np.round(meet[k] / 4).astype(int).tolist(),
               *(round(math.degrees(math.atan2(v[1], v[0])) / 8) for v in ways))
        if key not in seen:
            seen.add(key)
            out.append(((meet[k], ways[0], ways[1]),
                        (float(length[i[k]]), float(length[j[k]]))))
    # the longest pairs first: a card's sides are its longest straight edges
    out.sort(key=lambda c: -min(c[1]))
    return out[:MAX_CORNERS]


def _cards_at(edges: Image, corner: Corner, lengths: tuple[float, float],
              card: float = 0.0) -> list[tuple[float, Quad, int]]:
    """The cards most likely to have ``corner``, with how well, and how many of their
    sides must lie on edges: the card whose far sides lie where edges run parallel to the
    corner's segments all along them, in a card's proportions; the card whose far
    side one way lies on no edge (a side over a card of the same white shows none), put
    where a card's proportions place it (:data:`NO_EDGE_SIDE`); and, given ``card``, the
    area of the cards found, the cards of that size whose far sides both lie on no edge
    (a card on top of a pile of cards of its white; read last, a few:
    :data:`MAX_SIZED_GUESSES`)."""
    meet, way_a, way_b = corner
    la, lb = lengths
    reach = FAR_REACH * max(la, lb)  # a segment may be a part of its side
    far_a = _peaks(*_side_offsets(edges, meet, way_a, way_b, lb, SHORT_SEGMENT * la, reach))
    far_b = _peaks(*_side_offsets(edges, meet, way_b, way_a, la, SHORT_SEGMENT * lb, reach))
    edged: tuple[float, Quad] | None = None
    for support_a, a in far_a:
        for support_b, b in far_b:
            ratio = max(a, b) / min(a, b)
            if not ASPECT[0] <= ratio <= ASPECT[1]:
                continue
            score = min(support_a, support_b) - 0.3 * abs(math.log(ratio / CARD_ASPECT))
            if edged is None or score > edged[0]:
                edged = (score, _quad_at(meet, way_a, way_b, a, b))
    one_unseen: tuple[float, Quad] | None = None
    for fars, others, least, swap in ((far_a, far_b, lb, False), (far_b, far_a, la, True)):
        for support, far in fars:
            for other in (far * CARD_ASPECT, far / CARD_ASPECT):
                if other < SHORT_SEGMENT * least or any(
                        abs(o - other) < UNSEEN_SIDE_PX for _, o in others):
                    continue  # shorter than its side's segment, or a side there is seen
                a, b = (other, far) if swap else (far, other)
                if one_unseen is None or support - NO_EDGE_SIDE > one_unseen[0]:
                    one_unseen = (support - NO_EDGE_SIDE, _quad_at(meet, way_a, way_b, a, b))
    out = [(*edged, 4)] if edged is not None else []
    if card > 0:
        # both far sides unseen: the card the size of the cards found, its long side
        # either way (scored by how much of its two sides the segments show)
        short = math.sqrt(card / CARD_ASPECT)
        for a, b in ((short * CARD_ASPECT, short), (short, short * CARD_ASPECT)):
            if a < SHORT_SEGMENT * la or b < SHORT_SEGMENT * lb:
                continue  # shorter than a segment along it: no card of that size there
            sized = _quad_at(meet, way_a, way_b, a, b)
            placed = [o[1] for o in out] + ([one_unseen[1]] if one_unseen is not None else [])
            if all(_iou(sized, q) < APART for q in placed):  # (another card than those)
                shown = (min(la / a, 1.0) + min(lb / b, 1.0)) / 2
                out.append((shown - 2 * NO_EDGE_SIDE, sized, 2))
    if one_unseen is not None and (edged is None or _iou(one_unseen[1], edged[1]) < APART):
        out.append((*one_unseen, 3))
    return out


def _quad_at(meet: NDArray[np.float32], way_a: NDArray[np.float32],
             way_b: NDArray[np.float32], a: float, b: float) -> Quad:
    """The card with a corner at ``meet`` and sides ``a`` and ``b`` long along the two
    ways from it."""
    return order_clockwise(np.array(
        [meet, meet + a * way_a, meet + a * way_a + b * way_b, meet + b * way_b], np.float32))


NO_EDGE_SIDE = 0.3
"""What a guess at a card loses, against its seen sides' support, for one far side on no
edge (placed by the card's proportions): a white card's side over another white card.
Such guesses read 4 more taught overlapping cards in 189 (held-out design, fresh seeds),
4 more of our renderer's in 117, none wrong; an overlap frame costs about a fifth more."""

UNSEEN_SIDE_PX = 8
"""How near (pixels) to where a card's proportions put its far side an edge there must
be for that side to count as seen (then the guess with all four sides stands)."""

APART = 0.8
"""Overlap (IoU) below which a guess with one side unseen is another card than the
corner's guess with all four sides seen (above it, the same card placed alike)."""


FAR_REACH = 2.2
"""How far a far side is looked for, in lengths of the corner's longer segment."""

SHORT_SEGMENT = 0.8
"""Least length of a card's side, as a fraction of the segment along it (a segment can
overshoot a little, into a neighbour's collinear edge)."""

SIDE_SAMPLES = 24
"""Points looked at along a side (its ends left out: rounded corners)."""

OFFSET_STEP = 2.0
"""Pixels between the distances at which a far side is looked for (the edge mask's
lines are three pixels wide)."""


def _side_offsets(edges: Image, meet: NDArray[np.float32], along: NDArray[np.float32],
                  across: NDArray[np.float32], span: float, lo: float, hi: float,
                  ) -> tuple[NDArray[np.float32], NDArray[np.float64]]:
    """For each distance from ``lo`` to ``hi`` pixels ``along`` from the corner, the
    fraction of a side there (``span`` long, ``across``) that lies on edges."""
    offsets = np.arange(lo, hi, OFFSET_STEP, dtype=np.float32)
    t = np.linspace(0.12, 0.88, SIDE_SAMPLES, dtype=np.float32) * span
    pts = np.round(meet + offsets[:, None, None] * along + t[None, :, None] * across
                   ).astype(np.int32)
    h, w = edges.shape[:2]
    inside = (pts[..., 0] >= 0) & (pts[..., 0] < w) & (pts[..., 1] >= 0) & (pts[..., 1] < h)
    hits = edges[np.clip(pts[..., 1], 0, h - 1), np.clip(pts[..., 0], 0, w - 1)] > 0
    return offsets, (hits & inside).mean(axis=1)


def _peaks(offsets: NDArray[np.float32], support: NDArray[np.float64],
           ) -> list[tuple[float, float]]:
    """The distances (with their support) where a side lies on edges: local maxima of at
    least :data:`SIDE_SUPPORT`, one per few pixels."""
    out: list[tuple[float, float]] = []
    for k in np.flatnonzero(support >= SIDE_SUPPORT).tolist():
        if support[k] == support[max(0, k - 2):k + 3].max() and (
                not out or offsets[k] - out[-1][1] > 4):
            out.append((float(support[k]), float(offsets[k])))
    return out


def _explained(quad: Quad, known: list[Quad], found: list[Quad]) -> bool:
    """Whether ``quad`` is a card already found (the same outline), or a guess already
    made. An outline that it overlaps less is no reason: a card's outline may have run
    into the pile's, and of two guesses that overlap the better placed may be the one
    less sure of its sides (the reader takes whichever reads)."""
    return any(_iou(quad, k) > SAME_OUTLINE for k in known + found)


SAME_OUTLINE = 0.9
"""Overlap (IoU) of a guess with a card found above which it is that card's outline."""
