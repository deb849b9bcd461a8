"""Real photos changed as another camera, light or table would change them.

The shared photos are a few cameras and decks. How far the reader holds beyond them is
measured by changing each photo as a different set-up would (its labelled boxes moved
with it), then scoring it as the photos are scored (:func:`vision.photobench.score_photo`):
``python bench/bench_photo_changes.py``. The changes are applied to photos nobody here
made, so the figures measure the reader, not a renderer.

>>> image = np.zeros((40, 60, 3), np.uint8)
>>> turned, boxes = changed(image, (LabelledCard("7H", (10, 5, 20, 15)),), "quarter turn")
>>> turned.shape[:2], boxes[0].box
((60, 40), (25, 10, 35, 20))
>>> changed(image, (), "no such change")
Traceback (most recent call last):
...
ValueError: unknown change 'no such change'; expected one of as taken, quarter turn, ...
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.photos import LabelledCard, Photo

Image = NDArray[np.uint8]
ImageChange = Callable[[Image], tuple[Image, NDArray[np.float64]]]
"""A change: the changed image, and the 2 x 3 affine (or 3 x 3 perspective) matrix that
takes the photo's pixels to the changed image's (where the labelled boxes go)."""

_SAME = np.array([[1.0, 0, 0], [0, 1.0, 0]])


def _pixels(change: Callable[[Image], NDArray[Any]]) -> ImageChange:
    """A change of the pixels alone (the boxes stay where they are), clipped to 8 bits."""
    return lambda image: (np.clip(change(image), 0, 255).astype(np.uint8), _SAME)


def _turned(degrees: float) -> ImageChange:
    """Turned about its centre, the canvas grown to hold all of it (edges repeated)."""

    def turn(image: Image) -> tuple[Image, NDArray[np.float64]]:
        h, w = image.shape[:2]
        m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
        cos, sin = abs(m[0, 0]), abs(m[0, 1])
        size = (round(h * sin + w * cos), round(h * cos + w * sin))
        m[0, 2] += size[0] / 2 - w / 2
        m[1, 2] += size[1] / 2 - h / 2
        out = cv2.warpAffine(image, m, size, flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(out, np.uint8), np.asarray(m, np.float64)

    return turn


def _scaled(factor: float) -> ImageChange:
    """Smaller (a camera further away) or, enlarged smoothly (cubic), a photo of many
    more pixels whose edges are no sharper: a phone's, soft at full size."""

    def scale(image: Image) -> tuple[Image, NDArray[np.float64]]:
        how = cv2.INTER_AREA if factor < 1 else cv2.INTER_CUBIC
        out = cv2.resize(image, None, fx=factor, fy=factor, interpolation=how)
        return np.asarray(out, np.uint8), np.array([[factor, 0, 0], [0, factor, 0]])

    return scale


def _then(first: ImageChange, second: ImageChange) -> ImageChange:
    """``first``, then ``second`` (whose matrix must be the identity: a change of pixels)."""

    def both(image: Image) -> tuple[Image, NDArray[np.float64]]:
        out, matrix = first(image)
        return second(out)[0], matrix

    return both


def _tilted(degrees: float) -> ImageChange:
    """Seen by the same camera pitched ``degrees`` further from overhead: the table's far
    side smaller, the near side larger (the homography K R K^-1 of a camera turned about
    its centre; a focal length of the frame's longer side, a 53-degree view), the canvas
    fitted round all of it (edges repeated)."""

    def tilt(image: Image) -> tuple[Image, NDArray[np.float64]]:
        h, w = image.shape[:2]
        f = float(max(w, h))
        k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]], np.float64)
        a = np.radians(-degrees)  # (the top of the frame tips away)
        r = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
        m = k @ r @ np.linalg.inv(k)
        corners = np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float64)
        moved = cv2.perspectiveTransform(corners, m)[0]
        lo, hi = moved.min(axis=0), moved.max(axis=0)
        m = np.array([[1, 0, -lo[0]], [0, 1, -lo[1]], [0, 0, 1]]) @ m
        size = (round(float(hi[0] - lo[0])), round(float(hi[1] - lo[1])))
        out = cv2.warpPerspective(image, m, size, flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(out, np.uint8), m

    return tilt


def _levels(table: Callable[[NDArray[np.float32]], NDArray[Any]]) -> ImageChange:
    """A change of each pixel's level alone (the same for every channel)."""
    lut = np.clip(table(np.arange(256, dtype=np.float32)), 0, 255).astype(np.uint8)
    return _pixels(lambda image: cv2.LUT(image, lut))


def _jpeg(image: Image, quality: int = 30) -> NDArray[np.uint8]:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)


def _noise(image: Image, sigma: float = 8.0) -> NDArray[np.float32]:
    rng = np.random.default_rng(0)  # the same noise every run
    return image.astype(np.float32) + rng.normal(0.0, sigma, image.shape).astype(np.float32)


def shadow_across(image: Image, light: float = 0.3, angle: float = 70.0,
                   soft: float = 0.04) -> NDArray[np.float32]:
    """A shadow over one side of the photo (an arm or a phone between the lamp and the
    table), its light ``light`` of the rest, its edge through the middle at ``angle``
    degrees, soft over about ``soft`` of the photo's width."""
    h, w = image.shape[:2]
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    across = ((x - w / 2) * np.cos(np.deg2rad(angle)) + (y - h / 2) * np.sin(np.deg2rad(angle)))
    lit = light + (1.0 - light) / (1.0 + np.exp(-4.0 * across / (soft * w)))
    return np.asarray(image.astype(np.float32) * lit[:, :, None], np.float32)


