"""Print the vision benchmark: python bench/bench_vision.py [--scenes N] [...]

Same as ``companion vision bench``; see vision/bench.py for what is measured.
"""

from __future__ import annotations

import os
import sys

import cv2

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from vision.cli import main

if __name__ == "__main__":
    cv2.setNumThreads(1)  # the target is one core of the Pi
    raise SystemExit(main(["bench", *sys.argv[1:]]))
