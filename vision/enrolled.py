"""Learned decks: one reference image per distinct card, open-set matching.

A dewarped card is compared with every reference as a whole-card perceptual
descriptor (a small, blurred, contrast-normalised colour image, so lighting
gain and offset cancel out; a card with little colour keeps little colour, so
that noise and a colour cast do not weigh like print), in both 180-degree
orientations. A match is accepted only when it is good in absolute terms *and*
clearly beats the best other card; anything else is "unknown", because a wrong
card is worse than none.

Near-identical faces (``D7``, ``D7*``, ``D7**``) are settled by a second stage
that compares a larger view only where the close candidates differ. The card
is first shifted into place (phase correlation) and must then win by a wider
margin; only when that is not clear is it fitted onto the best candidate
(affine ECC, the costly part) and judged with the usual margin. A card that
matches only fairly (below ``sure_score``) must also beat each card most like
it where the two differ, leaving out saturated light.

A glare spot (a lamp on a glossy card) lifts part of the card towards white and can
hide what tells close cards apart, or make the second stage misjudge them. The
print under it is mostly still there, lifted and flattened: where a quick look
finds light that the reference does not explain, an unknown card is looked at
again by its detail (each channel minus its blurred self, where a smooth patch of
light cancels), leaving out what the glare saturated; and a named card that the
detail contradicts, or that shows through the glare, however faintly, a mark only
a rival prints (a washed-out pip of a 7 is not a 4), becomes unknown. Glare can
hide evidence, never make one card look like another.

A card that the whole-card comparison leaves unknown (a real photo: perspective
the dewarp did not quite undo, blur, another light; a finger or another card over
part of it; a card taken a quarter-turn round) is matched part by part: ORB
keypoints of its contrast-equalised grey image against those of the few most
alike references, with a geometric check (an affine fit by RANSAC; its inliers
must be many, and it must lay the reference over the card found, not over a part
of it). The best fit lays the card onto its reference, where the stages above
judge it again; if a cover still hides part of it, what no candidate explains is
left out, and the card is named only if it explains most of the card and beats
every card most like it where the two differ (unknown when that is covered).
This runs only on the few cards the first look leaves unknown.

Galleries are stored as a folder per deck: ``references.npz`` (each card's
canonical face; everything else is derived from them when loaded) and
``deck.json`` (card ids, format version).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import detect
from vision.detect import CARD_H, CARD_W, DetectorSettings, dewarp, find_cards, portrait
from vision.refusal import Refusal

Image = NDArray[np.uint8]

DESC_SIZE = (30, 42)
FINE_SIZE = (60, 84)
DESC_WEIGHTS = np.array([1.0, 0.7, 0.7])  # L, a, b: lightness carries the most
CHROMA_FLOOR = 6.0
"""Lab units: a descriptor's a and b channels are scaled as if they varied at least this
much (a grey card's colour is noise and cast, not print)."""
MARGIN = 0.09  # fraction of the card trimmed on each side: edges are where dewarps disagree
CARD_ID = re.compile(r"^[A-Za-z0-9*+\-]{1,32}$")
FORMAT_VERSION = 2
"""2: the canonical faces are stored (1: descriptors only, before keypoints)."""


class EnrollmentError(ValueError):
    """An enrollment folder, image or deck name that cannot be used."""


def default_store() -> Path:
    """Where enrolled decks live: ``$TABLE_COMPANION_DATA/decks`` or the XDG data dir."""
    env = os.environ.get("TABLE_COMPANION_DATA")
    if env:
        return Path(env) / "decks"
    return Path.home() / ".local" / "share" / "table-companion" / "decks"


def _inner(card: Image, size: tuple[int, int]) -> Image:
    """The card without its margin, area-averaged to ``size``."""
    h, w = card.shape[:2]
    mx, my = round(w * MARGIN), round(h * MARGIN)
    return np.asarray(cv2.resize(card[my:h - my, mx:w - mx], size,
                                 interpolation=cv2.INTER_AREA), np.uint8)


def describe(card: Image) -> NDArray[np.float32]:
    """The perceptual descriptor of a canonical card (unit vector)."""
    return _descriptor(_inner(card, DESC_SIZE))


def _descriptor(small: Image) -> NDArray[np.float32]:
    """:func:`describe` from the card's inner part at ``DESC_SIZE``."""
    blurred = cv2.GaussianBlur(small, (3, 3), 0)
    lab = cv2.cvtColor(blurred, cv2.COLOR_BGR2LAB).astype(np.float32)
    # each channel centred and scaled to its weight; the norm of a centred channel is its
    # standard deviation times sqrt(pixels) (cv2's statistics: numpy's are slow on 3 channels)
    mean, std = cv2.meanStdDev(lab)
    root = np.sqrt(lab.shape[0] * lab.shape[1])
    norms = std.ravel() * root
    # a card with little colour keeps little colour: its a and b channels are not
    # stretched to full weight (that would weigh noise and a colour cast like print)
    floor = np.array([1e-3, CHROMA_FLOOR * root, CHROMA_FLOOR * root])
    scale = np.where(norms > 1e-3, DESC_WEIGHTS / np.maximum(norms, floor), 0.0)
    out = ((lab - mean.ravel().astype(np.float32)) * scale.astype(np.float32))
    out = np.ascontiguousarray(out.transpose(2, 0, 1)).ravel()  # channel after channel
    n = float(np.sqrt(np.dot(out, out)))
    return (out / n if n > 1e-6 else out).astype(np.float32)


def canonical_from_photo(image: Image) -> Image:
    """The card in an enrollment image, upright (portrait) at the canonical size.

    An image in a card's proportions is taken as the card itself (a face already cut out:
    a dewarped camera view, a scan, a rendered face); any other image is a photo of the
    card on a table, and the largest card found in it is the card (it may fill most of
    the photo). Without one, the whole image is taken.
    """
    h, w = image.shape[:2]
    upright = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE) if w > h else image
    ratio = max(h, w) / max(min(h, w), 1)
    if abs(ratio / (CARD_H / CARD_W) - 1) > CARD_SHAPED:
        quads = find_cards(image, PHOTO_SETTINGS)
        if quads:
            q = max(quads, key=cv2.contourArea)
            if cv2.contourArea(q) > 0.08 * h * w:
                return dewarp(image, portrait(q))
    return np.asarray(cv2.resize(upright, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA),
                      np.uint8)


