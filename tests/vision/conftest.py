"""Shared fixtures: rendered galleries and scenes (generated at test time, seeded)."""

from __future__ import annotations

import pytest

from vision.decks import deck_ids
from vision.enrolled import Gallery
from vision.render import render_card


@pytest.fixture(scope="session")
def galleries() -> dict[str, Gallery]:
    """Every rendered custom deck enrolled from its clean faces."""
    return {deck: Gallery.from_faces(deck, {c: render_card(deck, c) for c in deck_ids(deck)})
            for deck in ("star-catcher", "star-plus", "cant-catch-harry")}
