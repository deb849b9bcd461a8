"""The shown hands preview (``GET /api/camera/hands``) through the simulated camera.

The hands are laid in front of the seats on the simulated table, some cards
face down (the camera finds them and tells their backs). The preview
must name the right cards per seat, count the unread ones, enter nothing, and
say plainly why it cannot answer (no camera, no markers, the wrong game, a
pulled cable).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from companion.games import rules_for
from companion.games.collector import random_setup as collector_setup
from companion.games.match import Match
from companion.service import Settings, create_app
from tests.camera.conftest import CameraTable
from tests.camera.shown import camera_table_with_backs, lay

PLAYERS = ["Ann", "Ben"]


@pytest.fixture
def table(tmp_path: Path) -> Iterator[CameraTable]:
    with camera_table_with_backs(tmp_path) as running:
        yield running


def preview(table: CameraTable, wait_for: int = 200, timeout: float = 8.0) -> httpx.Response:
    """``GET /api/camera/hands``, asked again while it answers otherwise (the camera is
    still calibrating or reading) until ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        response = table.http.get("/api/camera/hands")
        if response.status_code == wait_for or time.monotonic() > deadline:
            return response
        time.sleep(0.1)


def entries(table: CameraTable, match_id: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = table.http.get(f"/api/matches/{match_id}").json()["entries"]
    return found


def test_the_harry_hands_are_read_per_seat_and_the_phone_sends_the_round(
        table: CameraTable) -> None:
    match_id = table.start_match({"game": "cant-catch-harry", "players": PLAYERS})
    empty = preview(table)
    assert empty.status_code == 200, empty.text
    assert empty.json() == {"match": match_id, "game": "cant-catch-harry",
                            "hands": {"Ann": [], "Ben": []}, "unread": {"Ann": 0, "Ben": 0},
                            "face_down": {"Ann": 0, "Ben": 0},
                            "notes": []}

    lay(table, {"Ann": ["harry"] * 4 + ["fox"], "Ben": ["mom", "james", "twin"]}, {"Ben": 1})
    response = preview(table)
    assert response.status_code == 200, response.text
    shown = response.json()
    assert shown["hands"] == {"Ann": ["fox", "harry", "harry", "harry", "harry"],
                              "Ben": ["james", "mom", "twin"]}
    assert shown["unread"] == shown["face_down"] == {"Ann": 0, "Ben": 1}
    assert shown["notes"] == ["1 card in Ben's area lies face down: turn it up or tap it in"]
    assert entries(table, match_id) == []  # a preview enters nothing

    # the phone taps in the face-down card (a hand holds 4, or 5 mid-pass) and the moths,
    # and sends the round as its own
    hands = {**shown["hands"], "Ben": [*shown["hands"]["Ben"], "teacher"]}
    sent = table.post_event({"type": "round", "hands": hands,
                             "moths": {"Ann": "harry", "Ben": "lamp"}})
    assert sent["entry"]["actor"] == "Ann's phone"
    assert sent["summary"]["totals"]["Ann"] > 0

    # two cards face down are counted in the plural
    table.sim.clear()
    lay(table, {"Ann": ["lamp"], "Ben": []}, {"Ann": 2})
    twice = preview(table).json()
    assert (twice["hands"], twice["unread"]) == ({"Ann": ["lamp"], "Ben": []},
                                                 {"Ann": 2, "Ben": 0})
    assert twice["notes"] == ["2 cards in Ann's area lie face down: turn them up or tap "
                              "them in"]
    assert len(entries(table, match_id)) == 1

    # the camera has nothing to say about a Star Plus match's hands
    table.start_match({"game": "star-plus", "players": PLAYERS})
    wrong = preview(table, wait_for=409)
    assert wrong.status_code == 409, wrong.text
    assert "Can't Catch Harry or Collector" in wrong.json()["detail"]

    # a pulled cable: the camera cannot tell what is shown now
    table.camera.unplug()
    table.wait_link("lost")
    lost = table.http.get("/api/camera/hands")
    assert lost.status_code == 503, lost.text
    assert lost.headers["retry-after"] == "1"
    assert "not delivering frames" in lost.json()["detail"]


def test_the_collector_reveal_is_read_once_the_markers_are_laid(table: CameraTable) -> None:
    rng = random.Random(8)  # a game whose end leaves Ben four cards in hand
    setup = collector_setup(rng, PLAYERS)
    match_id = table.start_match(setup)
    # Collector is played without markers: the camera cannot tell the seats apart
    unknown = preview(table, wait_for=409)
    assert unknown.status_code == 409, unknown.text
    assert "ArUco markers" in unknown.json()["detail"]

    mirror = Match(setup)
    rules = rules_for("collector")
    while not mirror.state.awaiting_reveal:
        event = rules.random_event(mirror.state, rng)
        mirror.push(table.post_event(event)["entry"]["event"])
    counts = mirror.summary()["hand_counts"]
    assert counts == {"Ann": 0, "Ben": 4}

    # the family lays the four markers, then Ben shows his hand: three face up, one face down
    table.sim.reset("standard", PLAYERS, markers=True)
    unseen = table.http.post("/api/query", json={"query": "unseen", "args": {}}).json()["cards"]
    # court cards: their big letters read surely at this size; this tests the preview,
    # not how well the standard deck reads (the benchmark does that)
    courts = [c for c in unseen if c[0] in "JQK"]
    lay(table, {"Ann": [], "Ben": courts[:3]}, {"Ben": 1})
    response = preview(table)
    assert response.status_code == 200, response.text
    shown = response.json()
    assert shown["game"] == "collector" and shown["match"] == match_id
    assert shown["hands"] == {"Ann": [], "Ben": sorted(courts[:3])}
    assert shown["unread"] == shown["face_down"] == {"Ann": 0, "Ben": 1}
    # the standard deck's reader tells a back from a card it cannot read, as a taught one does
    assert shown["notes"] == ["1 card in Ben's area lies face down: turn it up or tap it in"]
    assert len(entries(table, match_id)) == len(mirror.events)  # nothing entered

    # the phone taps in the face-down card and sends the reveal: the match is scored
    hands = {"Ann": [], "Ben": [*shown["hands"]["Ben"], courts[3]]}
    sent = table.post_event({"type": "reveal", "hands": hands})
    assert sent["entry"]["actor"] == "Ann's phone"
    assert sent["summary"]["finished"] is True


def test_without_a_camera_the_preview_says_so(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "table", mdns=False)
    with TestClient(create_app(settings)) as client:
        response = client.get("/api/camera/hands")
    assert response.status_code == 404
    assert response.json() == {"detail": "no camera is attached to this table; start it with "
                                         "--camera sim|webcam|picamera2"}
