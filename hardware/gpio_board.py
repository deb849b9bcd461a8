"""The board read straight from the Pi's GPIO: gpiozero drives the multiplexers itself.

Four :class:`gpiozero.DigitalOutputDevice` select lines are shared by every
74HC4067; each multiplexer's common output goes to one
:class:`gpiozero.DigitalInputDevice` with the pull-up on (the Hall switches
are open-drain, a magnet pulls the line low). A thread scans at the board
map's rate and debounces exactly as the firmware does: in time, a new level
must hold ``debounce_ms`` before it counts. It measures itself as the
firmware does too (:attr:`GpioBoard.scan_speed`).

Tests run it on gpiozero's ``MockFactory`` (see ``tests/hardware``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from gpiozero import (  # type: ignore[import-untyped]  # gpiozero ships no type hints
    DigitalInputDevice,
    DigitalOutputDevice,
    GPIODeviceError,
)
from gpiozero.pins import Factory  # type: ignore[import-untyped]

from hardware.boardmap import BoardMap, load_board_map
from hardware.sources import ScanSpeed, SensorChange, SensorSource

log = logging.getLogger(__name__)


class Debouncer:
    """Per-sensor debouncing in time: a new level must hold ``hold`` seconds to count.

    The first scan that sees it starts the clock; the first scan at least
    ``hold`` later that still sees it reports the change. Going back restarts it.

    >>> d = Debouncer(0.005, initial=[False])
    >>> [d.update([True], now=t / 1000) for t in (0, 2, 4, 5)]
    [[], [], [], [(0, True)]]
    >>> d.update([False], 0.010), d.update([True], 0.012), d.update([False], 0.013)
    ([], [], [])
    >>> d.update([False], 0.0179), d.update([False], 0.018)
    ([], [(0, False)])
    """

    def __init__(self, hold: float, initial: list[bool]) -> None:
        if hold < 0:
            raise ValueError(f"debounce time cannot be negative, got {hold}")
        self.hold = hold
        self.stable = list(initial)
        self._since: list[float | None] = [None] * len(initial)

    def update(self, raw: list[bool], now: float) -> list[tuple[int, bool]]:
        """Feed one scan's raw levels at time ``now``; return the (index, level) changes."""
        changes = []
        stable, since = self.stable, self._since
        for i, level in enumerate(raw):
            if level != stable[i]:
                started = since[i]
                if started is None:
                    started = since[i] = now
                if now - started >= self.hold - 1e-9:  # float times: 5 ms is 5 ms
                    stable[i] = level
                    since[i] = None
                    changes.append((i, level))
            elif since[i] is not None:
                since[i] = None
        return changes


SPEED_INTERVAL_S = 0.25
"""Like the firmware's heartbeat: the scan speed is measured over this interval."""


class GpioBoard(SensorSource):
    """Sensor changes scanned by the Pi itself."""

    def __init__(self, board: BoardMap | None = None, *, pin_factory: Factory | None = None,
                 scan_hz: int | None = None, debounce_ms: int | None = None,
                 clock: Callable[[], float] = time.monotonic, background: bool = True) -> None:
        super().__init__(board or load_board_map())
        self.pin_factory = pin_factory
        self.background = background
        """Scan in a thread of our own; ``False``: the caller calls :meth:`scan` itself."""
        self.scan_hz = scan_hz or self.board.scan_hz
        self.debounce_ms = self.board.debounce_ms if debounce_ms is None else debounce_ms
        self.debounce_scans = 1 + -(-self.debounce_ms * self.scan_hz // 1000)
        """Scans at ``scan_hz`` that see a new level before it counts."""
        self.clock = clock
        """Time for the debounce and for each change's ``at``."""
        self._select: list[DigitalOutputDevice] = []
        self._inputs: list[DigitalInputDevice] = []
        self._debouncer: Debouncer | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.scans = 0
        self._speed: ScanSpeed | None = None
        self._interval_start = 0.0
        self._interval_scans = 0
        self._slowest = 0.0
        # (channel, mux) -> sensor index, in the order a scan reads them
        self._order = sorted(range(len(self.board.sensors)),
                             key=lambda i: (self.board.sensors[i].channel,
                                            self.board.sensors[i].mux))

    def open(self) -> None:
        if self._select:
            return
        pins = self.board.gpio
        try:
            self._select = [DigitalOutputDevice(p, pin_factory=self.pin_factory)
                            for p in pins.select]
            self._inputs = [DigitalInputDevice(p, pull_up=True, pin_factory=self.pin_factory)
                            for p in pins.mux_out]
        except (GPIODeviceError, OSError, ValueError) as exc:
            self._release()
            self._set_status("lost", f"cannot claim the GPIO pins ({exc})")
            raise
        first = self.read_all()
        self._debouncer = Debouncer(self.debounce_ms / 1000, first)
        self._interval_start = time.perf_counter()
        sensors = self.board.sensors
        self._set_present(frozenset(sensors[i].id for i, on in enumerate(first) if on))
        self._set_status("connected", "")
        if self.background:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="gpio-board", daemon=True)
            self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._release()
        self._closed()

    def _release(self) -> None:
        for device in [*self._select, *self._inputs]:
            device.close()
        self._select, self._inputs = [], []

    def read_all(self) -> list[bool]:
        """One raw scan: every sensor's level, magnet present = True, in board-map order."""
        levels = [False] * len(self.board.sensors)
        sensors = self.board.sensors
        channel = -1
        for index in self._order:
            sensor = sensors[index]
            if sensor.channel != channel:
                channel = sensor.channel
                for bit, line in enumerate(self._select):
                    line.value = (channel >> bit) & 1
            # gpiozero maps pull_up=True to active-low: is_active means the line is low
            active = self._inputs[sensor.mux].is_active
            levels[index] = active if self.board.active_low else not active
        return levels

    @property
    def scan_speed(self) -> ScanSpeed | None:
        return self._speed

    def scan(self) -> list[SensorChange]:
        """One debounced scan (the thread calls this; tests may call it directly)."""
        assert self._debouncer is not None, "open() the board first"
        began = time.perf_counter()
        now = self.clock()
        found = self._debouncer.update(self.read_all(), now)
        self.scans += 1
        self._measure(began, time.perf_counter())
        sensors = self.board.sensors
        changes = [SensorChange(sensors[i].id, present, now) for i, present in found]
        for change in changes:
            self._emit(change)
        return changes

    def _measure(self, began: float, ended: float) -> None:
        self._interval_scans += 1
        self._slowest = max(self._slowest, ended - began)
        elapsed = ended - self._interval_start
        if elapsed >= SPEED_INTERVAL_S:
            self._speed = ScanSpeed(self._interval_scans / elapsed, self._slowest, self.scan_hz)
            self._interval_start, self._interval_scans, self._slowest = ended, 0, 0.0

    def _run(self) -> None:
        period = 1.0 / self.scan_hz
        deadline = time.monotonic()
        while not self._stop.is_set():
            try:
                self.scan()
            except Exception as exc:  # a failing pin read must not end the scanner
                log.exception("GPIO scan failed")
                self._set_status("lost", f"GPIO read failed ({exc})")
                self._stop.wait(0.5)
                continue
            if self.link_status.state != "connected":
                self._set_status("connected", "")
            deadline += period
            wait = deadline - time.monotonic()
            if wait < -period:
                deadline = time.monotonic()
            self._stop.wait(max(0.0, wait))