CHANGES: dict[str, ImageChange] = {
    "as taken": lambda image: (image, _SAME),
    "quarter turn": _turned(-90.0),
    "turned 30 deg": _turned(30.0),
    "tilted 20 deg": _tilted(20.0),
    "tilted 35 deg": _tilted(35.0),
    "half size": _scaled(0.5),
    "third size": _scaled(0.35),
    "enlarged 4x (soft)": _scaled(4.0),
    "jpeg q30": _pixels(_jpeg),
    # tungsten light: blue down a quarter, red up a tenth
    "warm light": _pixels(lambda image: image * np.array([0.75, 1.0, 1.1], np.float32)),
    "half as bright": _levels(lambda v: v * 0.5),
    "dim (x0.3)": _levels(lambda v: v * 0.3),
    "overexposed": _levels(lambda v: 255 * (v / 255) ** 0.5),
    "sensor noise 8": _pixels(_noise),
    "blur 1.5 px": _pixels(lambda image: cv2.GaussianBlur(image, (0, 0), 1.5)),
    "blur 2.5 px": _pixels(lambda image: cv2.GaussianBlur(image, (0, 0), 2.5)),
    "haze (60 %)": _levels(lambda v: v * 0.6 + 255 * 0.4),
    "shadow across": _pixels(shadow_across),
    # a camera further away and softly focused: cards about 100 px wide, blurred
    "half, blur 1.5 px": _then(_scaled(0.5),
                               _pixels(lambda image: cv2.GaussianBlur(image, (0, 0), 1.5))),
    # a camera far away whose frames are compressed hard: cards about 65 px wide, blocky
    "third, jpeg q30": _then(_scaled(0.35), _pixels(_jpeg)),
}
"""Each change by name (see :data:`ImageChange`)."""


def moved_box(box: tuple[int, int, int, int], matrix: NDArray[np.float64],
              ) -> tuple[int, int, int, int]:
    """The axis-aligned box round ``box``'s corners moved by ``matrix`` (2 x 3 affine, or
    3 x 3 perspective).

    >>> moved_box((10, 20, 30, 40), np.array([[2.0, 0, 1], [0, 2.0, 0]]))
    (21, 40, 61, 80)
    >>> moved_box((10, 20, 30, 40), np.array([[2.0, 0, 1], [0, 2.0, 0], [0, 0, 2.0]]))
    (10, 20, 30, 40)
    """
    x0, y0, x1, y1 = box
    corners = np.array([[x0, y0, 1], [x1, y0, 1], [x1, y1, 1], [x0, y1, 1]], np.float64)
    moved = corners @ matrix.T
    if matrix.shape[0] == 3:
        moved = moved[:, :2] / moved[:, 2:]
    lo, hi = moved.min(axis=0), moved.max(axis=0)
    return (round(float(lo[0])), round(float(lo[1])), round(float(hi[0])), round(float(hi[1])))


def changed(image: Image, cards: Sequence[LabelledCard], change: str,
            ) -> tuple[Image, tuple[LabelledCard, ...]]:
    """``image`` and its labelled ``cards`` after ``change`` (a name in :data:`CHANGES`)."""
    apply = CHANGES.get(change)
    if apply is None:
        raise ValueError(f"unknown change {change!r}; expected one of {', '.join(CHANGES)}")
    out, matrix = apply(image)
    return out, tuple(LabelledCard(c.card, moved_box(c.box, matrix)) for c in cards)


CROPPED = "cropped to the card"
"""The name :mod:`bench/bench_photo_changes.py` gives :func:`cropped_to_the_card`'s row."""


def one_card_each(photos: Sequence[Photo]) -> list[Photo]:
    """Each labelled card of ``photos`` as a photo of its own (the same image, that one
    card labelled), for :func:`cropped_to_the_card`."""
    return [Photo(p.image, p.name, p.source, (card,)) for p in photos for card in p.cards]


def cropped_to_the_card(image: Image, cards: Sequence[LabelledCard],
                        ) -> tuple[Image, tuple[LabelledCard, ...]]:
    """A photo of one labelled card cropped to its box: a frame that is the card (a
    close-up, a scan, an image set's crop), its sides at the frame's or cut by it where
    the box, drawn by hand, is a little tight.

    >>> image = np.zeros((40, 60, 3), np.uint8)
    >>> crop, (card,) = cropped_to_the_card(image, (LabelledCard("7H", (10, 5, 30, 33)),))
    >>> crop.shape[:2], card.box
    ((28, 20), (0, 0, 20, 28))
    """
    if len(cards) != 1:
        raise ValueError(f"a photo of one labelled card is cropped, not of {len(cards)}")
    h, w = image.shape[:2]
    x0, y0, x1, y1 = cards[0].box
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    crop = np.ascontiguousarray(image[y0:y1, x0:x1])
    return crop, (LabelledCard(cards[0].card, (0, 0, x1 - x0, y1 - y0)),)
