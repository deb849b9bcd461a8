"""The distinct card faces of every deck, named as in the table log.

>>> len(STANDARD), STANDARD[0], STANDARD[-1]
(52, 'AS', 'KC')
>>> DECKS["star-plus"][:3], DECKS["star-plus"][-1]
(('1', '2', '3'), 'Z')
>>> "D7*" in DECKS["star-catcher"], "M" in DECKS["star-catcher"]
(True, True)
>>> deck_ids("chess")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
vision.decks.UnknownDeck: unknown deck 'chess'; expected one of standard, star-catcher, ...
"""

from __future__ import annotations

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
RED_SUITS = frozenset({"H", "D"})
BLACK_SUITS = frozenset({"S", "C"})
FOUR_COLOUR_SUITS = frozenset({"D", "C", "S"})
"""The suits a four-colour deck may print in a colour of their own (blue, orange or yellow
diamonds; green clubs, or green spades in a skat deck): their ink need be neither red nor
black. Hearts are red in every deck."""

STANDARD: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)

# Star Catcher, as the engine simulates it: 36 Diamonds (1-9, four each: two plain,
# one with a star, one with two), 12 Circles (1-12, n // 4 stars), 4 Magnets. The
# distinct faces are what a camera must tell apart.
STAR_CATCHER: tuple[str, ...] = (
    *(f"D{n}{'*' * s}" for n in range(1, 10) for s in (0, 1, 2)),
    *(f"C{n}{'*' * (n // 4)}" for n in range(1, 13)),
    "M",
)

STAR_PLUS: tuple[str, ...] = (*(str(n) for n in range(1, 10)), "-1", "-2", "-3", "Z")

ZODIAC: dict[str, str] = {
    "1": "Aquarius", "2": "Pisces", "3": "Aries", "4": "Taurus", "5": "Gemini",
    "6": "Cancer", "7": "Leo", "8": "Virgo", "9": "Libra", "-1": "Scorpio",
    "-2": "Sagittarius", "-3": "Capricorn", "Z": "Zeus",
}

HARRY: tuple[str, ...] = (
    "baby-james", "james", "fox", "evil-bird", "furry", "harry", "twin", "hunters",
    "mom", "mr-poe", "sandwich-artist", "devil", "teacher", "lamp", "everyone",
)

DECKS: dict[str, tuple[str, ...]] = {
    "standard": STANDARD,
    "star-catcher": STAR_CATCHER,
    "star-plus": STAR_PLUS,
    "cant-catch-harry": HARRY,
}


class UnknownDeck(ValueError):
    """A deck name that is neither ``standard`` nor a built-in rendered deck."""


def deck_ids(deck: str) -> tuple[str, ...]:
    """The distinct card ids of a built-in deck."""
    try:
        return DECKS[deck]
    except KeyError:
        raise UnknownDeck(
            f"unknown deck {deck!r}; expected one of {', '.join(DECKS)}"
        ) from None


# What a player reads for a card: the names the dashboard prints (companion/web/cards.js
# ``CARDS.label``; tests/vision/test_display_names.py keeps the two in step).
HARRY_NAMES: dict[str, str] = {
    "baby-james": "Baby James", "james": "James", "fox": "Fox", "evil-bird": "Evil Bird",
    "furry": "Furry", "harry": "Harry", "twin": "Twin", "hunters": "Hunters", "mom": "Mom",
    "mr-poe": "Mr. Poe", "sandwich-artist": "Sandwich Artist", "devil": "Devil",
    "teacher": "Teacher", "lamp": "Lamp", "everyone": "Everyone",
}
RANK_NAMES: dict[str, str] = {"A": "Ace", "J": "Jack", "Q": "Queen", "K": "King"}
SUIT_NAMES: dict[str, str] = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def deck_of(card: str) -> str | None:
    """The built-in deck a card id belongs to (the decks' ids do not overlap), or ``None``.

    >>> deck_of("9D"), deck_of("C9**"), deck_of("Z"), deck_of("baby-james"), deck_of("?")
    ('standard', 'star-catcher', 'star-plus', 'cant-catch-harry', None)
    """
    return next((deck for deck, ids in DECKS.items() if card in ids), None)


def display_name(card: str, deck: str | None = None) -> str:
    """A card as a player reads it, as the dashboard names it (``deck``: found from the id
    when not given). An id no deck knows is returned as it is.

    >>> display_name("9D"), display_name("AS"), display_name("C9**"), display_name("D7*")
    ('9 of diamonds', 'Ace of spades', 'Circle 9, 2 stars', 'Diamond 7, 1 star')
    >>> display_name("M"), display_name("Z"), display_name("-2"), display_name("mr-poe")
    ('Magnet', 'Zeus', '-2', 'Mr. Poe')
    """
    deck = deck or deck_of(card)
    if deck == "standard" and card in STANDARD:
        rank, suit = card[:-1], card[-1]
        return f"{RANK_NAMES.get(rank, rank)} of {SUIT_NAMES[suit]}"
    if deck == "star-catcher" and card in STAR_CATCHER:
        if card == "M":
            return "Magnet"
        stars = card.count("*")
        more = f", {stars} star{'s' if stars > 1 else ''}" if stars else ""
        return f"{'Diamond' if card[0] == 'D' else 'Circle'} {card[1:].rstrip('*')}{more}"
    if deck == "star-plus" and card == "Z":
        return "Zeus"
    if deck == "cant-catch-harry":
        return HARRY_NAMES.get(card, card)
    return card


def is_red(card: str) -> bool:
    """Whether a standard card id is a red suit.

    >>> is_red("10H"), is_red("QS")
    (True, False)
    """
    return card[-1] in RED_SUITS
