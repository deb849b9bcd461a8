"""The table service: check a change, commit it, fold it in, tell every phone.

All methods run on the server's event loop, one at a time, so changes are
totally ordered by their journal sequence number and no lock is needed.
Hardware drivers running in their own threads hand their events and link
status over with :meth:`TableService.call_from_thread`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from companion.games import GAME_IDS, rules_for
from companion.service.live import Hub, sse_frame
from companion.service.queries import catalog
from companion.service.schema import known_fields
from companion.service.session import (
    Conflict,
    Entry,
    MatchRecord,
    TableSession,
    check_log,
)
from companion.service.store import EventStore, JournalRecord

JSON = dict[str, Any]
T = TypeVar("T")
log = logging.getLogger(__name__)

LINK_STATES = ("connected", "connecting", "resyncing", "lost", "disconnected", "absent")
"""Link states a board or camera may report; the dashboard shows a banner unless ``connected``.
``resyncing`` and ``lost`` are the sensor drivers' own words (hardware.sources.LinkStatus)."""


class StatusError(ValueError):
    """A status report was malformed."""


def available_games() -> list[JSON]:
    """Every game whose rules engine is installed, with what the UI needs to set it up."""
    games: list[JSON] = []
    for game_id in GAME_IDS:
        try:
            rules = rules_for(game_id)
        except Exception as exc:  # a broken engine is not offered, and says why in the log
            log.error("the rules engine for %s could not be loaded, so it is not offered: "
                      "%s: %s", game_id, type(exc).__name__, exc)
            continue
        games.append({
            "id": rules.id,
            "title": rules.title,
            "min_players": rules.min_players,
            "max_players": rules.max_players,
            "event_types": list(rules.event_types),
            "catalog": catalog(rules.id),
        })
    return games


