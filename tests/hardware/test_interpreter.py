"""Automatic catch detection: sensor changes and the game state in, events or warnings out."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import pytest

from companion.games.catch_mag import COLORS, ROD_SPACES
from companion.games.match import Match
from hardware.boardmap import load_board_map
from hardware.interpreter import SETTLE_S, CatchMagInterpreter, Reading, Revision
from hardware.script import Step, hand_moves, sensor_changes
from hardware.serial_board import SerialBoard
from hardware.simulated import SimulatedBoard, run_script
from hardware.sources import SensorChange
from tests.hardware.rigs import wait_changes, wait_for

BOARD = load_board_map()
PLAYERS = ["Ann", "Ben", "Cy"]


class Table:
    """A match, an interpreter, and a clock: feed hand movements, collect what they mean.

    Fed the way ``BoardFeed`` feeds it: each change with the match as it stands, the
    board read once it has been quiet for the settle time, phone entries followed.
    """

    def __init__(self, players: list[str] = PLAYERS, **setup: Any) -> None:
        self.match = Match({"type": "setup", "game": "catch-mag", "players": players, **setup})
        self.interpreter = CatchMagInterpreter(BOARD)
        self.at = 0.0
        self.events: list[dict[str, Any]] = []

    def phone(self, **event: Any) -> None:
        self.match.push(event)
        self.interpreter.follow(self.match.state, corrected=False)
        self.read()

    def roll(self, player: str, value: int) -> None:
        self.phone(type="roll", player=player, value=value)

    def undo(self) -> None:
        self.match.pop()
        self.interpreter.follow(self.match.state, corrected=True)
        self.read()

    def read(self) -> list[Reading]:
        out: list[Reading] = []
        for _ in range(5):
            readings = self.interpreter.settle(self.at, self.match.state)
            out += readings
            for reading in readings:
                if isinstance(reading, Revision):
                    events = self.match.events
                    i = max(i for i, e in enumerate(events) if e == reading.old)
                    self.match = Match.from_events(
                        [self.match.setup, *events[:i], reading.new, *events[i + 1:]])
                    self.events[self.events.index(reading.old)] = reading.new
                elif isinstance(reading, dict):
                    self.match.push(reading)
                    self.events.append(reading)
            if not readings:
                break
        return out

    def changes(self, changes: Iterable[SensorChange], settle: bool = True) -> list[Reading]:
        out: list[Reading] = []
        for change in changes:
            self.at = max(self.at, change.at)
            out += self.interpreter.feed(change, self.match.state)
        if settle:
            self.at += SETTLE_S
            out += self.read()
        return out

    def hands(self, *steps: Step, settle: bool = True) -> list[Reading]:
        return self.changes(sensor_changes(steps, start=self.at), settle)

    def pause(self, seconds: float) -> list[Reading]:
        self.at += seconds
        return self.read()

    @property
    def notices(self) -> list[str]:
        return [n.message for n in self.interpreter.notices()]

    def notice(self) -> str:
        notices = self.notices
        assert len(notices) == 1, notices
        return notices[0]


def only_event(readings: list[Reading]) -> dict[str, Any]:
    assert len(readings) == 1 and isinstance(readings[0], dict), readings
    return readings[0]


# -- the moves that mean something ---------------------------------------------------


def test_a_rod_from_the_ship_space_into_a_row_is_a_catch_in_that_rows_colour() -> None:
    table = Table()
    table.roll("Ann", 4)
    readings = table.hands(("lift-mag",), ("move", "U5", "S1.green.1"), ("return-mag",))
    assert only_event(readings) == {"type": "catch", "player": "Ann", "success": True,
                                    "color": "green"}
    assert table.match.summary()["totals"] == {"Ann": 1, "Ben": 0, "Cy": 0}
    assert table.match.turn == "Ben"


def test_the_catch_mag_lifted_and_put_back_with_no_rod_moved_is_a_failed_catch() -> None:
    table = Table()
    table.roll("Ann", 4)
    readings = table.hands(("lift-mag",), ("try",), ("return-mag",))
    assert only_event(readings) == {"type": "catch", "player": "Ann", "success": False}
    assert table.match.turn == "Ben"


def test_the_catch_mag_taken_up_before_the_roll_still_makes_a_failed_catch() -> None:
    table = Table()
    table.hands(("lift-mag",))
    table.roll("Ann", 4)
    table.pause(1.0)  # the try
    assert only_event(table.hands(("return-mag",)))["success"] is False


def test_a_re_grip_is_no_failed_catch_and_the_catch_after_it_counts() -> None:
    table = Table()
    table.roll("Ann", 4)
    assert table.hands(("lift-mag",), ("return-mag",)) == []  # 0.1 s off its rest
    assert "if that was a try" in table.notice()  # asked, in case it was one
    readings = table.hands(("lift-mag",), ("move", "U5", "S1.green.1"), ("return-mag",))
    assert only_event(readings)["color"] == "green"
    assert table.notices == []


def test_the_catch_mag_put_back_while_a_wrong_rod_is_out_is_no_failed_catch() -> None:
    table = Table()
    table.roll("Ann", 4)
    assert table.hands(("lift-mag",), ("move", "U8", "S1.red.1")) == []
    assert "put it back on space 8" in table.notice()
    table.pause(1.0)
    assert table.hands(("return-mag",)) == []
    assert table.match.turn == "Ann"


def test_the_catch_mag_from_the_last_catch_does_not_fail_the_next_one() -> None:
    table = Table(["Ann", "Ben"])
    for _ in range(4):  # typed on the phone: Ann catches four white rods, Ben lands on empties
        table.roll("Ann", 1)
        table.phone(type="catch", player="Ann", success=True, color="white")
        table.roll("Ben", 1)
    table.interpreter.reset(BOARD.initial_layout() - {"U2", "U3", "U4", "U5"}
                            | {f"S1.white.{n}" for n in range(1, 5)})
    table.roll("Ann", 1)  # space 6; four of a colour: three rolls this turn
    table.hands(("lift-mag",), ("move", "U6", "S1.green.1"))
    assert table.events[-1]["color"] == "green"
    table.roll("Ann", 2)  # space 8, with the Catch Mag still in Ann's hand
    table.pause(1.0)
    assert table.hands(("return-mag",)) == []  # it was lifted for the last catch
    assert table.match.summary()["expected"].startswith("Ann is to catch")


def test_lifting_the_catch_mag_while_nobody_has_to_catch_means_nothing() -> None:
    table = Table()
    assert table.hands(("lift-mag",), ("return-mag",), ("lift-back", "U8")) == []
    assert table.match.turn == "Ann"


def test_joker_ball_into_the_home_recess_is_keep() -> None:
    table = Table()
    table.roll("Ann", 6)  # space 7: joker ball 7
    readings = table.hands(("lift-mag",), ("move", "U7", "S1.J7"), ("return-mag",))
    assert only_event(readings) == {"type": "joker", "player": "Ann", "use": "keep"}


def give_ben_a_red_rod(table: Table) -> None:
    table.roll("Ann", 1)  # space 2
    table.hands(("lift-mag",), ("try",), ("return-mag",))  # Ann fails
    table.roll("Ben", 2)  # space 3
    table.hands(("lift-mag",), ("move", "U3", "S2.red.1"), ("return-mag",))
    assert table.events[-1]["color"] == "red" and table.match.turn == "Cy"
    table.roll("Cy", 3)
    table.hands(("lift-mag",), ("try",), ("return-mag",))
    assert table.match.turn == "Ann"


def test_a_rod_swiped_with_the_joker_ball_is_a_joker_swipe() -> None:
    table = Table()
    give_ben_a_red_rod(table)
    table.roll("Ann", 5)  # space 2 -> 7
    readings = table.hands(("lift-mag",), ("lift", "U7"), ("move", "S2.red.1", "S1.red.1"),
                           ("place", "U7"), ("return-mag",))
    assert only_event(readings) == {"type": "joker", "player": "Ann", "use": "swipe",
                                    "from": "Ben", "color": "red"}
    assert table.match.summary()["totals"] == {"Ann": 1, "Ben": 0, "Cy": 0}


def test_a_kept_ball_spent_before_rolling_is_use_joker() -> None:
    table = Table()
    table.roll("Ann", 6)
    table.hands(("lift-mag",), ("move", "U7", "S1.J7"), ("return-mag",))
    table.roll("Ben", 2)
    table.hands(("lift-mag",), ("move", "U3", "S2.blue.1"), ("return-mag",))
    table.roll("Cy", 1)
    table.hands(("lift-mag",), ("try",), ("return-mag",))
    assert table.match.turn == "Ann"
    readings = table.hands(("lift-mag",), ("lift", "S1.J7"), ("move", "S2.blue.1", "S1.blue.1"),
                           ("place", "U7"), ("return-mag",))
    assert only_event(readings) == {"type": "use-joker", "player": "Ann", "joker": 7,
                                    "from": "Ben", "color": "blue"}


def test_the_catch_mag_spent_on_a_kept_ball_is_no_failed_catch_after_the_roll() -> None:
    """The Catch Mag's return is read after the phone's roll (the Pi was busy, or the
    player tapped quickly): the lift was spent on the swipe, so it is no failed catch."""
    table = Table()
    table.roll("Ann", 6)
    table.hands(("lift-mag",), ("move", "U7", "S1.J7"), ("return-mag",))
    table.roll("Ben", 2)
    table.hands(("lift-mag",), ("move", "U3", "S2.blue.1"), ("return-mag",))
    table.roll("Cy", 1)
    table.hands(("lift-mag",), ("try",), ("return-mag",))
    readings = table.hands(("lift-mag",), ("lift", "S1.J7"), ("move", "S2.blue.1", "S1.blue.1"),
                           ("place", "U7"))
    assert only_event(readings)["type"] == "use-joker"
    table.roll("Ann", 1)  # space 8: a rod, Ann is to catch
    table.pause(1.0)
    assert table.hands(("return-mag",)) == []
    assert table.match.summary()["expected"].startswith("Ann is to catch")


def test_a_rod_taken_with_the_super_joker_is_super_joker() -> None:
    table = Table(["Ann", "Ben"])
    table.roll("Ann", 6)
    table.hands(("lift-mag",), ("move", "U7", "S1.J7"), ("return-mag",))
    assert table.match.turn == "Ben"
    table.roll("Ben", 6)  # Ben lands on 7: ball 7 is Ann's, super joker 7 is offered
    assert table.match.summary()["expected"].startswith("Ben may take any rod")
    readings = table.hands(("lift-mag",), ("lift", "G2"), ("move", "U20", "S2.yellow.1"),
                           ("place", "G2"), ("return-mag",))
    assert only_event(readings) == {"type": "super-joker", "player": "Ben", "space": 20,
                                    "color": "yellow"}


# -- what is not allowed, and putting it right ---------------------------------------


def test_a_rod_from_the_wrong_space_is_shown_until_it_is_put_back() -> None:
    table = Table()
    table.roll("Ann", 4)
    assert table.hands(("lift-mag",), ("move", "U8", "S1.red.1")) == []
    assert table.interpreter.notices()[0].sensors == ("S1.red.1", "U8")
    warning = table.notice()
    assert "Ann's ship is on space 5" in warning and "put it back on space 8" in warning
    assert table.hands(("move", "S1.red.1", "U8")) == []  # put right: nothing to report
    assert not any("space 8" in n for n in table.notices)  # (Ann still holds the Catch Mag)
    readings = table.hands(("move", "U5", "S1.red.1"), ("return-mag",))
    assert only_event(readings)["color"] == "red"


def test_the_move_in_progress_is_shown_at_once_and_read_when_it_is_finished() -> None:
    table = Table()
    table.roll("Ann", 4)
    assert table.hands(("lift-mag",), ("move", "U5", "S1.red.1"), settle=False) == []
    assert table.notices == ["Ann lifted the Catch Mag…"]
    assert table.interpreter.settle(table.at + SETTLE_S / 2, table.match.state) == []
    assert table.events == []  # not before the board has been quiet for the settle time
    assert only_event(table.pause(SETTLE_S))["color"] == "red"


def test_a_rod_first_put_into_another_players_station_is_read_where_it_ends() -> None:
    table = Table()
    table.roll("Ann", 4)
    assert table.hands(("lift-mag",), ("move", "U5", "S2.red.1")) == []
    warning = table.notices[0]
    assert "Ben's red row" in warning and "Ann's turn" in warning
    readings = table.hands(("move", "S2.red.1", "S1.red.1"))
    assert only_event(readings)["player"] == "Ann"


def test_a_rod_moved_to_another_row_before_the_quiet_counts_in_the_row_it_ends_in() -> None:
    table = Table()
    table.roll("Ann", 4)
    readings = table.hands(("lift-mag",), ("move", "U5", "S1.white.1"),
                           ("move", "S1.white.1", "S1.green.1"), ("return-mag",))
    assert only_event(readings)["color"] == "green"


def test_a_rod_moved_to_another_row_after_its_catch_revises_the_catch() -> None:
    """No rod layout: a rod's colour is the row it finally stays in."""
    table = Table()
    table.roll("Ann", 4)
    table.hands(("lift-mag",), ("move", "U5", "S1.white.1"))
    assert table.events[-1]["color"] == "white"
    table.roll("Ben", 3)  # even after the next roll
    readings = table.hands(("move", "S1.white.1", "S1.green.1"))
    assert readings == [Revision({"type": "catch", "player": "Ann", "success": True,
                                  "color": "white"},
                                 {"type": "catch", "player": "Ann", "success": True,
                                  "color": "green"})]
    assert table.match.summary()["rows"]["Ann"]["green"] == 1
    assert not any("row" in n for n in table.notices)


