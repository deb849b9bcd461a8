"""A standard card named by what its face shows where its index does not read: its pips'
count, layout and suit (:func:`read_by_pips`), or their suit where both corners read the
rank but not the suit (:func:`suited_by_pips`). Pips never name a card against what its
index reads clearly; a small card's index, a blot of a few pixels, is asked less.
"""

from __future__ import annotations

from collections.abc import Callable

from vision.decks import BLACK_SUITS
from vision.face import (
    COURTS,
    Blobs,
    Field,
    an_aces_face,
    counted_rank,
    face_shows,
    field_denies,
)
from vision.index import INDEX_INSET
from vision.pips import layout_rank, pip_sized
from vision.readings import CornerReading, Reading
from vision.small_courts import NUMBER_RANKS
from vision.thresholds import Thresholds


def read_by_pips(face: Callable[[], Field], readings: list[CornerReading], th: Thresholds,
                 both_corners: bool, small: bool, whole: Callable[[], Blobs],
                 plain: Callable[[], Field]) -> Reading | None:
    """A number card named by its pips alone where its index could not be read: blobs one
    size and shape, as many as the rank (two, each named the suit alone and both together,
    on a ``small`` card read upright, or where the ``whole`` face, corners included, shows
    no other pip-sized blob), laid out as that rank's, of one suit together
    (:attr:`Field.pooled_suit`, or most of them one by one), nothing else on the face, no
    corner leaning to another rank (where ``both_corners`` must read, reading another card
    clear of the outline: read a quarter round, an oblique card's index is stretched, a 3
    read as a 7 surely, or cut, a 3H as a 9H; a ``small`` card's not at all) or suit (where
    ``both_corners`` must read, a two's only, or both corners reading the other black suit:
    :func:`_black_suit_against_both`): a small card's index is a blot (a nine's
    read as a 3 surely, spades as clubs), its pips many times larger; they name it where
    its corners disagree too (where both read one card and the pips another, only a
    small card whose pips are of the suit both read: see
    :func:`vision.standard.identify_standard`). A small ace, by its face
    (:func:`_an_ace_by_its_face`). Never a card whose ``plain`` face, beyond the usual
    index corners, shows more pips alike than its rank (:func:`shows_more_pips`:
    a small 9H on wood, its index ink reaching over the pips, one pip left in the middle,
    was named AH by its "ace's face")."""
    field = face()
    if small and _an_ace_by_its_face(field, readings, th):
        return None if shows_more_pips(plain(), "A") else Reading(f"A{field.suit}", th.glyph)
    suit = field.pooled_suit or (field.suit if 2 * field.pips >= (field.alike or 0) else None)
    two = field.alike == field.pips == 2 and field.suit == field.pooled_suit and (
        small or pip_sized([a for _, a in whole().patches]) == 2)
    if (field.alike or 0) < (2 if two else 3) or field.washed or suit is None or (
            field.suit not in (None, suit)):
        return None
    rank = layout_rank(field.where)
    if rank is None or rank != counted_rank(field):
        return None
    # (where both corners must read, a corner's other suit counts for a two's pips, or
    # where both read the other black suit)
    suit_rivals = two or not both_corners or _black_suit_against_both(suit, readings, th)
    if any(r.colour_ok and ((r.rank != rank and r.rank_p >= th.rival and not small
                             and (not both_corners or (r.suit_p >= th.rival
                                                       and r.inset >= INDEX_INSET)))
                            or (r.suit != suit and r.suit_p >= th.rival and suit_rivals))
           for r in readings):
        return None
    return None if shows_more_pips(plain(), rank) else Reading(rank + suit, th.glyph)


