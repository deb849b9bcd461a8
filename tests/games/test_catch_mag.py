"""Catch Mag scenarios: the rulebook's turn, the table-log rulings, and the edge cases.

Most scenarios use a known layout, ``LAYOUT``: the five rod spaces after each
outer joker space are white, green, red, yellow, blue in that order, so
space 2 white, 3 green, 4 red, 5 yellow, 6 blue, 8 white, ..., 30 blue.
"""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.catch_mag import (
    COLORS,
    JOKER_SPACES,
    ROD_SPACES,
    RULES,
    State,
    balls_on_board,
    expected,
    kept_jokers,
    legal_events,
    next_space,
    pending,
    random_setup,
    rods_on_board,
    rolls_left,
    rows,
    ships,
    space_contents,
    supply,
    swipe_options,
)
from companion.games.errors import IllegalEvent, MalformedEvent, MatchOver, TableEventError
from companion.games.match import Match
from companion.tablelog import replay_text

LAYOUT = {str(s): COLORS[i % 5] for i, s in enumerate(ROD_SPACES)}
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "catch-mag.jsonl"


def setup(players: tuple[str, ...] = ("Ann", "Ben"), **options: Any) -> dict[str, Any]:
    return {"type": "setup", "game": "catch-mag", "players": list(players), **options}


def known(players: tuple[str, ...] = ("Ann", "Ben"), **options: Any) -> Match:
    return Match(setup(players, rods=LAYOUT, **options))


def unknown(players: tuple[str, ...] = ("Ann", "Ben"), **options: Any) -> Match:
    return Match(setup(players, **options))


def roll(m: Match, player: str, value: int) -> State:
    state: State = m.push({"type": "roll", "player": player, "value": value})
    return state


def catch(m: Match, player: str, success: bool = True, color: str | None = None) -> State:
    event: dict[str, Any] = {"type": "catch", "player": player, "success": success}
    if color is not None:
        event["color"] = color
    state: State = m.push(event)
    return state


def fail_turn(m: Match) -> None:
    """The player to move rolls onto a rod and fails the catch (the turn ends)."""
    state: State = m.state
    player = state.turn
    assert player is not None
    here = state.ships[state.seat]
    value = next(v for v in range(1, 7) if state.board[next_space(here, v)] is not None)
    roll(m, player, value)
    catch(m, player, success=False)


def error(m: Match, event: dict[str, Any], kind: type[TableEventError] = IllegalEvent) -> str:
    """The refusal message of ``event``; the match must not change."""
    before = m.state
    with pytest.raises(kind) as info:
        m.push(event)
    assert m.state == before
    return str(info.value)


def give_ann_four_red(m: Match) -> None:
    """Ann (first) catches the red rods on 4, 10, 16, 22; Ben fails in between."""
    for value in (3, 6, 6, 6):
        roll(m, "Ann", value)
        catch(m, "Ann")
        fail_turn(m)
    assert rows(m.state)["Ann"]["red"] == 4


# -- setup -----------------------------------------------------------------------


def test_setup_starts_every_ship_on_space_1_with_a_full_board() -> None:
    m = known(("Ann", "Ben", "Cy"))
    s = m.state
    assert ships(s) == {"Ann": 1, "Ben": 1, "Cy": 1}
    assert rods_on_board(s)[4] == "red" and len(rods_on_board(s)) == 25
    assert balls_on_board(s) == [1, 7, 13, 19, 25]
    assert s.turn == "Ann" and s.round == 1 and dict(s.totals) == {"Ann": 0, "Ben": 0, "Cy": 0}
    # 25 rods + 5 joker balls + 5 super jokers
    assert sum(s.zone_counts().values()) == 35


def test_setup_option_first() -> None:
    assert unknown(("Ann", "Ben", "Cy"), first="Cy").turn == "Cy"
    msg = error_setup(setup(first="Zed"))
    assert "'first'" in msg and "Ann, Ben" in msg


def error_setup(event: dict[str, Any]) -> str:
    with pytest.raises(MalformedEvent) as info:
        Match(event)
    return str(info.value)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"7": "red"}, ["joker space", "25 rod spaces"]),
        ({"31": "red"}, ["key", "31"]),
        ({"2": "purple"}, ["space 2", "white, green, red, yellow, blue"]),
        ({"2": "green"}, ["white 4", "green 6", "five of each"]),
    ],
)
def test_setup_rods_layout_is_validated(change: dict[str, str], words: list[str]) -> None:
    msg = error_setup(setup(rods=LAYOUT | change))
    for word in words:
        assert word in msg


def test_setup_rods_must_cover_all_25_spaces() -> None:
    rods = dict(LAYOUT)
    del rods["30"]
    assert "missing space(s) 30" in error_setup(setup(rods=rods))
    assert "JSON object" in error_setup(setup(rods=["red"]))


def test_player_counts() -> None:
    assert "2 to 4" in error_setup(setup(("A", "B", "C", "D", "E")))


# -- rolling and catching ----------------------------------------------------------------


def test_roll_onto_a_rod_then_catch_it_into_the_matching_row() -> None:
    m = known()
    s = roll(m, "Ann", 3)  # 1 -> 4, the red rod
    assert pending(s) == "catch" and s.turn == "Ann"
    assert expected(s).note == "Ann is to catch the red rod on space 4 (success or not)"
    s = catch(m, "Ann")
    # One roll per turn: the catch ends it. Ann 1 rod.
    assert rows(s)["Ann"]["red"] == 1 and dict(s.totals) == {"Ann": 1, "Ben": 0}
    assert s.round_scores == ({"Ann": 1, "Ben": 0},)
    assert space_contents(s, 4).rod is None and s.turn == "Ben"
    assert m.describe_last() == (
        "Ann catches the red rod on space 4: red row 1/5, Ann 1 (+1); turn passes to Ben"
    )


