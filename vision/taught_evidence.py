"""Per-pixel evidence on a taught card: what light explains, what glare or a cover hides.

A card is compared with a reference *lit like it* (a per-channel gain and offset
fitted on the pixels the reference explains). What is then brighter than the
reference in every channel is glare (a lamp on a glossy card lifts and flattens
the print under it); what no reference explains is a cover (a finger, another
card). Light can wash a mark out to look like blank paper, never draw one: so
glare may hide evidence, never make one card look like another.

Every function here works on fine views (see :mod:`vision.taught_views`) as
pixels x 3 arrays.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.taught_views import DETAIL_BLUR, FINE_SIZE

GLARE_EXCESS = 20.0  # grey levels above the lit reference, in every channel: glare
SATURATED = 250  # a channel this bright has lost the print under it
UNEXPLAINED = 60.0  # grey levels from the lit reference, summed over channels: not it
MARKS_SHOWN = 0.3  # fraction of a rival's own marks' contrast that shows them under glare
WHITE_OUT = 240  # a pixel this bright in every channel under glare may hide a mark
HIDDEN_MARKS = 0.25  # fraction of a rival's own marks that may not be so hidden
SPOT_ON_PAPER = 0.1  # least fraction of a card's paper short of saturation where saturated
# white is a spot (not all its paper lit white: a camera exposed for the table)
OWN_MARK, NO_MARK = 0.5, 0.1  # a reference's mark, and no mark: fractions of its darkest
RIM = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
SMALL_RIM = np.ones((3, 3), np.uint8)  # the same at DESC_SIZE, half the fine view


def fit_light(query: NDArray[np.float32], ref: NDArray[np.float32], use: NDArray[np.bool_],
              ) -> NDArray[np.float32]:
    """``ref`` (pixels x channels) lit like ``query``: a per-channel gain and offset fitted
    on the ``use`` pixels (a card's lighting and the reference's standardisation)."""
    m = use.astype(np.float32)
    count = float(m.sum())
    if count < 3:
        return np.asarray(np.broadcast_to(query.mean(axis=0), query.shape), np.float32)
    q_mean, r_mean = (m @ query) / count, (m @ ref) / count
    centred = ref - r_mean
    gain = np.maximum((m @ (centred * (query - q_mean))) / np.maximum(
        m @ (centred * centred), 1e-6), 0.0)
    return np.asarray(centred * gain + q_mean, np.float32)


def least_channel(pixels: NDArray[np.float32]) -> NDArray[np.float32]:
    """Each pixel's smallest channel (numpy's own reduction is slow over three)."""
    return np.minimum(np.minimum(pixels[:, 0], pixels[:, 1]), pixels[:, 2])


def lit_like(query: NDArray[np.float32], ref: NDArray[np.float32], use: NDArray[np.bool_],
             ) -> NDArray[np.float32]:
    """``ref`` (pixels x 3) lit like ``query``: fitted on the ``use`` pixels, then again on
    those it explains (a cover would pull the first fit)."""
    fitted = fit_light(query, ref, use)
    keep = use & (np.abs(query - fitted).sum(axis=1) <= UNEXPLAINED)
    if keep.sum() >= 0.3 * max(int(use.sum()), 1):
        fitted = fit_light(query, ref, keep)
    return fitted


def _darkness(pixels: NDArray[np.float32]) -> NDArray[np.float32]:
    """How much darker each pixel of a fine view (pixels x 3) is than round it, summed over
    channels: a mark, whatever smooth light lies on it."""
    view = pixels.reshape(FINE_SIZE[1], FINE_SIZE[0], 3)
    return np.asarray((cv2.GaussianBlur(view, (0, 0), DETAIL_BLUR) - view).sum(axis=2).ravel(),
                      np.float32)


def _differing(differ: NDArray[np.intp], size: int) -> NDArray[np.bool_]:
    """The pixels where two references differ (``differ``), as a mask of ``size`` pixels."""
    mask = np.zeros(size, bool)
    mask[differ] = True
    return mask


def may_show_marks(query: NDArray[np.float32], mine: NDArray[np.float32],
                   theirs: NDArray[np.float32], differ: NDArray[np.intp],
                   glare: NDArray[np.bool_]) -> bool:
    """Whether ``query`` may show the marks that reference ``theirs`` prints and ``mine``
    does not (both lit like it; pixels x 3; ``differ``: where the references differ): it
    shows them, however faintly (glare lifts and flattens a mark, so a washed-out pip of
    a 7 must not let the card pass for a 4), or the ``glare`` turned them white, or a spot
    saturated them white and the card's own marks do not show beside it."""
    marks = _differing(differ, len(query)) & ((mine - theirs).sum(axis=1) > UNEXPLAINED)
    count = int(marks.sum())
    if count < 12:
        return False
    least = least_channel(query)
    hidden_enough = max(12, HIDDEN_MARKS * count)
    if (marks & glare & (least >= WHITE_OUT)).sum() >= hidden_enough:
        return True  # what would tell is white in every channel: it cannot be seen
    dark_query, dark_mine, dark_theirs = (_darkness(v) for v in (query, mine, theirs))
    q, m, t = (float(d[marks].mean()) for d in (dark_query, dark_mine, dark_theirs))
    if t - m > 1e-3 and (q - m) / (t - m) >= MARKS_SHOWN:
        return True
    # a spot that glare found against the reference missed (on what it prints as blank
    # paper, which it explains as paper) may hide them too: then the card's own marks
    # must tell
    white = least >= SATURATED
    if (marks & white).sum() < hidden_enough or not _spot_on_paper(least, mine):
        return False
    return not _told_apart(dark_query, dark_mine, dark_theirs, differ, glare | white)


