"""A card's outline moved outwards, side by side, in the card's own perspective: where an
outline lies a little inside the card (blur, a printed border, a pile's outline through
its index), the card is read again in a larger one."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import CARD_H, CARD_W


def sides_out(quad: NDArray[np.float32], top: float, right: float, bottom: float,
              left: float) -> NDArray[np.float32]:
    """``quad`` with each side moved outwards by so many card widths (inwards when
    negative), in the card's own perspective; ``quad[0]`` is the card's top-left."""
    rect = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float32)
    to_image = cv2.getPerspectiveTransform(rect, np.asarray(quad, np.float32))
    out = rect + CARD_W * np.array([[-left, -top], [right, -top], [right, bottom],
                                    [-left, bottom]], np.float32)
    return np.asarray(cv2.perspectiveTransform(out[None], to_image)[0], np.float32)


def grown(quad: NDArray[np.float32], border: float) -> NDArray[np.float32]:
    """``quad`` grown outwards by ``border`` card widths on every side, in the card's own
    perspective.

    >>> square = np.array([[0, 0], [100, 0], [100, 140], [0, 140]], np.float32)
    >>> grown(square, 0.1).round(1).tolist()
    [[-10.0, -10.0], [110.0, -10.0], [110.0, 150.0], [-10.0, 150.0]]
    """
    return sides_out(quad, border, border, border, border)


def pushed(quad: NDArray[np.float32], side: int, amount: float) -> NDArray[np.float32]:
    """``quad`` with one side (0 top, 1 right, 2 bottom, 3 left, as the card lies in
    ``quad``) moved outwards by ``amount`` card widths, in the card's own perspective.

    >>> square = np.array([[0, 0], [100, 0], [100, 140], [0, 140]], np.float32)
    >>> pushed(square, 3, 0.1).round(1).tolist()
    [[-10.0, 0.0], [100.0, 0.0], [100.0, 140.0], [-10.0, 140.0]]
    """
    top, right, bottom, left = (amount if i == side else 0.0 for i in range(4))
    return sides_out(quad, top, right, bottom, left)
