"""A taught card with a shadow across it: the shadow fitted against a reference, the card
relit and read, its keypoints bearing the name out (vision.taught_shade,
vision.enrolled.Gallery._in_shadow)."""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np

from vision.decks import deck_ids
from vision.detect import CARD_H, CARD_W
from vision.enrolled import Gallery
from vision.photo_changes import shadow_across
from vision.render import render_card
from vision.taught_shade import fitted_shadow, relit


@cache
def _faces(deck: str) -> dict[str, np.ndarray]:
    return {c: np.asarray(cv2.resize(render_card(deck, c), (CARD_W, CARD_H),
                                     interpolation=cv2.INTER_AREA), np.uint8)
            for c in deck_ids(deck)}


def _shaded(face: np.ndarray, light: float, angle: float) -> np.ndarray:
    return np.clip(shadow_across(face, light, angle, 0.08), 0, 255).astype(np.uint8)


def test_a_shadow_is_fitted_as_the_step_of_light_across_the_card() -> None:
    face = _faces("star-catcher")["D7"]
    shadow = fitted_shadow(_shaded(face, 0.3, 75.0), face)
    assert shadow is not None
    assert abs(abs(shadow.step) - np.log(1 / 0.3)) < 0.3  # the light down to 0.3
    lifted = relit(_shaded(face, 0.3, 75.0), shadow).astype(np.float32)
    # relit, the card is its face again (but for the soft edge's last few levels)
    assert float(np.median(np.abs(lifted - face))) < 12
    # light alike all over is no shadow; nor is another card
    assert fitted_shadow(np.asarray(face * 0.6, np.uint8), face) is None
    assert fitted_shadow(_faces("cant-catch-harry")["fox"], face) is None


def test_taught_cards_with_a_shadow_across_them_are_read_and_never_wrong() -> None:
    # Star Catcher's near twins (a star apart) under an arm's shadow, light 0.3 or 0.45:
    # the whole-card comparison read 5 of 72 (its light's gain cancels, not a step)
    gallery = Gallery.from_faces("star-catcher", _faces("star-catcher"))
    named = [(card, gallery.identify(_shaded(face, light, angle)).card)
             for light in (0.3, 0.45) for angle in (30.0, 75.0, 120.0)
             for card, face in list(_faces("star-catcher").items())[:12]]
    assert all(seen in (None, card) for card, seen in named)
    assert sum(seen == card for card, seen in named) >= 48
    # a card of another deck in a shadow stays unknown
    for card in list(_faces("cant-catch-harry"))[:6]:
        harry = _shaded(_faces("cant-catch-harry")[card], 0.3, 75.0)
        assert gallery.identify(harry).card is None
