"""What a standard card shows away from its index corners: its pips (how many, their
suit, where they lie) and whether a picture is printed there.

The pips confirm or settle what the corners read (:mod:`vision.standard`); a small or
blurred card whose index is a few pixels may be named from them alone
(:mod:`vision.pips`). Nothing about where a design places its pips is assumed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.decks import RED_SUITS
from vision.glare import clipped_by_glare
from vision.glyphs import CLASSES, SUITS, features_of, lobed_like_a_club, shipped_model
from vision.index import ink_red_and_chroma, paper_colour, shadowed_paper
from vision.pips import (
    BARE_SIDES_UP_TO,
    LEVEL_TO_DENY,
    hidden_within,
    layout_rank,
    pooled_suit,
    sides_at_middle,
)
from vision.thresholds import Thresholds

Image = NDArray[np.uint8]

COURTS = frozenset({"J", "Q", "K"})

SUIT_COLS = np.array([CLASSES.index(f"suit:{s}") for s in SUITS])
"""The classifier's columns of the four suits, in :data:`vision.glyphs.SUITS` order."""


@dataclass(frozen=True)
class Field:
    """What the card shows away from its corners."""

    pips: int
    """Blobs the index classifier calls a suit."""
    others: int
    """Pip-sized or larger blobs that are no clear suit (two pips run together, a pip
    under a finger's shadow)."""
    picture: bool
    """A large, solid blob that is no suit: a court picture, a big letter, a hand."""
    suit: str | None = None
    """The suit nearly every pip is (``None`` when they are not that clear)."""
    washed: bool = False
    """Part of the face is clipped white by glare, or a pip is paled by it (where pips
    may be lost)."""
    alike: int | None = None
    """How many blobs there are when every blob is about the size of the others and none
    is a picture: a count of pips that does not depend on the classifier naming each
    one (a small or blurred card's pips are blots it may not call suits)."""
    where: tuple[tuple[float, float], ...] = ()
    """The centres of the blobs counted in :attr:`alike` (fractions of the card's width
    and height)."""
    pooled_suit: str | None = None
    """The suit the blobs counted in :attr:`alike` make together: the classifier's suit
    probabilities averaged over all of them, among the suits of their colour (``None``
    when no suit stands out, or the colour is unclear)."""
    both_colours: bool = False
    """Blobs of both colours, at least :data:`TWO_FACES` of each clearly red and clearly
    black: two cards' pips (one card's are all of one colour), as an outline round two
    cards shows."""
    side_pips: int = 0
    """Pips centred off the middle column (:data:`SIDE_COLUMN`), where no two or three
    prints one."""
    black_suit: str | None = None
    """The suit two or more black pips all are, whatever the red blobs (a court's large
    black suit signs beside its red picture, part of which the classifier calls a suit)."""


TWO_FACES = 2
"""Clearly red and clearly black blobs, each at least this many, that make a face two
cards' (:attr:`Field.both_colours`)."""

CORNER_SQUARE = (0.2, 0.3)
"""The part of each corner (width, height fractions) left out of the field where the index
was not measured."""


BUSY_FACE = 4
"""Blobs beyond a number card's rank, beside a picture, from which its face is a court's
picture in pieces (a small jack's blotted J reads as a 3). Number cards showed at most
three more in 1,700 rendered held-out and training cards, small, lit unevenly, under
hands and over each other."""


ALIKE_AREAS = 1.8
"""Largest ratio of two pips' areas on one card (a pip's ink varies with blur and with
the way the card was cut; two pips run together are twice one)."""


ALIKE_SHAPES = 1.35
"""Largest ratio of two pips' proportions (width over height), and of how much of its box
each fills: pips are one shape, upright or turned, where the pieces of a picture are not."""


LINE_WIDTH = 0.05
"""Widest a line of ink may be, as a fraction of the card's width, and not be a picture."""
EDGE_BAND = 0.15
"""The outer part of the card's width or height, on each side, in which a long band of
ink lying wholly is the table's shadow or the card's rim, not a picture (a dewarp a little
too large takes them in: a small six of diamonds so cut showed a picture; a small two's
rim lay 6-13 % in from its side)."""


