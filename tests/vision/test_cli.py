"""``companion vision enroll|detect|bench``: the command-line contract."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cli import main
from vision.decks import deck_ids
from vision.detect import quad_iou
from vision.refusal import Refusal
from vision.render import CONDITIONS, render_card, render_scene, with_deck

ROOT = Path(__file__).parents[2]


def _enroll_folder(folder: Path, deck: str) -> Path:
    folder.mkdir()
    for card in deck_ids(deck):
        cv2.imwrite(str(folder / f"{card}.png"), render_card(deck, card))
    return folder


def test_enroll_then_detect_prints_one_json_object_per_image(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "decks"
    folder = _enroll_folder(tmp_path / "cards", "star-plus")
    assert main(["enroll", "--deck", "my-star-plus", "--from", str(folder),
                 "--store", str(store)]) == 0
    assert "enrolled 13 cards" in capsys.readouterr().out
    scenes = [render_scene(with_deck(CONDITIONS["tilt35"], "star-plus"), s) for s in (1, 2)]
    paths = []
    for i, scene in enumerate(scenes):
        paths.append(tmp_path / f"table{i}.jpg")
        cv2.imwrite(str(paths[-1]), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert main(["detect", "--deck", "my-star-plus", "--store", str(store),
                 *map(str, paths)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    for line, path, scene in zip(lines, paths, scenes, strict=True):
        out = json.loads(line)
        assert set(out) == {"image", "cards"} and out["image"] == str(path)
        for card in out["cards"]:
            assert set(card) == {"card", "quad", "score", "reason"}
            # a reason only for an unknown card, and one from the fixed list
            assert card["reason"] is None or (card["card"] is None
                                              and card["reason"] in set(Refusal))
            assert len(card["quad"]) == 4 and all(len(p) == 2 for p in card["quad"])
            assert 0 <= card["score"] <= 1.01
            truth = max(scene.cards, key=lambda t: quad_iou(np.array(card["quad"]), t.quad))
            assert quad_iou(np.array(card["quad"]), truth.quad) > 0.8
            assert card["card"] in (None, truth.card)
        named = [c["card"] for c in out["cards"] if c["card"]]
        assert len(named) >= len(scene.cards) - 1


def test_detect_standard_needs_no_enrollment(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    scene = render_scene(with_deck(CONDITIONS["upright"], "standard"), 8)
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), scene.image)
    assert main(["detect", "--deck", "standard", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    truth = {t.card for t in scene.cards}
    named = [c["card"] for c in out["cards"] if c["card"] is not None]
    assert set(named) <= truth
    assert len(named) >= 3
    assert len(out["cards"]) == len(scene.cards)


def test_a_card_found_but_not_identified_is_null(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # a Star Catcher card shown to the standard deck reader
    canvas = np.full((720, 1280, 3), (40, 90, 30), np.uint8)
    face = cv2.resize(render_card("star-catcher", "D7*"), (200, 280))
    canvas[200:480, 500:700] = face
    path = tmp_path / "odd.png"
    cv2.imwrite(str(path), canvas)
    assert main(["detect", "--deck", "standard", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["card"] for c in out["cards"]] == [None]


def test_errors_are_one_plain_line_and_status_2(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detect", "--deck", "nothing", "--store", str(tmp_path), "x.png"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "enroll it first" in err
    (tmp_path / "empty").mkdir()
    assert main(["enroll", "--deck", "d", "--from", str(tmp_path / "empty"),
                 "--store", str(tmp_path)]) == 2
    assert "holds 0 card images" in capsys.readouterr().err
    assert main(["enroll", "--deck", "../escape", "--from", str(tmp_path),
                 "--store", str(tmp_path)]) == 2
    assert "deck name" in capsys.readouterr().err
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not a png")
    assert main(["detect", "--deck", "standard", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "not a readable image" in captured.err


def test_enrollment_store_follows_the_environment(tmp_path: Path) -> None:
    folder = _enroll_folder(tmp_path / "cards", "cant-catch-harry")
    env = dict(os.environ, TABLE_COMPANION_DATA=str(tmp_path / "data"))
    done = subprocess.run([sys.executable, "-m", "vision.cli", "enroll", "--deck", "harry",
                           "--from", str(folder)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "data" / "decks" / "harry" / "deck.json").is_file()


def test_bench_prints_a_row_per_deck_and_condition(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--decks", "star-plus,standard", "--conditions", "upright,empty",
                 "--scenes", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["deck", "condition", "cards", "recall"]
    rows = [line.split() for line in lines[1:] if not line.startswith(" ")]  # not reasons
    assert [(r[0], r[1]) for r in rows] == [("star-plus", "upright"), ("star-plus", "empty"),
                                             ("standard", "upright"), ("standard", "empty")]
    assert all(r[6] == "0" for r in rows)  # no wrong identities
    assert all(float(r[-1]) > 0 for r in rows)  # milliseconds per frame measured


def test_bench_photos_says_in_one_line_where_the_photos_are_absent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TABLE_COMPANION_PHOTOS", str(tmp_path / "none"))
    assert main(["bench", "--photos"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "no real photos" in out and str(tmp_path / "none") in out


def test_bench_photos_scores_the_labelled_photos_per_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    scene = render_scene(with_deck(CONDITIONS["upright"], "standard"), 3)
    (tmp_path / "wmcnicho").mkdir()
    cv2.imwrite(str(tmp_path / "wmcnicho" / "a.png"), scene.image)
    cards = [{"card": t.card, "box": [*map(int, t.quad.min(axis=0)), *map(int, t.quad.max(axis=0))]}
             for t in scene.cards]
    (tmp_path / "labels.jsonl").write_text(
        json.dumps({"image": "wmcnicho/a.png", "source": "test", "cards": cards}) + "\n")
    monkeypatch.setenv("TABLE_COMPANION_PHOTOS", str(tmp_path))
    assert main(["bench", "--photos", "--decks", "star-plus"]) == 0  # photos: standard only
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["photos", "images", "cards"]
    assert [line.split()[:3] for line in lines[1:3]] == [["wmcnicho", "1", str(len(cards))],
                                                         ["all", "1", str(len(cards))]]
    assert "sizes wmcnicho: 1280x720 x1" in lines
    assert main(["bench", "--photos", "--repeat", "0"]) == 2


def test_bench_names_the_decks_it_knows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--decks", "tarot", "--scenes", "1"]) == 2
    err = capsys.readouterr().err
    assert "unknown deck 'tarot'" in err and "published" in err
