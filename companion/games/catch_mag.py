"""Catch Mag: roll, fly, pull magnetic rods out of the board, first to five of a colour wins.

The board has 30 spaces clockwise. The five outer joker spaces (1, 7, 13,
19, 25) hold the joker balls of the same numbers; the other 25 hold the rods,
five of each colour. Each player's station has one row per colour (a row
holds 5) and home recesses for kept joker balls. The galaxy in the middle
holds the five super jokers, one at the end of each arm; the arm that points
at outer joker space N holds *super joker N*, the one offered when a ship
lands on space N while ball N is away.

A turn is one roll (three for a player holding four rods of one colour at the
turn's first roll) and what follows it: a ``catch`` on a rod space, a
``joker`` on a joker space whose ball is there, a ``super-joker`` (or a
decline) on a joker space whose ball is away. In a three-roll turn the player
rolls again after anything but a failed catch or a win, while rolls remain:
after an empty landing and after a declined super joker too (the contract's
ruling: the rulebook's three rolls "improve his chances of winning").

>>> s = RULES.new_state({"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]})
>>> _, s = RULES.play(s, {"type": "roll", "player": "Ann", "value": 4})
>>> pending(s), ships(s)
('catch', {'Ann': 5, 'Ben': 1})
>>> _, s = RULES.play(s, {"type": "catch", "player": "Ann", "success": True, "color": "red"})
>>> rows(s)["Ann"]["red"], dict(s.totals), s.turn
(1, {'Ann': 1, 'Ben': 0}, 'Ben')
>>> RULES.play(s, {"type": "roll", "player": "Ann", "value": 3})
Traceback (most recent call last):
...
companion.games.errors.IllegalEvent: it is Ben's turn, not Ann's: Ben is to roll
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal

from companion.games.base import Rules
from companion.games.errors import IllegalEvent, MalformedEvent
from companion.games.fields import (
    JSON,
    RawEvent,
    check_int,
    require_bool,
    require_choice,
    require_int,
    require_mapping,
    require_player,
    show,
)

COLORS: Final[tuple[str, ...]] = ("white", "green", "red", "yellow", "blue")
"""The rod colours, in the order the table log and the summaries list them."""
SPACES: Final = 30
JOKER_SPACES: Final[tuple[int, ...]] = (1, 7, 13, 19, 25)
"""The outer joker spaces; ball N (and super joker N) belongs to space N."""
ROD_SPACES: Final[tuple[int, ...]] = tuple(s for s in range(1, SPACES + 1) if s not in JOKER_SPACES)
ROW_SIZE: Final = 5
"""A row holds five rods, and five of one colour wins."""
UNKNOWN: Final = "unknown"
"""A rod that is on the board but whose colour nobody typed (no ``rods`` layout)."""
SUPER_JOKERS: Final = len(JOKER_SPACES)

_COLOR_INDEX: Final = {c: i for i, c in enumerate(COLORS)}
_JOKER_INDEX: Final = {s: i for i, s in enumerate(JOKER_SPACES)}
_ON_BOARD: Final = -1  # a joker ball resting on its own space

Phase = Literal["roll", "catch", "joker", "super", "over"]
"""What the state waits for: ``super`` is an open super-joker choice."""

_PENDING: Final[dict[str, str | None]] = {
    "roll": "roll",
    "catch": "catch",
    "joker": "joker",
    "super": "super-joker",
    "over": None,
}


def next_space(space: int, value: int) -> int:
    """The space a ship reaches from ``space`` moving ``value`` clockwise (30 is followed by 1).

    >>> next_space(1, 6)
    7
    >>> next_space(28, 3)
    1
    >>> next_space(30, 1)
    1
    """
    return (space - 1 + value) % SPACES + 1


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# -- parameters and state ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Params:
    """What ``setup`` fixes for the whole match."""

    players: tuple[str, ...]
    first: int = 0
    """The seat that takes the first turn."""
    layout: tuple[str | None, ...] | None = None
    """Colour per space (index = space, 0 and joker spaces ``None``), or ``None`` if unknown."""


@dataclass(frozen=True, slots=True)
class State:
    """A Catch Mag position: ships, board, stations, balls and where the turn stands."""

    params: Params
    ships: tuple[int, ...]
    """Each seat's ship space."""
    board: tuple[str | None, ...]
    """Per space (index 0 unused): the rod's colour, ``"unknown"``, or ``None`` (no rod)."""
    rows: tuple[tuple[int, ...], ...]
    """Per seat, per colour (``COLORS`` order): rods in that station row."""
    balls: tuple[int, ...]
    """Per joker ball (``JOKER_SPACES`` order): ``-1`` on its space, else the keeper's seat."""
    seat: int
    """Whose turn it is."""
    phase: Phase = "roll"
    rolled: bool = False
    """Whether the turn's first roll happened (``use-joker`` only comes before it)."""
    rolls_left: int = 0
    """Rolls still allowed this turn after the ones made (meaningful once ``rolled``)."""
    three: bool = False
    """This turn has three rolls (four of a colour at its first roll)."""
    winner: int | None = None

    @property
    def players(self) -> tuple[str, ...]:
        return self.params.players

    @property
    def round(self) -> int:
        return 1

    @property
    def turn(self) -> str | None:
        return None if self.winner is not None else self.params.players[self.seat]

    @property
    def finished(self) -> bool:
        return self.winner is not None

    @property
    def winners(self) -> tuple[str, ...]:
        return () if self.winner is None else (self.params.players[self.winner],)

    @property
    def totals(self) -> Mapping[str, int]:
        """Rods in each player's station, live."""
        return {p: sum(r) for p, r in zip(self.params.players, self.rows, strict=True)}

    @property
    def round_scores(self) -> tuple[Mapping[str, int], ...]:
        """The single round: the live station counts, so ``totals`` is their sum."""
        return (self.totals,)

    def zone_counts(self) -> Mapping[str, int]:
        """Rods, joker balls and super jokers by place; 25 + 5 + 5 = 35 in every state."""
        zones: dict[str, int] = {"board": sum(1 for c in self.board if c is not None)}
        for seat, name in enumerate(self.params.players):
            zones[f"station:{name}"] = sum(self.rows[seat])
            zones[f"recess:{name}"] = self.balls.count(seat)
        zones["joker-spaces"] = self.balls.count(_ON_BOARD)
        zones["galaxy"] = SUPER_JOKERS  # super jokers always go straight back
        return zones


