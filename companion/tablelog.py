"""The table log: the file form of a match (JSON Lines, one event per line).

Reading keeps each event's line number, so every error names the line a
person has to look at. Blank lines and lines starting with ``#`` are skipped.

>>> text = '''# a short game
... {"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]}
... {"type": "roll", "player": "Ann", "value": 7}
... '''
>>> replay_text(text)
Traceback (most recent call last):
...
companion.tablelog.LogError: line 3: field 'value' must be a whole number from 1 to 6, got 7
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from companion import strictjson
from companion.games.errors import TableEventError
from companion.games.fields import JSON
from companion.games.match import Match


class LogError(ValueError):
    """A table log could not be read or replayed; ``line`` is 1-based."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass(frozen=True)
class LogLine:
    """One event of a log and the line it stands on."""

    number: int
    event: JSON


def parse_lines(lines: Iterable[str | bytes]) -> Iterator[LogLine]:
    """The events of a log, each with its line number; :class:`LogError` on a bad line."""
    for number, line in enumerate(lines, start=1):
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError:
                raise LogError(number, "the line is not valid UTF-8 text") from None
        if number == 1:
            line = line.removeprefix("\ufeff")  # a byte-order mark some editors write
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            value = strictjson.loads(stripped)
        except strictjson.StrictJSONError as err:
            raise LogError(number, f"{err}; expected one JSON object per line") from None
        if not isinstance(value, dict):
            raise LogError(number, f"expected a JSON object for an event, got {type_name(value)}")
        yield LogLine(number, value)


def type_name(value: object) -> str:
    """The JSON name of a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def apply_line(match: Match | None, entry: LogLine) -> Match:
    """Apply one log line: the setup starts a match, any other event is pushed onto it.

    Returns the match (new or the same one); :class:`LogError` naming the line otherwise.
    """
    try:
        if match is None:
            return Match(entry.event)
        match.push(entry.event)
        return match
    except TableEventError as err:
        raise LogError(entry.number, str(err)) from None
    except Exception as err:  # an engine bug must still not lose the line number
        raise LogError(
            entry.number,
            f"internal error while applying this event ({type(err).__name__}: {err}); "
            "please report it with the log",
        ) from err


def replay(lines: Iterable[str | bytes]) -> Match:
    """Replay a whole log into a :class:`Match`; :class:`LogError` on the first bad line."""
    match: Match | None = None
    for entry in parse_lines(lines):
        match = apply_line(match, entry)
    if match is None:
        raise no_events()
    return match


def no_events() -> LogError:
    """The error for a log with nothing but blank and comment lines (reported at line 1)."""
    return LogError(1, "the log has no events; it must start with a 'setup' event")


def replay_text(text: str) -> Match:
    """Replay a log given as one string."""
    return replay(text.splitlines())


def dump(events: Iterable[JSON]) -> str:
    """A table log's text for events (setup first): one compact JSON object per line."""
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events)
