"""Star Catcher: catch table cards by Match, Sum or Magnet; stars and non-star cards score.

The engine follows the table-log contract (``star-catcher``). Hands are hidden
at a real table, so the engine tracks how many cards each player holds, never
which; a played card is judged against the table and against how many cards of
its shape the round's 52-card deck holds (36 Diamonds, 12 Circles, 4 Magnets).

>>> from companion.games.match import Match
>>> m = Match({"type": "setup", "game": "star-catcher", "players": ["Ann", "Ben"]})
>>> m.turn, m.state.dealer, m.state.table_dealt
('Ann', 'Ben', False)
>>> _ = m.push({"type": "table", "cards": ["D3", "C4*", "D9", "D2"]})
>>> m.state.deck_count, m.state.hand_counts()
(40, {'Ann': 4, 'Ben': 4})
>>> [list(map(str, t)) for t in legal_catches(m.state, Card.parse("D9"))]
[['D9'], ['D2', 'D3', 'C4*']]
>>> _ = m.push({"type": "play", "player": "Ann", "card": "C9*", "take": ["D9"]})
>>> m.describe_last()
"Ann plays C9*, catches D9 (match): pile 2 cards, +1 star; Ben's turn"
>>> check_play(m.state, "Ben", "D7", [])
'D7 must catch when a catch is possible: it can take [D3, C4*]'
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from companion.games.base import Rules, sum_scores
from companion.games.errors import IllegalEvent, MalformedEvent
from companion.games.fields import (
    JSON,
    RawEvent,
    require_list,
    require_player,
    show,
)

# -- cards ----------------------------------------------------------------------------

DIAMOND, CIRCLE, MAGNET = "D", "C", "M"
SHAPES: tuple[str, ...] = (DIAMOND, CIRCLE, MAGNET)
SHAPE_NAMES: Mapping[str, str] = {DIAMOND: "Diamond", CIRCLE: "Circle", MAGNET: "Magnet"}
SHAPE_LIMITS: tuple[int, ...] = (36, 12, 4)
"""How many cards of each shape (in :data:`SHAPES` order) one round's deck holds."""

DECK_SIZE = sum(SHAPE_LIMITS)  # 52
BONUS_CARDS = 12
TABLE_CARDS = 4
HAND_SIZE = 4
NON_STAR_BONUS = 3
MAX_NUMBER = 99

_CARD_RE = re.compile(r"([DC])([1-9][0-9]?)(\**)")
_CARD_FORM = (
    "D<n> (Diamond) or C<n> (Circle) with n from 1 to 99, then one * per star "
    "(e.g. D7, C5*), or M (Magnet)"
)
_SHAPE_INDEX: Mapping[str, int] = {s: i for i, s in enumerate(SHAPES)}


@dataclass(frozen=True, slots=True)
class Card:
    """One Star Catcher card: its shape (``D``, ``C`` or ``M``), number and stars.

    A Magnet has number 0 and no stars. Cards are values: two ``D3`` are equal
    (and interchangeable), though they are two cards on the table.

    >>> Card.parse("C5**")
    Card(shape='C', number=5, stars=2)
    >>> str(Card.parse("M")), Card.parse("D12").has_star
    ('M', False)
    >>> Card.parse("D0")
    Traceback (most recent call last):
    ...
    companion.games.errors.MalformedEvent: unknown card "D0"; a card is D<n> (Diamond) or C<n> ...
    """

    shape: str
    number: int = 0
    stars: int = 0

    @classmethod
    def parse(cls, text: object) -> Card:
        """The card a table-log name stands for, or :class:`MalformedEvent`."""
        if isinstance(text, str):
            card = _PARSED.get(text)
            if card is not None:
                return card
            if text == MAGNET:
                card = cls(MAGNET)
            else:
                found = _CARD_RE.fullmatch(text)
                if found is not None:
                    card = cls(found[1], int(found[2]), len(found[3]))
            if card is not None:
                if len(_PARSED) < 4096:  # bounded: a fuzzer must not grow it forever
                    _PARSED[text] = card
                return card
        raise MalformedEvent(f"unknown card {show(text)}; a card is {_CARD_FORM}")

    def __str__(self) -> str:
        if self.shape == MAGNET:
            return MAGNET
        return f"{self.shape}{self.number}{'*' * self.stars}"

    @property
    def is_magnet(self) -> bool:
        return self.shape == MAGNET

    @property
    def is_diamond(self) -> bool:
        return self.shape == DIAMOND

    @property
    def has_star(self) -> bool:
        return self.stars > 0


_PARSED: dict[str, Card] = {}