def test_two_rods_in_the_row_are_not_guessed_at() -> None:
    table = Table()
    table.roll("Ann", 4)
    assert table.hands(("lift-mag",), ("move", "U5", "S1.white.1"),
                       ("move", "U6", "S1.green.1")) == []
    assert table.events == []
    assert any("space 5" in n for n in table.notices)  # each rod's place named
    assert any("space 6" in n for n in table.notices)
    assert table.hands(("move", "S1.green.1", "U6")) != []  # the extra one goes back
    assert table.events[-1]["color"] == "white"


def test_taking_a_rod_before_the_roll_counts_once_the_roll_is_tapped() -> None:
    table = Table()
    assert table.hands(("move", "U5", "S1.red.1")) == []
    assert "Ann is to roll" in table.notice()
    table.roll("Ann", 4)  # the die said 4: that was the rod on space 5
    assert table.events == [{"type": "catch", "player": "Ann", "success": True,
                             "color": "red"}]


def test_a_known_layout_asks_when_the_row_and_the_layout_disagree() -> None:
    colors = [c for c in COLORS for _ in range(5)]
    table = Table(rods={str(s): c for s, c in zip(ROD_SPACES, colors, strict=True)})
    table.roll("Ann", 1)  # space 2 holds a white rod in this layout
    assert table.hands(("lift-mag",), ("move", "U2", "S1.red.1")) == []
    warning = table.notice()
    assert "the setup's layout says it is white" in warning and "Ann's red row" in warning
    readings = table.hands(("move", "S1.red.1", "S1.white.1"))
    assert only_event(readings) == {"type": "catch", "player": "Ann", "success": True,
                                    "color": "white"}


