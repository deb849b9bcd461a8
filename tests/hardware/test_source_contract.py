"""One contract, every sensor source: the Pico firmware (MicroPython) over a pty,
the simulated board over a pty, and the Pi's GPIO on gpiozero's MockFactory."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hardware.boardmap import load_board_map
from hardware.sources import LinkStatus, SensorChange
from tests.hardware.rigs import Rig, make_rig, node_ready, wait_changes, wait_for

BOARD = load_board_map()
KINDS = ["simulated", "gpio", "micropython"]


@pytest.fixture(params=KINDS)
def rig(request: pytest.FixtureRequest) -> Iterator[Rig]:
    if request.param == "micropython" and not node_ready():
        pytest.fail("node and tests/firmware/node_modules are needed (npm ci in tests/firmware)")
    made = make_rig(request.param, BOARD)
    try:
        assert wait_for(lambda: made.source.link_status.state == "connected", 5), \
            made.source.link_status
        yield made
    finally:
        made.close()


def pairs(changes: list[SensorChange]) -> list[tuple[str, bool]]:
    return [(c.sensor_id, c.present) for c in changes]


def test_starts_connected_believing_what_the_board_shows(rig: Rig) -> None:
    assert rig.source.link_status.state == "connected"
    assert rig.source.snapshot() == BOARD.initial_layout()
    assert rig.source.drain() == []  # the first sync is a belief, not a list of changes


def test_reports_a_lift_then_a_placement_in_order(rig: Rig) -> None:
    rig.lift("U5")
    assert pairs(wait_changes(rig.source, 1)) == [("U5", False)]
    rig.place("S1.red.1")
    assert pairs(wait_changes(rig.source, 1)) == [("S1.red.1", True)]
    assert "U5" not in rig.source.snapshot()
    assert "S1.red.1" in rig.source.snapshot()


def test_subscribers_see_each_change_once_until_they_unsubscribe(rig: Rig) -> None:
    heard: list[SensorChange] = []
    stop = rig.source.subscribe(heard.append)
    rig.lift("REST")
    assert wait_for(lambda: len(heard) == 1)
    stop()
    rig.place("REST")
    assert pairs(wait_changes(rig.source, 2)) == [("REST", False), ("REST", True)]
    assert pairs(heard) == [("REST", False)]


def test_a_wobble_shorter_than_the_debounce_is_not_reported(rig: Rig) -> None:
    rig.wobble("U8")
    rig.lift("U9")  # a real change afterwards proves the link kept flowing
    assert pairs(wait_changes(rig.source, 1)) == [("U9", False)]
    assert rig.source.drain() == []


def test_many_changes_at_once_all_arrive(rig: Rig) -> None:
    moved = [f"S2.{color}.{slot}" for color in ("red", "blue") for slot in range(1, 6)]
    for sensor_id in moved:  # ten sensors: more than one change frame
        rig.place(sensor_id)
    got = wait_changes(rig.source, len(moved))
    assert sorted(pairs(got)) == sorted((s, True) for s in moved)
    assert set(moved) <= rig.source.snapshot()


def test_status_subscribers_hear_when_the_source_closes(rig: Rig) -> None:
    heard: list[LinkStatus] = []
    rig.source.subscribe_status(heard.append)
    rig.source.close()
    assert [s.state for s in heard] == ["lost"]
    assert rig.source.link_status.state == "lost"
    assert list(rig.source.changes()) == []  # ends at once: no timeout needed


def test_a_failing_subscriber_does_not_stop_the_reader(rig: Rig) -> None:
    def broken(change: SensorChange) -> None:
        raise RuntimeError("a bug in the dashboard")

    rig.source.subscribe(broken)
    rig.lift("U11")
    assert pairs(wait_changes(rig.source, 1)) == [("U11", False)]
    rig.place("U11")
    assert pairs(wait_changes(rig.source, 1)) == [("U11", True)]
    assert rig.source.link_status.state == "connected"
