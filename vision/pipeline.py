"""One frame in, identified cards out: detection plus the deck's identifier."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.backs import shows_its_back
from vision.blurred_suits import black_suit_seen
from vision.covered import covered_cards, part_of
from vision.decks import BLACK_SUITS
from vision.detect import (
    DetectorSettings,
    FoundCard,
    Outline,
    _overlaps_another,
    dewarp,
    find_cards_halved,
    find_cards_with_alternates,
    inside,
    portrait,
    quad_iou,
)
from vision.edges import snapped_to_edges
from vision.enrolled import Gallery, Match, default_store
from vision.frame_cut import cut_by_frame
from vision.neighbours import of_the_tables_pattern, sized_like_its_neighbours
from vision.one_corner import one_index_covered, twins_dropped
from vision.outline_moves import corners_put_back, grown, pushed, sides_out, voted
from vision.piles import cards_round
from vision.play_area import PlaceTest, centre_of
from vision.readings import Reading
from vision.refusal import Refusal
from vision.second_look import card_round_print, cards_round_panel
from vision.sharpened import read_sharpened
from vision.spread import row_top
from vision.standard import identify_standard, read_corners
from vision.textured import round_named_cards, textured_table, the_table_inside
from vision.thresholds import Thresholds
from vision.whole_frame import close_up, frame_as_card

Image = NDArray[np.uint8]

GUESS_ROUND_PX = Thresholds.small_card_px
"""Least width (image pixels) of an unread card round which cards on a pile are guessed."""

GUESS_OVERLAP = 0.3
"""Overlap (IoU) of a guess at a card on a pile with a card found, above which the two are
one card."""

DETECT_LONGEST_SIDE = 2000
"""A frame longer than this (pixels) is looked at shrunk to it, and what is found is
scaled back: the reader's edge and ink thresholds were set on frames of 640-1280 px (the
table camera's is 1280 x 720). A phone's 12-megapixel photo grades a card's edge over
several of its pixels (lens, focus), which those thresholds take for no edge: the real
photos enlarged 4 times read 175 of 196 cards whole, 183 shrunk to 2000 px (190 as taken),
twice as fast; the webcam photos enlarged 6 times (3840 x 2880), 59 of 64 shrunk. Not
smaller: shrunk to 1280 px the enlarged photos read 187, but small cards of sharp
rendered 3200 x 1800 frames (120-155 px, tilted, blurred a little) 88 of 96, where
shrunk to 2000 px they read 95; frames up to 2000 px, a 1920 x 1080 camera's among
them, are looked at whole."""

MIN_SIDE_PX = 40.0
"""A standard card whose short sides are narrower than this (mean of the two, in image
pixels) is reported as too small without being read: its corner index is a few pixels
of ink, and a guess from it would risk a wrong card."""

MIN_SIDE_PX_TAUGHT = 30.0
"""The same for a taught deck, which compares the whole face and so reads smaller cards
(rendered scenes: quads of 38-40 px named right, none wrong)."""

INDEX_MARGIN = 0.04
"""How much larger (in card widths) a standard card that did not read is tried again."""

BORDER_GUESSES = (0.06, 0.10)
"""Widths (in card widths) of a printed white border that blur or a light table can hide:
a card found by its coloured panel alone is tried again this much larger."""


SIDE_PUSHES = (0.12,)
"""How far (in card widths) one side of an overlapped card that did not read is pushed
outwards, a side at a time. Where a card lies over another of the same white, the
outline of the pile can put one side of it well inside the card, through its index.
(Pushing a quarter of a card further named one more held-out card in 56 and cost 12 ms
an overlap frame.)"""


@dataclass(frozen=True, eq=False)  # compared by identity: it holds an array
class Detection:
    """A card found in an image; ``card`` is ``None`` when not identified with confidence."""

    card: str | None
    quad: NDArray[np.float32]  # 4 x 2 image pixels, starting at a short (top or bottom) side
    score: float
    reason: Refusal | None = None
    """Why ``card`` is ``None`` (``None`` when it was named)."""

    def to_json(self) -> dict[str, object]:
        """The command line's and the camera API's form; ``reason`` is ``null`` when named.

        >>> q = np.float32([[0, 0], [50, 0], [50, 70], [0, 70]])
        >>> Detection(None, q, 0.0, Refusal.GLARE).to_json()["reason"]
        'glare'
        """
        return {"card": self.card,
                "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in self.quad],
                "score": round(self.score, 3),
                "reason": None if self.reason is None else self.reason.value}


def short_side(quad: NDArray[np.float32]) -> float:
    """The mean length of a portrait quad's two short sides (its first and third), in pixels.

    >>> short_side(np.float32([[0, 0], [30, 0], [34, 50], [0, 50]]))
    32.0
    """
    q = np.asarray(quad, np.float64)
    return float(np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[3] - q[2])) / 2


_CUT_INDEX = frozenset({Refusal.INDEX_NOT_FOUND, Refusal.RANK_UNCLEAR, Refusal.SUIT_UNCLEAR})
"""Refusals an index cut by a side drawn inside the card can give."""


def _black_named_surely(found: Detection) -> Detection:
    """``found`` in a frame so blurred that only a look at half its size outlined anything
    (:func:`vision.detect.find_cards_halved`), unnamed where it is a spade or a club named
    by its face (its reading capped at :attr:`Thresholds.glyph`) or by unsure corners:
    blurred so, a spade's index and pips look a club's (two wrong of 15 cards the look
    found in the real photos blurred 2.5 px)."""
    if found.card is None or found.card[-1] not in BLACK_SUITS or found.score > Thresholds.glyph:
        return found
    return replace(found, card=None, reason=Refusal.SUIT_UNCLEAR)


CLUSTER_AREA = 2.0
"""Area, in the cards named (their median), from which an unread outline is round several
cards that the first look did not tell apart (:func:`_cluster_unread`)."""


def _cluster_unread(first: list[Detection]) -> bool:
    """Whether an unread outline among ``first`` is as large as :data:`CLUSTER_AREA` cards
    named there: cards touching each other, outlined as one, that the look at the frame
    halved may part (a real photo tilted 35 deg: four cards outlined as one beside a 6S
    named, read at half size when nothing else was named).

    >>> card = np.float32([[0, 0], [10, 0], [10, 14], [0, 14]])
    >>> _cluster_unread([Detection("2C", card, 1.0), Detection(None, 3 * card, 0.0)])
    True
    """
    areas = [float(cv2.contourArea(d.quad)) for d in first if d.card is not None]
    return bool(areas) and any(d.card is None and cv2.contourArea(d.quad) >= CLUSTER_AREA * float(
        np.median(areas)) for d in first)


def _last_checks(r: Reading, card: Image, side: float,
                 ) -> tuple[str | None, float, Refusal | None]:
    """A standard card's reading after every retry, checked last: a black suit that blur
    has made unsure (:func:`vision.blurred_suits.black_suit_seen`), then a back read as a
    face (:func:`_face_up`); each retry may have named either."""
    return _face_up(_outcome(black_suit_seen(r, card, side, lambda: read_corners(card)[1])),
                    card)


def _face_up(read: tuple[str | None, float, Refusal | None], card: Image,
             ) -> tuple[str | None, float, Refusal | None]:
    """``read``, unless it names a card that shows its back
    (:func:`vision.backs.shows_its_back`): a back's pattern can read as an index."""
    if read[0] is not None and shows_its_back(card):
        return None, 0.0, Refusal.CARD_BACK
    return read


