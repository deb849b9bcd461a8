"""Canny edges that cannot take the process down.

OpenCV on x86 hands ``cv2.Canny`` to Intel's IPP when it runs on one thread (as the
benchmarks and a one-core Pi set-up ask). IPP's Canny corrupts the heap on some fine,
dense textures: a published card back (npm ``@heruka_urgyen/react-playing-cards``) laid
on a frame halved for the second look aborted the whole process ("double free or
corruption"), and so does a 1280 x 720 frame of that texture. OpenCV's own Canny gives
the same edges (every pixel alike on the real photos) a little slower, so IPP is turned
off for the call, on this thread only (``cv2.ipp.setUseIPP`` is per thread), and back
on after it. OpenCV builds without IPP (a Pi's) are unchanged.

The gradients are taken first, by ``cv2.Sobel`` (3 x 3, borders replicated, as Canny takes
them itself), and handed to Canny: the same edges, pixel for pixel, and a tenth to a
sixth faster on this machine (the Sobel filters keep IPP's speed; only Canny's own
suppression and hysteresis run without it).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]


def canny(gray: Image, low: float, high: float, l2gradient: bool = False) -> Image:
    """``cv2.Canny(gray, low, high, L2gradient=l2gradient)`` by OpenCV's own code.

    >>> edges = canny(np.tile(np.uint8([[0] * 4 + [255] * 4]), (8, 1)), 50, 150)
    >>> edges.shape, int(edges.max())
    ((8, 8), 255)
    """
    dx = cv2.Sobel(gray, cv2.CV_16S, 1, 0, ksize=3, borderType=cv2.BORDER_REPLICATE)
    dy = cv2.Sobel(gray, cv2.CV_16S, 0, 1, ksize=3, borderType=cv2.BORDER_REPLICATE)
    used = cv2.ipp.useIPP()
    cv2.ipp.setUseIPP(False)
    try:
        return np.asarray(cv2.Canny(dx, dy, low, high, L2gradient=l2gradient), np.uint8)
    finally:
        cv2.ipp.setUseIPP(used)
