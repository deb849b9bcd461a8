"""The FastAPI app: the JSON API, the live stream and the dashboard's files.

>>> from pathlib import Path
>>> app = create_app(Settings(data_dir=Path("/tmp/doctest-table"), mdns=False))
>>> sorted(r.path for r in app.routes if getattr(r, "path", "").startswith("/api/auth"))
['/api/auth', '/api/auth/pin', '/api/auth/whoami']
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractContextManager, ExitStack, asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
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
from companion.service.join import MdnsAnnouncer, lan_address, qr_svg, table_url
from companion.service.live import Hub, sse_frame
from companion.service.queries import answer, check_correction, match_before
from companion.service.session import Conflict, NotFound, SessionError
from companion.service.settings import Settings, SettingsError
from companion.service.store import EventStore, storage_problem
from companion.service.table import StatusError, TableService

JSON = dict[str, Any]

MAX_BODY_BYTES = 64_000
"""A request body's bound (an event is well under 2 kB), checked while it is read."""
MAX_IMPORT_BYTES = 2_000_000
"""A table log's bound (a long match is well under 200 kB)."""
IMPORT_PATH = "/api/matches/import"
PING_SECONDS = 15.0

WEB_DIR = Path(str(resources.files("companion") / "web"))


# -- request bodies ------------------------------------------------------------------


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PinRequest(_Body):
    pin: str = Field(description="the table PIN shown on the host screen", max_length=32)
    name: str = Field("", description="a name for this phone in the history", max_length=40)


class NewPin(_Body):
    pin: str = Field(description="the new PIN: 4 to 8 digits (6 or more advised)",
                     max_length=32)


class StartMatch(_Body):
    game: str = Field(description="game id, e.g. star-catcher", max_length=40)
    players: list[str] | None = Field(
        None, description="names in clockwise order; default: the current table's players",
        max_length=8,
    )
    options: dict[str, Any] = Field(
        default_factory=dict, description="the game's setup options (dealer, first, rods, ...)"
    )


class EventRequest(_Body):
    event: dict[str, Any] = Field(description="one table event, e.g. {'type': 'roll', ...}")
    match: int | None = Field(None, description="the match it is for; default: the current one")


class UndoRequest(_Body):
    match: int | None = Field(None, description="the match; default: the current one")


class CorrectionRequest(_Body):
    event: dict[str, Any] = Field(description="the corrected event")


class QueryRequest(_Body):
    query: str = Field(description="legal-catches (Star Catcher); ace-choice, outcome, unseen "
                                   "(Collector); legal-events (Catch Mag)", max_length=40)
    args: dict[str, Any] = Field(default_factory=dict, description="e.g. {'card': 'D7'}")
    match: int | None = Field(None, description="the match; default: the current one")
    before: int | None = Field(
        None, description="answer as the match stood just before this entry (a correction)"
    )


class StatusReport(_Body):
    link: str = Field(description="connected, connecting, disconnected or absent")
    message: str = Field("", max_length=200)
    warnings: list[str] = Field(default_factory=list, max_length=10)


# -- dependencies --------------------------------------------------------------------


def get_table(request: Request) -> TableService:
    table: TableService = request.app.state.table
    return table


def get_auth(request: Request) -> TableAuth:
    auth: TableAuth = request.app.state.auth
    return auth


def bearer_token(authorization: Annotated[str | None, Header()] = None) -> str | None:
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None


class NotAuthorized(AuthError):
    pass


def require_player(
    auth: Annotated[TableAuth, Depends(get_auth)],
    token: Annotated[str | None, Depends(bearer_token)],
) -> str:
    """The name of the phone making a change; spectators get 401."""
    holder = auth.holder(token)
    if holder is None:
        raise NotAuthorized(
            "entering or changing anything needs the table PIN: send it to POST /api/auth "
            "and pass the token as 'Authorization: Bearer <token>'"
        )
    return holder


