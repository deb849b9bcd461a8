"""The table service's routes, one :class:`~fastapi.APIRouter` module per subject.

========================  ==============================================================
module                    what it answers
========================  ==============================================================
:mod:`.table`             the table now (``/api/state``, ``/api/games``), the live stream,
                          link status from inputs in other processes
:mod:`.auth`              the PIN traded for a token, who a token is, a new PIN, a
                          join code for a friend
:mod:`.join`              the address phones open, and its QR code
:mod:`.matches`           matches and their events: start, resume, enter, check, undo,
                          correct
:mod:`.history`           the journal, and a match exported or imported as a table log
:mod:`.camera`            the ``/camera`` page and everything it asks the camera
:mod:`.pages`             the dashboard's pages
:mod:`.display`           the table display (``/display``), for a tablet or TV
:mod:`.deps`              what they share: the strict body, the ``Annotated`` dependencies
========================  ==============================================================

Every route reads the running table from ``request.app.state`` through a dependency; none holds
state of its own.
"""

from __future__ import annotations

from fastapi import APIRouter

from companion.service.routes import (
    auth,
    camera,
    display,
    history,
    join,
    matches,
    pages,
    table,
)

ROUTERS: tuple[APIRouter, ...] = (
    table.routes, auth.routes, matches.routes, history.routes, join.routes, pages.routes,
    display.routes, camera.routes,
)
"""Every router, in the order the app includes them."""

__all__ = ["ROUTERS"]
