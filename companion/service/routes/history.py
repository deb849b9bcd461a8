"""The table's history: the journal of every change, and a match exported as a table
log (JSON Lines, the contract in docs) or imported from one."""

from __future__ import annotations

import json

from fastapi import Request
from fastapi.responses import Response

from companion.games.errors import MalformedEvent
from companion.service.routes.deps import JSON, PlayerDep, TableDep, router

IMPORT_PATH = "/api/matches/import"
"""Where a table log is imported (its body may be larger than other requests')."""

routes = router()


@routes.get("/api/matches/{match_id}/log.jsonl", tags=["matches"], response_class=Response)
async def export_log(match_id: int, table: TableDep) -> Response:
    """The match as a table log (JSON Lines). Flagged events appear as ``#`` comments."""
    record = table.session.match(match_id)
    lines = [json.dumps(record.setup, ensure_ascii=False)]
    for entry in record.entries:
        text = json.dumps(entry.event, ensure_ascii=False)
        lines.append(text if entry.error is None
                     else f"# flagged ({entry.error.replace(chr(10), ' ')}): {text}")
    return Response(
        "\n".join(lines) + "\n", media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="match-{match_id}.jsonl"'},
    )


@routes.post(IMPORT_PATH, tags=["matches"], status_code=201)
async def import_log(request: Request, table: TableDep, actor: PlayerDep) -> JSON:
    """Import a table log (the request body, JSON Lines) as a new match.
    Refused whole, naming the line, if any line is malformed or illegal."""
    raw = await request.body()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise MalformedEvent("the table log must be UTF-8 text") from None
    return table.import_log(text, actor)


@routes.get("/api/history", tags=["table"])
async def history(table: TableDep, limit: int = 200, before: int | None = None) -> list[JSON]:
    """The append-only journal, newest first: every change, who made it and when."""
    # SQLite integers stop at 2**63: a larger ``before`` means "from the newest".
    return table.history(max(1, min(limit, 1000)),
                         None if before is None else max(0, min(before, 2**62)))
