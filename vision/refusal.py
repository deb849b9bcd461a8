"""Why a card that was found was not named: one reason from a fixed list.

Every identifier (the standard deck's index reader, a taught deck's gallery)
returns a :class:`Refusal` with an unknown card, so the live view can show it
beside the orange "?" and the benchmark can count refusals by reason.

>>> Refusal.RANK_UNCLEAR.value
'rank unclear'
>>> Refusal("glare") is Refusal.GLARE
True
"""

from __future__ import annotations

from enum import StrEnum


class Refusal(StrEnum):
    """The reason a found card stays unknown (a wrong card is worse than none)."""

    TOO_SMALL = "too small"
    """The card is too few pixels across for its index or face to be read."""
    INDEX_NOT_FOUND = "index not found"
    """No rank-and-suit index in any corner (a covered or cut-off corner, or no card)."""
    RANK_UNCLEAR = "rank unclear"
    """An index was found, but its rank is not clearly one rank."""
    SUIT_UNCLEAR = "suit unclear"
    """An index was found, but its suit is not clearly one suit (or its colour is unclear)."""
    CORNERS_DISAGREE = "corners disagree"
    """Two corners were read and name different cards."""
    PIPS_DISAGREE = "pips disagree"
    """The centre of the card contradicts its index (pip count or suit shape)."""
    GLARE = "glare"
    """Light washed out what tells this card from another."""
    CARD_BACK = "card back"
    """The card shows its back (a pattern), not its face: a card lying face down."""
    NO_MATCH = "no match"
    """A taught deck: the card looks like no card that was taught."""
    AMBIGUOUS = "close to another card"
    """A taught deck: two taught cards match nearly as well; neither is named."""
