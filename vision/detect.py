"""Find cards in an image: quads in image pixels, and the dewarped card.

Two cues are combined, because neither alone survives every table:

* edges (Canny on the smoothed grey image): a card's outline is a
  closed edge even on a light table, and the top card of an overlapping pair
  keeps its whole outline (its drop shadow makes an edge over the card below);
* local brightness (adaptive threshold): cards are lighter than their
  surroundings, which holds under lighting gradients where edges blur.

Every closed contour is reduced to its convex hull and then to a quad; a
quad is kept only if the hull fills it (no ellipses, hands or L-shaped
blobs), its sides are in a card's proportions, and it is not nested inside
a larger kept quad (the coloured panels printed on many cards). The
best-shaped candidates are taken first, so a tight card outline wins over
a blob of two cards. The inner and outer outlines of one edge are averaged,
after fitting a line to each side (rounded corners pull polygon vertices in).

A light card on a light table can escape both cues (its unshadowed sides are too
faint to close its outline); where an outline's hull is card-shaped and no card
found explains it, a second, more sensitive look at the edges there finds it.

Overlapping cards make one outline round them all; the top card is found in it by
:mod:`vision.clusters`, and the second looks are :mod:`vision.second_look`'s. Every
card found says whether it overlaps another, since a corner of it may then show the
other card's index. A card on a pile with no outline of its own may still be guessed
from its straight sides (:mod:`vision.piles`): a guess is a card only if it reads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import frame_cut
from vision.canny import canny
from vision.play_area import PlaceTest
from vision.sides import refine_corners, short_and_long

Image = NDArray[np.uint8]
Quad = NDArray[np.float32]  # 4 x 2, clockwise in image coordinates

CARD_W, CARD_H = 200, 280
"""Size of the canonical dewarped card (portrait)."""

CARD_ASPECT = 88 / 63
"""Long side over short side of a playing card (poker and bridge sizes are close)."""


@dataclass(frozen=True)
class DetectorSettings:
    """Tunable limits. With a calibrated table, ``card_area`` is known exactly."""

    min_area_fraction: float = 0.0012  # smallest card as a fraction of the image (no calibration)
    max_area_fraction: float = 0.9  # a low camera, a card held up: the table or a sheet
    # of paper is told apart by the frame cutting it (``_on_frame``), not by its size
    card_area: float | None = None  # expected card area in pixels, when calibrated
    min_fill: float = 0.88  # contour area / quad area
    aspect_range: tuple[float, float] = (1.02, 2.25)  # long / short side: 35 degrees of tilt
    # foreshortens a card to nearly square, or stretches it, near the image edges (a
    # squarer outline is taken only apart: see find_cards_with_alternates' ``squares``)
    max_corner_angle: float = 45.0  # degrees away from 90 at any corner (a photo taken
    # obliquely, from a seat, skews a card's corners to 50 and 130 degrees)


_ROLLED = [np.array([(i + k) % 4 for i in range(4)]) for k in range(4)]
"""Index arrays that roll a quad's four corners by k (much cheaper than ``np.roll`` on
the thousands of small quads a frame yields)."""
_NEXT, _PREV = _ROLLED[1], _ROLLED[3]


def order_clockwise(pts: NDArray[np.floating]) -> Quad:
    """Four points in clockwise image order (y down), starting at the top-most-left one.

    >>> order_clockwise(np.array([[0, 0], [0, 10], [10, 10], [10, 0]])).tolist()
    [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]
    """
    p = np.asarray(pts, np.float32).reshape(4, 2)
    # plain floats: numpy's per-call cost, on four points, was most of the time
    xy = p.tolist()
    cx, cy = sum(x for x, _ in xy) / 4, sum(y for _, y in xy) / 4
    order = sorted(range(4), key=lambda i: math.atan2(xy[i][1] - cy, xy[i][0] - cx))
    start = min(range(4), key=lambda k: xy[order[k]][0] + xy[order[k]][1])
    return p[[order[(k + start) % 4] for k in range(4)]]


def corner_skew(q: Quad) -> float:
    """How far (degrees) the corner of ``q`` least like a right angle is from one."""
    u = q[_PREV] - q
    v = q[_NEXT] - q
    cos = (u * v).sum(axis=1) / (np.hypot(u[:, 0], u[:, 1]) * np.hypot(v[:, 0], v[:, 1]) + 1e-9)
    return float(np.abs(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))) - 90).max())


def _side_ratio(q: Quad) -> float:
    short, long = short_and_long(q)
    return long / max(short, 1e-6)


def _area_limits(settings: DetectorSettings, image_area: float) -> tuple[float, float]:
    """Smallest and largest card area in pixels."""
    if settings.card_area is not None:
        return 0.6 * settings.card_area, 1.5 * settings.card_area
    return settings.min_area_fraction * image_area, settings.max_area_fraction * image_area


def quad_from_contour(contour: NDArray[np.int32], settings: DetectorSettings,
                      image_area: float, refine: bool = True,
                      square: bool = False, frame: tuple[int, int] | None = None,
                      ) -> Quad | None:
    """The card quad a contour outlines, or ``None`` when it is not card-shaped.

    ``refine=False`` skips fitting the sides (cheaper; corners cut by the rounding).
    ``square``: an outline squarer than ``settings.aspect_range`` allows is a quad too.
    ``frame``: the image's width and height, where a card with a corner out of view is
    outlined too (:func:`vision.frame_cut.corner_beyond_frame`).
    """
    area = cv2.contourArea(contour)
    lo, hi = _area_limits(settings, image_area)
    if not lo <= area <= hi:
        return None
    hull = cv2.convexHull(contour)
    hull_area = cv2.contourArea(hull)
    if hull_area <= 0 or area / hull_area < settings.min_fill:
        return None
    peri = cv2.arcLength(hull, True)
    approx: NDArray[np.generic] | None = None
    cut: Quad | None = None
    for eps in frame_cut.EPSILONS:
        poly = np.asarray(cv2.approxPolyDP(hull, eps * peri, True))
        if len(poly) == 5 and frame is not None:
            approx = cut = frame_cut.corner_beyond_frame(poly, *frame)
            if cut is not None:
                break
        if len(poly) == 4:
            approx = poly
            break
        if len(poly) < 4:
            break
    if approx is None:
        return None
    quad = order_clockwise(np.asarray(approx, np.float32).reshape(4, 2))
    if refine:
        quad = order_clockwise(refine_corners(contour, quad))
    quad_area = (frame_cut.seen_area(quad, *frame) if cut is not None and frame
                 else cv2.contourArea(quad))
    # an unrefined quad cuts the rounded corners off, so the hull may overfill it a little
    if quad_area <= 0 or not settings.min_fill <= hull_area / quad_area <= (
            1.06 if refine else 1.22):
        return None
    if not (1.0 if square else settings.aspect_range[0]) <= _side_ratio(quad) <= (
            settings.aspect_range[1]):
        return None
    if corner_skew(quad) > settings.max_corner_angle:
        return None
    return quad


def _on_frame(q: Quad, w: int, h: int) -> bool:
    """Whether a side of ``q`` runs along the image's border: the frame cut what lies
    there (a card half out of view, the table, a sheet of paper), so that side is not a
    card's edge.

    >>> _on_frame(np.float32([[0, 10], [50, 10], [50, 80], [0, 80]]), 100, 100)
    True
    >>> _on_frame(np.float32([[5, 10], [50, 10], [50, 80], [5, 80]]), 100, 100)
    False
    """
    (x0, y0), (x1, y1) = q.min(axis=0), q.max(axis=0)
    m = frame_cut.FRAME_MARGIN
    if min(x0, y0) > m and x1 < w - 1 - m and y1 < h - 1 - m:
        return False  # (the common case, cheaply)
    near = np.stack([q[:, 0] <= m, q[:, 1] <= m, q[:, 0] >= w - 1 - m, q[:, 1] >= h - 1 - m])
    return bool((near & near[:, _NEXT]).any())


LARGE_CARD = 0.25
"""Area, as a fraction of the frame, above which a card-shaped outline must show a card's
rounded corners: a table, a mat, a screen or the frame's own vignette are as large, in a
card's proportions too, but square-cornered."""

