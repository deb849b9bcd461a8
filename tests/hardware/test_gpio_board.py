"""GpioBoard on gpiozero's MockFactory: wiring read as the board map says, and debouncing."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from gpiozero import GPIOPinInUse  # type: ignore[import-untyped]

from hardware.boardmap import load_board_map
from hardware.gpio_board import GpioBoard
from tests.hardware.rigs import MockCircuit, mock_gpio

BOARD = load_board_map()


@pytest.fixture
def wired() -> Iterator[tuple[GpioBoard, MockCircuit]]:
    factory, circuit = mock_gpio(BOARD)
    board = GpioBoard(BOARD, pin_factory=factory, scan_hz=250, debounce_ms=12, background=False)
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


def test_a_change_counts_after_the_debounce_scans_and_a_bounce_never(
    wired: tuple[GpioBoard, MockCircuit],
) -> None:
    board, circuit = wired
    assert board.debounce_scans == 3
    circuit.present.discard("U5")
    assert board.scan() == [] and board.scan() == []
    (change,) = board.scan()
    assert (change.sensor_id, change.present) == ("U5", False)
    circuit.present.add("U5")
    board.scan()
    board.scan()
    circuit.present.discard("U5")  # back before the third scan: a bounce
    assert [board.scan() for _ in range(5)] == [[]] * 5
    assert "U5" not in board.snapshot()


def test_pins_already_in_use_are_refused_and_reported() -> None:
    factory, _ = mock_gpio(BOARD)
    first = GpioBoard(BOARD, pin_factory=factory, background=False)
    second = GpioBoard(BOARD, pin_factory=factory, background=False)
    with first, pytest.raises(GPIOPinInUse):
        second.open()
    assert second.link_status.state == "lost"
    assert "cannot claim the GPIO pins" in second.link_status.detail
    factory.reset()
