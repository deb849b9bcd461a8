"""What a rendered table scene shows and which nuisances it applies, by name."""

from __future__ import annotations

from dataclasses import dataclass, replace

from vision.card_faces import TEST_DESIGNS


@dataclass(frozen=True)
class Conditions:
    """What a rendered table scene shows and which nuisances it applies."""

    deck: str = "standard"
    n_cards: int = 5
    designs: tuple[int, ...] = TEST_DESIGNS
    rotation: float = 360.0  # cards are rotated by up to +- rotation / 2 degrees (360: free)
    tilt: float = 0.0  # camera tilt up to this many degrees
    table: str = "any"  # dark, wood, light, any, or "surface:" a real one (vision.real_tables)
    card_width: tuple[float, float] = (95.0, 135.0)
    gradient: bool = False
    glare: bool = False
    blur: bool = False
    noise: bool = False
    jpeg: bool = False
    hand: bool = False
    overlap: bool = False
    print_variation: bool = True
    markers: bool = False  # the four ArUco calibration markers at the table's corners
    size: tuple[int, int] = (1280, 720)
    # published deck designs (vision.designs names): when set, a standard card's face is
    # drawn from one of them (chosen per card) instead of our own ``designs``
    published: tuple[str, ...] = ()
    # when set, the scenes draw only these cards of the deck (a deck taught in part)
    cards: tuple[str, ...] = ()


CONDITIONS: dict[str, Conditions] = {
    "upright": Conditions(rotation=10.0, table="dark"),
    "rotation": Conditions(),
    "tilt35": Conditions(tilt=35.0),
    "lighting": Conditions(tilt=35.0, gradient=True, blur=True, noise=True, jpeg=True),
    "light-table": Conditions(table="light", tilt=20.0, gradient=True),
    "glare": Conditions(glare=True, gradient=True, tilt=20.0),
    "hand": Conditions(hand=True, tilt=20.0),
    "overlap": Conditions(overlap=True, n_cards=6),
    "small": Conditions(card_width=(48.0, 62.0), n_cards=8, tilt=20.0),
    "empty": Conditions(n_cards=0, gradient=True, hand=True, tilt=20.0),
}
"""The benchmark's named conditions (the deck is filled in per run)."""


def with_deck(cond: Conditions, deck: str) -> Conditions:
    """``cond`` for another deck (standard keeps the held-out designs, others design 0)."""
    designs = cond.designs if deck == "standard" else (0,)
    return replace(cond, deck=deck, designs=designs)
