"""Automatic catch detection: sensor changes and the game state in, events or warnings out."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import pytest

from companion.games.catch_mag import COLORS, ROD_SPACES
from companion.games.match import Match
from hardware.boardmap import load_board_map
from hardware.interpreter import STRAY_WINDOW_S, BoardWarning, CatchMagInterpreter, Reading
from hardware.script import Step, hand_moves, sensor_changes
from hardware.serial_board import SerialBoard
from hardware.simulated import SimulatedBoard, run_script
from hardware.sources import SensorChange
from tests.hardware.rigs import wait_changes, wait_for

BOARD = load_board_map()
PLAYERS = ["Ann", "Ben", "Cy"]


class Table:
    """A match, an interpreter, and a clock: feed hand movements, collect what they mean."""

    def __init__(self, players: list[str] = PLAYERS, **setup: Any) -> None:
        self.match = Match({"type": "setup", "game": "catch-mag", "players": players, **setup})
        self.interpreter = CatchMagInterpreter(BOARD)
        self.at = 0.0
        self.events: list[dict[str, Any]] = []
        self.warnings: list[BoardWarning] = []

    def phone(self, **event: Any) -> None:
        self.match.push(event)

    def roll(self, player: str, value: int) -> None:
        self.phone(type="roll", player=player, value=value)

    def changes(self, changes: Iterable[SensorChange]) -> list[Reading]:
        out: list[Reading] = []
        for change in changes:
            self.at = max(self.at, change.at)
            for reading in self.interpreter.feed(change, self.match.state):
                out.append(reading)
                if isinstance(reading, BoardWarning):
                    self.warnings.append(reading)
                else:
                    self.match.push(reading)
                    self.events.append(reading)
        return out

    def hands(self, *steps: Step) -> list[Reading]:
        return self.changes(sensor_changes(steps, start=self.at))


def only_event(readings: list[Reading]) -> dict[str, Any]:
    assert len(readings) == 1 and isinstance(readings[0], dict), readings
    return readings[0]


def only_warning(readings: list[Reading]) -> BoardWarning:
    assert len(readings) == 1 and isinstance(readings[0], BoardWarning), readings
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
    readings = table.hands(("lift-mag",), ("lift-back", "U5"), ("return-mag",))
    assert only_event(readings) == {"type": "catch", "player": "Ann", "success": False}
    assert table.match.turn == "Ben"


def test_the_catch_mag_taken_up_before_the_roll_still_makes_a_failed_catch() -> None:
    table = Table()
    table.hands(("lift-mag",))
    table.roll("Ann", 4)
    assert only_event(table.hands(("return-mag",)))["success"] is False


def test_the_catch_mag_put_back_while_a_wrong_rod_is_out_is_no_failed_catch() -> None:
    table = Table()
    table.roll("Ann", 4)
    only_warning(table.hands(("lift-mag",), ("move", "U8", "S1.red.1")))
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
    table.hands(("lift-mag",), ("lift-back", "U2"), ("return-mag",))  # Ann fails
    table.roll("Ben", 2)  # space 3
    table.hands(("lift-mag",), ("move", "U3", "S2.red.1"), ("return-mag",))
    assert table.events[-1]["color"] == "red" and table.match.turn == "Cy"
    table.roll("Cy", 3)
    table.hands(("lift-mag",), ("lift-back", "U4"), ("return-mag",))
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
    table.hands(("lift-mag",), ("lift-back", "U2"), ("return-mag",))
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
    table.hands(("lift-mag",), ("lift-back", "U2"), ("return-mag",))
    readings = table.hands(("lift-mag",), ("lift", "S1.J7"), ("move", "S2.blue.1", "S1.blue.1"),
                           ("place", "U7"))
    assert only_event(readings)["type"] == "use-joker"
    table.roll("Ann", 1)  # space 8: a rod, Ann is to catch
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


def test_a_rod_from_the_wrong_space_is_a_warning_until_it_is_put_back() -> None:
    table = Table()
    table.roll("Ann", 4)
    warning = only_warning(table.hands(("lift-mag",), ("move", "U8", "S1.red.1")))
    assert "ship is on space 5" in warning.message
    assert "put it back (universe space 8)" in warning.message
    assert set(warning.sensors) == {"S1.red.1", "U8"}
    assert table.hands(("move", "S1.red.1", "U8")) == []  # put right: nothing to report
    assert table.interpreter.misplaced == {}
    readings = table.hands(("move", "U5", "S1.red.1"), ("return-mag",))
    assert only_event(readings)["color"] == "red"


def test_a_rod_put_into_another_players_station_is_a_warning_naming_it() -> None:
    table = Table()
    table.roll("Ann", 4)
    warning = only_warning(table.hands(("lift-mag",), ("move", "U5", "S2.red.1")))
    assert "Ben's station" in warning.message and "Ann's turn" in warning.message
    # moved on from Ben's station into Ann's: judged as the rod from space 5 it is
    readings = table.hands(("move", "S2.red.1", "S1.red.1"))
    assert only_event(readings)["player"] == "Ann"


def test_two_rods_lifted_at_once_are_a_warning() -> None:
    table = Table()
    table.roll("Ann", 4)
    readings = table.changes(sensor_changes([("lift-mag",), ("lift", "U5"), ("lift", "U6")],
                                            start=table.at))
    assert "two rods are off the board at once" in only_warning(readings).message
    assert table.hands(("place", "U6")) == []  # the extra one goes back
    assert only_event(table.hands(("place", "S1.white.1")))["color"] == "white"


def test_taking_a_rod_before_rolling_is_a_warning() -> None:
    table = Table()
    warning = only_warning(table.hands(("move", "U5", "S1.red.1")))
    assert "Ann is to roll" in warning.message


def test_a_known_layout_refuses_the_wrong_row_and_accepts_the_right_one() -> None:
    colors = [c for c in COLORS for _ in range(5)]
    table = Table(rods={str(s): c for s, c in zip(ROD_SPACES, colors, strict=True)})
    table.roll("Ann", 1)  # space 2 holds a white rod in this layout
    warning = only_warning(table.hands(("lift-mag",), ("move", "U2", "S1.red.1")))
    assert "the rod on space 2 is white" in warning.message
    readings = table.hands(("move", "S1.red.1", "S1.white.1"))
    assert only_event(readings) == {"type": "catch", "player": "Ann", "success": True,
                                    "color": "white"}


def test_a_ball_in_the_wrong_recess_is_a_warning_and_the_right_recess_then_keeps_it() -> None:
    table = Table()
    table.roll("Ann", 6)
    warning = only_warning(table.hands(("lift-mag",), ("move", "U7", "S1.J13")))
    assert "only fits recess 7" in warning.message
    assert only_event(table.hands(("move", "S1.J13", "S1.J7"))) == {
        "type": "joker", "player": "Ann", "use": "keep"}


def test_sliding_a_rod_along_its_row_means_nothing() -> None:
    table = Table()
    table.roll("Ann", 4)
    table.hands(("lift-mag",), ("move", "U5", "S1.red.1"), ("return-mag",))
    assert table.hands(("move", "S1.red.1", "S1.red.3")) == []
    table.roll("Ben", 1)
    assert table.hands(("move", "S1.red.3", "S1.red.1")) == []  # even on someone else's turn


def test_a_landing_reported_just_before_its_take_off_is_still_a_catch() -> None:
    table = Table()
    table.roll("Ann", 4)
    table.hands(("lift-mag",))
    at = table.at
    swapped = [SensorChange("S1.red.1", True, at + 0.01), SensorChange("U5", False, at + 0.02)]
    assert only_event(table.changes(swapped))["color"] == "red"


def test_a_magnet_that_appears_from_nowhere_is_reported() -> None:
    table = Table()
    assert table.hands(("place", "S3.green.1")) == []  # maybe its take-off is late
    assert table.interpreter.tick(table.at + STRAY_WINDOW_S / 2) == []
    warning = only_warning(table.interpreter.tick(table.at + STRAY_WINDOW_S + 0.1))
    assert "station 3, green row, slot 1" in warning.message
    assert table.interpreter.tick(table.at + 5) == []  # reported once


def test_a_sensor_the_map_does_not_know_is_a_warning_not_a_crash() -> None:
    table = Table()
    warning = only_warning(table.changes([SensorChange("U99", False, 0.1)]))
    assert "flash it again" in warning.message


def test_tidying_the_board_after_the_match_means_nothing() -> None:
    log = play_log(3)
    table = replay_on_the_board(log, lambda t, steps: t.hands(*steps))
    assert table.match.finished
    winner_station = log.players.index(log.summary()["winners"][0]) + 1
    rods = sorted(s for s in table.interpreter.present if s.startswith(f"S{winner_station}."))
    assert len(rods) >= 5
    assert table.hands(*[("lift", rod) for rod in rods], ("lift-mag",), ("return-mag",)) == []


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
            table.match.push(event)
    return table


@pytest.mark.parametrize("seed", range(40))
def test_a_whole_game_played_on_the_sensors_matches_its_table_log(seed: int) -> None:
    log = play_log(seed)
    table = replay_on_the_board(log, lambda t, steps: t.hands(*steps))
    assert table.warnings == []
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
    assert table.warnings == []
    assert table.match.events == log.events
    assert table.match.summary() == log.summary()
