"""Scenario tests for the Star Plus engine (rulebook examples and the table-log rulings)."""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import star_plus as sp
from companion.games.errors import IllegalEvent, MalformedEvent, MatchOver, TableEventError
from companion.games.match import Match
from companion.games.star_plus import State

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "star-plus.jsonl"

# Nine cards adding up to 1: empties a fresh hand in one play (a one-event round).
# 3+3+3-3-3-3+1-2+2 = 1
NINE_FOR_ONE = ["3", "3", "3", "-3", "-3", "-3", "1", "-2", "2"]


def new(*players: str, **options: Any) -> Match:
    return Match({"type": "setup", "game": "star-plus", "players": list(players), **options})


def play(m: Match, player: str, *cards: str) -> State:
    state: State = m.push({"type": "play", "player": player, "cards": list(cards)})
    return state


def draw(m: Match, player: str) -> State:
    state: State = m.push({"type": "draw", "player": player})
    return state


def illegal(m: Match, event: dict[str, Any]) -> str:
    """The IllegalEvent message for ``event``; the match must be unchanged."""
    before = m.state
    with pytest.raises(IllegalEvent) as info:
        m.push(event)
    assert m.state is before
    return str(info.value)


def malformed(m: Match, event: object) -> str:
    with pytest.raises(MalformedEvent) as info:
        m.push(event)
    return str(info.value)


# -- setup -----------------------------------------------------------------------


def test_deck_composition() -> None:
    assert sp.DECK_SIZE == 74
    assert [sp.HOLDS[k] for k in ("1", "2", "3", "4", "5", "6")] == [11, 11, 11, 7, 7, 7]
    assert all(sp.HOLDS[k] == 3 for k in ("7", "8", "9", "-1", "-2", "-3"))
    assert sp.HOLDS["Z"] == 2


@pytest.mark.parametrize(
    ("count", "hand", "deck"),
    [(2, 9, 56), (3, 9, 47), (4, 9, 38), (5, 8, 34), (6, 8, 26)],
)
def test_deal_sizes(count: int, hand: int, deck: int) -> None:
    m = new(*[f"P{i}" for i in range(count)])
    s = m.state
    assert set(s.hand_counts().values()) == {hand}
    assert s.deck == deck
    assert sum(s.zone_counts().values()) == 74
    assert (s.target, s.black_hole, s.direction_name, s.round, m.turn) == (
        1, False, "clockwise", 1, "P0"
    )


def test_first_option_and_bad_setups() -> None:
    assert new("Ann", "Ben", "Cy", first="Cy").turn == "Cy"
    assert new("Ann", "Ben", "Cy", first=None).turn == "Ann"
    with pytest.raises(MalformedEvent, match="'first' must be one of the seated players"):
        new("Ann", "Ben", first="Zed")
    with pytest.raises(MalformedEvent, match="2 to 6 players"):
        new("Ann")
    with pytest.raises(MalformedEvent, match="2 to 6 players"):
        new(*"ABCDEFG")


# -- the target ----------------------------------------------------------------------


def test_target_climbs_to_twelve_then_wraps_to_one() -> None:
    m = new("Ann", "Ben", "Cy")
    plays = [["1"], ["2"], ["3"], ["4"], ["5"], ["6"], ["2", "5"], ["2", "6"],
             ["4", "5"], ["6", "4"], ["6", "5"], ["6", "6"]]
    seats = ["Ann", "Ben", "Cy"]
    for i, cards in enumerate(plays):
        assert m.state.target == i + 1
        play(m, seats[i % 3], *cards)
    assert m.state.target == 1  # after 12 it is 1 again
    assert m.turn == "Ann"


