"""Taught decks: one reference image per distinct card, open-set matching.

A dewarped card is compared with every reference as a whole-card perceptual
descriptor (see :mod:`vision.taught_views`: lighting gain and offset cancel out), in
both 180-degree orientations. A match is accepted only when it is good in absolute
terms *and* clearly beats the best other card; anything else is "unknown", with the
reason why (:class:`~vision.refusal.Refusal`), because a wrong card is worse than none.

Near-identical faces (``D7``, ``D7*``, ``D7**``) are settled by a second stage
that compares a larger view only where the close candidates differ. The card
is first shifted into place (phase correlation) and must then win by a wider
margin; only when that is not clear is it fitted onto the best candidate
(affine ECC, the costly part) and judged with the usual margin. A card that
matches only fairly (below ``sure_score``) must also beat each card most like
it where the two differ, leaving out saturated light.

Glare can hide evidence, never make one card look like another: an unknown that
shows light its reference does not explain is looked at again by its detail, and a
named card that the detail contradicts, or that shows through the glare a mark only
a rival prints, becomes unknown (:mod:`vision.taught_glare`).

A card that the whole-card comparison leaves unknown (a real photo: perspective the
dewarp did not quite undo, blur, another light; a finger or another card over part
of it; a card taken a quarter-turn round) is matched part by part by its keypoints
(:mod:`vision.taught_keypoints`); the best fit lays the card onto its reference,
where the stages above judge it again, past any cover (:mod:`vision.taught_cover`).
This runs only on the few cards the first look leaves unknown.

A card still unknown may lie in a shadow cast across it (an arm, a phone): a step of
light, which the light's gain and offset do not cancel. Fitted against the reference most
like it, the shadow is lifted (:mod:`vision.taught_shade`) and the card read again; its
keypoints must bear the name out.

The parts, one job each:

* :mod:`vision.taught_views` - the descriptor, fine view and detail of a card;
* :mod:`vision.taught_evidence` - per-pixel light, glare and cover evidence;
* :mod:`vision.taught_keypoints` - ORB keypoints and the affine fit;
* :mod:`vision.taught_shade` - a shadow across a card, fitted and lifted;
* :mod:`vision.taught_store` - teaching from a folder, and the deck store on disk;
* :mod:`vision.taught_references` - a deck's faces and what is derived from them;
* :mod:`vision.taught_glare`, :mod:`vision.taught_cover` - the gallery's checks;
* this module - the gallery's stages, and the names the rest of the project imports.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, partial
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import CARD_H, CARD_W
from vision.refusal import Refusal
from vision.taught_cover import SHORTLIST, CoverChecks
from vision.taught_evidence import (
    PRINT_CLEAR,
    SATURATED,
    beats_past_cover,
    glare_spots,
    least_channel,
    lit_like,
    may_show_marks,
    print_shows,
)
from vision.taught_glare import GlareChecks
from vision.taught_keypoints import Features, features, quarter_turned
from vision.taught_references import RIVALS, Ref
from vision.taught_shade import fitted_shadow, relit
from vision.taught_store import (
    BACK,
    CARD_ID,
    CARD_SHAPED,
    FORMAT_VERSION,
    PHOTO_SETTINGS,
    EnrollmentError,
    canonical_from_photo,
    default_store,
    load_faces,
    load_folder,
    save_faces,
    valid_deck_name,
)
from vision.taught_views import (
    DESC_SIZE,
    FINE_SIZE,
    ONES,
    aligned,
    describe,
    descriptor_of,
    fine_of,
    fine_view,
    inner_part,
    matvec,
    phase_shift,
    warped,
)

__all__ = [
    "BACK", "CARD_ID", "CARD_SHAPED", "DESC_SIZE", "FINE_SIZE", "FORMAT_VERSION", "PHOTO_SETTINGS",
    "EnrollmentError", "Features", "Gallery", "Match", "aligned", "canonical_from_photo",
    "default_store", "describe", "enroll_folder", "features", "fine_view", "load_folder",
    "matvec", "quarter_turned", "valid_deck_name",
]

Image = NDArray[np.uint8]

KP_FLOOR = 0.3  # a card no reference is even this alike (either view) is not matched
KP_AGREE = 0.5  # the named card's own fit must have this fraction of the best fit's inliers
RIVAL_WINDOW = 0.2  # cards this close by descriptor are rivals to a fair likeness
NEAREST = 3  # and this many of the cards most like the named one
SHADED_INLIERS = 24  # keypoints a card relit (see _in_shadow) must fit to its name
SHADED_MARGIN = 1.25  # and how many times more than they fit any other card most like it


@dataclass(frozen=True)
class Match:
    """A taught deck's answer for one card: the card named, or why it stays unknown.

    >>> Match(None, 0.4, 0.3, Refusal.NO_MATCH).reason.value
    'no match'
    >>> Match(None, 0.4, 0.3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: an unknown card needs a reason from vision.refusal.Refusal ...
    """

    card: str | None
    score: float
    runner_up: float
    reason: Refusal | None = None
    """Why ``card`` is ``None`` (``None`` when it was named)."""

    def __post_init__(self) -> None:
        if self.card is None and not isinstance(self.reason, Refusal):
            raise ValueError("an unknown card needs a reason from vision.refusal.Refusal "
                             f"(got {self.reason!r})")
        if self.card is not None and self.reason is not None:
            raise ValueError(f"card {self.card!r} was named, so it has no refusal reason")


@dataclass(frozen=True, eq=False)
class _Look:
    """What the first and second stages made of a card."""

    found: int | None
    best: float
    second: float
    reason: Refusal
    per_card: NDArray[np.float32]
    doubted: bool  # named, then refused by a check: another look would only doubt it again


@dataclass(frozen=True)
class Gallery(GlareChecks, CoverChecks):
    """The references of one deck, and how a card is read against them."""

    min_score: float = 0.80
    min_margin: float = 0.07
    sure_score: float = 0.95  # a card named below it must beat its rivals where they differ
    hold_clear: float = 0.25  # how clearly (see _holds)
    window: float = 0.12  # cards this close to the best go to the fine comparison
    min_clear: float = 0.4  # how clearly the aligned card must be one of the close cards
    quick_clear: float = 0.6  # the same after a shift only, before the affine fit
    # glare (see _through_glare): unknowns scoring at least glare_score are looked at again
    glare_score: float = 0.5
    glare_detail: float = 0.6  # least detail correlation of a card seen through glare
    glare_window: float = 0.15  # rivals this close in detail must be clearly beaten
    glare_found: float = 0.03  # fraction of the card that only glare explains
    glare_usable: float = 0.5  # fraction of the card that glare must not have washed out
    glare_visible: float = 0.25  # fraction that must be free of glare, to check its colour
    glare_differ: float = 0.5  # fraction of where two rivals differ that must be seen

    @property
    def near_twins(self) -> bool:
        """Whether most cards have a near-identical twin (Star Catcher's, a star apart):
        then a card partly hidden may pass for its twin."""
        return self._alike

    @cached_property
    def _alike(self) -> bool:
        """Whether most cards have a near-identical twin (and so usually need the second
        stage): then the fine view is made first and the descriptor from it (halving it
        gives the same up to rounding), not both from the card (area averaging at odd
        ratios is slow)."""
        if len(self.cards) < 2:
            return False
        scores = self._likeness.copy()
        np.fill_diagonal(scores, -1.0)
        return bool(np.median(scores.max(axis=1)) >= 1.0 - 2 * self.min_margin)

    def identify(self, card: Image) -> Match:
        """The reference a canonical card shows, or ``card=None`` when not clearly one; a
        card that shows the deck's back, where it was taught (:data:`BACK`), is refused as
        a card back: matched to it, or left close between it and a face where it looks most
        like the back at first sight."""
        look = self._look(card)
        seen = self._seen(card, look)
        if seen.card == BACK or (seen.card is None and seen.reason is Refusal.AMBIGUOUS
                                 and self.cards[int(np.argmax(look.per_card))] == BACK):
            return Match(None, 0.0, 0.0, Refusal.CARD_BACK)
        return seen

    def _seen(self, card: Image, look: _Look) -> Match:
        """The reference ``card`` shows, its first look made (``look``)."""
        if look.found is None and self.faces is not None:
            seen = None if look.doubted else self._by_keypoints(
                card, look.per_card, look.reason == Refusal.GLARE)
            if seen is None:
                seen = self._in_shadow(card, look.per_card)
            if seen is not None:
                return seen
        return Match(None if look.found is None else self.cards[look.found], look.best,
                     look.second, None if look.found is not None else look.reason)

    def _in_shadow(self, card: Image, per_card: NDArray[np.float32]) -> Match | None:
        """The card named once relit, where a shadow across it explains how it differs from
        the reference most like it (:mod:`vision.taught_shade`), and its keypoints bear the
        name out: at least :data:`SHADED_INLIERS` fit the named card, and
        :data:`SHADED_MARGIN` times more than fit any other of the cards it is most like
        (not its near twins, which share its keypoints). Without that check a webcam deck's
        8C relit was named 8S, and a 6C 6S with no other card fitting at all. wmcnicho's
        real photos (64, taught from one photo of each card, read in the other) with a
        shadow's edge across them, light 0.3: 8 -> 37 read; a soft one, 0.5: 46 -> 56;
        none wrong."""
        assert self.faces is not None
        best = int(np.argmax(per_card))
        if float(per_card[best]) < KP_FLOOR:
            return None
        side = int(np.argmax(matvec(self.descriptors[best], describe(card))))
        reference = self.faces[best] if side == 0 else self.faces[best][::-1, ::-1]
        shadow = fitted_shadow(card, np.ascontiguousarray(reference))
        if shadow is None:
            return None
        lifted = relit(card, shadow)
        look = self._look(lifted)
        if look.found is None:
            return None
        named = look.found
        alike = [int(k) for k in np.argsort(-per_card)[:SHORTLIST]]
        fits = self._fits(features(lifted), per_card, tuple(dict.fromkeys([*alike, named])))
        rivals = [n for k, (n, _) in fits.items() if not self._twins[named, k]]
        mine = fits.get(named, (0, None))[0]
        if mine < SHADED_INLIERS or mine <= SHADED_MARGIN * max(rivals, default=0):
            return None
        return Match(self.cards[named], look.best, look.second)

    def _look(self, card: Image) -> _Look:
        """The first and second stages, with the checks against glare and rivals."""
        inner = inner_part(card, FINE_SIZE) if self._alike else None
        small = inner_part(card, DESC_SIZE) if inner is None else np.asarray(
            cv2.resize(inner, DESC_SIZE, interpolation=cv2.INTER_AREA), np.uint8)
        d = descriptor_of(small)
        scores = matvec(self.descriptors, d)  # cards x orientations
        per_card = scores.max(axis=1)
        order = np.argsort(-per_card)
        best = float(per_card[order[0]])
        second = float(per_card[order[1]]) if len(order) > 1 else -1.0
        reason = Refusal.NO_MATCH if best < self.min_score else Refusal.AMBIGUOUS
        found, fine = self._settle(card, inner, scores, per_card, order)
        doubted = False
        if found is None and len(order) > 1 and best >= self.glare_score and self._glared(
                small, (int(order[0]), int(np.argmax(scores[order[0]])))):
            # an unknown: a glare spot may have washed out what tells the cards apart
            reason = Refusal.GLARE
            found = self._through_glare(card, inner)
        elif found is not None:
            ref = fine or (found, int(np.argmax(scores[found])))
            if self._glared(small, ref):
                # glare brightens the close cards' differences unevenly and can fool the
                # second stage, or wash a mark out (a pip of a 3 gone: a 2): the detail,
                # which glare does not change, must not disagree, and what only a rival
                # prints must not show through (the detail agreeing is not enough where
                # near twins were told apart: it weighs a faint pip no more than paper)
                seen = self._through_glare(card, inner)
                showing: list[Ref] = []
                if (seen is not None and seen != found) or (
                        (seen is None or fine is not None)
                        and not self._holds(card, inner, ref, scores, True, showing)):
                    found, reason, doubted = None, Refusal.GLARE, True
                    if seen is None and len(showing) == 1 and self._holds(
                            card, inner, showing[0], scores, True):
                        # the one rival whose own print shows, where none of its rivals'
                        # does (a three taken for a two, its middle pip faded grey)
                        found, doubted = showing[0][0], False
                        best, second = float(per_card[found]), best
            elif best < self.sure_score and not self._holds(card, inner, ref, scores, False):
                # a fair likeness only: a rival that explains some part better must not
                # be left out (a mark washed out can turn a card into another)
                found, reason = None, Refusal.AMBIGUOUS
        return _Look(found, best, second, reason, per_card, doubted)

    def _by_keypoints(self, card: Image, per_card: NDArray[np.float32],
                      glared: bool = False) -> Match | None:
        """The card named once laid onto its reference by its keypoints, if any.

        ``per_card``: the first stage's scores of ``card``. The few best references are
        matched by their keypoints, both ways the card may have been taken (as found, and
        a quarter-turn round), and the best fit lays the card onto its reference; the
        first and second stages then judge that aligned card. Glare (``glared``) is no
        reason to think the card was taken a quarter-turn round: then it is looked at so
        only when it looks more like a taught card that way (a card taken sideways shows
        light where its reference has print, which the quick look takes for glare)."""
        views = [(card, per_card)]
        other = quarter_turned(card)
        views.append((other, matvec(self.descriptors, describe(other)).max(axis=1)))
        if glared and views[1][1].max() <= per_card.max():
            views.pop()
        views.sort(key=lambda t: -float(t[1].max()))
        if float(views[0][1].max()) < KP_FLOOR:
            return None
        for view, scores in views:
            feats = features(view)
            fits = self._fits(feats, scores)
            if not fits:
                continue
            i = max(fits, key=lambda k: fits[k][0])
            n, h = fits[i]
            aligned = np.asarray(cv2.warpPerspective(
                view, h, (CARD_W, CARD_H), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                borderMode=cv2.BORDER_REPLICATE), np.uint8)
            look = self._look(aligned)
            found, best, second = look.found, look.best, look.second
            if found is None and not look.doubted:
                shortlist = [int(k) for k in np.argsort(-scores)[:SHORTLIST]]
                shortlist += [k for k in fits if k not in shortlist]
                found, best, second = self._past_cover(aligned, h, view.shape, shortlist)
            if found is None:
                return None
            if found not in fits:
                fits.update(self._fits(feats, scores, (found,)))
            if fits.get(found, (0, None))[0] < KP_AGREE * n:
                return None  # the card's own keypoints do not bear the name out
            return Match(self.cards[found], best, second)
        return None

    def _holds(self, card: Image, inner: Image | None, ref: Ref,
               scores: NDArray[np.float32], glared: bool,
               shown_rivals: list[Ref] | None = None) -> bool:
        """Whether ``card`` is still reference ``ref`` (card, side) rather than each card
        most like it.

        Light can wash a mark out to look like blank paper, never draw one. So under
        glare (``glared``), each rival printing marks that ``ref`` lacks must be ruled
        out by the detail where those marks would be (glare adds smooth light: a mark
        under it is still a mark, unless the light saturates it), darker there than the
        reference or shaped like the marks (:func:`print_shows`: a three's middle pip
        faded to a grey outline, the card named a two). Otherwise (a fair
        likeness, not a sure one) the card must beat each rival where the two differ,
        leaving out what neither explains and saturated light."""
        view = inner_part(card, FINE_SIZE) if inner is None else inner
        _, move = phase_shift(fine_of(view), self._grey_reference(ref))
        query = warped(view.astype(np.float32), move).reshape(-1, 3)
        everywhere = np.ones(len(query), bool)
        mine = lit_like(query, self.fine[ref].reshape(-1, 3), everywhere)
        usable = least_channel(query) < SATURATED
        glare = (glare_spots(query, self.fine[ref].reshape(-1, 3), everywhere) if glared
                 else ~usable)
        ours = np.asarray(np.abs(query - mine).sum(axis=1), np.float32)
        if glared:
            # (laid onto the reference by the detail, finer than the shift above: a small
            # card's pips a pixel off would show a rival's beside them)
            laid, detail = self._laid_onto(view, ref)
            shown = least_channel(laid) < SATURATED
        per_card = scores.max(axis=1)
        close = {int(k) for k in np.argsort(-per_card)[:RIVALS + 1]
                 if per_card[k] >= per_card[ref[0]] - RIVAL_WINDOW}
        close |= {int(k) for k in self._neighbours[ref[0]][:NEAREST]}
        close.discard(ref[0])
        for other in ((k, int(np.argmax(scores[k]))) for k in close):
            theirs = lit_like(query, self.fine[other].reshape(-1, 3), everywhere)
            if glared:
                differ = self._differ_at(ref, other)
                theirs_only = partial(print_shows, detail, self._detail(other),
                                      self._detail(ref), differ, shown)
                if theirs_only():
                    if shown_rivals is not None and theirs_only(PRINT_CLEAR):
                        shown_rivals.append(other)
                    return False  # what only they print shows through the glare
                if not print_shows(detail, self._detail(ref), self._detail(other), differ,
                                   shown, PRINT_CLEAR) and may_show_marks(
                                       query, mine, theirs, differ, glare):
                    return False  # ... or may, and nothing only we print shows
                continue
            if not beats_past_cover(query, ours, np.asarray(np.abs(query - theirs).sum(
                    axis=1), np.float32), mine, theirs, self._differ_at(ref, other),
                    usable, self.glare_differ, self.hold_clear):
                return False
        return True

    def _settle(self, card: Image, inner: Image | None, scores: NDArray[np.float32],
                per_card: NDArray[np.float32], order: NDArray[np.intp],
                ) -> tuple[int | None, Ref | None]:
        """The card the first stage's ``scores`` (and, for near-identical faces, the
        second stage) clearly name, if any; and the reference (card, side) the second
        stage chose, when it was needed."""
        best = float(per_card[order[0]])
        second = float(per_card[order[1]]) if len(order) > 1 else -1.0
        if best < self.min_score:
            return None, None
        if len(order) == 1 and best < self.min_score + self.min_margin:
            # nothing to beat (a one-card gallery, early in enrollment): a similar-looking
            # card of the same deck can score just above min_score, so ask for the margin too
            return None, None
        if best - second >= self.min_margin:
            return int(order[0]), None
        # near-identical faces (D7, D7*, D7**): settle it where they differ
        close = [(int(i), int(np.argmax(scores[i]))) for i in order
                 if per_card[i] >= best - self.window]
        fine = fine_view(card) if inner is None else fine_of(inner)
        ref = self._grey_reference(close[0])
        shift = phase_shift(fine, ref)
        # Most cards are clear once shifted into place: asking for a wider margin then
        # leaves the affine fit (the costly part) to the rest.
        found = self._winner(warped(fine, shift[1]), close, self.quick_clear)
        if found is None:
            found = self._winner(aligned(fine, ref, shift), close, self.min_clear)
        return (None, None) if found is None else (found[0], found)

    def _winner(self, query: NDArray[np.float32], close: list[Ref],
                clear: float) -> Ref | None:
        """The one of the ``close`` references (card, side) that the aligned fine ``query``
        is clearly (by ``clear``) rather than each other one, if any."""
        distance: dict[Ref, NDArray[np.float32]] = {}

        def to(ref: Ref) -> NDArray[np.float32]:
            """The query's per-pixel distance (summed over channels) to a reference."""
            if ref not in distance:
                diff = cv2.absdiff(query, self.fine[ref])
                distance[ref] = np.asarray(cv2.transform(diff, ONES), np.float32).ravel()
            return distance[ref]

        for mine in close:
            if all(self._beats(to(mine), to(other), mine, other, clear)
                   for other in close if other != mine):
                return mine
        return None

    def _beats(self, to_mine: NDArray[np.float32], to_other: NDArray[np.float32],
               mine: Ref, other: Ref, clear: float) -> bool:
        """Whether the query (at per-pixel distances ``to_mine`` and ``to_other``) is clearly
        ``mine`` rather than ``other`` where those two references differ: by ``clear``, a
        fraction of the distance to ``other``."""
        where = self._differ_at(mine, other)
        if len(where) < 12:
            return False  # the references are the same picture
        da = float(to_mine[where].sum())
        db = float(to_other[where].sum())
        return da < db and 1.0 - da / max(db, 1e-6) >= clear

    # -- storage ------------------------------------------------------------

    def save(self, store: Path) -> Path:
        """Write the gallery to ``store/<deck>/``: the faces, from which the rest is made."""
        if self.faces is None:
            raise EnrollmentError(f"deck {self.deck!r} has no faces to save; teach it again")
        return save_faces(store, self.deck, self.cards, self.faces)

    @classmethod
    def load(cls, store: Path, deck: str) -> Gallery:
        """The gallery saved under ``store/<deck>/``; everything but the faces is made
        again, so a change to how cards are compared needs no new teaching."""
        return cls.from_canonical(deck, *load_faces(store, deck))


def enroll_folder(deck: str, folder: Path, store: Path) -> Gallery:
    """Enroll a deck from a folder of card images and save it under ``store``."""
    gallery = Gallery.from_faces(valid_deck_name(deck), load_folder(folder))
    gallery.save(store)
    return gallery