CARD_SHAPED = 0.03
"""How far (a fraction) an image's proportions may be from a card's for it to be a card
already cut out (a photo is 4:3 or 16:9; a card 7:5)."""
PHOTO_SETTINGS = DetectorSettings(max_area_fraction=0.95)
"""The detector's limits for a photo of one card to teach: the card may fill the photo."""


def fine_view(card: Image) -> NDArray[np.float32]:
    """A larger, per-channel standardised view for telling near-identical cards apart."""
    return _fine(_inner(card, FINE_SIZE))


def _fine(small: Image) -> NDArray[np.float32]:
    """:func:`fine_view` from the card's inner part at ``FINE_SIZE``."""
    f = cv2.GaussianBlur(small, (0, 0), 0.9).astype(np.float32)
    mean, std = cv2.meanStdDev(f)
    return np.asarray((f - mean.ravel().astype(np.float32))
                      / (std.ravel().astype(np.float32) + np.float32(1e-3)), np.float32)


def _grey(view: NDArray[np.float32]) -> NDArray[np.float32]:
    """The mean of a fine view's three channels."""
    return np.asarray(cv2.transform(view, _THIRDS), np.float32)


_THIRDS = np.full((1, 3), 1 / 3, np.float32)
_ONES = np.ones((1, 3), np.float32)


def _shift(query: NDArray[np.float32], ref: NDArray[np.float32],
           ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """The grey ``query`` and the translation (2 x 3) that lays it onto the grey ``ref``
    (phase correlation; none when it is implausibly far)."""
    q = _grey(query)
    (dx, dy), _ = cv2.phaseCorrelate(ref, q)
    if abs(dx) > 8 or abs(dy) > 8:
        dx = dy = 0.0
    return q, np.array([[1, 0, dx], [0, 1, dy]], np.float32)


def _warped(query: NDArray[np.float32], warp: NDArray[np.float32]) -> NDArray[np.float32]:
    h, w = query.shape[:2]
    return np.asarray(cv2.warpAffine(query, warp, (w, h),
                                     flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_REPLICATE), np.float32)


def aligned(query: NDArray[np.float32], ref: NDArray[np.float32],
             shift: tuple[NDArray[np.float32], NDArray[np.float32]] | None = None,
             ) -> NDArray[np.float32]:
    """``query`` warped onto ``ref`` (a fine view, or its grey): dewarps are off by a few
    pixels, a little scale or a degree or two (an affine ECC fit, started from a
    phase-correlation shift; ``shift`` is that :func:`_shift` when already known)."""
    r = _grey(ref) if ref.ndim == 3 else ref
    q, start = shift if shift is not None else _shift(query, r)
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 40, 1e-4)
    try:
        _, found = cv2.findTransformECC(r, q, start.copy(), cv2.MOTION_AFFINE, criteria,
                                        None, 5)  # type: ignore[call-overload]
        warp = np.asarray(found, np.float32)
    except cv2.error:
        warp = start  # no convergence: keep the shift
    if np.abs(warp[:, :2] - np.eye(2)).max() > 0.15 or np.abs(warp[:, 2]).max() > 12:
        return query  # implausible: a different card, not a misaligned one
    return _warped(query, warp)


GLARE_EXCESS = 20.0  # grey levels above the lit reference, in every channel: glare
SATURATED = 250  # a channel this bright has lost the print under it
UNEXPLAINED = 60.0  # grey levels from the lit reference, summed over channels: not it
MARKS_SHOWN = 0.3  # fraction of a rival's own marks' contrast that shows them under glare
WHITE_OUT = 240  # a pixel this bright in every channel under glare may hide a mark
HIDDEN_MARKS = 0.25  # fraction of a rival's own marks that may not be so hidden
DETAIL_BLUR = 2.5  # fine-view pixels: smaller than a glare spot, larger than a stroke
_RIM = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
_SMALL_RIM = np.ones((3, 3), np.uint8)  # the same at DESC_SIZE, half the fine view


