"""GpioBoard on gpiozero's MockFactory: wiring read as the board map says, and debouncing."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import pytest
from gpiozero import GPIOPinInUse  # type: ignore[import-untyped]

from hardware.boardmap import load_board_map
from hardware.gpio_board import GpioBoard
from tests.hardware.rigs import MockCircuit, mock_gpio

BOARD = load_board_map()


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def wired(clock: Clock) -> Iterator[tuple[GpioBoard, MockCircuit]]:
    factory, circuit = mock_gpio(BOARD)
    board = GpioBoard(BOARD, pin_factory=factory, scan_hz=1000, debounce_ms=5, clock=clock,
                      background=False)
    with board:
        yield board, circuit
    factory.reset()


def test_every_sensor_is_read_through_its_own_mux_and_channel(
    wired: tuple[GpioBoard, MockCircuit],
) -> None:
    board, circuit = wired
    rng = random.Random(3)
    for _ in range(5):
        circuit.present = set(rng.sample(BOARD.ids, 60))
        levels = board.read_all()
        assert {s.id for s, on in zip(BOARD.sensors, levels, strict=True) if on} == \
            circuit.present


def scans(board: GpioBoard, clock: Clock, count: int, every_ms: float) -> list[list[str]]:
    out = []
    for _ in range(count):
        out.append([f"{c.sensor_id}:{c.present}" for c in board.scan()])
        clock.now += every_ms / 1000
    return out


def test_a_change_counts_once_it_held_for_the_debounce_time_and_a_bounce_never(
    wired: tuple[GpioBoard, MockCircuit], clock: Clock,
) -> None:
    board, circuit = wired
    circuit.present.discard("U5")
    # first seen at 0 ms, still there at 5 ms: reported then, not before
    assert scans(board, clock, 6, 1.0) == [[]] * 5 + [["U5:False"]]
    circuit.present.add("U5")
    assert scans(board, clock, 4, 1.0) == [[]] * 4
    circuit.present.discard("U5")  # back after 4 ms: a bounce
    assert scans(board, clock, 10, 1.0) == [[]] * 10
    assert "U5" not in board.snapshot()


def test_the_debounce_is_time_not_a_count_of_scans(
    wired: tuple[GpioBoard, MockCircuit], clock: Clock,
) -> None:
    board, circuit = wired
    circuit.present.add("S1.red.1")
    # slow scans (a busy Pi): two scans 5 ms apart are enough
    assert scans(board, clock, 2, 5.0) == [[], ["S1.red.1:True"]]
    circuit.present.discard("S1.red.1")
    # fast scans: 20 scans within 4.75 ms are not
    assert scans(board, clock, 20, 0.25) == [[]] * 20


def test_the_board_measures_its_own_scan_rate(wired: tuple[GpioBoard, MockCircuit]) -> None:
    board, _ = wired
    before = board.scan_speed  # a local: scanning changes what the board reports
    assert before is None  # nothing measured yet
    started = time.perf_counter()
    deadline = started + 0.6
    while time.perf_counter() < deadline:
        board.scan()
    elapsed = time.perf_counter() - started
    speed = board.scan_speed
    assert speed is not None and speed.target_hz == 1000
    # no figure is asserted (a busy machine stalls any scan): the slowest scan is one of
    # those made, and the rate counts them
    assert speed.scans_per_s > 0 and 0 < speed.slowest_scan_s <= elapsed


def test_pins_already_in_use_are_refused_and_reported() -> None:
    factory, _ = mock_gpio(BOARD)
    first = GpioBoard(BOARD, pin_factory=factory, background=False)
    second = GpioBoard(BOARD, pin_factory=factory, background=False)
    with first, pytest.raises(GPIOPinInUse):
        second.open()
    assert second.link_status.state == "lost"
    assert "cannot claim the GPIO pins" in second.link_status.detail
    factory.reset()
