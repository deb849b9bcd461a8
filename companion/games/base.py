"""What every rules engine has in common.

A game is the fold of its table events: ``Rules.start`` turns the ``setup``
event into the first state, and ``Rules.apply`` turns a state and one event
into the next state or refuses the event with a :class:`TableEventError`.
States are immutable values (frozen dataclasses holding tuples), so keeping
the previous ones makes undo exact and cheap.

The three things OpenSpiel keeps apart stay apart here too:

* the game's **parameters** (players, dealer, rod layout, targets) are parsed
  once from ``setup`` and live, unchanging, inside every state;
* the **state** is everything the rules need to judge the next event;
* the **public view** (:meth:`Rules.summary`) is what any player or spectator
  at the table may see, as plain JSON.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from companion.games.errors import MalformedEvent, MatchOver
from companion.games.fields import JSON, RawEvent, require_object, require_type, show


class GameState(Protocol):
    """The queries every game's state answers."""

    @property
    def players(self) -> tuple[str, ...]:
        """Seated players, clockwise."""
        ...

    @property
    def round(self) -> int:
        """The current round, from 1; the last one once the match is finished."""
        ...

    @property
    def turn(self) -> str | None:
        """The player expected to act next, or ``None`` (finished, or no turns)."""
        ...

    @property
    def finished(self) -> bool: ...

    @property
    def winners(self) -> tuple[str, ...]:
        """The winning players (several on a shared win); empty until finished."""
        ...

    @property
    def round_scores(self) -> tuple[Mapping[str, int], ...]:
        """One mapping player -> points per scored round. ``totals`` is their sum."""
        ...

    @property
    def totals(self) -> Mapping[str, int]: ...

    def zone_counts(self) -> Mapping[str, int]:
        """How many pieces lie in each zone (deck, hands, table, piles, ...).

        The sum over all zones never changes during a match: cards and rods
        are conserved. The conformance suite checks it after every event.
        """
        ...


S = TypeVar("S", bound=GameState)
E = TypeVar("E", bound="GameEvent")


class GameEvent(Protocol):
    """A parsed, typed table event (a frozen dataclass in each game)."""

    @property
    def type(self) -> str: ...

    def to_json(self) -> JSON:
        """The event in table-log form."""
        ...


def sum_scores(players: tuple[str, ...], rounds: tuple[Mapping[str, int], ...]) -> dict[str, int]:
    """Totals as the sum of the round scores.

    >>> sum_scores(("Ann", "Ben"), ({"Ann": 3, "Ben": 1}, {"Ann": -1, "Ben": 4}))
    {'Ann': 2, 'Ben': 5}
    """
    return {p: sum(r.get(p, 0) for r in rounds) for p in players}


def top_players(players: tuple[str, ...], scores: Mapping[str, int]) -> tuple[str, ...]:
    """Every player tied for the highest score, in seating order.

    >>> top_players(("Ann", "Ben", "Cy"), {"Ann": 4, "Ben": 7, "Cy": 7})
    ('Ben', 'Cy')
    """
    best = max(scores[p] for p in players)
    return tuple(p for p in players if scores[p] == best)


def left_of(players: tuple[str, ...], player: str, steps: int = 1) -> str:
    """The player ``steps`` seats clockwise (to the left) of ``player``.

    >>> left_of(("Ann", "Ben", "Cy"), "Cy")
    'Ann'
    >>> left_of(("Ann", "Ben", "Cy"), "Ann", -1)
    'Cy'
    """
    return players[(players.index(player) + steps) % len(players)]


