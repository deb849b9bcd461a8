"""A whole Collector match through rendered frames: simulated hands, the real vision path.

Two bots play with the engine's random playout. Every play is made on the
simulated table (the standard deck, seen uncalibrated: the whole picture is
the centre): the card, and a second card, put next to the chosen target; the
collected target (and an equal card) taken away to the player's collection,
off camera; refills dealt into the centre; a card that caught nothing left
lying as a new target. The camera enters each play. What only a person can
say goes through the HTTP API: which face-down card is turned up (when there
are several), an Ace's value when it changes the result but not the targets,
and the ``reveal`` of the hands at the end. An SSE client watches; at the end
the stream holds every event in order and ``companion replay`` of the exported
log gives the same scores.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.games import rules_for
from companion.games.collector import random_setup
from companion.games.match import Match
from companion.inputs.demo import CameraHands
from tests.camera.conftest import CAMERA_TIMEOUT, CameraTable, Event, camera_entry, entry_like
from tests.service.sse import SseEvent

PLAYERS = ["Ann", "Ben"]


def result_of(mirror: Match, event: Event) -> dict[str, Any] | None:
    """The match's summary after ``event``, or ``None`` if the rules refuse it."""
    try:
        mirror.push(event)
    except Exception:
        return None
    summary: dict[str, Any] = mirror.summary()
    mirror.pop()
    return summary


def same_play(mirror: Match, event: Event) -> Callable[[SseEvent], bool]:
    """A stream frame adding a play with the same result as ``event`` (the camera may
    spell an Ace that does not matter differently)."""
    wanted = result_of(mirror, event)

    def test(frame: SseEvent) -> bool:
        entry = frame.data.get("entry") if frame.kind == "change" else None
        return isinstance(entry, dict) and result_of(mirror, entry["event"]) == wanted
    return test


def camera_play(table: CameraTable, mirror: Match, event: Event,
                warned: int) -> SseEvent | None:
    """The stream frame of the camera's entry of ``event``; ``None`` if it asked the phone."""
    return camera_entry(table, same_play(mirror, event), warned, f"the camera's {event}")


def by_phone(table: CameraTable, event: Event) -> SseEvent:
    table.post_event(event)
    return table.watcher.wait_for(entry_like(event), what=f"the phone's {event}")


def test_a_whole_collector_match_through_the_camera(camera_table: CameraTable,
                                                    tmp_path: Path) -> None:
    table = camera_table
    setup = random_setup(random.Random(7), PLAYERS)
    match_id = table.start_match(setup)
    mirror = Match(setup)
    rules = rules_for("collector")
    rng = random.Random(11)
    counts = {"camera": 0, "phone": 0, "asked": 0, "no room": 0}
    asked: list[Event] = []
    while not mirror.finished:
        assert len(mirror) < 60, "the match never ended"
        state = mirror.state
        event = rules.random_event(state, rng)
        warned = table.feed.warning_count
        if CameraHands(table.feed).perform(event, state):
            frame = camera_play(table, mirror, event, warned)
            if frame is None:  # a choice only a person can make, or a misread card
                frame = by_phone(table, event)
                counts["asked"] += 1
                asked.append({**event, "warnings": table.feed.warnings})
            else:
                assert frame.data["actor"] == "camera", frame.data
                counts["camera"] += 1
            mirror.push(frame.data["entry"]["event"])
            # the camera's view of the table is the rules' (the collections lie off camera)
            assert table.sim.wait_settled()
            on_table = sorted(c.card for c in table.sim.cards)
            assert on_table == sorted(mirror.summary()["targets"]), event
            continue
        # the reveal; or a target so hemmed in by others that there is no room beside it
        # (the next play's hands tidy the table first)
        frame = by_phone(table, event)
        counts["phone" if event["type"] == "reveal" else "no room"] += 1
        mirror.push(frame.data["entry"]["event"])

    plays = [e for e in mirror.events if e["type"] == "play"]
    assert counts["phone"] == 1, counts  # the reveal
    assert counts["camera"] + counts["asked"] + counts["no room"] == len(plays), counts
    assert counts["no room"] <= 2, counts
    assert counts["camera"] >= len(plays) // 2, counts  # most plays need no phone at all
    # the phone is asked for a person's choice (an Ace's value that changes the result
    # but not the targets, which of several face-down cards is turned up), and rarely
    # for a card the camera could not read
    misread = [e for e in asked if "aces" not in e and "flip" not in e]
    assert len(misread) <= 2, (counts, asked)
    result = table.check_against_replay(match_id, mirror.events, tmp_path)
    assert result["finished"] is True and result["winners"]
    assert result["totals"] == mirror.summary()["totals"]



def test_each_kind_of_collector_play_through_the_camera(camera_table: CameraTable) -> None:
    """An equal card with a refill, a collected target, a no-match draw and a flip of the
    only face-down card: all settled by the camera alone."""
    table = camera_table
    setup: Event = {"type": "setup", "game": "collector", "players": PLAYERS,
                    "targets": ["5S", "KD", "2C", "9H"], "first": "Ann"}
    table.start_match(setup)
    mirror = Match(setup)
    plays: list[Event] = [
        {"type": "play", "player": "Ann", "target": "5S", "card": "5H", "refill": ["7C"]},
        {"type": "play", "player": "Ben", "target": "2C", "card": "QC"},  # > double: up
        {"type": "play", "player": "Ann", "target": "9H", "card": "4D"},  # lower: down
        {"type": "play", "player": "Ben", "target": "7C", "card": "9D"},  # no match: draw
        {"type": "play", "player": "Ann", "target": "4D", "card": "2H", "flip": "9H"},  # half
        {"type": "play", "player": "Ben", "target": "KD", "card": "6C", "second": "7H"},  # sum
    ]
    for event in plays:
        state = mirror.state
        assert CameraHands(table.feed).perform(event, state), event
        frame = table.watcher.wait_for(entry_like(event), CAMERA_TIMEOUT,
                                       f"the camera's {event}; warnings {table.feed.warnings}")
        assert frame.data["actor"] == "camera"
        mirror.push(event)
        assert table.sim.wait_settled()
        assert sorted(c.card for c in table.sim.cards) == sorted(mirror.summary()["targets"])
    assert mirror.summary()["collections"]["Ann"] == {"up": ["5S", "5H", "9H"], "down": ["4D"]}