def test_a_ball_in_the_wrong_recess_is_named_by_its_number() -> None:
    table = Table()
    table.roll("Ann", 6)
    assert table.hands(("lift-mag",), ("move", "U7", "S1.J13")) == []
    assert set(table.notices) == {
        "joker ball 7 is off its space: put it back on space 7",
        "joker ball 13 is in Ann's home recess 13, but the match has it elsewhere: put it "
        "back on space 13, or correct the match on the phone"}
    assert only_event(table.hands(("move", "S1.J13", "S1.J7"))) == {
        "type": "joker", "player": "Ann", "use": "keep"}


def test_a_swipe_with_the_ball_put_back_first_is_read() -> None:
    table = Table()
    give_ben_a_red_rod(table)
    table.roll("Ann", 5)  # space 7, joker ball 7 there
    readings = table.hands(("lift-mag",), ("lift", "U7"), ("lift", "S2.red.1"),
                           ("place", "U7"), ("place", "S1.red.2"), ("return-mag",))
    assert only_event(readings) == {"type": "joker", "player": "Ann", "use": "swipe",
                                    "from": "Ben", "color": "red"}


def test_a_swipe_without_a_joker_is_shown_naming_the_ship_space() -> None:
    table = Table()
    give_ben_a_red_rod(table)
    table.roll("Ann", 3)  # space 5: a rod, not a joker
    assert table.hands(("lift-mag",), ("move", "S2.red.1", "S1.red.1")) == []
    warning = table.notice()
    assert "ball 16" not in warning and "Ann's ship is on space 5" in warning
    assert "put it back in Ben's red row" in warning


