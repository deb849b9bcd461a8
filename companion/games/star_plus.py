"""Star Plus: play cards adding up to a rising target, empty your hand, score your pile.

The engine follows the table-log contract (``star-plus``). Hands are hidden at
a real table, so the engine tracks how many cards each player holds, never
which: a play is judged against the count in hand and against how many of each
kind the 74-card deck holds.

>>> from companion.games.match import Match
>>> m = Match({"type": "setup", "game": "star-plus", "players": ["Ann", "Ben"]})
>>> m.state.target, m.turn, m.state.hand_count("Ann"), m.state.deck
(1, 'Ann', 9, 56)
>>> _ = m.push({"type": "play", "player": "Ann", "cards": ["3", "-2"]})
>>> m.state.target, m.turn, m.state.pile("Ann")
(2, 'Ben', ('3', '-2'))
>>> m.describe_last()
"Ann plays 3 + -2 = 1; pile 2 cards, hand 7; target now 2; Ben's turn"
>>> check_play(m.state, "Ben", ["1"])
'the cards add up to 1, but the target is 2: a play must add up to exactly the target'
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from companion.games.base import Rules, sum_scores, top_players
from companion.games.errors import IllegalEvent, MalformedEvent
from companion.games.fields import (
    JSON,
    RawEvent,
    require_list,
    require_player,
    show,
)

# -- cards ------------------------------------------------------------------

KINDS: tuple[str, ...] = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "-1", "-2", "-3", "Z")
"""Every card name, in display order."""

HOLDS: Mapping[str, int] = {
    "1": 11, "2": 11, "3": 11,
    "4": 7, "5": 7, "6": 7,
    "7": 3, "8": 3, "9": 3, "-1": 3, "-2": 3, "-3": 3,
    "Z": 2,
}
"""How many cards of each kind the deck holds (74 in all)."""

VALUES: Mapping[str, int] = {k: int(k) for k in KINDS if k != "Z"}
"""The number on each numbered card (Zeus has none)."""

DECK_SIZE = sum(HOLDS.values())
ROUNDS = 3
ZEUS = "Z"
_INDEX: Mapping[str, int] = {k: i for i, k in enumerate(KINDS)}
_BY_VALUE: Mapping[int, str] = {v: k for k, v in VALUES.items()}
_CARD_FORM = 'a card name: "1" to "9", "-1", "-2", "-3" or "Z" (Zeus)'


def hand_size(players: int) -> int:
    """Cards dealt to each player: 9, or 8 at a table of 5 or 6.

    >>> hand_size(4), hand_size(5)
    (9, 8)
    """
    return 9 if players <= 4 else 8


def next_target(target: int) -> int:
    """The target after a counted play: one more, and 1 again after 12.

    >>> next_target(1), next_target(12)
    (2, 1)
    """
    return target % 12 + 1


# -- parameters and state -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Params:
    """The setup: seated players (clockwise) and who starts round 1."""

    players: tuple[str, ...]
    first: str


@dataclass(frozen=True, slots=True)
class State:
    """Everything the rules need between two events. Immutable; tuples are by seat.

    ``seat`` is the index of the player to act (meaningless once finished);
    ``direction`` is +1 clockwise, -1 anticlockwise; ``played`` counts each kind
    (in :data:`KINDS` order) played so far this round; ``scores`` holds one
    tuple of points by seat per completed round.
    """

    params: Params
    round: int
    seat: int
    round_first: int
    direction: int
    target: int
    black_hole: bool
    deck: int
    hands: tuple[int, ...]
    piles: tuple[tuple[str, ...], ...]
    played: tuple[int, ...]
    scores: tuple[tuple[int, ...], ...]
    finished: bool = False
    winners: tuple[str, ...] = ()

    # -- the GameState protocol ---------------------------------------------

    @property
    def players(self) -> tuple[str, ...]:
        return self.params.players

    @property
    def turn(self) -> str | None:
        return None if self.finished else self.params.players[self.seat]

    @property
    def round_scores(self) -> tuple[Mapping[str, int], ...]:
        players = self.params.players
        return tuple(dict(zip(players, r, strict=True)) for r in self.scores)

    @property
    def totals(self) -> Mapping[str, int]:
        return sum_scores(self.params.players, self.round_scores)

    def zone_counts(self) -> Mapping[str, int]:
        """Cards in the deck, in each hand and in each points pile: always 74 in all."""
        zones = {"deck": self.deck}
        for p, hand, pile in zip(self.params.players, self.hands, self.piles, strict=True):
            zones[f"hand:{p}"] = hand
            zones[f"pile:{p}"] = len(pile)
        return zones

    # -- queries for the phone, the board and the camera ------------------------

    @property
    def direction_name(self) -> str:
        """``"clockwise"`` or ``"anticlockwise"``: which way the turn passes now."""
        return "clockwise" if self.direction > 0 else "anticlockwise"

    @property
    def min_cards(self) -> int:
        """The fewest cards a play (other than Zeus) may have now: 3 in a Black Hole, else 1."""
        return 3 if self.black_hole else 1

    def hand_count(self, player: str) -> int:
        """How many cards ``player`` holds (the engine never knows which)."""
        return self.hands[self.params.players.index(player)]

    def hand_counts(self) -> dict[str, int]:
        return dict(zip(self.params.players, self.hands, strict=True))

    def pile(self, player: str) -> tuple[str, ...]:
        """``player``'s points pile, bottom first (the last cards are the top, stolen first)."""
        return self.piles[self.params.players.index(player)]

    def pile_counts(self) -> dict[str, int]:
        return {p: len(pile) for p, pile in zip(self.params.players, self.piles, strict=True)}

    def played_count(self, kind: str) -> int:
        """How many cards of ``kind`` have been played this round."""
        return self.played[_INDEX[kind]]

    def unplayed(self, kind: str) -> int:
        """How many cards of ``kind`` may still be played this round (deck holds - played)."""
        return HOLDS[kind] - self.played[_INDEX[kind]]

    @property
    def next_player(self) -> str:
        """Who acts after the current player if the direction does not change."""
        players = self.params.players
        return players[(self.seat + self.direction) % len(players)]


