"""A taught card with a shadow across it: the shadow fitted against a reference, the card
relit.

A taught card is compared as a whole, its light's gain and offset cancelled
(:mod:`vision.taught_views`), and looked at for light its reference does not explain
(glare). A shadow cast across it (an arm, a phone, a lamp behind a player) is neither:
one part of the card is darker than the rest, and it matches no reference. Seen against
the reference most like it, the shadow is what divides the two: a light that steps down
across a line, softly. :func:`fitted_shadow` fits that step (a few numbers, which cannot
draw print: a card relit so still shows its own print); :func:`relit` lifts the shaded
side to the lit one. The gallery reads the relit card, and keypoints must bear it out
(:meth:`vision.enrolled.Gallery.identify`).

>>> card = np.full((280, 200, 3), 200, np.uint8)
>>> fitted_shadow(card, card) is None  # alike: no shadow
True
>>> shaded = card.copy(); shaded[:, 100:] = 70
>>> shadow = fitted_shadow(shaded, card)
>>> round(abs(shadow.step), 1)  # the shaded half is e^1.0 (about 2.8) times darker
1.0
>>> int(relit(shaded, shadow)[140, 180, 0]), int(relit(shaded, shadow)[140, 20, 0])
(199, 200)
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.taught_views import MARGIN, inner_part

Image = NDArray[np.uint8]

GRID = (20, 28)
"""The size (width, height) at which a card's inner part is compared with its reference
for a shadow: a shadow's edge is broad, and a finer grid costs more than it tells."""

ANGLES = np.deg2rad(np.arange(0.0, 180.0, 15.0))
"""The directions of the shadow's edge tried."""

OFFSETS = 16
"""The places of the edge tried along each direction, across the card."""

SOFTNESS = (1.0, 3.0, 6.0, 10.0)
"""How wide (grid cells) the edge's ramp from shade to light is tried: a hard shadow's
edge is a cell or two, a lamp's soft one a third of a card."""

LEAST_STEP = 0.22
"""The least step of light (natural log: the shade about a fifth darker) taken for a
shadow; less, a card not read is not for want of light."""

MOST_LEFT = 0.5
"""The most of the log light's variance (weighed, see :func:`fitted_shadow`) the step may
leave unexplained: more, the card and the reference differ by more than light."""

DARK = 2.0
"""Grey levels added before taking logarithms (so that black ink's noise weighs little)."""


@dataclass(frozen=True)
class Shadow:
    """A soft step of light across a card: along ``angle`` (radians) the light is
    ``step`` (natural log) higher beyond ``offset`` (grid cells from the centre), ramping
    over ``width`` cells; negative, lower."""

    angle: float
    offset: float
    width: float
    step: float


def _grey(card: Image) -> NDArray[np.float32]:
    small = inner_part(card, GRID)
    return np.asarray(cv2.GaussianBlur(cv2.max(cv2.max(small[:, :, 0], small[:, :, 1]),
                                               small[:, :, 2]), (3, 3), 0), np.float32)


def _across(angle: float, x: NDArray[np.float32], y: NDArray[np.float32]) -> NDArray[np.float32]:
    return np.asarray(x * np.float32(np.cos(angle)) + y * np.float32(np.sin(angle)), np.float32)


def fitted_shadow(card: Image, reference: Image) -> Shadow | None:
    """The shadow that best explains how ``card`` (canonical, BGR) is darker in part than
    ``reference`` (the same way up), or ``None`` where no step of light does.

    Fitted to the log of their ratio, each cell weighed by how bright the reference is
    there: paper shows the light; ink, dark in both, shows little but noise."""
    ref = _grey(reference)
    ratio = (np.log(_grey(card) + DARK) - np.log(ref + DARK)).ravel()
    weight = (np.clip(ref / max(float(np.percentile(ref, 90)), 1.0), 0.05, 1.0) ** 2).ravel()
    h, w = ref.shape
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    x, y = (x - w / 2).ravel(), (y - h / 2).ravel()
    total, weighed = float(weight.sum()), float(weight @ ratio)
    spread = float(weight @ (ratio - weighed / total) ** 2)
    best: tuple[float, Shadow] | None = None
    for angle in ANGLES.tolist():
        t = _across(angle, x, y)
        offsets = np.linspace(float(t.min()) + 1, float(t.max()) - 1, OFFSETS, dtype=np.float32)
        for width in SOFTNESS:
            ramp = np.clip((t[None, :] - offsets[:, None]) / width + 0.5, 0, 1)
            # weighed least squares of ratio = a + step * ramp, every offset at once
            s1, s2 = ramp @ weight, (ramp * ramp) @ weight
            sr = ramp @ (weight * ratio)
            det = total * s2 - s1 * s1
            step = np.where(det > 1e-6, (total * sr - s1 * weighed) / np.maximum(det, 1e-6), 0)
            base = (weighed - step * s1) / total
            left = ((ratio[None, :] - base[:, None] - step[:, None] * ramp) ** 2) @ weight
            k = int(np.argmin(left))
            if best is None or float(left[k]) < best[0]:
                best = (float(left[k]), Shadow(angle, float(offsets[k]), width, float(step[k])))
    if best is None or spread <= 0 or best[0] > MOST_LEFT * spread:
        return None
    return best[1] if abs(best[1].step) >= LEAST_STEP else None


def relit(card: Image, shadow: Shadow) -> Image:
    """``card`` with the shaded side of ``shadow`` lifted to the light of the lit side."""
    h, w = card.shape[:2]
    mx, my = w * MARGIN, h * MARGIN
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    # card pixels to grid cells (from the grid's centre), as inner_part shrank them
    gx = (x - mx + 0.5) * (GRID[0] / (w - 2 * mx)) - 0.5 - GRID[0] / 2
    gy = (y - my + 0.5) * (GRID[1] / (h - 2 * my)) - 0.5 - GRID[1] / 2
    ramp = np.clip((_across(shadow.angle, gx, gy) - shadow.offset) / shadow.width + 0.5, 0, 1)
    light = shadow.step * ramp - max(shadow.step, 0.0)  # 0 on the lit side
    lifted = card.astype(np.float32) * np.exp(-light)[:, :, None]
    return np.asarray(np.clip(lifted, 0, 255), np.uint8)