# -- events -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Roll:
    """The player's ship moves ``value`` spaces clockwise."""

    player: str
    value: int

    @property
    def type(self) -> str:
        return "roll"

    def to_json(self) -> JSON:
        return {"type": "roll", "player": self.player, "value": self.value}


@dataclass(frozen=True, slots=True)
class Catch:
    """The player pulls the rod under the ship; ``color`` is the row it went into."""

    player: str
    success: bool
    color: str | None = None

    @property
    def type(self) -> str:
        return "catch"

    def to_json(self) -> JSON:
        out: JSON = {"type": "catch", "player": self.player, "success": self.success}
        if self.color is not None:
            out["color"] = self.color
        return out


@dataclass(frozen=True, slots=True)
class Joker:
    """The player took the ball under the ship: keep it, or swipe a rod with it."""

    player: str
    use: Literal["keep", "swipe"]
    source: str | None = None
    """The opponent swiped from (the log's ``from``)."""
    color: str | None = None

    @property
    def type(self) -> str:
        return "joker"

    def to_json(self) -> JSON:
        out: JSON = {"type": "joker", "player": self.player, "use": self.use}
        if self.use == "swipe":
            out["from"] = self.source
            out["color"] = self.color
        return out


@dataclass(frozen=True, slots=True)
class SuperJoker:
    """The player takes the rod on any ``space`` with the offered super joker."""

    player: str
    space: int
    color: str | None = None

    @property
    def type(self) -> str:
        return "super-joker"

    def to_json(self) -> JSON:
        out: JSON = {"type": "super-joker", "player": self.player, "space": self.space}
        if self.color is not None:
            out["color"] = self.color
        return out


@dataclass(frozen=True, slots=True)
class UseJoker:
    """Before the turn's first roll, the player spends kept ball ``joker`` on a swipe."""

    player: str
    joker: int
    source: str
    color: str

    @property
    def type(self) -> str:
        return "use-joker"

    def to_json(self) -> JSON:
        return {
            "type": "use-joker",
            "player": self.player,
            "joker": self.joker,
            "from": self.source,
            "color": self.color,
        }


Event = Roll | Catch | Joker | SuperJoker | UseJoker


# -- public queries ------------------------------------------------------------


def ships(state: State) -> dict[str, int]:
    """Player -> the space their ship stands on."""
    return dict(zip(state.players, state.ships, strict=True))


def rods_on_board(state: State) -> dict[int, str]:
    """Space -> the colour of the rod still on it (``"unknown"`` without a layout).

    >>> s = RULES.new_state({"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]})
    >>> len(rods_on_board(s)), rods_on_board(s)[2]
    (25, 'unknown')
    """
    return {s: c for s, c in enumerate(state.board) if c is not None}


def rows(state: State) -> dict[str, dict[str, int]]:
    """Player -> colour -> rods in that row of the station."""
    return {
        p: dict(zip(COLORS, r, strict=True))
        for p, r in zip(state.players, state.rows, strict=True)
    }


def kept_jokers(state: State) -> dict[str, list[int]]:
    """Player -> the joker balls in their home recesses (by number)."""
    out: dict[str, list[int]] = {p: [] for p in state.players}
    for ball, holder in zip(JOKER_SPACES, state.balls, strict=True):
        if holder != _ON_BOARD:
            out[state.players[holder]].append(ball)
    return out


def balls_on_board(state: State) -> list[int]:
    """The joker balls resting on their outer joker spaces."""
    return [b for b, h in zip(JOKER_SPACES, state.balls, strict=True) if h == _ON_BOARD]


def pending(state: State) -> str | None:
    """The event the table waits for: roll, catch, joker, super-joker; ``None`` once over.

    ``roll`` before the turn's first roll also admits ``use-joker``; ``super-joker``
    also admits a decline: the player's own roll while rolls remain this turn, else
    any other event, which ends the turn (see :func:`expected`).
    """
    return _PENDING[state.phase]


def rolls_left(state: State) -> int:
    """Rolls the player to move still has this turn (before the first roll: 1 or 3)."""
    if state.finished:
        return 0
    if not state.rolled:
        return 3 if _holds_four(state, state.seat) else 1
    return state.rolls_left


