"""A card whose two corners must read, named by one corner read clearly where something
else backs it: its pips, its other corner, a court's picture; or, over or under another
card, its face where the other corner shows no index at all (:func:`other_corner_hidden`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from vision.detect import _contains, _side_ratio
from vision.face import COURTS, Field, counted_rank, field_denies
from vision.index import ACROSS_FAR_END, INDEX_INSET, INDEX_REACH_ACROSS
from vision.readings import CornerReading, Reading
from vision.small_courts import ENGLISH_COURTS, another_court_cut
from vision.thresholds import Thresholds

INDEX_SPOTS = np.array([[0.1, 0.12], [0.9, 0.88]], np.float32)
"""Where a card's two index corners print their index (fractions of its width and height,
long side vertical)."""


INDEX_TWICE = 0.6
"""Least width of an index seen in a card's other corner (its suit read), as a fraction of
the width of the index read in the one corner, for the corner read to be an index at all: a
card prints its index alike in both corners. A 10S under a hand, its outline cut short
and skewed, showed two of its pips in one corner, read as a 6S's index 68 px wide, beside its
own index, 24 px wide, its 1 cut off."""


ONE_INDEX_ASPECT = 1.6
"""Longest long side over short side of an outline that is read by its one index clear of
the card over it (a card seen from above: 1.4). An outline across a pile in longer
proportions is no card's own: one round parts of three named a sheared JH's index a 3H."""


def one_corner_backed(only: CornerReading, other: list[CornerReading], field: Field,
                      th: Thresholds, overlapped: bool, small: bool = False,
                      own_sides: bool = False, cuts: Sequence[CornerReading] = (),
                      ) -> Reading | None:
    """A card whose two corners must read (``small``, or over or under others) named by its
    one corner read clearly, where something else backs it (``None`` where nothing does).
    ``own_sides``: its outline lies on its own sides (:func:`other_corner_hidden`).
    ``cuts``: every cut of the corners read; a court's picture backs no court where one of
    them leans to another court's letter over a suit (a small JS's blot read Q in one
    corner, J and Q in cuts of the other)."""
    shown = bool(other) and other[0].rank == only.rank and other[0].rank_p >= th.glyph
    # the pips counting out the rank it reads (another card's pips may lie on an
    # overlapped card's face: there they must be of the corner's suit too; or pips the
    # classifier names one by one count it, all of its suit, nothing else on the face)
    counted = (counted_rank(field) == only.rank and (
        not overlapped or (field.suit or field.pooled_suit) == only.suit)) or (
        str(field.pips) == only.rank and field.suit == only.suit
        and not field.others and not field.picture)
    # ... or the other corner reading the same card, its rank clearly (over or under others
    # its suit too: the suit a stroke of another card leans to is no reading)
    seconded = shown and other[0].card == only.card and other[0].colour_ok and (
        not overlapped or other[0].suit_p >= th.agreeing_glyph)
    # ... or a court's picture, the other corner leaning to no other rank (a small card's in
    # ink that fits it: round two larger cards each corner reads one's), nor suit
    pictured = (not overlapped and only.rank in COURTS and field.picture and field.pips < 5
                and not field.alike and not (other and other[0].rank != only.rank
                                             and other[0].rank_p >= th.court_rival
                                             and (other[0].colour_ok or not small))
                and not (other and other[0].suit != only.suit and other[0].colour_ok
                         and other[0].suit_p >= th.leaning)
                and not another_court_cut(cuts, only.rank, th.leaning))
    least = (th.small_pictured_court if pictured and small and only.letter in ENGLISH_COURTS
             and field.pips < 4 else th.single_corner)
    # ... and nothing on the face denies it (fewer pips only where the other corner is unread)
    if only.p >= least and (seconded or counted or pictured) and not field_denies(
            only.rank, field, partly_hidden=not shown, suit=only.suit, both_corners=True):
        return Reading(only.card, min(only.p, other[0].rank_p) if seconded else only.p)
    if overlapped and own_sides and not small and other_corner_hidden(only, other, field, th):
        return Reading(only.card, only.p)
    return None


def other_corner_hidden(only: CornerReading, other: list[CornerReading], field: Field,
                        th: Thresholds) -> bool:
    """Whether a card over or under others, one corner read surely (its rank nearly
    certainly: :attr:`Thresholds.hidden_corner`), is that card though its other corner
    reads nothing: that corner lies under a hand or a card over it (not found itself: a
    card under another shows no outline of its own). An outline round two cards shows an
    index in each corner; here the other corner reads no rank and suit at all
    (:attr:`Thresholds.leaning`), or only a suit beside an index far narrower than the one
    read (:data:`INDEX_TWICE`). The face must back the corner: pips of its suit,
    two or more, none of another, fewer than its rank only as a part hidden may leave; a
    number card's face no picture and hardly a blob but pips (an outline round a 7C's
    top half and the 9S under it showed 12 such), a court's a picture beside few pips
    (one will do, a hand over the rest, where no blobs of both colours show: an outline
    round three cards read as a QC, one club beside a picture, showed red and black);
    no glare on it (a real photo in haze: a guess on a pile read a 4S's index as a 10S's,
    its face washed out); a number card's index read clear of the outline
    (:data:`INDEX_INSET`: a guess on a printed cloth ran through a QC's index, its half Q
    read surely as a 10 beside the two clubs by its picture; a court's must show a picture
    too, and courts cut close by a window's side were read right so). Only in an outline
    on the card's own sides (``own_sides`` in :func:`one_corner_backed`): a guess at the
    top card of a row from its strip may span two cards (a real photo tilted 35 deg: a 4D
    so guessed was named a 10D). The camera drops such a card where another outline, over
    or under nothing, names it too (:func:`twins_dropped`).

    >>> nine = CornerReading("9", "H", 1.0, 1.0, True, 1, inset=8)
    >>> blank = CornerReading("6", "H", 0.15, 0.0, False, 0)
    >>> hearts = Field(7, 0, False, "H", side_pips=6)
    >>> other_corner_hidden(nine, [blank], hearts, Thresholds())
    True
    >>> two = CornerReading("2", "S", 0.9, 1.0, True, 0)  # another card's index
    >>> other_corner_hidden(nine, [two], hearts, Thresholds())
    False
    >>> other_corner_hidden(nine, [blank], Field(7, 1, True, "H"), Thresholds())
    False
    >>> cut = CornerReading("9", "H", 0.91, 1.0, True, 1)  # its rank not sure enough
    >>> other_corner_hidden(cut, [blank], hearts, Thresholds())
    False
    >>> at_the_outline = CornerReading("9", "H", 1.0, 1.0, True, 1, inset=2)
    >>> other_corner_hidden(at_the_outline, [blank], hearts, Thresholds())
    False
    >>> jack = CornerReading("J", "H", 1.0, 1.0, True, 1, inset=8)
    >>> one_sign = Field(1, 3, True, "H")  # a hand over the rest of its face
    >>> other_corner_hidden(jack, [blank], one_sign, Thresholds())
    True
    >>> from dataclasses import replace  # a court's picture backs an index at the outline
    >>> other_corner_hidden(replace(jack, inset=2), [blank], one_sign, Thresholds())
    True
    >>> two_cards = Field(1, 3, True, "H", both_colours=True)
    >>> other_corner_hidden(jack, [blank], two_cards, Thresholds())
    False
    >>> pips = CornerReading("6", "S", 1.0, 1.0, True, 1, extent=(68, 109))  # two pips
    >>> ten = CornerReading("Q", "S", 0.01, 1.0, True, 0, extent=(24, 96))  # its 1 cut off
    >>> spades = Field(5, 0, False, "S", side_pips=3)
    >>> other_corner_hidden(pips, [ten], spades, Thresholds())
    False
    """
    # a suit beside an index far narrower than the one read: the card's own index, its
    # rank unread, and the corner read print that is no index
    own_index = bool(other) and other[0].suit_p >= th.leaning and (
        0 < other[0].extent[0] < INDEX_TWICE * only.extent[0])
    unread = not own_index and (not other or (other[0].p < th.leaning and (
        other[0].rank_p < th.leaning or not other[0].colour_ok)))
    # a court's picture beside a sign or a few (one only where no two cards' colours
    # show), a number card's pips and hardly another blob
    face = ((field.picture and (2 if field.both_colours else 1) <= field.pips < 4)
            if only.rank in COURTS
            else not field.picture and field.others <= 1 and field.pips >= 2)
    return (unread and face and not field.washed and only.p >= th.single_corner
            and only.rank_p >= th.hidden_corner
            and (only.inset >= INDEX_INSET or only.rank in COURTS)
            and only.colour_ok
            and field.suit == only.suit
            and field.pooled_suit in (None, only.suit)
            and not field_denies(only.rank, field, partly_hidden=True, suit=only.suit,
                                 both_corners=True))


class Named(Protocol):
    """A card found, as :func:`twins_dropped` sees it: the card it names, or ``None``."""

    @property
    def card(self) -> str | None: ...


NamedT = TypeVar("NamedT", bound=Named)


def twins_dropped(found: Sequence[NamedT], overlapped: set[int]) -> list[NamedT]:
    """``found`` but those over or under others (their ``id`` in ``overlapped``) that name a
    card another of ``found``, over or under nothing, names too: a deck holds each card
    once, and an outline round two cards, read by one corner, names the other card's
    index (overlapping scenes of the held-out designs: a 9D named as the QD lying over it,
    and the QD named whole beside it).

    >>> from vision.readings import Reading
    >>> whole, under, other = Reading("QD", 1.0), Reading("QD", 0.95), Reading("9D", 0.9)
    >>> [r.card for r in twins_dropped([whole, under, other], {id(under), id(other)})]
    ['QD', '9D']
    """
    whole = {f.card for f in found if f.card is not None and id(f) not in overlapped}
    return [f for f in found if id(f) not in overlapped or f.card not in whole]


def one_index_covered(quad: NDArray[np.float32], others: list[NDArray[np.float32]]) -> bool:
    """Whether exactly one of the card's two index corners lies under another card found
    (a card over it), the other under none; and the outline is in a card's proportions
    (:data:`ONE_INDEX_ASPECT`), so that the corner clear is the card's own."""
    q = np.asarray(quad, np.float32)
    if _side_ratio(q) > ONE_INDEX_ASPECT:
        return False
    spots = [q[0] + u * (q[1] - q[0]) + v * (q[3] - q[0]) for u, v in INDEX_SPOTS]
    covered = [any(_contains(other, spot) for other in others) for spot in spots]
    return covered.count(True) == 1


LONE_INDEX_INSET = 26
"""Furthest (canonical pixels) that the glyphs of an index read in one corner alone may lie
in from the card's edges. Cards so named lay 4-23 px in (the rendered rows at seeds 98000
and the real photos under four changes: 60 cards); a blurred queen of a held-out design on
a real cork table was named 7S by the corner of its picture's frame, 32 px in, its own
red index blurred faint."""


def no_lone_index(only: CornerReading) -> bool:
    """Whether what one corner alone reads (``only``, the other corner reading no card) is
    no index: print far in from the card's edges (:data:`LONE_INDEX_INSET`: the corner of
    a picture's frame beside the index) or cut by them (:data:`vision.index.INDEX_INSET`:
    a jumbo 8 cut by a hand's edge and the pip beside it read across as QS), or reaching
    further across than an index does (:data:`vision.index.INDEX_REACH_ACROSS`: a 9D's pips
    under an outline round it and another card, read across as 8D), short of the far end of
    the card's top where one printed across may have its suit
    (:data:`vision.index.ACROSS_FAR_END`).

    >>> from dataclasses import replace
    >>> pips = CornerReading("8", "D", 0.998, 0.999, True, 0, (108, 70), 13, across=True)
    >>> no_lone_index(pips), no_lone_index(replace(pips, extent=(184, 70)))
    (True, False)
    >>> no_lone_index(replace(pips, extent=(40, 70))), no_lone_index(replace(pips, inset=32))
    (False, True)
    >>> no_lone_index(replace(pips, extent=(184, 70), across=False))
    True
    >>> no_lone_index(replace(pips, extent=(40, 70), inset=2))  # at the outline
    True
    """
    return not INDEX_INSET <= only.inset <= LONE_INDEX_INSET or (
        only.extent[0] > INDEX_REACH_ACROSS
        and not (only.across and only.extent[0] >= ACROSS_FAR_END))


def court_by_one_corner(card: str, looks: Iterable[list[CornerReading]]) -> bool:
    """Whether ``card`` is a court that no look at its corners (``looks``: each the best
    reading of each corner) reads in both: one corner and a picture name a court, but on a
    card over or under another the picture may be that card's (a KD under a KH, read a
    quarter round, the KH's K over it read as a J in one corner, was named JD).

    >>> jack = CornerReading("J", "D", 1.0, 1.0, True, 1)
    >>> court_by_one_corner("JD", [[jack]]), court_by_one_corner("JD", [[jack, jack]])
    (True, False)
    >>> court_by_one_corner("9D", [[]])
    False
    """
    if card[:-1] not in COURTS:
        return False
    return not any(len([r for r in readings if r.card == card and r.colour_ok]) == 2
                   for readings in looks)
