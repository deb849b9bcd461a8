"""The live table as the fold of its journal: matches, their events, corrections.

Pure: no I/O, no clock. :class:`TableSession` answers two kinds of question:

* ``check_*``: would this change be accepted? (raises a :class:`ValueError`
  subclass with a plain message, changes nothing);
* :meth:`TableSession.apply`: fold one committed journal record in.

The service checks, commits the record to SQLite, then applies it, so the
live table is always exactly the fold of what is on disk.

A correction (edit or delete of an earlier event) replays the match from its
setup. An event that the correction made illegal is *flagged*: it stays in
the list with the reason, is skipped by the rules, and can itself be edited
or deleted. Nothing is silently dropped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from companion import strictjson
from companion.games import GAME_IDS, rules_for
from companion.games.errors import IllegalEvent, MalformedEvent, TableEventError
from companion.games.match import Match
from companion.service.schema import check_fields, known_fields
from companion.service.store import JournalRecord

JSON = dict[str, Any]

MAX_IMPORT_LINES = 20_000
MAX_NAME = 24


class SessionError(ValueError):
    """A table operation was refused; nothing changed."""


class NotFound(SessionError):
    """The match or event named does not exist."""


class Conflict(SessionError):
    """The operation does not fit the table as it is now (nothing to undo, no match)."""


@dataclass(frozen=True)
class Entry:
    """One event of a match as the table recorded it.

    ``id`` is the sequence number of the journal record that added it, so it
    stays the same when earlier events are corrected. ``error`` is set when
    the event is flagged (illegal after a correction); ``text`` is the human
    line for it.
    """

    id: int
    event: JSON
    actor: str
    at: str
    text: str = ""
    error: str | None = None

    def to_json(self) -> JSON:
        return {
            "id": self.id,
            "event": self.event,
            "actor": self.actor,
            "at": self.at,
            "text": self.text,
            "flagged": self.error is not None,
            "error": self.error,
        }


def _engine_failure(exc: Exception) -> str:
    return f"the rules engine could not judge this event ({type(exc).__name__}: {exc})"


def _push(match: Match, event: JSON) -> str:
    """Push one event and describe it; any refusal becomes a :class:`TableEventError`."""
    try:
        match.push(event)
    except TableEventError:
        raise
    except Exception as exc:  # an engine bug must not take the table down
        raise IllegalEvent(_engine_failure(exc)) from exc
    try:
        return match.describe_last()
    except Exception:
        return str(event.get("type", "event"))


def new_match(setup: JSON) -> Match:
    """A match from its setup; an unknown or missing engine is a plain refusal."""
    try:
        return Match(setup)
    except TableEventError:
        raise
    except ImportError:
        raise MalformedEvent(
            f"the rules for {setup.get('game')!r} are not installed on this companion"
        ) from None
    except Exception as exc:
        raise MalformedEvent(_engine_failure(exc)) from exc


def replay(setup: JSON, entries: list[Entry]) -> tuple[Match, list[Entry]]:
    """Refold a match; entries that are illegal now come back flagged."""
    match = new_match(setup)
    out: list[Entry] = []
    for entry in entries:
        try:
            text = _push(match, entry.event)
        except TableEventError as exc:
            out.append(replace(entry, error=str(exc), text=str(exc)))
        else:
            out.append(replace(entry, error=None, text=text))
    return match, out


class MatchRecord:
    """One match at the table: its setup, its recorded entries and their fold."""

    def __init__(self, match_id: int, setup: JSON, actor: str, at: str, imported: bool) -> None:
        self.id = match_id
        self.setup = setup
        self.actor = actor
        self.at = at
        self.imported = imported
        self.entries: list[Entry] = []
        self.error: str | None = None
        self.match: Match | None
        try:
            self.match = new_match(setup)
        except TableEventError as exc:
            # Kept so its history stays visible (e.g. an engine missing after an update).
            self.match = None
            self.error = str(exc)

    def recompute(self) -> None:
        if self.match is None:
            return
        self.match, self.entries = replay(self.setup, self.entries)

    def index_of(self, entry_id: int) -> int:
        for i, entry in enumerate(self.entries):
            if entry.id == entry_id:
                return i
        raise NotFound(f"match {self.id} has no event {entry_id}")

    def summary(self) -> JSON:
        if self.match is None:
            return {"game": self.setup.get("game"), "players": self.setup.get("players", []),
                    "round": 1, "turn": None, "totals": {}, "finished": False, "winners": [],
                    "rounds": []}
        try:
            return self.match.summary()
        except Exception as exc:
            self.error = _engine_failure(exc)
            return {"game": self.match.rules.id, "players": list(self.match.players),
                    "round": 1, "turn": None, "totals": {}, "finished": False, "winners": [],
                    "rounds": []}

    @property
    def title(self) -> str:
        return self.match.rules.title if self.match is not None else str(self.setup.get("game"))

    def item(self) -> JSON:
        """The short form for the list of matches."""
        summary = self.summary()
        return {
            "id": self.id,
            "game": self.setup.get("game"),
            "title": self.title,
            "players": summary.get("players", []),
            "round": summary.get("round"),
            "finished": summary.get("finished", False),
            "winners": summary.get("winners", []),
            "totals": summary.get("totals", {}),
            "events": len(self.entries),
            "flagged": sum(1 for e in self.entries if e.error is not None),
            "at": self.at,
            "imported": self.imported,
        }

    def view(self) -> JSON:
        """Everything a phone shows for this match."""
        return self.item() | {
            "setup": self.setup,
            "error": self.error,
            "summary": self.summary(),
            "entries": [e.to_json() for e in self.entries],
        }

    def log(self) -> list[JSON]:
        """The table log: setup and the events the rules accepted, in order."""
        return [self.setup, *(e.event for e in self.entries if e.error is None)]


def _require_event(value: object) -> JSON:
    if not isinstance(value, dict):
        raise MalformedEvent(f"an event must be a JSON object, got {json.dumps(value)[:60]}")
    return value


def parse_log(text: str) -> list[JSON]:
    """Read a table log (JSON Lines; blank and ``#`` lines ignored) and check it in full.

    >>> parse_log('{"type": "setup", "game": "x", "players": ["A", "B"]}\\n# note\\n')[0]["game"]
    'x'
    >>> parse_log('{"type": "setup"}\\nnot json')
    Traceback (most recent call last):
    ...
    companion.games.errors.MalformedEvent: line 2: not valid JSON (Expecting value ...); ...
    """
    events: list[JSON] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if number > MAX_IMPORT_LINES:
            raise MalformedEvent(f"a table log may have at most {MAX_IMPORT_LINES} lines")
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            value = strictjson.loads(stripped)
        except strictjson.StrictJSONError as exc:
            raise MalformedEvent(f"line {number}: {exc}; expected one JSON object") from None
        if not isinstance(value, dict):
            raise MalformedEvent(f"line {number}: each line must be one JSON object")
        value["__line"] = number
        events.append(value)
    if not events:
        raise MalformedEvent("the log is empty; it must start with a 'setup' event")
    return events


def check_names(setup: JSON) -> None:
    """Player names as short as a phone can show (:data:`MAX_NAME` characters)."""
    players = setup.get("players")
    if isinstance(players, list) and any(
        isinstance(p, str) and len(p) > MAX_NAME for p in players
    ):
        raise MalformedEvent(f"player names must be at most {MAX_NAME} characters")


def check_log(text: str) -> tuple[JSON, list[JSON], list[str]]:
    """The setup and events of a log, every one validated by the rules, and the
    unknown fields left out (``line N: 'field'``: the contract ignores them).

    Errors name the line: ``line N: ...``.
    """
    lines = parse_log(text)
    numbered = [(int(e.pop("__line")), e) for e in lines]
    first_line, raw_setup = numbered[0]
    game = raw_setup.get("game")
    ignored: list[str] = []

    def keep(number: int, event: JSON) -> JSON:
        kept, dropped = known_fields(event, game)
        ignored.extend(f"line {number}: {name!r}" for name in dropped)
        return kept

    setup = keep(first_line, raw_setup)
    try:
        check_names(setup)
        match = new_match(setup)
    except TableEventError as exc:
        raise MalformedEvent(f"line {first_line}: {exc}") from None
    events: list[JSON] = []
    for number, raw in numbered[1:]:
        event = keep(number, raw)
        try:
            _push(match, event)
        except TableEventError as exc:
            raise type(exc)(f"line {number}: {exc}") from None
        events.append(event)
    return setup, events, ignored


class TableSession:
    """The fold of a table's journal."""

    def __init__(self) -> None:
        self.seq = 0
        self.matches: dict[int, MatchRecord] = {}
        self.current: int | None = None

    # -- queries ------------------------------------------------------------

    def match(self, match_id: int | None = None) -> MatchRecord:
        """The match with this id, or the current one."""
        if match_id is None:
            if self.current is None:
                raise Conflict("no match has been started at this table yet; start one first")
            return self.matches[self.current]
        try:
            return self.matches[match_id]
        except KeyError:
            raise NotFound(f"there is no match {match_id} at this table") from None

    @property
    def players(self) -> list[str]:
        if self.current is None:
            return []
        players = self.matches[self.current].setup.get("players")
        return list(players) if isinstance(players, list) else []

    # -- checks (change nothing) ----------------------------------------------

    def check_setup(self, setup: object) -> JSON:
        """A valid ``setup`` event for a new match (players default to the table's)."""
        raw = dict(_require_event(setup))
        raw.setdefault("type", "setup")
        if "players" not in raw and self.players:
            raw["players"] = self.players
        check_names(raw)
        if raw.get("game") not in GAME_IDS:
            rules_for(raw.get("game"))  # raises the plain "unknown game" message
        check_fields(raw, raw.get("game"))
        new_match(raw)
        return raw

    def check_event(self, event: object, match_id: int | None = None) -> str:
        """The human line the event would get; raises if the rules refuse it."""
        record = self.match(match_id)
        raw = _require_event(event)
        if record.match is None:
            raise Conflict(f"match {record.id} cannot take events: {record.error}")
        check_fields(raw, record.setup.get("game"))
        text = _push(record.match, raw)
        record.match.pop()
        return text

    def check_undo(self, match_id: int | None = None) -> int:
        """The id of the entry an undo would remove."""
        record = self.match(match_id)
        if not record.entries:
            raise Conflict("nothing to undo: no event has been entered in this match")
        return record.entries[-1].id

    def check_edit(self, match_id: int, entry_id: int, event: object) -> list[int]:
        """Ids of the later entries the edit would flag; raises if the edit itself is refused."""
        record = self.match(match_id)
        raw = _require_event(event)
        check_fields(raw, record.setup.get("game"))
        index = record.index_of(entry_id)
        if record.match is None:
            raise Conflict(f"match {record.id} cannot be corrected: {record.error}")
        trial = list(record.entries)
        trial[index] = replace(trial[index], event=raw)
        _, result = replay(record.setup, trial)
        if result[index].error is not None:
            raise IllegalEvent(f"the corrected event is refused: {result[index].error}")
        return [e.id for e in result[index + 1:] if e.error is not None]

    def check_delete(self, match_id: int, entry_id: int) -> list[int]:
        """Ids of the later entries the deletion would flag."""
        record = self.match(match_id)
        index = record.index_of(entry_id)
        trial = record.entries[:index] + record.entries[index + 1:]
        if record.match is None:
            return []
        _, result = replay(record.setup, trial)
        return [e.id for e in result[index:] if e.error is not None]

    # -- the fold ---------------------------------------------------------------

    def apply(self, record: JournalRecord) -> int | None:
        """Fold one committed record in; returns the id of the match it touched.

        Never raises: a record that no longer makes sense (an engine changed
        between versions) leaves its events flagged rather than lost.
        """
        self.seq = max(self.seq, record.seq)
        body = record.body
        kind = record.kind
        if kind == "match":
            setup = body.get("setup")
            if not isinstance(setup, dict):
                return None
            setup, _ = known_fields(setup, setup.get("game"))
            self.matches[record.seq] = MatchRecord(
                record.seq, setup, record.actor, record.at, bool(body.get("imported"))
            )
            self.current = record.seq
            return record.seq
        match_id = body.get("match")
        if not isinstance(match_id, int) or match_id not in self.matches:
            return None
        target = self.matches[match_id]
        game = target.setup.get("game")
        if isinstance(body.get("event"), dict):
            # A journal written before events had a schema may hold fields no phone
            # can be sent (nested hundreds deep, NaN): they are left out of the fold.
            body = {**body, "event": known_fields(body["event"], game)[0]}
        if kind == "resume":  # an earlier match is played on (TableService.resume)
            self.current = match_id
        elif kind == "event" and isinstance(body.get("event"), dict):
            entry = Entry(record.seq, body["event"], record.actor, record.at)
            if target.match is None:
                target.entries.append(replace(entry, error=target.error, text=target.error or ""))
                return match_id
            try:
                text = _push(target.match, entry.event)
                target.entries.append(replace(entry, text=text))
            except TableEventError as exc:
                target.entries.append(replace(entry, error=str(exc), text=str(exc)))
        elif kind == "undo" and target.entries and target.entries[-1].id == body.get("entry"):
            removed = target.entries.pop()
            if target.match is not None and removed.error is None and len(target.match):
                target.match.pop()
        elif kind == "edit" and isinstance(body.get("event"), dict):
            index = self._find(target, body.get("entry"))
            if index is not None:
                target.entries[index] = replace(target.entries[index], event=body["event"])
                target.recompute()
        elif kind == "delete":
            index = self._find(target, body.get("entry"))
            if index is not None:
                del target.entries[index]
                target.recompute()
        return match_id

    @staticmethod
    def _find(target: MatchRecord, entry_id: object) -> int | None:
        try:
            return target.index_of(entry_id) if isinstance(entry_id, int) else None
        except NotFound:
            return None