def supply(state: State) -> dict[str, int]:
    """Colour -> rods of that colour still on the board (five of each minus the stations').

    >>> s = RULES.new_state({"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]})
    >>> supply(s)["blue"]
    5
    """
    return {c: ROW_SIZE - sum(r[i] for r in state.rows) for i, c in enumerate(COLORS)}


def swipe_options(state: State, player: str) -> list[tuple[str, str]]:
    """Every (opponent, colour) ``player`` could swipe: they hold it and the row has room."""
    seat = state.players.index(player)
    own = state.rows[seat]
    return [
        (name, color)
        for q, name in enumerate(state.players)
        if q != seat
        for i, color in enumerate(COLORS)
        if state.rows[q][i] > 0 and own[i] < ROW_SIZE
    ]


@dataclass(frozen=True, slots=True)
class SpaceInfo:
    """What lies on one board space."""

    space: int
    kind: Literal["rod", "joker"]
    rod: str | None
    """Rod spaces: the rod's colour, ``"unknown"``, or ``None`` once taken."""
    ball: bool | None
    """Joker spaces: whether the ball is on it; ``None`` for rod spaces."""
    keeper: str | None
    """Joker spaces: who keeps the ball while it is away."""
    ships: tuple[str, ...]

    def to_json(self) -> JSON:
        return {
            "space": self.space,
            "kind": self.kind,
            "rod": self.rod,
            "ball": self.ball,
            "keeper": self.keeper,
            "ships": list(self.ships),
        }


def space_contents(state: State, space: int) -> SpaceInfo:
    """What is on ``space`` (1-30); ``ValueError`` for any other number.

    >>> s = RULES.new_state({"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]})
    >>> space_contents(s, 1)
    SpaceInfo(space=1, kind='joker', rod=None, ball=True, keeper=None, ships=('Ann', 'Ben'))
    >>> space_contents(s, 2).rod
    'unknown'
    """
    if isinstance(space, bool) or not isinstance(space, int) or not 1 <= space <= SPACES:
        raise ValueError(f"board spaces are numbered 1 to {SPACES}, got {show(space)}")
    here = tuple(p for p, s in zip(state.players, state.ships, strict=True) if s == space)
    if space in _JOKER_INDEX:
        holder = state.balls[_JOKER_INDEX[space]]
        keeper = None if holder == _ON_BOARD else state.players[holder]
        return SpaceInfo(space, "joker", None, holder == _ON_BOARD, keeper, here)
    return SpaceInfo(space, "rod", state.board[space], None, None, here)


@dataclass(frozen=True, slots=True)
class Expected:
    """What the table waits for next, for the phone and the sensor interpreter."""

    player: str | None
    """Who must act (``None`` once over)."""
    events: tuple[str, ...]
    """The event types that player may send (``roll`` on an open super joker declines it;
    when the decline would end the turn, it comes from the next player instead)."""
    space: int | None
    """The acting ship's space."""
    note: str
    """The same in words."""

    def to_json(self) -> JSON:
        return {
            "player": self.player,
            "events": list(self.events),
            "space": self.space,
            "note": self.note,
        }


def expected(state: State) -> Expected:
    """The next event the rules expect, in types and in words.

    >>> s = RULES.new_state({"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]})
    >>> expected(s).note
    'Ann is to roll'
    """
    if state.winner is not None:
        name = state.players[state.winner]
        return Expected(None, (), None, f"the match is over: {name} won")
    seat = state.seat
    name = state.players[seat]
    space = state.ships[seat]
    if state.phase == "roll":
        if not state.rolled and seat in state.balls and swipe_options(state, name):
            return Expected(
                name,
                ("roll", "use-joker"),
                space,
                f"{name} is to roll, or first spend a kept joker ball (use-joker)",
            )
        if state.rolled:
            return Expected(
                name, ("roll",), space, f"{name} rolls again (roll {_roll_number(state)} of 3)"
            )
        return Expected(name, ("roll",), space, f"{name} is to roll")
    if state.phase == "catch":
        rod = state.board[space]
        what = "a rod" if rod == UNKNOWN else f"the {rod} rod"
        return Expected(
            name, ("catch",), space, f"{name} is to catch {what} on space {space} (success or not)"
        )
    if state.phase == "joker":
        return Expected(
            name,
            ("joker",),
            space,
            f"{name} took joker ball {space} and is to keep it or swipe a rod with it (joker)",
        )
    offer = f"{name} may take any rod on the board with super joker {space} (super-joker)"
    if state.rolls_left > 0:
        return Expected(
            name,
            ("super-joker", "roll"),
            space,
            f"{offer}, or decline it and roll again (roll {_roll_number(state)} of 3)",
        )
    nxt = state.players[(seat + 1) % len(state.players)]
    return Expected(
        name,
        ("super-joker",),
        space,
        f"{offer}; any other event declines it and ends the turn ({nxt} is next)",
    )