def test_rulebook_examples_make_one() -> None:
    # "discard a '1' card or ... two '2' cards and a '-3'"; the sample round plays 3 - 2.
    for cards in (["1"], ["2", "2", "-3"], ["3", "-2"]):
        m = new("Ann", "Ben")
        assert sp.is_legal_play(m.state, "Ann", cards)
        play(m, "Ann", *cards)
        assert m.state.target == 2
        assert m.state.pile("Ann") == tuple(cards)
        assert m.state.hand_count("Ann") == 9 - len(cards)


def test_wrong_sum_is_illegal_and_names_the_target() -> None:
    m = new("Ann", "Ben")
    message = illegal(m, {"type": "play", "player": "Ann", "cards": ["2"]})
    assert "add up to 2" in message and "target is 1" in message
    play(m, "Ann", "1")
    message = illegal(m, {"type": "play", "player": "Ben", "cards": ["5", "-2"]})
    assert "add up to 3" in message and "target is 2" in message


def test_out_of_turn_play_and_draw_are_illegal() -> None:
    m = new("Ann", "Ben", "Cy")
    assert illegal(m, {"type": "play", "player": "Ben", "cards": ["1"]}) == (
        "it is Ann's turn, not Ben's"
    )
    assert illegal(m, {"type": "draw", "player": "Cy"}) == "it is Ann's turn, not Cy's"


def test_cannot_play_more_cards_than_the_hand_holds() -> None:
    m = new("Ann", "Ben")
    # 1 x9 - 3 - 3 - 2 = 1, but twelve cards from a hand of nine.
    message = illegal(
        m, {"type": "play", "player": "Ann", "cards": ["1"] * 9 + ["-3", "-3", "-2"]}
    )
    assert "Ann holds only 9 cards" in message and "cannot play 12" in message


def test_hand_count_limit_mid_round() -> None:
    m = new("Ann", "Ben")
    play(m, "Ann", "1", "1", "1", "1", "1", "1", "-2", "-3")  # 6 - 5 = 1, 8 cards: hand 1
    assert m.state.hand_count("Ann") == 1
    draw(m, "Ben")  # draws 4: the Black Hole was open, now closed
    message = illegal(m, {"type": "play", "player": "Ann", "cards": ["1", "1"]})
    assert "Ann holds only 1 card," in message and "cannot play 2" in message


# -- the Black Hole ------------------------------------------------------------------


def test_black_hole_opens_with_three_cards_and_requires_three() -> None:
    m = new("Ann", "Ben", "Cy")
    play(m, "Ann", "2", "2", "-3")  # = 1 with three cards: opens the Black Hole
    s = m.state
    assert s.black_hole and sp.min_cards_to_play(s) == 3
    message = illegal(m, {"type": "play", "player": "Ben", "cards": ["2"]})
    assert "Black Hole is open" in message and "three or more" in message
    assert "draw 4" in message and "Zeus" in message
    assert "three or more" in (sp.check_play(s, "Ben", ["1", "1"]) or "")
    play(m, "Ben", "1", "1", "-1", "1")  # = 2 with four cards: stays open
    assert m.state.black_hole and m.state.target == 3


def test_draw_in_black_hole_takes_four_and_closes_it() -> None:
    m = new("Ann", "Ben", "Cy")
    play(m, "Ann", "2", "2", "-3")
    s = draw(m, "Ben")
    assert s.hand_count("Ben") == 13 and s.deck == 47 - 4
    assert not s.black_hole and s.min_cards == 1
    assert s.target == 2  # a draw does not move the target
    assert m.describe_last().startswith("Ben skips and draws 4 in the Black Hole, which closes")
    play(m, "Cy", "2")  # a single card is fine again
    assert m.state.target == 3


def test_draw_is_allowed_even_when_a_play_is_possible() -> None:
    m = new("Ann", "Ben")
    s = draw(m, "Ann")
    assert (s.hand_count("Ann"), s.deck, s.target, m.turn) == (11, 54, 1, "Ben")


# -- Zeus ----------------------------------------------------------------------------