def _spot_on_paper(least: NDArray[np.float32], lit: NDArray[np.float32]) -> bool:
    """Whether saturated white on a card (``least``: each pixel's smallest channel) is a
    spot of it, some of its paper (the brighter half of its reference ``lit`` like it)
    still short of saturation."""
    lightest = least_channel(lit)
    paper = lightest >= np.median(lightest)
    return float((least[paper] < SATURATED).mean()) >= SPOT_ON_PAPER


def _told_apart(dark_query: NDArray[np.float32], dark_mine: NDArray[np.float32],
                dark_theirs: NDArray[np.float32], differ: NDArray[np.intp],
                hidden: NDArray[np.bool_]) -> bool:
    """Whether marks that ``mine`` prints and ``theirs`` does not (``differ``: where the
    references differ) show where not ``hidden``, given each view's darkness (see
    :func:`_darkness`): what glare lifts looks like paper, so only marks tell (a nine's
    middle pip beside a spot that hides a ten's two)."""
    # marks by each reference's own contrast (a fit of the light to a card whose marks
    # the spot hid prints the rest fainter: fainter is no mark of the other's)
    own = _differing(differ, len(dark_query)) & ~hidden & (
        dark_mine >= OWN_MARK * dark_mine.max()) & (dark_theirs <= NO_MARK * dark_theirs.max())
    if own.sum() < 12:
        return False
    return bool(dark_query[own].mean() >= MARKS_SHOWN * dark_mine[own].mean())


PRINT_STRONG = 0.5
"""A reference's own print, for :func:`print_shows`: detail at least this fraction of its
strongest (the 95th percentile of where the two references differ)."""

PRINT_BLANK = 1 / 3
"""... where the other reference's detail is under this fraction of that: print only one of
the two has."""

PRINT_PIXELS = 12
"""Fine-view pixels (of 60 x 84) of print only one reference has, in view, that can show it:
a 3's strokes an index 2 lacks are about a dozen."""

PRINT_SHOWN = 0.4
"""Least cosine of the card's detail and a reference's over its own print for that print
to show (the shape, whatever contrast glare left it)."""


PRINT_CLEAR = 0.25
"""How much less like the other reference's print there the card's detail must be where its
print showing names a card: the few pixels a club's lobes print beyond a spade's lie on
the spade's rim (a spade faded under a spot was named a club)."""