ROUNDED = 0.008
"""Least gap between a rounded card corner and the corner of its fitted sides, as a
fraction of the card's short side (a poker card's corner radius is 5 %, a gap of 2 %;
blur and a square corner leave under 0.5 %)."""


def _square_cornered(contour: NDArray[np.int32], rough: Quad) -> bool:
    """Whether the outline's corners are square (fewer than two rounded like a card's).

    >>> box = np.array([[[x, 0]] for x in range(100)] + [[[99, y]] for y in range(140)]
    ...                + [[[x, 139]] for x in range(99, -1, -1)]
    ...                + [[[0, y]] for y in range(139, -1, -1)], np.int32)
    >>> _square_cornered(box, np.float32([[0, 0], [99, 0], [99, 139], [0, 139]]))
    True
    """
    quad = _refined(contour, rough)
    sides = np.linalg.norm(quad[_NEXT] - quad, axis=1)
    short = float(min(sides[0] + sides[2], sides[1] + sides[3])) / 2
    pts = contour.reshape(-1, 2).astype(np.float32)
    gaps = [float(np.min(np.hypot(pts[:, 0] - x, pts[:, 1] - y))) for x, y in quad]
    return sum(g >= ROUNDED * short for g in gaps) < 2


def _quality(contour: NDArray[np.int32], quad: Quad) -> float:
    """How card-like a candidate is: the contour fills the quad, in a card's proportions."""
    quad_area = max(cv2.contourArea(quad), 1.0)
    fill = min(cv2.contourArea(contour) / quad_area, 1.0)
    spill = min(quad_area / max(cv2.contourArea(cv2.convexHull(contour)), 1.0), 1.0)
    aspect = abs(math.log(_side_ratio(quad) / CARD_ASPECT))
    return float(fill ** 4 * spill ** 4 * math.exp(-3 * aspect))