def min_cards_to_play(state: State) -> int:
    """3 while a Black Hole is open, else 1 (Zeus alone is always allowed).

    >>> min_cards_to_play(RULES.new_state(
    ...     {"type": "setup", "game": "star-plus", "players": ["Ann", "Ben"]}))
    1
    """
    return state.min_cards


def check_play(state: State, player: str, cards: Sequence[str]) -> str | None:
    """Why ``player`` may not play ``cards`` now, or ``None`` when the play is legal.

    For the phone, to explain an entry before it is sent; :meth:`StarPlusRules.apply`
    refuses an illegal play with the same words.

    >>> s = RULES.new_state({"type": "setup", "game": "star-plus", "players": ["Ann", "Ben"]})
    >>> check_play(s, "Ann", ["4", "-3"]) is None
    True
    >>> check_play(s, "Ben", ["1"])
    "it is Ann's turn, not Ben's"
    >>> check_play(s, "Ann", ["Z", "1"])
    'Zeus is never combined with other cards: play ["Z"] alone to skip the turn'
    """
    if state.finished:
        return "the match is over; no further plays are accepted"
    if player not in state.params.players:
        return f"{show(player)} is not seated; the players are {', '.join(state.params.players)}"
    for card in cards:
        if not isinstance(card, str) or card not in _INDEX:
            return f"{show(card)} is not a Star Plus card; expected {_CARD_FORM}"
    if not cards:
        return "a play needs at least one card"
    return _play_problem(state, state.params.players.index(player), tuple(cards))


