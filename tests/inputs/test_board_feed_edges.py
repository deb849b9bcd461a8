"""The board feed at its edges: no board, a missing device, a bad board map, closing."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from companion.config import BoardSection
from companion.games.catch_mag import RULES
from companion.inputs.board import BoardFeed, BoardFeedError
from companion.service import Settings, create_app
from hardware.boardmap import BoardMapError

PIN = "2468"


def test_no_board_configured_is_refused_plainly() -> None:
    with pytest.raises(BoardFeedError, match="source is 'none'"):
        BoardFeed(BoardSection(source="none"))


def test_a_broken_board_map_is_refused_when_the_feed_is_built(tmp_path: Path) -> None:
    broken = tmp_path / "boardmap.toml"
    broken.write_text("name = [unclosed", encoding="utf-8")
    with pytest.raises(BoardMapError, match="not valid TOML"):
        BoardFeed(BoardSection(source="sim", map=broken))


def test_a_missing_serial_device_shows_lost_and_the_table_still_works(tmp_path: Path) -> None:
    device = str(tmp_path / "no-such-pico")
    feed = BoardFeed(BoardSection(source="serial", device=device))
    app = create_app(Settings(data_dir=tmp_path / "table", pin=PIN, mdns=False,
                              public_host="127.0.0.1"), attachments=[feed])
    with TestClient(app) as client:
        deadline = time.monotonic() + 5
        while True:
            board = client.get("/api/state").json()["status"].get("board")
            if board is not None and "no board on" in board["message"]:
                break
            assert time.monotonic() < deadline, f"no 'lost' status for the board: {board}"
            time.sleep(0.05)
        assert board["link"] == "lost" and device in board["message"]
        assert feed.simulator is None
        token = client.post("/api/auth", json={"pin": PIN}).json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        started = client.post("/api/matches", json={"game": "catch-mag",
                                                    "players": ["Ann", "Ben"]}, headers=headers)
        assert started.status_code == 201
        rolled = client.post("/api/events", headers=headers, json={
            "event": {"type": "roll", "player": "Ann", "value": 4}})
        assert rolled.status_code == 201
        # No simulated hands behind a real port: the caller must enter it another way.
        state = RULES.play(RULES.new_state({"type": "setup", "game": "catch-mag",
                                            "players": ["Ann", "Ben"]}),
                           {"type": "roll", "player": "Ann", "value": 4})[1]
        catch = {"type": "catch", "player": "Ann", "success": True, "color": "red"}
        assert feed.perform(catch, state) is False
        closing = time.monotonic()
    assert time.monotonic() - closing < 2.0, "closing the feed took too long"
    assert feed.source is None


def test_the_simulated_board_does_no_hand_moves_for_a_roll(tmp_path: Path) -> None:
    feed = BoardFeed(BoardSection(source="sim"))
    app = create_app(Settings(data_dir=tmp_path / "table", pin=PIN, mdns=False,
                              public_host="127.0.0.1"), attachments=[feed])
    with TestClient(app):
        sim = feed.simulator
        assert sim is not None
        before = sim.present
        state = RULES.new_state({"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]})
        assert feed.perform({"type": "roll", "player": "Ann", "value": 3}, state) is False
        assert sim.present == before
    assert feed.simulator is None
