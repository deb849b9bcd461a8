"""Rebuild the small-index classifiers, vision/models/small_courts.npz and small_suits.npz,
and the blurred black-suit classifier, vision/models/blurred_suits.npz.

    sh scripts/ensure-card-designs.sh       # published deck designs (Debian, npm)
    python scripts/train_small_courts.py [--scenes N] [--suit-scenes N]
                                         [--blurred-scenes N] [--only courts,suits,blurred]

Table scenes of the benchmark's "small" condition (cards 45-90 px wide in a
1280 x 720 frame, lit unevenly, blurred, noisy) are drawn with the faces of the
published designs in vision.designs.TRAINING_DESIGNS (never BENCH_DESIGNS, which
the benchmark keeps for scoring): those that print J, Q and K for the court
letters, those that print spades and clubs black for the suits. Each such card
the recognizer outlines is read as the reader reads a small card
(vision.standard.read_corners), and the rank (or suit) glyph of each corner's best
reading is kept with the card's true letter (or suit): the classifiers learn the
blots the reader will be shown. A ridge regression on the index classifier's own
features (scaled to unit length) gives one weight vector per class. numpy only:
no extra is needed.

The blurred black-suit classifier learns the same way from cards of ordinary size
(the benchmark's "rotation" condition, 95-135 px wide), each frame blurred 0.6-2.2 px
and, one in two, noisy: the spades and clubs whose index blur has run together
(vision.blurred_suits.black_suit_seen); from the published training designs alone
(taught on our renderer's designs too, it leaned away from three held-out designs'
blurred clubs).

The recognizer that outlines the cards reads with the shipped models, so they must be
in place (git restores them); where one of them is rebuilt, the glyphs it learns from
are cut the same (rebuilt over itself, the blurred-suit model came out the same).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2
import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision.standard as standard
from vision.bench import PUBLISHED, _owner, conditions_for, recognizer_for
from vision.blurred_suits import BLURRED_SUITS_MODEL_PATH
from vision.designs import TRAINING_DESIGNS, design_info, published_designs
from vision.detect import dewarp
from vision.glyphs import Ink, features_of
from vision.index import Candidate
from vision.readings import CornerReading
from vision.render import CONDITIONS, TRAIN_DESIGNS, Conditions, render_scene, with_deck
from vision.small_courts import (
    BLACK_SUIT_NAMES,
    COURT_LETTERS,
    MODEL_PATH,
    SUIT_MODEL_PATH,
    SmallGlyphModel,
    normalised,
)
from vision.thresholds import Thresholds

RIDGE = 0.1
"""The ridge penalty (on unit-length features): 0.1 to 10 did alike on held-out designs."""

Image = NDArray[np.uint8]
Camera = Callable[[Image, int], Image]
"""What a camera does to a rendered frame (the frame, its scene's seed)."""

FRAME_BLUR = (0.6, 2.2)
"""Gaussian blur (image pixels) of the frames the blurred black-suit classifier learns from."""

FRAME_NOISE = (2.0, 6.0)
"""Noise (grey levels, standard deviation) of every other such frame."""


def blurred(image: Image, seed: int) -> Image:
    """``image`` blurred as an out-of-focus camera would (:data:`FRAME_BLUR`), noisy one
    time in two (:data:`FRAME_NOISE`), by ``seed``."""
    rng = random.Random(seed)
    out = cv2.GaussianBlur(image, (0, 0), rng.uniform(*FRAME_BLUR))
    if rng.random() < 0.5:
        noise = np.random.default_rng(seed).normal(0, rng.uniform(*FRAME_NOISE), out.shape)
        out = np.clip(out + noise, 0, 255)
    return np.asarray(out, np.uint8)


def corner_glyphs(designs: tuple[str, ...], wanted: Callable[[str], bool], scenes: int,
                  seed: int, condition: str = "small", camera: Camera | None = None,
                  ours: bool = True) -> list[tuple[Candidate, str]]:
    """The candidate (rank and suit glyphs) of each corner's best reading, as the reader
    reads a small card, with the card's true name, for every ``wanted`` card the
    recognizer outlines in ``scenes`` scenes of the small condition from ``seed`` on,
    drawn with the published ``designs``; and in a third as many drawn with our own
    renderer's training designs (the simulated camera table draws them; the benchmark
    scores its held-out ones), unless not ``ours``. Another ``condition``'s cards are read
    as cards of their size, as many in a scene as in the small condition, each frame first
    changed by ``camera``."""
    cards = CONDITIONS["small"].n_cards
    published = replace(conditions_for(PUBLISHED, condition), published=designs, n_cards=cards)
    own = replace(with_deck(CONDITIONS[condition], "standard"), designs=TRAIN_DESIGNS,
                  n_cards=cards)
    return (_glyphs_in(published, wanted, scenes, seed, camera)
            + (_glyphs_in(own, wanted, scenes // 3, seed + 50_000, camera) if ours else []))


def _glyphs_in(conditions: Conditions, wanted: Callable[[str], bool], scenes: int,
               seed: int, camera: Camera | None = None) -> list[tuple[Candidate, str]]:
    recognizer = recognizer_for(PUBLISHED)
    seen: list[tuple[Candidate, CornerReading]] = []
    unseconded = standard._readings

    def read(cands: list[Candidate], th: Thresholds, small: bool = False,
             ) -> list[CornerReading]:
        out = unseconded(cands, th)  # (the index classifier's own readings)
        seen.extend(zip(cands, out, strict=True))
        return out

    found: list[tuple[Candidate, str]] = []
    standard._readings = read
    try:
        for n in range(seed, seed + scenes):
            scene = render_scene(conditions, n)
            image = camera(scene.image, n) if camera is not None else scene.image
            for outline in recognizer.detect(image):
                owner = _owner(outline, scene.cards)
                if owner is None:
                    continue
                card = scene.cards[owner[0]]
                if card.visible < 0.85 or not wanted(card.card):
                    continue
                seen.clear()
                standard.read_corners(dewarp(image, outline.quad),
                                      small=conditions.card_width[1] < Thresholds.small_card_px)
                best: dict[int, tuple[Candidate, CornerReading]] = {}
                for cand, reading in seen:
                    if reading.colour_ok and (reading.corner not in best
                                              or reading.p > best[reading.corner][1].p):
                        best[reading.corner] = (cand, reading)
                found += [(cand, card.card) for cand, _ in best.values()]
    finally:
        standard._readings = unseconded
    return found


def court_glyphs(scenes: int, seed: int) -> tuple[list[Ink], list[str]]:
    """Small court cards' rank glyphs and their true letters, from the training designs
    that print J, Q and K."""
    designs = tuple(d for d in _installed() if design_info(d).court_letters == "JQK")
    found = corner_glyphs(designs, lambda card: card[:-1] in COURT_LETTERS, scenes, seed)
    return [cand.rank for cand, _ in found], [card[:-1] for _, card in found]


def suit_glyphs(scenes: int, seed: int) -> tuple[list[Ink], list[str]]:
    """Small spades' and clubs' suit glyphs and their true suits, from the training designs
    that print them black (not the four-colour ones)."""
    designs = tuple(d for d in _installed() if "4-color" not in d)
    found = corner_glyphs(designs, lambda card: card[-1] in BLACK_SUIT_NAMES, scenes, seed)
    return [cand.suit for cand, _ in found], [card[-1] for _, card in found]


def blurred_suit_glyphs(scenes: int, seed: int) -> tuple[list[Ink], list[str]]:
    """Spades' and clubs' suit glyphs of cards of ordinary size in blurred frames
    (:func:`blurred`), and their true suits, from the training designs that print them
    black."""
    designs = tuple(d for d in _installed() if "4-color" not in d)
    found = corner_glyphs(designs, lambda card: card[-1] in BLACK_SUIT_NAMES, scenes, seed,
                          "rotation", blurred, ours=False)
    return [cand.suit for cand, _ in found], [card[-1] for _, card in found]


def _installed() -> tuple[str, ...]:
    installed = {d.name for d in published_designs()}
    designs = tuple(d for d in TRAINING_DESIGNS if d in installed)
    if not designs:
        sys.exit("no training design is installed: sh scripts/ensure-card-designs.sh")
    return designs


def train(glyphs: list[Ink], labels: list[str], classes: tuple[str, ...]) -> SmallGlyphModel:
    """Ridge regression of one-hot ``labels`` on the glyphs' normalised features."""
    x = normalised(features_of(glyphs)).astype(np.float64)
    y = np.eye(len(classes))[[classes.index(c) for c in labels]]
    weights = np.linalg.solve(x.T @ x + RIDGE * np.eye(x.shape[1]), x.T @ y)
    return SmallGlyphModel(np.asarray(weights, np.float32), classes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=500, help="scenes of court cards")
    parser.add_argument("--suit-scenes", type=int, default=300, help="scenes of black cards")
    parser.add_argument("--seed", type=int, default=70000)
    parser.add_argument("--suit-seed", type=int, default=71000)
    parser.add_argument("--blurred-scenes", type=int, default=600,
                        help="blurred scenes of black cards of ordinary size")
    parser.add_argument("--blurred-seed", type=int, default=91000)
    parser.add_argument("--only", default="courts,suits,blurred",
                        help="the models to rebuild, of courts, suits and blurred")
    args = parser.parse_args()
    models = (
        ("courts", "court letters", court_glyphs, COURT_LETTERS, args.scenes, args.seed,
         MODEL_PATH),
        ("suits", "black suits", suit_glyphs, BLACK_SUIT_NAMES, args.suit_scenes,
         args.suit_seed, SUIT_MODEL_PATH),
        ("blurred", "blurred black suits", blurred_suit_glyphs, BLACK_SUIT_NAMES,
         args.blurred_scenes, args.blurred_seed, BLURRED_SUITS_MODEL_PATH))
    wanted = args.only.split(",")
    unknown = set(wanted) - {key for key, *_ in models}
    if unknown:
        parser.error(f"unknown model {', '.join(sorted(unknown))}; expected courts, suits "
                     "or blurred")
    for key, what, glyphs_of, classes, scenes, seed, path in models:
        if key not in wanted:
            continue
        start = time.perf_counter()
        glyphs, labels = glyphs_of(scenes, seed)
        model = train(glyphs, labels, classes)
        right = sum(a == b for a, b in zip(model.names(glyphs), labels, strict=True))
        model.save(path)
        print(f"{what}: {len(glyphs)} glyphs {dict(Counter(labels))}; {right} named right "
              f"in training; {path} written in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
