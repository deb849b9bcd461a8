"""The feed judges a change against the match as it stood when the change came in.

Deterministic: a real ``TableService`` on an event loop in a thread, a source driven by
hand, and the feed's items handled one by one here (its thread is not started), so the
phone's entry lands exactly between a change's arrival and its handling, as it does
when the Pi is busy.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.inputs.board import BoardWorker
from companion.inputs.feed import CurrentMatch, TableLink
from companion.service.live import Hub
from companion.service.store import EventStore
from companion.service.table import TableService
from hardware.boardmap import load_board_map
from hardware.sources import LinkStatus, SensorChange, SensorSource

BOARD = load_board_map()
ROLL = {"type": "roll", "player": "Ann", "value": 4}  # Ann's ship to space 5: a rod


class HandSource(SensorSource):
    """A source whose changes the test makes: no thread, no hardware."""

    def open(self) -> None:
        self._set_present(BOARD.initial_layout())

    def close(self) -> None:
        self._closed()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[TableService]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def make() -> TableService:
        service = TableService(EventStore(tmp_path / "table.sqlite3"), Hub())
        service.loop = loop
        return service

    service = asyncio.run_coroutine_threadsafe(make(), loop).result(5)
    service.run_from_thread(lambda: service.start_match(
        {"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]}, "phone"))
    try:
        yield service
    finally:
        service.run_from_thread(service.store.close)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()


@pytest.fixture
def feed(table: TableService) -> BoardWorker:
    source = HandSource(BOARD)
    source.open()
    feed = BoardWorker(TableLink(table), source, BOARD, tick_seconds=60.0)
    feed.on_status(LinkStatus("connected"))
    feed.handle(*queued(feed))
    return feed


def queued(feed: BoardWorker) -> tuple[object, CurrentMatch | None]:
    """The next item the feed queued: what came in, with the match it was stamped with."""
    item = feed.queue.get(timeout=5)
    assert isinstance(item, tuple) and len(item) == 2, item
    what, seen = item
    assert seen is None or isinstance(seen, CurrentMatch), seen
    return what, seen


def arrive(feed: BoardWorker, sensor_id: str, present: bool,
           at: float = 0.0) -> tuple[object, CurrentMatch | None]:
    """A change comes in from the board (stamped on the loop) but is not handled yet.

    ``at`` is far in the past on the monotonic clock, so the board counts as settled
    as soon as the feed reads it (:meth:`BoardWorker.read`).
    """
    feed.on_change(SensorChange(sensor_id, present, at))
    return queued(feed)


def entries(table: TableService) -> list[dict[str, Any]]:
    return table.run_from_thread(lambda: [e.event for e in table.session.match().entries])


def test_the_catch_mag_put_back_before_the_roll_is_no_failed_catch_however_late_it_is_read(
    table: TableService, feed: BoardWorker,
) -> None:
    lifted = arrive(feed, "REST", False, at=0.0)
    returned = arrive(feed, "REST", True, at=1.5)  # long enough for a try
    table.run_from_thread(lambda: table.add_event(ROLL, "phone"))  # tapped after it was back
    feed.handle(*lifted)
    feed.handle(*returned)
    feed.read()
    assert entries(table) == [ROLL]
    assert feed.warnings() == []


def test_the_catch_mag_lifted_before_the_roll_and_put_back_after_it_is_a_failed_catch(
    table: TableService, feed: BoardWorker,
) -> None:
    lifted = arrive(feed, "REST", False, at=0.0)
    table.run_from_thread(lambda: table.add_event(ROLL, "phone"))
    returned = arrive(feed, "REST", True, at=1.5)
    feed.handle(*lifted)
    feed.handle(*returned)
    feed.read()
    assert entries(table) == [ROLL, {"type": "catch", "player": "Ann", "success": False}]


def test_a_re_grip_is_no_failed_catch(table: TableService, feed: BoardWorker) -> None:
    """The Catch Mag lifted and set back within half a second, then used for the catch."""
    table.run_from_thread(lambda: table.add_event(ROLL, "phone"))
    for item in [arrive(feed, "REST", False, at=0.0), arrive(feed, "REST", True, at=0.4)]:
        feed.handle(*item)
    feed.read()
    assert entries(table) == [ROLL]
    for item in [arrive(feed, "REST", False, at=1.0), arrive(feed, "U5", False, at=1.8),
                 arrive(feed, "S1.green.1", True, at=2.5), arrive(feed, "REST", True, at=3.0)]:
        feed.handle(*item)
    feed.read()
    assert entries(table) == [ROLL, {"type": "catch", "player": "Ann", "success": True,
                                     "color": "green"}]


def test_an_undo_on_the_phone_is_not_entered_again_and_the_difference_is_shown(
    table: TableService, feed: BoardWorker,
) -> None:
    table.run_from_thread(lambda: table.add_event(ROLL, "phone"))
    for item in [arrive(feed, "REST", False, at=0.0), arrive(feed, "U5", False, at=0.8),
                 arrive(feed, "S1.green.1", True, at=1.5), arrive(feed, "REST", True, at=2.0)]:
        feed.handle(*item)
    feed.read()
    assert len(entries(table)) == 2
    table.run_from_thread(lambda: table.undo("phone"))
    feed.read()
    assert entries(table) == [ROLL]  # the board does not undo the phone's undo
    shown = feed.warnings()
    assert len(shown) == 1 and "the rod from space 5 went into Ann's green row" in shown[0]
    # The rod goes back on its space: board and match agree again; Ann is to catch again.
    for item in [arrive(feed, "S1.green.1", False, at=5.0), arrive(feed, "U5", True, at=5.5)]:
        feed.handle(*item)
    feed.read()
    assert entries(table) == [ROLL]
    assert not any("green row" in w for w in feed.warnings())


def test_the_boards_own_events_count_even_when_they_went_in_after_a_change_came(
    table: TableService, feed: BoardWorker,
) -> None:
    table.run_from_thread(lambda: table.add_event(ROLL, "phone"))
    items = [arrive(feed, "REST", False), arrive(feed, "U5", False),
             arrive(feed, "S1.red.1", True), arrive(feed, "U6", False),
             arrive(feed, "S2.red.1", True)]
    for item in items:  # all came in before the catch they make was entered
        feed.handle(*item)
    feed.read()
    assert entries(table)[-1] == {"type": "catch", "player": "Ann", "success": True,
                                  "color": "red"}
    # judged after Ann's catch (Ben is to roll), not as Ben's rod during Ann's turn
    assert [w for w in feed.warnings() if "Ben is to roll" in w] != []
    assert [w for w in feed.warnings() if "Ann's turn" in w] == []