def test_failed_catch_ends_the_turn_and_leaves_the_rod() -> None:
    m = known()
    roll(m, "Ann", 3)
    s = catch(m, "Ann", success=False)
    assert s.turn == "Ben" and rods_on_board(s)[4] == "red" and dict(s.totals)["Ann"] == 0
    assert "fails (the poles repel): turn passes to Ben" in m.describe_last()


def test_landing_on_an_empty_rod_space_ends_the_turn() -> None:
    m = known()
    roll(m, "Ann", 3)
    catch(m, "Ann")  # space 4 is now empty
    s = roll(m, "Ben", 3)  # Ben lands on 4 too
    assert s.turn == "Ann" and pending(s) == "roll" and ships(s)["Ben"] == 4
    assert m.describe_last() == (
        "Ben rolls 3: ship 1 -> 4, space 4 is empty (rod taken): turn passes to Ann"
    )


def test_landing_on_another_ship_is_fine() -> None:
    m = known()
    roll(m, "Ann", 3)
    catch(m, "Ann", success=False)
    s = roll(m, "Ben", 3)
    assert ships(s) == {"Ann": 4, "Ben": 4} and pending(s) == "catch"
    assert space_contents(s, 4).ships == ("Ann", "Ben")


def test_ships_wrap_from_30_to_1() -> None:
    m = known()
    for value in (5, 5, 5, 5, 5, 2):  # Ann 6, 11, 16, 21, 26, 28; Ben the same
        for player in ("Ann", "Ben"):
            roll(m, player, value)
            catch(m, player, success=False)
    assert ships(m.state)["Ann"] == 28
    s = roll(m, "Ann", 3)  # 28 -> 29 -> 30 -> 1: joker ball 1 is there
    assert ships(s)["Ann"] == 1 and pending(s) == "joker"


def test_catch_colour_must_agree_with_a_known_layout() -> None:
    m = known()
    roll(m, "Ann", 3)
    msg = error(m, {"type": "catch", "player": "Ann", "success": True, "color": "blue"})
    assert "space 4 is red" in msg and "not blue" in msg
    assert rows(catch(m, "Ann", color="red"))["Ann"]["red"] == 1


def test_failed_catch_ignores_its_colour() -> None:
    m = known()
    roll(m, "Ann", 3)
    assert catch(m, "Ann", success=False, color="blue").turn == "Ben"


def test_unknown_layout_needs_the_colour_of_a_successful_catch() -> None:
    m = unknown()
    roll(m, "Ann", 3)
    msg = error(m, {"type": "catch", "player": "Ann", "success": True}, MalformedEvent)
    assert "'color'" in msg and "'rods'" in msg
    s = catch(m, "Ann", color="green")
    assert rows(s)["Ann"]["green"] == 1 and supply(s)["green"] == 4
    assert 4 not in rods_on_board(s) and rods_on_board(s)[5] == "unknown"


def test_unknown_layout_has_only_five_rods_of_each_colour() -> None:
    m = unknown(("Ann", "Ben", "Cy"))
    # Ann, Ben, Cy catch white, white, white; then Ann white again; Ben white: five are out.
    for value, player in [(1, "Ann"), (2, "Ben"), (3, "Cy"), (3, "Ann"), (3, "Ben")]:
        roll(m, player, value)
        catch(m, player, color="white")
    assert supply(m.state)["white"] == 0
    roll(m, "Cy", 4)  # Cy 4 -> 8
    msg = error(m, {"type": "catch", "player": "Cy", "success": True, "color": "white"})
    assert "all five white rods" in msg and "green, red, yellow, blue" in msg


def test_events_out_of_turn_and_of_the_wrong_kind() -> None:
    m = known()
    msg = error(m, {"type": "roll", "player": "Ben", "value": 3})
    assert msg == "it is Ann's turn, not Ben's: Ann is to roll"
    msg = error(m, {"type": "catch", "player": "Ann", "success": True})
    assert "has not landed on a rod" in msg and "Ann is to roll" in msg
    msg = error(m, {"type": "joker", "player": "Ann", "use": "keep"})
    assert "joker space" in msg and "roll" in msg
    msg = error(m, {"type": "super-joker", "player": "Ann", "space": 4})
    assert "no super joker is on offer" in msg
    roll(m, "Ann", 3)
    msg = error(m, {"type": "roll", "player": "Ann", "value": 3})
    assert "space 4" in msg and "'catch', not 'roll'" in msg
    msg = error(m, {"type": "joker", "player": "Ann", "use": "keep"})
    assert "'catch', not 'joker'" in msg