def _alike(blobs: list[tuple[NDArray[np.float32], int]]) -> bool:
    """Whether blobs (ink patches and their areas) are one size and shape, as pips are."""
    areas = np.array([a for _, a in blobs], np.float64)
    aspect = np.array([p.shape[1] / p.shape[0] for p, _ in blobs], np.float64)
    fill = areas / np.array([p.shape[0] * p.shape[1] for p, _ in blobs], np.float64)
    return all(float(v.max()) <= limit * float(v.min()) for v, limit in
               ((areas, ALIKE_AREAS), (aspect, ALIKE_SHAPES), (fill, ALIKE_SHAPES)))


SURE_PIP = 0.9
"""How sure the classifier must be of a pip's suit the other way up, to take it there
(see :func:`_surer_way_up`)."""


def _surer_way_up(upright: NDArray[np.float32], turned: NDArray[np.float32],
                  redness: NDArray[np.float64], chroma: NDArray[np.float64],
                  th: Thresholds) -> NDArray[np.float32]:
    """Each blob's class probabilities the way up (as printed, or turned over) the
    classifier is surer of its suit; but where that suit is one the ink's colour cannot
    print (a spade turned over is a heart's shape: black ink) and the other way up is
    sure (:data:`SURE_PIP`) of a suit it can, the other way up. Only red ink and black
    ink (grey: neither red nor coloured) are so told apart: a four-colour deck prints
    diamonds and clubs in other colours, and a heart in yellow ink is no spade."""
    red_suits = np.array([s in RED_SUITS for s in SUITS])
    fits = np.ones((len(redness), len(SUITS)))
    fits[redness >= th.red] = red_suits
    fits[(redness <= th.black) & (chroma < th.coloured)] = ~red_suits
    fit_up, fit_turned = ((p[:, SUIT_COLS] * fits).max(axis=1) for p in (upright, turned))
    better = turned[:, SUIT_COLS].max(axis=1) > upright[:, SUIT_COLS].max(axis=1)
    unfit = np.where(better, fit_turned, fit_up) < 0.5
    better ^= unfit & (np.where(better, fit_up, fit_turned) >= SURE_PIP)
    return np.asarray(np.where(better[:, None], turned, upright), np.float32)


class Blobs(NamedTuple):
    """The blobs of ink on a card's face, at half the canonical size, before any is named."""

    ink: NDArray[np.float32]
    size: tuple[int, int]  # width, height
    corner_reach: tuple[float, float]  # how far the index reaches from each corner
    patches: list[tuple[NDArray[np.float32], int]]  # each blob's ink alone, and its area
    centres: list[tuple[float, float]]  # fractions of the card's width and height
    redness: list[float]
    chromas: list[float]
    picture: bool
    washed: bool
    alike: int | None


PIP_LEVEL = 0.5
"""Ink (0 paper to 1) from which a pixel is part of a pip or a picture."""

SHADED_SHARE = 0.5
"""Least share of the pip level a pip's pixel in a shadow reaches against the shadow's
paper (:func:`vision.index.shadowed_paper`). The real photos with a shadow's soft edge
across them ("shadow across"): 146 -> 183 of 196 read (a band along the edge ran into a
pip, the pips were miscounted); as taken, blurred and rendered scenes alike."""

STRONG_INK = 0.8
"""Ink that the darkest of a card's print reaches on a card seen clearly: where less than
:data:`STRONG_SHARE` of the card reaches it, the whole card is paler (an overexposed or
hazy camera) and :data:`PIP_LEVEL` is lowered in proportion (:func:`pip_level`)."""

STRONG_SHARE = 0.005
"""Share of a card's pixels (the strongest of its ink) that decides how pale it is."""

PALEST = 0.6
"""Least fraction of :data:`PIP_LEVEL` a pale card's pips are looked for at."""