def _black_suit_against_both(suit: str, readings: list[CornerReading], th: Thresholds,
                             ) -> bool:
    """Whether the pips' black ``suit`` is the other black suit than both corners read
    clearly (``th.rival``) in black ink: a small spade's pips, a few pixels, blur into
    clubs as readily as its index (real photos a third of their size saved as JPEG: three
    spades named clubs so, of 196 cards), and two corners agreeing are the surer.

    >>> spade = CornerReading("3", "S", 1.0, 0.95, True, 0)
    >>> both = [spade, CornerReading("5", "S", 0.8, 0.99, True, 1)]
    >>> _black_suit_against_both("C", both, Thresholds())
    True
    >>> _black_suit_against_both("C", both[:1], Thresholds())  # one corner is a blot
    False
    """
    return len(readings) >= 2 and all(
        {r.suit, suit} == BLACK_SUITS and r.colour_ok and r.suit_p >= th.rival
        for r in readings)


def small_by_pips(pips: Callable[[], Reading | None], suit: str, small: bool,
                  ) -> Reading | None:
    """A ``small`` card whose face denies what its corners read, named by its pips
    (``pips``: :func:`read_by_pips` of it) where they are of the very ``suit`` the corners
    read: its index is a blot of a few pixels (a 10 whose 1 blurred away read "2" in both
    corners), its pips many times larger. Never pips of another suit than both corners
    read: a real 7S's pips blurred 2.5 px showed clubs, and a jumbo index's suit is as
    large as the pips (a small 2S of that design, its two blurred pips read as clubs)."""
    counted = pips() if small else None
    return counted if counted is not None and counted.card is not None and (
        counted.card[-1] == suit) else None


def no_reading() -> None:
    """No card named (where a card may not be named by its pips)."""
    return None


def _an_ace_by_its_face(field: Field, readings: list[CornerReading], th: Thresholds) -> bool:
    """Whether a small card's face is an ace's of the suit its one pip is named: that pip
    alone, in the middle, clear of glare; a corner reads its suit, none another (a small
    ace's blotted A reads as a 5 or an 8, surely; no number card's face is one pip)."""
    return field.suit is not None and field.pips == 1 and not (
        field.others or field.picture or field.washed) and an_aces_face(field) and any(
        r.suit == field.suit and r.colour_ok and r.suit_p >= th.glyph for r in readings
        ) and not any(r.suit != field.suit and r.colour_ok and r.suit_p >= th.rival
                      for r in readings)


def suited_by_pips(face: Callable[[], Field], readings: list[CornerReading],
                   th: Thresholds, blobs: Callable[[], Blobs] | None = None,
                   ) -> Reading | None:
    """A card whose two corners read one rank but not one suit (spades and clubs a few
    pixels high, or blurred, look alike), its suit told by its pips, which are many times
    its index: the suit they are nearly all of (or, red, make together: blurred black
    pips pooled read clubs for a real 8S a third of its size, its corners split between
    spades and clubs), and one that a corner reads in ink of its colour. Not on a card
    over or under another (another card's pips may lie on its face). Nothing away from the
    corners may deny the card; a number card's pips must count its rank, and a court must
    show a picture. Not an ace of clubs by a large ornate pip (``blobs``: the face's)
    where a corner reads a spade surely: decks decorate their ace of spades, and the
    classifier may take it for a club.
    """
    if len(readings) < 2 or len({r.rank for r in readings}) > 1 or any(
            r.rank_p < th.agreeing_glyph for r in readings):
        return None
    rank = readings[0].rank
    if rank in COURTS and any(r.rank_p < th.glyph for r in readings):
        return None  # a court's letter, a blot, leans to another court easily
    field = face()
    if not face_shows(rank, field) or (
            None not in (field.suit, field.pooled_suit) and field.suit != field.pooled_suit):
        return None
    suit = field.suit or field.pooled_suit
    if suit is None or (suit in BLACK_SUITS and field.suit is None) or not any(
            r.suit == suit and r.colour_ok and r.suit_p >= th.leaning
            for r in readings) or field_denies(
            rank, field, suit=suit, both_corners=True):
        return None
    if rank + suit == "AC" and blobs is not None and any(
            r.suit == "S" and r.colour_ok and r.suit_p >= th.glyph for r in readings):
        found = blobs()
        width, height = found.size
        if max((a for _, a in found.patches), default=0) >= ORNATE_PIP * width * height:
            return None
    return Reading(rank + suit, min(min(r.rank_p for r in readings), th.glyph))


