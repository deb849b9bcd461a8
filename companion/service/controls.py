"""What the web layer asks of an attached input, as typed protocols.

The service never imports an input (the camera lives in :mod:`companion.inputs`
and loads OpenCV): it says here what it calls, and the input conforms. ``mypy``
checks the conformance where the input is defined, so renaming a method breaks
the type check, not a request at the table.

Every call may block (it waits for the input's worker thread): the routes make
it off the event loop. A refusal is one of the kinds in :mod:`companion.refusals`,
whose status the web edge knows; a :class:`TimeoutError` means the input did not
answer in time.

>>> class NoCamera:
...     running = False
>>> isinstance(NoCamera(), CameraControl)
False
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

JSON = dict[str, Any]


@runtime_checkable
class CameraControl(Protocol):
    """The overhead camera, as the ``/camera`` page and the hands forms use it."""

    @property
    def running(self) -> bool:
        """Whether the camera's worker runs (it may still have no picture)."""
        ...

    def live_jpeg(self) -> bytes | None:
        """The last frame with every detected card outlined; ``None`` before one."""
        ...

    def show_round(self, moths: Mapping[str, str]) -> list[JSON]:
        """Can't Catch Harry: read the shown hands and enter the round; the events."""
        ...

    def shown_hands(self) -> JSON:
        """The hands shown in front of each seat now; enters nothing."""
        ...

    def enroll_status(self) -> JSON:
        """The deck being taught: prompt, hint, progress, captured cards."""
        ...

    def enroll_start(self, deck: str, restart: bool = False, back: bool = False) -> JSON:
        """Start teaching ``deck`` (or join in; ``restart``: from its first card; ``back``:
        only the back of a deck taught already)."""
        ...

    def enroll_redo(self) -> JSON:
        """Forget the card captured last."""
        ...

    def enroll_cancel(self) -> JSON:
        """Stop teaching; the deck known before stays."""
        ...

    def enroll_thumbnail(self, index: int) -> bytes:
        """The captured picture of card number ``index`` (0-based), as JPEG."""
        ...

    def corners(self) -> JSON:
        """How the camera knows the table: tapped corners, markers or none."""
        ...

    def set_corners(self, points: Sequence[tuple[float, float]]) -> JSON:
        """Use and keep four tapped corners (frame pixels: TL, TR, BR, BL)."""
        ...

    def clear_corners(self) -> JSON:
        """Forget the tapped corners."""
        ...


__all__ = ["CameraControl"]
