"""A taught card matched part by part: ORB keypoints and a geometric check.

A card that the whole-card comparison leaves unknown (perspective the dewarp did not
quite undo, blur, another light, a finger or another card over part of it, a card
taken a quarter-turn round) is matched by the keypoints of its contrast-equalised
grey image against those of a few references, with an affine fit by RANSAC: its
inliers must be many, and it must lay the reference over the card found, not over
a part of it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import detect
from vision.detect import CARD_H, CARD_W

Image = NDArray[np.uint8]

KP_PAD = 12
"""Pixels of replicated border round a card, so that features by its edge (the index) count."""
KP_FEATURES = 250  # ORB keypoints a card: about 1 ms on this machine, matching 4x cheaper
KP_RATIO = 0.8  # Lowe's ratio test: a match must be clearly better than the next one
RANSAC_PX = 4.0  # card pixels (of 200 x 280) an inlier may be off the fitted transform
MIN_INLIERS = 12  # least inliers of a fit (a card of another deck gets a handful)
MIN_COVER = 0.75  # IoU of the fitted reference with the card found: that card, not a part


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


def keypoint_fit(query: Features, ref: Features,
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