def test_zeus_skips_without_drawing_even_in_a_black_hole() -> None:
    m = new("Ann", "Ben", "Cy")
    play(m, "Ann", "2", "2", "-3")
    s = play(m, "Ben", "Z")
    assert (s.target, s.black_hole, m.turn) == (2, True, "Cy")
    assert s.hand_count("Ben") == 8 and s.deck == 47  # no draw
    assert s.pile("Ben") == ("Z",)  # Zeus goes to the points pile
    assert "target stays 2, the Black Hole stays open" in m.describe_last()


def test_zeus_is_never_combined_and_only_two_per_round() -> None:
    m = new("Ann", "Ben")
    message = illegal(m, {"type": "play", "player": "Ann", "cards": ["Z", "1"]})
    assert "Zeus is never combined" in message
    play(m, "Ann", "Z")
    play(m, "Ben", "Z")
    message = illegal(m, {"type": "play", "player": "Ann", "cards": ["Z"]})
    assert "deck holds 2 Zeus" in message and "at most 0 more" in message


# -- 7, 8, 9 -------------------------------------------------------------------------


def test_seven_takes_top_two_from_the_right() -> None:
    m = new("Ann", "Ben", "Cy")
    play(m, "Ann", "1")
    play(m, "Ben", "2")
    play(m, "Cy", "4", "-1")  # 3
    play(m, "Ann", "4")
    play(m, "Ben", "5")
    play(m, "Cy", "6")  # Cy's pile: 4, -1, 6 (6 on top)
    s = play(m, "Ann", "7")  # Ann's right is Cy (the previous seat)
    assert s.pile("Cy") == ("4",)
    assert s.pile("Ann") == ("1", "4", "7", "-1", "6")
    assert s.pile("Ben") == ("2", "5")
    assert "7 takes -1, 6 from Cy's pile (right)" in m.describe_last()
    # Stolen cards count as points for the thief: conservation still holds.
    assert sum(s.zone_counts().values()) == 74


def test_eight_takes_from_the_left_and_fewer_if_the_pile_is_small() -> None:
    m = new("Ann", "Ben", "Cy")
    play(m, "Ann", "1")
    play(m, "Ben", "2")
    play(m, "Cy", "3")
    play(m, "Ann", "4")
    play(m, "Ben", "5")
    play(m, "Cy", "6")
    play(m, "Ann", "7")  # takes Cy's 3, 6: Cy's pile is empty
    s = play(m, "Ben", "8")  # Ben's left is Cy, whose pile is empty: takes nothing
    assert s.pile("Ben") == ("2", "5", "8") and s.pile("Cy") == ()
    assert "8 takes nothing from Cy's pile (left), which is empty" in m.describe_last()
    play(m, "Cy", "9")  # reverses: Ben is next
    s = play(m, "Ben", "8", "2")  # = 10; left of Ben is still Cy (seat, not direction)
    assert s.pile("Cy") == () and s.pile("Ben") == ("2", "5", "8", "8", "2", "9")


def test_seven_and_eight_use_seats_not_direction() -> None:
    m = new("Ann", "Ben", "Cy", "Dee")
    play(m, "Ann", "1")
    play(m, "Ben", "2")
    play(m, "Cy", "3")
    play(m, "Dee", "4")
    s = play(m, "Ann", "9", "-3", "-1")  # = 5, reverses: Dee is next; Black Hole opens
    assert m.turn == "Dee" and s.direction_name == "anticlockwise"
    s = play(m, "Dee", "7", "1", "-2")  # = 6; Dee's right is Cy, whatever the direction
    assert s.pile("Cy") == () and s.pile("Dee") == ("4", "7", "1", "-2", "3")
    s = play(m, "Cy", "8", "-1", "-2", "2")  # = 7; Cy's left is Dee: takes Dee's top -2, 3
    assert s.pile("Dee") == ("4", "7", "1") and s.pile("Cy")[-2:] == ("-2", "3")


