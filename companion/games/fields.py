"""Validated reading of event fields.

Every engine reads its events' raw JSON objects through these helpers, so a
wrong type or a missing field always produces the same kind of message:
what was wrong, and what was expected.

>>> require_int({"value": 4}, "value", low=1, high=6)
4
>>> require_int({"value": 9}, "value", low=1, high=6)
Traceback (most recent call last):
...
companion.games.errors.MalformedEvent: field 'value' must be a whole number from 1 to 6, got 9
>>> require_player({"player": "Zed"}, ("Ann", "Ben"))
Traceback (most recent call last):
...
companion.games.errors.MalformedEvent: field 'player' must be one of the seated players (Ann, ...
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from companion.games.errors import MalformedEvent

RawEvent = Mapping[str, Any]
"""An event as it stands in a table log: one JSON object."""

JSON = dict[str, Any]


def show(value: object) -> str:
    """A short JSON rendering of a value for error messages."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def require_object(raw: object) -> RawEvent:
    """The event itself must be a JSON object."""
    if not isinstance(raw, Mapping):
        raise MalformedEvent(f"an event must be a JSON object, got {show(raw)}")
    return raw


def _field(raw: RawEvent, key: str) -> Any:
    if key not in raw or raw[key] is None:
        raise MalformedEvent(f"missing field '{key}'")
    return raw[key]


def require_int(raw: RawEvent, key: str, *, low: int | None = None, high: int | None = None) -> int:
    value = _field(raw, key)
    return check_int(value, f"field '{key}'", low=low, high=high)


def check_int(value: object, what: str, *, low: int | None = None, high: int | None = None) -> int:
    """Check that ``value`` is a whole number (not a bool) within the bounds."""
    if low is not None and high is not None:
        expected = f"a whole number from {low} to {high}"
    elif low is not None:
        expected = f"a whole number of at least {low}"
    elif high is not None:
        expected = f"a whole number of at most {high}"
    else:
        expected = "a whole number"
    if isinstance(value, bool) or not isinstance(value, int):
        raise MalformedEvent(f"{what} must be {expected}, got {show(value)}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise MalformedEvent(f"{what} must be {expected}, got {value}")
    return value


def require_bool(raw: RawEvent, key: str) -> bool:
    value = _field(raw, key)
    if not isinstance(value, bool):
        raise MalformedEvent(f"field '{key}' must be true or false, got {show(value)}")
    return value


def require_list(raw: RawEvent, key: str) -> list[Any]:
    value = _field(raw, key)
    if not isinstance(value, list):
        raise MalformedEvent(f"field '{key}' must be a list, got {show(value)}")
    return value


def optional_list(raw: RawEvent, key: str) -> list[Any]:
    """A list field that may be missing or null (then empty)."""
    if raw.get(key) is None:
        return []
    return require_list(raw, key)


def require_mapping(raw: RawEvent, key: str) -> Mapping[str, Any]:
    value = _field(raw, key)
    if not isinstance(value, Mapping):
        raise MalformedEvent(f"field '{key}' must be a JSON object, got {show(value)}")
    return value


def require_choice(raw: RawEvent, key: str, choices: Sequence[str]) -> str:
    value = _field(raw, key)
    if not isinstance(value, str) or value not in choices:
        raise MalformedEvent(
            f"field '{key}' must be one of {', '.join(choices)}, got {show(value)}"
        )
    return value


def require_player(raw: RawEvent, players: Collection[str], key: str = "player") -> str:
    value = _field(raw, key)
    if not isinstance(value, str) or value not in players:
        raise MalformedEvent(
            f"field '{key}' must be one of the seated players ({', '.join(players)}), "
            f"got {show(value)}"
        )
    return value


def require_type(raw: RawEvent, known: Sequence[str], game_title: str) -> str:
    """The event's ``type``, which must be one this game knows."""
    value = raw.get("type")
    if not isinstance(value, str):
        raise MalformedEvent(
            f"every event needs a string field 'type' (one of {', '.join(known)}), "
            f"got {show(value)}"
        )
    if value not in known:
        raise MalformedEvent(
            f"unknown event type {show(value)} for {game_title}; expected one of "
            f"{', '.join(known)}"
        )
    return value
