"""Can't Catch Harry: the rulebook's examples and every ruling of the table-log spec."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from companion.games.cant_catch_harry import (
    RULES,
    Points,
    State,
    default_mat,
    hand_points,
    random_round,
    random_setup,
    set_kind,
)
from companion.games.errors import IllegalEvent, MalformedEvent, MatchOver
from companion.games.match import Match
from companion.tablelog import replay_text

ROOT = Path(__file__).resolve().parents[2]
ABC = ["Ann", "Ben", "Cy"]

# Hands with no set, no devil, no lamp: they score only the moth.
PLAIN = ["twin", "james", "evil-bird", "sandwich-artist"]
PLAIN2 = ["teacher", "furry", "hunters", "mr-poe"]


def setup(players: list[str] = ABC, **options: Any) -> dict[str, Any]:
    return {"type": "setup", "game": "cant-catch-harry", "players": players, **options}


def rnd(hands: dict[str, list[str]], moths: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {"type": "round", "hands": hands, "moths": moths, **extra}


def match(players: list[str] = ABC, **options: Any) -> Match:
    return Match(setup(players, **options))


def state(m: Match) -> State:
    s: State = m.state
    return s


def ann_ben(m: Match, ann: list[str], ann_moth: str, ben: list[str], ben_moth: str) -> State:
    """One two-player round: Ann's and Ben's hands and moths."""
    m.push(rnd({"Ann": ann, "Ben": ben}, {"Ann": ann_moth, "Ben": ben_moth}))
    return state(m)


FOX_SET = ["fox", "fox", "fox", "fox"]
MOM_SET = ["mom", "mom", "mom", "mom"]


def _side(harry: bool, points: int) -> tuple[list[str], str]:
    """A hand and moth worth ``points``: Harry minus devils, or a set + Lamp minus lamps."""
    if harry:
        devils = 3 - points
        return ["devil"] * devils + PLAIN[: 4 - devils], "harry"
    return ["baby-james"] * 4 + ["lamp"] * (-1 - points), "lamp"


def reach(m: Match, ann: int, ben: int) -> None:
    """Two players: bring Ann and Ben to the given totals (below 11) with plain rounds.

    A shortest sequence of rounds where one grabs Harry (3, 2, 1 or 0 with
    devils) and the other the Lamp (-1 or -2 with a lamp card), found by search.
    """
    moves = [(h, low, harry_ann) for h in (3, 2, 1, 0) for low in (-1, -2)
             for harry_ann in (True, False)]
    start = (state(m).total("Ann"), state(m).total("Ben"))
    paths: dict[tuple[int, int], list[tuple[int, int, bool]]] = {start: []}
    frontier = [start]
    while (ann, ben) not in paths:
        assert frontier, "unreachable totals"
        nxt = []
        for a, b in frontier:
            for h, low, harry_ann in moves:
                pos = (a + h, b + low) if harry_ann else (a + low, b + h)
                if pos not in paths and all(-12 < v < 11 for v in pos):
                    paths[pos] = [*paths[(a, b)], (h, low, harry_ann)]
                    nxt.append(pos)
        frontier = nxt
    for h, low, harry_ann in paths[(ann, ben)]:
        top, bottom = _side(True, h), _side(False, low)
        first, second = (top, bottom) if harry_ann else (bottom, top)
        ann_ben(m, first[0], first[1], second[0], second[1])
    assert (state(m).total("Ann"), state(m).total("Ben")) == (ann, ben)


# -- the box and the set ------------------------------------------------------


def test_set_needs_four_of_a_kind_with_a_real_card() -> None:
    assert set_kind(["fox", "fox", "fox", "fox"]) == "fox"
    assert set_kind(["fox", "fox", "fox", "everyone", "mom"]) == "fox"
    assert set_kind(["fox", "fox", "everyone", "everyone"]) == "fox"
    assert set_kind(["fox", "everyone", "everyone", "mom", "twin"]) is None  # 3 toward each
    assert set_kind(["fox", "everyone", "everyone", "mom", "mom"]) == "mom"  # 2 + 2 wilds
    assert set_kind(["everyone", "everyone"]) is None  # no real card: no set
    assert set_kind(["fox", "fox", "fox", "mom", "mom"]) is None
    assert set_kind([]) is None


def test_a_five_card_hand_never_has_two_possible_sets() -> None:
    # Two sets would need 8 cards (6 if the wilds could count twice): the
    # richest tries still give exactly one answer.
    assert set_kind(["harry", "harry", "everyone", "everyone", "devil"]) == "harry"
    assert set_kind(["devil", "devil", "everyone", "everyone", "harry"]) == "devil"


def test_hand_points_follow_the_spec() -> None:
    # Harry moth 3 + harry set 3 = 6, the most a round can give.
    assert hand_points(["harry"] * 4 + ["fox"], "harry").total == 6
    # A harry set completed by everyone still earns the bonus: 2 + 3 = 5.
    assert hand_points(["harry", "harry", "everyone", "harry"], "cream") == Points(2, 3, 0, 0)
    # Devils cost 1 each without a devil set: 1 - 3 = -2.
    assert hand_points(["devil", "devil", "devil", "fox"], "grey") == Points(1, 0, -3, 0)
    # A devil set (wild included) cancels the devil penalty: 3 + 0.
    assert hand_points(["devil", "devil", "devil", "everyone"], "harry").total == 3
    # Lamps always cost, even as a set: -1 moth - 4 lamps = -5.
    assert hand_points(["lamp"] * 4, "lamp") == Points(-1, 0, 0, -4)
    # Everyone cards never cost anything.
    assert hand_points(["everyone", "everyone", "fox", "mom"], "grey").total == 1
    # The lowest: Lamp moth, three devils, two lamps: -1 - 3 - 2 = -6.
    assert hand_points(["devil", "devil", "devil", "lamp", "lamp"], "lamp").total == -6


def test_default_mat_grows_with_the_table() -> None:
    assert default_mat(2) == ("harry", "lamp")
    assert default_mat(3) == ("harry", "cream", "lamp")
    assert default_mat(4) == ("harry", "cream", "grey", "lamp")
    assert default_mat(6) == ("harry", "cream", "cream", "grey", "grey", "lamp")


# -- setup --------------------------------------------------------------------


def test_setup_defaults_and_options() -> None:
    s = state(match())
    assert (s.round, s.turn, s.finished, s.winners) == (1, None, False, ())
    assert dict(s.totals) == {"Ann": 0, "Ben": 0, "Cy": 0}
    assert s.deck_holders() == ("Ann",)  # the youngest defaults to the first player
    assert s.mat() == ("harry", "cream", "lamp")
    s = state(match(["Ann", "Ben", "Cy", "Dee"], youngest="Cy", two_decks=True))
    assert s.deck_holders() == ("Cy", "Ann")  # the second deck lies across the table
    s = state(match(figurines=["lamp", "grey", "harry"]))
    assert s.mat() == ("harry", "grey", "lamp")


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"youngest": "Zed"}, ["youngest", "seated"]),
        ({"figurines": ["harry", "harry", "lamp"]}, ["one harry", "one lamp"]),
        ({"figurines": ["harry", "lamp"]}, ["3 moths", "one moth per player"]),
        ({"figurines": ["harry", "white", "lamp"]}, ["figurines", "cream"]),
        ({"figurines": "harry"}, ["figurines"]),
        ({"two_decks": "yes"}, ["two_decks", "true or false"]),
    ],
)
def test_bad_setup_options_are_malformed(options: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(MalformedEvent) as err:
        match(**options)
    for word in words:
        assert word in str(err.value)


def test_box_limits_figurines_per_kind() -> None:
    players = ["A", "B", "C", "D", "E", "F"]
    with pytest.raises(MalformedEvent, match="at most 2 cream"):
        match(players, figurines=["harry", "cream", "cream", "cream", "grey", "lamp"])


def test_player_counts() -> None:
    with pytest.raises(MalformedEvent, match="2 to 6"):
        match(["Ann"])
    with pytest.raises(MalformedEvent, match="2 to 6"):
        match(["A", "B", "C", "D", "E", "F", "G"])


# -- form of the round event ------------------------------------------------------


def good_round() -> dict[str, Any]:
    return rnd(
        {"Ann": FOX_SET, "Ben": PLAIN2, "Cy": ["james", "twin", "baby-james", "evil-bird"]},
        {"Ann": "harry", "Ben": "cream", "Cy": "lamp"},
    )


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda e: e.pop("hands"), ["missing field 'hands'"]),
        (lambda e: e.update(moths=["harry"]), ["'moths'", "JSON object"]),
        (lambda e: e["hands"].pop("Cy"), ["every seated player", "missing Cy"]),
        (lambda e: e["moths"].update(Zed="grey"), ["Zed", "not seated"]),
        (lambda e: e["hands"].update(Ben="fox"), ["hands[\"Ben\"]", "list of card names"]),
        (lambda e: e["hands"].update(Ben=["Harry"]), ["unknown card", "did you mean \"harry\""]),
        (lambda e: e["hands"].update(Ben=["Mr. Poe"]), ["did you mean \"mr-poe\""]),
        (lambda e: e["hands"].update(Ben=["wolf"]), ["unknown card", "baby-james", "everyone"]),
        (lambda e: e["hands"].update(Ben=[3]), ["unknown card"]),
        (lambda e: e["moths"].update(Cy="white"), ["harry, cream, grey, lamp", "Chubs"]),
        (lambda e: e["moths"].update(Cy=None), ["moths[\"Cy\"]"]),
    ],
)
def test_malformed_rounds_say_what_was_expected(change: Any, words: list[str]) -> None:
    m = match()
    event = json.loads(json.dumps(good_round()))
    change(event)
    with pytest.raises(MalformedEvent) as err:
        m.push(event)
    for word in words:
        assert word in str(err.value)
    assert len(m) == 0


def test_unknown_extra_fields_are_ignored() -> None:
    m = match()
    m.push(good_round() | {"note": "loud round", "player": "Zed"})
    assert dict(state(m).totals) == {"Ann": 3, "Ben": 2, "Cy": -1}


def test_unknown_event_type_is_refused() -> None:
    with pytest.raises(MalformedEvent, match="unknown event type"):
        match().push({"type": "play", "player": "Ann"})


# -- rules of the round event -----------------------------------------------------


def illegal(m: Match, event: dict[str, Any]) -> str:
    before = m.state
    with pytest.raises(IllegalEvent) as err:
        m.push(event)
    assert m.state is before
    return str(err.value)


def test_no_more_than_five_cards_in_hand() -> None:
    m = match()
    event = good_round()
    event["hands"]["Ben"] = [*PLAIN, "teacher", "furry"]
    message = illegal(m, event)
    assert "Ben shows 6 cards" in message and "more than 5" in message
    event["hands"]["Ben"] = [*PLAIN, "teacher"]  # five is fine
    m.push(event)


@pytest.mark.parametrize("size", [0, 1, 2, 3])
def test_a_hand_smaller_than_the_deal_is_refused(size: int) -> None:
    # "Deal everyone a hand of 4 cards." ... "The youngest player draws a card, then
    # passes a card to the left": a hand never drops below 4 (the contract: 4, or 5
    # mid-pass). A round showing fewer is refused, naming the player and the count.
    m = match()
    event = good_round()
    event["hands"]["Cy"] = ["james", "twin", "baby-james"][:size]
    message = illegal(m, event)
    count = "1 card" if size == 1 else f"{size} cards"
    assert message.startswith(f"Cy shows {count}, which cannot happen")
    assert "every hand holds 4 cards, or 5 mid-pass" in message


def test_hands_of_four_and_five_are_both_accepted() -> None:
    m = match()
    event = good_round()
    event["hands"]["Ben"] = [*PLAIN2, "mom"]  # mid-pass
    m.push(event)
    assert [len(line.hand) for line in state(m).results[0].lines] == [4, 5, 4]


def test_no_kind_more_often_than_the_deck_holds() -> None:
    m = match()
    event = good_round()
    event["hands"]["Ben"] = ["fox", "mom", "james", "twin"]  # a fifth fox
    message = illegal(m, event)
    assert '5 "fox" cards' in message and "Ann 4, Ben 1" in message and "only 4" in message
    event = good_round()
    event["hands"]["Ann"] = ["fox", "fox", "everyone", "everyone"]
    event["hands"]["Cy"] = ["everyone", "james", "twin", "mom"]  # a third everyone
    assert '3 "everyone" cards' in illegal(m, event)
    assert "only 2" in illegal(m, event)


def test_exactly_one_harry_and_one_lamp_moth() -> None:
    m = match()
    event = good_round()
    event["moths"] = {"Ann": "harry", "Ben": "harry", "Cy": "lamp"}
    message = illegal(m, event)
    assert "exactly one" in message and "Ann and Ben hold it" in message
    event["moths"] = {"Ann": "harry", "Ben": "cream", "Cy": "cream"}
    message = illegal(m, event)
    assert '"lamp"' in message and "nobody holds it" in message


def test_no_more_moths_of_a_kind_than_the_box_holds() -> None:
    players = ["A", "B", "C", "D", "E", "F"]
    m = match(players)
    kinds = ["fox", "mom", "baby-james", "furry", "twin", "hunters"]
    hands = {p: [kind] * 4 for p, kind in zip(players, kinds, strict=True)}
    moths = dict(zip(players, ["harry", "grey", "grey", "grey", "cream", "lamp"], strict=True))
    message = illegal(m, rnd(hands, moths))
    assert "only 2" in message and "Chubs" in message and "B, C and D" in message
    moths["D"] = "cream"  # 1 harry, 2 grey, 2 cream, 1 lamp: the whole box
    m.push(rnd(hands, moths))


def test_a_fixed_mat_must_be_used_as_set_up() -> None:
    m = match(figurines=["harry", "grey", "lamp"])
    message = illegal(m, good_round())  # Ben grabbed a cream moth
    assert "mat holds harry, grey, lamp" in message and "harry, cream, lamp" in message
    event = good_round()
    event["moths"]["Ben"] = "grey"
    m.push(event)


def test_without_a_fixed_mat_any_box_legal_choice_is_accepted() -> None:
    m = match()
    event = good_round()
    event["moths"]["Ben"] = "grey"  # the table chose Chubs for its third figurine
    m.push(event)
    assert state(m).mat() == ("harry", "grey", "lamp")


def test_a_round_ends_only_with_a_set() -> None:
    m = match()
    event = good_round()
    event["hands"]["Ann"] = ["fox", "fox", "fox", "everyone"]  # 3 + wild: a set
    m.push(event)
    m.pop()
    event["hands"]["Ann"] = ["fox", "fox", "fox", "mom"]
    message = illegal(m, event)
    assert "no hand holds a set" in message and "closest: Ann with 3 toward fox" in message


def test_events_after_the_win_are_refused() -> None:
    m = Match.from_events(
        json.loads(line)
        for line in (ROOT / "examples" / "cant-catch-harry.jsonl").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    )
    assert m.finished
    with pytest.raises(MatchOver, match="over"):
        m.push(good_round())


# -- scoring ------------------------------------------------------------------------


def test_round_scoring_moths_harry_devil_lamp() -> None:
    m = match()
    m.push(
        rnd(
            {
                "Ann": ["harry", "harry", "everyone", "harry", "devil"],
                "Ben": ["devil", "devil", "mom", "fox"],
                "Cy": ["lamp", "lamp", "lamp", "lamp", "devil"],
            },
            {"Ann": "harry", "Ben": "cream", "Cy": "lamp"},
        )
    )
    s = state(m)
    # Ann: Harry 3 + harry set 3 - 1 devil = 5; Ben: 2 - 2 devils = 0;
    # Cy: a lamp set still costs: -1 - 4 lamps - 1 devil = -6.
    assert dict(s.totals) == {"Ann": 5, "Ben": 0, "Cy": -6}
    assert s.round == 2 and s.turn is None
    assert s.results[0].line("Cy").set == "lamp"
    assert s.results[0].line("Ann").points == Points(3, 3, -1, 0)


def test_rulebook_devil_example_reset_then_moth() -> None:
    # "if you laid down 4 Devil Cards and grabbed the Harry the Moth figurine
    # you would have 3 points at the end of your turn." Everyone else: 0 + points.
    m = match(["Ann", "Ben"])
    reach(m, 8, 5)
    s = ann_ben(m, ["devil"] * 4, "harry", ["lamp", "mom", "fox", "twin"], "lamp")
    assert dict(s.totals) == {"Ann": 3, "Ben": -2}  # Ben: 0 - 1 moth - 1 lamp
    last = s.results[-1]
    assert last.reset_by == "Ann"
    # round_scores hold the effective change: Ann 3 - 8 = -5, Ben -2 - 5 = -7;
    # the raw points stay in round_points.
    assert s.round_scores[-1] == {"Ann": -5, "Ben": -7}
    assert s.round_points()[-1] == {"Ann": 3, "Ben": -2}


def test_devil_set_with_a_wild_resets_and_costs_nothing() -> None:
    m = match(["Ann", "Ben"])
    reach(m, 6, 3)
    s = ann_ben(m, ["devil", "everyone", "devil", "devil", "fox"], "lamp", PLAIN, "harry")
    assert dict(s.totals) == {"Ann": -1, "Ben": 3}
    assert RULES.extras(s)["resets"] == [len(s.results)]


def test_harry_set_with_cream_lands_on_eleven() -> None:
    m = match()
    m.push(rnd({"Ann": FOX_SET, "Ben": PLAIN, "Cy": PLAIN2},
               {"Ann": "harry", "Ben": "cream", "Cy": "lamp"}))  # 3, 2, -1
    m.push(rnd({"Ann": MOM_SET, "Ben": PLAIN2, "Cy": ["fox", *PLAIN[:3]]},
               {"Ann": "harry", "Ben": "cream", "Cy": "lamp"}))  # 6, 4, -2
    # Ann: 6 + cream 2 + harry set 3 = 11 exactly.
    m.push(rnd({"Ann": ["harry"] * 4, "Ben": PLAIN, "Cy": PLAIN2},
               {"Ann": "cream", "Ben": "harry", "Cy": "lamp"}))
    s = state(m)
    assert dict(s.totals) == {"Ann": 11, "Ben": 7, "Cy": -3}
    assert s.finished and s.winners == ("Ann",) and s.round == 3
    assert m.describe_last().endswith("Ann wins with exactly 11.")


def test_rulebook_over_eleven_example_stays_at_ten() -> None:
    # "If you were at 10 points but grabbed the 2 point moth, your score for
    # this round would remain at 10 points."
    m = match()
    m.push(rnd({"Ann": ["harry"] * 4, "Ben": PLAIN, "Cy": PLAIN2},
               {"Ann": "harry", "Ben": "cream", "Cy": "lamp"}))  # 6, 2, -1
    m.push(rnd({"Ann": ["harry"] * 4 + ["devil"], "Ben": PLAIN, "Cy": PLAIN2},
               {"Ann": "cream", "Ben": "harry", "Cy": "lamp"}))  # 6 + 2 + 3 - 1 = 10
    m.push(rnd({"Ann": PLAIN, "Ben": FOX_SET, "Cy": PLAIN2},
               {"Ann": "cream", "Ben": "harry", "Cy": "lamp"}))  # 10 + 2 = 12: stays
    s = state(m)
    assert s.total("Ann") == 10 and not s.finished
    assert s.round_scores[-1]["Ann"] == 0 and s.round_points()[-1]["Ann"] == 2


def test_over_eleven_keeps_the_total_and_records_zero() -> None:
    m = match(["Ann", "Ben"])
    reach(m, 10, 0)
    s = ann_ben(m, FOX_SET, "harry", PLAIN, "lamp")  # Ann 10 + 3 = 13: stays at 10
    assert dict(s.totals) == {"Ann": 10, "Ben": -1}
    assert s.round_scores[-1] == {"Ann": 0, "Ben": -1}
    assert s.round_points()[-1] == {"Ann": 3, "Ben": -1}
    assert s.results[-1].voided == ("Ann",)
    assert not s.finished
    assert "Ann (set of fox) grabs Harry +3, over 11: stays at 10" in m.describe_last()
    # Negative points still count near the top: 10 + (-1) = 9.
    s = ann_ben(m, FOX_SET, "lamp", PLAIN, "harry")
    assert s.total("Ann") == 9


def test_exactly_eleven_wins_and_can_be_shared() -> None:
    m = match(["Ann", "Ben"])
    reach(m, 8, 8)
    # Ann: Harry 3 -> 11. Ben: Lamp -1 -> 7.
    s = ann_ben(m, FOX_SET, "harry", PLAIN, "lamp")
    assert s.finished and s.winners == ("Ann",) and s.round == len(s.results)
    # Both land on 11 in the same round: Ann 9 + Lamp -1 + harry set 3 = 11,
    # Ben 8 + Harry moth 3 = 11: a shared win.
    m = match(["Ann", "Ben"])
    reach(m, 9, 8)
    s = ann_ben(m, ["harry", "harry", "harry", "harry"], "lamp", PLAIN, "harry")
    assert dict(s.totals) == {"Ann": 11, "Ben": 11}
    assert s.finished and s.winners == ("Ann", "Ben")
    assert m.describe_last().endswith("Ann and Ben share the win at 11.")


def test_totals_may_go_below_zero() -> None:
    m = match(["Ann", "Ben"])
    s = ann_ben(m, FOX_SET, "harry", ["lamp", "lamp", "devil", "mom"], "lamp")
    assert s.total("Ben") == -4 and s.round_scores[0]["Ben"] == -4


def test_undo_restores_the_previous_totals_exactly() -> None:
    m = match()
    m.push(good_round())
    after_one = m.state
    m.push(good_round())
    m.pop()
    assert m.state == after_one
    assert dict(state(m).totals) == {"Ann": 3, "Ben": 2, "Cy": -1}


# -- queries, extras, describe --------------------------------------------------------


def test_queries_distance_and_bust_protection() -> None:
    m = match(["Ann", "Ben"])
    reach(m, 6, 5)
    s = state(m)
    assert s.to_win("Ann") == 5 and s.to_win("Ben") == 6
    assert s.can_win_next("Ann") and s.can_win_next("Ben")
    # At 5 no round (at most +6) can go over 11; at 6 a Harry set + Harry moth would.
    assert s.bust_protected("Ben") and not s.bust_protected("Ann")
    assert s.leaders() == ("Ann",)


def test_deck_passes_left_each_round() -> None:
    m = match(youngest="Ben")
    assert state(m).deck_holders() == ("Ben",)
    m.push(good_round())
    assert state(m).deck_holders() == ("Cy",)
    m.push(good_round())
    assert state(m).deck_holders() == ("Ann",)


def test_extras_are_json_and_do_not_clash() -> None:
    m = match()
    m.push(good_round())
    extras = RULES.extras(state(m))
    json.dumps(extras)
    core = {"game", "players", "round", "turn", "totals", "finished", "winners", "rounds"}
    assert not core & set(extras)
    assert extras["last_round"]["points"]["Ann"] == {
        "moth": 3, "harry_bonus": 0, "devil": 0, "lamp": 0, "total": 3
    }
    assert extras["last_round"]["sets"] == {"Ann": "fox", "Ben": None, "Cy": None}
    assert extras["to_win"] == {"Ann": 8, "Ben": 9, "Cy": 12}
    assert extras["round_points"] == [{"Ann": 3, "Ben": 2, "Cy": -1}]
    summary = m.summary()
    assert summary["rounds"] == [{"Ann": 3, "Ben": 2, "Cy": -1}] and summary["turn"] is None


def test_zone_counts_conserve_cards_and_moths() -> None:
    m = match()
    before = state(m).zone_counts()
    assert before["deck"] == 58 and before["mat"] == 3
    m.push(good_round())
    after = state(m).zone_counts()
    assert after["hand:Cy"] == 4 and after["moth:Ann"] == 1 and after["mat"] == 0
    assert after["deck"] == 58 - 12
    assert sum(after.values()) == sum(before.values())


def test_describe_names_moths_parts_and_consequence() -> None:
    m = match()
    m.push(good_round())
    line = m.describe_last()
    assert line.startswith("Round 1 ends")
    assert "Ann (set of fox) grabs Harry +3 -> 3" in line
    assert "Ben grabs Cray Cray +2 -> 2" in line
    assert "round 2 next, deck to Ben" in line


def test_example_log_replays_to_a_win() -> None:
    m = replay_text((ROOT / "examples" / "cant-catch-harry.jsonl").read_text())
    s = state(m)
    assert s.finished and s.winners == ("Ann",)
    assert dict(s.totals) == {"Ann": 11, "Ben": -3, "Cy": 5}
    assert [r.reset_by for r in s.results] == [None, None, "Cy", None, None, None]
    assert s.results[4].voided == ("Ann",)


# -- random playouts ------------------------------------------------------------------


def test_random_playouts_finish_quickly_and_use_every_rule() -> None:
    rounds: list[int] = []
    seen = {"reset": 0, "void": 0, "harry": 0, "wild": 0, "shared": 0}
    names = ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay"]
    for seed in range(200):
        rng = random.Random(seed)
        m = Match(random_setup(rng, names[: 2 + seed % 5]))
        while not m.finished:
            m.push(json.loads(json.dumps(random_round(state(m), rng))))
            assert len(m) <= 200
        s = state(m)
        rounds.append(len(s.results))
        seen["shared"] += len(s.winners) > 1
        for result in s.results:
            seen["reset"] += result.reset_by is not None
            seen["void"] += bool(result.voided)
            seen["harry"] += any(line.set == "harry" for line in result.lines)
            seen["wild"] += any("everyone" in line.hand for line in result.lines)
    rounds.sort()
    assert rounds[int(len(rounds) * 0.95)] <= 60
    assert all(seen.values()), seen
