"""What stands between the café Wi-Fi and the table: strict JSON bodies, the Host
allow-list, and cache lifetimes for the dashboard's files.

>>> names = HostNames(("scores.example",))
>>> names.allows("localhost:8000", None), names.allows("scores.example", None)
(True, True)
>>> names.allows("evil.example", ("192.168.1.20", 8000))
False
>>> names.allows("192.168.1.20:8000", ("192.168.1.20", 8000))
True
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Coroutine, Iterable, Mapping
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from companion import strictjson
from companion.service.settings import Settings

STATIC_CACHE = "public, max-age=3600"
"""The dashboard's scripts and styles: an hour, then revalidated by ETag (a table that
was updated serves its new files within the hour; the page itself is never cached)."""

MDNS_NAME = "table-companion.local"
"""The name the table announces on mDNS (companion.service.join)."""


class BodyTooLarge(HTTPException):
    """A request body over its limit (an HTTPException, so FastAPI's body reading lets it
    through to the plain-message handler instead of calling it a parse error)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is too large: at most {limit} bytes are "
                              "accepted here (one table event is well under 2,000)")


class BodyLimit:
    """ASGI middleware: a body's bytes are counted while they stream in, chunked or not,
    so a body over its limit is refused after ``limit`` bytes, before any handler or
    dependency (the PIN check included) has seen it. A declared ``Content-Length`` over
    the limit is refused before a byte is read.

    Starlette's own RequestBodyLimitMiddleware does the counting too, but answers a
    bare "Content Too Large" in place of any handler's answer; this one says the limit.
    """

    def __init__(self, app: ASGIApp, default: int, per_path: Mapping[str, int]) -> None:
        self.app = app
        self.default = default
        self.per_path = dict(per_path)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.per_path.get(scope["path"], self.default)
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await JSONResponse({"detail": BodyTooLarge(limit).detail}, 413)(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        await self.app(scope, counted, send)


class StrictJSONRequest(Request):
    """A request whose JSON body is read by :func:`companion.strictjson.loads`."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            try:
                self._json = strictjson.loads(body)
            except strictjson.StrictJSONError as exc:
                raise HTTPException(400, f"the request body is not accepted: {exc}") from None
        return self._json


class StrictJSONRoute(APIRoute):
    """FastAPI's route with :class:`StrictJSONRequest` (FastAPI's documented way to
    change how a body is read: a custom ``route_class``)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict_handler(request: Request) -> Response:
            return await handler(StrictJSONRequest(request.scope, request.receive))

        return strict_handler


def _hostname(host: str) -> str:
    """``Host`` without its port, lower case, IPv6 brackets and a final dot gone."""
    host = host.strip().lower()
    if host.startswith("["):
        host = host[1:].split("]", 1)[0]
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def _is_loopback(name: str) -> bool:
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return name == "localhost" or name.endswith(".localhost")


class HostNames:
    """The names a browser may use for this table: its addresses, its mDNS name,
    localhost, and the configured ones. Anything else is a page from another site
    reaching the table through DNS rebinding."""

    def __init__(self, configured: Iterable[str] = ()) -> None:
        self.names: set[str] = {MDNS_NAME}
        try:
            machine = socket.gethostname().lower()
        except OSError:
            machine = ""
        if machine:
            self.names |= {machine, f"{machine}.local"}
        self.add(*configured)

    def add(self, *names: str) -> None:
        self.names |= {_hostname(n) for n in names if n}

    def allows(self, host: str | None, server: tuple[str, int] | None) -> bool:
        if host is None:  # HTTP/1.0 without Host: no browser, no rebinding
            return True
        name = _hostname(host)
        if _is_loopback(name) or name in self.names:
            return True
        # The address this very connection reached is one of the table's own.
        return server is not None and name == _hostname(str(server[0]))


def table_host_names(settings: Settings, public_host: str) -> HostNames:
    names = HostNames(settings.allowed_hosts)
    names.add(public_host, settings.host if settings.host not in ("0.0.0.0", "::") else "")
    return names


class HostCheck:
    """ASGI middleware: a request for a host not in :class:`HostNames` gets 400."""

    def __init__(self, app: ASGIApp, names: HostNames) -> None:
        self.app = app
        self.names = names

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = Headers(scope=scope).get("host")
            server = scope.get("server")
            if not self.names.allows(host, server):
                response = JSONResponse({"detail": (
                    f"this table does not answer to the name {str(host)[:80]!r}; open it "
                    "by its address (on the host screen) or add the name to "
                    "[table] allowed_hosts")}, status_code=400)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class StaticWithCache(StaticFiles):
    """Starlette's static files (ETag and Last-Modified kept) with a cache lifetime."""

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers.setdefault("Cache-Control", STATIC_CACHE)
        return response
