"""The base every input stands on (companion/inputs/feed.py), on a real table service.

The table is a real :class:`TableService` over a real SQLite file, its event
loop running in a thread as under uvicorn; a small worker stands in for an
input, so each promise of the base is seen on its own: a failing step is
logged and the loop goes on, work handed to the thread runs there, a stop
answers what was still asked at once, and the status reaches the dashboard
once per change.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from companion.games.errors import TableEventError
from companion.inputs.feed import FeedStopped, FeedWorker, Notices, TableLink
from companion.refusals import InputRefused
from companion.service.live import Hub
from companion.service.store import EventStore
from companion.service.table import TableService

TIMEOUT = 10.0


@pytest.fixture
def table(tmp_path: Path) -> Iterator[TableService]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="event-loop", daemon=True)
    thread.start()
    with EventStore(tmp_path / "table.sqlite3") as store:
        service = TableService(store, Hub())
        service.loop = loop
        yield service
        if not loop.is_closed():
            loop.call_soon_threadsafe(loop.stop)
            thread.join(TIMEOUT)
            loop.close()


def eventually(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.01)


class Probe(FeedWorker):
    """A stand-in input: counts its steps, fails when told, reports ``state``."""

    def __init__(self, table: TableService, fail_first: int = 0) -> None:
        super().__init__(TableLink(table), "probe", period=0.01)
        self.steps = 0
        self.failed = 0
        self.fail_first = fail_first
        self.state = ("connected", "")
        self.gate = threading.Event()
        self.gate.set()
        self.closed = False

    def step(self) -> None:
        self.gate.wait(TIMEOUT)
        self.steps += 1
        if self.steps <= self.fail_first:
            self.failed += 1
            raise RuntimeError(f"step {self.steps} broke")

    def link(self) -> tuple[str, str]:
        return self.state

    def closing(self) -> None:
        self.closed = True


def test_a_failing_step_is_logged_and_the_feed_carries_on(
    table: TableService, caplog: pytest.LogCaptureFixture
) -> None:
    probe = Probe(table, fail_first=1000)  # every step fails: a broken driver
    with caplog.at_level(logging.ERROR, logger="companion.inputs.feed"):
        probe.start()
        try:
            # still answering and reporting, and stepping again after each failure
            assert probe.call(lambda: "here") == "here"
            eventually(lambda: "probe" in table.status, "the status reported")
            probe.fail_first = probe.steps + 1  # the driver comes back after one more
            eventually(lambda: probe.steps - probe.failed > 2, "steps that work")
        finally:
            probe.stop()
    failures = [r for r in caplog.records if "probe feed failed" in r.getMessage()]
    assert len(failures) == probe.failed > 0
    assert all(r.exc_info and "broke" in str(r.exc_info[1]) for r in failures)
    assert probe.closed


def test_work_handed_over_runs_on_the_feed_thread_and_its_error_comes_back(
    table: TableService,
) -> None:
    probe = Probe(table)
    probe.start()
    try:
        assert probe.call(lambda: threading.current_thread().name) == "probe-feed"

        def refuse() -> None:
            raise InputRefused("not now")

        with pytest.raises(InputRefused, match="not now"):
            probe.call(refuse)
        assert probe.steps > 0  # the loop still runs
    finally:
        probe.stop()
    with pytest.raises(FeedStopped, match="the probe is not running"):
        probe.call(lambda: 1)


def test_stopping_answers_what_was_still_asked_at_once(table: TableService) -> None:
    probe = Probe(table)
    probe.start()
    probe.gate.clear()  # the next step hangs (a slow frame): asks queue up meanwhile
    eventually(lambda: probe.steps > 0, "a first step")
    answers: list[BaseException | int] = []

    def ask() -> None:
        try:
            answers.append(probe.call(lambda: 1, timeout=TIMEOUT))
        except BaseException as exc:
            answers.append(exc)

    asker = threading.Thread(target=ask)
    asker.start()
    eventually(lambda: not probe._requests.empty(), "the ask queued")
    stopper = threading.Thread(target=probe.stop)
    stopper.start()
    eventually(lambda: probe.stopping, "the stop asked for")
    probe.gate.set()  # the slow step ends; the loop sees the stop and takes no more
    stopper.join(TIMEOUT)
    asker.join(TIMEOUT)
    assert len(answers) == 1 and isinstance(answers[0], FeedStopped), answers
    assert probe.closed


def test_the_status_reaches_the_table_once_per_change(table: TableService) -> None:
    phone = table.hub.subscribe()  # what a phone's stream would send
    probe = Probe(table)
    probe.start()
    try:
        eventually(lambda: table.status.get("probe", {}).get("link") == "connected",
                   "the first status")
        seen = probe.steps
        eventually(lambda: probe.steps > seen + 5, "more steps")
        assert phone.queue.qsize() == 1  # nothing changed: nothing more sent
        probe.state = ("lost", "no frames")
        eventually(lambda: table.status["probe"]["link"] == "lost", "the lost link")
        assert table.status["probe"]["message"] == "no frames"
        probe.notices.add("put the card back")
        eventually(lambda: table.status["probe"]["warnings"] == ["put the card back"],
                   "the warning")
        assert phone.queue.qsize() == 3
    finally:
        probe.stop()


def test_the_link_reads_the_current_match_and_says_when_the_table_is_down(
    table: TableService, tmp_path: Path
) -> None:
    link = TableLink(table)
    assert bool(link.up) and link.current() is None
    assert link.data_dir == tmp_path
    setup = {"type": "setup", "game": "star-catcher", "players": ["Ann", "Ben"]}
    link.run(lambda: table.start_match(setup, actor="phone"))
    current = link.current()
    assert current is not None
    assert current.game == "star-catcher" and current.log[0]["players"] == ["Ann", "Ben"]
    assert current.state is not None and current.entries == ()
    link.submit({"type": "table", "cards": ["D1", "D2", "D3", "D4"]}, actor="camera")
    current = link.current()
    assert current is not None and [a for _, a, _ in current.entries] == ["camera"]
    assert current.log[1]["cards"] == ["D1", "D2", "D3", "D4"] and current.events == 1
    stamped: queue.SimpleQueue[int | None] = queue.SimpleQueue()
    link.run(lambda: link.with_current(lambda c: stamped.put(None if c is None else c.events))
             and table.add_event({"type": "play", "player": "Ann", "card": "D5",
                                  "take": ["D1", "D4"]}, "phone"))
    assert stamped.get(timeout=TIMEOUT) == 2  # stamped when the loop got to it: after
    loop = table.loop
    assert loop is not None
    loop.call_soon_threadsafe(loop.stop)
    eventually(lambda: not loop.is_running(), "the loop stopped")
    loop.close()
    assert not link.up
    assert link.current() is None
    assert not link.report("probe", "lost", "", [])
    assert not link.with_current(lambda c: None)


def test_an_input_replaces_only_its_own_entry_and_only_while_later_ones_still_fit(
    table: TableService,
) -> None:
    link = TableLink(table)
    assert link.replace_own("board", {}, {}) == "there is no current match"
    link.run(lambda: table.start_match(
        {"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]}, actor="phone"))
    roll = {"type": "roll", "player": "Ann", "value": 4}  # her ship to space 5: a rod
    red = {"type": "catch", "player": "Ann", "success": True, "color": "red"}
    green = {**red, "color": "green"}
    link.submit(roll, actor="board")
    link.submit(red, actor="phone")
    assert link.replace_own("board", red, green) == "the board's entry is no longer in the match"
    with pytest.raises(TableEventError, match="the corrected event is refused"):
        link.replace_own("board", roll, {**roll, "player": "Ben"})  # not his turn
    notices = Notices()
    assert link.enter({"type": "roll", "player": "Ben", "value": 2}, "phone", notices)
    ben = {"type": "roll", "player": "Ben", "value": 3}
    assert not link.enter(ben, "board", notices)  # Ben rolled already
    [refused] = notices.texts()
    assert refused.startswith("the board saw a roll (player Ben, value 3) but the table "
                              "refused it: ") and refused.endswith("enter it on a phone if it "
                                                                   "was right")
    link.submit({"type": "catch", "player": "Ben", "success": False}, actor="phone")
    assert link.replace_own("board", roll, {**roll, "value": 6}) == \
        "later entries would no longer fit"
    assert link.replace_own("board", roll, {**roll, "value": 1}) is None
    current = link.current()
    assert current is not None
    assert [e[1:] for e in current.entries[:2]] == [("board", {**roll, "value": 1}),
                                                    ("phone", red)]


def test_notices_go_after_their_time_and_the_newest_stay() -> None:
    now = [0.0]
    notices = Notices(seconds=20.0, cap=3, clock=lambda: now[0])
    for text in ("a", "b", "c", "d"):
        notices.add(text)
        now[0] += 5.0
    assert notices.texts() == ["b", "c", "d"]  # capped: the oldest went
    now[0] = 5.0 + 20.0  # "b" was given at 5 s
    assert notices.texts() == ["c", "d"]
    notices.add("c")  # given again: moves to the end, shown once
    assert notices.texts() == ["d", "c"] and notices.given == 5


def test_a_pinned_notice_stays_first_and_a_notice_goes_once_its_sensor_is_touched() -> None:
    now = [0.0]
    notices = Notices(seconds=20.0, cap=2, clock=lambda: now[0])
    notices.add("put the rod back on space 9", about={"U9", "S1.red.1"})
    notices.add("the table refused a catch")
    notices.pin("set the board up")
    notices.add("put the super joker back", about={"G3"})  # capped: the oldest went
    assert notices.texts() == ["set the board up", "the table refused a catch",
                               "put the super joker back"]
    notices.forget("G3")
    now[0] = 100.0  # the others expire; the pinned one waits for the board
    assert notices.texts() == ["set the board up"]
    notices.pin("set the board up")  # the same state again: not a new warning
    assert notices.given == 4
    notices.add("another")
    notices.clear()
    assert notices.texts() == []


def test_a_step_waiting_for_input_is_woken_by_the_stop(table: TableService) -> None:
    class Waiting(Probe):
        """Blocks on its queue as an event-driven input does (the board's changes)."""

        def __init__(self, table: TableService) -> None:
            super().__init__(table)
            self.inbox: queue.SimpleQueue[object] = queue.SimpleQueue()

        def step(self) -> None:
            self.steps += 1
            with contextlib.suppress(queue.Empty):
                self.inbox.get(timeout=3 * TIMEOUT)

        def wake(self) -> None:
            self.inbox.put(None)

    waiting = Waiting(table)
    waiting.start()
    eventually(lambda: waiting.steps > 0, "a step waiting")
    waiting.stop(timeout=TIMEOUT)  # not woken, it would still be waiting after this
    assert not waiting._thread.is_alive() and waiting.closed