def _outcome(r: Reading | Match) -> tuple[str | None, float, Refusal | None]:
    """A reader's answer as (card, score, reason); a named card carries no reason."""
    return r.card, r.score, None if r.card is not None else r.reason


class Recognizer:
    """Finds and identifies the cards of one deck (``standard`` or an enrolled gallery)."""

    def __init__(self, deck: str | Gallery, store: Path | None = None,
                 settings: DetectorSettings | None = None) -> None:
        if isinstance(deck, Gallery):
            self.gallery: Gallery | None = deck
        elif deck == "standard":
            self.gallery = None
        else:
            self.gallery = Gallery.load(store or default_store(), deck)
        self.deck = "standard" if self.gallery is None else self.gallery.deck
        self.settings = settings or DetectorSettings()

    def identify(self, card: Image) -> tuple[str | None, float]:
        """Identify one canonical card image."""
        name, score, _ = self.read(card)
        return name, score

    def read(self, card: Image) -> tuple[str | None, float, Refusal | None]:
        """Identify one canonical card image, with the reader's reason when it stays unknown
        (a card that shows its back is refused as one, read as a face (:func:`_face_up`) or
        read as nothing, of the standard deck or of a taught deck that matches it to none; a
        taught deck's card that matches the deck's own back, where it was taught, too)."""
        if self.gallery is not None:
            taught = self.gallery.identify(card)  # (its own back, if taught, refused there)
            if taught.card is None and taught.reason is not Refusal.CARD_BACK and (
                    shows_its_back(card)):
                return None, 0.0, Refusal.CARD_BACK  # (no face of our decks shows a back)
            return _outcome(taught)
        # named or not (as :meth:`_read_quad` and :func:`_face_up` say of an outline)
        read = _outcome(identify_standard(card))
        return (None, 0.0, Refusal.CARD_BACK) if shows_its_back(card) else read

    def _read_quad(self, image: Image, quad: NDArray[np.float32], overlapped: bool = False,
                   retry: bool = True, own_sides: bool = False, cut: bool = False,
                   ) -> tuple[str | None, float, Refusal | None]:
        """``retry``: an unread card is read again: a small one in its outline shifted a
        part of a pixel (:func:`vision.outline_moves.voted`), a larger one in outlines a
        little larger, then sharpened (:func:`vision.sharpened.read_sharpened`), or a
        quarter round (not a guess at a card on a pile, whose outline lies on its sides'
        edges, in a card's proportions). ``own_sides``: ``quad`` lies on the card's own
        sides, found or guessed on a pile's (not a row's top card guessed from its strip):
        over or under others, its other corner may be hidden (:func:`identify_standard`).
        ``cut``: the frame cut the card there, its pips too (as where ``quad`` runs out of
        ``image``)."""
        side = short_side(quad)
        if side < (MIN_SIDE_PX if self.gallery is None else MIN_SIDE_PX_TAUGHT):
            return None, 0.0, Refusal.TOO_SMALL
        if self.gallery is not None:
            return self.read(dewarp(image, quad))
        card = dewarp(image, quad)
        r = identify_standard(card, card_px=side, overlapped=overlapped, may_turn=retry,
                              hidden=cut or cut_by_frame(quad, image.shape[1], image.shape[0]),
                              own_sides=own_sides)
        if r.card is None and shows_its_back(card):
            # a card face down (a draw pile): said so, and not read again, as no retry can
            # name it (:func:`_face_up` refuses what they name there)
            return None, 0.0, Refusal.CARD_BACK
        if not retry:
            return _last_checks(r, card, side)
        if r.card is None and r.reason is not Refusal.GLARE:
            if side < Thresholds.small_card_px:
                # a small card's few-pixel index read once more is read wrong more often:
                # a vote of shifted outlines instead (not over or under another card)
                if not overlapped:
                    r = voted(image, quad, side) or r
            else:
                # blur pulls an outline inwards, and an index printed close to the edge is
                # then cut: read it again a little larger
                bigger = grown(quad, INDEX_MARGIN)
                larger = dewarp(image, bigger) if inside(bigger, image) else None
                if larger is not None:
                    again = identify_standard(larger, card_px=side, overlapped=overlapped,
                                              own_sides=own_sides)
                    if again.card is not None:
                        r = again
                # ... or, once nothing else has named it, sharpened, in both outlines
                for seen in (card, larger):
                    if seen is not None:
                        r = read_sharpened(r, seen, side, overlapped)
        if r.card is None and overlapped and r.reason in _CUT_INDEX:
            r = self._pushed_out(image, quad, side) or r
        return _last_checks(r, card, side)

    def _pushed_out(self, image: Image, quad: NDArray[np.float32], side: float,
                    ) -> Reading | None:
        """An overlapped card read again larger, then with one side at a time pushed
        outwards, both corners reading it (not one beside pips that a side pushed wrong may
        cut short: a small 10H on pine, its bottom row cut, named 8H), never a quarter
        round (read turned, a nine's index and a seven's pips named a KD not there)."""
        tries = [grown(quad, SIDE_PUSHES[0])] + [
            pushed(quad, which, amount) for amount in SIDE_PUSHES for which in range(4)]
        small = side < Thresholds.small_card_px
        for moved in tries:
            if inside(moved, image):
                seen = dewarp(image, moved)
                again = identify_standard(seen, card_px=side, overlapped=True, may_turn=False)
                if again.card is not None and [r.card for r in read_corners(
                        seen, small=small)[0]] == [again.card] * 2:
                    return again
        return None

    def _taught_guesses(self, image: Image, q: NDArray[np.float32],
                        alternates: Sequence[Outline],
                        ) -> Iterator[list[NDArray[np.float32]]]:
        """Other outlines of a taught card that ``q`` did not read, most likely first, in
        groups of which the best read is taken (each group made only when the ones before
        it read nothing); last, ``q`` with a corner that a card or a hand over it cut off put
        back (:func:`vision.outline_moves.corners_put_back`)."""
        yield from ([portrait(alt.quad())] for alt in alternates)  # (``q`` may be a halo)
        # a panel printed on a card whose faint sides the frame's edges missed: the card round it
        around = cards_round_panel(image, q, self.settings)
        if around:
            yield [portrait(around[0])]
        for border in BORDER_GUESSES:
            bigger = grown(q, border)
            if not inside(bigger, image):
                break
            yield [bigger]
        # the deck's own panel, its card's outline merged with others': the card round
        # it, each way up the panel may have been outlined (a card grown the wrong way
        # can read too, less well)
        sides = self.gallery.panel_sides if self.gallery is not None else None
        if sides is not None:
            outlines = (sides_out(np.roll(q, turn, axis=0), *sides) for turn in range(4))
            yield [portrait(o) for o in outlines if inside(o, image)]
        yield [portrait(c) for c in corners_put_back(q) if inside(c, image)]

    def detect(self, image: Image, counts: PlaceTest | None = None) -> list[Detection]:
        """Every card quad in ``image`` with its identity (or ``None``); with ``counts``,
        only the cards centred where it says cards count (the play area), and no time is
        spent reading or guessing at anything elsewhere. A frame longer than
        :data:`DETECT_LONGEST_SIDE` is looked at shrunk to it (the quads are given in
        ``image``'s pixels)."""
        h, w = image.shape[:2]
        if max(h, w) <= DETECT_LONGEST_SIDE:
            return self._detect(image, counts)
        scale = DETECT_LONGEST_SIDE / max(h, w)
        shrunk = np.asarray(cv2.resize(image, (round(w * scale), round(h * scale)),
                                       interpolation=cv2.INTER_AREA), np.uint8)
        place = None if counts is None else (
            lambda point: counts((point[0] / scale, point[1] / scale)))
        return [replace(d, quad=np.asarray(d.quad / scale, np.float32))
                for d in self._detect(shrunk, place)]

    def _detect(self, image: Image, counts: PlaceTest | None) -> list[Detection]:
        """The cards of every look (:meth:`_looks`), but unread outlines with the table
        inside them (:func:`vision.textured.the_table_inside`: a tiled floor's tiles) or
        round named cards (:func:`vision.textured.round_named_cards`), dropped only now:
        on a textured table they call for the look at the frame halved."""
        seen = self._looks(image, counts)
        named = [d.quad for d in seen if d.card is not None]
        return [d for d in seen if d.card is not None or not (
            the_table_inside(image, d.quad, sliver=d.reason is Refusal.TOO_SMALL)
            or round_named_cards(d.quad, named))]

    def _looks(self, image: Image, counts: PlaceTest | None) -> list[Detection]:
        """The cards found and read; where nothing was named, those of a second look at
        the frame halved (:func:`vision.detect.find_cards_halved`) beside the first look's
        outlines that lie under none of its: blur 2.5 px spreads a white card's edge on a
        light table below the edge thresholds (figures in docs/vision.md, taught decks'
        too). Where neither names anything, the frame itself may be one standard card
        (:meth:`_frame_read`), or hold one close up (:meth:`_close_up_read`). Where the
        first look named cards but left an outline round several unread
        (:func:`_cluster_unread`), the second look's cards that lie under none named join
        them; so do those it names where the first left any outline unread on a textured
        table (:func:`vision.textured.textured_table`), or, for a taught deck, on any
        textured table: a taught card's white on a busy table often has no outline of its
        own to the first look (read there only what the first did not name). Cards guessed
        from two sides (a white card on white paper) are read by a taught deck too:
        guillex7's deck taught from one photo a card 24 -> 25 of 26."""
        found = find_cards_with_alternates(image, self.settings, piles=True, squares=True,
                                           counts=counts)
        first = self._read_found(image, counts, found) if found else []
        named = [d for d in first if d.card is not None]
        apart = bool(named) and not _cluster_unread(first)
        taught = self.gallery is not None
        if apart and ((len(named) == len(first) and not taught) or not textured_table(image)):
            return first
        named_quads = [n.quad for n in named]
        halved = find_cards_halved(image, self.settings, counts)
        if apart and taught:  # (what the first look named is not read again)
            halved = [f for f in halved if not _overlaps_another(f.quad, named_quads)]
        second = self._read_found(image, counts, halved, halved=True)
        if apart:
            # an unread outline on a textured table: the look at the frame halved outlines
            # cards more cleanly there, and may find those the first look left out
            more = [d for d in second if d.card is not None
                    and not _overlaps_another(d.quad, named_quads)]
            return named + more + [d for d in first if d.card is None and not _overlaps_another(
                d.quad, [m.quad for m in more])]
        if named:
            return named + [d for d in second
                            if not _overlaps_another(d.quad, [d.quad for d in named])]
        if not any(d.card is not None for d in second):
            return (self._frame_read(image, counts) or self._close_up_read(image, counts)
                    or first or second)
        return second + [d for d in first
                         if not _overlaps_another(d.quad, [d.quad for d in second])]

    def _frame_read(self, image: Image, counts: PlaceTest | None) -> list[Detection]:
        """The frame itself read as one standard card (:func:`whole_frame.frame_as_card`),
        as a list of it or of nothing. Not a taught deck's: the webcam deck's photos cropped
        to the card named 60 of 64 so, but a 7C and a 6C as spades, as sure as of the rest."""
        quad = None if self.gallery is not None else frame_as_card(image)
        q = None if quad is None else portrait(quad)
        if q is None or (counts is not None and not counts(centre_of(q))):
            return []
        # both index corners must read it, as for a card over another: a card the frame
        # cut shows its index at one of the frame's corners at most
        card, score, _ = self._read_quad(image, q, overlapped=True)
        return [Detection(card, q, score, None)] if card is not None else []

    def _close_up_read(self, image: Image, counts: PlaceTest | None) -> list[Detection]:
        """One standard card covering most of the frame, read in the frame laid in a border
        (:func:`whole_frame.close_up`), as a list of it or of nothing. The real photos cropped
        to their cards' boxes: 176 -> 191 of 196; cut 10-50 % more: 47 -> 89 of 392."""
        look = None if self.gallery is not None else close_up(image, self.settings, counts)
        if look is None or not look.cards:
            return []
        named = [d for d in self._read_found(look.framed, look.counts, look.cards,
                                                 outlined_only=True)
                 if d.card is not None]
        one = [replace(d, quad=look.in_frame(d.quad)) for d in named]
        return one if len(one) == 1 and look.filled_by(one[0].quad) else []

    def _read_found(self, image: Image, counts: PlaceTest | None, everything: list[FoundCard],
                    halved: bool = False, outlined_only: bool = False) -> list[Detection]:
        """Each card ``everything`` holds read (guesses on piles kept only where they read);
        ``halved``: found in the frame halved, so blurred that a standard card of a black
        suit named unsurely is left unnamed (:func:`_black_named_surely`). ``outlined_only``:
        a close-up's, only a card outlined whole counts: no guesses round an unread outline,
        no row's top card, no card under others (parts of an outline, at a high cost)."""
        out: list[Detection] = []
        overlapped: set[int] = set()  # (the ids of those read over or under others)
        guesses = []
        outlined = [f for f in everything if not f.guessed]
        for found in everything:
            q = portrait(found.quad)
            if counts is not None and not counts(centre_of(q)):
                continue
            if found.guessed:
                guesses.append(q)
                continue
            # a fallback below that names the card replaces the quad (else the reason stays)
            card, score, reason = self._read_quad(image, q, found.overlapped, own_sides=True,
                                                  cut=found.cut)
            if (card is None and found.overlapped and self.gallery is None
                    and reason is Refusal.INDEX_NOT_FOUND and one_index_covered(
                        q, [f.quad for f in outlined if f is not found])):
                # one index corner under a card lying over it, which shows no index there:
                # the other corner, clear, is the card's own
                card, score, _ = self._read_quad(image, q, overlapped=False, retry=False)
            if card is None and reason is not Refusal.TOO_SMALL and not found.overlapped:
                (card, score, reason), q = self._read_snapped(image, q, (card, score, reason))
            if (card is None and reason is Refusal.INDEX_NOT_FOUND and not found.overlapped
                    and self.gallery is None):
                (card, score, reason), q = self._read_round_print(
                    image, q, (card, score, reason), [f.quad for f in outlined if f is not found])
            if card is None and self.gallery is not None:
                for group in self._taught_guesses(image, q, found.alternates):
                    reads = [(self._read_quad(image, guess), guess) for guess in group]
                    named = [(read, guess) for read, guess in reads if read[0] is not None]
                    if named:
                        (card, score, _), q = max(named, key=lambda rg: rg[0][1])
                        break
            if card is None and (found.square or found.two_sided):
                continue  # a square thing, unless it reads as a foreshortened card
            out.append(Detection(card, q, score, None if card is not None else reason))
            if found.overlapped:
                overlapped.add(id(out[-1]))
        # an unread outline may be round two cards of a pile: guesses round it too (not
        # round a small card, unread for its few-pixel index, nor one unread for glare or
        # its suit)
        unread = [d.quad for d in out if d.card is None and d.reason not in _NO_PILE
                  and short_side(d.quad) >= GUESS_ROUND_PX
                  and not cut_by_frame(d.quad, image.shape[1], image.shape[0])]
        if unread and not outlined_only:
            round_unread = [portrait(g) for g in cards_round(
                image, unread, [d.quad for d in out] + guesses, self.settings)]
            guesses += [g for g in round_unread if counts is None or counts(centre_of(g))]
        for guess in guesses:
            self._guess_on_pile(image, guess, out, overlapped)
        if self.gallery is None and not outlined_only:
            # an outline still unread (a guess on a pile outlines a card more closely) round
            # a row of cards spread along it: its top card lies whole at one of its ends
            names = {d.card for d in out if d.card is not None}
            whole = partial(self._read_quad, image, overlapped=True, retry=False)
            for k, d in enumerate(out):
                top = None if d.card or d.reason is Refusal.CARD_BACK else row_top(
                    d.quad, whole, names)
                if top is not None:
                    names.add(top[0])
                    out[k] = Detection(top[0], top[1], top[2], None)
            # cards under others, by an index corner in view (each replaces the unread
            # outlines of its part in view); after the look at the frame halved too (it
            # finds the top card of a row the first look missed)
            for card, quad, p in covered_cards(image, [(d.card, d.quad) for d in out]):
                if counts is None or counts(centre_of(quad)):
                    out = [d for d in out if d.card or not part_of(d.quad, quad)]
                    out.append(Detection(card, portrait(quad), p, None))
        # unread outlines of a table's pattern (tiles, specks beside the cards named) go
        unnamed = [d for d in out if d.card is None]
        pattern = {id(d) for d, no_card in zip(unnamed, of_the_tables_pattern(
            [d.quad for d in unnamed], [d.quad for d in out if d.card is not None]),
            strict=True) if no_card}
        out = [d for d in out if id(d) not in pattern]
        if self.gallery is not None:
            return out  # (a taught deck may hold a card twice)
        out = twins_dropped(out, overlapped)
        return [_black_named_surely(d) for d in out] if halved else out

    def _read_snapped(self, image: Image, quad: NDArray[np.float32],
                      first: tuple[str | None, float, Refusal | None],
                      ) -> tuple[tuple[str | None, float, Refusal | None], NDArray[np.float32]]:
        """A small card that did not read, read again in its outline moved onto its edges
        (:mod:`vision.edges`): the reading and outline that named it, else ``first`` and
        ``quad``. Only small cards: a few pixels off is a tenth of one, and a larger
        card's printed frame can be the stronger edge."""
        if short_side(quad) >= SNAP_BELOW_PX:
            return first, quad
        snapped = snapped_to_edges(image, quad)
        if snapped is None or float(np.abs(snapped - quad).max()) < SNAP_LEAST_MOVE_PX:
            # (an outline that barely moved is the one read: read again, only the pixels'
            # noise differs, and a small card's index read once more is read wrong more)
            return first, quad
        again = self._read_quad(image, snapped)
        return (again, snapped) if again[0] is not None else (first, quad)

    def _read_round_print(self, image: Image, quad: NDArray[np.float32],
                          first: tuple[str | None, float, Refusal | None],
                          others: list[NDArray[np.float32]],
                          ) -> tuple[tuple[str | None, float, Refusal | None],
                                     NDArray[np.float32]]:
        """A card whose outline showed no index, read in the outline of the card it may be
        a panel printed on (:func:`vision.second_look.card_round_print`): the reading and
        outline that named it, else ``first`` and ``quad``. Not an outline over ``others``
        (the other cards found, not guessed): on a pile, the edges round a court's picture are
        other cards' too, and their hull is no card (a QH named in an outline round it and
        the card beside it). The real photos in haze: 173 -> 179 of 196 read; a third as
        bright 185 -> 188; rendered frames unchanged."""
        around = card_round_print(image, quad, self.settings)
        if around is None or _overlaps_another(around, others):
            return first, quad
        card = portrait(around)
        again = self._read_quad(image, card)
        return (again, card) if again[0] is not None else (first, quad)

    def _guess_on_pile(self, image: Image, quad: NDArray[np.float32],
                       out: list[Detection], overlapped: set[int]) -> None:
        """A guess at a card on a pile (:mod:`vision.piles`), kept only where it reads: as
        a card of its own, or in place of an unread card it mostly overlaps (that card's
        outline ran into the pile's), never over a card already named there; its id joins
        ``overlapped``, those read over or under others (:func:`twins_dropped`)."""
        over = [k for k, d in enumerate(out) if quad_iou(d.quad, quad) > GUESS_OVERLAP]
        if any(out[k].card is not None for k in over):
            return
        named = [d.quad for d in out if d.card is not None]
        if not sized_like_its_neighbours(quad, named):
            return
        if self.gallery is not None and _overlaps_another(
                quad, named,
                GUESS_COVERED if self.gallery.near_twins else GUESS_COVERED_NO_TWINS):
            # part of a taught card under another may be what tells it from its near
            # twins (a star apart): its reading cannot say what it does not see
            return
        card, score, _ = self._read_quad(image, quad, overlapped=True, retry=False,
                                         own_sides=True)
        if card is None:
            return
        for k in sorted(over, reverse=True):
            del out[k]
        out.append(Detection(card, quad, score, None))
        overlapped.add(id(out[-1]))