@pytest.mark.parametrize(
    ("event", "words"),
    [
        ({"type": "roll", "player": "Ann", "value": 7}, ["'value'", "1 to 6"]),
        ({"type": "roll", "player": "Ann", "value": True}, ["'value'", "whole number"]),
        ({"type": "roll", "player": "Ann", "value": 2.0}, ["'value'"]),
        ({"type": "roll", "player": "Zed", "value": 2}, ["'player'", "Ann, Ben"]),
        ({"type": "roll", "value": 2}, ["missing field 'player'"]),
        ({"type": "catch", "player": "Ann"}, ["missing field 'success'"]),
        ({"type": "catch", "player": "Ann", "success": 1}, ["true or false"]),
        ({"type": "catch", "player": "Ann", "success": True, "color": "pink"}, ["'color'"]),
        ({"type": "joker", "player": "Ann", "use": "eat"}, ["keep, swipe"]),
        ({"type": "joker", "player": "Ann", "use": "swipe", "color": "red"}, ["'from'"]),
        ({"type": "joker", "player": "Ann", "use": "swipe", "from": "Ben"}, ["'color'"]),
        ({"type": "super-joker", "player": "Ann", "space": 31}, ["'space'", "1 to 30"]),
        (
            {"type": "use-joker", "player": "Ann", "joker": 8, "from": "Ben", "color": "red"},
            ["'joker'", "1, 7, 13, 19, 25"],
        ),
        ({"type": "use-joker", "player": "Ann", "from": "Ben", "color": "red"}, ["'joker'"]),
        ({"type": "pass", "player": "Ann"}, ["unknown event type", "use-joker"]),
    ],
)
def test_malformed_events_say_what_was_expected(event: dict[str, Any], words: list[str]) -> None:
    msg = error(known(), event, MalformedEvent)
    for word in words:
        assert word in msg


def test_extra_fields_are_ignored() -> None:
    m = known()
    s = m.push({"type": "roll", "player": "Ann", "value": 3, "sensor": {"dt": 12}})
    assert pending(s) == "catch"


# -- joker balls -------------------------------------------------------------------


def test_joker_keep_puts_the_ball_in_the_home_recess() -> None:
    m = known()
    s = roll(m, "Ann", 6)  # 1 -> 7, ball 7 is there
    assert pending(s) == "joker" and "keep it or swipe" in expected(s).note
    s = m.push({"type": "joker", "player": "Ann", "use": "keep"})
    assert kept_jokers(s) == {"Ann": [7], "Ben": []} and balls_on_board(s) == [1, 13, 19, 25]
    assert space_contents(s, 7).keeper == "Ann" and space_contents(s, 7).ball is False
    assert s.turn == "Ben" and dict(s.totals) == {"Ann": 0, "Ben": 0}
    assert m.describe_last() == "Ann keeps joker ball 7 in home recess 7; turn passes to Ben"
    assert s.zone_counts()["recess:Ann"] == 1 and sum(s.zone_counts().values()) == 35


def test_joker_swipe_moves_a_rod_between_stations_and_the_ball_stays() -> None:
    m = known()
    fail_turn(m)
    roll(m, "Ben", 3)
    catch(m, "Ben")  # Ben: red 1
    roll(m, "Ann", 5)  # Ann 2 -> 7, ball 7
    s = m.push({"type": "joker", "player": "Ann", "use": "swipe", "from": "Ben", "color": "red"})
    # Ann 1 (+1), Ben 0 (-1); the ball goes back on its space
    assert rows(s)["Ann"]["red"] == 1 and rows(s)["Ben"]["red"] == 0
    assert dict(s.totals) == {"Ann": 1, "Ben": 0} and 7 in balls_on_board(s)
    assert m.describe_last() == (
        "Ann swipes a red rod from Ben with joker ball 7 (ball back on space 7): "
        "Ann 1 (+1), Ben 0 (-1); turn passes to Ben"
    )


def test_a_swipe_needs_an_opponent_holding_that_colour() -> None:
    m = known()
    fail_turn(m)
    roll(m, "Ben", 3)
    catch(m, "Ben")  # Ben: red 1
    roll(m, "Ann", 5)
    msg = error(
        m, {"type": "joker", "player": "Ann", "use": "swipe", "from": "Ben", "color": "blue"}
    )
    assert "Ben has no blue rod" in msg and "Ben holds red 1" in msg and "red from Ben" in msg
    msg = error(
        m, {"type": "joker", "player": "Ann", "use": "swipe", "from": "Ann", "color": "red"}
    )
    assert "own station" in msg
    assert swipe_options(m.state, "Ann") == [("Ben", "red")]


def test_nothing_to_swipe_leaves_only_keep() -> None:
    m = known()
    roll(m, "Ann", 6)
    msg = error(
        m, {"type": "joker", "player": "Ann", "use": "swipe", "from": "Ben", "color": "red"}
    )
    assert "possible swipes: none" in msg
    assert legal_events(m.state) == [{"type": "joker", "player": "Ann", "use": "keep"}]


def test_use_joker_before_the_first_roll_then_roll_as_usual() -> None:
    m = known()
    roll(m, "Ann", 6)
    m.push({"type": "joker", "player": "Ann", "use": "keep"})  # Ann keeps ball 7
    roll(m, "Ben", 3)
    catch(m, "Ben")  # Ben: red 1
    assert expected(m.state).events == ("roll", "use-joker")
    use = {"type": "use-joker", "player": "Ann", "joker": 7, "from": "Ben", "color": "red"}
    s = m.push(use)
    # Ann red 1, Ben 0; ball 7 back on space 7; still Ann's turn, who now rolls
    assert dict(s.totals) == {"Ann": 1, "Ben": 0} and kept_jokers(s)["Ann"] == []
    assert 7 in balls_on_board(s) and s.turn == "Ann" and pending(s) == "roll"
    assert m.describe_last() == (
        "Ann spends kept joker ball 7 to swipe a red rod from Ben (ball back on space 7): "
        "Ann 1 (+1), Ben 0 (-1); Ann to roll"
    )
    msg = error(m, use)  # the ball is back on the board
    assert "ball 7 is not theirs (it is on its space)" in msg and "keeps no joker ball" in msg
    roll(m, "Ann", 2)  # 7 -> 9, green
    assert pending(m.state) == "catch"


