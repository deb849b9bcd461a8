"""What every route module shares: the strict request body, and the dependencies that
read the running table from ``request.app.state`` (set by the app's lifespan).

Nothing here is a module-level singleton: each request finds its own app's table, so
two apps (two tests) in one process never share state.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from pydantic import BaseModel, ConfigDict

from companion.service.auth import AuthError, TableAuth
from companion.service.guard import StrictJSONRoute
from companion.service.table import TableService

JSON = dict[str, Any]

WEB_DIR = Path(str(resources.files("companion") / "web"))
"""The dashboard's pages, scripts and styles."""


def router() -> APIRouter:
    """An empty router whose JSON bodies are read by the one strict parser (no NaN,
    bounded depth)."""
    return APIRouter(route_class=StrictJSONRoute)


class StrictBody(BaseModel):
    """A request body: an unknown field is refused, not ignored."""

    model_config = ConfigDict(extra="forbid")


def table_service(request: Request) -> TableService:
    """The running table (its lifespan put it on ``app.state``)."""
    table: TableService = request.app.state.table
    return table


def table_auth(request: Request) -> TableAuth:
    """The table's PIN, tokens and join codes."""
    auth: TableAuth = request.app.state.auth
    return auth


def bearer_token(authorization: Annotated[str | None, Header()] = None) -> str | None:
    """The token of ``Authorization: Bearer <token>``, or ``None``."""
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None


class NotAuthorized(AuthError):
    """A change asked for without a signed-in phone's token."""


def require_player(
    auth: Annotated[TableAuth, Depends(table_auth)],
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


TableDep = Annotated[TableService, Depends(table_service)]
AuthDep = Annotated[TableAuth, Depends(table_auth)]
PlayerDep = Annotated[str, Depends(require_player)]
TokenDep = Annotated[str | None, Depends(bearer_token)]