def legal_events(state: State) -> list[JSON]:
    """Every legal next event in table-log form (optional ``color`` fields left out).

    During an open super-joker choice this includes the events that decline it:
    the player's own rolls while rolls remain this turn, else the next player's
    events. Empty once the match is over.

    >>> s = RULES.new_state({"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]})
    >>> [e["value"] for e in legal_events(s)]
    [1, 2, 3, 4, 5, 6]
    """
    if state.winner is not None:
        return []
    seat = state.seat
    name = state.players[seat]
    known = state.params.layout is not None
    left = supply(state)
    out: list[JSON] = []
    if state.phase == "roll":
        out = [{"type": "roll", "player": name, "value": v} for v in range(1, 7)]
        if not state.rolled:
            options = swipe_options(state, name)
            for ball, holder in zip(JOKER_SPACES, state.balls, strict=True):
                if holder == seat:
                    out += [
                        {"type": "use-joker", "player": name, "joker": ball, "from": q, "color": c}
                        for q, c in options
                    ]
    elif state.phase == "catch":
        out = [{"type": "catch", "player": name, "success": False}]
        if known:
            out.append({"type": "catch", "player": name, "success": True})
        else:
            out += [
                {"type": "catch", "player": name, "success": True, "color": c}
                for c in COLORS
                if left[c] > 0
            ]
    elif state.phase == "joker":
        out = [{"type": "joker", "player": name, "use": "keep"}]
        out += [
            {"type": "joker", "player": name, "use": "swipe", "from": q, "color": c}
            for q, c in swipe_options(state, name)
        ]
    elif state.phase == "super":
        for space, rod in enumerate(state.board):
            if rod is None:
                continue
            if known:
                out.append({"type": "super-joker", "player": name, "space": space})
            else:
                out += [
                    {"type": "super-joker", "player": name, "space": space, "color": c}
                    for c in COLORS
                    if left[c] > 0
                ]
        out += legal_events(_declined(state))
    return out


# -- rule helpers ----------------------------------------------------------------


def _holds_four(state: State, seat: int) -> bool:
    return (ROW_SIZE - 1) in state.rows[seat]


def _end_turn(state: State) -> State:
    return dataclasses.replace(
        state,
        seat=(state.seat + 1) % len(state.params.players),
        phase="roll",
        rolled=False,
        rolls_left=0,
        three=False,
    )


def _carry_on(state: State) -> State:
    """After anything but a failed catch or a win: roll again if rolls are left, else the
    turn ends (a successful catch, a joker, an empty landing, a declined super joker)."""
    if state.rolls_left > 0:
        return dataclasses.replace(state, phase="roll")
    return _end_turn(state)


def _declined(state: State) -> State:
    """Where an open super-joker choice, declined, leaves the turn.

    In a three-roll turn with rolls left the same player rolls on; otherwise the
    turn ends and the next player's event is what declined it.
    """
    return _carry_on(state)


def _roll_number(state: State) -> int:
    """Which of the three rolls comes next, in a three-roll turn that has rolled."""
    return 3 - state.rolls_left + 1


def _add_rod(
    state: State,
    seat: int,
    color: int,
    board: tuple[str | None, ...] | None = None,
    loser: int | None = None,
) -> State:
    """A rod of ``color`` enters ``seat``'s row (from the board or from ``loser``'s row)."""
    rows = list(state.rows)
    row = list(rows[seat])
    row[color] += 1
    rows[seat] = tuple(row)
    if loser is not None:
        lost = list(rows[loser])
        lost[color] -= 1
        rows[loser] = tuple(lost)
    changes: dict[str, Any] = {"rows": tuple(rows)}
    if board is not None:
        changes["board"] = board
    if row[color] == ROW_SIZE:
        changes["winner"] = seat
        changes["phase"] = "over"
    return dataclasses.replace(state, **changes)


def _list_holdings(state: State, seat: int) -> str:
    held = [f"{c} {n}" for c, n in zip(COLORS, state.rows[seat], strict=True) if n]
    return ", ".join(held) if held else "nothing"


def _check_swipe(state: State, seat: int, source: str, color: str) -> int:
    """The victim's seat for a legal swipe, or :class:`IllegalEvent` saying what is possible."""
    players = state.players
    name = players[seat]
    options = swipe_options(state, name)
    possible = ", ".join(f"{c} from {q}" for q, c in options) or "none"
    if source == name:
        raise IllegalEvent(
            f"{name} cannot swipe from their own station; a swipe takes a rod from an "
            f"opponent (possible swipes: {possible})"
        )
    victim = players.index(source)
    c = _COLOR_INDEX[color]
    if state.rows[victim][c] == 0:
        holds = _list_holdings(state, victim)
        raise IllegalEvent(
            f"{source} has no {color} rod to swipe ({source} holds {holds}); "
            f"possible swipes: {possible}"
        )
    if state.rows[seat][c] >= ROW_SIZE:  # unreachable in play (5 wins), kept as the rule
        raise IllegalEvent(f"{name}'s {color} row is full (a row holds {ROW_SIZE})")
    return victim


def _rod_color(state: State, space: int, given: str | None, what: str) -> int:
    """The colour index of the rod on ``space`` taken by ``what``; checks ``given`` against it."""
    rod = state.board[space]
    if rod is None:  # callers check first; keeps the types honest
        raise IllegalEvent(f"space {space} has no rod")
    if rod != UNKNOWN:
        if given is not None and given != rod:
            raise IllegalEvent(
                f"the rod on space {space} is {rod} (setup 'rods'), not {given}; "
                f"{what} puts it in the {rod} row"
            )
        return _COLOR_INDEX[rod]
    if given is None:  # parse_event requires it without a layout
        raise IllegalEvent(f"{what} needs the rod's 'color' when the layout is unknown")
    left = supply(state)
    if left[given] == 0:
        others = ", ".join(c for c in COLORS if left[c] > 0)
        raise IllegalEvent(
            f"all five {given} rods are already in stations, so the rod on space {space} "
            f"cannot be {given}; it must be one of: {others}"
        )
    return _COLOR_INDEX[given]