def test_use_joker_needs_a_kept_ball_and_comes_before_the_roll() -> None:
    m = known()
    roll(m, "Ann", 6)
    m.push({"type": "joker", "player": "Ann", "use": "keep"})  # Ann keeps 7
    roll(m, "Ben", 3)
    catch(m, "Ben")  # Ben red 1
    use = {"type": "use-joker", "player": "Ann", "joker": 7, "from": "Ben", "color": "red"}
    msg = error(m, use | {"joker": 13})
    assert "ball 13 is not theirs (it is on its space)" in msg and "Ann keeps 7" in msg
    msg = error(m, use | {"player": "Ben", "from": "Ann"})
    assert "it is Ann's turn, not Ben's" in msg
    msg = error(m, use | {"color": "blue"})
    assert "Ben has no blue rod" in msg
    roll(m, "Ann", 2)  # 7 -> 9: too late for the kept ball now
    msg = error(m, use)
    assert "'catch', not 'use-joker'" in msg


def test_only_the_keeper_spends_a_ball() -> None:
    m = known()
    roll(m, "Ann", 6)
    m.push({"type": "joker", "player": "Ann", "use": "keep"})  # Ann keeps 7
    roll(m, "Ben", 3)
    catch(m, "Ben")  # Ben red 1
    fail_turn(m)  # Ann
    use = {"type": "use-joker", "player": "Ben", "joker": 7, "from": "Ann", "color": "red"}
    msg = error(m, use)
    assert "ball 7 is not theirs (Ann keeps it)" in msg and "Ben keeps no joker ball" in msg


def test_use_joker_after_the_first_roll_of_a_three_roll_turn_is_refused() -> None:
    m = known()
    give_ann_four_red(m)  # Ann on 22, three rolls
    roll(m, "Ann", 1)  # 22 -> 23 yellow (roll 1 of 3)
    catch(m, "Ann")
    s = m.state
    assert s.turn == "Ann" and s.rolled and rolls_left(s) == 2
    msg = error(m, {"type": "use-joker", "player": "Ann", "joker": 7, "from": "Ben",
                    "color": "red"})
    assert "only allowed before the turn's first roll" in msg and "roll again" in msg


def test_two_use_jokers_in_one_turn() -> None:
    m = known(("Ann", "Ben", "Cy"))
    roll(m, "Ann", 6)
    m.push({"type": "joker", "player": "Ann", "use": "keep"})  # Ann keeps 7
    roll(m, "Ben", 3)
    catch(m, "Ben")  # Ben red 1 (space 4)
    roll(m, "Cy", 1)
    catch(m, "Cy")  # Cy white 1 (space 2)
    roll(m, "Ann", 6)
    m.push({"type": "joker", "player": "Ann", "use": "keep"})  # 7 -> 13, Ann keeps 13
    fail_turn(m)
    fail_turn(m)
    m.push({"type": "use-joker", "player": "Ann", "joker": 13, "from": "Ben", "color": "red"})
    s = m.push({"type": "use-joker", "player": "Ann", "joker": 7, "from": "Cy",
                "color": "white"})
    assert rows(s)["Ann"]["red"] == 1 and rows(s)["Ann"]["white"] == 1
    assert dict(s.totals) == {"Ann": 2, "Ben": 0, "Cy": 0}
    assert balls_on_board(s) == [1, 7, 13, 19, 25] and pending(s) == "roll"


# -- the super joker ---------------------------------------------------------------


def super_offer() -> Match:
    """Ann keeps ball 7; Ben then lands on 7: super joker 7 is on offer to Ben."""
    m = known(("Ann", "Ben", "Cy"))
    roll(m, "Ann", 6)
    m.push({"type": "joker", "player": "Ann", "use": "keep"})
    s = roll(m, "Ben", 6)
    assert pending(s) == "super-joker" and s.turn == "Ben"
    assert m.describe_last() == (
        "Ben rolls 6: ship 1 -> 7, joker space 7, ball 7 is kept by Ann: super joker 7 on offer"
    )
    return m


def test_super_joker_takes_a_rod_from_any_space() -> None:
    m = super_offer()
    s = m.push({"type": "super-joker", "player": "Ben", "space": 30})  # 30 is blue
    assert rows(s)["Ben"]["blue"] == 1 and 30 not in rods_on_board(s)
    assert s.turn == "Cy" and s.zone_counts()["galaxy"] == 5
    assert m.describe_last() == (
        "Ben uses super joker 7 to take the blue rod on space 30 (super joker back in the "
        "galaxy): blue row 1/5, Ben 1 (+1); turn passes to Cy"
    )


def test_super_joker_needs_a_rod_on_the_chosen_space() -> None:
    m = super_offer()
    msg = error(m, {"type": "super-joker", "player": "Ben", "space": 13})
    assert "outer joker space" in msg and "rods remain on spaces 2, 3" in msg
    m.push({"type": "super-joker", "player": "Ben", "space": 30})
    fail_turn(m)  # Cy
    roll(m, "Ann", 6)  # Ann 7 -> 13, keeps 13
    m.push({"type": "joker", "player": "Ann", "use": "keep"})
    roll(m, "Ben", 6)  # Ben 7 -> 13: ball 13 kept by Ann
    msg = error(m, {"type": "super-joker", "player": "Ben", "space": 30})
    assert "space 30 is empty (its rod was taken)" in msg
    msg = error(m, {"type": "super-joker", "player": "Ben", "space": 29, "color": "red"})
    assert "space 29 is yellow" in msg and "not red" in msg


def test_any_other_event_declines_the_super_joker_and_ends_the_turn_first() -> None:
    m = super_offer()
    s = roll(m, "Cy", 3)  # Cy's roll declines Ben's offer
    assert s.turn == "Cy" and pending(s) == "catch" and dict(s.totals)["Ben"] == 0
    assert m.describe_last() == (
        "Ben declines super joker 7, turn ends; Cy rolls 3: ship 1 -> 4, the red rod on "
        "space 4: catch next"
    )


