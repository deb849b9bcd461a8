"""A taught card partly covered (a finger, a hand, another card), once laid onto its
reference by its keypoints.

The few references most alike by the descriptor are matched by keypoints (see
:mod:`vision.taught_keypoints`); the best fit lays the card onto its reference. If a
cover still hides part of it, what no candidate explains is left out, and the card is
named only if one reference explains most of it and beats every card most like it
where the two differ (unknown when that is covered).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import CARD_H, CARD_W
from vision.taught_evidence import RIM, SMALL_RIM, UNEXPLAINED, beats_past_cover, lit_like
from vision.taught_keypoints import MIN_INLIERS, Features, keypoint_fit
from vision.taught_references import Ref, References
from vision.taught_views import FINE_SIZE, inner_part

Image = NDArray[np.uint8]

SHORTLIST = 4  # references (most alike by the descriptor) matched by keypoints, each view
COVER_EXPLAINED = 0.75  # fraction of a covered card the named reference must explain
COVER_VISIBLE = 0.5  # fraction left when the cover's broad patches are taken out

Fits = dict[int, tuple[int, NDArray[np.float64]]]
"""Keypoint fits by card index: (inliers, transform laying the reference onto the card)."""


class CoverChecks(References):
    """The keypoint fits and the reading past a cover of a gallery (its thresholds are
    the gallery's fields)."""

    min_clear: float
    glare_differ: float

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
        valid = inner_part(np.asarray(inside, np.uint8)[:, :, None].repeat(3, axis=2),
                           FINE_SIZE)[:, :, 0].ravel() > 250
        query = inner_part(aligned, FINE_SIZE).astype(np.float32).reshape(-1, 3)
        lit: dict[Ref, NDArray[np.float32]] = {}
        residual: dict[Ref, NDArray[np.float32]] = {}

        def res(ref: Ref) -> NDArray[np.float32]:
            if ref not in residual:
                lit[ref] = lit_like(query, self.fine[ref].reshape(-1, 3), valid)
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
            covered = cv2.dilate(cv2.erode(poor.astype(np.uint8), SMALL_RIM), RIM)
            if (valid & (covered.ravel() == 0)).mean() < COVER_VISIBLE:
                continue
            rivals = set(shortlist) | set(int(k) for k in self._neighbours[mine[0]])
            rivals.discard(mine[0])
            if all(beats_past_cover(query, res(mine), res((other, s)), lit[mine],
                                    lit[(other, s)], self._differ_at(mine, (other, s)),
                                    valid, self.glare_differ, self.min_clear)
                   for other in rivals for s in (0, 1)):
                return mine[0], explained[mine], max(
                    (v for k, v in explained.items() if k[0] != mine[0]), default=0.0)
        return None, max(explained.values()), 0.0

    def _fits(self, feats: Features, scores: NDArray[np.float32],
              only: tuple[int, ...] | None = None) -> Fits:
        """Keypoint fits (inliers, transform) of a card (its ``feats``) onto the references
        it is most like by ``scores`` (or ``only`` these), at least ``MIN_INLIERS`` strong;
        a fit serves a reference's near-identical twins too."""
        order = np.argsort(-scores)[:SHORTLIST] if only is None else np.array(only)
        out: Fits = {}
        tried: list[int] = []
        for i in (int(k) for k in order):
            twin = next((t for t in tried if self._twins[i, t]), None)
            if twin is not None:
                if twin in out:
                    out[i] = out[twin]
                continue
            tried.append(i)
            h, n = keypoint_fit(feats, self._features[i])
            if h is not None and n >= MIN_INLIERS:
                out[i] = (n, h)
        return out
