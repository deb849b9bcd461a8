"""What the standard-deck reader makes of a card (:class:`Reading`) and of each of its
index corners (:class:`CornerReading`): value types, shared by the reader and the
camera's pipeline."""

from __future__ import annotations

from dataclasses import dataclass

from vision.refusal import Refusal


@dataclass(frozen=True)
class Reading:
    """A card named, or refused with the reason why."""

    card: str | None
    score: float
    """How sure: the weaker of the rank and suit probabilities (0 when unknown)."""
    reason: Refusal | None = None
    """Why ``card`` is ``None`` (``None`` when it was named)."""


@dataclass(frozen=True)
class CornerReading:
    """The best reading of one corner."""

    rank: str  # the project's rank: A 2 .. 10 J Q K
    suit: str
    rank_p: float
    suit_p: float
    colour_ok: bool
    corner: int
    extent: tuple[int, int] = (0, 0)
    """How far the index reaches from its corner (pixels right, pixels down)."""
    inset: int = 0
    """How far in from the card's edges its glyphs start (pixels; a glyph at the window's
    blank margin, :data:`vision.index.MARGIN`, may be cut by the card's outline)."""
    suit_rival: bool = False
    """Another cut of the corner reads the same rank in the other black suit nearly as
    well: blurred, a spade and a club look alike (see :func:`vision.standard._identify`)."""
    letter: str = ""
    """The rank as printed, as the classifier read it (a court's J, Q, K, or another
    language's V, B, D, R; ``""`` where not known)."""
    across: bool = False
    """Read from a rank and suit side by side across the card's top
    (:func:`vision.index.candidates_across`): such an index reaches far across."""

    @property
    def card(self) -> str:
        return self.rank + self.suit

    @property
    def p(self) -> float:
        return min(self.rank_p, self.suit_p)
