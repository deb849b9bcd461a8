"""Matches and their events: start a match (or resume an unfinished one), enter, check,
undo, correct and delete events, and ask the rules while entering one."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from companion.games.errors import MalformedEvent, TableEventError
from companion.service.queries import answer, check_correction, match_before
from companion.service.routes.deps import JSON, PlayerDep, StrictBody, TableDep, router
from companion.service.session import Conflict, MatchRecord
from companion.service.table import TableService

routes = router()


class StartMatch(StrictBody):
    game: str = Field(description="game id, e.g. star-catcher", max_length=40)
    players: list[str] | None = Field(
        None, description="names in clockwise order; default: the current table's players",
        max_length=8,
    )
    options: dict[str, Any] = Field(
        default_factory=dict, description="the game's setup options (dealer, first, rods, ...)"
    )


class EventRequest(StrictBody):
    event: dict[str, Any] = Field(description="one table event, e.g. {'type': 'roll', ...}")
    match: int | None = Field(None, description="the match it is for; default: the current one")


class UndoRequest(StrictBody):
    match: int | None = Field(None, description="the match; default: the current one")


class CorrectionRequest(StrictBody):
    event: dict[str, Any] = Field(description="the corrected event")


class QueryRequest(StrictBody):
    query: str = Field(description="legal-catches (Star Catcher); ace-choice, outcome, unseen "
                                   "(Collector); legal-events (Catch Mag)", max_length=40)
    args: dict[str, Any] = Field(default_factory=dict, description="e.g. {'card': 'D7'}")
    match: int | None = Field(None, description="the match; default: the current one")
    before: int | None = Field(
        None, description="answer as the match stood just before this entry (a correction)"
    )


def playable(table: TableService, match_id: int | None, doing: str) -> MatchRecord:
    """The match ``match_id`` (``None``: the current one), refused when its setup could
    not be replayed, saying what could not be ``doing``."""
    record = table.session.match(match_id)
    if record.match is None:
        raise Conflict(f"match {record.id} cannot be {doing}: {record.error}")
    return record


@routes.post("/api/matches", tags=["matches"], status_code=201)
async def start_match(body: StartMatch, table: TableDep, actor: PlayerDep) -> JSON:
    """Start a match (the next one at this table). Players default to the current ones."""
    setup: JSON = {**body.options, "type": "setup", "game": body.game}
    if body.players is not None:
        setup["players"] = body.players
    return table.start_match(setup, actor)


@routes.get("/api/matches", tags=["matches"])
async def list_matches(table: TableDep) -> list[JSON]:
    """Every match at this table, newest first."""
    return [m.item() for m in reversed(table.session.matches.values())]


@routes.get("/api/matches/{match_id}", tags=["matches"])
async def get_match(match_id: int, table: TableDep) -> JSON:
    """One match with its entries (flagged ones included) and its summary."""
    return table.session.match(match_id).view()


@routes.post("/api/events", tags=["events"], status_code=201)
async def add_event(body: EventRequest, table: TableDep, actor: PlayerDep) -> JSON:
    """Enter one table event. It is on disk before this answers."""
    return table.add_event(body.event, actor, body.match)


@routes.post("/api/events/check", tags=["events"])
async def check_event(body: EventRequest, table: TableDep) -> JSON:
    """Would this event be accepted? Changes nothing; anyone may ask."""
    try:
        text = table.session.check_event(body.event, body.match)
    except TableEventError as exc:
        return {"ok": False, "error": str(exc)}
    return {"ok": True, "text": text}


@routes.post("/api/query", tags=["events"])
async def query(body: QueryRequest, table: TableDep) -> JSON:
    """Ask the rules while entering an event: which catches a card allows (Star
    Catcher ``legal-catches``), whether an Ace's value matters (Collector
    ``ace-choice``), what a play would do (Collector ``outcome``)."""
    record = playable(table, body.match, "asked")
    assert record.match is not None  # playable() has checked
    match = record.match if body.before is None else match_before(record, body.before)
    try:
        return answer(match, body.query, body.args)
    except TableEventError:
        raise
    except (ValueError, LookupError, TypeError) as exc:
        raise MalformedEvent(f"the query could not be answered: {exc}") from None


@routes.post("/api/undo", tags=["events"])
async def undo(body: UndoRequest, table: TableDep, actor: PlayerDep) -> JSON:
    """Take back the last event (recorded in the history, not erased)."""
    return table.undo(actor, body.match)


@routes.put("/api/matches/{match_id}/events/{entry_id}", tags=["events"])
async def edit_event(match_id: int, entry_id: int, body: CorrectionRequest,
                     table: TableDep, actor: PlayerDep) -> JSON:
    """Correct an earlier event. Later events that become illegal are flagged."""
    return table.edit(match_id, entry_id, body.event, actor)


@routes.get("/api/matches/{match_id}/events/{entry_id}/before", tags=["events"])
async def state_before(match_id: int, entry_id: int, table: TableDep) -> JSON:
    """The match's summary just before an entry: what a correction form offers."""
    record = playable(table, match_id, "corrected")
    return {"entry": entry_id, "summary": match_before(record, entry_id).summary()}


@routes.post("/api/matches/{match_id}/events/{entry_id}/check", tags=["events"])
async def check_edit(match_id: int, entry_id: int, body: CorrectionRequest,
                     table: TableDep) -> JSON:
    """Would this correction be accepted, and which later events would it flag?
    Changes nothing; anyone may ask."""
    record = playable(table, match_id, "corrected")
    return check_correction(record, entry_id, body.event)


@routes.delete("/api/matches/{match_id}/events/{entry_id}", tags=["events"])
async def delete_event(match_id: int, entry_id: int, table: TableDep,
                       actor: PlayerDep) -> JSON:
    """Delete an earlier event. Later events that become illegal are flagged."""
    return table.delete(match_id, entry_id, actor)


@routes.post("/api/matches/{match_id}/resume", tags=["matches"])
async def resume(match_id: int, table: TableDep, actor: PlayerDep) -> JSON:
    """Go back to an unfinished earlier match: it becomes the current one again."""
    return table.resume(match_id, actor)
