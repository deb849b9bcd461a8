"""How a phone finds the table: the address to open and its QR code."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from companion.service.join import qr_svg, table_url
from companion.service.routes.deps import JSON, router
from companion.service.settings import Settings

routes = router()


def join_url(request: Request) -> str:
    """The address phones should open (an IP address, for the QR code)."""
    settings: Settings = request.app.state.settings
    # The port this request actually reached (the settings may say 0: "any free port").
    server = request.scope.get("server")
    port = int(server[1]) if server and server[1] else settings.port
    return table_url(request.app.state.public_host, port)


@routes.get("/api/join", tags=["join"])
async def join(request: Request) -> JSON:
    """The address phones should open (an IP address, for the QR code)."""
    return {"url": join_url(request), "qr": "/api/join/qr.svg"}


@routes.get("/api/join/qr.svg", tags=["join"], response_class=Response)
async def join_qr(request: Request) -> Response:
    """The join URL as an SVG QR code."""
    return Response(qr_svg(join_url(request)), media_type="image/svg+xml")
