"""Which fields each table event may carry, game by game.

The rules engines read the fields they need and ignore the rest, as the table-log
contract asks of ``companion replay``. The service is stricter about what it *keeps*:
an event entered through the API may carry only its game's fields for its type, plus
one optional free-text ``note`` (at most :data:`MAX_NOTE` characters, for "recounted
after the cat jumped on the table"). So nothing unbounded or unforeseen is ever
written to the journal or sent to every phone. A table log imported from another
tool keeps the contract: its unknown fields are ignored (left out, and listed).

>>> check_fields({"type": "roll", "player": "Ann", "value": 3, "note": "a re-roll"},
...              "catch-mag")
>>> check_fields({"type": "roll", "player": "Ann", "value": 3, "x": [[1]]}, "catch-mag")
Traceback (most recent call last):
...
companion.games.errors.MalformedEvent: unknown field 'x' in a 'roll' event; a Catch Mag ...
>>> known_fields({"type": "draw", "player": "Ann", "seen_by": "camera"}, "star-plus")
({'type': 'draw', 'player': 'Ann'}, ['seen_by'])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion import strictjson
from companion.games.errors import MalformedEvent

JSON = dict[str, Any]

MAX_NOTE = 200
"""Characters of free text an event may carry in ``note``."""

COMMON = frozenset({"type", "note"})

SETUP_FIELDS: Mapping[str, frozenset[str]] = {
    "star-catcher": frozenset({"game", "players", "dealer"}),
    "star-plus": frozenset({"game", "players", "first"}),
    "catch-mag": frozenset({"game", "players", "first", "rods"}),
    "cant-catch-harry": frozenset({"game", "players", "youngest", "figurines", "two_decks"}),
    "collector": frozenset({"game", "players", "targets", "first"}),
}
"""The ``setup`` event's fields: the game, the players and the game's options."""

EVENT_FIELDS: Mapping[str, Mapping[str, frozenset[str]]] = {
    "star-catcher": {
        "table": frozenset({"cards"}),
        "play": frozenset({"player", "card", "take"}),
    },
    "star-plus": {
        "play": frozenset({"player", "cards"}),
        "draw": frozenset({"player"}),
    },
    "catch-mag": {
        "roll": frozenset({"player", "value"}),
        "catch": frozenset({"player", "success", "color"}),
        "joker": frozenset({"player", "use", "from", "color"}),
        "super-joker": frozenset({"player", "space", "color"}),
        "use-joker": frozenset({"player", "joker", "from", "color"}),
    },
    "cant-catch-harry": {
        "round": frozenset({"hands", "moths"}),
    },
    "collector": {
        "play": frozenset({"player", "target", "card", "second", "flip", "refill", "aces"}),
        "reveal": frozenset({"hands"}),
    },
}
"""Each event type's own fields (besides ``type`` and ``note``), game by game."""

_TITLES = {"star-catcher": "Star Catcher", "star-plus": "Star Plus", "catch-mag": "Catch Mag",
           "cant-catch-harry": "Can't Catch Harry", "collector": "Collector"}


def allowed(event: Mapping[str, Any], game: object) -> frozenset[str] | None:
    """The fields ``event`` may have, or ``None`` when its game or type is unknown (the
    rules engine then refuses it with its own message)."""
    kind = event.get("type")
    if not isinstance(game, str) or not isinstance(kind, str):
        return None
    own = SETUP_FIELDS.get(game) if kind == "setup" else EVENT_FIELDS.get(game, {}).get(kind)
    return None if own is None else own | COMMON


def _check_note(event: Mapping[str, Any]) -> None:
    note = event.get("note")
    if note is not None and (not isinstance(note, str) or len(note) > MAX_NOTE):
        shown = f"{len(note)} characters" if isinstance(note, str) else type(note).__name__
        raise MalformedEvent(
            f"field 'note' must be text of at most {MAX_NOTE} characters, got {shown}"
        )


def check_fields(event: Mapping[str, Any], game: object) -> None:
    """Refuse an event with a field its type does not have, or a bad ``note``."""
    fields = allowed(event, game)
    if fields is None:
        return
    unknown = sorted(k for k in event if k not in fields)
    if unknown:
        own = sorted(fields - COMMON)
        raise MalformedEvent(
            f"unknown field {unknown[0]!r} in a {event['type']!r} event; a "
            f"{_TITLES.get(str(game), game)} {event['type']!r} has {', '.join(own)} "
            "(and an optional 'note')"
        )
    _check_note(event)


def known_fields(event: JSON, game: object) -> tuple[JSON, list[str]]:
    """The event without the fields its type does not have (and without a bad ``note``),
    and the names left out: how an imported log or an older journal is read."""
    fields = allowed(event, game)
    if fields is None:  # an unknown game or type: kept if a phone can be sent it
        try:
            strictjson.loads(strictjson.dumps(event))
        except (ValueError, RecursionError):
            kind = event.get("type")
            return ({"type": kind} if isinstance(kind, str) else {}), ["unreadable"]
        return event, []
    kept = {k: v for k, v in event.items() if k in fields}
    dropped = [k for k in event if k not in fields]
    try:
        _check_note(kept)
    except MalformedEvent:
        del kept["note"]
        dropped.append("note")
    return kept, dropped
