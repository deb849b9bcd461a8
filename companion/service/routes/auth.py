"""Who may change the table: the PIN traded for a token, who a token is, a new PIN, and
a join code a signed-in phone shows a friend."""

from __future__ import annotations

import asyncio

from fastapi import Request
from pydantic import Field

from companion.service.auth import JOIN_CODE_SECONDS
from companion.service.routes.deps import (
    JSON,
    AuthDep,
    PlayerDep,
    StrictBody,
    TableDep,
    TokenDep,
    bearer_token,
    router,
)

routes = router()


class PinRequest(StrictBody):
    pin: str = Field(description="the table PIN shown on the host screen", max_length=32)
    name: str = Field("", description="a name for this phone in the history", max_length=40)


class NewPin(StrictBody):
    pin: str = Field(description="the new PIN: 4 to 8 digits (6 or more advised)",
                     max_length=32)


@routes.post("/api/auth", tags=["auth"])
async def exchange_pin(body: PinRequest, request: Request, auth: AuthDep,
                       table: TableDep) -> JSON:
    """Trade the table PIN for a token (keep it; send it as a Bearer token).
    Wrong PINs from one address are rate-limited (429 with Retry-After)."""
    client = request.client.host if request.client else "unknown"
    label = body.name.strip() or f"phone {client}"
    signed_in = auth.holder(bearer_token(request.headers.get("authorization"))) is not None
    grant = await auth.exchange(body.pin, client, label, table.now(), signed_in=signed_in)
    return {"token": grant.token, "name": grant.label}


@routes.get("/api/auth/whoami", tags=["auth"])
async def whoami(auth: AuthDep, token: TokenDep) -> JSON:
    """Whether this token may change the table."""
    holder = auth.holder(token)
    return {"player": holder is not None, "name": holder}


@routes.put("/api/auth/pin", tags=["auth"])
async def change_pin(body: NewPin, auth: AuthDep, table: TableDep, actor: PlayerDep,
                     token: TokenDep) -> JSON:
    """Set a new table PIN. Every other phone must enter the new PIN again."""
    assert token is not None  # PlayerDep has checked it
    await auth.change_pin(body.pin, token)
    table.note_pin_change(actor)
    return {"changed": True}


@routes.post("/api/join-codes", tags=["auth"], status_code=201)
async def new_join_code(auth: AuthDep, actor: PlayerDep) -> JSON:
    """A join code for a friend: six digits that work like the PIN for ten minutes (the
    PIN itself is kept only as a hash, so it cannot be shown)."""
    code = await asyncio.to_thread(auth.join_code)  # one scrypt: off the event loop
    return {"code": code, "minutes": round(JOIN_CODE_SECONDS / 60)}