def test_one_play_with_a_seven_and_an_eight_in_two_player_game() -> None:
    m = new("Ann", "Ben")
    play(m, "Ann", "1")
    play(m, "Ben", "2")
    play(m, "Ann", "3")
    play(m, "Ben", "4")
    play(m, "Ann", "5")
    play(m, "Ben", "6")  # Ben's pile: 2, 4, 6
    s = play(m, "Ann", "7", "8", "-3", "-3", "-2")  # = 7: the right and the left are both Ben
    assert s.pile("Ben") == ()
    assert s.pile("Ann") == ("1", "3", "5", "7", "8", "-3", "-3", "-2", "4", "6", "2")


def test_nine_reverses_and_two_nines_cancel() -> None:
    m = new("Ann", "Ben", "Cy")
    for player, card in zip(["Ann", "Ben", "Cy", "Ann", "Ben", "Cy", "Ann", "Ben"], "12345678",
                            strict=True):
        play(m, player, card)
    s = play(m, "Cy", "9")  # target 9: reverses, so Ben (Cy's right) is next
    assert (s.direction_name, m.turn) == ("anticlockwise", "Ben")
    play(m, "Ben", "4", "6")  # 10: anticlockwise, Ann next
    assert m.turn == "Ann"
    play(m, "Ann", "5", "6")  # 11: Cy next
    s = play(m, "Cy", "9", "9", "-3", "-3")  # = 12: two 9s cancel out
    assert (s.direction_name, m.turn) == ("anticlockwise", "Ben")
    assert "two 9s cancel out" in m.describe_last()


def test_no_kind_played_more_often_than_the_deck_holds() -> None:
    m = new("Ann", "Ben")
    play(m, "Ann", "1")
    play(m, "Ben", "2")
    play(m, "Ann", "3")
    play(m, "Ben", "4")
    play(m, "Ann", "5")
    play(m, "Ben", "6")
    play(m, "Ann", "7")
    play(m, "Ben", "7", "1")  # 8
    play(m, "Ann", "7", "2")  # 9: the third 7
    assert m.state.played_count("7") == 3 and m.state.unplayed("7") == 0
    message = illegal(m, {"type": "play", "player": "Ben", "cards": ["7", "3"]})
    assert "deck holds 3" in message and '"7"' in message and "3 already played" in message
    assert "at most 0 more" in message


# -- round end, scoring, match -----------------------------------------------------


def test_round_ends_when_a_hand_is_empty_with_scores() -> None:
    m = new("Ann", "Ben")
    play(m, "Ann", "1")
    play(m, "Ben", "2")
    play(m, "Ann", "3")
    play(m, "Ben", "4")
    play(m, "Ann", "5")
    play(m, "Ben", "6")
    play(m, "Ann", "7")  # takes Ben's 4, 6
    play(m, "Ben", "8")  # takes back Ann's top two: 4, 6
    play(m, "Ann", "9")  # reverses: with two players Ben is still next
    play(m, "Ben", "6", "4")  # 10; Ben pile 2, 8, 4, 6, 6, 4; hand 3
    play(m, "Ann", "5", "6")  # 11; Ann pile 1, 3, 5, 7, 9, 5, 6; hand 2
    play(m, "Ben", "6", "6")  # 12; Ben pile 8 cards; hand 1
    s = play(m, "Ann", "3", "-2")  # 1: Ann's hand is empty, the round ends
    # Ann: 9 in pile - 0 in hand + 5 = 14.  Ben: 8 in pile - 1 in hand = 7.
    assert s.round_scores == ({"Ann": 14, "Ben": 7},)
    assert s.totals == {"Ann": 14, "Ben": 7}
    # Round 2: one further clockwise, target 1, clockwise, no Black Hole, a fresh deal.
    assert (s.round, m.turn, s.target, s.direction_name, s.black_hole) == (
        2, "Ben", 1, "clockwise", False
    )
    assert s.hand_counts() == {"Ann": 9, "Ben": 9} and s.deck == 56
    assert s.pile_counts() == {"Ann": 0, "Ben": 0} and s.played_count("6") == 0
    line = m.describe_last()
    assert "Ann's hand is empty: round 1 ends" in line
    assert "Ann +14 (9 in pile, 0 in hand, +5 empty hand), Ben +7 (8 in pile, 1 in hand)" in line
    assert "round 2 starts with Ben" in line


