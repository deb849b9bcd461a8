"""One frame in, identified cards out: detection plus the deck's identifier."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from vision.detect import DetectorSettings, dewarp, find_cards, portrait
from vision.enrolled import Gallery, default_store
from vision.standard import identify_standard

Image = NDArray[np.uint8]


@dataclass(frozen=True, eq=False)  # compared by identity: it holds an array
class Detection:
    """A card found in an image; ``card`` is ``None`` when not identified with confidence."""

    card: str | None
    quad: NDArray[np.float32]  # 4 x 2 image pixels, starting at a short (top or bottom) side
    score: float

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
        for quad in find_cards(image, self.settings):
            q = portrait(quad)
            card, score = self.identify(dewarp(image, q))
            out.append(Detection(card, q, score))
        return out