def _iou(a: Quad, b: Quad) -> float:
    inter, _ = cv2.intersectConvexConvex(a, b)
    union = cv2.contourArea(a) + cv2.contourArea(b) - inter
    return float(inter / union) if union > 0 else 0.0


def quad_iou(a: NDArray[np.floating], b: NDArray[np.floating]) -> float:
    """Intersection over union of two convex quads.

    >>> sq = np.array([[0, 0], [10, 0], [10, 10], [0, 10]])
    >>> round(quad_iou(sq, sq + [5, 0]), 3)
    0.333
    """
    return _iou(np.asarray(a, np.float32), np.asarray(b, np.float32))


def inside(quad: NDArray[np.floating], image: Image) -> bool:
    """Whether every corner of ``quad`` lies inside ``image``.

    >>> inside(np.float32([[0, 0], [9, 0], [9, 9], [0, 9]]), np.zeros((10, 10), np.uint8))
    True
    """
    h, w = image.shape[:2]
    return bool(quad.min() >= 0 and quad[:, 0].max() < w and quad[:, 1].max() < h)


def _apart(a: tuple[NDArray[np.float32], ...], b: tuple[NDArray[np.float32], ...]) -> bool:
    """Whether two quads' bounding boxes (their corners' least and greatest) are apart."""
    return bool((a[0] > b[1]).any() or (b[0] > a[1]).any())


def _contains(big: Quad, point: NDArray[np.floating]) -> bool:
    return cv2.pointPolygonTest(big, (float(point[0]), float(point[1])), False) >= 0


EDGE_LOW, EDGE_HIGH = 0.25, 0.65
"""Canny's hysteresis thresholds as fractions of the image's median brightness."""