def _wrong_phase(state: State, event: Event) -> IllegalEvent:
    """The refusal of an event of the wrong type for where the turn stands."""
    name = state.players[state.seat]
    space = state.ships[state.seat]
    if state.phase == "catch":
        return IllegalEvent(
            f"{name}'s ship is on space {space}, which has a rod: the next event is "
            f"{name}'s 'catch', not '{event.type}'"
        )
    if state.phase == "joker":
        return IllegalEvent(
            f"{name}'s ship is on joker space {space} with ball {space} there: the next event "
            f"is {name}'s 'joker' (keep or swipe), not '{event.type}'"
        )
    again = " again" if state.rolled else ""
    if isinstance(event, UseJoker):
        why = (
            f"'use-joker' is only allowed before the turn's first roll, and {name} has "
            f"already rolled this turn"
        )
    elif isinstance(event, SuperJoker):
        why = (
            "no super joker is on offer: it is offered only when a ship lands on an outer "
            "joker space whose ball is away"
        )
    elif isinstance(event, Joker):
        why = f"{name}'s ship has not landed on an outer joker space with its ball"
    else:
        why = f"{name}'s ship has not landed on a rod"
    return IllegalEvent(f"{why}; {name} is to roll{again}, not '{event.type}'")


# -- the rules -----------------------------------------------------------------------


def _parse_color(raw: RawEvent, required: bool) -> str | None:
    if raw.get("color") is None:
        if required:
            raise MalformedEvent(
                "missing field 'color': without a 'rods' layout in setup, the event must name "
                f"the colour of the rod ({', '.join(COLORS)})"
            )
        return None
    return require_choice(raw, "color", COLORS)


def _require_color(raw: RawEvent) -> str:
    if raw.get("color") is None:
        raise MalformedEvent(f"missing field 'color': the colour swiped ({', '.join(COLORS)})")
    return require_choice(raw, "color", COLORS)


def _parse_layout(setup: RawEvent) -> tuple[str | None, ...]:
    rods = require_mapping(setup, "rods")
    form = (
        "setup 'rods' maps each of the 25 rod spaces (\"2\"-\"6\", \"8\"-\"12\", \"14\"-\"18\", "
        "\"20\"-\"24\", \"26\"-\"30\") to a colour, five of each colour"
    )
    layout: list[str | None] = [None] * (SPACES + 1)
    valid = {str(s): s for s in ROD_SPACES}
    for key, color in rods.items():
        if key in ("1", "7", "13", "19", "25"):
            raise MalformedEvent(f"{form}; {show(key)} is an outer joker space, which holds a ball")
        if key not in valid:
            raise MalformedEvent(f"{form}; got the key {show(key)}")
        if not isinstance(color, str) or color not in _COLOR_INDEX:
            raise MalformedEvent(
                f"setup 'rods' space {key} must be one of {', '.join(COLORS)}, got {show(color)}"
            )
        layout[valid[key]] = color
    missing = [str(s) for s in ROD_SPACES if layout[s] is None]
    if missing:
        raise MalformedEvent(f"{form}; missing space(s) {', '.join(missing)}")
    counts = {c: layout.count(c) for c in COLORS}
    if any(n != ROW_SIZE for n in counts.values()):
        got = ", ".join(f"{c} {n}" for c, n in counts.items())
        raise MalformedEvent(f"{form}; got {got}")
    return tuple(layout)


