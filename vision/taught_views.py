"""The views a taught deck compares cards by, made so that the light cancels out.

A dewarped card is trimmed of its margin (edges are where dewarps disagree) and
looked at in two sizes:

* the *descriptor*: a small, blurred, contrast-normalised Lab image (unit vector), so
  lighting gain and offset cancel out; a card with little colour keeps little colour,
  so that noise and a colour cast do not weigh like print;
* the *fine view*: a larger, per-channel standardised view, for telling
  near-identical cards apart where they differ, once laid onto each other (a
  phase-correlation shift, then an affine ECC fit);

and by its *detail* (each channel minus its blurred self), where a smooth patch of
light such as a glare spot cancels.

>>> card = np.full((280, 200, 3), 200, np.uint8)
>>> describe(card).shape, fine_view(card).shape
((3780,), (84, 60, 3))
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]

DESC_SIZE = (30, 42)
FINE_SIZE = (60, 84)
DESC_WEIGHTS = np.array([1.0, 0.7, 0.7])  # L, a, b: lightness carries the most
CHROMA_FLOOR = 6.0
"""Lab units: a descriptor's a and b channels are scaled as if they varied at least this
much (a grey card's colour is noise and cast, not print)."""
MARGIN = 0.09  # fraction of the card trimmed on each side: edges are where dewarps disagree


def inner_part(card: Image, size: tuple[int, int]) -> Image:
    """The card without its margin, area-averaged to ``size``."""
    h, w = card.shape[:2]
    mx, my = round(w * MARGIN), round(h * MARGIN)
    return np.asarray(cv2.resize(card[my:h - my, mx:w - mx], size,
                                 interpolation=cv2.INTER_AREA), np.uint8)


def describe(card: Image) -> NDArray[np.float32]:
    """The perceptual descriptor of a canonical card (unit vector)."""
    return descriptor_of(inner_part(card, DESC_SIZE))


def descriptor_of(small: Image) -> NDArray[np.float32]:
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


def fine_view(card: Image) -> NDArray[np.float32]:
    """A larger, per-channel standardised view for telling near-identical cards apart."""
    return fine_of(inner_part(card, FINE_SIZE))


def fine_of(small: Image) -> NDArray[np.float32]:
    """:func:`fine_view` from the card's inner part at ``FINE_SIZE``."""
    f = cv2.GaussianBlur(small, (0, 0), 0.9).astype(np.float32)
    mean, std = cv2.meanStdDev(f)
    return np.asarray((f - mean.ravel().astype(np.float32))
                      / (std.ravel().astype(np.float32) + np.float32(1e-3)), np.float32)


def grey_of(view: NDArray[np.float32]) -> NDArray[np.float32]:
    """The mean of a fine view's three channels."""
    return np.asarray(cv2.transform(view, _THIRDS), np.float32)


_THIRDS = np.full((1, 3), 1 / 3, np.float32)
ONES = np.ones((1, 3), np.float32)
"""Sums a view's three channels (``cv2.transform``: numpy's sum is slow over three)."""


def phase_shift(query: NDArray[np.float32], ref: NDArray[np.float32],
                ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """The grey ``query`` and the translation (2 x 3) that lays it onto the grey ``ref``
    (phase correlation; none when it is implausibly far)."""
    q = grey_of(query)
    (dx, dy), _ = cv2.phaseCorrelate(ref, q)
    if abs(dx) > 8 or abs(dy) > 8:
        dx = dy = 0.0
    return q, np.array([[1, 0, dx], [0, 1, dy]], np.float32)


def warped(query: NDArray[np.float32], warp: NDArray[np.float32]) -> NDArray[np.float32]:
    h, w = query.shape[:2]
    return np.asarray(cv2.warpAffine(query, warp, (w, h),
                                     flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_REPLICATE), np.float32)


def aligned(query: NDArray[np.float32], ref: NDArray[np.float32],
            shift: tuple[NDArray[np.float32], NDArray[np.float32]] | None = None,
            ) -> NDArray[np.float32]:
    """``query`` warped onto ``ref`` (a fine view, or its grey): dewarps are off by a few
    pixels, a little scale or a degree or two (an affine ECC fit, started from a
    phase-correlation shift; ``shift`` is that :func:`phase_shift` when already known)."""
    r = grey_of(ref) if ref.ndim == 3 else ref
    q, start = shift if shift is not None else phase_shift(query, r)
    warp = affine_fit(q, r, start)
    return query if warp is None else warped(query, warp)


def affine_fit(query: NDArray[np.float32], ref: NDArray[np.float32],
               start: NDArray[np.float32]) -> NDArray[np.float32] | None:
    """The affine warp (2 x 3, inverse map) laying the grey ``query`` onto the grey
    ``ref``, fitted by ECC from ``start``; ``None`` when implausible (a different card,
    not a misaligned one)."""
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 40, 1e-4)
    try:
        _, found = cv2.findTransformECC(ref, query, start.copy(), cv2.MOTION_AFFINE, criteria,
                                        None, 5)  # type: ignore[call-overload]
        warp = np.asarray(found, np.float32)
    except cv2.error:
        warp = start  # no convergence: keep the shift
    if np.abs(warp[:, :2] - np.eye(2)).max() > 0.15 or np.abs(warp[:, 2]).max() > 12:
        return None
    return warp


DETAIL_BLUR = 2.5  # fine-view pixels: smaller than a glare spot, larger than a stroke


def detail_of(view: NDArray[np.float32]) -> NDArray[np.float32]:
    """Each channel of ``view`` minus its blurred self: the print, without smooth light."""
    return np.asarray(view - cv2.GaussianBlur(view, (0, 0), DETAIL_BLUR), np.float32)


def by_channel(refs: NDArray[np.float32]) -> NDArray[np.float32]:
    """References (refs x pixels x 3) as 2 x 3 x refs x pixels: each channel contiguous,
    then the same squared (what :func:`masked_correlation` multiplies with)."""
    channels = np.ascontiguousarray(refs.transpose(2, 0, 1), np.float32)
    return np.stack([channels, channels * channels])


def masked_correlation(refs: NDArray[np.float32], query: NDArray[np.float32],
                       use: NDArray[np.bool_], per_channel: bool = False,
                       ) -> NDArray[np.float64]:
    """The correlation, channel by channel on the ``use`` pixels, of ``query`` (pixels x 3)
    with each of ``refs`` (see :func:`by_channel`): averaged over channels, or per
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


def matvec(matrix: NDArray[np.float32], v: NDArray[np.float32]) -> NDArray[np.float32]:
    """``matrix @ v`` on this core: BLAS spreads even small products over threads, which
    stall when the other core is busy (twice the time per card on a loaded Pi).

    >>> matvec(np.eye(2, dtype=np.float32), np.float32([3, 4])).tolist()
    [3.0, 4.0]
    """
    return np.asarray(np.einsum("...j,j->...", matrix, v), np.float32)