def _fit(query: NDArray[np.float32], ref: NDArray[np.float32], use: NDArray[np.bool_],
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


def _least(pixels: NDArray[np.float32]) -> NDArray[np.float32]:
    """Each pixel's smallest channel (numpy's own reduction is slow over three)."""
    return np.minimum(np.minimum(pixels[:, 0], pixels[:, 1]), pixels[:, 2])


def _lit(query: NDArray[np.float32], ref: NDArray[np.float32], use: NDArray[np.bool_],
         ) -> NDArray[np.float32]:
    """``ref`` (pixels x 3) lit like ``query``: fitted on the ``use`` pixels, then again on
    those it explains (a cover would pull the first fit)."""
    fitted = _fit(query, ref, use)
    keep = use & (np.abs(query - fitted).sum(axis=1) <= UNEXPLAINED)
    if keep.sum() >= 0.3 * max(int(use.sum()), 1):
        fitted = _fit(query, ref, keep)
    return fitted


def _darkness(pixels: NDArray[np.float32]) -> NDArray[np.float32]:
    """How much darker each pixel of a fine view (pixels x 3) is than round it, summed over
    channels: a mark, whatever smooth light lies on it."""
    view = pixels.reshape(FINE_SIZE[1], FINE_SIZE[0], 3)
    return np.asarray((cv2.GaussianBlur(view, (0, 0), DETAIL_BLUR) - view).sum(axis=2).ravel(),
                      np.float32)


def _may_show_marks(query: NDArray[np.float32], mine: NDArray[np.float32],
                    theirs: NDArray[np.float32], differ: NDArray[np.intp],
                    glare: NDArray[np.bool_]) -> bool:
    """Whether ``query`` may show the marks that reference ``theirs`` prints and ``mine``
    does not (both lit like it; pixels x 3; ``differ``: where the references differ): it
    shows them, however faintly (glare lifts and flattens a mark, so a washed-out pip of
    a 7 must not let the card pass for a 4), or the ``glare`` turned them white."""
    marks = np.zeros(len(query), bool)
    marks[differ] = True
    marks &= (mine - theirs).sum(axis=1) > UNEXPLAINED
    count = int(marks.sum())
    if count < 12:
        return False
    if (marks & glare & (_least(query) >= WHITE_OUT)).sum() >= max(12, HIDDEN_MARKS * count):
        return True  # what would tell is white in every channel: it cannot be seen
    q, m, t = (float(_darkness(v)[marks].mean()) for v in (query, mine, theirs))
    return t - m > 1e-3 and (q - m) / (t - m) >= MARKS_SHOWN


def _beats_past_cover(query: NDArray[np.float32], ours: NDArray[np.float32],
                      theirs: NDArray[np.float32],
                      mine: NDArray[np.float32], other: NDArray[np.float32],
                      differ: NDArray[np.intp], valid: NDArray[np.bool_],
                      least_seen: float, clear: float) -> bool:
    """Whether a card (``query``, pixels x 3) is clearly the reference ``mine`` rather than
    ``other`` (both lit like it; ``ours`` and ``theirs`` its per-pixel distances to them)
    where the two differ (``differ``, the pixels where the references do, and so much
    that lighting does not explain it), leaving out what neither explains (a cover)
    and light that neither does (glare), when most of that is seen."""
    where = np.zeros(len(query), bool)
    where[differ] = True
    where &= np.abs(mine - other).sum(axis=1) > UNEXPLAINED
    if where.sum() < 12:
        return False  # the same picture
    # what neither explains is a cover; light that neither explains (brighter than both in
    # every channel) is glare, which can wash a mark out to look like blank paper
    glare = (_least(query - np.maximum(mine, other)) > GLARE_EXCESS) | (
        _least(query) >= SATURATED)
    seen = where & valid & ~glare & ((ours <= UNEXPLAINED) | (theirs <= UNEXPLAINED))
    if seen.sum() < max(12, least_seen * where.sum()):
        return False  # what tells them apart is covered
    da, db = float(ours[seen].sum()), float(theirs[seen].sum())
    return da < db and 1.0 - da / max(db, 1e-6) >= clear


def _glare(query: NDArray[np.float32], ref: NDArray[np.float32], use: NDArray[np.bool_],
           size: tuple[int, int] = FINE_SIZE, refit: bool = True) -> NDArray[np.bool_]:
    """The pixels of ``query`` that only glare explains if it shows ``ref``: brighter in
    every channel than the reference lit like the rest of the card (fitted twice, the
    second time without the first guess at the glare, which would brighten the fit)."""
    washed = _least(query - _fit(query, ref, use)) > GLARE_EXCESS
    if refit:
        washed = _least(query - _fit(query, ref, use & ~washed)) > GLARE_EXCESS
    rim = _RIM if size == FINE_SIZE else _SMALL_RIM
    # glare is a broad spot: thin lines are print a pixel or two off (the dewarp)
    spots = cv2.erode(washed.reshape(size[1], size[0]).astype(np.uint8), rim)
    # and a spot fades out: its rim, too faint to tell from print, is widened into
    return np.asarray(cv2.dilate(spots, rim, iterations=2).ravel() > 0)


def _detail(view: NDArray[np.float32]) -> NDArray[np.float32]:
    """Each channel of ``view`` minus its blurred self: the print, without smooth light."""
    return np.asarray(view - cv2.GaussianBlur(view, (0, 0), DETAIL_BLUR), np.float32)


def _by_channel(refs: NDArray[np.float32]) -> NDArray[np.float32]:
    """References (refs x pixels x 3) as 2 x 3 x refs x pixels: each channel contiguous,
    then the same squared (what :func:`_masked_correlation` multiplies with)."""
    channels = np.ascontiguousarray(refs.transpose(2, 0, 1), np.float32)
    return np.stack([channels, channels * channels])


def _masked_correlation(refs: NDArray[np.float32], query: NDArray[np.float32],
                        use: NDArray[np.bool_], per_channel: bool = False,
                        ) -> NDArray[np.float64]:
    """The correlation, channel by channel on the ``use`` pixels, of ``query`` (pixels x 3)
    with each of ``refs`` (see :func:`_by_channel`): averaged over channels, or per
    channel (refs x 3)."""
    m = use.astype(np.float32)
    count = max(float(m.sum()), 1.0)
    out = np.zeros((refs.shape[2], 3))
    for c in range(3):
        q = np.ascontiguousarray(query[:, c])
        centred = (q - np.float32(float(q @ m) / count)) * m
        r_sum, cov = (refs[0, c] @ np.stack([m, centred], axis=1)).T
        r_var = refs[1, c] @ m - r_sum * r_sum / count
        out[:, c] = cov / np.sqrt(np.maximum(r_var * float(centred @ centred), 1e-9))
    return out if per_channel else out.mean(axis=1)


# -- keypoints: a card matched part by part, then laid onto its reference ------------

KP_PAD = 12
"""Pixels of replicated border round a card, so that features by its edge (the index) count."""
KP_FEATURES = 250  # ORB keypoints a card: about 1 ms on this machine, matching 4x cheaper
KP_RATIO = 0.8  # Lowe's ratio test: a match must be clearly better than the next one
RANSAC_PX = 4.0  # card pixels (of 200 x 280) an inlier may be off the fitted transform
MIN_INLIERS = 12  # least inliers of a fit (a card of another deck gets a handful)
MIN_COVER = 0.75  # IoU of the fitted reference with the card found: that card, not a part
SHORTLIST = 4  # references (most alike by the descriptor) matched by keypoints, each view
TWIN = 0.95  # descriptor likeness of near-identical faces, which share one keypoint fit
KP_FLOOR = 0.3  # a card no reference is even this alike (either view) is not matched
KP_AGREE = 0.5  # the named card's own fit must have this fraction of the best fit's inliers
COVER_EXPLAINED = 0.75  # fraction of a covered card the named reference must explain
COVER_VISIBLE = 0.5  # fraction left when the cover's broad patches are taken out
RIVALS = 6  # cards most like a card that it must beat where a cover may hide them
RIVAL_WINDOW = 0.2  # cards this close by descriptor are rivals to a fair likeness
NEAREST = 3  # and this many of the cards most like the named one


@dataclass(frozen=True, eq=False)
class Features:
    """A card's keypoints: positions in card pixels and their binary descriptors."""

    points: NDArray[np.float32]
    descriptors: NDArray[np.uint8] | None


def keypoint_view(card: Image) -> Image:
    """The grey card, its contrast equalised tile by tile (CLAHE: a dim or unevenly lit card
    shows the same corners as a bright one), with a replicated border."""
    grey = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
    grey = cv2.createCLAHE(2.0, (4, 4)).apply(grey)
    return np.asarray(cv2.copyMakeBorder(grey, KP_PAD, KP_PAD, KP_PAD, KP_PAD,
                                         cv2.BORDER_REPLICATE), np.uint8)


def features(card: Image) -> Features:
    """The ORB keypoints of a canonical card."""
    orb = cv2.ORB.create(KP_FEATURES, 1.25, 5, 15, 0, 2, cv2.ORB_HARRIS_SCORE, 15, 8)
    points, desc = orb.detectAndCompute(keypoint_view(card), None)
    xy = np.array([p.pt for p in points], np.float32).reshape(-1, 2) - KP_PAD
    return Features(xy, np.asarray(desc, np.uint8) if desc is not None and len(desc) else None)


def _keypoint_fit(query: Features, ref: Features,
                  ) -> tuple[NDArray[np.float64] | None, int]:
    """The transform (3 x 3) laying ``ref``'s card onto ``query``'s, fitted by RANSAC to the
    keypoints that match, and its count of inliers. The cards are dewarped already, so an
    affine transform suffices (it takes in a dewarp's errors, a card turned round, a
    halo or a cut-off end), and its 3-point samples are far cheaper than a homography's."""
    if query.descriptors is None or ref.descriptors is None \
            or min(len(query.points), len(ref.points)) < MIN_INLIERS:
        return None, 0
    pairs = cv2.BFMatcher(cv2.NORM_HAMMING).knnMatch(query.descriptors, ref.descriptors, k=2)
    good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < KP_RATIO * p[1].distance]
    if len(good) < MIN_INLIERS:
        return None, 0
    src = ref.points[[m.trainIdx for m in good]]
    dst = query.points[[m.queryIdx for m in good]]
    a, mask = cv2.estimateAffine2D(src, dst, method=cv2.RANSAC, ransacReprojThreshold=RANSAC_PX,
                                   maxIters=500, confidence=0.99, refineIters=5)
    fitted: object = a
    if fitted is None:
        return None, 0  # no transform fits (OpenCV's stubs do not say it may be None)
    h = np.vstack([np.asarray(a, np.float64), [0.0, 0.0, 1.0]])
    if not _plausible(h):
        return None, 0
    return h, int(mask.sum())


