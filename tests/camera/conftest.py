"""A real table service (uvicorn, SQLite) with the simulated camera attached.

The simulated camera renders the virtual table; the frames go through the
real calibration, detection, identification, tracker and game adapters.
Phones are plain HTTP clients with a PIN token; an SSE client watches.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import httpx
import pytest

from companion.config import CameraSection
from companion.inputs.camera import CameraFeed
from tests.live_table import Watcher, live_table
from tests.service.sse import SseEvent
from vision.simtable import SimCameraSource, SimTable

REPO = Path(__file__).resolve().parents[2]
SIZE = (800, 450)
"""Frames the simulated camera renders: cards about 58 px wide, read reliably and fast."""

Event = dict[str, Any]


def normalized(event: Event) -> Event:
    """An event in one spelling: lists that are sets sorted, an empty ``take`` dropped.

    >>> normalized({"type": "play", "card": "D1", "take": []})
    {'type': 'play', 'card': 'D1'}
    """
    out = dict(event)
    if "take" in out:
        out["take"] = sorted(out["take"])
        if not out["take"]:
            del out["take"]
    if out.get("type") == "table":  # the deal: four cards, in no particular order
        out["cards"] = sorted(out["cards"])
    if isinstance(out.get("hands"), dict):
        out["hands"] = {p: sorted(h) for p, h in out["hands"].items()}
    return out


def entry_like(event: Event) -> Callable[[SseEvent], bool]:
    """A test for the live-stream frame that adds ``event`` (in any spelling) to the match."""
    wanted = normalized(event)

    def test(frame: SseEvent) -> bool:
        entry = frame.data.get("entry") if frame.kind == "change" else None
        return isinstance(entry, dict) and normalized(entry["event"]) == wanted
    return test


def status_of(frame: SseEvent, source: str) -> dict[str, Any] | None:
    status = frame.data.get("status") if isinstance(frame.data, dict) else None
    if isinstance(status, dict) and isinstance(status.get(source), dict):
        found: dict[str, Any] = status[source]
        return found
    return None


@dataclass
class CameraTable:
    url: str
    http: httpx.Client
    headers: dict[str, str]
    feed: CameraFeed
    watcher: Watcher

    @property
    def sim(self) -> SimTable:
        assert self.feed.sim is not None
        return self.feed.sim

    @property
    def camera(self) -> SimCameraSource:
        source = self.feed.source
        assert isinstance(source, SimCameraSource)
        return source

    def post_event(self, event: Event) -> Event:
        response = self.http.post("/api/events", json={"event": event}, headers=self.headers)
        assert response.status_code == 201, response.text
        body: Event = response.json()
        return body

    def start_match(self, setup: Event) -> int:
        options = {k: v for k, v in setup.items() if k not in ("type", "game", "players")}
        body = {"game": setup["game"], "players": setup["players"], "options": options}
        response = self.http.post("/api/matches", json=body, headers=self.headers)
        assert response.status_code == 201, response.text
        match_id: int = response.json()["id"]
        # the camera follows the new match (and clears the simulated table) before play
        deadline = time.monotonic() + 5
        while self.feed.following != match_id:
            assert time.monotonic() < deadline, "the camera never followed the new match"
            time.sleep(0.02)
        return match_id

    def camera_status(self) -> dict[str, Any] | None:
        for frame in reversed(self.watcher.seen):
            found = status_of(frame, "camera")
            if found is not None:
                return found
        return None

    def wait_link(self, state: str, timeout: float = 5.0) -> None:
        current = self.camera_status()
        if current is not None and current.get("link") == state:
            return

        def shows(frame: SseEvent) -> bool:
            found = status_of(frame, "camera")
            return found is not None and found.get("link") == state
        self.watcher.wait_for(shows, timeout, f"the camera link {state!r}", consume=False,
                              start=len(self.watcher.seen))

    def check_against_replay(self, match_id: int, events: list[Event], tmp: Path) -> Event:
        """Every event reached the stream in order, and the totals are ``companion replay``'s."""
        changes = [f for f in self.watcher.seen if f.kind == "change"]
        seqs = [f.data["seq"] for f in changes]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "a gap in the live stream"
        streamed = [f.data["entry"]["event"] for f in changes if "entry" in f.data]
        assert streamed == events
        log = self.http.get(f"/api/matches/{match_id}/log.jsonl")
        assert log.status_code == 200
        path = tmp / "exported.jsonl"
        path.write_text(log.text, encoding="utf-8")
        replayed = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(path)],
                                  capture_output=True, text=True, cwd=REPO, timeout=30,
                                  check=True)
        result: Event = json.loads(replayed.stdout)
        last = changes[-1].data["summary"]
        assert result["totals"] == last["totals"]
        assert result["finished"] == last["finished"]
        assert result["winners"] == last.get("winners", result["winners"])
        return result


CAMERA_TIMEOUT = 15.0
"""Seconds the camera may take to enter what the simulated table shows."""


def camera_entry(table: CameraTable, test: Callable[[SseEvent], bool], warned: int,
                 what: str) -> SseEvent | None:
    """The stream frame ``test`` picks out, entered by the camera; ``None`` if the camera
    asked for the phone instead (a card it could not read) after ``warned`` warnings."""
    deadline = time.monotonic() + CAMERA_TIMEOUT
    while True:
        try:
            return table.watcher.wait_for(test, 0.5, what)
        except AssertionError as exc:
            warnings = table.feed.warnings
            if table.feed.warning_count > warned and any("on the phone" in w for w in warnings):
                return None
            if time.monotonic() > deadline:
                raise AssertionError(f"{exc}; camera warnings: {warnings}; on the simulated "
                                     f"table: {[c.card for c in table.sim.cards]}") from None


@contextmanager
def serving(tmp_path: Path, feed: CameraFeed, wait_for: str = "connected"
            ) -> Iterator[CameraTable]:
    """A real table server with ``feed`` attached, a phone logged in, an SSE watcher."""
    with live_table(tmp_path, [feed], timeout=15) as live:
        table = CameraTable(live.url, live.http, live.headers, feed, live.watcher)
        table.wait_link(wait_for)
        yield table
    assert not feed.running, "the camera feed did not stop"


@pytest.fixture
def camera_table(tmp_path: Path) -> Iterator[CameraTable]:
    cv2.setNumThreads(1)  # the Pi budget: one core for the camera
    feed = CameraFeed(CameraSection(source="sim", width=SIZE[0], height=SIZE[1]),
                      store=tmp_path / "decks", max_fps=60.0, flush_after=0.4)
    with serving(tmp_path, feed) as table:
        yield table