def test_the_offered_player_cannot_roll_on_after_declining() -> None:
    m = super_offer()
    msg = error(m, {"type": "roll", "player": "Ben", "value": 3})
    assert "it is Cy's turn, not Ben's" in msg and "declines it" in msg
    msg = error(m, {"type": "roll", "player": "Ann", "value": 3})
    assert "it is Cy's turn, not Ann's" in msg


def test_super_joker_colour_in_an_unknown_layout() -> None:
    m = unknown()
    roll(m, "Ann", 6)
    m.push({"type": "joker", "player": "Ann", "use": "keep"})
    roll(m, "Ben", 6)
    error(m, {"type": "super-joker", "player": "Ben", "space": 2}, MalformedEvent)
    s = m.push({"type": "super-joker", "player": "Ben", "space": 2, "color": "yellow"})
    assert rows(s)["Ben"]["yellow"] == 1 and s.turn == "Ann"


def empty_the_board(m: Match) -> None:
    """Catch every rod (unknown layout), giving nobody more than three of a colour."""
    for _ in range(500):
        s: State = m.state
        if not rods_on_board(s):
            return
        player = s.turn
        assert player is not None
        here = s.ships[s.seat]
        reach = [v for v in range(1, 7) if s.board[next_space(here, v)] is not None]
        if not reach:  # no rod within reach: land on an empty rod space
            roll(m, player, next(v for v in range(1, 7) if next_space(here, v) in ROD_SPACES))
            continue
        roll(m, player, reach[0])
        left = supply(m.state)
        fits = [c for c in COLORS if left[c] and rows(m.state)[player][c] < 3]
        if fits:
            catch(m, player, color=fits[0])
        else:
            catch(m, player, success=False)
    raise AssertionError("the board did not empty")


def land_on(m: Match, player: str, space: int) -> State:
    """Empty-space turns (the board is empty) until ``player`` can roll onto ``space``."""
    for _ in range(100):
        s: State = m.state
        mover = s.turn
        assert mover is not None
        here = s.ships[s.seat]
        hits = [v for v in range(1, 7) if next_space(here, v) == space]
        if mover == player and hits:
            return roll(m, player, hits[0])
        roll(m, mover, next(v for v in range(1, 7) if next_space(here, v) in ROD_SPACES))
    raise AssertionError("never reached")


def test_an_empty_board_continues_with_swipes_and_offers_no_super_joker() -> None:
    m = unknown()
    empty_the_board(m)
    s = m.state
    assert not s.finished and sum(dict(s.totals).values()) == 25 and s.zone_counts()["board"] == 0
    s = land_on(m, "Ann", 13)
    assert pending(s) == "joker" and swipe_options(s, "Ann")
    m.push({"type": "joker", "player": "Ann", "use": "keep"})
    s = land_on(m, "Ben", 13)  # ball 13 is away, but no rod is left to take
    assert s.turn == "Ann" and pending(s) == "roll"
    assert m.describe_last().endswith(
        "joker space 13, ball 13 is kept by Ann and no rod is left for the super joker: "
        "turn passes to Ann"
    )


# -- three rolls with four of a colour -----------------------------------------------


def test_four_of_a_colour_rolls_three_times() -> None:
    m = known()
    give_ann_four_red(m)
    s = m.state
    assert s.turn == "Ann" and rolls_left(s) == 3 and m.summary()["three_rolls"] is True
    roll(m, "Ann", 1)  # 22 -> 23 yellow
    assert "(roll 1 of 3: four of a colour)" in m.describe_last()
    s = catch(m, "Ann")  # success: roll again
    assert s.turn == "Ann" and rolls_left(s) == 2
    assert m.describe_last().endswith("Ann rolls again (roll 2 of 3)")
    assert m.summary()["expected"] == "Ann rolls again (roll 2 of 3)"
    roll(m, "Ann", 1)  # 23 -> 24 blue
    assert "(roll 2 of 3)" in m.describe_last()
    s = catch(m, "Ann")
    assert rolls_left(s) == 1 and m.describe_last().endswith("Ann rolls again (roll 3 of 3)")
    roll(m, "Ann", 2)  # 24 -> 26 white
    assert "(roll 3 of 3)" in m.describe_last()
    s = catch(m, "Ann")  # third catch: the turn is over
    assert s.turn == "Ben" and dict(s.totals)["Ann"] == 7


def test_a_failed_catch_ends_a_three_roll_turn() -> None:
    m = known()
    give_ann_four_red(m)
    roll(m, "Ann", 1)
    assert catch(m, "Ann", success=False).turn == "Ben"


def ann_four_red_with_gaps(m: Match) -> None:
    """Unknown layout: Ann catches red on 2, 3, 4, 5; Ben green on 6, 8, 9, then fails on 10.

    Spaces 6, 8 and 9 are then empty, just ahead of Ann (on 5), who is to take a
    three-roll turn.
    """
    for player, value, color in [
        ("Ann", 1, "red"), ("Ben", 5, "green"), ("Ann", 1, "red"), ("Ben", 2, "green"),
        ("Ann", 1, "red"), ("Ben", 1, "green"), ("Ann", 1, "red"),
    ]:
        roll(m, player, value)
        catch(m, player, color=color)
    fail_turn(m)  # Ben 9 -> 10
    s = m.state
    assert s.turn == "Ann" and rolls_left(s) == 3 and ships(s) == {"Ann": 5, "Ben": 10}


