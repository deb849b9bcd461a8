"""Scoring the standard deck on real photos: each labelled card counted once, wrong cards
never excused, unknown cards by reason. The logic runs everywhere (synthetic labels and a
rendered image); the shared photos, where present, check the whole run."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.bench import NO_REASON
from vision.photobench import (
    ALL,
    PhotoTally,
    report_photos,
    run_photos,
    score_photo,
)
from vision.photos import FOLDERS, LabelledCard, load_photos, missing_reason
from vision.pipeline import Detection
from vision.refusal import Refusal
from vision.render import CONDITIONS, render_scene, with_deck


def _at(x: float, y: float, card: str | None, reason: Refusal | None = None) -> Detection:
    """A 60 x 84 quad centred on (x, y)."""
    quad = np.array([[x - 30, y - 42], [x + 30, y - 42], [x + 30, y + 42], [x - 30, y + 42]],
                    np.float32)
    return Detection(card, quad, 0.9 if card else 0.0, reason)


LABELS = (LabelledCard("QS", (0, 0, 100, 140)), LabelledCard("7H", (200, 0, 300, 140)),
          LabelledCard("2C", (400, 0, 500, 140)), LabelledCard("AD", (600, 0, 700, 140)),
          LabelledCard("10D", (800, 0, 900, 140)))


def test_each_labelled_card_has_one_outcome() -> None:
    s = score_photo(LABELS, [
        _at(50, 70, "QS"),  # right
        _at(250, 70, "7D"),  # wrong suit
        _at(450, 70, None, Refusal.GLARE),  # unknown, with its reason
        _at(850, 70, None),  # unknown, the reader gave no reason
        _at(50, 400, "KS"),  # named, on no labelled card
        _at(650, 400, None),  # unnamed, on no labelled card
    ])  # AD: nothing on it
    assert (s.right, s.wrong, s.not_found, s.off_box, s.extra) == (1, 1, 1, 1, 1)
    assert s.unknown == {"glare": 1, NO_REASON: 1}


def test_found_means_the_quads_centre_is_in_the_box() -> None:
    # a quad overlapping the box a lot, with its centre just outside: not found
    s = score_photo(LABELS[:1], [_at(50, 141, "QS")])
    assert (s.right, s.not_found, s.off_box) == (0, 1, 1)
    assert score_photo(LABELS[:1], [_at(50, 139, "QS")]).right == 1


def test_a_right_quad_does_not_excuse_a_wrong_one_on_the_same_card() -> None:
    s = score_photo(LABELS[:1], [_at(50, 70, "QS"), _at(52, 72, "QH")])
    assert (s.right, s.wrong) == (0, 1)
    twice = score_photo(LABELS[:1], [_at(50, 70, "QS"), _at(52, 72, None, Refusal.RANK_UNCLEAR)])
    assert (twice.right, sum(twice.unknown.values())) == (1, 0)


def test_overlapping_boxes_go_to_the_card_named_else_the_nearest() -> None:
    fanned = (LabelledCard("3S", (0, 0, 100, 140)), LabelledCard("4S", (30, 0, 130, 140)))
    # centre (60, 70) is in both boxes and nearer 3S's centre; it names 4S: right
    s = score_photo(fanned, [_at(60, 70, "4S")])
    assert (s.right, s.wrong, s.not_found) == (1, 0, 1)
    # unnamed: it goes to the nearer box (3S), 4S is not found
    s = score_photo(fanned, [_at(45, 70, None, Refusal.RANK_UNCLEAR)])
    assert s.unknown == {"rank unclear": 1} and s.not_found == 1
    # named as neither: wrong on the nearer card, not "off-box"
    s = score_photo(fanned, [_at(45, 70, "9H")])
    assert (s.wrong, s.off_box) == (1, 0)


class _Fixed:
    """A recognizer that returns the same detections for every image, and counts calls."""

    def __init__(self, detections: list[Detection]) -> None:
        self.detections = detections
        self.calls = 0

    def detect(self, image: NDArray[np.uint8]) -> list[Detection]:
        self.calls += 1
        return self.detections


def _labels_folder(tmp_path: Path) -> Path:
    """Two rendered scenes in two folders, labelled from the scenes' true cards; in the
    second, two cards' labels are swapped and a box is drawn where no card is."""
    lines = []
    for k, folder in enumerate(("alkenderesi", "mine/extra")):
        scene = render_scene(with_deck(CONDITIONS["upright"], "standard"), 7 + k)
        (tmp_path / folder).mkdir(parents=True)
        cv2.imwrite(str(tmp_path / folder / "a.png"), scene.image)
        cards = [{"card": t.card, "box": [*map(int, t.quad.min(axis=0)),
                                          *map(int, t.quad.max(axis=0))]}
                 for t in scene.cards]
        if k == 1:
            cards[0]["card"], cards[1]["card"] = cards[1]["card"], cards[0]["card"]
            cards.append({"card": "KH", "box": [0, 0, 5, 5]})
        lines.append(json.dumps({"image": f"{folder}/a.png", "source": "test", "cards": cards}))
    (tmp_path / "labels.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_a_run_tallies_per_folder_and_overall(tmp_path: Path) -> None:
    photos = load_photos(_labels_folder(tmp_path))
    truth = photos[1].cards[2]  # a card whose label was not swapped
    x0, y0, x1, y1 = truth.box
    fixed = _Fixed([_at((x0 + x1) / 2, (y0 + y1) / 2, truth.card)])
    tallies = run_photos(photos, fixed, repeat=2)
    assert list(tallies) == ["alkenderesi", "mine/extra", ALL]
    assert fixed.calls == 1 + 2 * 2  # one warm-up, then each image twice
    mine, everything = tallies["mine/extra"], tallies[ALL]
    assert (mine.images, mine.labelled) == (1, len(photos[1].cards))
    assert everything.labelled == sum(len(p.cards) for p in photos)
    assert everything.sizes == {(1280, 720): 2}
    assert len(everything.cpu_ms) == 2 and min(everything.wall_ms) > 0
    # the same quad in both images: right in the second; in the first it is on
    # another labelled card (wrong) or on none (off-box)
    assert mine.right == 1 and mine.not_found == mine.labelled - 1
    assert tallies["alkenderesi"].wrong + tallies["alkenderesi"].off_box == 1
    assert everything.named == 2
    with pytest.raises(ValueError, match="at least 1"):
        run_photos(photos, fixed, repeat=0)


def test_the_standard_reader_on_a_rendered_photo_never_trusts_a_swapped_label(
        tmp_path: Path) -> None:
    photos = load_photos(_labels_folder(tmp_path))
    t = run_photos(photos[1:])["mine/extra"]
    n = len(photos[1].cards)
    assert t.not_found >= 1  # the box where no card lies
    assert t.right + t.wrong + sum(t.unknown.values()) + t.not_found == n
    assert t.right <= n - 3  # neither swapped card can be right, nor the empty box


def test_the_report_has_a_line_per_folder_reasons_and_sizes() -> None:
    score = score_photo(LABELS[:2], [_at(50, 70, None, Refusal.GLARE)])
    tallies = {"wmcnicho": PhotoTally(), ALL: PhotoTally()}
    for t in tallies.values():
        t.add(2, score, (640, 480), 0.01, 0.005)
    lines = report_photos(tallies).splitlines()
    assert lines[0].split()[:4] == ["photos", "images", "cards", "right"]
    assert lines[1].split()[:6] == ["wmcnicho", "1", "2", "0.0%", "50.0%", "50.0%"]
    assert lines[1].split()[-3:] == ["5.0", "5.0", "10.0"]  # cpu, median cpu, wall
    assert "unknown by reason: glare 1" in lines
    assert "sizes wmcnicho: 640x480 x1" in lines


def test_on_the_shared_photos_every_labelled_card_is_counted_once() -> None:
    reason = missing_reason()
    if reason is not None:
        pytest.skip(reason)
    photos = load_photos()
    sample = [next(p for p in photos if p.folder == f) for f in FOLDERS]
    tallies = run_photos(sample)
    assert list(tallies) == [*FOLDERS, ALL]
    t = tallies[ALL]
    assert t.images == len(FOLDERS) and t.labelled == sum(len(p.cards) for p in sample)
    assert t.right + t.wrong + sum(t.unknown.values()) + t.not_found == t.labelled