def _median(gray: Image) -> float:
    """The median brightness, from every 4th row and column (it sets the edge thresholds).

    >>> _median(np.full((8, 8), 90, np.uint8))
    90.0
    """
    hist = np.cumsum(np.bincount(gray[::4, ::4].ravel(), minlength=256))
    return float(np.searchsorted(hist, hist[-1] / 2))


def edge_mask(gray: Image, smooth: Image | None = None) -> Image:
    """The frame's card edges: Canny on the smoothed grey image, thresholds set by its
    median brightness, dilated to close small gaps."""
    # no contrast equalisation (CLAHE): it cost a tenth of the frame and lifted the table's
    # texture as much as the cards' edges; lower edge thresholds find faint outlines instead
    smooth = np.asarray(cv2.GaussianBlur(gray, (5, 5), 0) if smooth is None else smooth,
                        np.uint8)
    med = _median(smooth)
    edges = canny(smooth, max(8.0, EDGE_LOW * med), max(24.0, EDGE_HIGH * med),
                  l2gradient=True)
    return np.asarray(cv2.dilate(edges, np.ones((3, 3), np.uint8)), np.uint8)


def _candidate_masks(gray: Image) -> list[Image]:
    smooth = np.asarray(cv2.GaussianBlur(gray, (5, 5), 0), np.uint8)
    edges = edge_mask(gray, smooth)
    bright = cv2.adaptiveThreshold(smooth, 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                   cv2.THRESH_BINARY, 51, -6)
    bright = cv2.morphologyEx(bright, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return [edges, np.asarray(bright, np.uint8)]


def find_cards(image: Image, settings: DetectorSettings | None = None) -> list[Quad]:
    """Quads of the cards in a BGR or grey image, largest first.

    >>> find_cards(np.zeros((120, 160, 3), np.uint8))
    []
    """
    return [found.quad for found in find_cards_with_alternates(image, settings)]


MAX_ALTERNATES = 3


@dataclass(frozen=True, eq=False)
class Outline:
    """A candidate card outline that lost to an overlapping one; refined on demand
    (fitting the sides costs time that is wasted when the kept outline is read)."""

    contour: NDArray[np.int32]
    rough: Quad

    def quad(self) -> Quad:
        return _refined(self.contour, self.rough)


@dataclass(frozen=True, eq=False)
class FoundCard:
    """A card found in a frame."""

    quad: Quad
    alternates: list[Outline]
    """Runner-up outlines of the card, smaller than ``quad`` (see
    :func:`find_cards_with_alternates`)."""
    overlapped: bool = False
    """The card lies over or under another card, was found in the outline round a
    cluster of cards, or has a side along no edge (:data:`vision.clusters.EDGED_SIDE`):
    a corner may show another card's index."""
    guessed: bool = False
    """Found on a pile by its sides alone (:mod:`vision.piles`): a card only if it reads."""
    square: bool = False
    """Squarer than a card, apart from other cards (see :func:`find_cards_with_alternates`'
    ``squares``): a card only if it reads."""
    two_sided: bool = False
    """Guessed from two of its sides, the others showing no edge
    (:func:`vision.second_look.cards_of_two_sides`): a card only if it reads."""
    cut: bool = False
    """Outlined where a frame's border cut it (:func:`vision.whole_frame.close_up`):
    part of it, and of its pips, is out of view."""


def find_cards_with_alternates(image: Image, settings: DetectorSettings | None = None,
                               piles: bool = False, squares: bool = False,
                               counts: PlaceTest | None = None,
                               two_sides: bool = False) -> list[FoundCard]:
    """Like :func:`find_cards`, with each card's runner-up outlines: overlapping
    candidates that lost to it (on a light table, the brightness halo round a dark
    card can win over the card's own edge). A caller that cannot read a card
    through its quad may try these; only outlines smaller than the kept one are
    offered (a card inside a halo, not a blob round a card). Each card says whether
    it overlaps another. With ``piles``, guesses at cards on piles follow. With
    ``squares``, square outlines apart from every card found follow, flagged
    ``square``: a card foreshortened by a steeply tilted camera, or a square thing on
    the table (a tile, a coaster, a board's cells), a card only if it reads (the
    visible part of a card under another is often square too: hence apart). With
    ``counts``, cards are guessed only on piles centred where it says cards count. With
    ``piles`` or ``two_sides``, cards only two of whose sides show follow too, flagged
    ``two_sided`` (``two_sides`` alone: not the guesses on piles, which cost most).

    >>> find_cards_with_alternates(np.zeros((120, 160, 3), np.uint8))
    []
    """
    settings = settings or DetectorSettings()
    gray = np.asarray(image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY),
                      np.uint8)
    masks = _candidate_masks(gray)
    found, open_outlines, square = _outlines(masks, settings, squares)
    # (imported here: these modules build on this one's outline primitives)
    from vision.clusters import cards_in_clusters, found_cards, without_blobs, without_fragments
    from vision.piles import cards_on_piles
    from vision.second_look import cards_left_open, cards_of_two_sides

    found = without_blobs(found)
    kept: list[Quad] = []
    twins: list[list[Quad]] = []
    others: list[list[Outline]] = []
    spans: list[tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.float32]]] = []
    for area, q, _q, contour in found:
        span = (q.min(axis=0), q.max(axis=0), q.mean(axis=0))
        centre = span[2]
        duplicate = False
        for index, (k, group) in enumerate(zip(kept, twins, strict=True)):
            if _apart(span, spans[index]):
                continue  # (most pairs: neither overlaps nor holds the other's centre)
            iou = _iou(q, k)
            if iou > 0.6:
                if iou > 0.85:
                    group.append(_align(_refined(contour, q), group[0]))
                elif len(others[index]) < MAX_ALTERNATES and area < 0.95 * cv2.contourArea(k):
                    # a smaller outline inside a halo (light table), not a blob round the card
                    others[index].append(Outline(contour, q))
                duplicate = True
                break
            # a printed panel inside a kept card, or a blob of cards round one
            if _contains(k, centre) or _contains(q, spans[index][2]):
                if _panel_of(k, q):
                    # the card round a printed panel that was outlined more cleanly
                    kept[index], twins[index], spans[index] = q, [_refined(contour, q)], span
                duplicate = True
                break
        if not duplicate:
            kept.append(q)
            spans.append(span)
            twins.append([_refined(contour, q)])
            others.append([])
    # the outer and inner outlines of one edge straddle the true edge: average them
    out = [(np.mean(group, axis=0).astype(np.float32), alt)
           for group, alt in zip(twins, others, strict=True)]
    opened = cards_left_open(gray, open_outlines, kept, settings)
    # a panel that was all the frame's edges outlined gives way to its card
    out = [(q, alt) for q, alt in out if not any(_print_on(q, c) for c in opened)]
    out += [(q, []) for q in opened]
    clustered = cards_in_clusters(open_outlines, [q for q, _ in out], masks, settings)
    out += [(q, []) for q in clustered]
    if settings.card_area is None:
        out = without_fragments(out)
    cards = found_cards(out, clustered, square, masks[0])
    if not (piles or two_sides):
        return cards
    two_sided = cards_of_two_sides(open_outlines, [c.quad for c in cards], gray, settings)
    return cards + [FoundCard(q, [], True, two_sided=True) for q in two_sided] + ([
        FoundCard(q, [], True, guessed=True) for q in cards_on_piles(
            gray, masks[0], open_outlines, cards, settings,
            image if image.ndim == 3 else None, counts)] if piles else [])