def test_an_empty_space_in_a_three_roll_turn_rolls_again() -> None:
    # "he may roll the die three times in a row, which improves his chances of
    # winning": an empty landing uses up a roll, not the turn (the contract's ruling).
    m = unknown()
    ann_four_red_with_gaps(m)
    s = roll(m, "Ann", 1)  # 5 -> 6, empty
    assert s.turn == "Ann" and pending(s) == "roll" and rolls_left(s) == 2
    assert m.describe_last() == (
        "Ann rolls 1 (roll 1 of 3: four of a colour): ship 5 -> 6, space 6 is empty "
        "(rod taken): Ann rolls again (roll 2 of 3)"
    )
    # What the phone shows: the engine's expected note, in the summary.
    assert expected(s).note == "Ann rolls again (roll 2 of 3)"
    assert m.summary()["expected"] == "Ann rolls again (roll 2 of 3)"
    assert m.summary()["three_rolls"] is True
    msg = error(m, {"type": "roll", "player": "Ben", "value": 2})
    assert msg == "it is Ann's turn, not Ben's: Ann rolls again (roll 2 of 3)"
    roll(m, "Ann", 5)  # 6 -> 11: a rod
    assert "(roll 2 of 3)" in m.describe_last()
    s = catch(m, "Ann", color="blue")
    assert s.turn == "Ann" and rolls_left(s) == 1
    roll(m, "Ann", 1)  # 11 -> 12, the third roll
    s = catch(m, "Ann", color="blue")
    assert s.turn == "Ben" and dict(s.totals)["Ann"] == 6


def test_three_empty_landings_take_the_three_rolls() -> None:
    m = unknown()
    ann_four_red_with_gaps(m)
    roll(m, "Ann", 1)  # 5 -> 6, empty
    s = roll(m, "Ann", 2)  # 6 -> 8, empty
    assert s.turn == "Ann" and expected(s).note == "Ann rolls again (roll 3 of 3)"
    s = roll(m, "Ann", 1)  # 8 -> 9, empty: that was the last roll
    assert s.turn == "Ben" and ships(s)["Ann"] == 9
    assert m.describe_last() == (
        "Ann rolls 1 (roll 3 of 3): ship 8 -> 9, space 9 is empty (rod taken): "
        "turn passes to Ben"
    )


def test_a_failed_catch_after_an_empty_landing_ends_a_three_roll_turn() -> None:
    # "his turn is now over": only a failed catch (or a win) ends the three rolls early.
    m = unknown()
    ann_four_red_with_gaps(m)
    roll(m, "Ann", 1)  # 5 -> 6, empty
    roll(m, "Ann", 4)  # 6 -> 10: the rod Ben failed to catch
    s = catch(m, "Ann", success=False)
    assert s.turn == "Ben" and rolls_left(s) == 1
    assert m.describe_last() == (
        "Ann's catch on space 10 fails (the poles repel): turn passes to Ben"
    )


def ann_four_red_ben_keeps_7(m: Match) -> None:
    """Known layout: Ben keeps ball 7; Ann holds the reds on 10, 16, 22, 28 and stands on 28."""
    roll(m, "Ann", 3)
    catch(m, "Ann", success=False)  # Ann on 4
    roll(m, "Ben", 6)
    m.push({"type": "joker", "player": "Ben", "use": "keep"})  # Ben keeps ball 7
    for _ in range(4):  # Ann: the reds on 10, 16, 22, 28
        roll(m, "Ann", 6)
        catch(m, "Ann")
        fail_turn(m)
    assert m.state.turn == "Ann" and rolls_left(m.state) == 3


def test_a_declined_super_joker_in_a_three_roll_turn_rolls_on() -> None:
    m = known()
    ann_four_red_ben_keeps_7(m)
    roll(m, "Ann", 3)  # 28 -> 1, ball 1: keep, roll again
    m.push({"type": "joker", "player": "Ann", "use": "keep"})
    s = roll(m, "Ann", 6)  # 1 -> 7: ball 7 is Ben's, super joker 7 on offer
    assert pending(s) == "super-joker" and rolls_left(s) == 1
    exp = expected(s)
    assert exp.player == "Ann" and exp.events == ("super-joker", "roll")
    assert exp.note == (
        "Ann may take any rod on the board with super joker 7 (super-joker), "
        "or decline it and roll again (roll 3 of 3)"
    )
    # With a roll left the decline does not end the turn: Ben cannot act yet.
    msg = error(m, {"type": "roll", "player": "Ben", "value": 1})
    assert msg.startswith("it is Ann's turn, not Ben's: Ann rolls again (roll 3 of 3)")
    assert "Ann has 1 roll left this turn" in msg and "Ann's roll, which declines it" in msg
    msg = error(m, {"type": "use-joker", "player": "Ann", "joker": 1, "from": "Ben",
                    "color": "red"})
    assert "only allowed before the turn's first roll" in msg
    s = roll(m, "Ann", 1)  # declines, and is Ann's third roll: 7 -> 8, white
    assert s.turn == "Ann" and pending(s) == "catch" and rolls_left(s) == 0
    assert m.describe_last() == (
        "Ann declines super joker 7, rolls on; Ann rolls 1 (roll 3 of 3): ship 7 -> 8, "
        "the white rod on space 8: catch next"
    )
    s = catch(m, "Ann")
    assert s.turn == "Ben" and dict(s.totals)["Ann"] == 5