_CORNERS = np.array([[[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]]], np.float32)


def _plausible(h: NDArray[np.float64]) -> bool:
    """Whether ``h`` lays the reference card onto the card found: not mirrored, and
    covering it (a card seen inside the outline of another one, or of a pile, is not the
    card that outline is)."""
    q = cv2.perspectiveTransform(_CORNERS, h)[0].astype(np.float32)
    edges = np.roll(q, -1, axis=0) - q
    cross = edges[:, 0] * np.roll(edges[:, 1], -1) - edges[:, 1] * np.roll(edges[:, 0], -1)
    if not (cross > 0).all():
        return False
    inter, _ = cv2.intersectConvexConvex(q, _CORNERS[0])
    union = float(cv2.contourArea(q)) + CARD_W * CARD_H - inter
    return bool(inter / max(union, 1.0) >= MIN_COVER)


def quarter_turned(card: Image) -> Image:
    """:func:`vision.detect.quarter_turned`, resampled as taught faces are."""
    return detect.quarter_turned(card, cv2.INTER_AREA)


def matvec(matrix: NDArray[np.float32], v: NDArray[np.float32]) -> NDArray[np.float32]:
    """``matrix @ v`` on this core: BLAS spreads even small products over threads, which
    stall when the other core is busy (twice the time per card on a loaded Pi).

    >>> matvec(np.eye(2, dtype=np.float32), np.float32([3, 4])).tolist()
    [3.0, 4.0]
    """
    return np.asarray(np.einsum("...j,j->...", matrix, v), np.float32)