def card_key(card: Card) -> tuple[int, int, int]:
    """Display order: by number, Diamonds before Circles, fewer stars first.

    >>> [str(c) for c in sorted(map(Card.parse, ["C3", "D3*", "D3", "D1"]), key=card_key)]
    ['D1', 'D3', 'D3*', 'C3']
    """
    return (card.number, _SHAPE_INDEX[card.shape], card.stars)


def _sorted(cards: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=card_key))


def _names(cards: Iterable[Card], sep: str = ", ") -> str:
    return sep.join(map(str, cards))


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


# -- catching -------------------------------------------------------------------------


def catches(
    table: Sequence[Card], card: Card, limit: int | None = None
) -> list[tuple[Card, ...]]:
    """Every legal ``take`` for ``card`` against ``table``, as distinct multisets.

    Matches come first, then sums (fewer cards first); each option is sorted by
    :func:`card_key`. A Magnet has one option, every Diamond on the table.
    An empty list means nothing can be caught. With ``limit``, at most that many
    options (all the matches, then the first sums found): a long table of small
    cards can have millions of sums (:func:`count_catches` counts them cheaply).

    >>> table = [Card.parse(c) for c in ["D3", "D3", "C4", "D2", "D7*"]]
    >>> [_names(t) for t in catches(table, Card.parse("D7"))]
    ['D7*', 'D3, C4']
    >>> [_names(t) for t in catches(table, Card.parse("D8"))]
    ['D2, D3, D3']
    >>> [_names(t) for t in catches(table, Card.parse("M"))]
    ['D2, D3, D3, D7*']
    >>> catches(table, Card.parse("C1"))
    []
    """
    if card.shape == MAGNET:
        diamonds = _sorted(c for c in table if c.shape == DIAMOND)
        return [diamonds] if diamonds else []
    target = card.number
    counts: dict[Card, int] = {}
    for c in table:
        if c.number <= target:
            counts[c] = counts.get(c, 0) + 1
    # Largest numbers first: the remaining sum shrinks fastest, so pruning bites early.
    groups = sorted(counts.items(), key=lambda kv: card_key(kv[0]), reverse=True)
    mask = (1 << (target + 1)) - 1
    size = len(groups)
    # reach[i]: bit s set when the groups from i on can make the sum s (0 included).
    reach = [0] * (size + 1)
    reach[size] = 1
    for i in range(size - 1, -1, -1):
        c, k = groups[i]
        shifted = acc = reach[i + 1]
        for _ in range(k):
            shifted = (shifted << c.number) & mask
            acc |= shifted
        reach[i] = acc
    matches: list[tuple[Card, ...]] = [(c,) for c, _ in reversed(groups) if c.number == target]
    sums: list[tuple[Card, ...]] = []
    if not (reach[0] >> target) & 1:
        return matches
    room = -1 if limit is None else max(0, limit - len(matches))
    chosen: list[Card] = []  # the sum so far, highest key first

    def walk(i: int, rest: int) -> bool:
        """Collect the sums completing ``chosen`` from group ``i`` on; false at ``limit``."""
        for g in range(i, size):
            # reach only shrinks with g: once these groups cannot make ``rest``, none can.
            if not (reach[g] >> rest) & 1:
                return True
            c, k = groups[g]
            v = c.number
            for j in range(min(k, rest // v), 0, -1):
                left = rest - j * v
                if left == 0:
                    if len(chosen) + j >= 2:  # one card of the number is a match, not a sum
                        sums.append((c,) * j + tuple(reversed(chosen)))
                        if len(sums) == room:
                            return False
                elif (reach[g + 1] >> left) & 1:
                    # Every branch taken reaches a sum: the cost is per option found.
                    chosen.extend((c,) * j)
                    going = walk(g + 1, left)
                    del chosen[-j:]
                    if not going:
                        return False
        return True

    if room:
        walk(0, target)
    keys = {c: card_key(c) for c, _ in groups}
    sums.sort(key=lambda t: (len(t), [keys[c] for c in t]))
    return matches + sums


def count_catches(table: Sequence[Card], card: Card) -> int:
    """How many options :func:`catches` has, counted without listing them.

    >>> count_catches([Card("D", n) for n in range(1, 41)], Card("D", 99))
    328419
    """
    if card.shape == MAGNET:
        return 1 if any(c.shape == DIAMOND for c in table) else 0
    target = card.number
    counts = Counter(c for c in table if c.number <= target)
    # ways[s]: distinct multisets of table cards adding up to s.
    ways = [1] + [0] * target
    for c, k in counts.items():
        v = c.number
        new = list(ways)
        for s in range(v, target + 1):
            # Bounded knapsack: add one more copy, unless all k are already used.
            new[s] += new[s - v] - (ways[s - v * (k + 1)] if s >= v * (k + 1) else 0)
        ways = new
    # A single card of the target number is counted once as a match, as in ``catches``.
    return ways[target]


def can_catch(table: Sequence[Card], card: Card) -> bool:
    """Whether ``card`` would catch anything from ``table`` (cheaper than :func:`catches`).

    >>> table = [Card.parse(c) for c in ["D3", "C4", "C9"]]
    >>> can_catch(table, Card.parse("D7")), can_catch(table, Card.parse("D8"))
    (True, False)
    >>> can_catch(table, Card.parse("M"))
    True
    """
    if card.shape == MAGNET:
        return any(c.shape == DIAMOND for c in table)
    target = card.number
    mask = (1 << (target + 1)) - 1
    one = two = 0  # bit s: some set of >= 1 (>= 2) table cards sums to s
    for c in table:
        v = c.number
        if v == target:
            return True
        if v < target:
            two = (two | (one << v)) & mask
            one = (one | (1 << v) | (one << v)) & mask
    return bool((two >> target) & 1)


def _options_text(table: Sequence[Card], card: Card, limit: int = 6) -> str:
    """``[D7*] or [C3, D4]``; long lists are cut with a count.

    >>> _options_text([Card.parse(c) for c in ["D3", "C4", "D7*"]], Card.parse("D7"))
    '[D7*] or [D3, C4]'
    >>> _options_text([Card("D", n) for n in range(1, 9)], Card("C", 9), limit=2)
    '[D1, D8], [D2, D7] or 5 more'
    """
    # Capped: the message needs a few options, and a long table can have millions.
    options = catches(table, card, limit=200)
    shown = [f"[{_names(t)}]" for t in options[:limit]]
    if len(options) > limit:
        return ", ".join(shown) + f" or {count_catches(table, card) - limit} more"
    if len(shown) == 1:
        return shown[0]
    return ", ".join(shown[:-1]) + " or " + shown[-1]


# -- parameters and state -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Params:
    """The setup: seated players (clockwise) and the dealer of round 1."""

    players: tuple[str, ...]
    dealer: str


@dataclass(frozen=True, slots=True)
class State:
    """Everything the rules need between two events. Immutable; tuples are by seat.

    ``table_dealt`` is false until the round's ``table`` event; until then the
    piles and the table still show the round just scored (as the physical table
    does until the dealer gathers the cards). ``hand_no`` counts the deals of
    this round after the first (0-based); ``played`` the plays of the current
    hand. ``piles`` hold the caught and played cards, ``bonus`` the Bonus cards
    each player has taken this round. ``shown`` counts the Diamonds, Circles
    and Magnets seen this round (table deal and plays). ``scores`` holds one
    tuple of points by seat per completed round.
    """

    params: Params
    round: int
    table_dealt: bool
    hand_no: int
    played: int
    deck_count: int
    hands: tuple[int, ...]
    table: tuple[Card, ...]
    piles: tuple[tuple[Card, ...], ...]
    bonus: tuple[int, ...]
    bonus_left: int
    shown: tuple[int, int, int]
    scores: tuple[tuple[int, ...], ...] = ()
    finished: bool = False
    winners: tuple[str, ...] = ()

    # -- the GameState protocol ---------------------------------------------------

    @property
    def players(self) -> tuple[str, ...]:
        return self.params.players

    @property
    def turn(self) -> str | None:
        """The player to play; before the round's ``table`` event, its start player."""
        if self.finished:
            return None
        return self.params.players[self._turn_seat()]

    @property
    def round_scores(self) -> tuple[Mapping[str, int], ...]:
        players = self.params.players
        return tuple(dict(zip(players, r, strict=True)) for r in self.scores)

    @property
    def totals(self) -> Mapping[str, int]:
        return sum_scores(self.params.players, self.round_scores)

    def zone_counts(self) -> Mapping[str, int]:
        """Deck, Bonus stack, table, hands and piles (Bonus cards included): always 64."""
        zones = {"deck": self.deck_count, "bonus": self.bonus_left, "table": len(self.table)}
        for p, hand, pile, bonus in zip(
            self.params.players, self.hands, self.piles, self.bonus, strict=True
        ):
            zones[f"hand:{p}"] = hand
            zones[f"pile:{p}"] = len(pile) + bonus
        return zones

    # -- seats ----------------------------------------------------------------------

    def _dealer_seat(self) -> int:
        players = self.params.players
        # The dealer moves one seat clockwise each round, tie-break rounds included.
        return (players.index(self.params.dealer) + self.round - 1) % len(players)

    def _turn_seat(self) -> int:
        n = len(self.params.players)
        start = self._dealer_seat() + 1
        if not self.table_dealt:
            return start % n
        # Each new hand starts one seat further clockwise; then play goes round in order.
        return (start + self.hand_no + self.played) % n

    def seat(self, player: str) -> int:
        """``player``'s seat index (0 for the first player of ``setup``)."""
        return self.params.players.index(player)

    # -- queries for the phone, the board and the camera ----------------------------

    @property
    def dealer(self) -> str:
        """The current round's dealer (the setup's ``dealer`` in round 1)."""
        return self.params.players[self._dealer_seat()]

    @property
    def start_player(self) -> str:
        """Who plays first in the current round: the dealer's left."""
        players = self.params.players
        return players[(self._dealer_seat() + 1) % len(players)]

    @property
    def hand_start(self) -> str:
        """Who plays first in the current hand (one seat further clockwise each deal)."""
        players = self.params.players
        return players[(self._dealer_seat() + 1 + self.hand_no) % len(players)]

    @property
    def hand_number(self) -> int:
        """The current hand of the round, from 1."""
        return self.hand_no + 1

    @property
    def hands_per_round(self) -> int:
        """How many times 4 cards are dealt to each player in a round: 6, 4 or 3."""
        return (DECK_SIZE - TABLE_CARDS) // (HAND_SIZE * len(self.params.players))

    def hand_count(self, player: str) -> int:
        """How many cards ``player`` holds (the engine never knows which)."""
        return self.hands[self.seat(player)]

    def hand_counts(self) -> dict[str, int]:
        return dict(zip(self.params.players, self.hands, strict=True))

    def pile(self, player: str) -> tuple[Card, ...]:
        """``player``'s score pile this round, in the order caught (Bonus cards apart)."""
        return self.piles[self.seat(player)]

    def pile_bonus(self, player: str) -> int:
        """How many Bonus cards ``player`` has taken this round."""
        return self.bonus[self.seat(player)]

    def pile_size(self, player: str) -> int:
        """Cards in ``player``'s score pile, Bonus cards included."""
        i = self.seat(player)
        return len(self.piles[i]) + self.bonus[i]

    def pile_stars(self, player: str) -> int:
        """Stars in ``player``'s pile, one per Bonus card included."""
        i = self.seat(player)
        return sum(c.stars for c in self.piles[i]) + self.bonus[i]

    def pile_non_star(self, player: str) -> int:
        """Cards without a star in ``player``'s pile (Magnets count)."""
        return sum(1 for c in self.pile(player) if c.stars == 0)

    def non_star_leaders(self) -> tuple[str, ...]:
        """The players tied for the most non-star cards, who would get +3 (none at 0)."""
        counts = [sum(1 for c in pile if c.stars == 0) for pile in self.piles]
        best = max(counts)
        if best < 1:
            return ()
        return tuple(p for p, k in zip(self.params.players, counts, strict=True) if k == best)

    def live_scores(self) -> dict[str, int]:
        """What the piles on the table score now (the round just scored, between rounds)."""
        return dict(zip(self.params.players, _round_points(self), strict=True))

    def shown_counts(self) -> dict[str, int]:
        """Diamonds, Circles and Magnets seen this round (at most 36, 12 and 4)."""
        return dict(zip(SHAPES, self.shown, strict=True))


def legal_catches(
    state: State, card: Card, limit: int | None = None
) -> list[tuple[Card, ...]]:
    """Every legal ``take`` for ``card`` on the current table (see :func:`catches`).

    >>> s = RULES.new_state({"type": "setup", "game": "star-catcher", "players": ["A", "B"]})
    >>> s = RULES.play(s, {"type": "table", "cards": ["D1", "D5", "C4", "D9"]})[1]
    >>> [_names(t) for t in legal_catches(s, Card.parse("C5"))]
    ['D5', 'D1, C4']
    >>> [_names(t) for t in legal_catches(s, Card.parse("M"))]
    ['D1, D5, D9']
    """
    return catches(state.table, card, limit)


def must_catch(state: State, card: Card) -> bool:
    """Whether playing ``card`` now must catch something (a Magnet: whether it takes any).

    >>> s = RULES.new_state({"type": "setup", "game": "star-catcher", "players": ["A", "B"]})
    >>> s = RULES.play(s, {"type": "table", "cards": ["D1", "D5", "C4", "D9"]})[1]
    >>> must_catch(s, Card.parse("D6")), must_catch(s, Card.parse("D2"))
    (True, False)
    """
    return can_catch(state.table, card)


def check_play(
    state: State, player: str, card: str, take: Sequence[str] | None = None
) -> str | None:
    """Why ``player`` may not play ``card`` taking ``take`` now, or ``None`` when legal.

    For the phone, to explain an entry before it is sent; :meth:`StarCatcherRules.apply`
    refuses an illegal play with the same words.

    >>> s = RULES.new_state({"type": "setup", "game": "star-catcher", "players": ["A", "B"]})
    >>> check_play(s, "A", "D4")
    "round 1's table is not dealt yet: a 'table' event with the 4 face-up cards comes before ..."
    >>> s = RULES.play(s, {"type": "table", "cards": ["D1", "D5", "C4", "D9"]})[1]
    >>> check_play(s, "A", "D6", ["D5"])
    'D5 does not match D6: a match takes one card of the same number (6); D6 can take [D1, D5]'
    >>> check_play(s, "A", "D6", ["D1", "D5"]) is None
    True
    """
    if state.finished:
        return "the match is over; no further plays are accepted"
    if player not in state.params.players:
        return f"{show(player)} is not seated; the players are {', '.join(state.params.players)}"
    try:
        played = Card.parse(card)
        taken = None if take is None else tuple(Card.parse(c) for c in take)
    except MalformedEvent as err:
        return str(err)
    return _play_problem(state, state.seat(player), played, taken)


def _play_problem(
    state: State, seat: int, card: Card, take: tuple[Card, ...] | None
) -> str | None:
    """The rule a play of valid cards breaks, or ``None``."""
    players = state.params.players
    name = players[seat]
    if not state.table_dealt:
        return (
            f"round {state.round}'s table is not dealt yet: a 'table' event with the "
            f"4 face-up cards comes before {players[state._turn_seat()]}'s first play"
        )
    turn = state._turn_seat()
    if seat != turn:
        return f"it is {players[turn]}'s turn, not {name}'s"
    shape = _SHAPE_INDEX[card.shape]
    if state.shown[shape] >= SHAPE_LIMITS[shape]:
        noun = SHAPE_NAMES[card.shape]
        return (
            f"round {state.round} has already shown all {SHAPE_LIMITS[shape]} {noun}s "
            f"(a round's deck holds 36 Diamonds, 12 Circles and 4 Magnets), "
            f"so {name} cannot hold another {noun}"
        )
    table = state.table
    if card.shape == MAGNET:
        if take:
            diamonds = _sorted(c for c in table if c.shape == DIAMOND)
            if _sorted(take) != diamonds:
                if not diamonds:
                    return (
                        "a Magnet takes every Diamond on the table and nothing else, and there "
                        "is none: omit 'take'"
                    )
                return (
                    "a Magnet takes every Diamond on the table and nothing else: "
                    f"take [{_names(diamonds)}] or omit 'take'"
                )
        return None
    if not take:
        if can_catch(table, card):
            return (
                f"{card} must catch when a catch is possible: it can take "
                f"{_options_text(table, card)}"
            )
        return None
    rest = list(table)
    for c in take:
        try:
            rest.remove(c)
        except ValueError:
            held = table.count(c)
            where = (
                f"the table holds only {_plural(held, 'card')} {c}"
                if held
                else f"{c} is not on the table"
            )
            return f"{where} (table: {_names(table) or 'empty'}); {_can_take(table, card)}"
    if len(take) == 1:
        if take[0].number != card.number:
            return (
                f"{take[0]} does not match {card}: a match takes one card of the same "
                f"number ({card.number}); {_can_take(table, card)}"
            )
        return None
    if any(c.number == card.number for c in take):
        return (
            f"one match or one sum per play, never both: [{_names(take)}] mixes a match "
            f"with other cards; {_can_take(table, card)}"
        )
    total = sum(c.number for c in take)
    if total != card.number:
        return (
            f"{' + '.join(str(c.number) for c in take)} = {total}, not {card.number}: a sum "
            f"takes two or more cards adding up to the played card's number; "
            f"{_can_take(table, card)}"
        )
    return None


def _can_take(table: Sequence[Card], card: Card) -> str:
    if not can_catch(table, card):
        return f"{card} can catch nothing here: omit 'take' and it stays on the table"
    return f"{card} can take {_options_text(table, card)}"


def _round_points(state: State) -> tuple[int, ...]:
    """1 per star (Bonus cards included) + 3 to each player tied for most non-star cards."""
    stars = [
        sum(c.stars for c in pile) + b for pile, b in zip(state.piles, state.bonus, strict=True)
    ]
    plain = [sum(1 for c in pile if c.stars == 0) for pile in state.piles]
    best = max(plain)
    return tuple(
        s + (NON_STAR_BONUS if best >= 1 and k == best else 0)
        for s, k in zip(stars, plain, strict=True)
    )


# -- events ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Table:
    """The 4 cards dealt face up at a round's start (never a Magnet)."""

    cards: tuple[Card, ...]

    @property
    def type(self) -> str:
        return "table"

    def to_json(self) -> JSON:
        return {"type": "table", "cards": [str(c) for c in self.cards]}


@dataclass(frozen=True, slots=True)
class Play:
    """``player`` plays ``card`` and catches ``take`` (``None``: the field was omitted)."""

    player: str
    card: Card
    take: tuple[Card, ...] | None = None

    @property
    def type(self) -> str:
        return "play"

    def to_json(self) -> JSON:
        out: JSON = {"type": "play", "player": self.player, "card": str(self.card)}
        if self.take is not None:
            out["take"] = [str(c) for c in self.take]
        return out


Event = Table | Play


# -- the rules ------------------------------------------------------------------------


def _parse_cards(values: Sequence[Any], key: str) -> tuple[Card, ...]:
    cards = []
    for i, value in enumerate(values, 1):
        try:
            cards.append(Card.parse(value))
        except MalformedEvent as err:
            raise MalformedEvent(f"card {i} in '{key}': {err}") from None
    return tuple(cards)


def _resolve_play(state: State, seat: int, card: Card, take: tuple[Card, ...] | None) -> State:
    """A legal play's effect, before any deal or round end."""
    table = state.table
    if card.shape == MAGNET:
        caught = _sorted(c for c in table if c.shape == DIAMOND)
        new_table = tuple(c for c in table if c.shape != DIAMOND) if caught else table
    elif take:
        rest = list(table)
        for c in take:
            rest.remove(c)
        new_table = tuple(rest)
        # Sorted so that the same catch named in another order gives the same state.
        caught = _sorted(take)
    else:
        caught = ()
        new_table = (*table, card)
    piles = state.piles
    bonus = state.bonus
    bonus_left = state.bonus_left
    if caught or card.shape == MAGNET:
        piles = (*piles[:seat], (*piles[seat], card, *caught), *piles[seat + 1 :])
        if caught and not new_table and bonus_left:
            bonus = (*bonus[:seat], bonus[seat] + 1, *bonus[seat + 1 :])
            bonus_left -= 1
    hands = state.hands
    shape = _SHAPE_INDEX[card.shape]
    shown = state.shown
    return replace(
        state,
        table=new_table,
        piles=piles,
        bonus=bonus,
        bonus_left=bonus_left,
        hands=(*hands[:seat], hands[seat] - 1, *hands[seat + 1 :]),
        shown=(
            shown[0] + (shape == 0),
            shown[1] + (shape == 1),
            shown[2] + (shape == 2),
        ),
        played=state.played + 1,
    )


def _after_hand(state: State) -> State:
    """Deal the next hand when every hand is played, or end the round when the deck is empty."""
    n = len(state.params.players)
    if state.played < HAND_SIZE * n:
        return state
    if state.deck_count > 0:
        return replace(
            state,
            hands=(HAND_SIZE,) * n,
            deck_count=state.deck_count - HAND_SIZE * n,
            hand_no=state.hand_no + 1,
            played=0,
        )
    players = state.params.players
    scores = (*state.scores, _round_points(state))
    totals = [sum(col) for col in zip(*scores, strict=True)]
    best = max(totals)
    leaders = tuple(p for p, t in zip(players, totals, strict=True) if t == best)
    if state.round >= n and len(leaders) == 1:
        # The last round's piles and table stay visible on the final state.
        return replace(state, scores=scores, finished=True, winners=leaders)
    # As many rounds as players, then one more while the top total is tied.
    return replace(
        state, scores=scores, round=state.round + 1, table_dealt=False, hand_no=0, played=0
    )


def _deal_table(state: State, cards: tuple[Card, ...]) -> State:
    """A new round: every card gathered and shuffled, 4 face up, 4 to each player."""
    n = len(state.params.players)
    shown = Counter(c.shape for c in cards)
    return replace(
        state,
        table_dealt=True,
        hand_no=0,
        played=0,
        deck_count=DECK_SIZE - TABLE_CARDS - HAND_SIZE * n,
        hands=(HAND_SIZE,) * n,
        table=cards,
        piles=((),) * n,
        bonus=(0,) * n,
        bonus_left=BONUS_CARDS,
        shown=(shown[DIAMOND], shown[CIRCLE], shown[MAGNET]),
    )


class StarCatcherRules(Rules[State, Event]):
    """The Star Catcher rules engine (see the module docstring)."""

    id: ClassVar[str] = "star-catcher"
    title: ClassVar[str] = "Star Catcher"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    event_types: ClassVar[tuple[str, ...]] = ("table", "play")

    def start(self, players: tuple[str, ...], setup: RawEvent) -> State:
        dealer = players[-1]
        if setup.get("dealer") is not None:
            dealer = require_player(setup, players, "dealer")
        n = len(players)
        return State(
            params=Params(players=players, dealer=dealer),
            round=1,
            table_dealt=False,
            hand_no=0,
            played=0,
            deck_count=DECK_SIZE,
            hands=(0,) * n,
            table=(),
            piles=((),) * n,
            bonus=(0,) * n,
            bonus_left=BONUS_CARDS,
            shown=(0, 0, 0),
        )

    def parse_event(self, raw: RawEvent, state: State) -> Event:
        if raw["type"] == "table":
            values = require_list(raw, "cards")
            if len(values) != TABLE_CARDS:
                raise MalformedEvent(
                    f"field 'cards' must list the {TABLE_CARDS} cards dealt face up, "
                    f"got {_plural(len(values), 'card')}"
                )
            return Table(_parse_cards(values, "cards"))
        player = require_player(raw, state.params.players)
        if raw.get("card") is None:
            raise MalformedEvent(f"missing field 'card' (the card played: {_CARD_FORM})")
        try:
            card = Card.parse(raw["card"])
        except MalformedEvent as err:
            raise MalformedEvent(f"field 'card': {err}") from None
        take = None
        if raw.get("take") is not None:
            take = _parse_cards(require_list(raw, "take"), "take")
        return Play(player, card, take)

    def apply(self, state: State, event: Event) -> State:
        if isinstance(event, Table):
            if state.table_dealt:
                raise IllegalEvent(
                    f"round {state.round}'s table is already dealt; a 'table' event comes only "
                    f"at a round's start, and now it is {state.turn}'s turn to play"
                )
            magnets = sum(1 for c in event.cards if c.shape == MAGNET)
            if magnets:
                raise IllegalEvent(
                    "a Magnet dealt to the table is buried in the deck and replaced by the next "
                    "card, so the table deal never shows M: give the 4 cards that stay face up"
                )
            return _deal_table(state, event.cards)
        seat = state.seat(event.player)
        problem = _play_problem(state, seat, event.card, event.take)
        if problem is not None:
            raise IllegalEvent(problem)
        return _after_hand(_resolve_play(state, seat, event.card, event.take))

    # -- presentation ------------------------------------------------------------------

    def describe(self, before: State, event: Event, after: State) -> str:
        players = before.params.players
        if isinstance(event, Table):
            return (
                f"Round {after.round}: {after.dealer} deals {_names(event.cards, ' ')} face up "
                f"and {HAND_SIZE} cards to each player (deck {after.deck_count}); "
                f"{after.turn} starts"
            )
        name = event.player
        seat = players.index(name)
        card = event.card
        mid = _resolve_play(before, seat, card, event.take)
        caught = mid.piles[seat][len(before.piles[seat]) + 1 :]
        pile = f"pile {_plural(len(mid.piles[seat]) + mid.bonus[seat], 'card')}"
        stars = card.stars + sum(c.stars for c in caught)
        if card.shape == MAGNET:
            if caught:
                line = f"{name} plays M, the Magnet takes {_names(caught, ' + ')}: {pile}"
            else:
                line = f"{name} plays M, no Diamond to take: it goes to the pile, {pile}"
        elif caught:
            how = "match" if len(caught) == 1 else "sum"
            line = f"{name} plays {card}, catches {_names(caught, ' + ')} ({how}): {pile}"
        else:
            line = (
                f"{name} plays {card}, nothing to catch: it stays on the table "
                f"({_plural(len(mid.table), 'card')})"
            )
        if caught or card.shape == MAGNET:
            if mid.bonus_left < before.bonus_left:
                stars += 1
                line += f", clears the table: Bonus card ({mid.bonus_left} left)"
            elif caught and not mid.table:
                line += ", clears the table (no Bonus card left)"
            if stars:
                line += f", +{_plural(stars, 'star')}"
        if after.finished or after.round != before.round:
            return line + "; " + _round_end_text(mid, after)
        if after.hand_no != before.hand_no:
            return (
                f"{line}; hand {after.hand_number}: {HAND_SIZE} more cards each "
                f"(deck {after.deck_count}), {after.turn} starts"
            )
        return f"{line}; {after.turn}'s turn"

    def extras(self, state: State) -> JSON:
        players = state.params.players
        return {
            "dealer": state.dealer,
            "start_player": state.start_player,
            "table_dealt": state.table_dealt,
            "hand": state.hand_number,
            "hands_per_round": state.hands_per_round,
            "hand_start": state.hand_start,
            "table": [str(c) for c in state.table],
            "deck": state.deck_count,
            "hand_counts": state.hand_counts(),
            "piles": {
                p: {
                    "cards": [str(c) for c in state.piles[i]],
                    "bonus": state.bonus[i],
                    "count": state.pile_size(p),
                    "stars": state.pile_stars(p),
                    "non_star": state.pile_non_star(p),
                }
                for i, p in enumerate(players)
            },
            "bonus_left": state.bonus_left,
            "non_star_leaders": list(state.non_star_leaders()),
            "live_scores": state.live_scores(),
            "shown": state.shown_counts(),
        }

    def random_event(self, state: State, rng: random.Random) -> JSON:
        if not state.table_dealt:
            deck = list(SIMULATION_DECK)
            rng.shuffle(deck)
            # Magnets dealt to the table are buried and replaced: take the first 4 others.
            table = [c for c in deck if c.shape != MAGNET][:TABLE_CARDS]
            return {"type": "table", "cards": [str(c) for c in table]}
        player = state.params.players[state._turn_seat()]
        unseen = _unseen(state)
        # A simulated hand: the player prefers a card that catches, as people do.
        hand = rng.sample(unseen, min(len(unseen), HAND_SIZE))
        catching = [c for c in hand if can_catch(state.table, c)]
        card = rng.choice(catching) if catching and rng.random() < 0.7 else rng.choice(hand)
        event: JSON = {"type": "play", "player": player, "card": str(card)}
        options = catches(state.table, card, limit=50)
        if card.shape == MAGNET:
            # The Magnet's take may be omitted, empty, or named in any order.
            style = rng.random()
            if style < 0.4 and options:
                take = list(options[0])
                rng.shuffle(take)
                event["take"] = [str(c) for c in take]
            elif style < 0.6:
                event["take"] = []
        elif options:
            take = list(rng.choice(options))
            rng.shuffle(take)
            event["take"] = [str(c) for c in take]
        elif rng.random() < 0.5:
            event["take"] = []
        return event


def _round_end_text(mid: State, after: State) -> str:
    """The round's scoring (worked out), then the totals and what comes next."""
    players = mid.params.players
    points = after.scores[-1]
    leaders = mid.non_star_leaders()
    parts = []
    for p, v in zip(players, points, strict=True):
        stars = mid.pile_stars(p)
        extra = f" + {NON_STAR_BONUS} most non-star" if p in leaders else ""
        parts.append(f"{p} {v} ({_plural(stars, 'star')}{extra})")
    totals = after.totals
    shown = ", ".join(f"{p} {totals[p]}" for p in players)
    line = f"round {mid.round} ends: {', '.join(parts)}; totals {shown}"
    if after.finished:
        return f"{line}; match over: {after.winners[0]} wins"
    if mid.round >= len(players):
        line += " (top total tied: another round)"
    return f"{line}; round {after.round}: {after.dealer} deals, {after.turn} starts"


# -- simulation -------------------------------------------------------------------------


def _simulation_deck() -> tuple[Card, ...]:
    """A plausible 52-card deck for random playouts (the real one's numbers are not given).

    Diamonds 1-9, four of each: plain, plain, one star, two stars (36). Circles
    1-12, one each, with a star per full 4 (12). Four Magnets.
    """
    cards = [Card(DIAMOND, n, s) for n in range(1, 10) for s in (0, 0, 1, 2)]
    cards += [Card(CIRCLE, n, n // 4) for n in range(1, 13)]
    cards += [Card(MAGNET)] * 4
    return tuple(cards)


SIMULATION_DECK: tuple[Card, ...] = _simulation_deck()
"""The deck random playouts draw from: a simulation choice, not a rule."""


def _unseen(state: State) -> list[Card]:
    """The simulation deck minus every card seen this round (table and piles).

    A card the simulation deck lacks (a real table's log) removes another of its
    shape, so the shape counts always match what the round may still show.
    """
    left = Counter(SIMULATION_DECK)
    foreign = Counter[str]()
    for card in (*state.table, *(c for pile in state.piles for c in pile)):
        if left[card] > 0:
            left[card] -= 1
        else:
            foreign[card.shape] += 1
    unseen: list[Card] = []
    for card in SIMULATION_DECK:
        if left[card] > 0:
            left[card] -= 1
            if foreign[card.shape] > 0:
                foreign[card.shape] -= 1
            else:
                unseen.append(card)
    return unseen


def random_setup(rng: random.Random, players: list[str]) -> JSON:
    """A valid random ``setup``: sometimes with a ``dealer``.

    >>> random_setup(random.Random(1), ["Ann", "Ben"])["game"]
    'star-catcher'
    """
    setup: JSON = {"type": "setup", "game": "star-catcher", "players": list(players)}
    if rng.random() < 0.5:
        setup["dealer"] = rng.choice(players)
    return setup


RULES = StarCatcherRules()