class CatchMagRules(Rules[State, Event]):
    """The Catch Mag rules as the table log states them."""

    id: ClassVar[str] = "catch-mag"
    title: ClassVar[str] = "Catch Mag"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    event_types: ClassVar[tuple[str, ...]] = ("roll", "catch", "joker", "super-joker", "use-joker")

    def start(self, players: tuple[str, ...], setup: RawEvent) -> State:
        first = 0
        if setup.get("first") is not None:
            first = players.index(require_player(setup, players, "first"))
        layout = None if setup.get("rods") is None else _parse_layout(setup)
        params = Params(players, first, layout)
        board: tuple[str | None, ...] = (
            layout
            if layout is not None
            else tuple(UNKNOWN if s in ROD_SPACES else None for s in range(SPACES + 1))
        )
        n = len(players)
        return State(
            params=params,
            ships=(1,) * n,
            board=board,
            rows=((0,) * len(COLORS),) * n,
            balls=(_ON_BOARD,) * len(JOKER_SPACES),
            seat=first,
        )

    def parse_event(self, raw: RawEvent, state: State) -> Event:
        kind = raw["type"]
        players = state.players
        player = require_player(raw, players)
        unknown = state.params.layout is None
        if kind == "roll":
            return Roll(player, require_int(raw, "value", low=1, high=6))
        if kind == "catch":
            success = require_bool(raw, "success")
            color = _parse_color(raw, required=success and unknown)
            return Catch(player, success, color if success else None)
        if kind == "joker":
            use = require_choice(raw, "use", ("keep", "swipe"))
            if use == "keep":
                return Joker(player, "keep")
            return Joker(player, "swipe", require_player(raw, players, "from"), _require_color(raw))
        if kind == "super-joker":
            space = require_int(raw, "space", low=1, high=SPACES)
            return SuperJoker(player, space, _parse_color(raw, required=unknown))
        # use-joker: the only type left (Rules.play checked the type)
        ball = raw.get("joker")
        if ball is None:
            raise MalformedEvent("missing field 'joker'")
        check_int(ball, "field 'joker'", low=1, high=SPACES)
        if ball not in _JOKER_INDEX:
            raise MalformedEvent(
                f"field 'joker' must be the number of an outer joker ball "
                f"({', '.join(map(str, JOKER_SPACES))}), got {ball}"
            )
        return UseJoker(player, ball, require_player(raw, players, "from"), _require_color(raw))

    def apply(self, state: State, event: Event) -> State:
        if state.phase == "super" and not (
            isinstance(event, SuperJoker) and event.player == state.players[state.seat]
        ):
            # Any other event declines the open super joker; the event is then judged
            # where the decline leaves the turn: the same player's next roll while
            # rolls remain, else the next player's turn.
            name = state.players[state.seat]
            declined = _declined(state)
            try:
                return self._apply(declined, event)
            except IllegalEvent as err:
                if declined.seat == state.seat:
                    how = (
                        f"{name} has {_count(state.rolls_left, 'roll')} left this turn, so "
                        f"next comes {name}'s 'super-joker', or {name}'s roll, which declines it"
                    )
                else:
                    how = (
                        f"any other event than {name}'s 'super-joker' declines it and ends "
                        f"{name}'s turn"
                    )
                raise IllegalEvent(f"{err} ({name}'s super joker choice was open; {how})") from None
        return self._apply(state, event)

    def _apply(self, state: State, event: Event) -> State:
        seat = state.seat
        name = state.players[seat]
        if event.player != name:
            raise IllegalEvent(f"it is {name}'s turn, not {event.player}'s: {expected(state).note}")
        if isinstance(event, Roll):
            if state.phase != "roll":
                raise _wrong_phase(state, event)
            return self._roll(state, event.value)
        if isinstance(event, Catch):
            if state.phase != "catch":
                raise _wrong_phase(state, event)
            if not event.success:  # the poles repel: the turn ends at once
                return _end_turn(state)
            space = state.ships[seat]
            color = _rod_color(state, space, event.color, "the catch")
            board = list(state.board)
            board[space] = None
            return _carry_on_unless_won(_add_rod(state, seat, color, tuple(board)))
        if isinstance(event, Joker):
            if state.phase != "joker":
                raise _wrong_phase(state, event)
            ball = _JOKER_INDEX[state.ships[seat]]
            if event.use == "keep":
                balls = list(state.balls)
                balls[ball] = seat
                return _carry_on(dataclasses.replace(state, balls=tuple(balls)))
            assert event.source is not None and event.color is not None  # parse_event's form
            victim = _check_swipe(state, seat, event.source, event.color)
            after = _add_rod(state, seat, _COLOR_INDEX[event.color], loser=victim)
            return _carry_on_unless_won(after)
        if isinstance(event, SuperJoker):
            if state.phase != "super":
                raise _wrong_phase(state, event)
            space = event.space
            if state.board[space] is None:
                where = ", ".join(map(str, rods_on_board(state)))
                what = (
                    "an outer joker space, which holds no rod"
                    if space in _JOKER_INDEX
                    else "empty (its rod was taken)"
                )
                raise IllegalEvent(
                    f"the super joker takes a rod from the board, but space {space} is {what}; "
                    f"rods remain on spaces {where}"
                )
            color = _rod_color(state, space, event.color, "the super joker")
            board = list(state.board)
            board[space] = None
            return _carry_on_unless_won(_add_rod(state, seat, color, tuple(board)))
        # UseJoker
        if state.phase != "roll" or state.rolled:
            raise _wrong_phase(state, event)
        ball = _JOKER_INDEX[event.joker]
        if state.balls[ball] != seat:
            kept = [str(b) for b, h in zip(JOKER_SPACES, state.balls, strict=True) if h == seat]
            holder = state.balls[ball]
            where = (
                "it is on its space"
                if holder == _ON_BOARD
                else f"{state.players[holder]} keeps it"
            )
            has = f"{name} keeps {', '.join(kept)}" if kept else f"{name} keeps no joker ball"
            raise IllegalEvent(
                f"{name} can only spend a joker ball kept in their home recess, and ball "
                f"{event.joker} is not theirs ({where}); {has}"
            )
        victim = _check_swipe(state, seat, event.source, event.color)
        balls = list(state.balls)
        balls[ball] = _ON_BOARD
        spent = dataclasses.replace(state, balls=tuple(balls))
        return _add_rod(spent, seat, _COLOR_INDEX[event.color], loser=victim)

    def _roll(self, state: State, value: int) -> State:
        seat = state.seat
        if state.rolled:
            three, left = state.three, state.rolls_left - 1
        else:
            three = _holds_four(state, seat)
            left = 2 if three else 0
        space = next_space(state.ships[seat], value)
        moved = list(state.ships)
        moved[seat] = space
        after = dataclasses.replace(
            state, ships=tuple(moved), rolled=True, rolls_left=left, three=three
        )
        if space in _JOKER_INDEX:
            if state.balls[_JOKER_INDEX[space]] == _ON_BOARD:
                return dataclasses.replace(after, phase="joker")
            if any(c is not None for c in state.board):
                return dataclasses.replace(after, phase="super")
            return _carry_on(after)  # ball away and no rod left: nothing to take
        if state.board[space] is not None:
            return dataclasses.replace(after, phase="catch")
        # The rod is gone: nothing to take, so a one-roll turn ends here and a
        # three-roll turn rolls on (the contract's ruling on "three times in a row").
        return _carry_on(after)

    # -- presentation ------------------------------------------------------------

    def describe(self, before: State, event: Event, after: State) -> str:
        if before.phase == "super" and not (
            isinstance(event, SuperJoker) and event.player == before.players[before.seat]
        ):
            mid = _declined(before)
            name = before.players[before.seat]
            how = "rolls on" if mid.seat == before.seat else "turn ends"
            return f"{name} declines super joker {before.ships[before.seat]}, {how}; " + (
                self.describe(mid, event, after)
            )
        seat = before.seat
        name = before.players[seat]
        if isinstance(event, Roll):
            return self._describe_roll(before, event, after)
        if isinstance(event, Catch):
            space = before.ships[seat]
            if not event.success:
                return (
                    f"{name}'s catch on space {space} fails (the poles repel): "
                    f"turn passes to {after.turn}"
                )
            color = _gained(before, after, seat)
            return (
                f"{name} catches the {color} rod on space {space}: "
                f"{_row_text(after, seat, color)}{_tail(before, after, color)}"
            )
        if isinstance(event, Joker):
            ball = before.ships[seat]
            if event.use == "keep":
                return f"{name} keeps joker ball {ball} in home recess {ball}" + _tail(
                    before, after, None
                )
            color = event.color or ""
            return (
                f"{name} swipes a {color} rod from {event.source} with joker ball {ball} "
                f"(ball back on space {ball}): {_swipe_text(after, seat, event.source or '')}"
                f"{_tail(before, after, color)}"
            )
        if isinstance(event, SuperJoker):
            arm = before.ships[seat]
            color = _gained(before, after, seat)
            return (
                f"{name} uses super joker {arm} to take the {color} rod on space {event.space} "
                f"(super joker back in the galaxy): {_row_text(after, seat, color)}"
                f"{_tail(before, after, color)}"
            )
        return (
            f"{name} spends kept joker ball {event.joker} to swipe a {event.color} rod from "
            f"{event.source} (ball back on space {event.joker}): "
            f"{_swipe_text(after, seat, event.source)}{_tail(before, after, event.color)}"
        )

    def _describe_roll(self, before: State, event: Roll, after: State) -> str:
        seat = before.seat
        name = before.players[seat]
        if before.rolled:
            nth = f" (roll {_roll_number(before)} of 3)"
        else:
            nth = " (roll 1 of 3: four of a colour)" if _holds_four(before, seat) else ""
        old, space = before.ships[seat], after.ships[seat]
        head = f"{name} rolls {event.value}{nth}: ship {old} -> {space}, "
        passes = _next_step(before, after)
        if space in _JOKER_INDEX:
            holder = before.balls[_JOKER_INDEX[space]]
            if holder == _ON_BOARD:
                return head + f"joker space {space} with ball {space}: keep or swipe next"
            keeper = before.players[holder]
            if after.phase == "super":
                return (
                    head + f"joker space {space}, ball {space} is kept by {keeper}: "
                    f"super joker {space} on offer"
                )
            return (
                head + f"joker space {space}, ball {space} is kept by {keeper} and no rod is "
                f"left for the super joker: {passes}"
            )
        rod = before.board[space]
        if rod is None:
            return head + f"space {space} is empty (rod taken): {passes}"
        what = "a rod" if rod == UNKNOWN else f"the {rod} rod"
        return head + f"{what} on space {space}: catch next"

    def extras(self, state: State) -> JSON:
        exp = expected(state)
        return {
            "ships": ships(state),
            "rows": rows(state),
            "kept_jokers": kept_jokers(state),
            "board": {str(s): c for s, c in rods_on_board(state).items()},
            "rods_on_board": sum(1 for c in state.board if c is not None),
            "balls_on_board": balls_on_board(state),
            "layout_known": state.params.layout is not None,
            "first": state.players[state.params.first],
            "pending": pending(state),
            "rolls_left": rolls_left(state),
            "three_rolls": (
                False if state.finished else state.three if state.rolled else rolls_left(state) == 3
            ),
            "expected": exp.note,
        }

    # -- random play -----------------------------------------------------------------

    def random_event(self, state: State, rng: random.Random) -> JSON:
        seat = state.seat
        name = state.players[seat]
        if state.phase == "super":
            # Decline now and then (more often when the player rolls on, so playouts
            # exercise that too); the next event in the declined state does it.
            if rng.random() < (0.5 if state.rolls_left > 0 else 0.2):
                return self.random_event(_declined(state), rng)
            spaces = list(rods_on_board(state))
            space = _favourite_space(state, seat, spaces, rng)
            event: JSON = {"type": "super-joker", "player": name, "space": space}
            return event | _random_color(state, space, rng)
        if state.phase == "roll":
            # Kept balls are spent now and then, not at once: a ball away is what
            # offers the super joker.
            if not state.rolled and seat in state.balls and rng.random() < 0.3:
                options = swipe_options(state, name)
                if options:
                    balls = [b for b, h in zip(JOKER_SPACES, state.balls, strict=True) if h == seat]
                    source, color = _pick_swipe(state, seat, options, rng)
                    return {
                        "type": "use-joker",
                        "player": name,
                        "joker": rng.choice(balls),
                        "from": source,
                        "color": color,
                    }
            return {"type": "roll", "player": name, "value": rng.randint(1, 6)}
        if state.phase == "catch":
            if rng.random() < 0.5:
                return {"type": "catch", "player": name, "success": False}
            event = {"type": "catch", "player": name, "success": True}
            return event | _random_color(state, state.ships[seat], rng)
        # joker
        options = swipe_options(state, name)
        if options and rng.random() < 0.5:
            source, color = _pick_swipe(state, seat, options, rng)
            return {"type": "joker", "player": name, "use": "swipe", "from": source, "color": color}
        return {"type": "joker", "player": name, "use": "keep"}


