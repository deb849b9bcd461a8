"""Hand movements for Catch Mag table events: what a person does on the board for each event.

The simulator, the demo (``make run``), the benchmarks and the tests use
these to play a table log on the sensors: :func:`hand_moves` turns one event
into steps for :func:`hardware.simulated.run_script`, and :func:`sensor_changes`
turns steps into the :class:`~hardware.sources.SensorChange` values a perfect
board would report.

>>> from companion.games.catch_mag import RULES
>>> s = RULES.new_state({"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]})
>>> _, s = RULES.play(s, {"type": "roll", "player": "Ann", "value": 4})
>>> hand_moves({"type": "catch", "player": "Ann", "success": True, "color": "red"}, s)
[('lift-mag',), ('move', 'U5', 'S1.red.1'), ('return-mag',)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from companion.games.catch_mag import JOKER_SPACES, State, kept_jokers, rods_on_board, rows
from hardware.sources import SensorChange

Step = tuple[str, ...]
TRY_S = 1.0
"""How long a failed try keeps the Catch Mag off its rest: carried to the rod, the poles
repel, carried back (the interpreter takes anything under 0.55 s for a re-grip)."""


def _station(state: State, player: str, stations: Mapping[str, int] | None) -> int:
    return stations[player] if stations is not None else state.players.index(player) + 1


def hand_moves(event: Mapping[str, Any], state: State,
               stations: Mapping[str, int] | None = None) -> list[Step]:
    """The hand movements that make the board show ``event`` (``[]`` for phone-only events).

    ``state`` is the state before the event. A catch without ``color`` needs a
    known layout (the rod's colour is read from it).
    """
    kind = event.get("type")
    player = str(event.get("player"))
    if kind not in ("catch", "joker", "super-joker", "use-joker"):
        return []  # rolls come from the phone; declining a super joker moves nothing
    if kind == "super-joker" and state.turn != player:
        return []
    st = _station(state, player, stations)
    seat = state.players.index(player)
    ship = state.ships[seat]
    have = rows(state)[player]

    def into_row(color: str) -> str:
        return f"S{st}.{color}.{have[color] + 1}"

    def out_of_row(victim: str, color: str) -> str:
        return f"S{_station(state, victim, stations)}.{color}.{rows(state)[victim][color]}"

    if kind == "catch":
        if not event.get("success"):
            return [("lift-mag",), ("try",), ("return-mag",)]
        color = str(event.get("color") or rods_on_board(state)[ship])
        return [("lift-mag",), ("move", f"U{ship}", into_row(color)), ("return-mag",)]
    if kind == "joker":
        if event.get("use") == "keep":
            return [("lift-mag",), ("move", f"U{ship}", f"S{st}.J{ship}"), ("return-mag",)]
        color, victim = str(event["color"]), str(event["from"])
        return [("lift-mag",), ("lift", f"U{ship}"),
                ("move", out_of_row(victim, color), into_row(color)),
                ("place", f"U{ship}"), ("return-mag",)]
    if kind == "super-joker":
        space = int(event["space"])
        color = str(event.get("color") or rods_on_board(state)[space])
        arm = f"G{JOKER_SPACES.index(ship) + 1}"
        return [("lift-mag",), ("lift", arm), ("move", f"U{space}", into_row(color)),
                ("place", arm), ("return-mag",)]
    joker = int(event["joker"])
    assert joker in kept_jokers(state)[player], "use-joker needs a kept ball"
    color, victim = str(event["color"]), str(event["from"])
    return [("lift-mag",), ("lift", f"S{st}.J{joker}"),
            ("move", out_of_row(victim, color), into_row(color)),
            ("place", f"U{joker}"), ("return-mag",)]


def sensor_changes(steps: Iterable[Step], start: float = 0.0,
                   spacing: float = 0.05) -> list[SensorChange]:
    """The changes a perfect board reports for ``steps``, ``spacing`` seconds apart."""
    out: list[SensorChange] = []
    at = start

    def add(sensor_id: str, present: bool) -> None:
        nonlocal at
        at += spacing
        out.append(SensorChange(sensor_id, present, at))

    for step in steps:
        action = step[0]
        if action == "move":
            add(step[1], False)
            add(step[2], True)
        elif action in ("lift", "place"):
            add(step[1], action == "place")
        elif action == "lift-mag":
            add("REST", False)
        elif action == "return-mag":
            add("REST", True)
        elif action == "lift-back":
            add(step[1], False)
            add(step[1], True)
        elif action == "try":
            at += TRY_S
        elif action not in ("settle", "wobble"):  # a wobble is shorter than the debounce
            raise ValueError(f"unknown step {action!r}; expected move, lift, place, lift-mag, "
                             "return-mag, lift-back, try, wobble or settle")
    return out