def print_shows(detail: NDArray[np.float32], own: NDArray[np.float32],
                other: NDArray[np.float32], differ: NDArray[np.intp],
                shown: NDArray[np.bool_], clear: float = 0.0) -> bool:
    """Whether print that reference ``own`` has and ``other`` has not shows on the card
    (``detail``: the card's, aligned with theirs; pixels x 3; ``differ``: where the two
    references differ; ``shown``: pixels not washed white).

    Glare takes print away, never adds it: a mark under a spot fades to a few grey levels
    yet keeps its shape. So the card's detail over that print must point the way the
    reference's does (cosine, uncentred: a faint pip's inside is still darker than round
    it) and be more like that print than like what the other reference has there (the rim
    of its own pip beside it: a small heart read against a diamond), by ``clear`` where
    the print showing names a card (:data:`PRINT_CLEAR`), not only rules one out.

    >>> own = np.zeros((40, 3), np.float32); own[:20] = -30.0  # a pip only ``own`` prints
    >>> other, faint = np.zeros_like(own), own / 10  # ... and glare left a tenth of it
    >>> differ, everywhere = np.arange(20), np.ones(40, bool)
    >>> print_shows(faint, own, other, differ, everywhere)
    True
    >>> print_shows(np.zeros_like(own), own, other, differ, everywhere)  # washed away
    False
    >>> print_shows(faint, own, other, differ, np.zeros(40, bool))  # washed white
    False
    """
    if not len(differ):
        return False
    strength = np.abs(own[differ]).sum(axis=1)
    strong = PRINT_STRONG * float(np.percentile(strength, 95))
    only = differ[(strength >= strong) & (np.abs(other[differ]).sum(axis=1)
                                          < PRINT_BLANK * strong) & shown[differ]]
    if len(only) < PRINT_PIXELS:
        return False
    seen = detail[only].ravel()
    like_own = _cosine(seen, own[only].ravel())
    like_other = _cosine(seen, other[only].ravel())
    return like_own >= PRINT_SHOWN and like_own > like_other and like_own >= like_other + clear


def _cosine(a: NDArray[np.float32], b: NDArray[np.float32]) -> float:
    return float((a * b).sum() / max(float(np.sqrt((a * a).sum() * (b * b).sum())), 1e-6))


def beats_past_cover(query: NDArray[np.float32], ours: NDArray[np.float32],
                     theirs: NDArray[np.float32],
                     mine: NDArray[np.float32], other: NDArray[np.float32],
                     differ: NDArray[np.intp], valid: NDArray[np.bool_],
                     least_seen: float, clear: float) -> bool:
    """Whether a card (``query``, pixels x 3) is clearly the reference ``mine`` rather than
    ``other`` (both lit like it; ``ours`` and ``theirs`` its per-pixel distances to them)
    where the two differ (``differ``, the pixels where the references do, and so much
    that lighting does not explain it), leaving out what neither explains (a cover)
    and light that neither does (glare), when most of that is seen."""
    where = _differing(differ, len(query)) & (np.abs(mine - other).sum(axis=1) > UNEXPLAINED)
    if where.sum() < 12:
        return False  # the same picture
    # what neither explains is a cover; light that neither explains (brighter than both in
    # every channel) is glare, which can wash a mark out to look like blank paper
    glare = (least_channel(query - np.maximum(mine, other)) > GLARE_EXCESS) | (
        least_channel(query) >= SATURATED)
    seen = where & valid & ~glare & ((ours <= UNEXPLAINED) | (theirs <= UNEXPLAINED))
    if seen.sum() < max(12, least_seen * where.sum()):
        return False  # what tells them apart is covered
    da, db = float(ours[seen].sum()), float(theirs[seen].sum())
    return da < db and 1.0 - da / max(db, 1e-6) >= clear


def glare_spots(query: NDArray[np.float32], ref: NDArray[np.float32], use: NDArray[np.bool_],
                size: tuple[int, int] = FINE_SIZE, refit: bool = True) -> NDArray[np.bool_]:
    """The pixels of ``query`` that only glare explains if it shows ``ref``: brighter in
    every channel than the reference lit like the rest of the card (fitted twice, the
    second time without the first guess at the glare, which would brighten the fit)."""
    washed = least_channel(query - fit_light(query, ref, use)) > GLARE_EXCESS
    if refit:
        washed = least_channel(query - fit_light(query, ref, use & ~washed)) > GLARE_EXCESS
    rim = RIM if size == FINE_SIZE else SMALL_RIM
    # glare is a broad spot: thin lines are print a pixel or two off (the dewarp)
    spots = cv2.erode(washed.reshape(size[1], size[0]).astype(np.uint8), rim)
    # and a spot fades out: its rim, too faint to tell from print, is widened into
    return np.asarray(cv2.dilate(spots, rim, iterations=2).ravel() > 0)

