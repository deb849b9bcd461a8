"""The simulated table at rest (``companion serve`` on simulated hardware, no demo): the
camera page shows cards being read from the start, and they never become a move."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import pytest

from companion.config import CameraSection, CompanionConfig
from companion.inputs import build_attachments
from companion.inputs.camera import CameraFeed
from companion.inputs.demo import SHOWCASE_CARDS, SimShowcase
from tests.camera.conftest import SIZE, CameraTable
from tests.live_table import live_table


def until(what: str, test: Callable[[], bool], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not test():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


def named(table: CameraTable) -> set[str]:
    """The cards the camera names in its live view now (what the camera page draws)."""
    _, detections, _ = table.feed._running_worker().live_view()
    return {d.card for d in detections if d.card is not None}


@pytest.fixture
def resting_table(tmp_path: Path) -> Iterator[CameraTable]:
    cv2.setNumThreads(1)
    feed = CameraFeed(CameraSection(source="sim", width=SIZE[0], height=SIZE[1]),
                      store=tmp_path / "decks", max_fps=30.0, flush_after=0.4)
    with live_table(tmp_path, [feed, SimShowcase(feed, period=0.1)], timeout=15) as live:
        table = CameraTable(live.url, live.http, live.headers, feed, live.watcher)
        table.wait_link("connected")
        yield table


def entries(table: CameraTable) -> int:
    match = table.http.get("/api/state").json()["match"]
    return len(match["entries"]) if match else 0


def test_cards_lie_on_the_table_and_are_read_before_any_match(resting_table: CameraTable
                                                               ) -> None:
    table = resting_table
    until("cards on the simulated table", lambda: len(table.sim.cards) == SHOWCASE_CARDS)
    laid = {c.card for c in table.sim.cards}
    until("the camera names them", lambda: len(named(table) & laid) >= SHOWCASE_CARDS - 1)
    assert named(table) <= laid  # nothing named that is not there


def test_they_stay_out_of_the_way_of_every_match(resting_table: CameraTable) -> None:
    table = resting_table
    until("cards on the simulated table", lambda: len(table.sim.cards) == SHOWCASE_CARDS)
    # Star Plus is played in front of the seats: the centre's cards are not a move
    table.start_match({"game": "star-plus", "players": ["Ann", "Ben"]})
    until("cards of the Star Plus deck", lambda: len(table.sim.cards) == SHOWCASE_CARDS
          and table.sim.deck == "star-plus")
    laid = {c.card for c in table.sim.cards}
    until("the camera names them", lambda: len(named(table) & laid) >= SHOWCASE_CARDS - 1)
    time.sleep(1.5)  # longer than a play takes to settle (flush_after)
    assert entries(table) == 0
    # Star Catcher is played in the centre: its table is the players', and stays clear
    table.start_match({"game": "star-catcher", "players": ["Ann", "Ben"]})
    for _ in range(15):
        assert table.sim.cards == []
        time.sleep(0.1)
    assert entries(table) == 0


def test_companion_serve_on_simulated_hardware_lays_them_out() -> None:
    config = CompanionConfig()
    assert (config.camera.source, config.board.source) == ("sim", "sim")
    kinds = [type(a).__name__ for a in build_attachments(config)]
    assert kinds == ["BoardFeed", "CameraFeed", "SimShowcase"]
    demo = [type(a).__name__ for a in build_attachments(config, demo=True)]
    assert "SimShowcase" not in demo  # the bots' hands lay the cards then