def test_a_super_joker_on_the_third_roll_is_declined_by_the_next_player() -> None:
    m = known()
    ann_four_red_ben_keeps_7(m)
    roll(m, "Ann", 3)  # 28 -> 1, ball 1: keep
    m.push({"type": "joker", "player": "Ann", "use": "keep"})
    roll(m, "Ann", 1)  # 1 -> 2, white
    catch(m, "Ann")
    s = roll(m, "Ann", 5)  # 2 -> 7, the third roll: super joker 7 on offer
    assert pending(s) == "super-joker" and rolls_left(s) == 0
    assert expected(s).events == ("super-joker",)
    assert "declines it and ends the turn (Ben is next)" in expected(s).note
    msg = error(m, {"type": "roll", "player": "Ann", "value": 1})
    assert "it is Ben's turn, not Ann's" in msg and "ends Ann's turn" in msg
    s = roll(m, "Ben", 1)  # declines: Ann's turn is over
    assert s.turn == "Ben" and dict(s.totals)["Ann"] == 5
    assert m.describe_last().startswith("Ann declines super joker 7, turn ends; Ben rolls 1")


def test_a_win_ends_a_three_roll_turn_at_once() -> None:
    m = known()
    give_ann_four_red(m)  # Ann on 22, the red on 28 six spaces on
    roll(m, "Ann", 6)
    s = catch(m, "Ann")
    assert s.finished and s.winners == ("Ann",) and rolls_left(s) == 0
    assert m.describe_last().endswith("five red: Ann wins")
    error(m, {"type": "roll", "player": "Ann", "value": 1}, MatchOver)


def test_legal_events_of_a_three_roll_offer_are_the_super_jokers_and_own_rolls() -> None:
    m = known()
    ann_four_red_ben_keeps_7(m)
    roll(m, "Ann", 3)
    m.push({"type": "joker", "player": "Ann", "use": "keep"})
    roll(m, "Ann", 6)  # super joker 7 on offer, one roll left
    legal = legal_events(m.state)
    assert {"type": "super-joker", "player": "Ann", "space": 30} in legal
    assert [e["value"] for e in legal if e["type"] == "roll"] == [1, 2, 3, 4, 5, 6]
    assert all(e["player"] == "Ann" for e in legal)
    for event in legal:  # every listed event is accepted
        RULES.play(m.state, event)


def test_reaching_four_during_a_turn_gives_no_extra_rolls_that_turn() -> None:
    m = known()
    for value in (3, 6, 6):
        roll(m, "Ann", value)
        catch(m, "Ann")
        fail_turn(m)
    assert rolls_left(m.state) == 1
    roll(m, "Ann", 6)  # 16 -> 22, the fourth red
    s = catch(m, "Ann")
    assert rows(s)["Ann"]["red"] == 4 and s.turn == "Ben"


def ann_reds_after_ben_red(m: Match, reds: int) -> None:
    """Ann fails on 4, Ben catches that red; then Ann catches the reds on 10, 16, 22, 28."""
    roll(m, "Ann", 3)
    catch(m, "Ann", success=False)
    roll(m, "Ben", 3)
    catch(m, "Ben")
    for _ in range(reds):
        roll(m, "Ann", 6)
        catch(m, "Ann")
        fail_turn(m)
    assert rows(m.state)["Ann"]["red"] == reds and rows(m.state)["Ben"]["red"] == 1


def test_a_use_joker_that_makes_four_gives_three_rolls() -> None:
    m = known()
    ann_reds_after_ben_red(m, 3)  # Ann on 22
    roll(m, "Ann", 3)  # 22 -> 25, keeps ball 25 (one roll: the turn passes)
    m.push({"type": "joker", "player": "Ann", "use": "keep"})
    fail_turn(m)
    assert m.state.turn == "Ann" and rolls_left(m.state) == 1
    m.push({"type": "use-joker", "player": "Ann", "joker": 25, "from": "Ben", "color": "red"})
    # Ann red 4 at the turn's first roll: three rolls
    assert rows(m.state)["Ann"]["red"] == 4 and rolls_left(m.state) == 3
    roll(m, "Ann", 2)  # 25 -> 27 yellow
    s = catch(m, "Ann")
    assert s.turn == "Ann" and rolls_left(s) == 2


# -- winning -------------------------------------------------------------------------


def test_the_fifth_rod_of_a_colour_wins_at_once() -> None:
    m = known()
    give_ann_four_red(m)
    roll(m, "Ann", 6)  # 22 -> 28, the last red
    s = catch(m, "Ann")
    assert s.finished and s.winners == ("Ann",) and s.turn is None and pending(s) is None
    assert dict(s.totals) == {"Ann": 5, "Ben": 0} and rolls_left(s) == 0
    assert m.describe_last().endswith("; five red: Ann wins")
    assert expected(s).note == "the match is over: Ann won" and legal_events(s) == []
    msg = error(m, {"type": "roll", "player": "Ben", "value": 1}, MatchOver)
    assert "over" in msg and "Ann won" in msg
    summary = m.summary()
    assert summary["winners"] == ["Ann"] and summary["finished"] is True


def test_a_swipe_that_makes_five_wins() -> None:
    m = known()
    ann_reds_after_ben_red(m, 4)  # Ann on 28 with red 4: three rolls
    roll(m, "Ann", 3)  # 28 -> 29 -> 30 -> 1: ball 1
    s = m.push({"type": "joker", "player": "Ann", "use": "keep"})
    assert s.turn == "Ann" and rolls_left(s) == 2  # a joker gives the next roll
    roll(m, "Ann", 1)  # 1 -> 2 white
    catch(m, "Ann", success=False)
    fail_turn(m)
    s = m.push({"type": "use-joker", "player": "Ann", "joker": 1, "from": "Ben",
                "color": "red"})
    # Ann's fifth red, before any roll: the game is over
    assert s.finished and s.winners == ("Ann",) and rows(s)["Ann"]["red"] == 5
    assert dict(s.totals) == {"Ann": 5, "Ben": 0}
    assert m.describe_last().endswith("Ann 5 (+1), Ben 0 (-1); five red: Ann wins")