def find_cards_halved(image: Image, settings: DetectorSettings | None = None,
                      counts: PlaceTest | None = None) -> list[FoundCard]:
    """:func:`find_cards_with_alternates` (piles, squares and two-sided cards looked for)
    on ``image`` shrunk to half its size, the cards in ``image``'s pixels. A frame so
    blurred that its first look outlines nothing can show its cards' sides halved: blur
    2.5 px spreads a white card's 20 grey levels on a light sheet below the edge
    thresholds, half as far at half the size.

    >>> find_cards_halved(np.zeros((120, 160, 3), np.uint8))
    []
    """
    h, w = image.shape[:2]
    halved = np.asarray(cv2.resize(image, (w // 2, h // 2), interpolation=cv2.INTER_AREA),
                        np.uint8)
    place = None if counts is None else (lambda point: counts((2 * point[0], 2 * point[1])))
    return [replace(found, quad=np.asarray(2 * found.quad, np.float32), alternates=[
        Outline(np.asarray(2 * a.contour, np.int32), np.asarray(2 * a.rough, np.float32))
        for a in found.alternates]) for found in find_cards_with_alternates(
            halved, settings, piles=True, squares=True, counts=place)]


def _outlines(masks: list[Image], settings: DetectorSettings, squares: bool,
              ) -> tuple[list[tuple[float, Quad, float, NDArray[np.int32]]],
                         list[NDArray[np.int32]], list[Quad]]:
    """The outlines in the candidate masks: the card-shaped ones (area, quad, quality,
    contour; best-shaped first: a tight card outline before a blob of two overlapping
    cards), the card-sized ones that are not closed or not filled, and (``squares``)
    the card-sized ones squarer than a card."""
    h, w = masks[0].shape[:2]
    image_area = float(h * w)
    found: list[tuple[float, Quad, float, NDArray[np.int32]]] = []
    open_outlines: list[NDArray[np.int32]] = []
    square: list[Quad] = []
    min_points = 2 * math.sqrt(settings.min_area_fraction * image_area)
    smallest = _area_limits(settings, image_area)[0]
    outlined = [cv2.findContours(m, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)[0] for m in masks]
    for contours in outlined:
        for c in contours:
            if len(c) < min_points:  # too short to go round even the smallest card
                continue
            contour = np.asarray(c, np.int32)
            q = quad_from_contour(contour, settings, image_area, refine=False,
                                  square=squares, frame=(w, h))
            if q is not None and _side_ratio(q) < settings.aspect_range[0]:
                if not _on_frame(q, w, h):
                    square.append(q)
                q = None  # (as before, an outline for the clusters and piles to look at)
            if q is not None and not _on_frame(q, w, h) and not (
                    cv2.contourArea(q) > LARGE_CARD * image_area
                    and _square_cornered(contour, q)):
                found.append((float(cv2.contourArea(q)), q, _quality(contour, q), contour))
            else:
                _, _, bw, bh = cv2.boundingRect(contour)
                if bw * bh >= smallest:
                    open_outlines.append(contour)
    for contour in frame_cut.outlines_cut_by_frame(masks[0], outlined[0], smallest):
        q = quad_from_contour(contour, settings, image_area, refine=False, frame=(w, h))
        if q is not None and not _on_frame(q, w, h) and not inside(q, masks[0]):
            found.append((float(cv2.contourArea(q)), q, _quality(contour, q), contour))
    found.sort(key=lambda t: -t[0] * t[2])
    return found, open_outlines, square


OVERLAP = 0.02
"""Fraction of a card's area under or over another card found, from which the card is
overlapped: one of its corners may show the other card's index."""

def _overlaps_another(quad: Quad, quads: list[Quad], least: float = OVERLAP) -> bool:
    """Whether another of ``quads`` lies over or under more than ``least`` of ``quad``."""
    area = cv2.contourArea(quad)
    return any(other is not quad and cv2.intersectConvexConvex(quad, other)[0] > least * area
               for other in quads)


PANEL_MARGIN = 0.025
"""Least border round a printed panel, as a fraction of the card's side."""

PANEL_SKEW = 0.1
"""Most a panel's sides may lean against the card's, as a fraction of the card's side."""

_UNIT_SQUARE = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)


SMALL_PANEL = 0.2
"""Least area of a panel round the pips, as a fraction of its card, when the panel alone
was outlined (some decks frame a narrow pip field: about a quarter of the card)."""

PRINT_SIZE = 0.2
"""Largest area of a quad printed on a card (an index, a pip), as a fraction of the card:
cards of one deck differ by less in the image (tilt, distance)."""


def _print_on(inner: Quad, card: Quad) -> bool:
    """Whether ``inner``, a quad found in the frame, can be print on ``card``: a panel
    round the pips, or a pip or an index far smaller than the card, inside it.

    >>> card = np.float32([[0, 0], [100, 0], [100, 140], [0, 140]])
    >>> _print_on(np.float32([[10, 10], [25, 10], [25, 30], [10, 30]]), card)
    True
    >>> _print_on(card + 200, card)
    False
    """
    if _panel_of(inner, card, SMALL_PANEL):
        return True
    return (cv2.contourArea(inner) < PRINT_SIZE * cv2.contourArea(card)
            and _contains(card, inner.mean(axis=0)))


def _panel_of(inner: Quad, outer: Quad, least: float = 0.45) -> bool:
    """Whether ``inner`` is a panel printed on the card ``outer``: most of its size,
    inside it with a border on every side and square to it, seen in the card's own
    perspective. A card inside the outline of a blob of cards touches the blob's
    outline or lies askew in it; a panel need not be centred (Can't Catch Harry's
    leaves room for a name below it)."""
    area_in, area_out = cv2.contourArea(inner), cv2.contourArea(outer)
    if area_out <= 0 or not least <= area_in / area_out <= 0.92:
        return False
    to_card = cv2.getPerspectiveTransform(np.asarray(outer, np.float32), _UNIT_SQUARE)
    uv = _align(cv2.perspectiveTransform(np.asarray(inner, np.float32)[None], to_card)[0],
                _UNIT_SQUARE)
    if not np.all((uv >= PANEL_MARGIN) & (uv <= 1 - PANEL_MARGIN)):
        return False
    # top and bottom sides level (v), left and right sides upright (u)
    lean = np.abs(uv - uv[_NEXT])[[0, 1, 2, 3], [1, 0, 1, 0]]
    return bool(lean.max() <= PANEL_SKEW)


def _refined(contour: NDArray[np.int32], quad: Quad) -> Quad:
    return order_clockwise(refine_corners(contour, quad))


def _align(q: Quad, ref: Quad) -> Quad:
    """``q``'s corners rolled to correspond with ``ref``'s."""
    best = min(range(4), key=lambda k: float(np.abs(q[_ROLLED[k]] - ref).sum()))
    return np.asarray(q[_ROLLED[best]], np.float32)


def portrait(quad: Quad) -> Quad:
    """The quad's corners re-ordered so its first side is a short one (card top).

    >>> portrait(np.float32([[0, 0], [14, 0], [14, 10], [0, 10]])).tolist()
    [[14.0, 0.0], [14.0, 10.0], [0.0, 10.0], [0.0, 0.0]]
    """
    q = np.asarray(quad, np.float32)
    s = [float(np.linalg.norm(q[(i + 1) % 4] - q[i])) for i in range(4)]
    if s[0] + s[2] > s[1] + s[3]:
        q = q[_NEXT]
    return q


def dewarp(image: Image, quad: Quad, size: tuple[int, int] = (CARD_W, CARD_H)) -> Image:
    """The card under ``quad`` warped to an upright canonical view (``quad[0]`` top-left)."""
    w, h = size
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), dst)
    return np.asarray(cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR,
                                          borderMode=cv2.BORDER_REPLICATE), np.uint8)


def quarter_turned(card: Image, interpolation: int = cv2.INTER_LINEAR) -> Image:
    """A canonical card turned a quarter round and stretched back to the canonical shape:
    the card a dewarp gives when a foreshortened long side was taken for a short one
    (a camera looking from the side)."""
    h, w = card.shape[:2]
    turned = cv2.rotate(card, cv2.ROTATE_90_CLOCKWISE)
    return np.asarray(cv2.resize(turned, (w, h), interpolation=interpolation), np.uint8)
