"""Choosing a sensor source from a setting, and the checks ``companion doctor`` shows.

``companion serve --board SPEC`` and ``companion doctor`` call
:func:`make_source` with the user's choice:

* ``sim``: a :class:`SimulatedBoard` on a pty read through the real serial
  path (its ``simulator`` attribute takes hand movements);
* ``gpio``: the Pi's own GPIO driving the multiplexers;
* ``auto``: the first Pico found under ``/dev/serial/by-id`` (then ``ttyACM*``);
* anything else: a serial port path.

>>> make_source("gpio").__class__.__name__
'GpioBoard'
"""

from __future__ import annotations

import glob
from collections.abc import Iterable

from hardware.boardmap import BoardMap, load_board_map
from hardware.gpio_board import GpioBoard
from hardware.serial_board import SerialBoard
from hardware.simulated import SimulatedBoard
from hardware.sources import SensorSource

BY_ID_PATTERNS = ("/dev/serial/by-id/*MicroPython*", "/dev/serial/by-id/*Pico*",
                  "/dev/serial/by-id/*", "/dev/ttyACM*")


class SimulatedSerialBoard(SerialBoard):
    """A :class:`SerialBoard` reading its own :class:`SimulatedBoard`, opened and closed as one."""

    def __init__(self, board: BoardMap, *, scan_hz: int | None = None,
                 debounce_ms: int | None = None) -> None:
        self.simulator = SimulatedBoard(board, scan_hz=scan_hz, debounce_ms=debounce_ms)
        super().__init__(self.simulator.port, board, retry_interval=0.1)

    def open(self) -> None:
        self.simulator.start()
        super().open()

    def close(self) -> None:
        super().close()
        self.simulator.stop()


def find_board_port(patterns: Iterable[str] = BY_ID_PATTERNS) -> str | None:
    """The most specific serial device present: a stable by-id name before a ttyACM number."""
    for pattern in patterns:
        found = sorted(glob.glob(pattern))
        if found:
            return found[0]
    return None


def make_source(spec: str, board: BoardMap | None = None) -> SensorSource:
    """A closed sensor source for ``spec`` (open it, or use it as a context manager)."""
    board = board or load_board_map()
    if spec == "sim":
        return SimulatedSerialBoard(board)
    if spec == "gpio":
        return GpioBoard(board)
    if spec == "auto":
        # No Pico plugged in yet: watch the usual name; the reader retries until one appears.
        return SerialBoard(find_board_port() or "/dev/ttyACM0", board)
    return SerialBoard(spec, board)


def setup_problems(board: BoardMap, present: frozenset[str]) -> list[str]:
    """What differs from a board set up for a new game, in words for ``companion doctor``.

    >>> b = load_board_map()
    >>> setup_problems(b, b.initial_layout() - {"U12"} | {"S1.red.1"})
    ['nothing seen on universe space 12: a rod belongs there (or its sensor is dead)', \
'a magnet on station 1, red row, slot 1: stations start empty (or its sensor is stuck)']
    """
    expected = board.initial_layout()
    out = []
    for sensor in board.sensors:
        if sensor.id in expected and sensor.id not in present:
            what = {"rod-space": "a rod", "joker-space": "a joker ball",
                    "super-joker": "a super joker", "rest": "the Catch Mag"}[sensor.role]
            out.append(f"nothing seen on {sensor.label}: {what} belongs there "
                       "(or its sensor is dead)")
        elif sensor.id in present and sensor.id not in expected:
            out.append(f"a magnet on {sensor.label}: stations start empty "
                       "(or its sensor is stuck)")
    return out
