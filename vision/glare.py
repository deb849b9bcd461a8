"""Glare on a card: paper clipped white by a lamp's reflection, which hides ink (an
index's corner, a pip) rather than showing what is printed there. The reader refuses a
corner so washed out as glare rather than reading what is left of it."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.thresholds import Thresholds

Image = NDArray[np.uint8]


def darkest(card: Image) -> Image:
    """Each pixel's darkest channel: ink of any colour is dark in it, glare is not."""
    b, g, r = cv2.split(card)
    return np.asarray(cv2.min(cv2.min(b, g), r), np.uint8)


def clipped_by_glare(card: Image, ink: NDArray[np.float32], th: Thresholds) -> bool:
    """Whether part of the paper is clipped white while the rest is clearly darker (a clean
    print whose paper is white all over is not washed out, nor one whose margin is clipped
    nearly all round: the pale parts of a court's picture are no paper darker than a glare
    spot, and a spot clipping the whole margin has washed out the whole card).

    >>> th, ink = Thresholds(), np.zeros((140, 100), np.float32)
    >>> card = np.full((140, 100, 3), 255, np.uint8); card[30:110, 25:75] = 200  # pale print
    >>> clipped_by_glare(card, ink, th)
    False
    >>> card[:, :] = 225; card[10:60, 10:60] = 255  # paper lit, a spot clipping part of it
    >>> clipped_by_glare(card, ink, th)
    True
    """
    dark = darkest(card)
    if float((dark >= 250).mean()) < th.washed_fraction:
        return False  # (most cards: nothing clipped, and the percentiles below cost more)
    bare = dark[ink < 0.2]
    return (bare.size > 0 and float(np.percentile(bare, 10)) < 245
            and float(np.percentile(_margin(dark), 25)) < 245)


def _margin(dark: Image) -> Image:
    """The margin round a card's face (``dark``: :func:`darkest`): its paper (a court's
    picture would pull the whole card's median down). A glare spot clips part of it;
    paper clipped all round is a camera's exposure."""
    h, w = dark.shape[:2]
    mx, my = max(w // 25, 1), max(h // 25, 1)
    return np.concatenate([dark[my:2 * my, mx:-mx].ravel(), dark[-2 * my:-my, mx:-mx].ravel(),
                           dark[my:-my, mx:2 * mx].ravel(), dark[my:-my, -2 * mx:-mx].ravel()])


def corners_washed_out(card: Image, th: Thresholds) -> bool:
    """Whether an index corner is largely clipped white by glare: brighter than the card's
    own paper elsewhere (a clean scan whose paper is white all over has no glare)."""
    h, w = card.shape[:2]
    dark = darkest(card)
    if float(np.median(_margin(dark))) >= 245:
        return False  # (paper itself at the clip leaves glare unseen)
    corner = dark[: h * 2 // 5, : w // 3]
    far = dark[h - h * 2 // 5:, w - w // 3:]
    return any(float((c >= 250).mean()) >= th.glare_fraction for c in (corner, far))
