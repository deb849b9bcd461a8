"""Guided enrollment: show each distinct card to the camera once.

:class:`Enroller` is the step-by-step core (the terminal loop below and the
phone both drive it): it asks for one card at a time, waits until exactly
one card lies still in view for a few frames, dewarps it, and refuses a
card that looks like one already shown (the wrong card, or the same one
twice).

A card counts as one already shown only when it is the same picture where
it matters: near-identical faces (``D7`` and ``D7*``, a star apart) are
different cards, so the check aligns the two faces and looks for any patch
that differs (:func:`face_difference`), not for a whole-card likeness.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.decks import ZODIAC, display_name
from vision.detect import dewarp, find_cards, portrait, quad_iou
from vision.enrolled import (
    EnrollmentError,
    Gallery,
    aligned,
    describe,
    fine_view,
    valid_deck_name,
)
from vision.sources import FrameSource

Image = NDArray[np.uint8]
Quad = NDArray[np.float32]

STILL_THERE = 0.95
"""Descriptor score above which the card in a refused card's place is still that card."""
ALIKE = 0.75
"""Whole-card likeness (descriptor score) below which two faces are surely two cards."""

SAME_CARD = 3.5
"""The largest patch difference (:func:`face_difference`) of two views of one card.

Measured on the simulated camera (every card of the three decks, four places and
light levels): the same card differs by up to 2.6 (Zeus, whose fine lines
alias); two cards of Star Plus by at least 8.1, of Can't Catch Harry by 4.9."""
SAME_CARD_IN: dict[str, float] = {"star-catcher": 2.2}
"""Decks with closer faces: Star Catcher's same card differs by up to 1.7, its two
closest cards (``D5**`` and ``D8**``, one digit apart) by 2.7."""


def face_difference(a: Image, b: Image) -> float:
    """How much the most different patch of two dewarped cards differs (either way up).

    0 is the same picture; a small symbol that is on one card only gives a
    large value, however alike the rest is.

    >>> card = np.full((280, 200, 3), 200, np.uint8)
    >>> starred = card.copy(); starred[120:160, 80:120] = 30
    >>> face_difference(card, card) < 0.1, face_difference(card, starred) > SAME_CARD
    (True, True)
    """
    fa = np.asarray(fine_view(a), np.float32)
    fb = np.asarray(fine_view(b), np.float32)
    best = float("inf")
    for ref in (fb, np.ascontiguousarray(fb[::-1, ::-1])):
        diff = np.abs(aligned(fa, ref) - ref).sum(axis=2)
        patch = cv2.GaussianBlur(diff, (0, 0), 2.0)  # a patch, not one noisy pixel
        best = min(best, float(patch.max()))
    return best


def card_name(deck: str, card: str) -> str:
    """What a person calls the card: as the dashboard names it
    (:func:`vision.decks.display_name`), and a Star Plus number with its zodiac sign,
    which the card shows too.

    >>> card_name("star-catcher", "D7*"), card_name("star-catcher", "C12***")
    ('Diamond 7, 1 star', 'Circle 12, 3 stars')
    >>> card_name("star-catcher", "M"), card_name("star-plus", "-2")
    ('Magnet', '-2 (Sagittarius)')
    >>> card_name("cant-catch-harry", "mr-poe"), card_name("mine", "x1")
    ('Mr. Poe', 'x1')
    """
    if deck == "star-plus" and card in ZODIAC:
        return f"{card} ({ZODIAC[card]})"
    return display_name(card, deck)


@dataclass
class Enroller:
    """Collects one dewarped image per card id, in order."""

    deck: str
    cards: tuple[str, ...]
    stable_frames: int = 3
    faces: dict[str, Image] = field(default_factory=dict)
    last_quads: list[Quad] = field(default_factory=list)
    """The cards found in the last frame offered (for the live view)."""
    same_card: float = 0.0
    """The :func:`face_difference` up to which a card is one shown already (0: the deck's
    :data:`SAME_CARD_IN`, else :data:`SAME_CARD`)."""
    _quad: NDArray[np.float32] | None = None
    _streak: int = 0
    _refused: tuple[Quad, NDArray[np.float32], str] | None = None
    """A card refused as shown already, and what was said: said again while it lies there."""

    def __post_init__(self) -> None:
        valid_deck_name(self.deck)
        self.same_card = self.same_card or SAME_CARD_IN.get(self.deck, SAME_CARD)
        if len(set(self.cards)) != len(self.cards) or len(self.cards) < 2:
            raise EnrollmentError("enrollment needs at least 2 distinct card ids")

    @property
    def next_card(self) -> str | None:
        """The card to show now, or ``None`` when every card is in."""
        return next((c for c in self.cards if c not in self.faces), None)

    def undo(self) -> str | None:
        """Forget the card captured last (to show it again); ``None`` if none was."""
        if not self.faces:
            return None
        card = list(self.faces)[-1]
        del self.faces[card]
        self._quad, self._streak, self._refused = None, 0, None
        return card

    def shown_already(self, face: Image) -> str | None:
        """The card already captured that ``face`` is another view of, if any."""
        mine = describe(face)
        turned = describe(np.ascontiguousarray(face[::-1, ::-1]))
        for card, known in self.faces.items():
            theirs = describe(known)  # cheap: skip the alignment for clearly other cards
            if max(float(mine @ theirs), float(turned @ theirs)) < ALIKE:
                continue
            if face_difference(face, known) <= self.same_card:
                return card
        return None

    def offer(self, frame: Image, keep: Callable[[Quad], bool] | None = None) -> str:
        """Look at one frame; say what is needed (``captured X`` once the card is in).

        ``keep``: which found quads count (the play area's, not a calibration marker)."""
        card = self.next_card
        if card is None:
            self.last_quads = []
            return "done"
        quads = [q for q in find_cards(frame) if keep is None or keep(q)]
        self.last_quads = [portrait(q) for q in quads]
        if len(quads) != 1:
            self._quad, self._streak = None, 0
            return "show one card" if not quads else "only one card at a time, please"
        quad = portrait(quads[0])
        if self._refused is not None and quad_iou(quad, self._refused[0]) > 0.9 \
                and float(describe(dewarp(frame, quad)) @ self._refused[1]) > STILL_THERE:
            return self._refused[2]  # still lying there: the same answer, not re-checked
        self._refused = None
        if self._quad is not None and quad_iou(quad, self._quad) > 0.9:
            self._streak += 1
        else:
            self._quad, self._streak = quad, 1
        if self._streak < self.stable_frames:
            return "hold still"
        face = dewarp(frame, quad)
        known = self.shown_already(face)
        if known is not None:
            self._quad, self._streak = None, 0
            said = f"that looks like {known}, shown already; show {card}"
            self._refused = (quad, describe(face), said)
            return said
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
