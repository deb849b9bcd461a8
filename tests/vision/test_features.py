"""The reader's per-pixel and per-glyph measures, which run dozens of times a frame and
are written for speed, against their plain definitions."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.typing import NDArray

from vision.glyphs import features, features_of
from vision.index import ink_red_and_chroma, paper_colour, percentile_of_bytes


@settings(max_examples=300, deadline=None)
@given(arrays(np.uint8, st.tuples(st.integers(1, 400), st.integers(1, 4))),
       st.floats(0.0, 100.0))
def test_a_percentile_of_bytes_is_numpys(values: NDArray[np.uint8], q: float) -> None:
    assert np.array_equal(percentile_of_bytes(values, q).astype(np.float32),
                          np.percentile(values, q, axis=0).astype(np.float32))


def test_the_paper_is_a_bright_percentile_of_the_card() -> None:
    card = np.full((280, 200, 3), (200, 210, 220), np.uint8)
    card[100:180, 60:140] = 20  # ink over a fifth of the card
    assert paper_colour(card).tolist() == [200.0, 210.0, 220.0]


def _plain_ink_red_and_chroma(window: NDArray[np.uint8], paper: NDArray[np.float32],
                              ) -> tuple[NDArray[np.float32], ...]:
    """:func:`ink_red_and_chroma` as its docstring defines it, written plainly."""
    f = np.asarray(window, np.float32) / paper
    b, g, r = f[..., 0], f[..., 1], f[..., 2]
    darkest = np.minimum(np.minimum(b, g), r)
    local_paper = cv2.GaussianBlur(cv2.dilate(darkest, np.ones((15, 15), np.uint8)), (0, 0), 4)
    local = np.maximum(local_paper, 0.05)
    ink = np.clip(1.0 - darkest / local, 0, 1)
    lit = np.minimum(local, 1.0)  # the paper round a pixel, no brighter than the card's
    dark = np.maximum(lit - darkest, 0.05 * lit)
    red = np.clip((r - np.maximum(b, g)) / dark, -1, 2)
    chroma = np.clip((np.maximum(np.maximum(b, g), r) - darkest) / dark, 0, 2)
    return ink, red, chroma


def test_ink_redness_and_chroma_are_as_defined() -> None:
    rng = np.random.default_rng(7)
    window = rng.integers(0, 256, (95, 68, 3), dtype=np.uint8)
    window[20:40, 10:30] = (30, 30, 200)  # red ink
    paper = np.array([230.0, 225.0, 240.0], np.float32)
    for got, want in zip(ink_red_and_chroma(window, paper),
                         _plain_ink_red_and_chroma(window, paper), strict=True):
        assert got.dtype == np.float32
        assert np.allclose(got, want, atol=1e-6)
    _, red, _ = ink_red_and_chroma(window, paper)
    assert float(red[25:35, 15:25].mean()) > 0.5  # red ink scores high
    # in a shadow (the paper round it a third as bright) as red as in the light
    shaded = np.full((95, 68, 3), 230, np.uint8)
    shaded[:, 34:] = 77
    shaded[40:60, 5:25] = (30, 30, 200)
    shaded[40:60, 44:64] = (10, 10, 67)
    _, red, _ = ink_red_and_chroma(shaded, np.array([230.0, 230.0, 230.0], np.float32))
    assert abs(float(red[45:55, 49:59].mean()) - float(red[45:55, 10:20].mean())) < 0.1


def test_glyphs_measured_together_are_each_measured_alone() -> None:
    """The gradients of a batch are taken in one pass over cached cell indices: a glyph's
    features never depend on the others in its batch, nor on the batches before it."""
    rng = np.random.default_rng(3)
    glyphs = [rng.random((int(rng.integers(3, 40)), int(rng.integers(3, 30)))).astype(np.float32)
              for _ in range(7)] + [np.zeros((5, 5), np.float32)]
    alone = np.stack([features(g) for g in glyphs])
    for start, stop in ((0, 8), (0, 3), (2, 8), (5, 6)):
        assert np.allclose(features_of(glyphs[start:stop]), alone[start:stop], atol=1e-6)
    # a blank glyph has no gradients: its histogram stays zero, not NaN
    assert np.isfinite(alone).all()