def is_legal_play(state: State, player: str, cards: Sequence[str]) -> bool:
    """Whether ``player`` may play ``cards`` now (see :func:`check_play` for why not).

    >>> s = RULES.new_state({"type": "setup", "game": "star-plus", "players": ["Ann", "Ben"]})
    >>> is_legal_play(s, "Ann", ["1"]), is_legal_play(s, "Ann", ["2"])
    (True, False)
    """
    return check_play(state, player, cards) is None


def _play_problem(state: State, seat: int, cards: tuple[str, ...]) -> str | None:
    """The rule a play of valid card names breaks, or ``None``."""
    players = state.params.players
    if seat != state.seat:
        return f"it is {players[state.seat]}'s turn, not {players[seat]}'s"
    name = players[seat]
    if ZEUS in cards and len(cards) > 1:
        return 'Zeus is never combined with other cards: play ["Z"] alone to skip the turn'
    held = state.hands[seat]
    if len(cards) > held:
        return (
            f"{name} holds only {_cards(held)}, so cannot play {len(cards)}"
        )
    if cards != (ZEUS,):
        if len(cards) < 3 and state.black_hole:
            return (
                f"the Black Hole is open: every play needs three or more cards, got {len(cards)}; "
                f"play 3+ cards adding up to {state.target}, Zeus alone, "
                "or draw 4 (which closes it)"
            )
        total = sum(VALUES[c] for c in cards)
        if total != state.target:
            return (
                f"the cards add up to {total}, but the target is {state.target}: "
                "a play must add up to exactly the target"
            )
    for kind in set(cards):
        left = HOLDS[kind] - state.played[_INDEX[kind]]
        if cards.count(kind) > left:
            label = "Zeus" if kind == ZEUS else f'"{kind}"'
            return (
                f"no kind is played more often in a round than the deck holds: the deck holds "
                f"{HOLDS[kind]} {label}, {state.played[_INDEX[kind]]} already played this round, "
                f"so at most {left} more"
            )
    return None


# -- events ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Play:
    """``player`` plays ``cards`` (adding up to the target), or Zeus alone."""

    player: str
    cards: tuple[str, ...]

    @property
    def type(self) -> str:
        return "play"

    def to_json(self) -> JSON:
        return {"type": "play", "player": self.player, "cards": list(self.cards)}


@dataclass(frozen=True, slots=True)
class Draw:
    """``player`` skips and draws 2 (4 in an open Black Hole, which then closes)."""

    player: str

    @property
    def type(self) -> str:
        return "draw"

    def to_json(self) -> JSON:
        return {"type": "draw", "player": self.player}


Event = Play | Draw


# -- the rules -------------------------------------------------------------------


def _deal(params: Params, round_no: int, first: int, scores: tuple[tuple[int, ...], ...]) -> State:
    """A fresh round: all 74 cards shuffled, hands dealt, target 1, clockwise, no Black Hole."""
    n = len(params.players)
    size = hand_size(n)
    return State(
        params=params,
        round=round_no,
        seat=first,
        round_first=first,
        direction=1,
        target=1,
        black_hole=False,
        deck=DECK_SIZE - size * n,
        hands=(size,) * n,
        piles=((),) * n,
        played=(0,) * len(KINDS),
        scores=scores,
    )


def _round_points(state: State) -> tuple[int, ...]:
    """+1 per pile card, -1 per card in hand, +5 with an empty hand."""
    return tuple(
        len(pile) - hand + (5 if hand == 0 else 0)
        for pile, hand in zip(state.piles, state.hands, strict=True)
    )


def _end_round(state: State) -> State:
    """Score the round; deal the next one, or finish the match after the third."""
    scores = (*state.scores, _round_points(state))
    if state.round >= ROUNDS:
        # The last round's piles and hands stay visible on the final state.
        players = state.params.players
        totals = sum_scores(players, tuple(dict(zip(players, r, strict=True)) for r in scores))
        return replace(state, scores=scores, finished=True, winners=top_players(players, totals))
    # Each round starts one seat further clockwise than the last, whatever the direction was.
    first = (state.round_first + 1) % len(state.params.players)
    return _deal(state.params, state.round + 1, first, scores)


