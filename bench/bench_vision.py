"""Print the vision benchmark: python bench/bench_vision.py [--scenes N] [...]

The rendered scenes (``companion vision bench``, see vision/bench.py), then the real
photos beside them (``companion vision bench --photos``, see vision/photobench.py; one
line saying why where the photos are absent). With ``--photos``, the real photos only.
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
    args = sys.argv[1:]
    status = main(["bench", *args])
    if status == 0 and "--photos" not in args:
        print()
        status = main(["bench", "--photos", *args])  # the scene options are not used there
    raise SystemExit(status)
