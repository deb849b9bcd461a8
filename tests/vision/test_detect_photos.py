"""Card detection on real photos (``../shared/photos/``): every labelled card found, its
quad on the card's real edge with the corner index where the reader looks, no phantoms on
plain tables. Skipped where the photos are absent.

Figures when written (``bench/bench_detect_photos.py``): 192 of 196 labelled cards found
(template 52/52, query 24/26, alkenderesi 52/54, wmcnicho 64/64), no loose quad, extra
quads only in the cluttered query scenes (keyboard keys, a calculator, cards on a
monitor). The thresholds below leave a margin of a card or two per source.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache

import cv2
import numpy as np
import pytest

from vision.detect import CARD_H, CARD_W, Quad, dewarp, find_cards, portrait
from vision.photos import Photo, load_photos, missing_reason

pytestmark = pytest.mark.skipif(missing_reason() is not None,
                                reason=missing_reason() or "")

LEAST_RECALL = {"guillex7/template": 0.96, "guillex7/query": 0.84, "alkenderesi": 0.92,
                "wmcnicho": 0.97}
"""Least share of labelled cards found, per source."""

PLAIN_TABLES = ("guillex7/template", "alkenderesi", "wmcnicho")
"""Sources whose photos show cards on a bare table or cloth (no other objects)."""


@cache
def _detected() -> tuple[tuple[Photo, tuple[Quad, ...]], ...]:
    return tuple((p, tuple(find_cards(p.read()))) for p in load_photos())


def _found(photo: Photo, quads: tuple[Quad, ...]) -> list[Quad | None]:
    """For each labelled card, the largest quad whose centre lies in its box."""
    out: list[Quad | None] = []
    for card in photo.cards:
        inside = [q for q in quads if card.contains(*q.mean(axis=0))]
        out.append(max(inside, key=cv2.contourArea) if inside else None)
    return out


def test_labelled_cards_are_found_in_every_source() -> None:
    found: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    for photo, quads in _detected():
        total[photo.folder] += len(photo.cards)
        found[photo.folder] += sum(q is not None for q in _found(photo, quads))
    assert set(total) >= set(LEAST_RECALL)
    for folder, least in LEAST_RECALL.items():
        assert found[folder] >= least * total[folder], (folder, found[folder], total[folder])


def test_found_quads_are_the_cards_outline_not_a_panel_or_fragment() -> None:
    # a quad inside the box can still be a panel printed round the pips or a pip: the
    # card's own outline covers at least half its axis-aligned box, however it is turned
    loose = []
    for photo, quads in _detected():
        for card, q in zip(photo.cards, _found(photo, quads), strict=True):
            x0, y0, x1, y1 = card.box
            if q is not None and cv2.contourArea(q) < 0.4 * (x1 - x0) * (y1 - y0):
                loose.append((photo.name, card.card))
    assert loose == []


def test_plain_tables_show_no_phantom_cards() -> None:
    extra = [(photo.name, q.round().tolist()) for photo, quads in _detected()
             if photo.folder in PLAIN_TABLES for q in quads
             if not any(c.contains(*q.mean(axis=0)) for c in photo.cards)]
    assert extra == []


def _index_ink(card: np.ndarray) -> float:
    """Share of ink (dark or coloured) in the corner index windows of a dewarped card:
    the more inked of the top-left and bottom-right windows (a card is read either way
    up)."""
    grey = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
    sat = cv2.cvtColor(card, cv2.COLOR_BGR2HSV)[..., 1]
    white = float(np.median(grey[60:220, 30:170]))
    ink = (grey < 0.6 * white) | (sat > 90)
    return float(max(ink[6:56, 6:44].mean(), ink[CARD_H - 56:CARD_H - 6,
                                                  CARD_W - 44:CARD_W - 6].mean()))


def _border_light(card: np.ndarray) -> float:
    """The darker tenth of a thin band just inside the card's sides (corners left out:
    they are rounded), against the card's middle: the table where the quad overshoots."""
    grey = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
    white = float(np.median(grey[60:220, 30:170]))
    band = np.concatenate([grey[3:10, 30:170].ravel(), grey[-10:-3, 30:170].ravel(),
                           grey[40:240, 3:10].ravel(), grey[40:240, -10:-3].ravel()])
    return float(np.percentile(band, 10)) / white


@pytest.mark.parametrize("folder", ["guillex7/template", "wmcnicho"])
def test_dewarped_cards_show_their_index_in_the_corner(folder: str) -> None:
    # overhead photos: a quad on the card's real edge, corners where the card's are,
    # dewarps to a card whose border is card (not table) and whose index sits in the
    # corner window the reader looks at
    off = []
    for photo, quads in _detected():
        if photo.folder != folder:
            continue
        image = photo.read()
        for card, q in zip(photo.cards, _found(photo, quads), strict=True):
            if q is None:
                continue
            flat = dewarp(image, portrait(q))
            if _border_light(flat) < 0.8 or _index_ink(flat) < 0.05:
                off.append((photo.name, card.card))
    assert off == []