@dataclass(frozen=True)
class Match:
    card: str | None
    score: float
    runner_up: float
    reason: Refusal | None = None
    """Why ``card`` is ``None`` (``None`` when it was named)."""


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
class Gallery:
    """The references of one deck."""

    deck: str
    cards: tuple[str, ...]
    descriptors: NDArray[np.float32]  # len(cards) x 2 orientations x D
    fine: NDArray[np.float32]  # len(cards) x 2 orientations x FINE_SIZE view
    faces: NDArray[np.uint8] | None = field(default=None, compare=False, repr=False)
    """The canonical face of each card (len(cards) x CARD_H x CARD_W x 3), when known."""
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
    # where two references differ, cached per pair and orientation: pixel indices
    _differ: dict[tuple[int, int, int, int], NDArray[np.intp]] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    # each reference's fine view at DESC_SIZE, for the quick look for glare
    _small: dict[tuple[int, int], NDArray[np.float32]] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    # the grey fine view of each reference the second stage aligned a card onto
    _grey: dict[tuple[int, int], NDArray[np.float32]] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def from_faces(cls, deck: str, faces: dict[str, Image]) -> Gallery:
        """Build a gallery from one canonical (or photographed) image per card id."""
        if not faces:
            raise EnrollmentError(f"deck {deck!r} needs at least one card image")
        cards = tuple(sorted(faces))
        return cls.from_canonical(deck, cards, np.array(
            [canonical_from_photo(faces[card]) for card in cards], np.uint8))

    @classmethod
    def from_canonical(cls, deck: str, cards: tuple[str, ...], faces: NDArray[np.uint8],
                       ) -> Gallery:
        """A gallery from each card's canonical face (CARD_H x CARD_W), in ``cards`` order."""
        if faces.shape != (len(cards), CARD_H, CARD_W, 3) or not cards:
            raise EnrollmentError(f"deck {deck!r} needs one {CARD_W} x {CARD_H} face per card")
        rows = []
        fine = []
        for c in faces:
            turned = np.ascontiguousarray(c[::-1, ::-1])
            rows.append([describe(c), describe(turned)])
            fine.append([fine_view(c), fine_view(turned)])
        return cls(deck, cards, np.array(rows, np.float32), np.array(fine, np.float32),
                   np.ascontiguousarray(faces, np.uint8))

    @cached_property
    def _alike(self) -> bool:
        """Whether most cards have a near-identical twin (and so usually need the second
        stage): then the fine view is made first and the descriptor from it (halving it
        gives the same up to rounding), not both from the card (area averaging at odd
        ratios is slow)."""
        if len(self.cards) < 2:
            return False
        scores = np.einsum("id,jkd->ijk", self.descriptors[:, 0], self.descriptors).max(axis=2)
        np.fill_diagonal(scores, -1.0)
        return bool(np.median(scores.max(axis=1)) >= 1.0 - 2 * self.min_margin)

    def identify(self, card: Image) -> Match:
        """The reference a canonical card shows, or ``card=None`` when not clearly one."""
        look = self._look(card)
        if look.found is None and self.faces is not None and not look.doubted:
            # glare is no reason to think the card was taken a quarter-turn round
            seen = self._by_keypoints(card, look.per_card, look.reason != Refusal.GLARE)
            if seen is not None:
                return seen
        return Match(None if look.found is None else self.cards[look.found], look.best,
                     look.second, None if look.found is not None else look.reason)

    def _look(self, card: Image) -> _Look:
        """The first and second stages, with the checks against glare and rivals."""
        inner = _inner(card, FINE_SIZE) if self._alike else None
        small = _inner(card, DESC_SIZE) if inner is None else np.asarray(
            cv2.resize(inner, DESC_SIZE, interpolation=cv2.INTER_AREA), np.uint8)
        d = _descriptor(small)
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
                # prints must not show through
                seen = self._through_glare(card, inner)
                if seen != found and (seen is not None or not self._holds(
                        card, inner, ref, scores, True)):
                    found, reason, doubted = None, Refusal.GLARE, True
            elif best < self.sure_score and not self._holds(card, inner, ref, scores, False):
                # a fair likeness only: a rival that explains some part better must not
                # be left out (a mark washed out can turn a card into another)
                found, reason = None, Refusal.AMBIGUOUS
        return _Look(found, best, second, reason, per_card, doubted)

    def __post_init__(self) -> None:
        if self.faces is not None:
            self._features  # noqa: B018 - made once, not in the middle of a frame

    @cached_property
    def _features(self) -> list[Features]:
        assert self.faces is not None
        return [features(f) for f in self.faces]

    @cached_property
    def _twins(self) -> NDArray[np.bool_]:
        """Which references are near-identical faces (cards x cards): their keypoints are
        the same, so one keypoint fit serves them all."""
        n = len(self.cards)
        sim = np.einsum("id,jkd->ijk", self.descriptors[:, 0], self.descriptors).max(axis=2)
        return np.asarray(sim >= TWIN, bool) | np.eye(n, dtype=bool)

    def _by_keypoints(self, card: Image, per_card: NDArray[np.float32],
                      turned: bool = True) -> Match | None:
        """The card named once laid onto its reference by its keypoints, if any.

        ``per_card``: the first stage's scores of ``card``. The few best references are
        matched by their keypoints, both ways the card may have been taken (as found, and
        a quarter-turn round), and the best fit lays the card onto its reference; the
        first and second stages then judge that aligned card."""
        views = [(card, per_card)]
        if turned:
            other = quarter_turned(card)
            views.append((other, matvec(self.descriptors, describe(other)).max(axis=1)))
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

    def _past_cover(self, aligned: Image, h: NDArray[np.float64], shape: tuple[int, ...],
                    shortlist: list[int]) -> tuple[int | None, float, float]:
        """The card that ``aligned`` (a card laid onto the references' frame by ``h``) shows
        where nothing covers it (a finger, a hand, another card).

        The card explaining most of it must match well where it explains it, and beat
        each rival (the ``shortlist`` and the cards most like it) where the two differ,
        leaving out what neither explains; if what tells them apart is mostly covered,
        the card stays unknown."""
        ones = np.full(shape[:2], 255, np.uint8)
        inside = cv2.warpPerspective(ones, h, (CARD_W, CARD_H),
                                     flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP)
        valid = _inner(np.asarray(inside, np.uint8)[:, :, None].repeat(3, axis=2),
                       FINE_SIZE)[:, :, 0].ravel() > 250
        query = _inner(aligned, FINE_SIZE).astype(np.float32).reshape(-1, 3)
        lit: dict[tuple[int, int], NDArray[np.float32]] = {}
        residual: dict[tuple[int, int], NDArray[np.float32]] = {}

        def res(ref: tuple[int, int]) -> NDArray[np.float32]:
            if ref not in residual:
                lit[ref] = _lit(query, self.fine[ref].reshape(-1, 3), valid)
                residual[ref] = np.asarray(np.abs(query - lit[ref]).sum(axis=1), np.float32)
            return residual[ref]

        # either way up: the keypoints may have laid a card onto a twin turned round
        explained = {(k, s): float((valid & (res((k, s)) <= UNEXPLAINED)).mean())
                     for k in shortlist for s in (0, 1)}
        for mine in sorted(explained, key=lambda k: -explained[k])[:3]:
            if explained[mine] < COVER_EXPLAINED:
                break
            poor = (res(mine) > UNEXPLAINED).reshape(FINE_SIZE[1], FINE_SIZE[0])
            # a cover is a broad patch: thin lines are print a pixel or two off
            covered = cv2.dilate(cv2.erode(poor.astype(np.uint8), _SMALL_RIM), _RIM)
            if (valid & (covered.ravel() == 0)).mean() < COVER_VISIBLE:
                continue
            rivals = set(shortlist) | set(int(k) for k in self._neighbours[mine[0]])
            rivals.discard(mine[0])
            if all(_beats_past_cover(query, res(mine), res((other, s)), lit[mine],
                                     lit[(other, s)], self._differ_at(mine, (other, s)),
                                     valid, self.glare_differ, self.min_clear)
                   for other in rivals for s in (0, 1)):
                return mine[0], explained[mine], max(
                    (v for k, v in explained.items() if k[0] != mine[0]), default=0.0)
        return None, max(explained.values()), 0.0

    @cached_property
    def _neighbours(self) -> NDArray[np.intp]:
        """Each reference's most alike other references (cards x RIVALS): the cards a
        partly covered card may be."""
        sim = np.einsum("id,jkd->ijk", self.descriptors[:, 0], self.descriptors).max(axis=2)
        np.fill_diagonal(sim, -np.inf)
        return np.argsort(-sim, axis=1)[:, :RIVALS]

    def _fits(self, feats: Features, scores: NDArray[np.float32],
              only: tuple[int, ...] | None = None,
              ) -> dict[int, tuple[int, NDArray[np.float64]]]:
        """Keypoint fits (inliers, transform) of a card (its ``feats``) onto the references
        it is most like by ``scores`` (or ``only`` these), at least ``MIN_INLIERS`` strong;
        a fit serves a reference's near-identical twins too."""
        order = np.argsort(-scores)[:SHORTLIST] if only is None else np.array(only)
        out: dict[int, tuple[int, NDArray[np.float64]]] = {}
        tried: list[int] = []
        for i in (int(k) for k in order):
            twin = next((t for t in tried if self._twins[i, t]), None)
            if twin is not None:
                if twin in out:
                    out[i] = out[twin]
                continue
            tried.append(i)
            h, n = _keypoint_fit(feats, self._features[i])
            if h is not None and n >= MIN_INLIERS:
                out[i] = (n, h)
        return out

    def _holds(self, card: Image, inner: Image | None, ref: tuple[int, int],
               scores: NDArray[np.float32], glared: bool) -> bool:
        """Whether ``card`` is still reference ``ref`` (card, side) rather than each card
        most like it.

        Light can wash a mark out to look like blank paper, never draw one. So under
        glare (``glared``), each rival printing marks that ``ref`` lacks must be ruled
        out by the detail where those marks would be (glare adds smooth light: a mark
        under it is still a mark, unless the light saturates it). Otherwise (a fair
        likeness, not a sure one) the card must beat each rival where the two differ,
        leaving out what neither explains and saturated light."""
        view = _inner(card, FINE_SIZE) if inner is None else inner
        _, move = _shift(_fine(view), self._grey_reference(ref))
        query = _warped(view.astype(np.float32), move).reshape(-1, 3)
        everywhere = np.ones(len(query), bool)
        mine = _lit(query, self.fine[ref].reshape(-1, 3), everywhere)
        usable = _least(query) < SATURATED
        glare = _glare(query, self.fine[ref].reshape(-1, 3), everywhere) if glared else ~usable
        ours = np.asarray(np.abs(query - mine).sum(axis=1), np.float32)
        per_card = scores.max(axis=1)
        close = {int(k) for k in np.argsort(-per_card)[:RIVALS + 1]
                 if per_card[k] >= per_card[ref[0]] - RIVAL_WINDOW}
        close |= {int(k) for k in self._neighbours[ref[0]][:NEAREST]}
        close.discard(ref[0])
        for other in ((k, int(np.argmax(scores[k]))) for k in close):
            theirs = _lit(query, self.fine[other].reshape(-1, 3), everywhere)
            if glared:
                if _may_show_marks(query, mine, theirs, self._differ_at(ref, other), glare):
                    return False  # what only they print shows through the glare, or may
                continue
            if not _beats_past_cover(query, ours, np.asarray(np.abs(query - theirs).sum(
                    axis=1), np.float32), mine, theirs, self._differ_at(ref, other),
                    usable, self.glare_differ, self.hold_clear):
                return False
        return True

    def _settle(self, card: Image, inner: Image | None, scores: NDArray[np.float32],
                per_card: NDArray[np.float32], order: NDArray[np.intp],
                ) -> tuple[int | None, tuple[int, int] | None]:
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
        fine = fine_view(card) if inner is None else _fine(inner)
        ref = self._grey_reference(close[0])
        shift = _shift(fine, ref)
        # Most cards are clear once shifted into place: asking for a wider margin then
        # leaves the affine fit (the costly part) to the rest.
        found = self._winner(_warped(fine, shift[1]), close, self.quick_clear)
        if found is None:
            found = self._winner(aligned(fine, ref, shift), close, self.min_clear)
        return (None, None) if found is None else (found[0], found)

    def _glared(self, small: Image, ref: tuple[int, int]) -> bool:
        """Whether the card (its inner part at ``DESC_SIZE``) shows glare, as reference
        ``ref`` (card, side) explains it. A quick look, at half the fine view's size and
        with one fit: it runs for most cards of a deck of near twins."""
        if ref not in self._small:
            self._small[ref] = np.asarray(cv2.resize(self.fine[ref], DESC_SIZE,
                                                     interpolation=cv2.INTER_AREA),
                                          np.float32).reshape(-1, 3)
        glare = _glare(small.astype(np.float32).reshape(-1, 3), self._small[ref],
                       np.ones(DESC_SIZE[0] * DESC_SIZE[1], bool), DESC_SIZE, refit=False)
        return bool(glare.mean() >= self.glare_found)

    def _through_glare(self, card: Image, inner: Image | None) -> int | None:
        """The card an unknown shows when a glare spot is what hid it.

        Glare adds a broad, smooth patch of light: the card's print is still there under
        it, lower in contrast only where the light saturates. So cards are compared by
        their detail (each channel minus its blurred self), where a smooth patch of light
        cancels, leaving out saturated pixels. The winner must show glare (light its
        reference does not explain), match well in detail, still match in colour where no
        glare is, and clearly beat every close rival where the two differ.
        """
        view = _inner(card, FINE_SIZE) if inner is None else inner
        query = view.astype(np.float32).reshape(-1, 3)
        detail = _detail(view.astype(np.float32)).reshape(-1, 3)
        everywhere = np.ones(len(query), bool)
        first = int(np.argmax(_masked_correlation(self._details_by_channel, detail, everywhere)))
        # shifted into place on the best guess (its rivals share its layout)
        shape = (FINE_SIZE[1], FINE_SIZE[0], 3)
        (dx, dy), _ = cv2.phaseCorrelate(_grey(self._details[first].reshape(shape)),
                                         _grey(detail.reshape(shape)))
        if 0.5 <= max(abs(dx), abs(dy)) <= 8:
            move = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
            query = _warped(query.reshape(shape), move).reshape(-1, 3)
            detail = _warped(detail.reshape(shape), move).reshape(-1, 3)
        glare = _glare(query, self.fine[divmod(first, 2)].reshape(-1, 3), everywhere)
        if glare.mean() < self.glare_found:
            return None  # no light the card does not explain: an unknown for other reasons
        # saturated glare may hide a stroke: there the print is unknown
        usable = ~(glare & (query.max(axis=1) >= SATURATED))
        if usable.mean() < self.glare_usable:
            return None  # mostly washed out: too little left to tell
        scores = _masked_correlation(self._details_by_channel, detail, usable)
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
        for other in rivals.values():
            if not self._beats_in_detail(detail, mine, other, usable):
                return None
        return mine[0]

    @cached_property
    def _details(self) -> NDArray[np.float32]:
        """The detail (see :func:`_detail`) of every reference: (cards x 2) x pixels x 3."""
        n = len(self.cards)
        flat = self.fine.reshape(n * 2, FINE_SIZE[1], FINE_SIZE[0], 3)
        return np.array([_detail(v).reshape(-1, 3) for v in flat], np.float32)

    @cached_property
    def _details_by_channel(self) -> NDArray[np.float32]:
        """:attr:`_details` laid out for :func:`_masked_correlation`."""
        return _by_channel(self._details)

    def _colour_match(self, query: NDArray[np.float32], ref: tuple[int, int],
                      visible: NDArray[np.bool_]) -> float:
        """The first stage's similarity of the fine-view pixels ``query`` and reference
        ``ref`` on the ``visible`` pixels only (both renormalised there)."""
        view = np.clip(query, 0, 255).astype(np.uint8).reshape(FINE_SIZE[1], FINE_SIZE[0], 3)
        small = np.asarray(cv2.resize(view, DESC_SIZE, interpolation=cv2.INTER_AREA), np.uint8)
        lab = cv2.cvtColor(cv2.GaussianBlur(small, (3, 3), 0), cv2.COLOR_BGR2LAB)
        seen = cv2.resize(visible.reshape(FINE_SIZE[1], FINE_SIZE[0]).astype(np.float32),
                          DESC_SIZE, interpolation=cv2.INTER_AREA) > 0.99
        reference = self.descriptors[ref].reshape(3, -1).T  # channel after channel
        corr = _masked_correlation(_by_channel(reference[None]),
                                   lab.astype(np.float32).reshape(-1, 3), seen.ravel(),
                                   per_channel=True)
        weights = DESC_WEIGHTS ** 2
        return float((corr[0] * weights).sum() / weights.sum())

    def _beats_in_detail(self, detail: NDArray[np.float32], mine: tuple[int, int],
                         other: tuple[int, int], usable: NDArray[np.bool_]) -> bool:
        """Whether the query's ``detail`` is clearly (by ``min_clear``) ``mine`` rather than
        ``other`` where those two references differ, on the ``usable`` pixels."""
        where = self._differ_at(mine, other)
        seen = where[usable[where]]
        if len(seen) < max(12, self.glare_differ * len(where)):
            return False  # what tells these two apart is mostly washed out
        to = []
        for ref in (mine, other):
            r = self._details[2 * ref[0] + ref[1]]
            # the query's detail scaled to the reference's over the whole card (glare and
            # lighting lower its contrast): fitted where they differ, a blank would win
            q, rr = detail[usable], r[usable]
            gain = np.maximum((q * rr).sum(axis=0) / np.maximum((q * q).sum(axis=0), 1e-6), 0)
            to.append(float(np.abs(detail[seen] * gain - r[seen]).sum()))
        return to[0] < to[1] and 1.0 - to[0] / max(to[1], 1e-6) >= self.min_clear

    def _winner(self, query: NDArray[np.float32], close: list[tuple[int, int]],
                clear: float) -> tuple[int, int] | None:
        """The one of the ``close`` references (card, side) that the aligned fine ``query``
        is clearly (by ``clear``) rather than each other one, if any."""
        distance: dict[tuple[int, int], NDArray[np.float32]] = {}

        def to(ref: tuple[int, int]) -> NDArray[np.float32]:
            """The query's per-pixel distance (summed over channels) to a reference."""
            if ref not in distance:
                diff = cv2.absdiff(query, self.fine[ref])
                distance[ref] = np.asarray(cv2.transform(diff, _ONES), np.float32).ravel()
            return distance[ref]

        for mine in close:
            if all(self._beats(to(mine), to(other), mine, other, clear)
                   for other in close if other != mine):
                return mine
        return None

    def _differ_at(self, mine: tuple[int, int], other: tuple[int, int]) -> NDArray[np.intp]:
        """The fine-view pixels where two references differ."""
        key = (*mine, *other)
        if key not in self._differ:
            a, b = self.fine[mine].reshape(-1, 3), self.fine[other].reshape(-1, 3)
            self._differ[key] = np.flatnonzero(np.abs(a - b).sum(axis=1) > 1.5)
        return self._differ[key]

    def _grey_reference(self, ref: tuple[int, int]) -> NDArray[np.float32]:
        if ref not in self._grey:
            self._grey[ref] = _grey(self.fine[ref])
        return self._grey[ref]

    def _beats(self, to_mine: NDArray[np.float32], to_other: NDArray[np.float32],
               mine: tuple[int, int], other: tuple[int, int], clear: float) -> bool:
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
        folder = store / self.deck
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / "references.tmp.npz"
        np.savez_compressed(tmp, faces=self.faces)
        os.replace(tmp, folder / "references.npz")
        meta = {"version": FORMAT_VERSION, "deck": self.deck, "cards": list(self.cards)}
        (folder / "deck.json.tmp").write_text(json.dumps(meta, indent=1), encoding="utf-8")
        os.replace(folder / "deck.json.tmp", folder / "deck.json")
        return folder

    @classmethod
    def load(cls, store: Path, deck: str) -> Gallery:
        """The gallery saved under ``store/<deck>/``; everything but the faces is made
        again, so a change to how cards are compared needs no new teaching."""
        folder = store / deck
        again = (f"teach it again with 'companion vision enroll --deck {deck}' "
                 "(or on the phone's camera page)")
        try:
            meta = json.loads((folder / "deck.json").read_text(encoding="utf-8"))
            if meta.get("version") == 1:
                raise EnrollmentError(
                    f"enrolled deck {deck!r} in {folder} was taught by an older version "
                    f"that kept no card images; {again}")
            with np.load(folder / "references.npz") as data:
                faces = np.asarray(data["faces"], np.uint8)
        except FileNotFoundError:
            raise EnrollmentError(
                f"no enrolled deck {deck!r} in {store}; enroll it first with "
                f"'companion vision enroll --deck {deck} --from DIR'") from None
        except (OSError, ValueError, KeyError) as exc:
            if isinstance(exc, EnrollmentError):
                raise
            raise EnrollmentError(f"enrolled deck {deck!r} in {folder} is damaged ({exc}); "
                                  f"enroll it again: {again}") from None
        cards = tuple(meta.get("cards", ()))
        if meta.get("version") != FORMAT_VERSION or faces.shape != (
                len(cards), CARD_H, CARD_W, 3) or not cards:
            raise EnrollmentError(f"enrolled deck {deck!r} in {folder} has an unknown format; "
                                  f"enroll it again: {again}")
        return cls.from_canonical(deck, cards, faces)


