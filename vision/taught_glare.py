"""A taught card seen through glare.

A glare spot (a lamp on a glossy card) lifts part of the card towards white and can
hide what tells close cards apart, or make the second stage misjudge them. The print
under it is mostly still there, lifted and flattened: where a quick look finds light
that the reference does not explain, an unknown card is looked at again by its detail
(each channel minus its blurred self, where a smooth patch of light cancels), leaving
out what the glare saturated. The gallery (:mod:`vision.enrolled`) uses these checks
both to name an unknown card and to doubt a named one.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.taught_evidence import (
    PRINT_CLEAR,
    SATURATED,
    SMALL_RIM,
    glare_spots,
    print_shows,
)
from vision.taught_references import Ref, References
from vision.taught_views import (
    CHROMA_FLOOR,
    DESC_SIZE,
    DESC_WEIGHTS,
    FINE_SIZE,
    affine_fit,
    by_channel,
    detail_of,
    grey_of,
    inner_part,
    masked_correlation,
    warped,
)

Image = NDArray[np.uint8]


class GlareChecks(References):
    """The glare checks of a gallery (its thresholds are the gallery's fields)."""

    min_score: float
    min_clear: float
    glare_detail: float
    glare_window: float
    glare_found: float
    glare_usable: float
    glare_visible: float
    glare_differ: float

    def _glared(self, small: Image, ref: Ref) -> bool:
        """Whether the card (its inner part at ``DESC_SIZE``) shows glare, as reference
        ``ref`` (card, side) explains it, or a patch of it washed white. A quick look, at
        half the fine view's size and with one fit: it runs for most cards of a deck of
        near twins."""
        glare = glare_spots(small.astype(np.float32).reshape(-1, 3),
                            self._small_reference(ref),
                            np.ones(DESC_SIZE[0] * DESC_SIZE[1], bool), DESC_SIZE, refit=False)
        if glare.mean() >= self.glare_found:
            return True
        # a spot on what the reference has as blank paper is light the reference explains
        # (fitted to the card, its paper as bright as the spot): a patch washed white in
        # every channel is glare all the same (a three's middle pip gone, read as a two)
        white = cv2.erode((small.min(axis=2) >= SATURATED).astype(np.uint8), SMALL_RIM)
        return bool(white.mean() >= self.glare_found)

    def _through_glare(self, card: Image, inner: Image | None) -> int | None:
        """The card an unknown shows when a glare spot is what hid it.

        Glare adds a broad, smooth patch of light: the card's print is still there under
        it, lower in contrast only where the light saturates. So cards are compared by
        their detail (each channel minus its blurred self), where a smooth patch of light
        cancels, leaving out saturated pixels. The winner must show glare (light its
        reference does not explain), match well in detail, still match in colour where no
        glare is (a hand over the card is no glare, however the light was fitted), and
        clearly beat every close rival where the two differ and the print is not washed
        white.
        """
        view = inner_part(card, FINE_SIZE) if inner is None else inner
        everywhere = np.ones(FINE_SIZE[0] * FINE_SIZE[1], bool)
        unlaid = detail_of(view.astype(np.float32))
        first = int(np.argmax(masked_correlation(
            self._details_by_channel, unlaid.reshape(-1, 3), everywhere)))
        query, detail = self._laid_onto(view, divmod(first, 2), unlaid)
        glare = glare_spots(query, self.fine[divmod(first, 2)].reshape(-1, 3), everywhere)
        if glare.mean() < self.glare_found:
            return None  # no light the card does not explain: an unknown for other reasons
        # saturated glare may hide a stroke: there the print is unknown
        usable = ~(glare & (query.max(axis=1) >= SATURATED))
        if usable.mean() < self.glare_usable:
            return None  # mostly washed out: too little left to tell
        scores = masked_correlation(self._details_by_channel, detail, usable)
        order = np.argsort(-scores)
        top = int(order[0])
        if scores[top] < self.glare_detail:
            return None
        mine = divmod(top, 2)
        visible = usable & ~glare
        if visible.mean() < self.glare_visible or \
                self._colour_match(query, mine, visible) < self.min_score:
            return None  # what the glare left is not this card
        rivals = {divmod(int(k), 2)[0]: divmod(int(k), 2) for k in order[1:][::-1]
                  if scores[k] >= scores[top] - self.glare_window}  # each card's best side
        rivals.pop(mine[0], None)
        # a print washed white in every channel tells two cards apart no more, glare found
        # there or not (on blank paper of the card guessed, a spot is hard to tell)
        shown = query.min(axis=1) < SATURATED
        unwashed = usable & shown
        for other in rivals.values():
            if not self._beats_in_detail(detail, mine, other, unwashed, glare, shown):
                return None
        return mine[0]

    def _laid_onto(self, view: Image, ref: Ref, detail: NDArray[np.float32] | None = None,
                   ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """A card's fine view (``view``) and its detail (``detail``, where already made), as
        pixels x 3, laid onto reference ``ref`` (its rivals share its layout) by the detail,
        which glare does not change: shifted, then fitted (a dewarp is off by a little
        scale)."""
        shape = (FINE_SIZE[1], FINE_SIZE[0], 3)
        query = view.astype(np.float32)
        detail = detail_of(query) if detail is None else detail
        reference = grey_of(self._detail(ref).reshape(shape))
        mark = grey_of(detail)
        (dx, dy), _ = cv2.phaseCorrelate(reference, mark)
        if max(abs(dx), abs(dy)) > 8:
            dx = dy = 0.0
        move = affine_fit(mark, reference, np.array([[1, 0, dx], [0, 1, dy]], np.float32))
        if move is not None:
            query, detail = warped(query, move), warped(detail, move)
        return query.reshape(-1, 3), detail.reshape(-1, 3)

    def _colour_match(self, query: NDArray[np.float32], ref: Ref,
                      visible: NDArray[np.bool_]) -> float:
        """The first stage's similarity of the fine-view pixels ``query`` and reference
        ``ref`` on the ``visible`` pixels only (both renormalised there), each colour
        channel weighed by how much of its colour shows."""
        view = np.clip(query, 0, 255).astype(np.uint8).reshape(FINE_SIZE[1], FINE_SIZE[0], 3)
        small = np.asarray(cv2.resize(view, DESC_SIZE, interpolation=cv2.INTER_AREA), np.uint8)
        lab = cv2.cvtColor(cv2.GaussianBlur(small, (3, 3), 0), cv2.COLOR_BGR2LAB)
        seen = cv2.resize(visible.reshape(FINE_SIZE[1], FINE_SIZE[0]).astype(np.float32),
                          DESC_SIZE, interpolation=cv2.INTER_AREA) > 0.99
        reference = self.descriptors[ref].reshape(3, -1).T  # channel after channel
        corr = masked_correlation(by_channel(reference[None]),
                                  lab.astype(np.float32).reshape(-1, 3), seen.ravel(),
                                  per_channel=True)
        weights = DESC_WEIGHTS ** 2
        # a correlation does not see how faint a colour is: a black card's slight tint
        # correlates with a red twin's print. How much each channel varies, as the
        # descriptor floors it: the reference's from its channel norms, the card's on the
        # pixels seen
        norms = np.linalg.norm(reference, axis=0) / DESC_WEIGHTS
        shown_ref = np.clip(norms / max(float(norms[0]), 1e-9), 0.0, 1.0)
        spread = lab.reshape(-1, 3)[seen.ravel()].astype(np.float32).std(axis=0) if int(
            seen.sum()) > 1 else np.zeros(3, np.float32)
        shown_card = np.clip(spread / COLOUR_SHOWN, 0.0, 1.0)
        shown_ref[0] = shown_card[0] = 1.0
        # the reference's colours must show on the card; a strong colour the reference has
        # none of (a hand over a black card) is unlike it; a faint one (a cast) is ignored
        foreign = (spread >= FOREIGN_COLOUR) & (shown_ref < 0.5)
        foreign[0] = False
        used = weights * np.where(foreign, 1.0, shown_ref)
        shows = np.where(foreign, 0.0, np.minimum(shown_card / np.maximum(shown_ref, 1e-6), 1.0))
        return float((corr[0] * shows * used).sum() / used.sum())

    def _beats_in_detail(self, detail: NDArray[np.float32], mine: Ref, other: Ref,
                         usable: NDArray[np.bool_], glare: NDArray[np.bool_],
                         shown: NDArray[np.bool_]) -> bool:
        """Whether the query's ``detail`` is clearly (by ``min_clear``) ``mine`` rather than
        ``other`` where those two references differ, on the ``usable`` pixels (``glare``:
        where glare lies). Glare takes print away, never adds it: print only ``other`` has,
        showing on the pixels not washed white (``shown``), rules ``mine`` out; where what
        tells the two apart is mostly washed out, print only ``mine`` has, showing, tells
        (:func:`~vision.taught_evidence.print_shows`: a five's middle pip faded grey under a
        spot that whitened a six's side pips)."""
        where = self._differ_at(mine, other)
        ours, theirs = self._detail(mine), self._detail(other)
        if print_shows(detail, theirs, ours, where, shown):
            return False  # (an eight's middle pips, faded: no six)
        seen = where[usable[where]]
        if len(seen) < max(12, self.glare_differ * len(where)):
            return print_shows(detail, ours, theirs, where, shown, PRINT_CLEAR)
        to = []
        for r in (ours, theirs):
            # the query's detail scaled to the reference's (glare and lighting lower its
            # contrast) over the whole card: fitted only where they differ, a blank would
            # win. Glare lowers it where it lies, not elsewhere: there it is fitted apart.
            gain = np.ones_like(detail)
            for part in (usable & glare, usable & ~glare):
                gain[part] = _gain(detail, r, part if part.sum() >= GAIN_PIXELS else usable)
            to.append(float(np.abs(detail[seen] * gain[seen] - r[seen]).sum()))
        return to[0] < to[1] and 1.0 - to[0] / max(to[1], 1e-6) >= self.min_clear


COLOUR_SHOWN = CHROMA_FLOOR / 2
"""Lab units: a card's a or b channel varying this much shows the colour its reference
prints (glare and a tinted light lower it)."""

FOREIGN_COLOUR = CHROMA_FLOOR
"""Lab units: a card's a or b channel varying this much, where its reference is grey, shows
a colour the card does not print (a hand over it), not a light's cast."""

GAIN_PIXELS = 200
"""Fine-view pixels (of 60 x 84) a contrast gain is fitted on at least."""


def _gain(query: NDArray[np.float32], ref: NDArray[np.float32],
          use: NDArray[np.bool_]) -> NDArray[np.float32]:
    """The per-channel gain (never below 0) that scales ``query`` (pixels x 3) closest to
    ``ref`` on the ``use`` pixels."""
    q, r = query[use], ref[use]
    return np.asarray(np.maximum((q * r).sum(axis=0) / np.maximum((q * q).sum(axis=0), 1e-6),
                                 0), np.float32)