TableDep = Annotated[TableService, Depends(get_table)]
AuthDep = Annotated[TableAuth, Depends(get_auth)]
PlayerDep = Annotated[str, Depends(require_player)]


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
and ``table.status_reporter(name)``."""


def create_app(
    settings: Settings,
    *,
    clock: Callable[[], float] = time.time,
    attachments: Sequence[TableAttachment] = (),
) -> FastAPI:
    """The table service for ``settings``; its lifespan owns the store, the hub and
    the ``attachments`` (hardware), and closes them in reverse order."""

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

    app = FastAPI(
        title="Table Companion",
        summary="The live table: matches, events, undo, corrections and the phone dashboard.",
        version="0.1.0",
        lifespan=lifespan,
    )
    # Every JSON body is read by the one strict parser (no NaN, bounded depth).
    app.router.route_class = StrictJSONRoute
    app.state.settings = settings
    _install_error_handlers(app)
    app.add_middleware(GZipMiddleware, minimum_size=1000, compresslevel=6)
    host_names = HostNames(settings.allowed_hosts)
    app.add_middleware(HostCheck, names=host_names)
    # Outermost: a flood is cut off before anything else looks at the request.
    app.add_middleware(BodyLimit, default=MAX_BODY_BYTES,
                       per_path={IMPORT_PATH: MAX_IMPORT_BYTES})

    _add_api_routes(app)
    _add_page_routes(app)
    _add_camera_routes(app, attachments)
    from companion.service.display import add_display_routes  # it imports this module

    add_display_routes(app)
    return app


def _add_api_routes(app: FastAPI) -> None:
    # Every handler is ``async def`` so it runs on the event loop: changes to the
    # table are then applied one at a time, in journal order, with no locks.
    @app.get("/api/state", tags=["table"])
    async def state(table: TableDep) -> JSON:
        """The whole table now: current match with its entries, the list of matches, status."""
        return table.snapshot()

    @app.get("/api/games", tags=["table"])
    async def games(table: TableDep) -> list[JSON]:
        """The games this companion has rules for."""
        return list(table.snapshot()["games"])

    @app.get("/api/stream", tags=["live"])
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

    @app.post("/api/auth", tags=["auth"])
    async def exchange_pin(body: PinRequest, request: Request, auth: AuthDep,
                     table: TableDep) -> JSON:
        """Trade the table PIN for a token (keep it; send it as a Bearer token).
        Wrong PINs from one address are rate-limited (429 with Retry-After)."""
        client = request.client.host if request.client else "unknown"
        label = body.name.strip() or f"phone {client}"
        signed_in = auth.holder(bearer_token(request.headers.get("authorization"))) is not None
        grant = await auth.exchange(body.pin, client, label, table.now(), signed_in=signed_in)
        return {"token": grant.token, "name": grant.label}

    @app.get("/api/auth/whoami", tags=["auth"])
    async def whoami(auth: AuthDep, token: Annotated[str | None, Depends(bearer_token)]) -> JSON:
        """Whether this token may change the table."""
        holder = auth.holder(token)
        return {"player": holder is not None, "name": holder}

    @app.put("/api/auth/pin", tags=["auth"])
    async def change_pin(body: NewPin, auth: AuthDep, table: TableDep, actor: PlayerDep,
                   token: Annotated[str | None, Depends(bearer_token)]) -> JSON:
        """Set a new table PIN. Every other phone must enter the new PIN again."""
        assert token is not None
        await auth.change_pin(body.pin, token)
        table.note_pin_change(actor)
        return {"changed": True}

    @app.post("/api/matches", tags=["matches"], status_code=201)
    async def start_match(body: StartMatch, table: TableDep, actor: PlayerDep) -> JSON:
        """Start a match (the next one at this table). Players default to the current ones."""
        setup: JSON = {**body.options, "type": "setup", "game": body.game}
        if body.players is not None:
            setup["players"] = body.players
        return table.start_match(setup, actor)

    @app.get("/api/matches", tags=["matches"])
    async def list_matches(table: TableDep) -> list[JSON]:
        """Every match at this table, newest first."""
        return [m.item() for m in reversed(table.session.matches.values())]

    @app.get("/api/matches/{match_id}", tags=["matches"])
    async def get_match(match_id: int, table: TableDep) -> JSON:
        """One match with its entries (flagged ones included) and its summary."""
        return table.session.match(match_id).view()

    @app.post("/api/events", tags=["events"], status_code=201)
    async def add_event(body: EventRequest, table: TableDep, actor: PlayerDep) -> JSON:
        """Enter one table event. It is on disk before this answers."""
        return table.add_event(body.event, actor, body.match)

    @app.post("/api/events/check", tags=["events"])
    async def check_event(body: EventRequest, table: TableDep) -> JSON:
        """Would this event be accepted? Changes nothing; anyone may ask."""
        try:
            text = table.session.check_event(body.event, body.match)
        except TableEventError as exc:
            return {"ok": False, "error": str(exc)}
        return {"ok": True, "text": text}

    @app.post("/api/query", tags=["events"])
    async def query(body: QueryRequest, table: TableDep) -> JSON:
        """Ask the rules while entering an event: which catches a card allows (Star
        Catcher ``legal-catches``), whether an Ace's value matters (Collector
        ``ace-choice``), what a play would do (Collector ``outcome``)."""
        record = table.session.match(body.match)
        if record.match is None:
            raise Conflict(f"match {record.id} cannot be asked: {record.error}")
        match = record.match if body.before is None else match_before(record, body.before)
        try:
            return answer(match, body.query, body.args)
        except TableEventError:
            raise
        except (ValueError, LookupError, TypeError) as exc:
            raise MalformedEvent(f"the query could not be answered: {exc}") from None

    @app.post("/api/undo", tags=["events"])
    async def undo(body: UndoRequest, table: TableDep, actor: PlayerDep) -> JSON:
        """Take back the last event (recorded in the history, not erased)."""
        return table.undo(actor, body.match)

    @app.put("/api/matches/{match_id}/events/{entry_id}", tags=["events"])
    async def edit_event(match_id: int, entry_id: int, body: CorrectionRequest,
                   table: TableDep, actor: PlayerDep) -> JSON:
        """Correct an earlier event. Later events that become illegal are flagged."""
        return table.edit(match_id, entry_id, body.event, actor)

    @app.get("/api/matches/{match_id}/events/{entry_id}/before", tags=["events"])
    async def state_before(match_id: int, entry_id: int, table: TableDep) -> JSON:
        """The match's summary just before an entry: what a correction form offers."""
        record = table.session.match(match_id)
        if record.match is None:
            raise Conflict(f"match {record.id} cannot be corrected: {record.error}")
        return {"entry": entry_id, "summary": match_before(record, entry_id).summary()}

    @app.post("/api/matches/{match_id}/events/{entry_id}/check", tags=["events"])
    async def check_edit(match_id: int, entry_id: int, body: CorrectionRequest,
                         table: TableDep) -> JSON:
        """Would this correction be accepted, and which later events would it flag?
        Changes nothing; anyone may ask."""
        record = table.session.match(match_id)
        if record.match is None:
            raise Conflict(f"match {record.id} cannot be corrected: {record.error}")
        return check_correction(record, entry_id, body.event)

    @app.delete("/api/matches/{match_id}/events/{entry_id}", tags=["events"])
    async def delete_event(match_id: int, entry_id: int, table: TableDep, actor: PlayerDep) -> JSON:
        """Delete an earlier event. Later events that become illegal are flagged."""
        return table.delete(match_id, entry_id, actor)

    @app.get("/api/matches/{match_id}/log.jsonl", tags=["matches"],
             response_class=Response)
    async def export_log(match_id: int, table: TableDep) -> Response:
        """The match as a table log (JSON Lines). Flagged events appear as ``#`` comments."""
        record = table.session.match(match_id)
        import json

        lines = [json.dumps(record.setup, ensure_ascii=False)]
        for entry in record.entries:
            text = json.dumps(entry.event, ensure_ascii=False)
            lines.append(text if entry.error is None
                         else f"# flagged ({entry.error.replace(chr(10), ' ')}): {text}")
        return Response(
            "\n".join(lines) + "\n", media_type="application/x-ndjson",
            headers={"Content-Disposition": f'attachment; filename="match-{match_id}.jsonl"'},
        )

    @app.post(IMPORT_PATH, tags=["matches"], status_code=201)
    async def import_log(request: Request, table: TableDep, actor: PlayerDep) -> JSON:
        """Import a table log (the request body, JSON Lines) as a new match.
        Refused whole, naming the line, if any line is malformed or illegal."""
        raw = await request.body()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise MalformedEvent("the table log must be UTF-8 text") from None
        return table.import_log(text, actor)

    @app.get("/api/history", tags=["table"])
    async def history(table: TableDep, limit: int = 200, before: int | None = None) -> list[JSON]:
        """The append-only journal, newest first: every change, who made it and when."""
        # SQLite integers stop at 2**63: a larger ``before`` means "from the newest".
        return table.history(max(1, min(limit, 1000)),
                             None if before is None else max(0, min(before, 2**62)))

    @app.put("/api/status/{source}", tags=["live"])
    async def report_status(source: str, body: StatusReport, table: TableDep,
                      actor: PlayerDep) -> JSON:
        """Report a board or camera link status (drivers in other processes)."""
        table.report_status(source, body.link, body.message, body.warnings)
        return {"status": table.status}

    @app.get("/api/join", tags=["join"])
    async def join(request: Request) -> JSON:
        """The address phones should open (an IP address, for the QR code)."""
        settings: Settings = request.app.state.settings
        # The port this request actually reached (the settings may say 0: "any free port").
        server = request.scope.get("server")
        port = int(server[1]) if server and server[1] else settings.port
        url = table_url(request.app.state.public_host, port)
        return {"url": url, "qr": "/api/join/qr.svg"}

    @app.get("/api/join/qr.svg", tags=["join"], response_class=Response)
    async def join_qr(request: Request) -> Response:
        """The join URL as an SVG QR code."""
        return Response(qr_svg((await join(request))["url"]), media_type="image/svg+xml")


