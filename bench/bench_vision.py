"""Print the vision benchmark: python bench/bench_vision.py [--scenes N] [...]

Same as ``companion vision bench``; see vision/bench.py for what is measured.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, honestly: set before numpy loads
os.environ.setdefault("OMP_NUM_THREADS", "1")
import sys

import cv2

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from vision.cli import main

if __name__ == "__main__":
    cv2.setNumThreads(1)  # the target is one core of the Pi
    raise SystemExit(main(["bench", *sys.argv[1:]]))
