"""The table display and a few table-wide actions for the dashboard.

- ``GET /display``: a big-type, read-only page for a tablet or TV in the middle of the
  table (standings, turn, last event, the Catch Mag board), fed by the same live stream.
- ``POST /api/join-codes``: a join code (works like the PIN for ten minutes), for a
  signed-in phone to show a friend: the PIN itself is kept only as a hash.
- ``POST /api/matches/{id}/resume``: make an unfinished earlier match the current one
  again (a ``resume`` record in the journal, so it survives a restart).

Kept apart from app.py so the core routes stay short; ``add_display_routes`` is called
from ``create_app``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse

from companion.service.app import WEB_DIR, AuthDep, PlayerDep, TableDep
from companion.service.auth import JOIN_CODE_SECONDS
from companion.service.session import Conflict
from companion.service.table import TableService

JSON = dict[str, Any]


def resume_match(table: TableService, match_id: int, actor: str) -> JSON:
    """Make ``match_id`` the current match again; refused for a finished one."""
    session = table.session
    record = session.match(match_id)  # NotFound: a plain 404
    if session.current == match_id:
        return record.view()
    if record.summary().get("finished"):
        raise Conflict("that match is over; start a new one instead")
    committed = table.store.append("resume", {"match": match_id}, actor=actor, at=table.now())
    session.apply(committed)
    table._publish([committed], match_id)
    return record.view()


def add_display_routes(app: FastAPI) -> None:
    @app.get("/display", include_in_schema=False)
    def display_page() -> FileResponse:
        return FileResponse(WEB_DIR / "display.html", headers={"Cache-Control": "no-cache"})

    @app.post("/api/join-codes", tags=["auth"], status_code=201)
    async def new_join_code(auth: AuthDep, actor: PlayerDep) -> JSON:
        """A join code for a friend: six digits that work like the PIN for ten minutes."""
        code = await asyncio.to_thread(auth.join_code)  # one scrypt: off the event loop
        return {"code": code, "minutes": round(JOIN_CODE_SECONDS / 60)}

    @app.post("/api/matches/{match_id}/resume", tags=["matches"])
    async def resume(match_id: int, table: TableDep, actor: PlayerDep) -> JSON:
        """Go back to an unfinished earlier match: it becomes the current one."""
        return resume_match(table, match_id, actor)
