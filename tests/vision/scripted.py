"""Scripted camera footage: table layouts rendered as frames, with hands moving between them;
and a detector scripted to find given outlines."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pytest

import vision.pipeline as pipeline
from vision.detect import FoundCard
from vision.render import Conditions, Placement, compose_scene

SLOTS = [(330 + 125 * (i % 6), 170 + 190 * (i // 6)) for i in range(18)]


def two_seats(point: tuple[float, float]) -> str:
    """Zones for two players facing each other across the image: left, centre, right."""
    return "seat:Ann" if point[0] < 500 else "seat:Ben" if point[0] > 760 else "centre"


@dataclass
class Table:
    """Cards in fixed slots on the table plane, like cards laid out in the centre."""

    deck: str
    seed: int = 7
    conditions: Conditions | None = None

    def __post_init__(self) -> None:
        self.slots: dict[int, str] = {}
        self.moved: dict[int, tuple[float, float]] = {}  # slots placed off the grid
        self.cond = self.conditions or Conditions(deck=self.deck, table="dark", tilt=12.0)

    def put(self, card: str) -> None:
        free = next(i for i in range(len(SLOTS)) if i not in self.slots)
        self.slots[free] = card

    def put_at(self, slot: int, card: str, at: tuple[float, float] | None = None) -> None:
        """Put ``card`` in ``slot`` (on top of whatever lies there), or at ``at`` instead."""
        self.slots[slot] = card
        if at is not None:
            self.moved[slot] = at

    def take(self, card: str) -> None:
        slot = next(i for i, c in self.slots.items() if c == card)
        del self.slots[slot]

    def frame(self, hand_at: tuple[float, float] | None = None) -> np.ndarray:
        placements = [Placement(card, *self.moved.get(i, SLOTS[i]), angle=(7 * i) % 23 - 11,
                                width=100)
                      for i, card in sorted(self.slots.items())]
        return compose_scene(placements, self.deck, self.seed, self.cond, hand_at=hand_at).image

    def footage(self, quiet: int = 5) -> Iterator[np.ndarray]:
        """A hand sweeping in (motion) then ``quiet`` identical still frames."""
        for x in (400.0, 700.0):
            yield self.frame(hand_at=(x, 360.0))
        still = self.frame()
        for _ in range(quiet):
            yield still


def detector_finds(monkeypatch: pytest.MonkeyPatch, found: Sequence[FoundCard]) -> None:
    """The recognizer's detector scripted to find exactly ``found`` in any frame (at its
    first look, and at the look at half the size that follows where nothing was named)."""
    monkeypatch.setattr(pipeline, "find_cards_with_alternates",
                        lambda image, *args, **kwargs: list(found))
    monkeypatch.setattr(pipeline, "find_cards_halved", lambda image, *args, **kwargs: list(found))
