"""Card games played through rendered frames: simulated hands, the real vision path, the table.

Bots choose each move with the engine's random playout. A move the camera can
show is made on the simulated table (cards laid, taken away) and must reach the
table as the camera's entry; what only a phone can enter (Star Plus draws,
Star Catcher's last card of a round that catches nothing) goes through the HTTP
API with a PIN token. An SSE client watches throughout; at the end the stream
holds every event in order and ``companion replay`` of the exported log gives
the same scores.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.games import rules_for
from companion.games.collector import random_setup as collector_setup
from companion.games.match import Match
from companion.inputs.demo import CameraHands
from tests.camera.conftest import CameraTable, Event, camera_entry, entry_like

PLAYERS = ["Ann", "Ben"]
def play(table: CameraTable, mirror: Match, rng: random.Random, *,
         done: Callable[[Match], bool],
         act: Callable[[Event, Any], bool] | None = None,
         max_events: int = 200) -> dict[str, int]:
    """Play until ``done(mirror)``; counts of events entered by the camera and by phone."""
    rules = rules_for(mirror.setup["game"])
    act = act or CameraHands(table.feed).perform
    counts = {"camera": 0, "phone": 0, "asked": 0}
    for _ in range(max_events):
        if done(mirror):
            return counts
        state = mirror.state
        event = rules.random_event(state, rng)
        warned = table.feed.warning_count
        if act(event, state):
            frame = camera_entry(table, entry_like(event), warned, f"the camera's {event}")
            if frame is None:
                # the camera asked for help (a card it could not read): as a player would
                table.post_event(event)
                frame = table.watcher.wait_for(entry_like(event), what=f"the phone's {event}")
                counts["asked"] += 1
            else:
                assert frame.data["actor"] == "camera", frame.data
                counts["camera"] += 1
        else:
            table.post_event(event)
            frame = table.watcher.wait_for(entry_like(event), what=f"the phone's {event}")
            counts["phone"] += 1
        mirror.push(frame.data["entry"]["event"])
    raise AssertionError(f"not done after {max_events} events")


def test_a_round_of_star_catcher_through_the_camera(camera_table: CameraTable,
                                                     tmp_path: Path) -> None:
    table = camera_table
    setup: Event = {"type": "setup", "game": "star-catcher", "players": PLAYERS}
    match_id = table.start_match(setup)
    mirror = Match(setup)
    counts = play(table, mirror, random.Random(5),
                  done=lambda m: m.finished or m.state.round > 1)
    # the deals and nearly every play came from the camera; no move needs a phone by rule
    assert counts["phone"] == 0, counts
    assert counts["asked"] <= 4, counts  # under 10 %: the camera misread a card
    result = table.check_against_replay(match_id, mirror.events, tmp_path)
    assert result["totals"] == mirror.summary()["totals"]
    assert sum(result["totals"].values()) > 0
    assert table.camera_status() == {**(table.camera_status() or {}), "link": "connected"}


def test_a_whole_star_plus_match_through_the_camera(camera_table: CameraTable,
                                                    tmp_path: Path) -> None:
    table = camera_table
    setup: Event = {"type": "setup", "game": "star-plus", "players": PLAYERS}
    match_id = table.start_match(setup)
    mirror = Match(setup)
    counts = play(table, mirror, random.Random(0), done=lambda m: m.finished)
    kinds = [e["type"] for e in mirror.events]
    # the draws are the phone's, every play the camera's (unless it asked for help)
    assert counts["phone"] == kinds.count("draw")
    assert counts["camera"] == kinds.count("play") - counts["asked"], counts
    assert counts["asked"] <= 3, counts
    result = table.check_against_replay(match_id, mirror.events, tmp_path)
    assert result["finished"] is True and result["winners"]


def harry_by_phone_and_camera(table: CameraTable) -> Callable[[Event, Any], bool]:
    """Lay the shown hands out before the camera, then a phone sends only the moths."""

    def act(event: Event, _state: Any) -> bool:
        layout: list[Any] = []
        for player, hand in event["hands"].items():
            layout = table.sim.with_added(hand, f"seat:{player}", layout)
        assert table.sim.show(layout), "the camera did not settle on the shown hands"
        response = table.http.post("/api/camera/round", json={"moths": event["moths"]},
                                   headers=table.headers)
        assert response.status_code == 200, response.text
        assert table.sim.clear()
        return True
    return act


def test_a_whole_match_of_cant_catch_harry_through_the_camera(camera_table: CameraTable,
                                                              tmp_path: Path) -> None:
    table = camera_table
    setup: Event = {"type": "setup", "game": "cant-catch-harry", "players": PLAYERS}
    match_id = table.start_match(setup)
    mirror = Match(setup)
    counts = play(table, mirror, random.Random(0), done=lambda m: m.finished,
                  act=harry_by_phone_and_camera(table))
    assert counts == {"camera": len(mirror.events), "phone": 0, "asked": 0}
    result = table.check_against_replay(match_id, mirror.events, tmp_path)
    assert result["finished"] is True and result["winners"]


def test_the_camera_dropping_out_mid_match_loses_nothing(camera_table: CameraTable,
                                                         tmp_path: Path) -> None:
    table = camera_table
    setup: Event = {"type": "setup", "game": "cant-catch-harry", "players": PLAYERS}
    match_id = table.start_match(setup)
    mirror = Match(setup)
    rng = random.Random(3)
    act = harry_by_phone_and_camera(table)
    play(table, mirror, rng, done=lambda m: len(m) >= 1, act=act)

    # the cable comes out; the hands are laid out while the camera sees nothing
    table.camera.unplug()
    table.wait_link("lost")
    rules = rules_for("cant-catch-harry")
    event = rules.random_event(mirror.state, rng)
    layout: list[Any] = []
    for player, hand in event["hands"].items():
        layout = table.sim.with_added(hand, f"seat:{player}", layout)
    table.sim.show(layout, wait=False)
    refused = table.http.post("/api/camera/round", json={"moths": event["moths"]},
                              headers=table.headers)
    assert refused.status_code == 409, refused.text  # it cannot read hands it never saw
    assert not [f for f in table.watcher.seen[table.watcher.cursor:] if f.kind == "change"]

    table.camera.replug()
    table.wait_link("connected")
    assert table.sim.wait_settled()
    response = table.http.post("/api/camera/round", json={"moths": event["moths"]},
                               headers=table.headers)
    assert response.status_code == 200, response.text
    frame = table.watcher.wait_for(entry_like(event), what="the round after the outage")
    assert frame.data["actor"] == "camera"
    mirror.push(frame.data["entry"]["event"])
    table.sim.clear()

    play(table, mirror, rng, done=lambda m: m.finished, act=act)
    result = table.check_against_replay(match_id, mirror.events, tmp_path)
    assert result["finished"] is True


def test_the_live_view_and_the_page(camera_table: CameraTable) -> None:
    table = camera_table
    setup = collector_setup(random.Random(1), PLAYERS)
    table.start_match(setup)
    view = table.http.get("/api/camera/frame.jpg")
    assert view.status_code == 200
    assert view.headers["content-type"] == "image/jpeg" and view.content[:2] == b"\xff\xd8"
    page = table.http.get("/camera")
    assert page.status_code == 200 and "/api/camera/frame.jpg" in page.text