def test_round_ends_when_the_last_deck_card_is_drawn_short_draw() -> None:
    m = new("Ann", "Ben", "Cy")  # deck 74 - 27 = 47
    seats = ["Ann", "Ben", "Cy"]
    for i in range(23):  # 23 draws of 2: one card left
        draw(m, seats[i % 3])
    assert m.state.deck == 1 and m.state.round == 1
    s = draw(m, "Cy")  # takes the last card only, and the round ends
    # Ann and Ben drew 8 x 2: 25 in hand; Cy 7 x 2 + 1: 24 in hand; empty piles.
    assert s.round_scores == ({"Ann": -25, "Ben": -25, "Cy": -24},)
    assert s.round == 2 and m.turn == "Ben"
    assert "draws 1 (the last of the deck)" in m.describe_last()
    assert "the deck is empty: round 1 ends" in m.describe_last()


def test_zeus_as_the_last_card_ends_the_round() -> None:
    m = new("Ann", "Ben")
    play(m, "Ann", "1", "1", "1", "1", "1", "1", "-2", "-3")  # 1, eight cards: hand 1
    draw(m, "Ben")
    s = play(m, "Ann", "Z")  # Ann's last card: hand empty
    # Ann: 9 in pile + 5 = 14; Ben: 13 in hand = -13.
    assert s.round_scores == ({"Ann": 14, "Ben": -13},)


def test_rounds_start_one_further_clockwise_whatever_the_direction() -> None:
    m = new("Ann", "Ben", "Cy")
    play(m, "Ann", "9", "-3", "-3", "-2")  # = 1: reverses (Cy next) and opens the Black Hole
    assert m.turn == "Cy"
    s = play(m, "Cy", "4", "4", "-3", "-2", "-1", "-1", "-1", "1", "1")  # = 2, all nine cards
    # Ann 4 in pile, 5 in hand: -1; Ben 9 in hand: -9; Cy 9 in pile + 5: 14.
    assert s.round_scores[-1] == {"Ann": -1, "Ben": -9, "Cy": 14}
    assert (s.round, m.turn, s.direction_name) == (2, "Ben", "clockwise")
    play(m, "Ben", *NINE_FOR_ONE)
    assert (m.state.round, m.turn) == (3, "Cy")
    assert m.summary()["round_first"] == "Cy"


def test_three_rounds_then_highest_total_wins() -> None:
    m = new("Ann", "Ben")
    play(m, "Ann", *NINE_FOR_ONE)  # round 1: Ann 9 + 5 = 14, Ben -9
    play(m, "Ben", *NINE_FOR_ONE)  # round 2: Ben 14, Ann -9
    assert m.turn == "Ann"  # round 3 starts one further clockwise again
    s = play(m, "Ann", *NINE_FOR_ONE)  # round 3: Ann 14, Ben -9
    assert s.finished and s.turn is None and s.round == 3
    assert s.totals == {"Ann": 19, "Ben": -4}  # 14 - 9 + 14, -9 + 14 - 9
    assert s.winners == ("Ann",)
    assert s.pile("Ann") == tuple(NINE_FOR_ONE)  # the last round stays on show
    assert "match over: Ann wins" in m.describe_last()
    with pytest.raises(MatchOver, match="match is over"):
        m.push({"type": "draw", "player": "Ben"})
    assert sp.check_play(s, "Ben", ["1"]) == "the match is over; no further plays are accepted"


