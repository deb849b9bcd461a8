"""The FastAPI app: ``create_app(settings)`` puts the routes together, owns the table's
lifespan (the store, the live hub, backups, mDNS and the attached inputs) and the one
table of plain errors.

The routes themselves are in :mod:`companion.service.routes`, one module per subject.

>>> from pathlib import Path
>>> app = create_app(Settings(data_dir=Path("/tmp/doctest-table"), mdns=False))
>>> sorted(path for path in app.openapi()["paths"] if path.startswith("/api/auth"))
['/api/auth', '/api/auth/pin', '/api/auth/whoami']
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import (
    AbstractAsyncContextManager,
    AbstractContextManager,
    ExitStack,
    asynccontextmanager,
)
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware

from companion.games.errors import IllegalEvent, MalformedEvent, TableEventError
from companion.refusals import InputNotFound, InputNotReady, InputRefused, InputRequestError
from companion.service.auth import (
    AuthError,
    PinRateLimiter,
    TableAuth,
    TableWideLimiter,
    TooManyAttempts,
)
from companion.service.backup import BackupSchedule
from companion.service.guard import (
    BodyLimit,
    HostCheck,
    HostNames,
    StaticWithCache,
    StrictJSONRoute,
    table_host_names,
)
from companion.service.join import MdnsAnnouncer, lan_address
from companion.service.live import Hub
from companion.service.routes import ROUTERS
from companion.service.routes.camera import find_camera
from companion.service.routes.deps import WEB_DIR
from companion.service.routes.history import IMPORT_PATH
from companion.service.session import Conflict, NotFound, SessionError
from companion.service.settings import Settings, SettingsError
from companion.service.store import EventStore, storage_problem
from companion.service.table import StatusError, TableService

JSON = dict[str, Any]

MAX_BODY_BYTES = 64_000
"""A request body's bound (an event is well under 2 kB), checked while it is read."""
MAX_IMPORT_BYTES = 2_000_000
"""A table log's bound (a long match is well under 200 kB)."""


# -- errors as plain 4xx messages -------------------------------------------------------


def _problem(status: int, detail: str, expected: str | None = None,
             headers: dict[str, str] | None = None) -> JSONResponse:
    body: JSON = {"detail": detail}
    if expected:
        body["expected"] = expected
    return JSONResponse(body, status_code=status, headers=headers)


def _describe_validation(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors()[:5]:
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body")
        message = str(error.get("msg", "invalid"))
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts) or "the request was not understood"


PLAIN_ERRORS: dict[type[Exception], int] = {
    MalformedEvent: 400,
    IllegalEvent: 422,
    TableEventError: 400,
    NotFound: 404,
    Conflict: 409,
    SessionError: 400,
    AuthError: 401,
    SettingsError: 400,
    StatusError: 400,
    # an input's refusals (companion.refusals: the camera's, the board's), by kind
    InputRequestError: 400,
    InputNotFound: 404,
    InputRefused: 409,
    InputNotReady: 503,
}
"""The status code for each error a client's request can cause; the message is the body."""


def status_of(exc: Exception, default: int = 409) -> int:
    """The status of ``exc``'s most specific class in :data:`PLAIN_ERRORS`.

    >>> class CardNotCaptured(InputNotFound): ...
    >>> status_of(CardNotCaptured("card number 3 has not been captured"))
    404
    """
    return next((PLAIN_ERRORS[c] for c in type(exc).__mro__ if c in PLAIN_ERRORS), default)


def _plain(status: int) -> Callable[[Request, Exception], Awaitable[JSONResponse]]:
    async def handler(request: Request, exc: Exception) -> JSONResponse:
        return _problem(status, str(exc))

    return handler


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        route = request.scope.get("route")
        body = getattr(route, "body_field", None)
        expected = None
        if body is not None:
            schema = getattr(body.field_info.annotation, "model_json_schema", None)
            if schema is not None:
                props = schema().get("properties", {})
                expected = "a JSON object with " + ", ".join(
                    f"'{k}'" + ("" if k in schema().get("required", []) else " (optional)")
                    for k in props
                )
        return _problem(422, _describe_validation(exc), expected)

    # Errors whose message is already plain words for a person: each is a status code.
    # Starlette picks the handler of the most specific class, so IllegalEvent's 422 wins
    # over TableEventError's 400, and NotFound/Conflict over SessionError.
    for error, status in PLAIN_ERRORS.items():
        app.add_exception_handler(error, _plain(status))

    @app.exception_handler(InputNotReady)
    async def not_yet(request: Request, exc: InputNotReady) -> JSONResponse:
        # "Not yet" says when to ask again.
        return _problem(PLAIN_ERRORS[InputNotReady], str(exc),
                        headers={"Retry-After": str(round(exc.retry_after))})

    @app.exception_handler(TooManyAttempts)
    async def too_many(request: Request, exc: TooManyAttempts) -> JSONResponse:
        return _problem(429, str(exc), headers={"Retry-After": str(max(1, round(exc.wait)))})

    @app.exception_handler(sqlite3.Error)
    async def storage_error(request: Request, exc: sqlite3.Error) -> JSONResponse:
        # Not the client's fault (disk full, card failing); nothing was changed.
        return _problem(503, storage_problem(exc), headers={"Retry-After": "2"})

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else "request refused"
        if exc.status_code == 404:
            detail = f"nothing at {request.url.path}; the API is described at /docs"

        return _problem(exc.status_code, detail, headers=getattr(exc, "headers", None))