def _take_top(pile: tuple[str, ...], count: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Split off the top ``count`` cards (the most recently added): (rest, taken)."""
    k = min(count, len(pile))
    if k == 0:
        return pile, ()
    return pile[:-k], pile[-k:]


def _resolve_draw(state: State, seat: int) -> State:
    """The draw's effect, before any round end: 2 cards, or 4 in a Black Hole (closing it).

    A round ends when the deck's last card is drawn, so the deck is never empty
    here; a short deck gives what is left.
    """
    drawn = min(4 if state.black_hole else 2, state.deck)
    hands = list(state.hands)
    hands[seat] += drawn
    return replace(
        state,
        deck=state.deck - drawn,
        hands=tuple(hands),
        black_hole=False,
        seat=(seat + state.direction) % len(hands),
    )


def _resolve_play(state: State, seat: int, cards: tuple[str, ...]) -> State:
    """A legal play's effect, before any round end."""
    n = len(state.hands)
    hands = list(state.hands)
    hands[seat] -= len(cards)
    played = list(state.played)
    for card in cards:
        played[_INDEX[card]] += 1
    piles = list(state.piles)
    piles[seat] = piles[seat] + cards
    if cards == (ZEUS,):
        # Zeus skips: the target stays and a Black Hole stays open.
        return replace(
            state,
            hands=tuple(hands),
            piles=tuple(piles),
            played=tuple(played),
            seat=(seat + state.direction) % n,
        )
    for card in cards:
        if card == "7" or card == "8":
            # 7 takes from the right (previous seat), 8 from the left (next seat): fixed by
            # the seating, whatever the direction of play. Stolen cards go on top of P's pile.
            victim = (seat - 1) % n if card == "7" else (seat + 1) % n
            piles[victim], taken = _take_top(piles[victim], 2)
            piles[seat] = piles[seat] + taken
    direction = -state.direction if cards.count("9") % 2 else state.direction
    return replace(
        state,
        hands=tuple(hands),
        piles=tuple(piles),
        played=tuple(played),
        direction=direction,
        target=next_target(state.target),
        black_hole=state.black_hole or len(cards) >= 3,
        seat=(seat + direction) % n,
    )


class StarPlusRules(Rules[State, Event]):
    """The Star Plus rules engine (see the module docstring)."""

    id: ClassVar[str] = "star-plus"
    title: ClassVar[str] = "Star Plus"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    event_types: ClassVar[tuple[str, ...]] = ("play", "draw")

    def start(self, players: tuple[str, ...], setup: RawEvent) -> State:
        first = players[0]
        if setup.get("first") is not None:
            first = require_player(setup, players, "first")
        params = Params(players=players, first=first)
        return _deal(params, 1, players.index(first), ())

    def parse_event(self, raw: RawEvent, state: State) -> Event:
        player = require_player(raw, state.params.players)
        if raw["type"] == "draw":
            return Draw(player)
        cards = require_list(raw, "cards")
        if not cards:
            raise MalformedEvent(f"field 'cards' must list at least one card ({_CARD_FORM})")
        for i, card in enumerate(cards, 1):
            if not isinstance(card, str) or card not in _INDEX:
                raise MalformedEvent(
                    f"card {i} in 'cards' must be {_CARD_FORM}, got {show(card)}"
                )
        return Play(player, tuple(cards))

    def apply(self, state: State, event: Event) -> State:
        players = state.params.players
        seat = players.index(event.player)
        if isinstance(event, Draw):
            if seat != state.seat:
                raise IllegalEvent(f"it is {players[state.seat]}'s turn, not {event.player}'s")
            after = _resolve_draw(state, seat)
            # The round ends as soon as the deck's last card is drawn.
            return _end_round(after) if after.deck == 0 else after
        problem = _play_problem(state, seat, event.cards)
        if problem is not None:
            raise IllegalEvent(problem)
        after = _resolve_play(state, seat, event.cards)
        return _end_round(after) if after.hands[seat] == 0 else after

    # -- presentation ----------------------------------------------------------------

    def describe(self, before: State, event: Event, after: State) -> str:
        players = before.params.players
        name = event.player
        seat = players.index(name)
        parts: list[str] = []
        if isinstance(event, Draw):
            # Recomputed (cheap) because ``after`` may already show the next round's deal.
            mid = _resolve_draw(before, seat)
            drawn = before.deck - mid.deck
            what = f"{name} skips and draws {drawn}"
            if mid.deck == 0:
                what += " (the last of the deck)"
            if before.black_hole:
                what += " in the Black Hole, which closes"
            parts.append(f"{what}: hand {mid.hands[seat]}, deck {mid.deck}")
        elif event.cards == (ZEUS,):
            mid = _resolve_play(before, seat, event.cards)
            what = f"{name} plays Zeus and skips: target stays {before.target}"
            if before.black_hole:
                what += ", the Black Hole stays open"
            parts.append(what)
            parts.append(f"pile {_cards(len(mid.piles[seat]))}, hand {mid.hands[seat]}")
        else:
            cards = event.cards
            mid = _resolve_play(before, seat, cards)
            parts.append(f"{name} plays {' + '.join(cards)} = {before.target}")
            piles = list(before.piles)
            for card in cards:
                if card in ("7", "8"):
                    victim = (seat - 1) % len(players) if card == "7" else (seat + 1) % len(players)
                    side = "right" if card == "7" else "left"
                    piles[victim], taken = _take_top(piles[victim], 2)
                    whom = f"{players[victim]}'s pile ({side})"
                    parts.append(
                        f"{card} takes {', '.join(taken)} from {whom}"
                        if taken
                        else f"{card} takes nothing from {whom}, which is empty"
                    )
            nines = cards.count("9")
            if nines % 2:
                parts.append(f"9 reverses play, now {mid.direction_name}")
            elif nines:
                parts.append("two 9s cancel out, play stays " + mid.direction_name)
            if mid.black_hole and not before.black_hole:
                parts.append("opens the Black Hole (3+ cards per play)")
            parts.append(f"pile {_cards(len(mid.piles[seat]))}, hand {mid.hands[seat]}")
            if after.round == before.round and not after.finished:
                parts.append(f"target now {mid.target}")
        if after.round == before.round and not after.finished:
            return "; ".join(parts) + f"; {after.turn}'s turn"
        return "; ".join(parts) + "; " + _round_end_text(mid, after, event)

    def extras(self, state: State) -> JSON:
        players = state.params.players
        return {
            "target": state.target,
            "black_hole": state.black_hole,
            "min_cards": state.min_cards,
            "direction": state.direction_name,
            "deck": state.deck,
            "hands": state.hand_counts(),
            "piles": {p: list(pile) for p, pile in zip(players, state.piles, strict=True)},
            "pile_counts": state.pile_counts(),
            "round_first": players[state.round_first],
            "played": {k: state.played[i] for i, k in enumerate(KINDS) if state.played[i]},
        }

    def random_event(self, state: State, rng: random.Random) -> JSON:
        players = state.params.players
        player = players[state.seat]
        zeus_left = HOLDS[ZEUS] - state.played[_INDEX[ZEUS]]
        if zeus_left and rng.random() < (0.15 if state.black_hole else 0.04):
            return {"type": "play", "player": player, "cards": [ZEUS]}
        # Round 2 leans towards drawing so that playouts also see a round end by an empty deck.
        if rng.random() < (0.35 if state.black_hole else 0.45 if state.round == 2 else 0.12):
            return {"type": "draw", "player": player}
        cards = _random_play(state, rng)
        if cards is None:
            return {"type": "draw", "player": player}
        return {"type": "play", "player": player, "cards": cards}


def _cards(count: int) -> str:
    return f"{count} card" if count == 1 else f"{count} cards"


def _round_end_text(mid: State, after: State, event: Event) -> str:
    """The round's end: why, each player's points (worked out) and the totals or the winners."""
    players = mid.params.players
    why = f"{event.player}'s hand is empty" if isinstance(event, Play) else "the deck is empty"
    points = after.scores[-1]
    scored = ", ".join(
        f"{p} {v:+d} ({len(pile)} in pile, {hand} in hand{', +5 empty hand' if hand == 0 else ''})"
        for p, v, pile, hand in zip(players, points, mid.piles, mid.hands, strict=True)
    )
    totals = after.totals
    shown = ", ".join(f"{p} {totals[p]}" for p in players)
    line = f"{why}: round {mid.round} ends: {scored}; totals {shown}"
    if after.finished:
        verb = "share the win" if len(after.winners) > 1 else "wins"
        return f"{line}; match over: {' and '.join(after.winners)} {verb}"
    return f"{line}; round {after.round} starts with {after.turn}"


def _random_play(state: State, rng: random.Random) -> list[str] | None:
    """A random legal non-Zeus play for the player to act, or ``None`` if none was found.

    Hands are hidden, so any cards the deck still holds this round are consistent
    with everything seen so far.
    """
    held = state.hands[state.seat]
    low = state.min_cards
    if held < low:
        return None
    high = min(held, low + 3)
    left = [HOLDS[k] - state.played[i] for i, k in enumerate(KINDS)]
    left[_INDEX[ZEUS]] = 0
    numbered: Sequence[int] = range(len(KINDS) - 1)
    negatives = (_INDEX["-1"], _INDEX["-2"], _INDEX["-3"])
    nine = _INDEX["9"]
    for attempt in range(40):
        pool = list(left)
        chosen: list[str] = []
        kinds = numbered
        size = min(high, rng.choices((low, low + 1, low + 2, low + 3), (5, 3, 2, 1))[0])
        # Two 9s in one play (they cancel out) are rare by chance: aim for it now and then.
        if (
            attempt == 0
            and pool[nine] >= 2
            and high >= 4
            and state.target >= 9
            and rng.random() < 0.5
        ):
            pool[nine] -= 2
            chosen = ["9", "9"]
            kinds = negatives
            size = rng.randint(4, high)
        while len(chosen) < size - 1:
            weights = [pool[i] for i in kinds]
            if not any(weights):
                break
            i = rng.choices(kinds, weights=weights)[0]
            pool[i] -= 1
            chosen.append(KINDS[i])
        if len(chosen) != size - 1:
            continue
        need = state.target - sum(VALUES[c] for c in chosen)
        last = _BY_VALUE.get(need)
        if last is not None and pool[_INDEX[last]] > 0:
            chosen.append(last)
            rng.shuffle(chosen)
            return chosen
    return None


def random_setup(rng: random.Random, players: list[str]) -> JSON:
    """A valid random ``setup``: sometimes with a ``first`` player.

    >>> random_setup(random.Random(1), ["Ann", "Ben"])["game"]
    'star-plus'
    """
    setup: JSON = {"type": "setup", "game": "star-plus", "players": list(players)}
    if rng.random() < 0.5:
        setup["first"] = rng.choice(players)
    return setup


RULES = StarPlusRules()


__all__: list[str] = [
    "DECK_SIZE",
    "HOLDS",
    "KINDS",
    "RULES",
    "Draw",
    "Event",
    "Params",
    "Play",
    "StarPlusRules",
    "State",
    "check_play",
    "hand_size",
    "is_legal_play",
    "min_cards_to_play",
    "next_target",
    "random_setup",
]

