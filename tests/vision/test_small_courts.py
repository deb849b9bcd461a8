"""The second opinion on a small card's court letter (vision.small_courts)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import vision.small_courts as small_courts
from vision.bench import PUBLISHED, _owner, conditions_for, recognizer_for
from vision.designs import BENCH_DESIGNS, TRAINING_DESIGNS, published_designs
from vision.glyphs import ModelError
from vision.readings import CornerReading
from vision.render import render_scene
from vision.small_courts import (
    COURT_LETTERS,
    SmallCourtModel,
    courts_seconded,
    shipped_small_courts,
)
from vision.thresholds import Thresholds

INSTALLED = {d.name for d in published_designs()}
ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_model_loads_and_a_broken_one_says_how_to_rebuild(tmp_path: Path) -> None:
    assert shipped_small_courts().weights.shape[1] == len(COURT_LETTERS)
    broken = tmp_path / "small_courts.npz"
    broken.write_bytes(b"not a model")
    with pytest.raises(ModelError, match="train_small_courts"):
        SmallCourtModel.load(broken)


def test_a_court_the_classifier_names_another_is_made_unclear(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a glyph only scored, never read: a model that calls every glyph a K
    king = SmallCourtModel(np.zeros((shipped_small_courts().weights.shape[0], 3), np.float32))
    king.weights[-1, COURT_LETTERS.index("K")] = 1.0
    readings = [CornerReading("J", "S", 0.98, 1.0, True, 0),
                CornerReading("K", "S", 0.97, 1.0, True, 1),
                CornerReading("7", "S", 0.99, 1.0, True, 1)]
    glyph = np.zeros((24, 16), np.float32)
    glyph[4:20, 6:10] = 1.0
    th = Thresholds()
    monkeypatch.setattr(small_courts, "shipped_small_courts", lambda: king)
    seconded = courts_seconded([glyph] * 3, readings, th)
    # the jack a K's blot was read as is unclear; the king and the seven stand
    assert [r.rank_p for r in seconded] == [th.leaning, 0.97, 0.99]


@pytest.mark.skipif(not set(BENCH_DESIGNS) <= INSTALLED,
                    reason="the held-out published designs are not installed "
                           "(sh scripts/ensure-card-designs.sh)")
@pytest.mark.parametrize(("seed", "card"), [(61164, "KD"), (62069, "QD"), (62150, "KD")])
def test_a_small_court_is_not_named_the_court_its_letter_blots_into(seed: int,
                                                                     card: str) -> None:
    # held-out designs' small courts the index classifier read as jacks (JD, named)
    scene = render_scene(conditions_for(PUBLISHED, "small"), seed)
    named = [d.card for d in recognizer_for(PUBLISHED).detect(scene.image)
             if (owner := _owner(d, scene.cards)) is not None
             and scene.cards[owner[0]].card == card]
    assert named and named[0] in (None, card)


@pytest.mark.skipif(not set(BENCH_DESIGNS) <= INSTALLED,
                    reason="the held-out published designs are not installed "
                           "(sh scripts/ensure-card-designs.sh)")
@pytest.mark.parametrize(("seed", "card"), [(61004, "KC"), (62056, "KC"), (64080, "QD")])
def test_a_small_court_one_corner_reads_is_named_where_the_face_denies_the_other(
        seed: int, card: str) -> None:
    # one corner read the court surely, the other a number card whose pips the face does
    # not show beside its picture ("corners disagree" before)
    scene = render_scene(conditions_for(PUBLISHED, "small"), seed)
    named = [d.card for d in recognizer_for(PUBLISHED).detect(scene.image)
             if (owner := _owner(d, scene.cards)) is not None
             and scene.cards[owner[0]].card == card]
    assert named == [card]


@pytest.mark.skipif(not any(d in INSTALLED for d in TRAINING_DESIGNS),
                    reason="no training design is installed (sh scripts/ensure-card-designs.sh)")
def test_the_training_script_learns_letters_from_a_few_scenes() -> None:
    spec = importlib.util.spec_from_file_location(
        "train_small_courts", ROOT / "scripts" / "train_small_courts.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    sys.modules["train_small_courts"] = script
    spec.loader.exec_module(script)
    glyphs, letters = script.court_glyphs(3, 70000)
    assert glyphs and set(letters) <= set(COURT_LETTERS)
    model = script.train(glyphs, letters)
    # the letters it was shown, it names (a linear model of 771 features, a few dozen glyphs)
    assert model.letters(glyphs) == letters