class Rules(ABC, Generic[S, E]):
    """One game's rules: a pure function from (state, event) to the next state.

    Subclasses set the class attributes and implement the abstract methods.
    ``play`` is the validated entry point everything else goes through.
    """

    id: ClassVar[str]
    """The game id used in ``setup`` (``star-catcher``)."""
    title: ClassVar[str]
    """The game's name for people (``Star Catcher``)."""
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    event_types: ClassVar[tuple[str, ...]]
    """The event types after ``setup`` this game knows."""

    # -- to implement -----------------------------------------------------

    @abstractmethod
    def start(self, players: tuple[str, ...], setup: RawEvent) -> S:
        """The first state, from the validated players and the rest of ``setup``.

        Reads and validates the game's own setup options.
        """

    @abstractmethod
    def parse_event(self, raw: RawEvent, state: S) -> E:
        """Check an event's form (fields, types, card names) and type it.

        ``raw['type']`` is already known to be one of ``event_types``. The
        state is given for context such as the seated players; the rules
        themselves are judged in :meth:`apply`.
        """

    @abstractmethod
    def apply(self, state: S, event: E) -> S:
        """The state after ``event``, or :class:`IllegalEvent` naming the rule broken."""

    @abstractmethod
    def describe(self, before: S, event: E, after: S) -> str:
        """One human line for ``companion replay --trace``: who did what, what it scored."""

    @abstractmethod
    def extras(self, state: S) -> JSON:
        """The game's own public state for the summary (piles, table cards, target, ...)."""

    @abstractmethod
    def random_event(self, state: S, rng: random.Random) -> JSON:
        """A legal next event in table-log form, chosen at random.

        Chance (deals, dice, hidden hands) is simulated consistently with
        everything the state has seen, so a random playout is always a legal
        game. Used by the conformance suite, benchmarks and demo bots.
        Only called on an unfinished state.
        """

    # -- shared -----------------------------------------------------------

    def new_state(self, setup: RawEvent) -> S:
        """Validate a ``setup`` event and return the first state."""
        setup = require_object(setup)
        if setup.get("type") != "setup":
            raise MalformedEvent(
                f"the first event must be 'setup', got type {show(setup.get('type'))}"
            )
        if setup.get("game") != self.id:
            raise MalformedEvent(f"setup is for game {show(setup.get('game'))}, not {self.id}")
        players = parse_players(
            setup.get("players"), self.min_players, self.max_players, self.title
        )
        return self.start(players, setup)

    def play(self, state: S, raw: object) -> tuple[E, S]:
        """Validate and apply one raw event: the typed event and the new state."""
        event_raw = require_object(raw)
        if event_raw.get("type") == "setup":
            raise MalformedEvent("a match has exactly one 'setup', as its first event")
        if state.finished:
            raise MatchOver(
                "the match is over"
                + (f" ({', '.join(state.winners)} won)" if state.winners else "")
                + "; no further events are accepted"
            )
        require_type(event_raw, self.event_types, self.title)
        event = self.parse_event(event_raw, state)
        return event, self.apply(state, event)

    def summary(self, state: S) -> JSON:
        """The public view of a state: the contract's replay object plus game extras."""
        core: JSON = {
            "game": self.id,
            "players": list(state.players),
            "round": state.round,
            "turn": state.turn,
            "totals": dict(state.totals),
            "finished": state.finished,
            "winners": list(state.winners),
            "rounds": [dict(r) for r in state.round_scores],
        }
        extra = self.extras(state)
        return core | {k: v for k, v in extra.items() if k not in core}


def parse_players(value: Any, low: int, high: int, title: str) -> tuple[str, ...]:
    """Validate the ``players`` of a ``setup`` event.

    >>> parse_players(["Ann", "Ben"], 2, 4, "Star Catcher")
    ('Ann', 'Ben')
    >>> parse_players(["Ann", "Ann"], 2, 4, "Star Catcher")
    Traceback (most recent call last):
    ...
    companion.games.errors.MalformedEvent: setup 'players' must be distinct names; "Ann" appears ...
    """
    if not isinstance(value, list) or not all(isinstance(p, str) and p.strip() for p in value):
        raise MalformedEvent(
            f"setup needs 'players': a list of {low} to {high} names in clockwise order, "
            f"got {show(value)}"
        )
    seen: set[str] = set()
    for name in value:
        if name in seen:
            raise MalformedEvent(
                f"setup 'players' must be distinct names; {show(name)} appears twice"
            )
        seen.add(name)
    if not low <= len(value) <= high:
        raise MalformedEvent(
            f"{title} is played by {low} to {high} players, got {len(value)}"
        )
    return tuple(value)