def valid_deck_name(name: str) -> str:
    """A deck name safe as a folder name.

    >>> valid_deck_name("star-catcher")
    'star-catcher'
    >>> valid_deck_name("../x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    vision.enrolled.EnrollmentError: deck name '../x' must be letters, digits, '-' or '_' ...
    """
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_\-]{0,40}", name) or name == "standard":
        raise EnrollmentError(f"deck name {name!r} must be letters, digits, '-' or '_' "
                              "(like 'star-catcher')" if name != "standard" else
                              "'standard' is built in and needs no enrollment")
    return name


def load_folder(folder: Path) -> dict[str, Image]:
    """One image per card id from ``<card id>.png|.jpg`` files in ``folder``."""
    if not folder.is_dir():
        raise EnrollmentError(f"{folder} is not a folder; expected a folder of "
                              "<card id>.png or .jpg images")
    faces: dict[str, Image] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in (".png", ".jpg", ".jpeg"):
            continue
        card = path.stem
        if not CARD_ID.match(card):
            raise EnrollmentError(f"{path.name}: {card!r} is not a card id (like D7*, C5, M, "
                                  "harry)")
        if card in faces:
            raise EnrollmentError(f"{path.name}: card {card!r} has two images; keep one")
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None or min(img.shape[:2]) < 40:
            raise EnrollmentError(f"{path.name}: not a readable image at least 40 pixels wide")
        faces[card] = np.asarray(img, np.uint8)
    if len(faces) < 2:
        raise EnrollmentError(f"{folder} holds {len(faces)} card images; a deck needs at "
                              "least 2 (one clean, flat, upright image per distinct card)")
    return faces


def enroll_folder(deck: str, folder: Path, store: Path) -> Gallery:
    """Enroll a deck from a folder of card images and save it under ``store``."""
    gallery = Gallery.from_faces(valid_deck_name(deck), load_folder(folder))
    gallery.save(store)
    return gallery
