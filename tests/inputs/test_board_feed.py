"""The Catch Mag board feeding a running table: sensors over a pty, the service over HTTP.

Die rolls go in through the HTTP API with a PIN token, as from a phone; every
other event is made by simulated hands moving magnets on the simulated board,
read through the real serial path and recognised by the board feed. An SSE
client watches the whole time.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.games.match import Match
from tests.inputs.conftest import BoardTable
from tests.inputs.play import Player, shuffled_layout
from tests.service.sse import SseEvent

REPO = Path(__file__).resolve().parents[2]
PLAYERS = ["Ann", "Ben"]


def wait_warnings(table: BoardTable, test: Callable[[list[str]], bool], what: str,
                  timeout: float = 5.0) -> list[str]:
    """The board warnings on the live stream, once ``test`` accepts them."""
    def shows(frame: SseEvent) -> bool:
        board = frame.data.get("status", {}).get("board") if frame.kind in (
            "status", "snapshot") else None
        return isinstance(board, dict) and test(board["warnings"])
    current = table.watcher.board_status()
    if current is not None and test(current["warnings"]):
        return list(current["warnings"])
    frame = table.watcher.wait_for(shows, timeout, what, consume=False,
                                   start=len(table.watcher.seen))
    return list(frame.data["status"]["board"]["warnings"])


def is_entry(event: dict[str, Any]) -> Callable[[SseEvent], bool]:
    """A test for the live-stream frame that adds ``event`` to the match."""

    def test(frame: SseEvent) -> bool:
        entry = frame.data.get("entry") if frame.kind == "change" else None
        return isinstance(entry, dict) and entry["event"] == event
    return test


def play(table: BoardTable, mirror: Match, player: Player, *, steps: int = 400,
         outage_at: int | None = None) -> int:
    """Play until the match ends; returns how many events the board entered.

    With ``outage_at``, the board event with that number is made with the USB
    cable pulled, and the cable goes back in afterwards.
    """
    by_board = 0
    for _ in range(steps):
        if mirror.finished:
            return by_board
        state = mirror.state
        event = player.next_event(state)
        if event["type"] == "roll":
            table.post_event(event)
            table.watcher.wait_for(is_entry(event), what=f"the roll {event}")
        else:
            outage = outage_at == by_board
            if outage:
                table.sim.unplug()
                table.wait_link("lost")
            assert table.feed.perform(event, state), f"no hand moves for {event}"
            if outage:
                table.sim.replug()
                table.wait_link("connected")
            frame = table.watcher.wait_for(is_entry(event), what=f"the board's {event}")
            assert frame.data["actor"] == "board"
            by_board += 1
        mirror.push(event)
    raise AssertionError("the match did not finish")


def check_against_replay(table: BoardTable, match_id: int, mirror: Match, tmp: Path) -> None:
    """Every event reached the stream in order, and the scores are those of ``companion replay``."""
    changes = [e for e in table.watcher.seen if e.kind == "change"]
    seqs = [e.data["seq"] for e in changes]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "a gap in the live stream"
    entries = [e.data["entry"]["event"] for e in changes if "entry" in e.data]
    assert entries == mirror.events
    last_summary = changes[-1].data["summary"]

    log = table.http.get(f"/api/matches/{match_id}/log.jsonl")
    assert log.status_code == 200
    path = tmp / "exported.jsonl"
    path.write_text(log.text, encoding="utf-8")
    replayed = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(path)],
                              capture_output=True, text=True, cwd=REPO, timeout=30, check=True)
    result = json.loads(replayed.stdout)
    assert result["finished"] is True
    assert result["winners"] and result["winners"] == last_summary["winners"]
    assert result["totals"] == last_summary["totals"] == mirror.summary()["totals"]
    assert max(result["totals"].values()) >= 5


def test_a_whole_match_played_on_the_board(board_table: BoardTable, tmp_path: Path) -> None:
    table = board_table
    match_id = table.start_match(PLAYERS)
    mirror = Match({"type": "setup", "game": "catch-mag", "players": PLAYERS})
    by_board = play(table, mirror, Player(shuffled_layout(seed=3), seed=3))
    board_events = [e["entry"]["event"] for e in (f.data for f in table.watcher.seen
                                                   if f.kind == "change") if e["actor"] == "board"]
    assert len(board_events) == by_board
    kinds = {(e["type"], e.get("success")) for e in board_events}
    # The board did all of it: catches that worked and failed, jokers kept and spent.
    assert kinds == {("catch", True), ("catch", False), ("joker", None), ("use-joker", None)}
    check_against_replay(table, match_id, mirror, tmp_path)
    # Once the last move has settled, nothing is left on the phones.
    wait_warnings(table, lambda warnings: warnings == [], "no board warnings")
    assert table.watcher.board_status() is not None


def test_a_pulled_cable_loses_nothing(board_table: BoardTable, tmp_path: Path) -> None:
    """The cable is out while a catch is made; the board catches up when it is back."""
    table = board_table
    match_id = table.start_match(PLAYERS)
    mirror = Match({"type": "setup", "game": "catch-mag", "players": PLAYERS})
    play(table, mirror, Player(shuffled_layout(seed=5), seed=5), outage_at=3)
    statuses = [e.data["status"]["board"]["link"] for e in table.watcher.seen
                if e.kind == "status" and "board" in e.data["status"]]
    lost = statuses.index("lost")
    assert "connected" in statuses[lost:], statuses
    check_against_replay(table, match_id, mirror, tmp_path)


def test_a_rod_from_the_wrong_space_is_flagged_until_put_back(board_table: BoardTable) -> None:
    table = board_table
    sim = table.sim
    table.start_match(PLAYERS)
    table.post_event({"type": "roll", "player": "Ann", "value": 4})  # Ann's ship on space 5

    sim.lift_catch_mag()
    progress = wait_warnings(table, bool, "the move in progress")
    assert progress == ["Ann lifted the Catch Mag…"]  # shown at once, before the move is read
    sim.move("U9", "S1.red.1")
    warning = wait_warnings(table, lambda w: any("space 9" in m for m in w), "a board warning")
    assert len(warning) == 1
    assert "Ann's ship is on space 5" in warning[0] and "put it back on space 9" in warning[0]
    assert table.feed.warnings == warning

    sim.move("S1.red.1", "U9")  # put back where it came from
    wait_warnings(table, lambda w: not any("space 9" in m for m in w), "the warning cleared")

    # Now the right rod: the catch goes in, in the colour of the row it went to.
    sim.move("U5", "S1.red.1")
    catch = {"type": "catch", "player": "Ann", "success": True, "color": "red"}
    table.watcher.wait_for(is_entry(catch), what="the catch")
    sim.return_catch_mag()
    entries = table.http.get("/api/state").json()["match"]["entries"]
    assert [e["event"] for e in entries][-1] == catch
    assert not any(e["event"].get("type") == "catch" and not e["event"]["success"]
                   for e in entries), "putting the wrong rod back is no failed catch"


def test_other_games_leave_the_board_alone_and_a_new_match_starts_from_it(
    board_table: BoardTable,
) -> None:
    table = board_table
    sim = table.sim
    table.start_match(PLAYERS)  # Catch Mag, followed
    table.post_event({"type": "roll", "player": "Ann", "value": 4})
    sim.lift_catch_mag()
    sim.move("U9", "S1.red.1")  # the wrong rod: a warning ...
    table.watcher.wait_for(lambda f: f.kind == "status" and bool(
        f.data["status"]["board"]["warnings"]), what="a board warning")

    response = table.http.post("/api/matches", json={"game": "star-catcher",
                                                     "players": PLAYERS}, headers=table.headers)
    assert response.status_code == 201, response.text
    sim.move("U5", "S2.blue.1")  # tidying up during another game: not Catch Mag's business
    sim.return_catch_mag()
    table.watcher.wait_for(lambda f: f.kind == "status" and f.data["status"]["board"][
        "warnings"] == [], what="the warning gone with its match")
    assert [table.feed.following] == [None]  # (a list: keeps mypy from narrowing it for good)

    match_id = table.start_match(PLAYERS)  # ... a new match starts from the board as it is
    table.post_event({"type": "roll", "player": "Ann", "value": 2})  # ship on space 3
    sim.lift_catch_mag()
    sim.move("U3", "S1.red.2")
    catch = {"type": "catch", "player": "Ann", "success": True, "color": "red"}
    table.watcher.wait_for(is_entry(catch), what="the catch in the new match")
    sim.return_catch_mag()
    assert table.feed.following == match_id
    deadline = time.monotonic() + 5
    while table.feed.picture != sim.present and time.monotonic() < deadline:
        time.sleep(0.02)  # the feed thread takes the return in (a busy machine lags)
    assert table.feed.picture == sim.present
    wait_warnings(table, lambda w: w == [], "no board warnings")
    changes = [f.data for f in table.watcher.seen if f.kind == "change"]
    assert [c["entry"]["event"] for c in changes if c.get("actor") == "board"] == [catch]


def test_a_new_match_waits_for_the_board_to_be_set_up(board_table: BoardTable) -> None:
    table = board_table
    sim = table.sim
    sim.move("U12", "S2.red.1")  # left over from the last game
    sim.lift("G3")  # a super joker still in someone's hand
    sim.settle()
    table.start_match(PLAYERS)

    def board_warnings(frame: SseEvent) -> list[str] | None:
        board = frame.data.get("status", {}).get("board") if frame.kind == "status" else None
        return board["warnings"] if isinstance(board, dict) else None

    first = table.watcher.wait_for(lambda f: bool(board_warnings(f)), what="the set-up warning")
    assert board_warnings(first) == [
        "set the board up for a new game: nothing seen on universe space 12: a rod belongs "
        "there (or its sensor is dead) (and 2 more)"]
    sim.move("S2.red.1", "U12")  # tidying up is no move in the game: no "put it back"
    sim.place("G3")
    sim.settle()
    table.watcher.wait_for(lambda f: board_warnings(f) == [], what="the set-up warning gone")
    assert all(len(board_warnings(f) or []) <= 1 for f in table.watcher.seen)
    assert table.feed.warnings == []

    table.post_event({"type": "roll", "player": "Ann", "value": 4})
    sim.lift_catch_mag()
    sim.move("U5", "S1.green.1")
    catch = {"type": "catch", "player": "Ann", "success": True, "color": "green"}
    table.watcher.wait_for(is_entry(catch), what="the first catch")
    sim.return_catch_mag()


def test_play_starting_on_a_board_not_set_up_is_followed_from_there(
    board_table: BoardTable,
) -> None:
    """A dead sensor must not stop the game: the first roll ends the wait for the set-up."""
    table = board_table
    sim = table.sim
    sim.lift("U30")  # reads empty for the whole game
    sim.settle()
    table.start_match(PLAYERS)
    table.watcher.wait_for(lambda f: f.kind == "status" and bool(
        f.data["status"]["board"]["warnings"]), what="the set-up warning")
    table.post_event({"type": "roll", "player": "Ann", "value": 4})
    sim.lift_catch_mag()
    sim.move("U5", "S1.green.1")
    catch = {"type": "catch", "player": "Ann", "success": True, "color": "green"}
    table.watcher.wait_for(is_entry(catch), what="the catch despite the missing rod")
    sim.return_catch_mag()
    wait_warnings(table, lambda w: w == [], "no board warnings (the dead sensor is left be)")
