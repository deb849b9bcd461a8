"""A spade or a club read in a blurred index, read again sharpened.

Blurred a few pixels, a spade's point rounds and its lobes swell until the index model
takes it for a club, surely, in both corners and in the pips alike (4 of the real photos'
spades blurred 2.5 px were named clubs). An unsharp mask gives the shape back: the same
corners read sharpened named the suit of every one of them, and of the blurred clubs
too. So a black card whose index is blurred (:func:`index_blur`) is read again sharpened,
and the suit the sharpened corners agree on is the card's (:func:`suit_read_sharpened`).

Measured: the real photos blurred 2.5 px, 4 spades named clubs made right, nothing else
changed; 34 published designs' black cards alone, blurred 2-3 px, 5 made right and 1
made wrong; rendered published designs under the benchmark's blur, noise and JPEG (480
scenes), 1 made wrong (a JC that both corners read surely, and sharpened surely a JS),
none made right. Sharpening is no oracle: it is asked only where the index is blurred
and both corners are sure of the one suit.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.decks import BLACK_SUITS
from vision.face import COURTS, read_field
from vision.glyphs import features_of, rank_of
from vision.index import Candidate
from vision.readings import CornerReading, Reading
from vision.refusal import Refusal
from vision.small_courts import BLACK_SUIT_NAMES, SmallGlyphModel
from vision.thresholds import Thresholds

Image = NDArray[np.uint8]

BLURRED_INDEX = 1.8
"""Blur of an index (:func:`index_blur`, canonical pixels) from which a spade or a club is
read again sharpened. The real photos' black cards as taken measure 0.7-1.5, blurred
1.5 px 0.9-2.7, blurred 2.5 px 1.2-3.4; the spades named clubs measured 2.4-2.6."""

SHARPENING = (3.0, 2.0)
"""How much of the card, and over what blur (canonical pixels), is added back unblurred to
read a blurred black index again (:func:`unsharp_masked`). The real photos' black cards
blurred 2.5 px, each corner whose rank was read: its suit right 102 of 106 as they are,
129 of 131 so sharpened (and all 8 corners of the spades named clubs); as taken or blurred
1.5 px, 349 of 353 as they are, 363 of 367 sharpened."""

SURELY_MISREAD = 0.75
"""Least suit probability of each corner that read the card's rank for a blurred black card
to be read again sharpened, and of each sharpened corner to rename its suit. The index model
is sure of a blurred spade's club (0.86-0.99 in the real photos); a card named though a
corner was unsure of its suit was named by more than the index (the other corner, its
pips), and read sharpened, unsure corners were wrong as often as right (rendered published
designs blurred 2-3 px: 2 of 3). A sharpened corner as unsure renamed a held-out design's
5S a 5C (its corners read spades at 0.88 and 0.91 blurred, clubs at 0.68 and 0.72
sharpened, its five large pips spades; :attr:`Thresholds.glyph`, 0.6, was the bar before):
the real photos and their changes name no card otherwise."""

SMOOTHED_FIRST = 0.8
"""Blur (canonical pixels) taken out of the card's noise before it is sharpened: the mask
makes a noisy, JPEG-blocked index's suits wrong too (rendered published designs blurred,
with noise and JPEG, 221 black cards named: 2 of them made the other suit unsmoothed,
none smoothed)."""


def unsharp_masked(card: Image, amount: float, sigma: float) -> Image:
    """``card`` with ``amount`` times its detail finer than a ``sigma`` blur added back.

    >>> step = np.repeat(np.array([[60] * 8 + [200] * 8], np.uint8), 4, axis=0)
    >>> soft = cv2.GaussianBlur(step, (0, 0), 2.0)
    >>> int(np.abs(np.diff(soft[0].astype(int))).max()) < int(
    ...     np.abs(np.diff(unsharp_masked(soft, 3.0, 2.0)[0].astype(int))).max())
    True
    """
    blurred = cv2.GaussianBlur(card, (0, 0), sigma)
    return np.asarray(cv2.addWeighted(card, 1 + amount, blurred, -amount, 0), np.uint8)


def index_blur(card: Image, reading: CornerReading) -> float:
    """How blurred the index of ``reading``'s corner is: the Gaussian blur (canonical
    pixels) that turns a sharp step from its ink to its paper into the steepest slope
    there (a blur ``s`` turns a step ``c`` into a slope of at most ``c / (s * sqrt(2 pi))``;
    the slope is measured over 2 pixels, so a sharp step measures 0.8).

    >>> from vision.readings import CornerReading
    >>> index = CornerReading("7", "S", 1.0, 1.0, True, 0, (30, 40))
    >>> card = np.full((280, 200, 3), 230, np.uint8)
    >>> card[12:30, 8:22] = 30
    >>> round(index_blur(card, index), 1)
    0.8
    >>> round(index_blur(cv2.GaussianBlur(card, (0, 0), 2.5), index), 1)
    2.6
    """
    return _corner_blur(card, reading.corner, reading.extent)


def _corner_blur(card: Image, corner: int, extent: tuple[int, int]) -> float:
    """:func:`index_blur` of the window ``extent`` (width, height) in ``corner``."""
    width, height = max(extent[0], 8), max(extent[1], 8)
    # (the bottom-right corner's index is printed upside down)
    seen = card[:height, :width] if corner == 0 else card[::-1, ::-1][:height, :width]
    window = cv2.cvtColor(np.ascontiguousarray(seen), cv2.COLOR_BGR2GRAY).astype(np.float32)
    paper, ink = _ranked(window, (0.95, 0.02))
    slope = np.hypot(cv2.Sobel(window, cv2.CV_32F, 1, 0), cv2.Sobel(window, cv2.CV_32F, 0, 1))
    (steepest,) = _ranked(slope, (0.995,))
    # (the 3x3 Sobel weighs a slope 8 times)
    return (paper - ink) / (math.sqrt(2 * math.pi) * max(steepest / 8, 1e-3))


TOO_BLURRED = 2.8
"""Blur of both index corners (:func:`index_blur` over :data:`INDEX_WINDOW`, canonical
pixels) from which a spade or a club on a card narrower than :data:`BLURRED_BELOW_PX` is
named only where the blurred-suit classifier is sure of its suit too
(:func:`black_suit_seen`)."""

BLURRED_BELOW_PX = 130.0
"""Short side (image pixels) of the cards :data:`TOO_BLURRED` holds for. About 100 px wide
and blurred, a spade's index has lost its point to the few pixels it has, and no
sharpening gives it back: the real photos halved and blurred 1.5 px ("half, blur 1.5 px")
named 13 of the webcam deck's spades clubs, at 0.86-0.97. Refused so (and not guessed
round, :data:`vision.pipeline._NO_PILE`): 3 wrong (the mislabelled card and two spades
measured just under 2.8) of 138 named, 156 -> 135 read (black cards there left unnamed,
clubs too; at 2.5, 2 wrong and 134 read, but 11 more right black cards of rendered scenes
under blur and noise unnamed). Rendered scenes at seeds 77000: 1,400 -> 1,395 of 1,416
read (the lighting row's blurred black cards, one overlapped card no longer guessed),
none wrong. Wider cards keep enough pixels for :func:`suit_read_sharpened`: the photos
blurred 2.5 px (cards about 200 px wide) read alike (169 of 196; 155 if wider cards were
held too). Every other change of the photos read alike. Since the thirty-fifth step such
cards are named where the blurred-suit classifier is sure of the suit read
(:func:`black_suit_seen`)."""

INDEX_WINDOW = (40, 84)
"""The corner window (canonical pixels, width and height) whose blur is measured where no
reading gives the index's own extent."""

BLURRED_SUITS_MODEL_PATH = Path(__file__).with_name("models") / "blurred_suits.npz"

BLURRED_SUIT_MARGIN = 0.3
"""How much more the blurred-suit classifier must score the suit read than the other black
suit, on average over the two index corners, to second it (:func:`black_suit_seen`).
Held-out designs' black cards 90-130 px wide in rendered scenes blurred 1-2.6 px and in the
lighting row (seeds 79100-79339 and 80000-80039: 530 cards whose index blurs 1.8 canonical
px or more) and the real photos' black cards under eight changes (49): it was sure of the
other suit than the card's for none, and of the card's for 242 and 18 (both corners asked
for 0.3 each: 228 and 14). Of our renderer's black cards blurred 2.4-2.8 px (lighting row,
seeds 81000-83039) it leaned to the wrong suit for 22 of 38, by up to 0.33: it is asked
only to second the index classifier, never against it."""

LONE_CORNER_MARGIN = 0.8
""":data:`BLURRED_SUIT_MARGIN` where one index corner alone reads the card's rank (the
sets above: 6 and 4 more suits named, none wrong)."""

TORN = 0.1
"""A corner leaning this much or more to the other suit than the two corners together
leaves the suit unweighed (:func:`blurred_suit_lead`)."""


@lru_cache(maxsize=1)
def shipped_blurred_suits() -> SmallGlyphModel:
    """The blurred black-suit model that ships with the package (loaded once): a ridge
    classifier over the index classifier's features, trained on the spades' and clubs'
    suit glyphs of the training designs' cards of ordinary size in blurred, noisy frames
    (``scripts/train_small_courts.py``; never the benchmark's held-out designs)."""
    return SmallGlyphModel.load(BLURRED_SUITS_MODEL_PATH, BLACK_SUIT_NAMES)


def blurred_suit_lead(looked: list[tuple[Candidate, CornerReading]], rank: str,
                      th: Thresholds) -> tuple[float, int] | None:
    """How much more the blurred-suit classifier scores a spade than a club (negative: a
    club), on average over the index corners of a card of ``rank`` (their candidates
    ``looked``, each with what the reader read in it; each corner's black candidates whose
    rank glyph reads ``rank``, their scores averaged), and how many corners that is;
    ``None`` where no corner reads ``rank`` or one leans :data:`TORN` or more the other
    way.

    >>> blurred_suit_lead([], "9", Thresholds()) is None
    True
    """
    # (the rank as printed, as the reader read it: not where a Cyrillic letter leans)
    black = [(c, rank_of(r.letter)) for c, r in looked if c.redness <= th.black]
    if not black:
        return None
    scores = shipped_blurred_suits().scores_of(features_of([c.suit for c, _ in black]))
    spade_over_club = (scores[:, BLACK_SUIT_NAMES.index("S")]
                       - scores[:, BLACK_SUIT_NAMES.index("C")])
    leads = []
    for corner in (0, 1):  # (top-left and bottom-right, as vision.index cuts them)
        mine = [lead for (c, read), lead in zip(black, spade_over_club.tolist(), strict=True)
                if read == rank and c.corner == corner]
        if mine:
            leads.append(sum(mine) / len(mine))
    if not leads:
        return None
    lead = sum(leads) / len(leads)
    if any(math.copysign(1.0, lead) * one <= -TORN for one in leads):
        return None
    return lead, len(leads)


def black_suit_seen(named: Reading, card: Image, card_px: float,
                    looked: Callable[[], list[tuple[Candidate, CornerReading]]]) -> Reading:
    """``named``, or unnamed for its suit where it is a spade or a club on a card
    ``card_px`` wide (image pixels, :data:`BLURRED_BELOW_PX` or less, not a small card,
    which is read its own way) whose both index corners blur :data:`TOO_BLURRED` or more,
    unless the blurred-suit classifier (:func:`blurred_suit_lead`, the corners' candidates
    ``looked``) is sure of ``named``'s suit too (:data:`BLURRED_SUIT_MARGIN`). Two readers
    taught apart must agree: each was seen wrong where the other was right (the index
    classifier on a webcam deck's spades halved and blurred, read as clubs; this one on our
    renderer's blurred spades and clubs).

    >>> card = np.full((280, 200, 3), 230, np.uint8); card[12:30, 8:22] = 30
    >>> card[-30:-12, -22:-8] = 30
    >>> blurred = cv2.GaussianBlur(card, (0, 0), 3.5)
    >>> black_suit_seen(Reading("9S", 0.97), blurred, 100, lambda: []).reason.value
    'suit unclear'
    >>> black_suit_seen(Reading("9S", 0.97), card, 100, lambda: []).card, black_suit_seen(
    ...     Reading("9S", 0.97), blurred, 200, lambda: []).card
    ('9S', '9S')
    """
    if (named.card is None or named.card[-1] not in BLACK_SUITS
            or not Thresholds.small_card_px <= card_px < BLURRED_BELOW_PX):
        return named
    if min(_corner_blur(card, corner, INDEX_WINDOW) for corner in (0, 1)) < TOO_BLURRED:
        return named
    weighed = blurred_suit_lead(looked(), named.card[:-1], Thresholds())
    if weighed is not None:
        lead, corners = weighed
        spade = named.card[-1] == "S"
        if (lead if spade else -lead) >= (
                BLURRED_SUIT_MARGIN if corners == 2 else LONE_CORNER_MARGIN):
            return named
    return Reading(None, 0.0, Refusal.SUIT_UNCLEAR)


def _ranked(values: NDArray[np.float32], fractions: tuple[float, ...]) -> list[float]:
    """The values at these fractions of the way up ``values`` sorted (a partition, not a
    sort: the index of every black card is measured)."""
    flat = values.ravel()
    at = [round(f * (flat.size - 1)) for f in fractions]
    ranked = np.partition(flat, at)
    return [float(ranked[k]) for k in at]


def suit_read_sharpened(named: Reading, card: Image, readings: list[CornerReading],
                        read_again: Callable[[Image], list[CornerReading]],
                        face_suit: Callable[[], str | None] | None = None) -> Reading:
    """``named`` (a card read from ``card``'s corners, ``readings``), or where it is a spade
    or a club whose index is blurred, the suit its corners read sharpened say
    (``read_again``: the same corners' reading of another image of the card).

    Both sharpened corners reading the rank in the other black suit name the card in it;
    otherwise ``named`` stands (a sharpened noisy index may read one corner either way:
    refusing such cards left 9 of 221 rendered black cards blurred with noise unnamed,
    all named right before); and a court whose face's large suit signs (``face_suit``)
    are of ``named``'s suit stands too (a held-out design's QC under uneven light, its
    index read right at 0.92, was named a QS so, its large clubs in view; a number card's
    pips blur as its index does: a real 7S blurred 2.5 px showed clubs in both). A number
    card whose pips, sharpened alike, are nearly all of ``named``'s suit is left unnamed: the
    sharpening drew spades out of a rendered 10C's and 7C's clubs under uneven light."""
    if named.card is None or named.card[-1] not in BLACK_SUITS:
        return named
    rank, suit = named.card[:-1], named.card[-1]
    (other,) = BLACK_SUITS - {suit}
    read = [r for r in readings if r.rank == rank]
    if any(r.suit == other or r.suit_p < SURELY_MISREAD for r in read):
        return named  # (a card named in spite of a corner torn or unsure was named by more
        # than its index: the corners' read sharpened do no better there)
    if not any(index_blur(card, r) >= BLURRED_INDEX for r in read if r.extent[0] > 0):
        return named
    smoothed = np.asarray(cv2.GaussianBlur(card, (0, 0), SMOOTHED_FIRST), np.uint8)
    sharpened = unsharp_masked(smoothed, *SHARPENING)
    said = [r for r in read_again(sharpened)
            if r.rank == rank and r.colour_ok and r.suit_p >= SURELY_MISREAD]
    if len(said) == 2 and all(r.suit == other for r in said) and (
            rank not in COURTS or face_suit is None or face_suit() != suit):
        if rank not in COURTS and read_field(sharpened, Thresholds()).suit == suit:
            return Reading(None, 0.0, Refusal.SUIT_UNCLEAR)
        return Reading(rank + other, min(r.p for r in said))
    return named