def _carry_on_unless_won(state: State) -> State:
    return state if state.winner is not None else _carry_on(state)


def _gained(before: State, after: State, seat: int) -> str:
    """The colour of the row that grew for ``seat`` between two states."""
    for i, (b, a) in enumerate(zip(before.rows[seat], after.rows[seat], strict=True)):
        if a > b:
            return COLORS[i]
    return "?"  # pragma: no cover - describe is only called on applied events


def _row_text(state: State, seat: int, color: str) -> str:
    n = state.rows[seat][_COLOR_INDEX[color]]
    return f"{color} row {n}/{ROW_SIZE}, {state.players[seat]} {sum(state.rows[seat])} (+1)"


def _swipe_text(after: State, seat: int, source: str) -> str:
    """The two stations' new totals after a swipe."""
    victim = after.players.index(source)
    return (
        f"{after.players[seat]} {sum(after.rows[seat])} (+1), "
        f"{after.players[victim]} {sum(after.rows[victim])} (-1)"
    )


def _tail(before: State, after: State, color: str | None) -> str:
    """How the event leaves the turn: a win, another roll, or the next player."""
    name = before.players[before.seat]
    if after.winner is not None:
        return f"; five {color}: {name} wins"
    if after.seat != before.seat:
        return f"; turn passes to {after.turn}"
    if after.rolled:
        return f"; {name} rolls again (roll {_roll_number(after)} of 3)"
    return f"; {name} to roll"


