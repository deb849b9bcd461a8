"""One frame in, identified cards out: detection plus the deck's identifier."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect import (
    CARD_H,
    CARD_W,
    DetectorSettings,
    cards_round_panel,
    dewarp,
    find_cards_with_alternates,
    portrait,
)
from vision.enrolled import Gallery, default_store
from vision.refusal import Refusal
from vision.standard import identify_standard

Image = NDArray[np.uint8]

BORDER_GUESSES = (0.06, 0.10)
"""Widths (in card widths) of a printed white border that blur or a light table can hide:
a card found by its coloured panel alone is tried again this much larger."""


def grown(quad: NDArray[np.float32], border: float) -> NDArray[np.float32]:
    """``quad`` grown outwards by ``border`` card widths on every side, in the card's own
    perspective.

    >>> square = np.array([[0, 0], [100, 0], [100, 140], [0, 140]], np.float32)
    >>> grown(square, 0.1).round(1).tolist()
    [[-10.0, -10.0], [110.0, -10.0], [110.0, 150.0], [-10.0, 150.0]]
    """
    rect = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float32)
    to_image = cv2.getPerspectiveTransform(rect, np.asarray(quad, np.float32))
    b = border * CARD_W
    out = np.array([[-b, -b], [CARD_W + b, -b], [CARD_W + b, CARD_H + b], [-b, CARD_H + b]],
                   np.float32)
    return np.asarray(cv2.perspectiveTransform(out[None], to_image)[0], np.float32)


@dataclass(frozen=True, eq=False)  # compared by identity: it holds an array
class Detection:
    """A card found in an image; ``card`` is ``None`` when not identified with confidence."""

    card: str | None
    quad: NDArray[np.float32]  # 4 x 2 image pixels, starting at a short (top or bottom) side
    score: float
    reason: Refusal | None = None
    """Why ``card`` is ``None`` (``None`` when it was named)."""

    def to_json(self) -> dict[str, object]:
        return {"card": self.card,
                "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in self.quad],
                "score": round(self.score, 3)}


class Recognizer:
    """Finds and identifies the cards of one deck (``standard`` or an enrolled gallery)."""

    def __init__(self, deck: str | Gallery, store: Path | None = None,
                 settings: DetectorSettings | None = None) -> None:
        if isinstance(deck, Gallery):
            self.gallery: Gallery | None = deck
        elif deck == "standard":
            self.gallery = None
        else:
            self.gallery = Gallery.load(store or default_store(), deck)
        self.deck = "standard" if self.gallery is None else self.gallery.deck
        self.settings = settings or DetectorSettings()

    def identify(self, card: Image) -> tuple[str | None, float]:
        """Identify one canonical card image."""
        if self.gallery is None:
            r = identify_standard(card)
            return r.card, r.score
        m = self.gallery.identify(card)
        return m.card, m.score

    def detect(self, image: Image) -> list[Detection]:
        """Every card quad in ``image`` with its identity (or ``None``)."""
        out = []
        h, w = image.shape[:2]
        for quad, alternates in find_cards_with_alternates(image, self.settings):
            q = portrait(quad)
            card, score = self.identify(dewarp(image, q))
            if card is None and self.gallery is not None:
                # the outline that won may be a halo round the card: try the runners-up
                for alt in alternates:
                    a = portrait(alt.quad())
                    again, again_score = self.identify(dewarp(image, a))
                    if again is not None:
                        q, card, score = a, again, again_score
                        break
            if card is None and self.gallery is not None:
                # a panel printed on a card whose faint sides the frame's edges missed:
                # the largest card outline round it
                around = cards_round_panel(image, q, self.settings)
                if around:
                    a = portrait(around[0])
                    again, again_score = self.identify(dewarp(image, a))
                    if again is not None:
                        q, card, score = a, again, again_score
            if card is None and self.gallery is not None:
                for border in BORDER_GUESSES:
                    bigger = grown(q, border)
                    if bigger.min() < 0 or bigger[:, 0].max() >= w or bigger[:, 1].max() >= h:
                        break
                    again, again_score = self.identify(dewarp(image, bigger))
                    if again is not None:
                        q, card, score = bigger, again, again_score
                        break
            out.append(Detection(card, q, score))
        return out