def test_tied_totals_share_the_win() -> None:
    m = new("Ann", "Ben")
    play(m, "Ann", *NINE_FOR_ONE)  # Ann 14, Ben -9
    play(m, "Ben", *NINE_FOR_ONE)  # Ben 14, Ann -9
    for i in range(28):  # round 3: 56 cards drawn, 2 at a time: 14 draws each, 37 in hand
        draw(m, ["Ann", "Ben"][i % 2])
    s = m.state
    assert s.round_scores[-1] == {"Ann": -37, "Ben": -37}
    assert s.finished and s.totals == {"Ann": -32, "Ben": -32}
    assert s.winners == ("Ann", "Ben")
    assert "Ann and Ben share the win" in m.describe_last()


# -- form ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "words"),
    [
        ({"type": "play", "player": "Ann"}, "missing field 'cards'"),
        ({"type": "play", "player": "Ann", "cards": "1"}, "must be a list"),
        ({"type": "play", "player": "Ann", "cards": []}, "at least one card"),
        ({"type": "play", "player": "Ann", "cards": ["10"]}, 'got "10"'),
        ({"type": "play", "player": "Ann", "cards": [1]}, '"1" to "9", "-1", "-2", "-3" or "Z"'),
        ({"type": "play", "player": "Ann", "cards": ["1", ["Z"]]}, "card 2 in 'cards'"),
        ({"type": "play", "player": "Zed", "cards": ["1"]}, "seated players (Ann, Ben)"),
        ({"type": "draw"}, "missing field 'player'"),
        ({"type": "pass", "player": "Ann"}, "expected one of play, draw"),
        ([1, 2], "must be a JSON object"),
    ],
)
def test_malformed_events(event: object, words: str) -> None:
    m = new("Ann", "Ben")
    assert words in malformed(m, event)
    assert len(m) == 0


def test_extra_fields_are_ignored_and_to_json_round_trips() -> None:
    m = new("Ann", "Ben")
    play_event = {"type": "play", "player": "Ann", "cards": ["1"], "note": "from the phone"}
    m.push(play_event)
    typed = sp.RULES.parse_event(play_event, m.state)
    assert typed.to_json() == {"type": "play", "player": "Ann", "cards": ["1"]}
    assert sp.Draw("Ben").to_json() == {"type": "draw", "player": "Ben"}


# -- queries, undo, presentation -------------------------------------------------------


def test_check_play_explains_before_sending() -> None:
    s = new("Ann", "Ben").state
    assert sp.check_play(s, "Ann", ["4", "-3"]) is None
    assert "not seated" in (sp.check_play(s, "Zed", ["1"]) or "")
    assert "not a Star Plus card" in (sp.check_play(s, "Ann", ["11"]) or "")
    assert "at least one card" in (sp.check_play(s, "Ann", []) or "")
    assert not sp.is_legal_play(s, "Ann", ["1", "1"])
    assert s.next_player == "Ben"


def test_undo_is_exact_and_equal_histories_give_equal_states() -> None:
    m1, m2 = new("Ann", "Ben", "Cy"), new("Ann", "Ben", "Cy")
    events: list[dict[str, Any]] = [
        {"type": "play", "player": "Ann", "cards": ["2", "2", "-3"]},
        {"type": "draw", "player": "Ben"},
        {"type": "play", "player": "Cy", "cards": ["7", "-2", "-3"]},
    ]
    for e in events:
        m1.push(e)
        m2.push(e)
    assert m1.state == m2.state and hash(m1.state) == hash(m2.state)
    after_two = Match.from_events([m1.setup, *events[:2]]).state
    assert m1.pop() == events[2]
    assert m1.state == after_two


