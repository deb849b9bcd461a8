"""Star Catcher scenarios: the rulebook's examples and every ruling of the table-log spec."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from companion.games.errors import IllegalEvent, MalformedEvent, MatchOver
from companion.games.match import Match
from companion.games.star_catcher import (
    RULES,
    SIMULATION_DECK,
    Card,
    State,
    catches,
    check_play,
    legal_catches,
    must_catch,
    random_setup,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "star-catcher.jsonl"


def new(*players: str, **options: Any) -> Match:
    return Match(
        {"type": "setup", "game": "star-catcher", "players": list(players or ("Ann", "Ben")),
         **options}
    )


def deal(m: Match, *cards: str) -> State:
    state: State = m.push({"type": "table", "cards": list(cards)})
    return state


def play(m: Match, player: str, card: str, take: list[str] | None = None) -> State:
    event: dict[str, Any] = {"type": "play", "player": player, "card": card}
    if take is not None:
        event["take"] = take
    state: State = m.push(event)
    return state


def auto(m: Match, card: str) -> State:
    """The player to act plays ``card``, catching the first legal option (if any)."""
    options = legal_catches(m.state, Card.parse(card))
    take = [str(c) for c in options[0]] if options and card != "M" else None
    assert m.turn is not None
    return play(m, m.turn, card, take)


def names(options: list[tuple[Card, ...]]) -> list[list[str]]:
    return [[str(c) for c in option] for option in options]


def illegal(m: Match, event: dict[str, Any], *words: str) -> str:
    """The event is refused as illegal, nothing changes, and the message says ``words``."""
    before, count = m.state, len(m)
    with pytest.raises(IllegalEvent) as err:
        m.push(event)
    message = str(err.value)
    for word in words:
        assert word in message, (word, message)
    assert m.state == before and len(m) == count
    return message


def malformed(m: Match, event: Any, *words: str) -> None:
    with pytest.raises(MalformedEvent) as err:
        m.push(event)
    for word in words:
        assert word in str(err.value), (word, str(err.value))


# A whole 2-player round of "place, then catch": play 1 clears the 4 table cards with
# D10 (1+2+3+4), then 23 pairs in which one player leaves a card on the empty table and
# the next catches it (clearing the table again), and a last D8 that stays on the table.
# 36 Diamonds, 12 Circles and 4 Magnets, as every complete round must show.
TABLE = ["D1", "D2", "D3", "D4"]


def pair_script(stars: dict[int, str] | None = None) -> list[str]:
    """The 48 cards of the round in play order; ``stars`` replaces placed cards by pair."""
    pairs = [("D5", "M")] * 4 + [("C6", "C6")] * 6 + [("D7", "D7")] * 13
    cards = ["D10"]
    for i, (placed, catcher) in enumerate(pairs):
        cards += [(stars or {}).get(i, placed), catcher]
    return [*cards, "D8"]


def play_round(m: Match, script: list[str]) -> State:
    deal(m, *TABLE)
    for card in script:
        auto(m, card)
    state: State = m.state
    return state


# -- cards --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "shape", "number", "stars"),
    [("D7", "D", 7, 0), ("C5*", "C", 5, 1), ("D99***", "D", 99, 3), ("M", "M", 0, 0)],
)
def test_card_names_parse_and_print_back(text: str, shape: str, number: int, stars: int) -> None:
    card = Card.parse(text)
    assert (card.shape, card.number, card.stars) == (shape, number, stars)
    assert str(card) == text


@pytest.mark.parametrize(
    "text", ["D0", "D100", "D07", "d7", "M*", "X7", "C", "7", " D7", "D7 ", "D7\n", ""]
)
def test_unknown_card_names_are_malformed_naming_the_form(text: str) -> None:
    with pytest.raises(MalformedEvent, match=r"D<n>.*C<n>.*M \(Magnet\)"):
        Card.parse(text)


def test_non_string_card_is_malformed() -> None:
    with pytest.raises(MalformedEvent, match="unknown card 7"):
        Card.parse(7)


# -- setup, dealer and the table event ----------------------------------------------------


def test_default_dealer_is_the_last_player_and_their_left_starts() -> None:
    m = new("Ann", "Ben", "Cy")
    assert m.state.dealer == "Cy"
    assert m.turn == m.state.start_player == "Ann"  # Cy's left is the first seat


def test_dealer_option_moves_the_start() -> None:
    m = new("Ann", "Ben", "Cy", dealer="Ann")
    assert (m.state.dealer, m.turn) == ("Ann", "Ben")


def test_unknown_dealer_is_malformed() -> None:
    with pytest.raises(MalformedEvent, match="'dealer' must be one of the seated players"):
        new("Ann", "Ben", dealer="Zed")


@pytest.mark.parametrize("players", [["Ann"], ["A", "B", "C", "D", "E"]])
def test_two_to_four_players(players: list[str]) -> None:
    with pytest.raises(MalformedEvent, match="2 to 4 players"):
        new(*players)


def test_a_play_before_the_table_event_is_illegal() -> None:
    m = new()
    illegal(m, {"type": "play", "player": "Ann", "card": "D4"}, "'table' event", "Ann's first play")


def test_the_table_deal_deals_hands_too() -> None:
    m = new("Ann", "Ben", "Cy")
    s = deal(m, "D3", "C4*", "D9", "D2")
    assert s.table_dealt and [str(c) for c in s.table] == ["D3", "C4*", "D9", "D2"]
    assert s.hand_counts() == {"Ann": 4, "Ben": 4, "Cy": 4}
    assert s.deck_count == 52 - 4 - 12
    assert s.shown_counts() == {"D": 3, "C": 1, "M": 0}


def test_the_table_deal_never_shows_a_magnet() -> None:
    m = new()
    illegal(m, {"type": "table", "cards": ["D3", "M", "D9", "D2"]}, "buried", "replaced")


def test_a_second_table_event_is_illegal() -> None:
    m = new()
    deal(m, *TABLE)
    illegal(m, {"type": "table", "cards": TABLE}, "already dealt", "Ann's turn")


@pytest.mark.parametrize(
    ("cards", "words"),
    [
        (["D1", "D2", "D3"], ["4 cards", "got 3 cards"]),
        (["D1", "D2", "D3", "D4", "D5"], ["4 cards"]),
        (["D1", "D2", "Q3", "D4"], ["card 3 in 'cards'", "unknown card"]),
        ("D1 D2 D3 D4", ["must be a list"]),
        (None, ["missing field 'cards'"]),
    ],
)
def test_malformed_table_events(cards: Any, words: list[str]) -> None:
    malformed(new(), {"type": "table", "cards": cards}, *words)


# -- the rulebook's examples --------------------------------------------------------------


def test_match_your_9_takes_the_9() -> None:
    m = new()
    deal(m, "D9", "C2", "D5", "C8")
    s = play(m, "Ann", "C9*", ["D9"])
    assert [str(c) for c in s.pile("Ann")] == ["C9*", "D9"]
    assert [str(c) for c in s.table] == ["C2", "D5", "C8"]
    assert s.turn == "Ben" and s.hand_count("Ann") == 3


def test_sum_4_plus_2_catches_with_a_6() -> None:
    m = new()
    deal(m, "D4", "C2", "D9", "C8")
    s = play(m, "Ann", "D6", ["C2", "D4"])  # order does not matter
    assert s.pile_size("Ann") == 3 and [str(c) for c in s.table] == ["D9", "C8"]


def test_magnet_takes_every_diamond_circles_stay() -> None:
    m = new()
    deal(m, "D4*", "C2", "D9", "C8**")
    s = play(m, "Ann", "M")
    assert [str(c) for c in s.pile("Ann")] == ["M", "D4*", "D9"]
    assert [str(c) for c in s.table] == ["C2", "C8**"]
    # stars 1 (D4*), non-star 2 (M, D9)
    assert (s.pile_stars("Ann"), s.pile_non_star("Ann")) == (1, 2)


def test_no_match_no_sum_the_7_stays() -> None:
    m = new()
    deal(m, "D9", "C2", "D4", "C8")
    assert not must_catch(m.state, Card.parse("D7"))
    s = play(m, "Ann", "D7")
    assert [str(c) for c in s.table] == ["D9", "C2", "D4", "C8", "D7"]
    assert s.pile_size("Ann") == 0 and s.turn == "Ben"


def test_clearing_the_table_earns_a_bonus_card() -> None:
    m = new()
    deal(m, "D3", "C5", "D9", "C10")
    play(m, "Ann", "D9*", ["D9"])  # 1 star
    play(m, "Ben", "C10", ["C10"])
    s = play(m, "Ann", "D8", ["D3", "C5"])  # 3 + 5 = 8 clears the table
    assert s.table == () and s.bonus_left == 11 and s.pile_bonus("Ann") == 1
    # D9* (1 star) + Bonus (1 star); pile: D9*, D9, D8, D3, C5 + Bonus = 6 cards
    assert (s.pile_stars("Ann"), s.pile_size("Ann")) == (2, 6)
    assert "clears the table: Bonus card (11 left)" in m.describe_last()


# -- must catch, one match or one sum, the take as a multiset ------------------------------


def test_a_catch_is_compulsory_and_the_message_lists_the_options() -> None:
    m = new()
    deal(m, "D3", "C4", "D7*", "C9")
    event = {"type": "play", "player": "Ann", "card": "D7"}
    illegal(m, event, "must catch", "[D7*] or [D3, C4]")
    illegal(m, {**event, "take": []}, "must catch", "[D7*] or [D3, C4]")


@pytest.mark.parametrize("take", [["D7*"], ["C4", "D3"]])
def test_the_player_chooses_which_catch(take: list[str]) -> None:
    m = new()
    deal(m, "D3", "C4", "D7*", "C9")
    s = play(m, "Ann", "D7", take)
    assert s.pile_size("Ann") == 1 + len(take)


def test_a_match_must_have_the_same_number() -> None:
    m = new()
    deal(m, "D3", "C4", "D7*", "C9")
    illegal(
        m, {"type": "play", "player": "Ann", "card": "D7", "take": ["C4"]},
        "C4 does not match D7", "same number", "D7 can take [D7*] or [D3, C4]",
    )


def test_a_sum_must_add_up() -> None:
    m = new()
    deal(m, "D3", "C4", "D7*", "C9")
    illegal(
        m, {"type": "play", "player": "Ann", "card": "C9", "take": ["D3", "C4"]},
        "3 + 4 = 7, not 9", "adding up", "C9 can take [C9]",
    )


def test_one_match_or_one_sum_never_both() -> None:
    m = new()
    deal(m, "D3", "C4", "D7*", "C7")
    illegal(
        m, {"type": "play", "player": "Ann", "card": "D7", "take": ["D7*", "D3", "C4"]},
        "never both",
    )
    illegal(
        m, {"type": "play", "player": "Ann", "card": "D7", "take": ["D7*", "C7"]}, "never both"
    )


def test_a_take_names_only_cards_on_the_table() -> None:
    m = new()
    deal(m, "D3", "C4", "D7*", "C9")
    illegal(
        m, {"type": "play", "player": "Ann", "card": "D7", "take": ["D7"]},
        "D7 is not on the table", "table: D3, C4, D7*, C9", "[D7*]",
    )


def test_two_equal_cards_are_two_cards_and_a_take_is_a_multiset() -> None:
    m = new()
    deal(m, "D3", "C1", "D3", "C9")
    assert names(legal_catches(m.state, Card.parse("D6"))) == [["D3", "D3"]]
    assert names(legal_catches(m.state, Card.parse("D3"))) == [["D3"]]
    assert names(legal_catches(m.state, Card.parse("C7"))) == [["C1", "D3", "D3"]]
    illegal(
        m, {"type": "play", "player": "Ann", "card": "C7", "take": ["D3", "D3", "D3", "C1"]},
        "only 2 cards D3",
    )
    s = play(m, "Ann", "D6", ["D3", "D3"])
    assert [str(c) for c in s.table] == ["C1", "C9"]


def test_a_take_with_nothing_to_catch_is_illegal_and_says_so() -> None:
    m = new()
    deal(m, "D9", "C2", "D4", "C8")
    illegal(
        m, {"type": "play", "player": "Ann", "card": "D7", "take": ["C2"]},
        "C2 does not match D7", "can catch nothing here", "omit 'take'",
    )


def test_the_order_of_a_take_gives_the_same_state() -> None:
    a, b = new(), new()
    for m in (a, b):
        deal(m, "D4", "C2", "D9", "C1")
    play(a, "Ann", "D7", ["D4", "C2", "C1"])
    play(b, "Ann", "D7", ["C1", "D4", "C2"])
    assert a.state == b.state


# -- Magnets ------------------------------------------------------------------------------


def test_magnet_take_may_be_named_in_any_order_but_must_be_every_diamond() -> None:
    m = new()
    deal(m, "D4*", "C2", "D9", "C8")
    illegal(
        m, {"type": "play", "player": "Ann", "card": "M", "take": ["D9"]},
        "every Diamond", "take [D4*, D9] or omit 'take'",
    )
    illegal(
        m, {"type": "play", "player": "Ann", "card": "M", "take": ["D9", "D4*", "C2"]},
        "nothing else",
    )
    s = play(m, "Ann", "M", ["D9", "D4*"])
    assert [str(c) for c in s.pile("Ann")] == ["M", "D4*", "D9"]


def test_magnet_without_diamonds_goes_to_the_pile_without_a_bonus() -> None:
    m = new()
    deal(m, "C3", "C2", "C9", "C8")
    assert legal_catches(m.state, Card.parse("M")) == []
    assert not must_catch(m.state, Card.parse("M"))
    illegal(m, {"type": "play", "player": "Ann", "card": "M", "take": ["C3"]}, "there is none")
    s = play(m, "Ann", "M", [])
    assert [str(c) for c in s.pile("Ann")] == ["M"] and len(s.table) == 4
    assert "no Diamond to take" in m.describe_last()


def test_magnet_on_an_empty_table_catches_nothing_so_no_bonus() -> None:
    m = new()
    deal(m, "D1", "D2", "C3", "D4")
    play(m, "Ann", "D10", ["D1", "D2", "C3", "D4"])  # clears: bonus 1
    s = play(m, "Ben", "M")
    assert s.table == () and s.bonus_left == 11 and s.pile_bonus("Ben") == 0


def test_magnet_clearing_a_table_of_diamonds_earns_a_bonus() -> None:
    m = new()
    deal(m, "D1", "D2", "D3", "D4")
    s = play(m, "Ann", "M")
    # M + 4 Diamonds + Bonus card = 6 cards; the Bonus is the only star
    assert s.table == () and s.pile_size("Ann") == 6 and s.pile_stars("Ann") == 1
    assert m.describe_last().startswith("Ann plays M, the Magnet takes D1 + D2 + D3 + D4")


# -- turns, hands, deals ------------------------------------------------------------------


def test_out_of_turn_is_illegal() -> None:
    m = new()
    deal(m, *TABLE)
    illegal(m, {"type": "play", "player": "Ben", "card": "D9"}, "it is Ann's turn, not Ben's")


def test_hands_are_dealt_again_and_the_start_moves_clockwise() -> None:
    m = new("Ann", "Ben", "Cy")  # dealer Cy, Ann starts
    deal(m, "C11", "C12", "D20", "D30")  # nothing below 11 can catch these
    order = []
    for _ in range(12):
        order.append(m.turn)
        auto(m, "D1")  # left on the table, or matching the last D1
    assert order == ["Ann", "Ben", "Cy"] * 4
    s = m.state
    assert s.hand_counts() == {"Ann": 4, "Ben": 4, "Cy": 4}
    assert s.deck_count == 36 - 12 and s.hand_number == 2 and s.hands_per_round == 4
    assert s.turn == s.hand_start == "Ben" and s.start_player == "Ann"
    assert "hand 2: 4 more cards each (deck 24), Ben starts" in m.describe_last()


@pytest.mark.parametrize(("players", "hands"), [(2, 6), (3, 4), (4, 3)])
def test_the_deck_runs_out_after_whole_deals(players: int, hands: int) -> None:
    m = new(*["Ann", "Ben", "Cy", "Dee"][:players])
    deal(m, *TABLE)
    assert m.state.hands_per_round == hands
    assert m.state.deck_count == 48 - 4 * players


def test_a_round_shows_at_most_12_circles() -> None:
    m = new()
    deal(m, "D20", "D21", "D22", "D23")
    for _ in range(12):
        auto(m, "C1")  # C1s pile up (or get matched); never more than 12
    assert m.state.shown_counts()["C"] == 12
    illegal(
        m, {"type": "play", "player": m.turn, "card": "C50"},
        "all 12 Circles", "36 Diamonds, 12 Circles and 4 Magnets",
    )


def test_a_round_shows_at_most_4_magnets() -> None:
    m = new()
    deal(m, *TABLE)
    for _ in range(4):
        auto(m, "M")
    illegal(m, {"type": "play", "player": m.turn, "card": "M"}, "all 4 Magnets")


# -- rounds, scoring, the match -----------------------------------------------------------


def test_a_whole_round_is_scored_and_the_next_waits_for_its_table() -> None:
    m = new()
    s = play_round(m, pair_script())
    # 24 table clears but only 12 Bonus cards: Ann takes 8 (hands 1 and 3), Ben 4 (hand 2).
    # Every card is plain: non-star cards Ann 27, Ben 24 (and D8 left on the table).
    # Round 1: Ann 8 + 3 = 11, Ben 4.
    assert s.round_scores == ({"Ann": 11, "Ben": 4},)
    assert dict(s.totals) == {"Ann": 11, "Ben": 4}
    assert (s.round, s.turn, s.table_dealt, s.dealer) == (2, "Ben", False, "Ann")
    assert sum(s.zone_counts().values()) == 64
    assert "round 1 ends: Ann 11 (8 stars + 3 most non-star), Ben 4 (4 stars)" in (
        m.describe_last()
    )
    illegal(m, {"type": "play", "player": "Ben", "card": "D1"}, "round 2's table is not dealt")
    s = deal(m, *TABLE)
    assert s.piles == ((), ()) and s.bonus_left == 12 and s.turn == "Ben"


def test_the_bonus_cards_run_out() -> None:
    m = new()
    deal(m, *TABLE)
    for card in pair_script()[:27]:
        auto(m, card)
    # Play 27 is the 14th clear: the 12 Bonus cards are gone.
    assert m.state.bonus_left == 0
    assert "clears the table (no Bonus card left)" in m.describe_last()


def test_players_tied_for_most_non_star_cards_both_get_3() -> None:
    m = new()
    # Ann's catches in hand 3 take C6* instead of C6: Ann 24 non-star cards, Ben 24.
    # Ann 8 Bonus + 3 stars + 3 = 14; Ben 4 + 3 = 7.
    s = play_round(m, pair_script({7: "C6*", 8: "C6*", 9: "C6*"}))
    assert s.round_scores == ({"Ann": 14, "Ben": 7},)


def test_no_non_star_bonus_when_nobody_has_a_non_star_card() -> None:
    m = new()
    s = deal(m, "D1*", "D2", "D3", "D4")
    assert s.live_scores() == {"Ann": 0, "Ben": 0} and s.non_star_leaders() == ()
    s = play(m, "Ann", "D1**", ["D1*"])  # a pile of starred cards only: 3 stars, no +3
    assert s.live_scores() == {"Ann": 3, "Ben": 0}


def test_a_tied_top_total_plays_another_round_and_the_dealer_keeps_moving() -> None:
    m = new()
    play_round(m, pair_script())  # Ann 11, Ben 4 (dealer Ben)
    s = play_round(m, pair_script())  # dealer Ann, Ben starts: mirrored, Ben 11, Ann 4
    assert s.round_scores[1] == {"Ann": 4, "Ben": 11}
    assert dict(s.totals) == {"Ann": 15, "Ben": 15}
    assert not s.finished and (s.round, s.dealer, s.turn) == (3, "Ben", "Ann")
    assert "top total tied: another round" in m.describe_last()
    # Round 3: Ann's magnet catch in hand 1 takes D5*: Ann 8 + 1 + 3 = 12, Ben 4.
    s = play_round(m, pair_script({1: "D5*"}))
    assert s.round_scores[2] == {"Ann": 12, "Ben": 4}
    assert s.finished and s.winners == ("Ann",) and s.turn is None and s.round == 3
    assert dict(s.totals) == {"Ann": 27, "Ben": 19}
    assert m.describe_last().endswith("match over: Ann wins")
    with pytest.raises(MatchOver, match="over"):
        m.push({"type": "table", "cards": TABLE})


def test_undo_is_exact() -> None:
    m = new()
    deal(m, "D4", "C2", "D9", "C8")
    before = m.state
    play(m, "Ann", "D6", ["D4", "C2"])
    assert m.pop()["card"] == "D6"
    assert m.state == before


# -- malformed plays ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "words"),
    [
        ({"type": "play", "player": "Ann"}, ["missing field 'card'"]),
        ({"type": "play", "player": "Ann", "card": 7}, ["field 'card'", "unknown card 7"]),
        ({"type": "play", "player": "Ann", "card": "D7", "take": "D3"}, ["'take' must be a list"]),
        ({"type": "play", "player": "Ann", "card": "D7", "take": ["D3", 4]}, ["card 2 in 'take'"]),
        ({"type": "play", "player": "Zed", "card": "D7"}, ["seated players"]),
        ({"type": "play", "card": "D7"}, ["missing field 'player'"]),
        ({"type": "draw", "player": "Ann"}, ["unknown event type", "table, play"]),
    ],
)
def test_malformed_plays(event: dict[str, Any], words: list[str]) -> None:
    m = new()
    deal(m, *TABLE)
    malformed(m, event, *words)


def test_unknown_extra_fields_are_ignored() -> None:
    m = new()
    deal(m, *TABLE)
    s = m.push({"type": "play", "player": "Ann", "card": "D3", "take": ["D3"], "note": {"x": 1}})
    assert s.pile_size("Ann") == 2


def test_events_round_trip_through_to_json() -> None:
    m = new()
    deal(m, *TABLE)
    play(m, "Ann", "D7*", ["D3", "D4"])
    typed = m._typed  # the parsed events
    assert [e.to_json() for e in typed] == m.events


def test_check_play_explains_before_sending() -> None:
    m = new()
    deal(m, "D4", "C2", "D9", "C8")
    assert check_play(m.state, "Ann", "D6", ["D4", "C2"]) is None
    assert check_play(m.state, "Ben", "D6") == "it is Ann's turn, not Ben's"
    assert "unknown card" in (check_play(m.state, "Ann", "Q6") or "")


# -- queries ------------------------------------------------------------------------------


def test_legal_catches_lists_matches_then_sums() -> None:
    m = new()
    deal(m, "D1", "D5", "C4", "D9")
    play(m, "Ann", "D20")  # stays
    play(m, "Ben", "C3*")  # stays: nothing makes 3 (1 + ...? no 2)
    # table D1 D5 C4 D9 D20 C3*: 9 = D9 | D5 + C4 | D1 + C3* + D5 | ...
    options = names(legal_catches(m.state, Card.parse("C9")))
    assert options == [["D9"], ["C4", "D5"], ["D1", "C3*", "D5"]]
    assert must_catch(m.state, Card.parse("C9"))
    assert not must_catch(m.state, Card.parse("C2"))


def test_catch_enumeration_finds_every_subset_on_a_12_card_table() -> None:
    # its speed is bench/bench_catches.py's to measure, not a test's
    table = [Card("D", n) for n in range(1, 13)]
    card = Card("D", 39)  # half of 1 + ... + 12: the most subsets
    options = catches(table, card)
    assert len(options) == 124 and all(sum(c.number for c in o) == 39 for o in options)
    assert len(set(options)) == len(options)


def test_catch_enumeration_agrees_with_brute_force() -> None:
    rng = random.Random(5)
    for _ in range(60):
        table = [Card(rng.choice("DC"), rng.randint(1, 8), rng.randint(0, 1)) for _ in range(7)]
        card = Card("D", rng.randint(1, 14))
        brute = set()
        for mask in range(1, 1 << len(table)):
            chosen = [c for i, c in enumerate(table) if mask >> i & 1]
            total = sum(c.number for c in chosen)
            single = len(chosen) == 1 and chosen[0].number == card.number
            if single or (len(chosen) >= 2 and total == card.number):
                brute.add(tuple(sorted(chosen, key=lambda c: (c.number, c.shape != "D", c.stars))))
        assert set(catches(table, card)) == brute


def test_a_long_table_of_small_cards_keeps_messages_quick() -> None:
    m = new()
    deal(m, "D40", "D39", "D38", "D37")
    for n in range(36, 0, -1):  # each card is smaller than every table card: none catches
        play(m, m.turn or "", f"{'C' if n <= 12 else 'D'}{n}")
    assert len(m.state.table) == 40
    # The subsets of 1..40 adding up to 99 number 328419: listed only in part.
    message = illegal(
        m, {"type": "play", "player": m.turn, "card": "D99"}, "must catch", "328413 more"
    )
    assert len(message) < 400
    assert len(legal_catches(m.state, Card.parse("D99"), limit=10)) == 10


def test_extras_are_plain_json_without_clashing_keys() -> None:
    m = new("Ann", "Ben", "Cy")
    deal(m, "D4", "C2", "D9", "C8")
    play(m, "Ann", "D6*", ["D4", "C2"])
    summary = m.summary()
    extras = RULES.extras(m.state)
    assert not set(extras) & {"game", "players", "round", "turn", "totals", "finished",
                              "winners", "rounds"}
    assert json.loads(json.dumps(summary)) == summary
    assert summary["table"] == ["D9", "C8"] and summary["deck"] == 36
    assert summary["piles"]["Ann"] == {
        "cards": ["D6*", "C2", "D4"], "bonus": 0, "count": 3, "stars": 1, "non_star": 2,
    }
    assert summary["hand_counts"] == {"Ann": 3, "Ben": 4, "Cy": 4}
    assert summary["live_scores"] == {"Ann": 4, "Ben": 0, "Cy": 0}
    assert (summary["dealer"], summary["start_player"], summary["turn"]) == ("Cy", "Ann", "Ben")


def test_describe_says_what_happened() -> None:
    m = new()
    deal(m, "D3", "C4", "D9", "C1")
    assert m.describe_last() == (
        "Round 1: Ben deals D3 C4 D9 C1 face up and 4 cards to each player (deck 40); Ann starts"
    )
    play(m, "Ann", "D7*", ["C4", "D3"])
    assert m.describe_last() == (
        "Ann plays D7*, catches D3 + C4 (sum): pile 3 cards, +1 star; Ben's turn"
    )
    play(m, "Ben", "D5")
    assert m.describe_last() == (
        "Ben plays D5, nothing to catch: it stays on the table (3 cards); Ann's turn"
    )


# -- random playouts and the example --------------------------------------------------------


def test_random_playouts_use_every_kind_of_play() -> None:
    rng = random.Random(2)
    m = Match(random_setup(rng, ["Ann", "Ben", "Cy", "Dee"]))
    seen = set()
    while not m.finished:
        before = m.state
        event = m.random_event(rng)
        after = m.push(event)
        if event["type"] == "play":
            card = Card.parse(event["card"])
            caught = len(after.table) < len(before.table)
            seen.add(("M" if card.is_magnet else "n", caught, after.bonus_left < before.bonus_left))
    assert {("n", False, False), ("n", True, False), ("n", True, True),
            ("M", True, False), ("M", False, False)} <= seen
    assert len(m) < 400


def test_simulation_deck_is_a_legal_round_deck() -> None:
    shapes = [c.shape for c in SIMULATION_DECK]
    assert (shapes.count("D"), shapes.count("C"), shapes.count("M")) == (36, 12, 4)


def test_the_example_log_is_a_finished_match() -> None:
    lines = [
        json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    m = Match.from_events(lines)
    assert m.finished and m.state.winners
