"""Demo bots play a whole match of every game through the running table service.

Without a board or camera every move goes the phone's way (the same checks as a
tap); the exported table log then replays to the very scores the table shows.
"""

from __future__ import annotations

import importlib
import random
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from companion.games import GAME_IDS, rules_for
from companion.games.match import Match
from companion.inputs.demo import BOT_NAMES, ROUND_PAUSE, DemoBots, DemoPace
from companion.service import Settings, create_app
from companion.tablelog import replay_text


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_bots_play_a_whole_match(tmp_path: Path, game_id: str) -> None:
    settings = Settings(data_dir=tmp_path, pin="1357", mdns=False, public_host="127.0.0.1")
    bots = DemoBots(speed=1000, game=game_id, seed=3)
    with TestClient(create_app(settings, attachments=[bots])) as client:
        assert bots.finished.wait(120), "the bots did not finish the match"
        assert bots.error is None
        state = client.get("/api/state").json()
        match = state["match"]
        assert match["game"] == game_id and match["finished"]
        exported = client.get(f"/api/matches/{match['id']}/log.jsonl")
        assert exported.status_code == 200
    replayed = replay_text(exported.text)
    assert replayed.finished
    assert replayed.summary()["totals"] == match["summary"]["totals"]
    assert replayed.summary()["winners"] == match["summary"]["winners"]
    # before every move the bots waited what their pace gives for that move
    assert bots.delays == pytest.approx(waits(DemoPace(1000, seed=3), replayed.log()))


def waits(pace: DemoPace, log: list[Any]) -> list[float]:
    """The waits ``pace`` gives before each move of a match's table ``log`` (setup first)."""
    match = Match(log[0])
    out = []
    last_round = None
    for event in log[1:]:
        round_now = match.summary().get("round")
        out.append(pace.delay(event, new_round=last_round not in (None, round_now)))
        last_round = round_now
        match.push(event)
    return out


def playout(game_id: str, seed: int) -> list[Any]:
    """A whole match of ``game_id`` as the bots play it: its table log."""
    rules = rules_for(game_id)
    module = importlib.import_module(type(rules).__module__)
    rng = random.Random(seed)
    match = Match(module.random_setup(rng, list(BOT_NAMES[: max(2, rules.min_players)])))
    while not match.finished:
        match.push(rules.random_event(match.state, rng))
    return match.log()


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_bots_play_at_a_pace_a_table_can_follow(game_id: str) -> None:
    """At --speed 1 every move waits a few seconds, none less than 3, a round of Harry
    longer; faster speeds divide every wait, so --speed 5 is five times quicker, no more."""
    log = playout(game_id, seed=4)
    slow = waits(DemoPace(1, seed=9), log)
    assert min(slow) >= 3.0
    assert max(slow) <= 45.0
    assert sum(slow) / len(slow) >= 4.0
    fast = waits(DemoPace(5, seed=9), log)
    assert fast == pytest.approx([w / 5 for w in slow])
    if game_id == "catch-mag":  # the default demo: minutes, not seconds, at --speed 5
        assert sum(fast) >= 60.0


def test_a_new_round_waits_longer() -> None:
    same = DemoPace(1, seed=2).delay({"type": "play"})
    assert DemoPace(1, seed=2).delay({"type": "play"}, new_round=True) == pytest.approx(
        same + ROUND_PAUSE)
    # a whole Star Catcher match: the first move of every round after the first (the
    # deal) waits longer, and only those
    log = playout("star-catcher", seed=4)
    rounds = Match.from_events(log).summary()["round"]
    assert rounds > 1
    slow = waits(DemoPace(1, seed=2), log)
    assert len([w for w in slow if w >= ROUND_PAUSE + 0.8 * 8.0]) == rounds - 1


def test_a_speed_that_is_not_positive_is_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        DemoPace(0)
    with pytest.raises(ValueError, match="positive"):
        DemoBots(speed=-1)


def test_an_unknown_game_is_refused_at_start() -> None:
    with pytest.raises(ValueError, match="unknown game"):
        DemoBots(game="chess")


def test_closing_the_table_stops_the_bots(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, pin="1357", mdns=False, public_host="127.0.0.1")
    bots = DemoBots(speed=1, game="star-catcher")
    with TestClient(create_app(settings, attachments=[bots])):
        pass
    # the bots' thread has ended by the time the table is closed (not the next move later)
    assert bots.finished.is_set()