def _next_step(before: State, after: State) -> str:
    """After a landing with nothing to take: who rolls next."""
    if after.seat != before.seat:
        return f"turn passes to {after.turn}"
    return f"{after.players[after.seat]} rolls again (roll {_roll_number(after)} of 3)"


def _random_color(state: State, space: int, rng: random.Random) -> JSON:
    """The ``color`` field for taking the rod on ``space``: drawn from the hidden supply if unknown.

    With a layout the colour is optional; it is sent now and then so both forms are exercised.
    """
    rod = state.board[space]
    if rod != UNKNOWN:
        return {"color": rod} if rng.random() < 0.3 else {}
    left = supply(state)
    # Each unseen rod is equally likely, so a colour's chance is its share of the supply.
    return {"color": rng.choices(COLORS, weights=[left[c] for c in COLORS])[0]}


def _pick_swipe(
    state: State, seat: int, options: list[tuple[str, str]], rng: random.Random
) -> tuple[str, str]:
    """Mostly the swipe that builds the player's longest row, so playouts head for a win."""
    if rng.random() < 0.3:
        return rng.choice(options)
    own = state.rows[seat]
    best = max(own[_COLOR_INDEX[c]] for _, c in options)
    return rng.choice([o for o in options if own[_COLOR_INDEX[o[1]]] == best])


def _favourite_space(state: State, seat: int, spaces: list[int], rng: random.Random) -> int:
    """A super-joker target: mostly a rod of the player's longest row when the layout shows it."""
    if state.params.layout is None or rng.random() < 0.3:
        return rng.choice(spaces)
    own = state.rows[seat]
    best = max(own[_COLOR_INDEX[state.board[s] or COLORS[0]]] for s in spaces)
    return rng.choice([s for s in spaces if own[_COLOR_INDEX[state.board[s] or COLORS[0]]] == best])


def random_setup(rng: random.Random, players: list[str]) -> JSON:
    """A valid random ``setup``: sometimes a first player, sometimes a known rod layout.

    >>> setup = random_setup(random.Random(1), ["Ann", "Ben"])
    >>> RULES.new_state(setup).players
    ('Ann', 'Ben')
    """
    setup: JSON = {"type": "setup", "game": CatchMagRules.id, "players": list(players)}
    if rng.random() < 0.5:
        setup["first"] = rng.choice(players)
    if rng.random() < 0.5:
        colors = [c for c in COLORS for _ in range(ROW_SIZE)]
        rng.shuffle(colors)
        setup["rods"] = {str(s): c for s, c in zip(ROD_SPACES, colors, strict=True)}
    return setup


RULES: Final = CatchMagRules()
