"""A real table service (uvicorn, SQLite) with the simulated Catch Mag board attached."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from companion.config import BoardSection
from companion.inputs.board import BoardFeed
from hardware.simulated import SimulatedBoard
from tests.live_table import Watcher, live_table
from tests.service.sse import SseEvent


@dataclass
class BoardTable:
    url: str
    http: httpx.Client
    headers: dict[str, str]
    feed: BoardFeed
    watcher: Watcher

    @property
    def sim(self) -> SimulatedBoard:
        sim = self.feed.simulator
        assert sim is not None
        return sim

    def post_event(self, event: dict[str, Any]) -> dict[str, Any]:
        response = self.http.post("/api/events", json={"event": event}, headers=self.headers)
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        return body

    def start_match(self, players: list[str]) -> int:
        response = self.http.post("/api/matches", json={"game": "catch-mag", "players": players},
                                  headers=self.headers)
        assert response.status_code == 201, response.text
        match_id: int = response.json()["id"]
        return match_id

    def wait_link(self, state: str, timeout: float = 5.0) -> None:
        def shows(event: SseEvent) -> bool:
            board = event.data.get("status", {}).get("board") if event.kind in (
                "status", "snapshot") else None
            return isinstance(board, dict) and board.get("link") == state
        current = self.watcher.board_status()
        if current is not None and current.get("link") == state:
            return
        self.watcher.wait_for(shows, timeout, f"the board link {state!r}", consume=False,
                              start=len(self.watcher.seen))


@pytest.fixture
def board_table(tmp_path: Path) -> Iterator[BoardTable]:
    feed = BoardFeed(BoardSection(source="sim"))
    with live_table(tmp_path, [feed]) as live:
        table = BoardTable(live.url, live.http, live.headers, feed, live.watcher)
        table.wait_link("connected")
        yield table
    assert feed.source is None, "the board feed did not close"
