"""Guided enrollment: show each distinct card to the camera once.

:class:`Enroller` is the step-by-step core (the terminal loop below and the
phone both drive it): it asks for one card at a time, waits until exactly
one card lies still in view for a few frames, dewarps it, and refuses a
card that looks like one already shown (the wrong card, or the same one
twice).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from vision.detect import dewarp, find_cards, portrait, quad_iou
from vision.enrolled import EnrollmentError, Gallery, valid_deck_name
from vision.sources import FrameSource

Image = NDArray[np.uint8]


@dataclass
class Enroller:
    """Collects one dewarped image per card id, in order."""

    deck: str
    cards: tuple[str, ...]
    stable_frames: int = 3
    faces: dict[str, Image] = field(default_factory=dict)
    _quad: NDArray[np.float32] | None = None
    _streak: int = 0

    def __post_init__(self) -> None:
        valid_deck_name(self.deck)
        if len(set(self.cards)) != len(self.cards) or len(self.cards) < 2:
            raise EnrollmentError("enrollment needs at least 2 distinct card ids")

    @property
    def next_card(self) -> str | None:
        """The card to show now, or ``None`` when every card is in."""
        return next((c for c in self.cards if c not in self.faces), None)

    def offer(self, frame: Image) -> str:
        """Look at one frame; say what is needed (``captured X`` once the card is in)."""
        card = self.next_card
        if card is None:
            return "done"
        quads = find_cards(frame)
        if len(quads) != 1:
            self._quad, self._streak = None, 0
            return "show one card" if not quads else "only one card at a time, please"
        quad = portrait(quads[0])
        if self._quad is not None and quad_iou(quad, self._quad) > 0.9:
            self._streak += 1
        else:
            self._quad, self._streak = quad, 1
        if self._streak < self.stable_frames:
            return "hold still"
        face = dewarp(frame, quad)
        if self.faces:
            known = Gallery.from_faces(self.deck, dict(self.faces))
            match = known.identify(face)
            if match.card is not None:
                self._streak = 0
                return f"that looks like {match.card}, shown already; show {card}"
        self.faces[card] = face
        self._quad, self._streak = None, 0
        return f"captured {card}"

    def gallery(self) -> Gallery:
        missing = [c for c in self.cards if c not in self.faces]
        if missing:
            raise EnrollmentError(f"cards not shown yet: {', '.join(missing)}")
        return Gallery.from_faces(self.deck, dict(self.faces))


def guided(enroller: Enroller, camera: FrameSource, ask: Callable[[str], str],
           say: Callable[[str], None], frames_per_card: int = 300) -> Gallery:
    """The terminal loop: prompt for each card, watch the camera, report progress."""
    while (card := enroller.next_card) is not None:
        ask(f"Put {card} alone, flat, in view of the camera, then press Enter ")
        last = ""
        for _ in range(frames_per_card):
            frame = camera.read()
            if frame is None:
                continue
            status = enroller.offer(frame)
            if status != last:
                say(f"  {status}")
                last = status
            if status.startswith("captured"):
                break
        else:
            raise EnrollmentError(f"no steady view of {card}; check the camera and the light, "
                                  "then start again")
    return enroller.gallery()
