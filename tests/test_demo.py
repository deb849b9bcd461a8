"""Demo bots play a whole match of every game through the running table service.

Without a board or camera every move goes the phone's way (the same checks as a
tap); the exported table log then replays to the very scores the table shows.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from companion.games import GAME_IDS
from companion.inputs.demo import DemoBots
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