def test_sliding_a_rod_along_its_row_means_nothing() -> None:
    table = Table()
    table.roll("Ann", 4)
    table.hands(("lift-mag",), ("move", "U5", "S1.red.1"), ("return-mag",))
    assert table.hands(("move", "S1.red.1", "S1.red.3")) == []
    table.roll("Ben", 1)
    assert table.hands(("move", "S1.red.3", "S1.red.1")) == []  # even on someone else's turn
    assert table.notices == []


def test_a_landing_reported_just_before_its_take_off_is_still_a_catch() -> None:
    table = Table()
    table.roll("Ann", 4)
    table.hands(("lift-mag",), settle=False)
    at = table.at
    swapped = [SensorChange("S1.red.1", True, at + 0.01), SensorChange("U5", False, at + 0.02)]
    assert only_event(table.changes(swapped))["color"] == "red"


def test_a_magnet_that_appears_from_nowhere_is_shown() -> None:
    table = Table()
    assert table.hands(("place", "S3.green.1")) == []
    assert "Cy's green row (station 3) holds a rod more" in table.notice()


def test_a_rod_knocked_off_is_shown_and_the_catch_still_counts() -> None:
    table = Table()
    table.roll("Ann", 4)
    assert table.hands(("lift-mag",), ("lift", "U9"), ("move", "U5", "S1.blue.1")) != []
    assert table.events[-1]["color"] == "blue"
    assert table.notice() == "the rod from space 9 is off the board: put it back on space 9"
    table.hands(("place", "U9"), ("return-mag",))
    assert table.notices == []


