"""How busy a table's texture is: the share of a frame that its edges cover.

A printed cloth, wood grain, granite or burlap covers most of a frame with edges; the
first look's outlines of cards there run into the table's own (a card left out, or
outlined askew and unread), where the look at the frame halved, its texture finer than
it can resolve, often outlines them cleanly. Our own tables' frames are covered under
9 % halved; real surfaces' (GIMP's photographs, :mod:`vision.real_tables`) 5-87 %.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import edge_mask

Image = NDArray[np.uint8]

TEXTURED = 0.15
"""Least share of a frame halved that its (dilated) edges cover, for its table to be
textured (:func:`textured_table`). The renderer's tables in the bench's rows: 0.006-0.09;
the real surfaces: pine 0.13-0.21, paper 0.10-0.24, printed cloth 0.64-0.68, burlap
0.86-0.88 (smooth cork, marble and crinkled paper 0.05-0.06)."""


def textured_table(image: Image) -> bool:
    """Whether the frame's table is textured (:data:`TEXTURED`), judged on the frame halved
    (a quarter of the pixels: about a millisecond).

    >>> flat = np.full((120, 160, 3), 90, np.uint8)
    >>> busy = np.random.default_rng(0).integers(0, 255, (120, 160, 3), dtype=np.uint8)
    >>> textured_table(flat), textured_table(busy)
    (False, True)
    """
    gray = np.asarray(image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY),
                      np.uint8)
    h, w = gray.shape
    halved = np.asarray(cv2.resize(gray, (w // 2, h // 2), interpolation=cv2.INTER_AREA),
                        np.uint8)
    return float(np.count_nonzero(edge_mask(halved))) > TEXTURED * halved.size
