"""How sure the standard-deck reader must be before it names a card, and how it sees
ink and glare: one set of thresholds, shared by :mod:`vision.standard` and
:mod:`vision.face`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Thresholds:
    """How sure the reader must be (probabilities of the index classifier)."""

    glyph: float = 0.6
    """Least probability of a rank, and of a suit, for a corner to count as read."""
    agreeing_glyph: float = 0.4
    """Least probability of the glyphs of each of two corners that name the same card."""
    single_corner: float = 0.9
    """Least probability of both glyphs when only one corner is read."""
    hidden_corner: float = 0.95
    """Least probability of the rank of the one corner that names a card whose other
    corner a hand or an unfound card hides (:func:`vision.one_corner.other_corner_hidden`):
    an index its outline cut short reads surely as another rank (a 7C under a hand, its
    outline a little short of its end, read as a J at 0.91). In the held-out designs' hand
    and overlapping scenes the ranks read right read at 0.999 or more; a real photo's 9H
    in a window that cuts its index at 0.957 (at 0.98 it went unread)."""
    least_pip: float = 0.0015
    """Least area of a pip, as a fraction of the card's (smaller blobs are specks)."""
    washed_fraction: float = 0.02
    """Fraction of a card clipped white at which its field counts as washed out by glare."""
    picture_blob: float = 0.012
    """A blob that is no suit and at least this large (fraction of the card) is a picture."""
    field_settled_rank: float = 0.5
    """Least rank probability of the corner that cleanly counted pips agree with."""
    field_settled_court: float = 0.4
    """Least rank probability of both corners for a court card its picture confirms."""
    small_card_px: float = 90.0
    """Cards narrower than this in the camera image must read alike in both corners."""
    settled: float = 0.95
    """A corner read this surely at the first ink level is not cut again at the others."""
    rival: float = 0.5
    """A corner whose other candidates read another card at this fraction of the best
    one's probability is unclear."""
    leaning: float = 0.3
    """Probability at which a corner that is not read leans to a card, rank or suit of
    its own (enough to stop the other corner being taken alone)."""
    small_pictured_court: float = 0.7
    """Least probability of the one corner read of a small court that its picture backs,
    beside fewer than four suit marks, where the court letter classifier
    (:mod:`vision.small_courts`) names the same letter (0.9, :attr:`single_corner`,
    elsewhere)."""
    court_rival: float = 0.2
    """Rank probability at which a small court's unread corner leans to another rank, so
    that its picture no longer backs the one corner read (a blotted K is read as a J)."""
    pooled_suit: float = 0.3
    """Least mean suit probability of a card's blurred pips taken together
    (:func:`vision.pips.pooled_suit`)."""
    red: float = 0.2
    """Redness of the index ink above which it is red (see
    :func:`vision.index.ink_red_and_chroma`)."""
    black: float = 0.1
    """Redness below which it is black; between the two the colour is unclear."""
    coloured: float = 0.45
    """Chroma (:func:`vision.index.ink_red_and_chroma`) of ink that is neither red nor black: a
    four-colour deck's diamonds or clubs."""
    glare_fraction: float = 0.12
    """Fraction of a corner's pixels washed out (every channel at 250 or more) at which an
    unread corner is put down to glare."""
    face_unasked: float = 0.9
    """Least probability of each glyph of two corners that read one card, clear of the
    card's edges, for its face not to be looked at (:func:`vision.standard._beyond_doubt`)."""
