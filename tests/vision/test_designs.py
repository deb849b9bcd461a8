"""Published deck designs (vision.designs) and scenes drawn with them (vision.render)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.decks import STANDARD
from vision.designs import (
    BENCH_DESIGNS,
    FRESH_DESIGNS,
    TRAINING_DESIGNS,
    DesignError,
    UnknownCard,
    UnknownDesign,
    design_info,
    published_designs,
    published_face,
    render_design,
)
from vision.render import Conditions, render_scene

INSTALLED = tuple(d.name for d in published_designs())
HOW = "sh scripts/ensure-card-designs.sh installs them"
needs_designs = pytest.mark.skipif(not INSTALLED,
                                   reason=f"no published card designs here ({HOW})")


def test_training_and_bench_are_disjoint_and_known() -> None:
    assert not set(TRAINING_DESIGNS) & set(BENCH_DESIGNS + FRESH_DESIGNS)
    assert not set(BENCH_DESIGNS) & set(FRESH_DESIGNS)
    assert len(BENCH_DESIGNS) >= 5
    assert len(TRAINING_DESIGNS) >= 10
    for name in TRAINING_DESIGNS + BENCH_DESIGNS + FRESH_DESIGNS:
        info = design_info(name)
        assert info.name == name
        assert len(info.court_letters) == 3 and info.ace_letter
        assert info.source and info.licence
    # the bench mixes sources: npm decks and Debian themes
    assert {design_info(n).source.split()[-1] for n in BENCH_DESIGNS} >= {"(npm)", "(Debian)"}


def test_unknown_design_or_card_raises_a_plain_value_error() -> None:
    with pytest.raises(UnknownDesign, match="unknown card design 'bicycle'"):
        published_face("bicycle", "QS")
    with pytest.raises(ValueError, match="unknown card design"):
        design_info("bicycle")
    name = INSTALLED[0] if INSTALLED else TRAINING_DESIGNS[0]
    for bad in ("1S", "QX", "T", "qs", ""):
        with pytest.raises(UnknownCard, match="unknown card"):
            published_face(name, bad)
    assert issubclass(UnknownCard, DesignError) and issubclass(DesignError, ValueError)


def _check_face(face: np.ndarray, height: int) -> None:
    assert face.dtype == np.uint8 and face.ndim == 3 and face.shape[2] == 4
    h, w = face.shape[:2]
    assert h == height
    assert 0.56 <= w / h <= 0.8, f"aspect {w / h:.3f}"  # poker 63 x 88 is 0.716
    alpha = face[:, :, 3]
    # outside the rounded corners: transparent; the middle of every edge and the inside: opaque
    for y, x in ((0, 0), (0, w - 1), (h - 1, 0), (h - 1, w - 1)):
        assert alpha[y, x] == 0
    assert alpha[h // 2, 1] > 200 and alpha[h // 2, w - 2] > 200
    assert alpha[1, w // 2] > 200 and alpha[h - 2, w // 2] > 200
    # opaque card stock everywhere but in the rounded corners (radius under 1/8 of the width)
    r = w // 8
    assert (alpha[r:-r, 3:-3] == 255).all() and (alpha[3:-3, r:-r] == 255).all()
    # cropped to the outline: no empty rows or columns at the sides
    assert alpha[:, 0].max() > 128 and alpha[:, -1].max() > 128
    assert alpha[0].max() > 128 and alpha[-1].max() > 128


SAMPLE = ("AS", "7H", "QH", "10D", "KC", "3S", "JD", "9C")
"""Cards of every suit, courts and numbers, "10" among them."""


@needs_designs
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("design", INSTALLED)
def test_every_installed_design_gives_distinct_faces(design: str) -> None:
    # all 52 faces of the held-out designs (the reader's tests read them all); a sample of
    # the others, which only training renders whole (a fresh machine renders a design's
    # 52 faces in 10-30 s: all 34 would add minutes to the suite)
    held_out = design in BENCH_DESIGNS + FRESH_DESIGNS
    cards = STANDARD if held_out else SAMPLE
    if held_out:
        render_design(design)  # in parallel, cached: later calls read PNGs
    small: dict[str, np.ndarray] = {}
    for card in cards:
        face = published_face(design, card)
        _check_face(face, 700)
        gray = cv2.cvtColor(face[:, :, :3], cv2.COLOR_BGR2GRAY)
        small[card] = cv2.resize(gray, (48, 68), interpolation=cv2.INTER_AREA).astype(np.float32)
        assert gray.std() > 10  # something is printed on it
    drawn = list(small)
    for i, a in enumerate(drawn):
        for b in drawn[i + 1:]:
            assert np.abs(small[a] - small[b]).mean() > 0.3, f"{a} and {b} look the same"
    # hearts print red (in four-colour decks too: their diamonds and clubs change colour)
    for card in ("QH", "7H"):
        face = published_face(design, card).astype(np.int32)
        red = (face[:, :, 2] - np.maximum(face[:, :, 0], face[:, :, 1])) > 80
        assert red.mean() > 0.003, card


@needs_designs
def test_faces_at_other_heights_and_a_fresh_array_each_call() -> None:
    design = INSTALLED[0]
    a = published_face(design, "10H", height=350)
    _check_face(a, 350)
    b = published_face(design, "10H")
    b[:] = 0
    assert published_face(design, "10H").max() == 255  # the cache was not touched


@needs_designs
def test_faces_are_cached_on_disk(tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.designs as designs

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(designs, "_checked", {})
    designs._master.cache_clear()
    try:
        design = INSTALLED[-1]
        face = published_face(design, "KS")
        assert len(list((tmp_path / "table-companion" / "designs" / design).glob("*/KS.png"))) == 1
        designs._master.cache_clear()
        assert np.array_equal(published_face(design, "KS"), face)
    finally:
        designs._master.cache_clear()
        designs._checked.clear()


@needs_designs
def test_two_sources_of_a_design_never_empty_each_others_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # two checkouts (or versions) benchmarking at once: each renders into its own folder,
    # and neither removes the other's while it is in use
    import os
    import time

    import vision.designs as designs

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    root = tmp_path / "table-companion" / "designs" / INSTALLED[0]
    root.mkdir(parents=True)
    (root / "KS.png").write_bytes(b"older layout")
    stale = root / "0123456789ab"
    stale.mkdir()
    month_ago = time.time() - 30 * 86400
    os.utime(stale, (month_ago, month_ago))
    folders = []
    for version in ("one", "two"):
        monkeypatch.setattr(designs, "_PIPELINE", version)
        monkeypatch.setattr(designs, "_checked", {})
        folders.append(designs._design_dir(designs._spec(INSTALLED[0])))
        (folders[-1] / "KS.png").write_bytes(version.encode())
    assert folders[0] != folders[1]
    assert [(f / "KS.png").read_bytes() for f in folders] == [b"one", b"two"]
    assert not (root / "KS.png").exists() and not stale.exists()


@pytest.mark.skipif(not set(BENCH_DESIGNS[:1]) <= set(INSTALLED),
                    reason=f"{BENCH_DESIGNS[0]} is not installed ({HOW})")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_scene_with_a_published_design_puts_its_cards_on_their_quads(seed: int) -> None:
    cond = Conditions(published=BENCH_DESIGNS[:1], n_cards=5, table="dark", rotation=40.0,
                      tilt=20.0, print_variation=False)
    scene = render_scene(cond, seed)
    assert scene.image.shape == (720, 1280, 3) and len(scene.cards) == 5
    truth = np.zeros(scene.image.shape[:2], np.uint8)
    for tc in scene.cards:
        assert tc.visible > 0.97
        cv2.fillPoly(truth, [np.round(tc.quad).astype(np.int32)], 255)
    # what is drawn: the pale card stock against the dark felt, holes (court pictures) filled
    gray = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    pale = (gray > 150).astype(np.uint8)
    contours, _ = cv2.findContours(pale, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    drawn = np.zeros_like(truth)
    big = [c for c in contours if cv2.contourArea(c) > 2000]
    cv2.drawContours(drawn, big, -1, 255, cv2.FILLED)
    inter = np.count_nonzero(truth & drawn)
    union = np.count_nonzero(truth | drawn)
    assert inter / union > 0.95
    # each card's outline: inside its quad is card, just outside is table
    for tc in scene.cards:
        c = tc.quad.mean(axis=0)
        inner = np.zeros_like(truth)
        outer = np.zeros_like(truth)
        cv2.fillPoly(inner, [np.round(c + (tc.quad - c) * 0.97).astype(np.int32)], 255)
        cv2.fillPoly(outer, [np.round(c + (tc.quad - c) * 1.06).astype(np.int32)], 255)
        ring = (outer > 0) & (truth == 0)
        assert np.count_nonzero(drawn[inner > 0]) / np.count_nonzero(inner) > 0.97
        assert np.count_nonzero(drawn[ring]) / np.count_nonzero(ring) < 0.05


@pytest.mark.skipif(not set(BENCH_DESIGNS[:2]) <= set(INSTALLED),
                    reason=f"the bench designs are not installed ({HOW})")
def test_scene_faces_come_from_the_published_designs() -> None:
    """Each card is drawn from one of the designs, chosen per card; seeded and reproducible."""
    cond = Conditions(published=BENCH_DESIGNS[:2], n_cards=6, rotation=0.0, table="dark",
                      print_variation=False)
    a = render_scene(cond, 7)
    b = render_scene(cond, 7)
    assert np.array_equal(a.image, b.image)
    ours = render_scene(Conditions(n_cards=6, rotation=0.0, table="dark",
                                   print_variation=False), 7)
    assert [c.card for c in ours.cards] == [c.card for c in a.cards]
    assert not np.array_equal(ours.image, a.image)