class TableService:
    """The live table over its store; every phone's view comes from here."""

    def __init__(
        self, store: EventStore, hub: Hub, clock: Callable[[], float] = time.time
    ) -> None:
        self.store = store
        self.hub = hub
        self.clock = clock
        self.session = TableSession()
        for record in store.records():
            self.session.apply(record)
        self.status: dict[str, JSON] = {}
        self.games = available_games()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.after_match: Callable[[], None] | None = None
        """Called when an event ends a match (the service takes a backup then)."""

    def now(self) -> str:
        return datetime.fromtimestamp(self.clock(), UTC).isoformat(timespec="milliseconds")

    @property
    def data_dir(self) -> Path:
        """The folder the table's store is in (inputs keep what they learned there)."""
        return self.store.path.parent

    @property
    def running(self) -> bool:
        """Whether the event loop runs (a driver's thread may hand work over to it)."""
        return self.loop is not None and not self.loop.is_closed()

    def current_match(self) -> MatchRecord | None:
        """The current match, or ``None`` before the first one (read it on the event loop)."""
        session = self.session
        return session.matches[session.current] if session.current is not None else None

    def check_edit(self, match_id: int, entry_id: int, event: object) -> list[int]:
        """Ids of the later entries :meth:`edit` would flag, changing nothing; raises as
        :meth:`edit` would if the correction itself is refused."""
        return self.session.check_edit(match_id, entry_id, event)

    # -- views ------------------------------------------------------------------

    def snapshot(self) -> JSON:
        """The full state a phone gets on (re)connect."""
        session = self.session
        current = session.matches[session.current].view() if session.current else None
        return {
            "seq": session.seq,
            "players": session.players,
            "current": session.current,
            "match": current,
            "matches": [m.item() for m in reversed(session.matches.values())],
            "status": self.status,
            "games": self.games,
        }

    def _publish(self, records: list[JournalRecord], match_id: int | None, **extra: Any) -> None:
        last = records[-1]
        message: JSON = {
            "seq": last.seq,
            "from_seq": records[0].seq,
            "kind": last.kind,
            "actor": last.actor,
            "at": last.at,
            "match_id": match_id,
            "current": self.session.current,
            "players": self.session.players,
        }
        if match_id is not None:
            record = self.session.matches[match_id]
            message["item"] = record.item()
            message["summary"] = record.summary()
            if "entry" in extra or "removed" in extra:
                message |= extra
            else:
                message["match"] = record.view()
        self.hub.publish(sse_frame("change", message, seq=last.seq))

    def _commit(self, kind: str, body: JSON, actor: str) -> JournalRecord:
        record = self.store.append(kind, body, actor=actor, at=self.now())
        self.session.apply(record)
        return record

    # -- changes ----------------------------------------------------------------

    def start_match(self, setup: object, actor: str) -> JSON:
        """Start a new match (it becomes the current one)."""
        checked = self.session.check_setup(setup)
        record = self._commit("match", {"setup": checked}, actor)
        self._publish([record], record.seq)
        return self.session.matches[record.seq].view()

    def resume(self, match_id: int, actor: str) -> JSON:
        """Make the unfinished match ``match_id`` the current one again (a ``resume``
        record, so it survives a restart); a finished match is refused."""
        record = self.session.match(match_id)  # NotFound: a plain 404
        if self.session.current == match_id:
            return record.view()
        if record.summary().get("finished"):
            raise Conflict("that match is over; start a new one instead")
        committed = self._commit("resume", {"match": match_id}, actor)
        self._publish([committed], match_id)
        return record.view()

    def add_event(self, event: object, actor: str, match_id: int | None = None) -> JSON:
        """Record one event in the current match (or the one named)."""
        target = self.session.match(match_id)
        self.session.check_event(event, target.id)
        assert isinstance(event, dict)
        record = self._commit("event", {"match": target.id, "event": event}, actor)
        entry = target.entries[-1]
        self._publish([record], target.id, entry=entry.to_json())
        if self.after_match is not None and target.match is not None and target.match.finished:
            self.after_match()
        return self._result(record, target.id, entry)

    def undo(self, actor: str, match_id: int | None = None) -> JSON:
        """Take back the last event of the current match (or the one named)."""
        target = self.session.match(match_id)
        entry_id = self.session.check_undo(target.id)
        removed = target.entries[-1]
        record = self._commit("undo", {"match": target.id, "entry": entry_id,
                                       "event": removed.event}, actor)
        self._publish([record], target.id, removed=entry_id)
        return self._result(record, target.id, removed)

    def edit(self, match_id: int, entry_id: int, event: object, actor: str) -> JSON:
        """Replace an earlier event; later events are refolded and flagged if now illegal."""
        flagged = self.session.check_edit(match_id, entry_id, event)
        target = self.session.match(match_id)
        before = target.entries[target.index_of(entry_id)].event
        assert isinstance(event, dict)
        record = self._commit(
            "edit", {"match": match_id, "entry": entry_id, "event": event, "before": before},
            actor,
        )
        self._publish([record], match_id)
        return {"seq": record.seq, "flagged": flagged, "match": target.view()}

    def delete(self, match_id: int, entry_id: int, actor: str) -> JSON:
        """Remove an earlier event; later events are refolded and flagged if now illegal."""
        flagged = self.session.check_delete(match_id, entry_id)
        target = self.session.match(match_id)
        before = target.entries[target.index_of(entry_id)].event
        record = self._commit(
            "delete", {"match": match_id, "entry": entry_id, "before": before}, actor
        )
        self._publish([record], match_id)
        return {"seq": record.seq, "flagged": flagged, "match": target.view()}

    def import_log(self, text: str, actor: str) -> JSON:
        """A new match from a table log; refused whole (naming the line) if any line is bad."""
        setup, events, ignored = check_log(text)
        at = self.now()
        first = self.store.append("match", {"setup": setup, "imported": True},
                                  actor=actor, at=at)
        self.session.apply(first)
        records = [first]
        if events:
            rest = self.store.append_many(
                [("event", {"match": first.seq, "event": e}) for e in events], actor=actor, at=at
            )
            for record in rest:
                self.session.apply(record)
            records += rest
        self._publish(records, first.seq)
        view = self.session.matches[first.seq].view()
        if ignored:
            view["ignored"] = ignored[:50]
        return view

    def note_pin_change(self, actor: str) -> None:
        record = self._commit("pin", {}, actor)
        self._publish([record], None)

    def _result(self, record: JournalRecord, match_id: int, entry: Entry) -> JSON:
        target = self.session.matches[match_id]
        return {"seq": record.seq, "entry": entry.to_json(), "summary": target.summary(),
                "item": target.item()}

    # -- hardware link status -------------------------------------------------------

    def report_status(
        self, source: str, link: str, message: str = "", warnings: list[str] | None = None
    ) -> None:
        """Board or camera link status for the dashboard banner.

        ``source`` names the part (``board``, ``camera``); ``link`` is one of
        ``connected``, ``connecting``, ``disconnected``, ``absent``. The
        dashboard shows a banner for anything but ``connected``.
        """
        if not isinstance(source, str) or not source or len(source) > 40:
            raise StatusError("status 'source' must be a short name such as 'board' or 'camera'")
        if link not in LINK_STATES:
            raise StatusError(f"status 'link' must be one of {', '.join(LINK_STATES)}, "
                              f"got {link!r}")
        self.status[source] = {"link": link, "message": str(message)[:200],
                               "warnings": [str(w)[:200] for w in (warnings or [])][:10],
                               "at": self.now()}
        self.hub.publish(sse_frame("status", {"seq": self.session.seq, "status": self.status}))

    def status_reporter(self, source: str) -> Callable[[Any], None]:
        """A callback for a driver's status subscription, safe to call from any thread.

        It takes anything with ``state`` and ``detail`` (such as the sensor
        drivers' ``LinkStatus``): ``board.subscribe_status(table.status_reporter("board"))``.
        """

        def report(status: Any) -> None:
            self.call_from_thread(self.report_status, source, str(status.state),
                                  str(getattr(status, "detail", "")))

        return report

    def submit_from_thread(self, event: object, actor: str, timeout: float = 5.0) -> JSON:
        """Enter an event from a driver's thread and wait for the answer.

        Returns what :meth:`add_event` returns; a refusal raises its
        :class:`TableEventError` in the calling thread.
        """
        return self.run_from_thread(lambda: self.add_event(event, actor), timeout)

    def run_from_thread(self, function: Callable[[], T], timeout: float = 5.0) -> T:
        """Run ``function()`` on the event loop and wait for its result (for driver and
        bot threads: the session may only be read or changed on the loop)."""
        if self.loop is None:
            raise Conflict("the table service is not running")

        async def run() -> T:
            return function()

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout)

    def call_from_thread(self, function: Callable[..., Any], *args: Any) -> None:
        """Run ``function(*args)`` on the event loop (for driver threads)."""
        if self.loop is None:
            raise Conflict("the table service is not running")
        self.loop.call_soon_threadsafe(function, *args)

    def history(self, limit: int = 200, before: int | None = None) -> list[JSON]:
        """The journal, newest first: who changed what and when."""
        return [self._readable(r) for r in self.store.latest(limit, before)]

    def _readable(self, record: JournalRecord) -> JSON:
        """A journal record with only the fields its events' schema has: a journal written
        before events had one may hold fields no phone can be sent (300 deep, NaN)."""
        out = record.to_json()
        body = dict(record.body)
        if record.kind == "match" and isinstance(body.get("setup"), dict):
            body["setup"] = known_fields(body["setup"], body["setup"].get("game"))[0]
        else:
            match = self.session.matches.get(body.get("match"))  # type: ignore[arg-type]
            game = match.setup.get("game") if match is not None else None
            for key in ("event", "before"):
                if isinstance(body.get(key), dict):
                    body[key] = known_fields(body[key], game)[0]
        out["body"] = body
        return out