def test_an_undo_on_the_phone_is_not_read_again_and_the_difference_is_shown() -> None:
    table = Table()
    table.roll("Ann", 4)
    table.hands(("lift-mag",), ("move", "U5", "S1.blue.1"), ("return-mag",))
    assert len(table.events) == 1
    table.undo()
    assert table.match.events == [{"type": "roll", "player": "Ann", "value": 4}]
    assert "the rod from space 5 went into Ann's blue row" in table.notices[0]
    assert table.hands(("lift-back", "U9"), ("lift-mag",), ("return-mag",)) == []
    assert "the rod from space 5 went into Ann's blue row" in table.notices[0]  # still shown
    table.hands(("move", "S1.blue.1", "S1.white.1"))  # that rod moved on: read again
    assert table.match.events[-1]["color"] == "white"


def test_the_catch_mag_left_away_asks_about_a_failed_try() -> None:
    table = Table()
    table.roll("Ann", 4)
    table.hands(("lift-mag",))
    assert "if Ann's try failed" in table.notice()
    assert table.notice().endswith("enter Ann's catch as 'Repelled' on the phone")
    table.pause(2.0)
    assert table.events == []  # no sensor can see it: asked, never guessed
    table.phone(type="catch", player="Ann", success=False)  # answered on the phone
    table.roll("Ben", 2)
    assert "if Ben's try failed" in table.notice()
    readings = table.hands(("move", "U3", "S2.red.1"))  # Ben uses it from the edge
    assert only_event(readings)["color"] == "red"


