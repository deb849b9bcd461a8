"""A match in progress: the setup, the accepted events, and undo.

Like ``chess.Board``: :meth:`Match.push` validates and applies an event,
:meth:`Match.pop` takes the last one back exactly (the previous state was
kept, not recomputed).

>>> m = Match({"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]})
>>> m.turn
'Ann'
>>> _ = m.push({"type": "roll", "player": "Ann", "value": 2})
>>> m.turn
'Ann'
>>> m.pop()["type"]
'roll'
>>> len(m)
0
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from companion.games import AnyRules, rules_for
from companion.games.errors import MalformedEvent
from companion.games.fields import JSON, RawEvent, require_object


class Match:
    """One match: a ``setup`` event and the events accepted after it."""

    def __init__(self, setup: object) -> None:
        setup_raw = require_object(setup)
        if setup_raw.get("type") != "setup":
            raise MalformedEvent(
                "the first event must be 'setup' naming the game and the players"
            )
        self.rules: AnyRules = rules_for(setup_raw.get("game"))
        self.setup: JSON = dict(setup_raw)
        self._states: list[Any] = [self.rules.new_state(setup_raw)]
        self._events: list[JSON] = []
        self._typed: list[Any] = []

    @classmethod
    def from_events(cls, events: Iterable[RawEvent]) -> Match:
        """Replay a whole log (setup first); raises on the first bad event."""
        iterator = iter(events)
        try:
            first = next(iterator)
        except StopIteration:
            raise MalformedEvent("the log is empty; it must start with a 'setup' event") from None
        match = cls(first)
        for event in iterator:
            match.push(event)
        return match

    # -- the stack --------------------------------------------------------

    def push(self, event: object) -> Any:
        """Apply one event; return the new state. Nothing changes if it is refused."""
        typed, state = self.rules.play(self._states[-1], event)
        self._events.append(dict(require_object(event)))
        self._typed.append(typed)
        self._states.append(state)
        return state

    def pop(self) -> JSON:
        """Undo the last event and return it. ``IndexError`` when there is none."""
        if not self._events:
            raise IndexError("nothing to undo: no event after setup")
        self._states.pop()
        self._typed.pop()
        return self._events.pop()

    def peek(self) -> JSON | None:
        """The last accepted event, or ``None``."""
        return self._events[-1] if self._events else None

    def __len__(self) -> int:
        """The number of events after setup."""
        return len(self._events)

    # -- queries ------------------------------------------------------------

    @property
    def state(self) -> Any:
        return self._states[-1]

    @property
    def events(self) -> list[JSON]:
        """The accepted events after setup, in table-log form."""
        return list(self._events)

    def log(self) -> list[JSON]:
        """The whole table log: setup, then every event."""
        return [dict(self.setup), *self._events]

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(self.state.players)

    @property
    def turn(self) -> str | None:
        turn: str | None = self.state.turn
        return turn

    @property
    def finished(self) -> bool:
        return bool(self.state.finished)

    def summary(self) -> JSON:
        """The public view: the contract's replay object plus the game's extras."""
        return self.rules.summary(self.state)

    def describe_last(self) -> str:
        """One human line for the last event (as ``companion replay --trace`` prints)."""
        if not self._events:
            raise IndexError("no event after setup")
        return self.rules.describe(self._states[-2], self._typed[-1], self._states[-1])

    def random_event(self, rng: random.Random) -> JSON:
        """A legal next event chosen at random (for playouts, benches and bots)."""
        return self.rules.random_event(self.state, rng)

    def trace(self) -> Iterable[tuple[JSON, str]]:
        """Each event with its human description, in order."""
        for i, event in enumerate(self._events):
            yield event, self.rules.describe(self._states[i], self._typed[i], self._states[i + 1])

