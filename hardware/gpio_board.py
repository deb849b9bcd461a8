"""The board read straight from the Pi's GPIO: gpiozero drives the multiplexers itself.

Four :class:`gpiozero.DigitalOutputDevice` select lines are shared by every
74HC4067; each multiplexer's common output goes to one
:class:`gpiozero.DigitalInputDevice` with the pull-up on (the Hall switches
are open-drain, a magnet pulls the line low). A thread scans at the board
map's rate and debounces exactly as the firmware does.

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
from hardware.sources import SensorChange, SensorSource

log = logging.getLogger(__name__)


class Debouncer:
    """Per-sensor debouncing: a new level must hold ``scans`` consecutive scans to count.

    >>> d = Debouncer(3, initial=[False])
    >>> [d.update([True]) for _ in range(3)]
    [[], [], [(0, True)]]
    >>> d.update([False]), d.update([True]), d.update([False]), d.update([False])
    ([], [], [], [])
    """

    def __init__(self, scans: int, initial: list[bool]) -> None:
        if scans < 1:
            raise ValueError(f"debounce needs at least 1 scan, got {scans}")
        self.scans = scans
        self.stable = list(initial)
        self._counts = [0] * len(initial)

    def update(self, raw: list[bool]) -> list[tuple[int, bool]]:
        """Feed one scan's raw levels; return the (index, level) changes that finished."""
        changes = []
        stable, counts = self.stable, self._counts
        for i, level in enumerate(raw):
            if level != stable[i]:
                counts[i] += 1
                if counts[i] >= self.scans:
                    stable[i] = level
                    counts[i] = 0
                    changes.append((i, level))
            elif counts[i]:
                counts[i] = 0
        return changes


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
        debounce = self.board.debounce_ms if debounce_ms is None else debounce_ms
        self.debounce_scans = max(1, -(-debounce * self.scan_hz // 1000))
        self.clock = clock
        self._select: list[DigitalOutputDevice] = []
        self._inputs: list[DigitalInputDevice] = []
        self._debouncer: Debouncer | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.scans = 0
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
        self._debouncer = Debouncer(self.debounce_scans, first)
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

    def scan(self) -> list[SensorChange]:
        """One debounced scan (the thread calls this; tests may call it directly)."""
        assert self._debouncer is not None, "open() the board first"
        found = self._debouncer.update(self.read_all())
        self.scans += 1
        now = self.clock()
        sensors = self.board.sensors
        changes = [SensorChange(sensors[i].id, present, now) for i, present in found]
        for change in changes:
            self._emit(change)
        return changes

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