def test_the_next_players_rod_ends_a_try_with_the_catch_mag_on_the_edge() -> None:
    table = Table()
    table.roll("Ann", 4)
    table.hands(("lift-mag",))
    table.pause(2.0)
    readings = table.hands(("move", "U3", "S2.red.1"))  # Ben, die rolled, not tapped yet
    assert only_event(readings) == {"type": "catch", "player": "Ann", "success": False}
    assert "Ben is to roll" in table.notice()
    table.roll("Ben", 2)
    assert table.events[-1]["color"] == "red"


def test_a_sensor_the_map_does_not_know_is_a_warning_not_a_crash() -> None:
    table = Table()
    readings = table.changes([SensorChange("U99", False, 0.1)])
    assert len(readings) == 1 and not isinstance(readings[0], dict)
    assert "flash it again" in readings[0].message  # type: ignore[union-attr]


def test_tidying_the_board_after_the_match_means_nothing() -> None:
    log = play_log(3)
    table = replay_on_the_board(log, lambda t, steps: t.hands(*steps))
    assert table.match.finished
    winner_station = log.players.index(log.summary()["winners"][0]) + 1
    rods = sorted(s for s in table.interpreter.present if s.startswith(f"S{winner_station}."))
    assert len(rods) >= 5
    assert table.hands(*[("lift", rod) for rod in rods], ("lift-mag",), ("return-mag",)) == []
    assert table.notices == []


def test_a_repeated_change_is_ignored() -> None:
    table = Table()
    assert table.changes([SensorChange("U5", True, 0.1)]) == []  # U5 is known to be present


# -- whole games ---------------------------------------------------------------------


def play_log(seed: int) -> Match:
    rng = random.Random(seed)
    players = ["Ann", "Ben", "Cy", "Di"][: rng.randint(2, 4)]
    match = Match({"type": "setup", "game": "catch-mag", "players": players})
    while not match.finished:
        match.push(match.random_event(rng))
    return match


def replay_on_the_board(log: Match, feed: Any) -> Table:
    """Play ``log`` again: rolls from the phone, everything else as hand movements."""
    table = Table(list(log.players))
    truth = Match(log.setup)
    for event in log.events:
        steps = hand_moves(event, truth.state)
        truth.push(event)
        if steps:
            feed(table, steps)
        else:
            table.phone(**event)
    return table


@pytest.mark.parametrize("seed", range(40))
def test_a_whole_game_played_on_the_sensors_matches_its_table_log(seed: int) -> None:
    log = play_log(seed)
    table = replay_on_the_board(log, lambda t, steps: t.hands(*steps))
    assert table.notices == []
    assert table.match.events == log.events
    assert table.match.summary() == log.summary()


def test_a_whole_game_through_the_pty_matches_its_table_log() -> None:
    log = min(map(play_log, range(100, 140)), key=len)  # a short one: about 50 events
    with SimulatedBoard(BOARD, scan_hz=1000, debounce_ms=5) as sim, \
            SerialBoard(sim.port, BOARD, retry_interval=0.05) as source:
        assert wait_for(lambda: source.link_status.state == "connected")

        def feed(table: Table, steps: list[Step]) -> None:
            run_script(sim, steps)
            expected = len(sensor_changes(steps))
            table.changes(wait_changes(source, expected))

        table = replay_on_the_board(log, feed)
    assert table.notices == []
    assert table.match.events == log.events
    assert table.match.summary() == log.summary()
