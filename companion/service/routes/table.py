"""The table as a whole: its state, the games it knows, the live stream, and the link
status of inputs running in other processes."""

from __future__ import annotations

from collections.abc import AsyncIterator

from fastapi.responses import StreamingResponse
from pydantic import Field

from companion.service.live import sse_frame
from companion.service.routes.deps import JSON, PlayerDep, StrictBody, TableDep, router

PING_SECONDS = 15.0
"""A comment line this often keeps an idle stream open through proxies and phones."""

routes = router()


class StatusReport(StrictBody):
    link: str = Field(description="connected, connecting, disconnected or absent")
    message: str = Field("", max_length=200)
    warnings: list[str] = Field(default_factory=list, max_length=10)


# Every handler is ``async def`` so it runs on the event loop: changes to the table are
# then applied one at a time, in journal order, with no locks.


@routes.get("/api/state", tags=["table"])
async def state(table: TableDep) -> JSON:
    """The whole table now: current match with its entries, the list of matches, status."""
    return table.snapshot()


@routes.get("/api/games", tags=["table"])
async def games(table: TableDep) -> list[JSON]:
    """The games this companion has rules for."""
    return list(table.snapshot()["games"])


@routes.get("/api/stream", tags=["live"])
async def stream(table: TableDep) -> StreamingResponse:
    """Server-sent events: a ``snapshot`` (the /api/state object) then ``change``
    and ``status`` events, each with the table-wide ``seq``. A ``change`` with
    ``from_seq`` other than the last seen ``seq`` + 1 means a gap: reconnect."""
    sub = table.hub.subscribe()
    first = sse_frame("snapshot", table.snapshot(), seq=table.session.seq)

    async def frames() -> AsyncIterator[str]:
        try:
            yield "retry: 1000\n\n" + first
            while True:
                frame = await sub.next(PING_SECONDS)
                yield ": ping\n\n" if frame is None else frame
        except EOFError:
            return
        finally:
            table.hub.unsubscribe(sub)

    return StreamingResponse(
        frames(), media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


@routes.put("/api/status/{source}", tags=["live"])
async def report_status(source: str, body: StatusReport, table: TableDep,
                        actor: PlayerDep) -> JSON:
    """Report a board or camera link status (drivers in other processes)."""
    table.report_status(source, body.link, body.message, body.warnings)
    return {"status": table.status}