def test_extras_are_plain_json_and_do_not_clash() -> None:
    m = new("Ann", "Ben", "Cy")
    play(m, "Ann", "2", "2", "-3")
    extras = sp.RULES.extras(m.state)
    assert json.loads(json.dumps(extras)) == extras
    assert not set(extras) & {"game", "players", "round", "turn", "totals", "finished",
                               "winners", "rounds"}
    assert extras["target"] == 2 and extras["black_hole"] is True and extras["min_cards"] == 3
    assert extras["hands"] == {"Ann": 6, "Ben": 9, "Cy": 9} and extras["deck"] == 47
    assert extras["piles"]["Ann"] == ["2", "2", "-3"]
    assert extras["pile_counts"] == {"Ann": 3, "Ben": 0, "Cy": 0}
    assert extras["played"] == {"2": 2, "-3": 1} and extras["direction"] == "clockwise"
    summary = m.summary()
    assert summary["turn"] == "Ben" and summary["totals"] == {"Ann": 0, "Ben": 0, "Cy": 0}


def test_describe_mentions_black_hole_and_reversal() -> None:
    m = new("Ann", "Ben", "Cy")
    play(m, "Ann", "9", "-3", "-3", "-2")
    line = m.describe_last()
    assert line.startswith("Ann plays 9 + -3 + -3 + -2 = 1")
    assert "9 reverses play, now anticlockwise" in line
    assert "opens the Black Hole" in line and line.endswith("target now 2; Cy's turn")


# -- playouts, fuzz, example -------------------------------------------------------------


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_random_playouts_finish_legally_and_conserve_cards(count: int) -> None:
    seen: set[str] = set()
    for seed in range(8):
        rng = random.Random(seed * 10 + count)
        m = Match(sp.random_setup(rng, [f"P{i}" for i in range(count)]))
        while not m.finished:
            before = m.state
            event = m.random_event(rng)
            state = m.push(event)
            assert sum(state.zone_counts().values()) == 74
            assert m.describe_last()
            cards = event.get("cards", [])
            seen.add("zeus" if cards == ["Z"] else event["type"])
            seen.update(c for c in cards if c in ("7", "8", "9"))
            if before.black_hole and event["type"] == "draw":
                seen.add("black-hole draw")
            if state.round != before.round or state.finished:
                seen.add(f"end by {event['type']}")
        assert len(m) < 300
        assert m.state.winners and sum(map(sum, m.state.scores)) == sum(m.state.totals.values())
    assert seen >= {"play", "draw", "zeus", "7", "8", "9", "black-hole draw", "end by play"}


def test_random_playouts_also_end_rounds_by_an_empty_deck() -> None:
    ends = set()
    for seed in range(12):
        rng = random.Random(seed)
        m = Match(sp.random_setup(rng, ["Ann", "Ben", "Cy"]))
        while not m.finished:
            before = m.state
            event = m.random_event(rng)
            after = m.push(event)
            if after.round != before.round or after.finished:
                ends.add(event["type"])
    assert ends == {"play", "draw"}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-20, 20) | st.sampled_from(
        ["1", "7", "9", "-3", "Z", "Ann", "Ben", "play", "draw", "10", ""]
    ),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(
        st.sampled_from(["type", "player", "cards", "x"]), inner, max_size=4
    ),
    max_leaves=12,
)
events = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["play", "draw", "setup", "x"]) | json_values,
        "player": st.sampled_from(["Ann", "Ben", "Zed"]) | json_values,
        "cards": st.lists(st.sampled_from((*sp.KINDS, "0", "x")), max_size=6) | json_values,
    },
)


@settings(max_examples=300, deadline=None)
@given(st.lists(events | json_values, max_size=8))
def test_fuzz_only_table_event_errors(raws: list[object]) -> None:
    m = new("Ann", "Ben")
    for raw in raws:
        with contextlib.suppress(TableEventError):
            m.push(raw)


def test_example_log_is_a_complete_match() -> None:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("#")
    events = [json.loads(x) for x in lines if x.strip() and not x.startswith("#")]
    m = Match.from_events(events)
    assert m.finished and m.state.winners
