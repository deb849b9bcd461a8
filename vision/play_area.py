"""Where on the table a card counts: off the play area lie the calibration markers, a
cup, a sleeve. The detector is told where cards count (a :data:`PlaceTest`) and asks
it about each card's centre before reading anything there."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

PlaceTest = Callable[[tuple[float, float]], bool]
"""Whether a card centred at a point (image pixels) counts."""


def centre_of(quad: NDArray[np.floating]) -> tuple[float, float]:
    """The centre of a card's four corners (a ``(4, 2)`` array), the point a
    :data:`PlaceTest` is asked about.

    >>> centre_of(np.float32([[0, 0], [40, 0], [40, 60], [0, 60]]))
    (20.0, 30.0)
    """
    x, y = np.asarray(quad, np.float64).mean(axis=0)
    return float(x), float(y)
