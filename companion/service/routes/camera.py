"""The overhead camera, from a phone: ``/camera`` (the set-up page), its live view,
teaching it a deck, tapping the table's corners, and the hands it reads (a Can't
Catch Harry round, Collector's reveal).

The camera is whatever attachment is a :class:`~companion.service.controls.CameraControl`
(found by :func:`find_camera` when the app is made); the service never imports it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Annotated, ParamSpec, TypeVar

from fastapi import Depends, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from pydantic import Field

from companion.refusals import InputNotFound, InputNotReady, InputRefused
from companion.service.controls import CameraControl
from companion.service.routes.deps import JSON, WEB_DIR, PlayerDep, StrictBody, router

P = ParamSpec("P")
R = TypeVar("R")

ABSENT = "no camera is attached to this table; start it with --camera sim|webcam|picamera2"

routes = router()


class NoCamera(InputNotFound):
    """No camera is attached, or it has stopped."""


class CameraTimedOut(InputNotReady):
    """The camera's worker did not answer in time (it is busy, or stuck on its source)."""


def find_camera(attachments: Sequence[object]) -> CameraControl | None:
    """The first of ``attachments`` that is a camera, if any."""
    return next((a for a in attachments if isinstance(a, CameraControl)), None)


def running_camera(request: Request) -> CameraControl:
    """The table's camera while it runs; :class:`NoCamera` (404) otherwise."""
    camera: CameraControl | None = request.app.state.camera
    if camera is None or not camera.running:
        raise NoCamera(ABSENT)
    return camera


CameraDep = Annotated[CameraControl, Depends(running_camera)]


async def ask(call: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``call(*args)`` off the event loop (the camera's worker answers it).

    Its refusals are kinds of :mod:`companion.refusals`, each a status at the web edge
    (503 not yet, with ``Retry-After``); a camera that does not answer in time is a 503
    to retry, and any other ``ValueError`` a plain 409."""
    try:
        return await asyncio.to_thread(call, *args, **kwargs)
    except TimeoutError:
        raise CameraTimedOut("the camera did not answer in time; try again") from None
    except InputRefused:
        raise
    except ValueError as exc:
        raise InputRefused(str(exc)) from exc


def jpeg(data: bytes) -> Response:
    return Response(data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})


class CameraRound(StrictBody):
    moths: dict[str, str] = Field(
        description="Can't Catch Harry: the moth each player grabbed (harry, lamp, cream, grey)")


class TeachDeck(StrictBody):
    deck: str = Field(description="the deck to teach: star-catcher, star-plus or "
                                  "cant-catch-harry", max_length=40)
    restart: bool = Field(default=False, description="start again from the first card, "
                          "dropping what is being taught now (else: join in)")
    back: bool = Field(default=False, description="teach only the back of a deck taught "
                       "already (one card laid face down): the camera then says a card face "
                       "down is one, whatever its back shows")


class TappedCorners(StrictBody):
    corners: list[tuple[float, float]] = Field(
        description="the play area's corners in frame pixels, in order top-left, top-right, "
                    "bottom-right, bottom-left (the first player's seat at the bottom)",
        max_length=8)


@routes.get("/camera", include_in_schema=False)
def camera_page() -> FileResponse:
    return FileResponse(WEB_DIR / "camera.html", headers={"Cache-Control": "no-cache"})


@routes.get("/api/camera/frame.jpg", tags=["camera"], response_class=Response)
async def camera_frame(camera: CameraDep) -> Response:
    """The camera's last frame, each detected card outlined and named ("? glare": unknown,
    and why)."""
    data = await asyncio.to_thread(camera.live_jpeg)
    if data is None:
        raise InputNotReady("the camera has not delivered a frame yet; check its cable")
    return jpeg(data)


@routes.post("/api/camera/round", tags=["camera"], response_model=None)
async def camera_round(body: CameraRound, actor: PlayerDep,
                       camera: CameraDep) -> JSON | JSONResponse:
    """Can't Catch Harry: enter the round from the hands the camera sees and these moths."""
    try:
        events = await asyncio.to_thread(camera.show_round, body.moths)
    except (ValueError, TimeoutError) as exc:
        # Whatever the refusal, the way out is the same: lay the hands out again.
        return JSONResponse({"detail": str(exc), "expected":
                             "the hands laid out in front of each seat, every card readable"},
                            status_code=409)
    return {"events": events}


@routes.get("/api/camera/hands", tags=["camera"])
async def camera_hands(camera: CameraDep) -> JSON:
    """The cards the camera reads in front of each seat now, and how many it cannot
    read there (Can't Catch Harry, Collector): the phone prefills its hands form with
    them. Enters nothing."""
    return await ask(camera.shown_hands)


@routes.get("/api/camera/enroll", tags=["camera"])
async def enroll_status(camera: CameraDep) -> JSON:
    """The deck being taught: the prompt, the last hint, progress (``done`` of
    ``total``), the captured cards, and every deck the camera can be taught."""
    return await ask(camera.enroll_status)


@routes.post("/api/camera/enroll", tags=["camera"])
async def enroll_start(body: TeachDeck, actor: PlayerDep, camera: CameraDep) -> JSON:
    """Start teaching a deck from its first card; while it is being taught already, join
    in (``restart``: start again). The camera enters nothing meanwhile; on the last card
    the deck is saved and used. ``back``: teach the back of a deck taught already (409
    where its cards were not taught yet)."""
    return await ask(camera.enroll_start, body.deck, body.restart, body.back)


@routes.post("/api/camera/enroll/redo", tags=["camera"])
async def enroll_redo(actor: PlayerDep, camera: CameraDep) -> JSON:
    """Forget the card captured last, to show it again."""
    return await ask(camera.enroll_redo)


@routes.post("/api/camera/enroll/cancel", tags=["camera"])
async def enroll_cancel(actor: PlayerDep, camera: CameraDep) -> JSON:
    """Stop teaching; the deck the camera knew before stays as it was."""
    return await ask(camera.enroll_cancel)


@routes.get("/api/camera/enroll/cards/{index}.jpg", tags=["camera"], response_class=Response)
async def enroll_thumbnail(index: int, camera: CameraDep) -> Response:
    """The picture captured of the deck's card number ``index`` (0-based, deck order)."""
    return jpeg(await ask(camera.enroll_thumbnail, index))


@routes.get("/api/camera/corners", tags=["camera"])
async def corners(camera: CameraDep) -> JSON:
    """How the camera knows the table: ``source`` tapped, markers or none; the tapped
    ``corners`` and the ``frame`` size (pixels) they are in."""
    return await ask(camera.corners)


@routes.put("/api/camera/corners", tags=["camera"])
async def set_corners(body: TappedCorners, actor: PlayerDep, camera: CameraDep) -> JSON:
    """Use these four corners at once and keep them (they win over the markers)."""
    return await ask(camera.set_corners, body.corners)


@routes.delete("/api/camera/corners", tags=["camera"])
async def clear_corners(actor: PlayerDep, camera: CameraDep) -> JSON:
    """Forget the tapped corners: the markers calibrate again when the camera sees them."""
    return await ask(camera.clear_corners)