def _add_page_routes(app: FastAPI) -> None:
    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(WEB_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/manifest.webmanifest", include_in_schema=False)
    def manifest() -> FileResponse:
        return FileResponse(WEB_DIR / "manifest.webmanifest",
                            media_type="application/manifest+json")

    app.mount("/static", StaticWithCache(directory=WEB_DIR), name="static")


# -- the camera's live view (companion.inputs.camera) --------------------------------------


class CameraRound(_Body):
    moths: dict[str, str] = Field(
        description="Can't Catch Harry: the moth each player grabbed (harry, lamp, cream, grey)")


class TeachDeck(_Body):
    deck: str = Field(description="the deck to teach: star-catcher, star-plus or "
                                  "cant-catch-harry", max_length=40)
    restart: bool = Field(default=False, description="start again from the first card, "
                          "dropping what is being taught now (else: join in)")


class TappedCorners(_Body):
    corners: list[tuple[float, float]] = Field(
        description="the play area's corners in frame pixels, in order top-left, top-right, "
                    "bottom-right, bottom-left (the first player's seat at the bottom)",
        max_length=8)


def _add_camera_routes(app: FastAPI, attachments: Sequence[TableAttachment]) -> None:
    """``/camera`` (the set-up page), its JPEG view, and the Harry round read by the camera.

    The camera is the attachment with a ``live_jpeg`` method; it is looked up here so the
    service never imports OpenCV itself."""
    camera: Any = next((a for a in attachments if callable(getattr(a, "live_jpeg", None))), None)
    absent = "no camera is attached to this table; start it with --camera sim|webcam|picamera2"

    @app.get("/camera", include_in_schema=False)
    def camera_page() -> FileResponse:
        return FileResponse(WEB_DIR / "camera.html", headers={"Cache-Control": "no-cache"})

    _add_camera_setup_routes(app, camera, absent)

    @app.get("/api/camera/frame.jpg", tags=["camera"], response_class=Response)
    async def camera_frame() -> Response:
        """The camera's last frame, each detected card outlined and named ("? glare": unknown,
        and why)."""
        if camera is None or not camera.running:
            return _problem(404, absent)
        data = await asyncio.to_thread(camera.live_jpeg)
        if data is None:
            return _problem(503, "the camera has not delivered a frame yet; check its cable",
                            headers={"Retry-After": "1"})
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.post("/api/camera/round", tags=["camera"], response_model=None)
    async def camera_round(body: CameraRound, actor: PlayerDep) -> JSON | JSONResponse:
        """Can't Catch Harry: enter the round from the hands the camera sees and these moths."""
        if camera is None or not camera.running:
            return _problem(404, absent)
        try:
            events = await asyncio.to_thread(camera.show_round, body.moths)
        except (ValueError, TimeoutError) as exc:
            return _problem(409, str(exc),
                            "the hands laid out in front of each seat, every card readable")
        return {"events": events}

    @app.get("/api/camera/hands", tags=["camera"], response_model=None)
    async def camera_hands() -> JSON | JSONResponse:
        """The cards the camera reads in front of each seat now, and how many it cannot
        read there (Can't Catch Harry, Collector): the phone prefills its hands form with
        them. Enters nothing."""
        answer: JSON | JSONResponse = await _ask_camera(camera, absent, "shown_hands")
        return answer


async def _ask_camera(camera: Any, absent: str, method: str, *args: Any) -> Any:
    """Call the camera's ``method`` off the event loop; its refusals become plain problems.

    The camera's errors are kinds of :mod:`companion.refusals`, each a status in
    :data:`PLAIN_ERRORS` (503 not yet: ask again in ``retry_after`` seconds); a camera that
    does not answer in time is a 503 to retry."""
    if camera is None or not camera.running:
        return _problem(404, absent)
    try:
        return await asyncio.to_thread(getattr(camera, method), *args)
    except TimeoutError:
        return _problem(503, "the camera did not answer in time; try again",
                        headers={"Retry-After": "1"})
    except ValueError as exc:
        retry = exc.retry_after if isinstance(exc, InputNotReady) else None
        headers = {"Retry-After": str(round(retry))} if retry is not None else None
        return _problem(status_of(exc), str(exc), headers=headers)


def _add_camera_setup_routes(app: FastAPI, camera: Any, absent: str) -> None:
    """Teaching the camera a deck and tapping the table's corners, from the ``/camera`` page
    (refusals as in :func:`_ask_camera`)."""

    async def ask(method: str, *args: Any) -> Any:
        return await _ask_camera(camera, absent, method, *args)

    @app.get("/api/camera/enroll", tags=["camera"], response_model=None)
    async def enroll_status() -> JSON | JSONResponse:
        """The deck being taught: the prompt, the last hint, progress (``done`` of
        ``total``), the captured cards, and every deck the camera can be taught."""
        answer: JSON | JSONResponse = await ask("enroll_status")
        return answer

    @app.post("/api/camera/enroll", tags=["camera"], response_model=None)
    async def enroll_start(body: TeachDeck, actor: PlayerDep) -> JSON | JSONResponse:
        """Start teaching a deck from its first card; while it is being taught already, join
        in (``restart``: start again). The camera enters nothing meanwhile; on the last card
        the deck is saved and used."""
        answer: JSON | JSONResponse = await ask("enroll_start", body.deck, body.restart)
        return answer

    @app.post("/api/camera/enroll/redo", tags=["camera"], response_model=None)
    async def enroll_redo(actor: PlayerDep) -> JSON | JSONResponse:
        """Forget the card captured last, to show it again."""
        answer: JSON | JSONResponse = await ask("enroll_redo")
        return answer

    @app.post("/api/camera/enroll/cancel", tags=["camera"], response_model=None)
    async def enroll_cancel(actor: PlayerDep) -> JSON | JSONResponse:
        """Stop teaching; the deck the camera knew before stays as it was."""
        answer: JSON | JSONResponse = await ask("enroll_cancel")
        return answer

    @app.get("/api/camera/enroll/cards/{index}.jpg", tags=["camera"], response_class=Response)
    async def enroll_thumbnail(index: int) -> Response:
        """The picture captured of the deck's card number ``index`` (0-based, deck order)."""
        data = await ask("enroll_thumbnail", index)
        if isinstance(data, JSONResponse):
            return data
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.get("/api/camera/corners", tags=["camera"], response_model=None)
    async def corners() -> JSON | JSONResponse:
        """How the camera knows the table: ``source`` tapped, markers or none; the tapped
        ``corners`` and the ``frame`` size (pixels) they are in."""
        answer: JSON | JSONResponse = await ask("corners")
        return answer

    @app.put("/api/camera/corners", tags=["camera"], response_model=None)
    async def set_corners(body: TappedCorners, actor: PlayerDep) -> JSON | JSONResponse:
        """Use these four corners at once and keep them (they win over the markers)."""
        answer: JSON | JSONResponse = await ask("set_corners", body.corners)
        return answer

    @app.delete("/api/camera/corners", tags=["camera"], response_model=None)
    async def clear_corners(actor: PlayerDep) -> JSON | JSONResponse:
        """Forget the tapped corners: the markers calibrate again when the camera sees them."""
        answer: JSON | JSONResponse = await ask("clear_corners")
        return answer
