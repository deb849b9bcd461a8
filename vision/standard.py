"""Identify a standard 52-card deck's card from its corner index: no enrollment.

Any ordinary French-suited deck (Bicycle-style, European, large and jumbo index), with no
assumption about where a deck prints its index or in which typeface:

1. :mod:`vision.index` finds, in the top-left and bottom-right corners, every
   plausible *rank over suit* pair of ink blobs (white-balanced, against the
   paper's local brightness);
2. :mod:`vision.glyphs`, a small classifier trained on glyphs of many published deck
   designs and system fonts, names each glyph, or "other" (a pip, a piece of a picture);
3. the colour of the ink must agree with the suit's shape (red hearts and
   diamonds, black spades and clubs);
4. two corners that both read must name the same card; one corner alone is enough only
   when it reads very clearly (the other may be under a finger or another card).

Pips and court pictures are never required. Anything unclear is unknown, with a
:class:`~vision.refusal.Refusal` saying why: a wrong card is worse than none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cache, partial
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from vision.blurred_suits import suit_read_sharpened
from vision.by_pips import (
    court_among_pips,
    more_read_surely,
    no_reading,
    read_by_pips,
    shows_more_pips,
    small_by_pips,
    suited_by_pips,
)
from vision.decks import BLACK_SUITS, FOUR_COLOUR_SUITS, RED_SUITS
from vision.detect import quarter_turned
from vision.face import (
    COURTS,
    SUIT_COLS,
    Blobs,
    Field,
    blobs_of,
    counted_rank,
    face_shows,
    field_denies,
    laid_out_whole,
    read_field,
    shows_plainly,
)
from vision.glare import corners_washed_out
from vision.glyphs import (
    PRINTED_RANKS,
    RANK_COLUMNS,
    SUITS,
    cyrillic_rank,
    features_of,
    lobed_like_a_club,
    rank_of,
    shipped_model,
)
from vision.index import (
    INDEX_INSET,
    LEVELS,
    Candidate,
    CornerInk,
    candidates_across,
    candidates_in_ink,
    corner_ink,
    cut_off,
    overlaid_corners,
    paper_colour,
    parted,
)
from vision.one_corner import court_by_one_corner, no_lone_index, one_corner_backed
from vision.readings import CornerReading, Reading
from vision.refusal import Refusal
from vision.small_courts import (
    court_in_every_cut,
    court_over_numbers,
    index_seconded,
    load_models,
)
from vision.thresholds import Thresholds

Image = NDArray[np.uint8]

FAINT_LEVEL = 0.2
"""An ink level below :data:`vision.index.LEVELS`, tried last in a small card's unclear
corner: the thin strokes of an index a few pixels high blur to faint grey (a blurred J).
A larger card is cut there only once it has read as nothing at the usual levels, and
then both its corners must read it (:func:`_read_faintly`): cut faintly alongside the
usual levels, an unclear corner more often read wrong (lighting: three held-out cards
in 300 fewer)."""

NO_SUIT = 0.05
"""Suit probability below which what lies under a corner's rank is no suit at all (a piece
of the picture): that corner is no index, and its rank overrules nothing."""

INDEX_CORNERS = (0, 1)
"""Top-left and bottom-right: every standard deck prints its index there (a card taken
the other way up shows them at the same places)."""


def prepare() -> None:
    """Load the index models now (the camera calls this in the background at start-up)."""
    shipped_model()
    load_models()


def _readings(cands: list[Candidate], th: Thresholds, small: bool = False) -> list[CornerReading]:
    """What the classifier reads in each candidate (rank and suit, their probabilities,
    the ink's colour fits the suit); a ``small`` card's court letters and suits seconded."""
    features = features_of([g for c in cands for g in (c.rank, c.suit)])
    probs = shipped_model().predict(features)
    rank_p, suit_p = probs[0::2][:, RANK_COLUMNS], probs[1::2][:, SUIT_COLS]
    out = []
    for i, cand in enumerate(cands):
        ri, si = int(np.argmax(rank_p[i])), int(np.argmax(suit_p[i]))
        rank, suit = rank_of(PRINTED_RANKS[ri]), SUITS[si]
        rank_sure = float(rank_p[i, ri])
        russian = cyrillic_rank(rank, cand.rank)  # a Te or a De: leans, names none
        if russian is not None:
            rank, rank_sure = russian, min(rank_sure, th.leaning)
        # (a round-lobed club the classifier takes for a spade reads no suit)
        sure = 0.0 if suit == "S" and lobed_like_a_club(cand.suit) else float(suit_p[i, si])
        red, black = cand.redness >= th.red, cand.redness <= th.black
        # a four-colour deck prints diamonds blue, orange or yellow, and clubs or spades green
        coloured = not red and cand.chroma >= th.coloured
        colour_ok = (red and suit in RED_SUITS) or (black and suit not in RED_SUITS) or (
            coloured and suit in FOUR_COLOUR_SUITS)
        out.append(CornerReading(rank, suit, rank_sure, sure, colour_ok, cand.corner,
                                 (max(cand.rank_box.x1, cand.suit_box.x1), cand.suit_box.y1),
                                 min(cand.rank_box.x, cand.rank_box.y, cand.suit_box.x),
                                 letter=PRINTED_RANKS[ri]))
    return index_seconded(features[0::2], features[1::2], out, th) if small else out


def _unclear(readings: list[CornerReading], th: Thresholds) -> bool:
    """Whether a corner has yet to read clearly (and is worth cutting again)."""
    if not readings:
        return True
    best = _best(readings, th)
    return not best.colour_ok or best.p < th.settled


def _best(readings: list[CornerReading], th: Thresholds) -> CornerReading:
    """A corner's best reading; made unclear when another cut of the same corner reads
    another card nearly as well (a rank the blur leaves between 3 and 5, say)."""
    # (between two cuts reading alike, the surer rank, then the tighter index: a rank
    # joined to the pip beside it reads as well but reaches too far in)
    chosen = max(readings, key=lambda r: (r.colour_ok, r.p, r.rank_p,
                                          -r.extent[0] * r.extent[1]))
    rivals = [r for r in readings
              if r.card != chosen.card and r.colour_ok and r.p >= th.rival * chosen.p]
    if rivals:
        chosen = replace(chosen, rank_p=min(chosen.rank_p, th.rival * chosen.rank_p),
                         suit_rival=any(r.rank == chosen.rank and {r.suit, chosen.suit}
                                        == BLACK_SUITS for r in rivals))
    return chosen


def _at_level(window: CornerInk, level: float) -> list[list[Candidate]]:
    return [candidates_in_ink(window, (level,))]


def _cut_off(window: CornerInk) -> list[list[Candidate]]:
    return [candidates_in_ink(cut, LEVELS[:1]) for cut in cut_off(window) + parted(window)]


def read_corners(card: Image, th: Thresholds | None = None, small: bool = False,
                 across: bool = False, faint: bool = False,
                 ) -> tuple[list[CornerReading], list[tuple[Candidate, CornerReading]]]:
    """The best reading of each index corner of a canonical card (200 x 280 BGR), and
    every candidate looked at with what it read (a small card's seconded).

    The corners are cut into glyphs at the usual ink level first; the other levels are
    tried only in a corner that did not read clearly (most cards need one). A ``small``
    card's corner is tried at a fainter level too (:data:`FAINT_LEVEL`), and with
    ``faint`` any card's. With ``across``,
    where neither corner reads clearly, a rank and suit side by side across the card's
    top are looked for (:func:`vision.index.candidates_across`; such an index is printed
    once, of no use where both corners must read).
    """
    th = th or Thresholds()
    paper = paper_colour(card)
    windows = {c: corner_ink(card, paper, c) for c in INDEX_CORNERS}
    by_corner: dict[int, list[CornerReading]] = {c: [] for c in INDEX_CORNERS}
    looked: list[tuple[Candidate, CornerReading]] = []

    def look(cuts: Callable[[CornerInk], list[list[Candidate]]], across: bool = False) -> None:
        """Read, in one batch, the candidates ``cuts`` finds in each corner still unclear."""
        batch = [cand for corner in INDEX_CORNERS if _unclear(by_corner[corner], th)
                 for found in cuts(windows[corner]) for cand in found]
        if batch:
            readings = _readings(batch, th, small)
            if across:  # (marked only here: the other looks' readings are left as made)
                readings = [replace(r, across=True) for r in readings]
            for reading in readings:
                by_corner[reading.corner].append(reading)
            looked.extend(zip(batch, readings, strict=True))

    for level in (*LEVELS, FAINT_LEVEL) if small or faint else LEVELS:
        look(partial(_at_level, level=level))
    # a corner still unclear may have its index run into a picture or a pip beside it,
    # or its rank into its suit
    look(_cut_off)
    if across and all(_unclear(by_corner[c], th) for c in INDEX_CORNERS):
        # ... or the deck prints its rank and suit side by side across the top
        look(lambda window: [candidates_across(card, paper, window.corner)], across=True)
    return [_best(r, th) for c, r in sorted(by_corner.items()) if r], looked


def _reach(readings: list[CornerReading], least: float = 0.0) -> tuple[int, int] | None:
    """How far the indices of these corners reach in from their corners, counting those
    read with at least ``least`` probability (``None`` when there are none: a corner read
    as nothing clear may have taken pips for its index)."""
    sure = [r for r in readings if r.p >= least]
    if not sure:
        return None
    return max(r.extent[0] for r in sure), max(r.extent[1] for r in sure)


def _settled_by_field(face: Callable[[], Field], readings: list[CornerReading],
                      th: Thresholds, overlapped: bool = False,
                      plain: Callable[[], Field] | None = None,
                      small: bool = False, cuts: Sequence[CornerReading] = ()) -> Reading | None:
    """A card whose two corners disagree or read faintly (a small or blurred index is a
    few pixels), settled by what its face shows, with both corners in view:

    * a number card by its pips, when they are cleanly counted (each blob a suit, nearly
      all of one suit, no picture) and one corner reads that very rank and suit;
    * a court card when both corners lean to the same court card and the face shows a
      picture, not pips; or as :func:`vision.small_courts.court_over_numbers` names one
      (``cuts``: every cut of the corners read, not only each corner's best).

    Not on a card over or under another (``overlapped``) against a corner that reads
    another rank clearly: its outline may cut it, the pips counted a part of them. Nor
    where the face beyond the usual index corners (``plain``) shows more pips alike than
    the rank: the ink read as an index reached over pips (a real oblique 10H stretched
    square, its outline through the card, read 6H by a pip cut at the outline). Nor, on a
    card not ``small`` (whose index is a blot, read surely as another rank often), where a
    corner reads surely more than the pips count, in no layout of that count
    (:func:`vision.by_pips.more_read_surely`).
    """
    if len(readings) < 2 or (overlapped and len({r.rank for r in readings}) > 1 and any(
            r.colour_ok and r.rank_p >= th.single_corner for r in readings)):
        return None
    field, court = face(), partial(court_over_numbers, face(), readings, th, overlapped, cuts)
    if field.washed and not laid_out_whole(field):
        return court()  # glare may hide a pip: those left count no rank, unless laid out whole
    if 2 <= field.pips <= 10 and not field.others and not field.picture and field.suit:
        rank = str(field.pips)
        agree = [r for r in readings if r.rank == rank and r.suit == field.suit
                 and r.colour_ok and r.rank_p >= th.field_settled_rank
                 and r.suit_p >= th.leaning]
        if agree and not (plain is not None and shows_more_pips(plain(), rank)) and not (
                not small and more_read_surely(readings, rank, th, field.where)):
            return Reading(rank + field.suit, min(max(r.p for r in agree), th.glyph))
    counted = counted_rank(field)
    if counted is not None and not field.picture:
        # the pips counted by their sizes alone (no picture: a court's panel letter and suit
        # are two blobs alike): a corner must read that rank, and the suit, clearly
        agree = [r for r in readings if r.rank == counted and r.colour_ok
                 and r.rank_p >= th.field_settled_rank and r.suit_p >= th.glyph
                 and field.suit in (None, r.suit)]
        # pips count a rank, not a suit: a corner leaning to another suit leaves it open
        if agree and len({r.card for r in agree}) == 1 and not any(
                r.suit != agree[0].suit and r.colour_ok and r.suit_p >= th.leaning
                for r in readings) and not (plain is not None
                                            and shows_more_pips(plain(), counted)) and not (
                not small and more_read_surely(readings, counted, th, field.where)):
            return Reading(agree[0].card, min(max(r.p for r in agree), th.glyph))
    named = {r.card for r in readings}
    first = readings[0]
    if (len(named) == 1 and first.rank in COURTS and field.picture
            and field.pips < 4 and all(r.colour_ok and r.suit_p >= th.glyph
                                       and r.rank_p >= th.field_settled_court
                                       for r in readings)):
        return Reading(first.card, min(r.p for r in readings))
    return court()


_OVERLAY_AFTER = frozenset({Refusal.CORNERS_DISAGREE, Refusal.RANK_UNCLEAR,
                            Refusal.SUIT_UNCLEAR, Refusal.INDEX_NOT_FOUND})
"""Refusals after which a small card's two indices are read laid over each other."""


def _read_overlaid(card: Image, th: Thresholds, looks: _Looks) -> Reading | None:
    """A small card whose corners did not read alike, read from its two indices laid
    over each other (:func:`vision.index.overlaid_corners`: a blot of a few pixels printed
    twice is less noisy averaged)."""
    window = overlaid_corners(card, paper_colour(card))
    cands = candidates_in_ink(window, (*LEVELS, FAINT_LEVEL)) if window is not None else []
    if not cands:
        return None
    laid = _best(_readings(cands, th, small=True), th)
    # (the corners as the small card was first read)
    readings, _ = looks.corners(small=True, across=False, faint=False)
    return _named_overlaid(laid, readings, partial(looks.fields, _reach([laid])), th)


def _named_overlaid(laid: CornerReading, readings: list[CornerReading],
                    face: Callable[[], Field], th: Thresholds) -> Reading | None:
    """The card the overlaid indices read (``laid``), where that reading is clear, one of
    the corners read that card alone, no corner reads the other black suit clearly (a
    blurred spade reads as a club: laid over a clear spade, a club again), and the face
    shows it (:func:`vision.face.face_shows`; nor do its pips deny the suit)."""
    if not laid.colour_ok or laid.p < th.single_corner or laid.card not in {
            r.card for r in readings} or any(r.colour_ok and r.suit_p >= th.glyph and {
                r.suit, laid.suit} == BLACK_SUITS for r in readings):
        return None
    field = face()
    if not face_shows(laid.rank, field) or field_denies(laid.rank, field, suit=laid.suit,
                                                        both_corners=True):
        return None
    return Reading(laid.card, min(laid.p, th.glyph))


_FAINT_RETRY = frozenset({Refusal.RANK_UNCLEAR, Refusal.SUIT_UNCLEAR, Refusal.INDEX_NOT_FOUND})
"""Refusals after which a card not small is read again faintly, either way round."""


def _read_faintly(first: Reading, card: Image, th: Thresholds, small: bool, overlapped: bool,
                  looks: _Looks, by_pips: bool = True) -> Reading:
    """``first``, or where it refuses a card not small for its index (:data:`_FAINT_RETRY`),
    the card read again cut at the fainter ink level too (a blurred index's thin strokes
    fade to grey: a J, a 2, a 7): named where both corners read it there, no corner at the
    usual levels leaning to another rank or suit (a blurred club cut faintly fills out to
    a spade), in the suit they read in some corner, its pips' suit where they count its
    rank, or a court's large suit signs. ``by_pips`` as for :func:`_identify`."""
    if first.card is not None or small or first.reason not in _FAINT_RETRY:
        return first
    again = _identify(card, th, looks, both_corners=True, overlapped=overlapped, faint=True,
                      by_pips=by_pips)
    if again.card is None:
        return first
    rank, suit = again.card[:-1], again.card[-1]
    usual, _ = looks.corners(small=False, across=False, faint=False)
    if any(r.colour_ok and ((r.suit != suit and r.suit_p >= th.leaning)
                            or (r.rank != rank and r.rank_p >= th.leaning)) for r in usual):
        return first
    if any(r.suit == suit and r.colour_ok and r.suit_p >= th.glyph for r in usual):
        return again
    faint, _ = looks.corners(small=False, across=False, faint=True)  # (read by corners)
    if overlapped or len(faint) != 2 or not all(
            r.card == again.card and r.colour_ok and r.p >= th.glyph for r in faint):
        return first  # (the face is not looked at: nothing it shows could name the card)
    field = looks.fields(None)
    pipped = counted_rank(field) == rank and field.suit in (None, suit) and suit in (
        field.suit, field.pooled_suit)
    suited = rank in COURTS and face_shows(rank, field) and field.suit == suit  # (large signs)
    return again if pipped or suited else first


def identify_standard(card: Image, th: Thresholds | None = None,
                      card_px: float | None = None, overlapped: bool = False,
                      may_turn: bool = True, hidden: bool = False,
                      own_sides: bool = False) -> Reading:
    """Identify a canonical card image (200 x 280 BGR, long side vertical).

    A camera looking at a card from the side can foreshorten its long sides until they
    look the shorter ones: the card is then dewarped a quarter-turn round, its indices at
    the other two corners. When the card does not read as it is, it is read turned a
    quarter round too, and named only when both corners read clearly and alike, by its
    pips (:func:`vision.by_pips.read_by_pips`), or faint, as :func:`_read_faintly` names a card.

    ``card_px``, the card's width in the camera's pixels where known: a small card's
    index is a few pixels across, and one corner alone is then not enough.
    ``overlapped``: the card lies over or under another, so one of its corners may show
    the other card's index; both corners must then read it. ``may_turn=False``: the card's
    outline is sure of its long sides (it is not read a quarter round). ``hidden``: part of
    the card lies out of view (the frame cuts a corner off), and pips with it.
    ``own_sides``: the card's outline lies on its own sides, found or guessed on a pile's
    (not a row's top card guessed from its strip): over or under another, one corner may
    read it where the other shows no index at all
    (:func:`vision.one_corner.other_corner_hidden`).
    """
    th = th or Thresholds()
    small = card_px is not None and card_px < th.small_card_px
    looks = _looks_of(card, th, hidden, own_sides)
    upright = _identify(card, th, looks, both_corners=small or overlapped, small=small,
                        overlapped=overlapped)
    if upright.card is None and small and not overlapped and upright.reason in _OVERLAY_AFTER:
        cuts = [read for _, read in looks.corners(small=True, across=False, faint=False)[1]]
        laid = _read_overlaid(card, th, looks) or (
            court_in_every_cut(looks.fields(None), cuts, th) if cuts else None)
        if laid is not None and not _signs_deny(laid, looks):
            return laid
    upright = _read_faintly(upright, card, th, small, overlapped, looks)
    if upright.card is not None or upright.reason is Refusal.CORNERS_DISAGREE or not may_turn:
        return upright
    turned_card = quarter_turned(card)
    turned_looks = _looks_of(turned_card, th, hidden)
    # (a small overlapped card's pips in view may be fewer, or another card's: not asked)
    turned = _identify(turned_card, th, turned_looks, both_corners=True,
                       by_pips=not (small and overlapped))
    # (the read before asked the pips: read faintly, the index alone is asked again)
    turned = _read_faintly(turned, turned_card, th, small, overlapped, turned_looks,
                           by_pips=False)
    if turned.card is None or _face_denies(turned.card, looks.fields(None)) or (
            overlapped and court_by_one_corner(turned.card, (turned_looks.corners(
                small=False, across=False, faint=faint)[0] for faint in (False, True)))):
        return upright
    return turned


class _Looks(NamedTuple):
    """The looks at one card, each made the first time it is asked for only (the readings
    and checks of one card share them): :func:`read_corners` by its keyword flags,
    :func:`vision.face.blobs_of` and :func:`read_field` by how far the index reaches."""

    corners: Callable[..., tuple[list[CornerReading], list[tuple[Candidate, CornerReading]]]]
    fields: Callable[[tuple[int, int] | None], Field]
    blobs: Callable[[tuple[int, int] | None], Blobs]
    hidden: bool = False
    """Part of the card lies out of view: fewer pips than its rank show, as where one
    corner is unread."""
    own_sides: bool = False
    """The card's outline lies on its own sides (:func:`identify_standard`)."""


def _looks_of(card: Image, th: Thresholds, hidden: bool = False,
              own_sides: bool = False) -> _Looks:
    blobs = cache(partial(blobs_of, card, th))

    def fields(index: tuple[int, int] | None) -> Field:
        return read_field(card, th, index, blobs(index))

    return _Looks(cache(partial(read_corners, card, th)), cache(fields), blobs, hidden,
                  own_sides)


def _identify(card: Image, th: Thresholds, looks: _Looks, both_corners: bool = False,
              small: bool = False, overlapped: bool = False, by_pips: bool = True,
              faint: bool = False) -> Reading:
    """The card's reading (:func:`_identify_once`), refused as suit unclear where a corner
    read its rank in the other black suit nearly as well (:attr:`CornerReading.suit_rival`)
    and the pips do not show its suit: a spade blurred 2-3 px is read as a club surely in
    one corner and torn between the two in the other. 34 designs' clubs and spades blurred
    0-3 px (5,304 reads): wrong 59 -> 52, read 4,663 -> 4,660; unchanged unblurred. So is
    a black court against its large suit signs (:func:`_signs_deny`). A blurred index read
    surely as the other black suit is read again sharpened
    (:func:`vision.blurred_suits.suit_read_sharpened`)."""
    named = _identify_once(card, th, looks, both_corners, small, overlapped, by_pips, faint)
    if named.card is None or named.card[-1] not in BLACK_SUITS:
        return named
    readings, _ = looks.corners(small=small, across=not both_corners, faint=faint)

    def face_suit() -> str | None:
        """The suit the face's pips or signs show (one by one, else together)."""
        field = looks.fields(_reach(readings, th.agreeing_glyph))
        return field.suit or field.pooled_suit

    if _signs_deny(named, looks) or (
            any(r.suit_rival and r.rank == named.card[:-1] for r in readings)
            and face_suit() != named.card[-1]):
        return Reading(None, 0.0, Refusal.SUIT_UNCLEAR)
    return suit_read_sharpened(named, card, readings, lambda seen: read_corners(
        seen, th, small=small, across=not both_corners, faint=faint)[0], face_suit)


def _identify_once(card: Image, th: Thresholds, looks: _Looks, both_corners: bool = False,
                   small: bool = False, overlapped: bool = False, by_pips: bool = True,
                   faint: bool = False) -> Reading:
    """``by_pips``: a card whose index does not read may be named by its pips (not an
    overlapped one, where another card's pips may lie on its face, nor one partly out of
    view, ``looks.hidden``: a six cut across its middle shows a four's pips)."""
    readings, looked = looks.corners(small=small, across=not both_corners, faint=faint)
    fields = looks.fields
    face = partial(fields, _reach(readings, th.agreeing_glyph))
    settle = partial(_settled_by_field, face, readings, th, overlapped, partial(fields, None),
                     small, [read for _, read in looked])
    pips = (partial(read_by_pips, face, readings, th, both_corners, small,
                    partial(looks.blobs, (0, 0)), partial(fields, None))
            if by_pips and not overlapped and not looks.hidden else no_reading)
    suited = (partial(suited_by_pips, face, readings, th, partial(looks.blobs, None))
              if not overlapped else no_reading)
    if not readings:
        if corners_washed_out(card, th):
            return Reading(None, 0.0, Refusal.GLARE)
        return pips() or Reading(None, 0.0, Refusal.INDEX_NOT_FOUND)
    read = [r for r in readings if r.rank_p >= th.glyph and r.suit_p >= th.glyph
            and r.colour_ok]
    alike = [r for r in readings if r.colour_ok and r.p >= th.agreeing_glyph]
    alike_face = partial(fields, _reach(alike, th.agreeing_glyph))
    if len(read) < 2 and len(alike) == 2 and alike[0].card == alike[1].card and (
            read or alike[0].rank in COURTS or not alike_face().washed) and not (
            overlapped and not read and court_among_pips(alike[0].rank, alike_face())):
        # two corners read apart from each other agree: less need each be sure (a number
        # card's not both faintly on a face glare washes out: its pips cannot deny them)
        read = alike
    if not read or len({r.card for r in read}) > 1:
        settled = settle()
        if settled is not None:
            return settled
    if not read:
        best = max(readings, key=lambda r: r.p)
        if corners_washed_out(card, th):
            reason = Refusal.GLARE
        elif best.rank_p < th.glyph:
            reason = Refusal.RANK_UNCLEAR
        else:
            reason = Refusal.SUIT_UNCLEAR
        return (suited() or pips() if reason is not Refusal.GLARE else None) or Reading(
            None, 0.0, reason)
    if len({r.card for r in read}) > 1:
        # a small or blurred card's two indices are blots of a few pixels; its pips are not
        return suited() or (pips() if both_corners else None) or Reading(
            None, 0.0, Refusal.CORNERS_DISAGREE)
    if len(read) == 1:
        only = read[0]
        other = [r for r in readings if r.corner != only.corner]
        # (a corner reading the same rank in ink of the wrong colour for its suit leans
        # to no other card: its suit is the unclear part)
        if other and ((other[0].card != only.card and other[0].p >= th.leaning
                       and (other[0].colour_ok or other[0].rank != only.rank))
                      or (other[0].rank != only.rank and other[0].rank_p >= 0.5
                          and other[0].suit_p >= NO_SUIT)):
            # the other corner leans to another card (an outline round two cards shows
            # one card's index in each corner): not clear enough to overrule
            return (settle() or suited()
                    or (pips() if both_corners else None)
                    or Reading(None, 0.0, Refusal.CORNERS_DISAGREE))
        if both_corners:
            backed = one_corner_backed(only, other, fields(_reach(read)), th, overlapped, small,
                                       looks.own_sides, [seen for _, seen in looked])
            if backed is not None:
                return backed
            return suited() or pips() or Reading(None, 0.0, Refusal.INDEX_NOT_FOUND)
        if only.p < th.single_corner:
            reason = (Refusal.RANK_UNCLEAR if only.rank_p < th.single_corner
                      else Refusal.SUIT_UNCLEAR)
            return settle() or Reading(None, 0.0, reason)
        if no_lone_index(only):
            return settle() or Reading(None, 0.0, Refusal.INDEX_NOT_FOUND)
    # (a face that plainly shows the card two sure corners read could deny nothing)
    plain = not both_corners and _beyond_doubt(read, th) and shows_plainly(
        looks.blobs(_reach(read)), th, read[0].rank, read[0].suit)
    if not plain and _face_denies_read(read, fields(_reach(read)), looks.hidden, both_corners):
        return (suited() or small_by_pips(pips, read[0].suit, small)
                or Reading(None, 0.0, Refusal.PIPS_DISAGREE))
    return Reading(read[0].card, min(r.p for r in read))


def _face_denies_read(read: list[CornerReading], field: Field, hidden: bool,
                      both_corners: bool) -> bool:
    """Whether the face (``field``) denies the card the corners ``read`` name
    (:func:`vision.face.field_denies`): partly hidden where one corner alone read it, or
    the card partly out of view (``hidden``); beside a large index where each reaches
    :data:`LARGE_INDEX` down."""
    return field_denies(read[0].rank, field, partly_hidden=len(read) == 1 or hidden,
                        suit=read[0].suit, both_corners=both_corners,
                        large_index=all(r.extent[1] >= LARGE_INDEX for r in read))


def _signs_deny(named: Reading, looks: _Looks) -> bool:
    """Whether ``named`` is a black court whose face's black pips are all of the other black
    suit (:attr:`Field.black_suit`): a court's large suit signs are many times its index (a
    blurred KC read KS in both corners, 0.7 and 0.78, beside two large clubs; a small one
    read KS in one corner, KC in the other, and named KS laid over each other)."""
    return named.card is not None and named.card[:-1] in COURTS and (
        named.card[-1] in BLACK_SUITS
        and looks.fields(None).black_suit not in (None, named.card[-1]))


def _face_denies(card: str, face: Field) -> bool:
    """Whether ``face`` (the card as first dewarped, beyond the usual index corners) shows
    more pips alike than ``card``'s rank, or two or more pips clearly of another suit: a
    card read a quarter round must not, its pips' count and suit the same either way (a
    10H whose outline cut its index was named 6D so, ten hearts plain upright).

    >>> tens = Field(10, 0, False, "H", alike=10)
    >>> _face_denies("6D", tens), _face_denies("6H", tens), _face_denies("10H", tens)
    (True, True, False)
    >>> _face_denies("10D", tens), _face_denies("KD", Field(2, 0, True, "D"))
    (True, False)
    """
    suit = face.suit or face.pooled_suit
    return shows_more_pips(face, card[:-1]) or (
        suit is not None and face.pips >= 2 and suit != card[-1])


LARGE_INDEX = 100
"""How far down a card (canonical pixels of its 280) a large index reaches, its suit as
large as the pips or larger: the blurred pips' suit together (:attr:`Field.pooled_suit`)
is then no clearer than the index's. Indices read surely in the held-out designs reach
40-79 px or 100-129 px; an ornamental 3S and 9S lit unevenly, read surely in both
corners, were refused, their small pips pooled as clubs."""

def _beyond_doubt(read: list[CornerReading], th: Thresholds) -> bool:
    """Whether two corners read one card so surely, each clear of the card's edges, that a
    face plainly showing that card (:func:`vision.face.shows_plainly`) need not be read
    whole: its blobs named one by one cost half the card's reading."""
    return len(read) == 2 and len({r.card for r in read}) == 1 and all(
        r.p >= th.face_unasked and r.inset >= INDEX_INSET for r in read)