# -- the app ----------------------------------------------------------------------------


TableAttachment = Callable[[TableService], AbstractContextManager[object]]
"""Something the table runs while it is up (a board driver, a camera): given the
table, it returns a context manager, entered after the table is loaded and exited
at shutdown. It feeds the table with ``table.call_from_thread(table.add_event, ...)``
and ``table.status_reporter(name)``. The command that starts the service builds them
from the configuration (:mod:`companion.serve`); the service never imports an input."""

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[None]]


def create_app(
    settings: Settings,
    *,
    clock: Callable[[], float] = time.time,
    attachments: Sequence[TableAttachment] = (),
) -> FastAPI:
    """The table service for ``settings``; its lifespan owns the store, the hub and
    the ``attachments`` (hardware), and closes them in reverse order. The attachment
    that is a :class:`~companion.service.controls.CameraControl` (if any) answers the
    camera's routes."""
    host_names = HostNames(settings.allowed_hosts)
    app = FastAPI(
        title="Table Companion",
        summary="The live table: matches, events, undo, corrections and the phone dashboard.",
        version="0.1.0",
        lifespan=_lifespan(settings, clock, attachments, host_names),
    )
    # Every JSON body is read by the one strict parser (no NaN, bounded depth); each
    # router in ROUTERS is made with the same route class.
    app.router.route_class = StrictJSONRoute
    app.state.settings = settings
    app.state.camera = find_camera(attachments)
    _install_error_handlers(app)
    app.add_middleware(GZipMiddleware, minimum_size=1000, compresslevel=6)
    app.add_middleware(HostCheck, names=host_names)
    # Outermost: a flood is cut off before anything else looks at the request.
    app.add_middleware(BodyLimit, default=MAX_BODY_BYTES,
                       per_path={IMPORT_PATH: MAX_IMPORT_BYTES})

    for router in ROUTERS:
        app.include_router(router)
    app.mount("/static", StaticWithCache(directory=WEB_DIR), name="static")
    return app


def _lifespan(settings: Settings, clock: Callable[[], float],
              attachments: Sequence[TableAttachment], host_names: HostNames) -> Lifespan:
    """What runs while the app serves: the store, the hub, backups, the mDNS announcer and
    the ``attachments``, opened before the first request and closed after the last."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = EventStore(settings.database)
        hub = Hub(settings.subscriber_queue)
        table = TableService(store, hub, clock)
        table.loop = asyncio.get_running_loop()
        limiter = PinRateLimiter(settings.pin_attempts, settings.pin_lockout_seconds, clock)
        app.state.table = table
        app.state.auth = TableAuth(
            store, limiter, settings.pin,
            table_limiter=TableWideLimiter(settings.table_pin_attempts,
                                           settings.table_pin_refill_seconds, clock),
            idle_seconds=settings.token_idle_days * 86_400, clock=clock,
        )
        app.state.hub = hub
        app.state.public_host = settings.public_host or (
            settings.host if settings.host not in ("0.0.0.0", "::", "") else lan_address()
        )
        host_names.names = table_host_names(settings, app.state.public_host).names
        backups = BackupSchedule(store, settings.backup_dir, settings.backups_kept,
                                 settings.backup_minutes * 60)
        table.after_match = backups.soon
        backups.start()
        announcer: MdnsAnnouncer | None = None
        if settings.mdns and settings.port:
            announcer = MdnsAnnouncer(app.state.public_host, settings.port)
            await asyncio.to_thread(announcer.start)
        hardware = ExitStack()
        for number, attach in enumerate(attachments, start=1):
            try:
                # Opening a port or a camera may block: keep the loop free meanwhile.
                await asyncio.to_thread(hardware.enter_context, attach(table))
            except Exception as exc:  # a missing board must not stop the table
                table.report_status(f"hardware {number}", "absent", str(exc)[:200])
        try:
            yield
        finally:
            hub.close()
            await backups.stop()
            await asyncio.to_thread(hardware.close)
            if announcer is not None:
                await asyncio.to_thread(announcer.close)
            store.close()

    return lifespan


__all__ = [
    "MAX_BODY_BYTES", "MAX_IMPORT_BYTES", "PLAIN_ERRORS", "WEB_DIR", "TableAttachment",
    "create_app", "status_of",
]
