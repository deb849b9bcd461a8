"""Canny edges by OpenCV's own code: IPP's, which OpenCV on x86 uses on one thread,
corrupts the heap on some fine textures and aborts the process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.canny import canny

BACK_TEXTURE = np.array([
    [124, 145, 125, 108, 131, 143, 118, 111, 137, 137, 111, 118, 143, 131, 108],
    [145, 166, 145, 128, 151, 163, 138, 131, 157, 157, 132, 138, 163, 151, 128],
    [124, 145, 125, 108, 131, 143, 118, 111, 137, 137, 111, 118, 143, 131, 108],
    [108, 128, 108, 92, 115, 126, 102, 95, 121, 121, 95, 101, 126, 115, 92],
    [131, 151, 132, 115, 138, 149, 125, 118, 144, 144, 119, 124, 149, 138, 115],
    [143, 163, 143, 126, 149, 161, 136, 130, 155, 155, 130, 136, 161, 150, 127],
    [118, 138, 118, 101, 124, 136, 111, 105, 130, 130, 105, 111, 136, 125, 102],
    [111, 132, 112, 95, 118, 130, 105, 99, 124, 124, 99, 105, 130, 119, 95],
    [137, 157, 137, 121, 144, 155, 130, 124, 149, 150, 124, 130, 155, 144, 121],
    [137, 157, 137, 121, 144, 155, 130, 124, 149, 150, 124, 130, 155, 144, 121],
    [111, 132, 112, 95, 118, 130, 105, 99, 124, 124, 99, 105, 130, 119, 95],
    [118, 138, 118, 101, 124, 136, 111, 105, 130, 130, 105, 111, 136, 125, 101],
    [143, 163, 143, 126, 149, 161, 136, 130, 155, 155, 130, 136, 161, 150, 126],
    [131, 151, 131, 115, 138, 149, 125, 118, 144, 144, 119, 124, 149, 138, 115],
    [108, 128, 108, 92, 115, 126, 102, 95, 121, 121, 95, 101, 126, 115, 92]
], np.uint8)
"""One period (15 x 15 pixels) of a published card back's lattice (npm
``@heruka_urgyen/react-playing-cards``), as the second look sees the back halved and
smoothed: IPP's Canny, tiled to 100 x 100 or more, aborts on it ("double free or
corruption")."""


def test_edges_of_a_fine_card_back_texture_do_not_abort_the_process() -> None:
    # in a child process: an abort there fails this test instead of ending the run
    code = (
        "import cv2, numpy as np\n"
        "from vision.detect import edge_mask\n"
        "from tests.vision.test_canny import BACK_TEXTURE\n"
        "cv2.setNumThreads(1)\n"
        "texture = np.tile(BACK_TEXTURE, (50, 90))[:720, :1280].copy()\n"
        "for size in (36, 100, 720):\n"
        "    part = np.ascontiguousarray(texture[:size, :size])\n"
        "    edge_mask(part, smooth=part)  # the frame's edges, as the detector finds them\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_edges_are_opencvs_own_and_ipp_is_left_as_it_was() -> None:
    rng = np.random.default_rng(4)
    gray = np.asarray(cv2.GaussianBlur(rng.integers(0, 256, (120, 160), dtype=np.uint8),
                                       (5, 5), 0), np.uint8)
    used = cv2.ipp.useIPP()
    try:
        for l2gradient in (True, False):
            # (the gradients are taken apart from Canny: the same edges, borders too)
            cv2.ipp.setUseIPP(False)
            own = cv2.Canny(gray, 20, 60, L2gradient=l2gradient)
            cv2.ipp.setUseIPP(True)
            before = cv2.ipp.useIPP()  # (False where OpenCV was built without IPP)
            assert np.array_equal(canny(gray, 20, 60, l2gradient=l2gradient), own)
            assert cv2.ipp.useIPP() == before
    finally:
        cv2.ipp.setUseIPP(used)
