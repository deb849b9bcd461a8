"""What every sensor source offers: changes, a snapshot and a link status.

A source is a small device class over a back-end (the Pico over serial, the
Pi's GPIO, the simulator): open it as a context manager, then either iterate
:meth:`SensorSource.changes` or :meth:`SensorSource.subscribe` a callback.

>>> SensorChange("U12", present=False, at=1.5)
SensorChange(sensor_id='U12', present=False, at=1.5)
>>> LinkStatus("lost", "no board on /dev/ttyACM0").state
'lost'
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal, Self

from hardware.boardmap import BoardMap

LinkState = Literal["connected", "resyncing", "lost"]
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SensorChange:
    """A sensor's debounced state changed: a magnet arrived (``present``) or left."""

    sensor_id: str
    present: bool
    at: float
    """``time.monotonic()`` on the Pi when the change was received."""


@dataclass(frozen=True)
class LinkStatus:
    """How far the Pi can trust what it believes about the board.

    ``connected``: in step with the board. ``resyncing``: frames were lost or
    garbled, a snapshot is on its way. ``lost``: no board is talking (cable
    pulled, wrong port, different firmware); ``detail`` says which.
    """

    state: LinkState
    detail: str = ""
    since: float = field(default_factory=time.monotonic)


@dataclass(frozen=True)
class ScanSpeed:
    """How fast the scanner itself says it runs (the Pico's heartbeat, or the Pi's own count).

    >>> ScanSpeed(998, 0.00071, 1000).below_target
    False
    >>> ScanSpeed(164, 0.0062, 1000).below_target
    True
    """

    scans_per_s: float
    """Full scans of every sensor in the last interval, per second."""
    slowest_scan_s: float
    """The longest single scan in that interval."""
    target_hz: int
    """The rate the board map asks for."""

    @property
    def below_target(self) -> bool:
        """More than 2 % under the map's rate (a timer's rounding is not a problem)."""
        return self.scans_per_s < 0.98 * self.target_hz


_CLOSED = object()


class SensorSource(ABC):
    """The interface every sensor back-end implements.

    Subclasses call :meth:`_emit` for each change and :meth:`_set_status`
    when the link changes; everything else (subscribers, the change queue,
    the context manager) lives here.
    """

    def __init__(self, board: BoardMap) -> None:
        self.board = board
        self._lock = threading.Lock()
        self._subscribers: list[Callable[[SensorChange], None]] = []
        self._status_subscribers: list[Callable[[LinkStatus], None]] = []
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._present: frozenset[str] = frozenset()
        self._status = LinkStatus("lost", "not opened yet")

    # -- the device's life ---------------------------------------------------

    @abstractmethod
    def open(self) -> None:
        """Start reading (usually a background thread). Never blocks for long."""

    @abstractmethod
    def close(self) -> None:
        """Stop reading and release the hardware; safe to call twice."""

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # -- what users read -----------------------------------------------------

    def snapshot(self) -> frozenset[str]:
        """Ids of the sensors that see a magnet, as currently believed.

        Trust it only while :attr:`link_status` is ``connected``.
        """
        return self._present

    @property
    def link_status(self) -> LinkStatus:
        return self._status

    @property
    def scan_speed(self) -> ScanSpeed | None:
        """The scanner's own measurement of its speed, once it has one (``None``: not known)."""
        return None

    def subscribe(self, on_change: Callable[[SensorChange], None]) -> Callable[[], None]:
        """Call ``on_change`` (from the reader thread) for every change; returns an unsubscriber."""
        with self._lock:
            self._subscribers.append(on_change)
        return lambda: self._remove(self._subscribers, on_change)

    def subscribe_status(self, on_status: Callable[[LinkStatus], None]) -> Callable[[], None]:
        """Call ``on_status`` whenever the link status changes; returns an unsubscriber."""
        with self._lock:
            self._status_subscribers.append(on_status)
        return lambda: self._remove(self._status_subscribers, on_status)

    def changes(self, timeout: float | None = None) -> Iterator[SensorChange]:
        """Changes as they come; ends when the source closes or ``timeout`` passes in silence."""
        while True:
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                return
            if item is _CLOSED:
                return
            assert isinstance(item, SensorChange)
            yield item

    def drain(self) -> list[SensorChange]:
        """Every change queued so far, without waiting."""
        out: list[SensorChange] = []
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return out
            if isinstance(item, SensorChange):
                out.append(item)

    # -- for back-ends -------------------------------------------------------

    def _remove(self, listeners: list[Callable[..., None]], listener: Callable[..., None]) -> None:
        with self._lock:
            if listener in listeners:
                listeners.remove(listener)

    def _emit(self, change: SensorChange) -> None:
        with self._lock:
            if change.present:
                self._present = self._present | {change.sensor_id}
            else:
                self._present = self._present - {change.sensor_id}
            listeners = list(self._subscribers)
        self._queue.put(change)
        for listener in listeners:
            _call(listener, change)

    def _closed(self) -> None:
        """Back-ends call this at the end of :meth:`close`: ends every ``changes()`` loop."""
        self._set_status("lost", "closed")
        self._queue.put(_CLOSED)

    def _set_present(self, present: frozenset[str]) -> None:
        """Replace the belief without emitting (used when a link first syncs)."""
        with self._lock:
            self._present = present

    def _set_status(self, state: LinkState, detail: str = "") -> None:
        with self._lock:
            if self._status.state == state and self._status.detail == detail:
                return
            self._status = LinkStatus(state, detail)
            status = self._status
            listeners = list(self._status_subscribers)
        for listener in listeners:
            _call(listener, status)


def _call(listener: Callable[[Any], None], value: object) -> None:
    """A subscriber's bug must not stop the reader thread: log it and carry on."""
    try:
        listener(value)
    except Exception:
        log.exception("a sensor subscriber failed on %r", value)