ORNATE_PIP = 0.05
"""Least part of a card's face an ornate ace's pip covers. A usual ace's pip covers
1.2-2.5 % of it (34 published designs, 55 px across, aces of spades and clubs), the
ornate aces of spades of seven 6-9 % (and one design's ace of clubs, 7 %)."""


INDEX_SUITS = 2
"""Suit signs of a large index that reach beyond the usual index corners, where the face
beyond them is counted: the classifier calls them suits, as it calls the pips."""


def shows_more_pips(field: Field, rank: str) -> bool:
    """Whether ``field`` shows more pips alike than a card of ``rank`` has (an ace one; a
    court none that counts), or more blobs called a suit than the rank's pips and a large
    index's two suit signs (:data:`INDEX_SUITS`; its pips and signs are not alike in size):
    where it is the face beyond the usual index corners, ink read as an index that reached
    over pips left too few counted beside it (a small jumbo-index 5H, its index reaching
    over the pips beside it, one pip left in the middle, was named AH by its "ace's face").

    >>> shows_more_pips(Field(7, 0, False, "H", alike=7), "A")
    True
    >>> shows_more_pips(Field(7, 0, False, "H", alike=7), "7"), shows_more_pips(
    ...     Field(7, 0, False, "H", alike=7), "K")
    (False, False)
    >>> shows_more_pips(Field(7, 0, False, "H"), "A"), shows_more_pips(Field(3, 0, False, "H"), "A")
    (True, False)
    """
    if rank in COURTS:
        return False
    count = 1 if rank == "A" else int(rank)
    return (field.alike is not None and field.alike > count) or field.pips > count + INDEX_SUITS


def more_read_surely(readings: list[CornerReading], counted: str, th: Thresholds,
                     where: tuple[tuple[float, float], ...] = ()) -> bool:
    """Whether a corner reads a number rank above the one the pips count (``counted``) as
    surely as a hidden corner's card is named (:attr:`Thresholds.hidden_corner`), in ink of
    its suit's colour, where the pips (centred at ``where``: :attr:`Field.where`) are not
    laid out as the counted rank's: an outline that cuts a card, a hand or a card over it
    hide pips, and nothing adds any (a 6S lying over two cards, its outline cut across its
    top, its 6 read there as a 5: five pips, in no five's layout, settled a 5S, the other
    corner reading 6S at 1.0). Pips laid out whole as the rank they count are that rank's
    (a real 4D, one corner read as a 10D surely, its four pips at a four's places).

    >>> six = CornerReading("6", "S", 1.0, 1.0, True, 1)
    >>> more_read_surely([six], "5", Thresholds()), more_read_surely([six], "7", Thresholds())
    (True, False)
    >>> five = ((0.3, 0.2), (0.7, 0.2), (0.5, 0.5), (0.3, 0.8), (0.7, 0.8))
    >>> more_read_surely([six], "5", Thresholds(), five)
    False
    """
    if counted not in NUMBER_RANKS or layout_rank(where) == counted:
        return False
    return any(r.colour_ok and r.rank_p >= th.hidden_corner and r.rank in NUMBER_RANKS
               and int(r.rank) > int(counted) for r in readings)


COURT_SIGNS = 3
"""Most blobs called suits that a court's face shows beyond its index corners (its large
suit signs; some pieces of its picture)."""


def court_among_pips(rank: str, field: Field) -> bool:
    """Whether a court (``rank``) that two corners agree on, neither surely, lies round a
    face (``field``) showing more blobs called suits than a court's signs
    (:data:`COURT_SIGNS`): on a card over or under another, a piece of that card passes for
    a picture (an 8D, its outline skewed by a 3H over it, both its 8s read faintly as a B,
    a jack, beside four diamonds).

    >>> court_among_pips("J", Field(4, 2, True, "D")), court_among_pips("J", Field(2, 1, True))
    (True, False)
    """
    return rank in COURTS and field.pips > COURT_SIGNS