def pip_level(ink: NDArray[np.float32]) -> float:
    """The ink level at which the pips of a card with this ``ink`` are looked for: the
    usual :data:`PIP_LEVEL`, lower on a card whose strongest ink is paler than a clear
    card's. Overexposed, a heart's red pales to half ink and its pips fall apart at the
    usual level, though its index still reads (real photos changed as an overexposed or
    hazy camera would: 84.7 -> 89.3 % and 66.3 -> 87.8 % read; every rendered card and
    real photo as taken unchanged).

    >>> clear = np.zeros((100, 100), np.float32); clear[40:60, 40:60] = 0.9
    >>> pip_level(clear)
    0.5
    >>> pale = np.zeros((100, 100), np.float32); pale[40:60, 40:60] = 0.55
    >>> round(pip_level(pale), 3)
    0.344
    """
    strong = int(np.count_nonzero(ink >= STRONG_INK))
    if strong >= STRONG_SHARE * ink.size:
        return PIP_LEVEL  # (most cards: a count, not a percentile)
    palest = float(np.percentile(ink, 100.0 * (1.0 - STRONG_SHARE)))
    return PIP_LEVEL * min(1.0, max(PALEST, palest / STRONG_INK))


def blobs_of(card: Image, th: Thresholds, index: tuple[int, int] | None = None) -> Blobs:
    """Every blob of ink on a canonical card whose centre is away from the four corners
    (``index``: how far the index reaches from each; see :func:`read_field`)."""
    # pips are large: half the canonical resolution sees them, at a quarter of the cost
    card = np.asarray(cv2.resize(card, (card.shape[1] // 2, card.shape[0] // 2),
                                 interpolation=cv2.INTER_AREA), np.uint8)
    h, w = card.shape[:2]
    paper = paper_colour(card)
    ink, red, chroma = ink_red_and_chroma(card, paper)
    level = pip_level(ink)
    # not paper in a shadow, which reads as a band of ink along its edge
    mask = ((ink > level) & ~shadowed_paper(card, paper, SHADED_SHARE * level)).astype(np.uint8)
    washed = clipped_by_glare(card, ink, th)
    _, found, found_stats, found_centroids = cv2.connectedComponentsWithStats(
        mask, connectivity=8)
    labels = np.asarray(found, np.int32)
    stats, centroids = np.asarray(found_stats, np.int32), np.asarray(found_centroids, np.float64)
    # the index as measured (a jumbo index reaches far in), in all four corners: some
    # decks print four
    cw, chh = ((index[0] / 2 + 2.0, index[1] / 2 + 2.0) if index is not None
               else (CORNER_SQUARE[0] * w, CORNER_SQUARE[1] * h))
    blobs = []
    centres: list[tuple[float, float]] = []
    redness: list[float] = []
    chromas: list[float] = []
    picture = False
    keep = _worth_a_look(stats, centroids, (w, h), (cw, chh), th)
    # every blob's mean redness and chroma in one pass each over the ink, not the paper
    areas, inked = np.maximum(stats[:, cv2.CC_STAT_AREA], 1), np.flatnonzero(mask)
    mean_red, mean_chroma = (np.bincount(labels.ravel()[inked], weights=a.ravel()[inked],
                                         minlength=len(stats)) / areas for a in (red, chroma))
    for i in (np.flatnonzero(keep) + 1).tolist():
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if bw > 0.45 * w or bh > 0.4 * h:
            picture = True  # a court picture, an arm
            continue
        mine = labels[y:y + bh, x:x + bw] == i
        patch = np.asarray(ink[y:y + bh, x:x + bw] * mine, np.float32)
        blobs.append((patch, area))
        centres.append((float(centroids[i, 0]) / w, float(centroids[i, 1]) / h))
        redness.append(float(mean_red[i]))
        chromas.append(float(mean_chroma[i]))
    alike = (len(blobs) if blobs and not picture and len(blobs) <= 10 and _alike(blobs)
             else None)
    return Blobs(ink, (w, h), (cw, chh), blobs, centres, redness, chromas, picture, washed,
                  alike)


def _named(patches: list[NDArray[np.float32]], redness: list[float], chromas: list[float],
           th: Thresholds) -> NDArray[np.float32]:
    """Each blob's class probabilities from the index classifier, the way up it is surer
    of (a pip may be printed either way up: most decks turn those of the lower half)."""
    either = shipped_model().predict(features_of(patches + [p[::-1, ::-1] for p in patches]))
    return _surer_way_up(either[:len(patches)], either[len(patches):],
                         np.asarray(redness), np.asarray(chromas), th)


def read_field(card: Image, th: Thresholds, index: tuple[int, int] | None = None,
               blobs: Blobs | None = None) -> Field:
    """Count the pips of a canonical card, and see whether anything else is printed there.

    Every blob of ink whose centre is away from the four corners is shown to the index
    classifier, either way up (most decks turn the lower half's): one that it calls a suit
    is a pip. Nothing about where a design places its pips is assumed. Blobs that touch the
    card's edge (the table beyond a dewarp a little too large) and thin frames round the
    pips are left out. ``blobs``: the face's :func:`blobs_of`, where already found.
    """
    found = blobs if blobs is not None else blobs_of(card, th, index)
    patches, centres, redness, picture, washed, alike = (
        found.patches, found.centres, found.redness, found.picture, found.washed, found.alike)
    (w, h), (cw, chh) = found.size, found.corner_reach
    if not patches:
        return Field(0, 0, picture, None, washed)
    probs = _named([p for p, _ in patches], redness, found.chromas, th)
    suit_p = probs[:, SUIT_COLS].sum(axis=1)
    pip_areas = [float(a) for (_, a), p in zip(patches, suit_p, strict=True) if p >= 0.5]
    pip_area = float(np.median(pip_areas)) if pip_areas else 0.0
    pips = int((suit_p >= 0.5).sum())
    # a pip's suit counts where its shape fits its colour (red hearts and diamonds):
    # the classifier knows index glyphs better than large, blurred pips, and takes some
    # decks' round-lobed clubs for spades (such a pip, either way up, is a club)
    suits = np.array(probs[:, SUIT_COLS])
    for row, (patch, _) in zip(suits, patches, strict=True):
        _club_not_spade(row, patch)
    shapes = [SUITS[int(np.argmax(row))] for row, p in zip(suits, suit_p, strict=True)
              if p >= 0.5]
    colours = [r for r, p in zip(redness, suit_p, strict=True) if p >= 0.5]
    shapes = [shape for shape, r in zip(shapes, colours, strict=True)
              if (r >= th.red) == (shape in RED_SUITS) and (r >= th.red or r <= th.black)]
    black = [shape for shape in shapes if shape not in RED_SUITS]  # (each in black ink)
    common = max(set(shapes), key=shapes.count) if shapes else None
    suit = (common if common is not None and shapes.count(common) >= 0.8 * pips
            else None)
    others = sum(1 for p, (_, a) in zip(suit_p, patches, strict=True)
                 if p < 0.5 and a >= 0.5 * pip_area)
    big_other = any(p < 0.5 and a >= th.picture_blob * h * w
                    for p, (_, a) in zip(suit_p, patches, strict=True))
    both = min(sum(r >= th.red for r in redness), sum(r <= th.black for r in redness))
    if not washed and pip_area > 0 and not (picture or big_other) and (
            not alike or layout_rank(centres) is None):
        # (pips laid out as a whole rank's are all there: a faint blob is something else)
        washed = _faded_pip(found.ink, (w, h), (cw, chh), pip_area, th)
    side_pips = sum(1 for (x, _), p in zip(centres, suit_p, strict=True)
                    if p >= 0.5 and abs(x - 0.5) > SIDE_COLUMN)
    return Field(pips, others, picture or big_other, suit, washed, alike,
                 tuple(centres) if alike else (),
                 pooled_suit(suits, is_red(float(np.median(redness)), th),
                             th.pooled_suit) if alike else None, both >= TWO_FACES,
                 side_pips, black[0] if len(black) >= 2 and len(set(black)) == 1 else None)


SIDE_COLUMN = 0.12
"""How far from the middle of the card's width (a fraction of it) a pip's centre is in a
side column."""


def _club_not_spade(suits: NDArray[np.float32], patch: NDArray[np.float32]) -> None:
    """A blob's suit probabilities (:data:`vision.glyphs.SUITS` order) with a spade moved to
    the clubs where the blob, either way up, has a round-lobed club's notches."""
    spade, club = SUITS.index("S"), SUITS.index("C")
    if int(np.argmax(suits)) == spade and (
            lobed_like_a_club(patch) or lobed_like_a_club(patch[::-1, ::-1])):
        suits[club], suits[spade] = suits[club] + suits[spade], 0.0


def shows_plainly(found: Blobs, th: Thresholds, rank: str, suit: str) -> bool:
    """Whether a number card's face (``found``: its :func:`blobs_of`) plainly shows
    ``rank`` of ``suit``, for half what :func:`read_field` costs: as many blobs as the
    rank, alike in size and shape, laid out as its pips are (an ace's one in the middle),
    each of the suit's colour, clear of glare; and the largest, named either way up, the
    suit. Where it does, nothing on the face would deny the card (:func:`field_denies`);
    where it does not, the face may still fit: read it whole. A court's face is never
    plain (its picture may hold pips)."""
    if rank in COURTS:
        return False
    if found.washed or found.alike is None or rank != (
            "A" if found.alike == 1 else str(found.alike)):
        return False
    if not (layout_rank(found.centres) == rank or (
            rank == "A" and _alone_in_the_middle(found.centres))):
        return False
    red = suit in RED_SUITS
    if any((r >= th.red) != red or th.black < r < th.red for r in found.redness):
        return False
    i = max(range(len(found.patches)), key=lambda k: found.patches[k][1])  # the largest
    patch = found.patches[i][0]
    suits = np.array(_named([patch], [found.redness[i]], [found.chromas[i]], th)[0, SUIT_COLS])
    _club_not_spade(suits, patch)
    return bool(SUITS[int(np.argmax(suits))] == suit and float(suits.sum()) >= 0.5)


FADED_INK = 0.2
"""Ink level at which a pip paled by glare still shows (:func:`_faded_pip`)."""


def _faded_pip(ink: NDArray[np.float32], size: tuple[int, int], index: tuple[float, float],
               pip_area: float, th: Thresholds) -> bool:
    """Whether the face shows a pip paled by glare: a blob of faint ink about as large as
    the pips, with no ink of a pip's strength in it (glare spread over a card's white
    paper clips nothing darker, but it pales the ink under it)."""
    faint = (ink > FADED_INK).astype(np.uint8)
    _, found, found_stats, found_centroids = cv2.connectedComponentsWithStats(
        faint, connectivity=8)
    labels, stats = np.asarray(found, np.int32), np.asarray(found_stats, np.int32)
    keep = _worth_a_look(stats, np.asarray(found_centroids, np.float64), size, index, th)
    for i in (np.flatnonzero(keep) + 1).tolist():
        x, y, bw, bh, area = (int(v) for v in stats[i])
        mine = labels[y:y + bh, x:x + bw] == i
        if 0.5 * pip_area <= area <= 2.0 * pip_area and float(
                ink[y:y + bh, x:x + bw][mine].max()) <= 0.5:
            return True
    return False


def _worth_a_look(stats: NDArray[np.int32], centroids: NDArray[np.float64],
                  size: tuple[int, int], index: tuple[float, float],
                  th: Thresholds) -> NDArray[np.bool_]:
    """Which blobs (after the background, label 0) may be pips or a picture: specks,
    indices (``index``: how far they reach from each corner), blobs on the card's edge and
    thin frames or lines are left out at once (a noisy card has hundreds of specks)."""
    w, h = size
    x_, y_, w_, h_, a_ = (stats[1:, k] for k in range(5))
    cx_, cy_ = centroids[1:, 0], centroids[1:, 1]
    in_index = ((cx_ < index[0]) | (cx_ > w - index[0])) & (
        (cy_ < index[1]) | (cy_ > h - index[1]))
    # (a long line a few pixels wide, the shadow of the card's edge or a side of a frame,
    # is no picture; nor is a long band lying wholly within EDGE_BAND along one side)
    wide, tall = w_ > 0.3 * w, h_ > 0.3 * h
    line = (np.minimum(w_, h_) <= LINE_WIDTH * w) & (wide | tall)
    along = (wide & ((y_ + h_ <= EDGE_BAND * h) | (y_ >= (1 - EDGE_BAND) * h))) | (
        tall & ((x_ + w_ <= EDGE_BAND * w) | (x_ >= (1 - EDGE_BAND) * w)))
    keep: NDArray[np.bool_] = ~in_index & (a_ >= th.least_pip * h * w) & (x_ > 0) & (
        y_ > 0) & (x_ + w_ < w) & (y_ + h_ < h) & (a_ >= 0.15 * w_ * h_) & ~line & ~along
    return keep


def is_red(redness: float, th: Thresholds) -> bool | None:
    """Whether ink is red (``None``: neither clearly red nor clearly black)."""
    return True if redness >= th.red else False if redness <= th.black else None


def counted_rank(field: Field) -> str | None:
    """The rank that the face's pips count out by their sizes (:attr:`Field.alike`), or
    ``None`` when they do not count cleanly.

    >>> counted_rank(Field(0, 0, False, alike=1)), counted_rank(Field(3, 4, True, alike=7))
    ('A', '7')
    >>> counted_rank(Field(1, 6, True)) is None
    True
    """
    if not field.alike:
        return None
    return "A" if field.alike == 1 else str(field.alike)


def field_denies(rank: str, field: Field, partly_hidden: bool = False,
                 suit: str | None = None, both_corners: bool = False,
                 large_index: bool = False) -> bool:
    """Whether what the card shows away from its corners rules out ``rank`` (and
    ``suit``). Pips are never required (glare or a finger may hide them), but those that
    are seen must fit: no more than the rank, not clearly fewer unless part of the card
    is hidden (one of its corners could not be read) or washed out by glare (and then
    not laid out as another rank's whole layout: a finger leaves part of the rank's own),
    and of the suit read (a pip is many times the index's suit: spades and clubs two
    pixels high look alike, their pips do not). Where ``both_corners`` must read (a
    small card, or one over or under another), the suit its blurred pips make together
    must fit too, and a single pip's (on a larger card alone the index is the clearer);
    neither where the index read is ``large_index`` (:data:`vision.standard.LARGE_INDEX`),
    its suit as large as the pips or larger, nor a single pip's suit then (a jumbo-index
    ace prints its one pip smaller than the index's suit: small, it blurs into a club),
    nor fewer pips than the rank (a small jumbo-index five's small pips blot together).
    A number card's face in many pieces beside a picture (:data:`BUSY_FACE`) is a court's,
    and so is a picture beside no more than half the pips where both corners must read,
    neither hidden, or beside red and black blobs; one blob alone in the middle of a face
    clear of glare is an ace's, no court's. Pips side by side half-way down the sides
    are a six's or a higher rank's (:func:`vision.pips.sides_at_middle`), and a pip off
    the middle column is no two's or three's.

    >>> clubs = Field(4, 0, False, alike=4, pooled_suit="C")  # each pip unclear alone
    >>> field_denies("4", clubs, suit="S")
    False
    >>> field_denies("4", clubs, suit="S", both_corners=True)
    True
    >>> field_denies("7", clubs, suit="C")  # four pips alike in a seven
    True
    >>> five = ((0.3, 0.2), (0.7, 0.2), (0.5, 0.5), (0.3, 0.8), (0.7, 0.8))
    >>> field_denies("J", Field(2, 3, True, alike=5, where=five))  # a five's pips
    True
    >>> three = ((0.5, 0.2), (0.5, 0.5), (0.5, 0.8))
    >>> field_denies("5", Field(3, 0, False, alike=3, where=three), partly_hidden=True)
    True
    >>> field_denies("3", Field(2, 8, True))  # a jack's picture in pieces
    True
    >>> ace = Field(0, 1, True, alike=1, where=((0.5, 0.5),))  # one big pip, unnamed
    >>> field_denies("J", ace)
    True
    >>> washed = Field(0, 1, True, washed=True, alike=1, where=((0.5, 0.5),))
    >>> field_denies("J", washed)  # the picture may be washed out by glare
    False
    >>> top = ((0.5, 0.24),)  # one pip, a three's top one: the rest under glare?
    >>> field_denies("3", Field(1, 0, False, "D", washed=True, alike=1, where=top))
    False
    >>> field_denies("3", Field(1, 0, False, "D", alike=1, where=top))
    True
    >>> field_denies("3", Field(3, 0, False, "H"), partly_hidden=True)
    False
    >>> field_denies("3", Field(3, 0, False, "H", side_pips=2), partly_hidden=True)
    True
    >>> court = Field(1, 1, True)  # a picture and two blobs beside it
    >>> field_denies("8", court, both_corners=True), field_denies("8", court)
    (True, False)
    >>> field_denies("4", Field(2, 3, True), both_corners=True)  # five blobs and a picture
    True
    >>> field_denies("8", Field(2, 5, True), both_corners=True)  # a queen: two pips of eight
    True
    >>> field_denies("4", Field(4, 3, True), both_corners=True)  # four pips of no one suit
    True
    >>> field_denies("K", Field(1, 0, False, "D")), field_denies("K", Field(1, 0, True, "D"))
    (True, False)
    >>> small = Field(3, 0, False, alike=3, where=three, pooled_suit="C")  # spades pooled
    >>> [field_denies("3", small, suit="S", both_corners=True, large_index=large)
    ...  for large in (False, True)]
    [True, False]
    """
    if suit is not None and field.suit is not None and field.suit != suit and (
            field.pips >= 2 or both_corners or (rank == "A" and an_aces_face(field))) and not (
            large_index and field.pips < 2):
        # (one pip, many times a small card's index or an ace's alone, is the clearer suit;
        # not beside a jumbo index, whose suit is as large)
        return True
    if (both_corners and not large_index and suit is not None
            and field.pooled_suit not in (None, suit)):
        return True
    counted = counted_rank(field)
    # nothing the reader sees may hide pips: no card over it (where both corners must
    # read, one may lie over it) and no blob or glare on its face
    nothing_hides = not (both_corners or field.others or field.picture or field.washed)
    if counted is not None and rank not in COURTS and counted != rank and (
            rank == "A" or (counted == "A" and (not field.washed or laid_out_whole(field)))
            or (counted != "A" and int(counted) > int(rank))
            or not (partly_hidden or field.washed)
            or (layout_rank(field.where, LEVEL_TO_DENY) == counted
                and (nothing_hides or not hidden_within(counted, rank)))):
        # pips alike in size and shape, counting another rank (fewer are the rank's only
        # where some may be hidden, and those seen are not laid out as another rank's, or
        # are, with something that may hide the rest: a card over it, or a blob over the
        # face; a hazy four's index read 10 in one corner, its face four pips alone)
        return True
    if rank in COURTS:
        # a number card's pips: counted by the classifier, or alike and laid out as a rank
        # (two or three, only where nothing else shows: some courts print two or three
        # pips in their picture); or an ace's one pip alone, clear of glare (a Russian ace
        # read as a J: its index is a Cyrillic letter; a court under a hand is refused,
        # never named an ace)
        laid_out = counted not in (None, "A") and layout_rank(field.where) == counted
        bare = not (field.picture or field.others or field.washed)
        pips_alone = field.pips == field.alike and bare
        # nor one pip and nothing else, in full view: a court prints a picture (a small AD
        # read KD, a speck by its edge leaving the pip not alone)
        return (field.pips >= 4 and not field.picture) or (
            laid_out and (counted not in ("2", "3") or pips_alone)) or (
            an_aces_face(field) and not field.washed) or (
            field.pips == 1 and bare and not partly_hidden)
    if rank == "A":
        # one pip, however ornate (a picture); pips beside a picture are a court's
        return field.pips >= 2
    expected = int(rank)
    if expected <= 3 and field.side_pips:
        # a pip off the middle column: a two's and a three's are all in it (a nine under
        # a hand, its index read as a 3 and three of its side pips in view)
        return True
    if (partly_hidden or field.picture) and field.both_colours:
        # one corner read, the other not, and two cards' pips: an outline round two cards;
        # or a picture beside red and black blobs: a court's (a number card's pips are of
        # one colour and it prints no picture)
        return True
    if expected <= BARE_SIDES_UP_TO and field.alike and sides_at_middle(field.where):
        # pips beside each other half-way down the sides: a six's or more (an outline
        # through the index cut a 6 into a 5, an 8 into a 3)
        return True
    return field.pips > expected or (
        field.pips >= 2 and field.pips + field.others < expected and not field.picture
        and not partly_hidden and not field.washed
        # (nor on a small card beside a jumbo index: its pips, smaller than the index,
        # blot into each other and into nothing)
        and not (both_corners and large_index)) or (
        field.picture and field.pips + field.others >= expected + BUSY_FACE) or (
        # where both corners read, a picture beside pips of no one suit (its pieces named
        # suits: a small QD read 4D); or clear of glare (a small 10C under it shows half its
        # pips and a picture), beside no more than half the pips, or more blobs than a two
        # to a five's (a small court's blotted letters read as an 8, a 10, a 6 or a 3)
        field.picture and both_corners and not partly_hidden and (
            (field.suit is None and field.pips >= 3) or (not field.washed and (
                2 * (field.pips + field.others) <= expected
                or (expected >= 6 and 2 * field.pips <= expected)
                or (expected <= 5 and field.pips + field.others > expected)))))


def laid_out_whole(field: Field) -> bool:
    """Whether the pips alike make a whole rank's layout (an ace's one middle pip
    included): where glare washes the face, none of that rank's pips is hidden."""
    return layout_rank(field.where) is not None or an_aces_face(field)


def an_aces_face(field: Field) -> bool:
    """Whether the face shows one blob alone, in its middle, and no picture: an ace's
    (its pip however ornate; whether the classifier names it or not)."""
    return field.alike == 1 and _alone_in_the_middle(field.where)


def _alone_in_the_middle(centres: Sequence[tuple[float, float]]) -> bool:
    """Whether there is one blob, its centre (fractions of the card's width and height)
    within :data:`ACE_MIDDLE` of the card's middle."""
    return len(centres) == 1 and all(abs(v - 0.5) < ACE_MIDDLE for v in centres[0])


ACE_MIDDLE = 0.1
"""How far from the middle of the card an ace's pip may lie, as a part of its width and
height (105 aces of 33 published designs: within 0.06, most within 0.02; no court's face
is one blob)."""


def face_shows(rank: str, field: Field) -> bool:
    """Whether a small card's face, clear of glare, shows ``rank`` itself: a number card
    pips counting it (a court read as a number card shows a picture, some of whose pieces
    may pass for pips), a court a picture."""
    if field.washed:
        return False
    if rank in COURTS:
        return field.picture
    # (pips alike in size are no picture's pieces; those the classifier names are, beside one)
    return rank == counted_rank(field) or (
        not field.picture and rank == ("A" if field.pips == 1 else str(field.pips)))
