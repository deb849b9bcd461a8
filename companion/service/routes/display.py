"""The table display: ``GET /display``, a big-type, read-only page for a tablet or TV in
the middle of the table (standings, turn, last event, the Catch Mag board), fed by the
same live stream as the phones (``/api/stream``)."""

from __future__ import annotations

from fastapi.responses import FileResponse

from companion.service.routes.deps import WEB_DIR, router

routes = router()


@routes.get("/display", include_in_schema=False)
def display_page() -> FileResponse:
    return FileResponse(WEB_DIR / "display.html", headers={"Cache-Control": "no-cache"})