def test_a_joker_swipe_that_makes_five_wins() -> None:
    m = known()
    ann_reds_after_ben_red(m, 4)  # Ann on 28
    roll(m, "Ann", 3)  # -> 1, ball 1
    s = m.push({"type": "joker", "player": "Ann", "use": "swipe", "from": "Ben",
                "color": "red"})
    assert s.finished and s.winners == ("Ann",) and s.turn is None


# -- queries, undo and playouts ----------------------------------------------------------


def test_space_contents_rejects_off_board_numbers() -> None:
    with pytest.raises(ValueError, match="1 to 30"):
        space_contents(known().state, 31)


def test_extras_are_plain_json_and_do_not_clash() -> None:
    m = super_offer()
    summary = m.summary()
    json.dumps(summary)
    assert summary["turn"] == "Ben" and summary["pending"] == "super-joker"
    assert summary["ships"] == {"Ann": 7, "Ben": 7, "Cy": 1}
    assert summary["kept_jokers"] == {"Ann": [7], "Ben": [], "Cy": []}
    assert summary["board"]["4"] == "red" and summary["rods_on_board"] == 25
    assert summary["layout_known"] is True and summary["first"] == "Ann"
    assert "declines" in summary["expected"]


def test_legal_events_during_an_offer_include_the_declines() -> None:
    m = super_offer()
    legal = legal_events(m.state)
    assert {"type": "super-joker", "player": "Ben", "space": 30} in legal
    assert {"type": "roll", "player": "Cy", "value": 6} in legal
    assert all(e["player"] in ("Ben", "Cy") for e in legal)


def test_undo_restores_the_exact_state() -> None:
    m = super_offer()
    before = m.state
    m.push({"type": "super-joker", "player": "Ben", "space": 30})
    m.pop()
    assert m.state == before


def bare(event: dict[str, Any], state: State) -> dict[str, Any]:
    """The event as legal_events lists it: an optional colour (known layout) left out."""
    if state.params.layout is not None and event["type"] in ("catch", "super-joker"):
        return {k: v for k, v in event.items() if k != "color"}
    return event


@pytest.mark.parametrize("seed", range(12))
def test_random_playouts_are_legal_and_finish(seed: int) -> None:
    rng = random.Random(seed)
    names = ["Ann", "Ben", "Cy", "Dee"][: rng.randint(2, 4)]
    state = RULES.new_state(random_setup(rng, names))
    seen: set[str] = set()
    for _ in range(1000):
        if state.finished:
            break
        event = RULES.random_event(state, rng)
        assert bare(event, state) in legal_events(state)
        seen.add(event["type"])
        _, state = RULES.play(state, event)
        assert sum(state.zone_counts().values()) == 35
        assert dict(state.totals) == dict(state.round_scores[0])
    assert state.finished and len(state.winners) == 1
    winner = state.players.index(state.winners[0])
    assert max(state.rows[winner]) == 5
    assert {"roll", "catch", "joker"} <= seen


def test_playouts_exercise_every_event_type() -> None:
    seen: set[str] = set()
    for seed in range(30):
        rng = random.Random(seed)
        state = RULES.new_state(random_setup(rng, ["Ann", "Ben", "Cy"]))
        while not state.finished:
            event = RULES.random_event(state, rng)
            seen.add(event["type"] + ":" + str(event.get("use", "")))
            _, state = RULES.play(state, event)
    assert seen == {
        "roll:", "catch:", "joker:keep", "joker:swipe", "super-joker:", "use-joker:"
    }


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False)
    | st.text(max_size=6),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 20),
    steps=st.integers(0, 60),
    kind=st.sampled_from(["roll", "catch", "joker", "super-joker", "use-joker", "x"]),
    fields=st.dictionaries(
        st.sampled_from(["player", "value", "success", "color", "use", "from", "space", "joker"]),
        json_values | st.sampled_from(["Ann", "Ben", "red", "keep", "swipe", 1, 7, 30]),
        max_size=5,
    ),
)
def test_arbitrary_events_give_only_table_event_errors(
    seed: int, steps: int, kind: str, fields: dict[str, Any]
) -> None:
    rng = random.Random(seed)
    state = RULES.new_state(random_setup(rng, ["Ann", "Ben"]))
    for _ in range(steps):
        if state.finished:
            break
        _, state = RULES.play(state, RULES.random_event(state, rng))
    with contextlib.suppress(TableEventError):
        RULES.play(state, {"type": kind, **fields})


@settings(max_examples=60, deadline=None)
@given(rods=json_values, first=json_values)
def test_arbitrary_setup_options_give_only_malformed_events(rods: Any, first: Any) -> None:
    with contextlib.suppress(MalformedEvent):
        RULES.new_state(setup(rods=rods, first=first))


def test_joker_spaces_and_rod_spaces_partition_the_board() -> None:
    assert sorted(JOKER_SPACES + ROD_SPACES) == list(range(1, 31)) and len(ROD_SPACES) == 25


def test_example_log_is_a_complete_match() -> None:
    match = replay_text(EXAMPLE.read_text(encoding="utf-8"))
    assert match.finished and match.summary()["winners"]
    assert match.setup["game"] == "catch-mag"
    lines = [line for line in EXAMPLE.read_text(encoding="utf-8").splitlines() if line]
    assert lines[0].startswith("#")