_NO_PILE = (Refusal.GLARE, Refusal.SUIT_UNCLEAR, Refusal.CARD_BACK)
"""Why an unread outline is no outline round two cards of a pile: glare over a card, a
rank read but not its suit (a blurred spade or club, :func:`black_suit_seen`: guessed
round, a 10S read its outline cut as a 6S), a card's back (the one 10D named on 120
published backs laid on tables was a guess round one)."""

SNAP_BELOW_PX = Thresholds.small_card_px
"""Short side (image pixels) below which a card that did not read is read again in its
outline moved onto its edges. Rendered small cards at fresh seeds: 238 -> 253 of 256 of a
taught published deck, 117 -> 121 of 128 of the published designs, none wrong."""

SNAP_LEAST_MOVE_PX = 1.0
"""Least move of a corner (image pixels, in x or y) for an outline moved onto its edges
to be read again. Two small cards whose outlines moved 0.2 px were named wrong (a jack a
three, a club a spade); four that moved 0.6-0.9 px were named right."""

GUESS_COVERED = 0.03
"""Fraction of a guessed taught card under (or over) a card found, from which it is not
read: the part hidden may be what tells it from its near twins. At 0.5 Star Catcher's
overlapping scenes (seeds 76000-76039) named 11 cards more and one wrong."""

GUESS_COVERED_NO_TWINS = 0.5
"""The same for a deck whose cards mostly have no near twin (:attr:`Gallery.near_twins`):
a guess's outline into a card beside it (or a corner under it) hides no mark that only one
card of the deck bears, and where what is left shows too little, the gallery's own check
past a cover leaves it unknown (:mod:`vision.taught_cover`). Up from 0.03 to 0.15, it read
9 more overlapping cards in 334 of a taught published deck and 5 in 325 of Star Plus
(fresh seeds), none wrong; up to 0.5, cards 35-85 % in view under another in the
overlapping scenes (seeds 76000-77039, 80 scenes a deck) 12 -> 23 of 176 of the taught
published deck, 16 -> 31 of 171 of Star Plus, 26 -> 30 of 177 of Can't Catch Harry, and 3
more in full view, none wrong (as many at 0.7 and 1.0); an overlapping frame costs 10-25
ms more (more guesses read); the real photos of a taught deck as before."""
