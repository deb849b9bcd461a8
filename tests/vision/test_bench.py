"""The benchmark's scoring: it must count wrong cards and phantoms, not flatter us."""

from __future__ import annotations

import numpy as np

from vision.bench import Tally
from vision.pipeline import Detection
from vision.render import Scene, TrueCard


def _quad(x: float, y: float) -> np.ndarray:
    return np.array([[x, y], [x + 100, y], [x + 100, y + 140], [x, y + 140]], np.float64)


def test_tally_counts_right_wrong_unknown_hidden_and_phantom_cards() -> None:
    scene = Scene(np.zeros((720, 1280, 3), np.uint8),
                  (TrueCard("QS", _quad(0, 0), 1.0), TrueCard("7H", _quad(300, 0), 1.0),
                   TrueCard("2C", _quad(600, 0), 0.95), TrueCard("AD", _quad(900, 0), 0.4)),
                  np.eye(3))
    dets = [Detection("QS", _quad(2, 1).astype(np.float32), 0.9),
            Detection("7D", _quad(300, 0).astype(np.float32), 0.9),  # wrong suit
            Detection(None, _quad(600, 3).astype(np.float32), 0.1),  # unknown
            Detection(None, _quad(900, 0).astype(np.float32), 0.1),  # mostly hidden
            Detection("KS", _quad(300, 400).astype(np.float32), 0.9)]  # phantom, named
    t = Tally()
    t.add(scene, dets, 0.02)
    assert (t.findable, t.found, t.right) == (3, 3, 1)
    assert (t.labelled, t.wrong, t.phantoms) == (3, 2, 1)
    row = t.row()
    assert row["recall"] == 1.0
    assert abs(row["accuracy"] - 1 / 3) < 1e-9
    assert abs(row["wrong"] - 2 / 3) < 1e-9
    assert abs(row["ms"] - 20.0) < 1e-9
