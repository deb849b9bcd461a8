"""A card whose two corners must read, named by one corner read clearly where something
else backs it: its pips, its other corner, or a court's picture."""

from __future__ import annotations

from vision.face import COURTS, Field, counted_rank, field_denies
from vision.readings import CornerReading, Reading
from vision.small_courts import ENGLISH_COURTS
from vision.thresholds import Thresholds


def one_corner_backed(only: CornerReading, other: list[CornerReading], field: Field,
                      th: Thresholds, overlapped: bool, small: bool = False) -> Reading | None:
    """A card whose two corners must read (``small``, or over or under others) named by its
    one corner read clearly, where something else backs it (``None`` where nothing does)."""
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
                         and other[0].suit_p >= th.leaning))
    least = (th.small_pictured_court if pictured and small and only.letter in ENGLISH_COURTS
             and field.pips < 4 else th.single_corner)
    # ... and nothing on the face denies it (fewer pips only where the other corner is unread)
    if only.p >= least and (seconded or counted or pictured) and not field_denies(
            only.rank, field, partly_hidden=not shown, suit=only.suit, both_corners=True):
        return Reading(only.card, min(only.p, other[0].rank_p) if seconded else only.p)
    return None
