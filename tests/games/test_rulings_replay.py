"""The rulings revisited in issue 17, as ``companion replay`` applies them to log files.

Each scenario is a table log taken from a rulebook sentence, run through the real
command in a real process: Catch Mag's three-roll turn ("he may roll the die three
times in a row, which improves his chances of winning") and Can't Catch Harry's
hand sizes ("Deal everyone a hand of 4 cards", "You can't hold more than five
cards at a time").
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.games.catch_mag import COLORS, ROD_SPACES

Event = dict[str, Any]

# The five rod spaces after each outer joker space are white, green, red, yellow, blue.
LAYOUT = {str(s): COLORS[i % 5] for i, s in enumerate(ROD_SPACES)}


def replay(tmp_path: Path, events: list[Event]) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "table.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", "replay", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def accepted(tmp_path: Path, events: list[Event]) -> dict[str, Any]:
    result = replay(tmp_path, events)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    summary: dict[str, Any] = json.loads(result.stdout)
    return summary


def refused(tmp_path: Path, events: list[Event]) -> str:
    """The one error line for a log whose last event is refused."""
    result = replay(tmp_path, events)
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith(f"line {len(events)}: "), lines[0]
    return lines[0]


def roll(player: str, value: int) -> Event:
    return {"type": "roll", "player": player, "value": value}


def catch(player: str, success: bool = True, color: str | None = None) -> Event:
    event: Event = {"type": "catch", "player": player, "success": success}
    if color is not None:
        event["color"] = color
    return event


def keep(player: str) -> Event:
    return {"type": "joker", "player": player, "use": "keep"}


# -- Catch Mag: the three-roll turn ------------------------------------------------------

# No layout (a board read by sensors): colours come with the catches. Ann catches red
# on 2, 3, 4, 5; Ben green on 6, 8, 9, then fails on 10. Ann, on 5 with four red, is
# to take a three-roll turn with the emptied spaces 6, 8 and 9 just ahead.
ANN_FOUR_RED = [
    {"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]},
    roll("Ann", 1), catch("Ann", color="red"),
    roll("Ben", 5), catch("Ben", color="green"),
    roll("Ann", 1), catch("Ann", color="red"),
    roll("Ben", 2), catch("Ben", color="green"),
    roll("Ann", 1), catch("Ann", color="red"),
    roll("Ben", 1), catch("Ben", color="green"),
    roll("Ann", 1), catch("Ann", color="red"),
    roll("Ben", 1), catch("Ben", success=False),
]


def test_before_the_three_roll_turn(tmp_path: Path) -> None:
    summary = accepted(tmp_path, ANN_FOUR_RED)
    assert summary["turn"] == "Ann" and summary["rolls_left"] == 3
    assert summary["three_rolls"] is True and summary["ships"] == {"Ann": 5, "Ben": 10}


def test_an_empty_landing_is_followed_by_the_same_players_roll(tmp_path: Path) -> None:
    # The log `companion replay` refused before the contract changed ("it is Ben's
    # turn, not Ann's" at the second roll): now it is a legal three-roll turn.
    log = [
        *ANN_FOUR_RED,
        roll("Ann", 1),  # 5 -> 6: emptied, roll 2 of 3 follows
        roll("Ann", 5), catch("Ann", color="blue"),  # 6 -> 11
        roll("Ann", 1), catch("Ann", color="blue"),  # 11 -> 12, the third roll
    ]
    summary = accepted(tmp_path, log)
    assert summary["turn"] == "Ben" and summary["totals"] == {"Ann": 6, "Ben": 3}
    assert summary["ships"]["Ann"] == 12
    mid = accepted(tmp_path, log[: len(ANN_FOUR_RED) + 1])
    assert mid["turn"] == "Ann" and mid["pending"] == "roll" and mid["rolls_left"] == 2
    assert mid["expected"] == "Ann rolls again (roll 2 of 3)"


def test_three_empty_landings_use_the_three_rolls(tmp_path: Path) -> None:
    log = [*ANN_FOUR_RED, roll("Ann", 1), roll("Ann", 2), roll("Ann", 1)]  # 6, 8, 9
    summary = accepted(tmp_path, log)
    assert summary["turn"] == "Ben" and summary["ships"]["Ann"] == 9
    message = refused(tmp_path, [*log, roll("Ann", 1)])
    assert "it is Ben's turn, not Ann's" in message


def test_a_failed_catch_ends_the_three_rolls_early(tmp_path: Path) -> None:
    # "If pulling the rod out does not succeed ... his turn is now over."
    log = [*ANN_FOUR_RED, roll("Ann", 1), roll("Ann", 4), catch("Ann", success=False)]
    assert accepted(tmp_path, log)["turn"] == "Ben"
    message = refused(tmp_path, [*log, roll("Ann", 2)])
    assert message == f"line {len(log) + 1}: it is Ben's turn, not Ann's: Ben is to roll"


def test_a_win_ends_the_three_rolls_early(tmp_path: Path) -> None:
    # "The winner is the first player to place five rods of one color ..."
    log = [*ANN_FOUR_RED, roll("Ann", 1), roll("Ann", 5), catch("Ann", color="red")]
    summary = accepted(tmp_path, log)
    assert summary["finished"] is True and summary["winners"] == ["Ann"]
    assert "over" in refused(tmp_path, [*log, roll("Ann", 1)])


def test_a_one_roll_turn_still_ends_on_an_empty_landing(tmp_path: Path) -> None:
    log = [*ANN_FOUR_RED[:3], roll("Ben", 1)]  # Ann took 2; Ben lands on it
    assert accepted(tmp_path, log)["turn"] == "Ann"
    message = refused(tmp_path, [*log, roll("Ben", 1)])
    assert "it is Ann's turn, not Ben's" in message


# Known layout. Ann fails on 4; Ben keeps ball 7; Ann catches the reds on 10, 16, 22,
# 28 (Ben failing in between); her three-roll turn starts on 28.
ANN_FOUR_RED_BEN_KEEPS_7 = [
    {"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"], "rods": LAYOUT},
    roll("Ann", 3), catch("Ann", success=False),
    roll("Ben", 6), keep("Ben"),
    roll("Ann", 6), catch("Ann"), roll("Ben", 1), catch("Ben", success=False),  # 8
    roll("Ann", 6), catch("Ann"), roll("Ben", 1), catch("Ben", success=False),  # 9
    roll("Ann", 6), catch("Ann"), roll("Ben", 2), catch("Ben", success=False),  # 11
    roll("Ann", 6), catch("Ann"), roll("Ben", 1), catch("Ben", success=False),  # 12
]
OFFER = [
    *ANN_FOUR_RED_BEN_KEEPS_7,
    roll("Ann", 3), keep("Ann"),  # 28 -> 1: ball 1 kept, roll 2 of 3
    roll("Ann", 6),  # 1 -> 7: ball 7 is Ben's, super joker 7 on offer with a roll left
]


def test_the_players_own_roll_declines_the_super_joker_and_goes_on(tmp_path: Path) -> None:
    # "... he may roll the die three times in a row": declining the super joker
    # does not give up the third roll.
    offer = accepted(tmp_path, OFFER)
    assert offer["turn"] == "Ann" and offer["pending"] == "super-joker"
    assert offer["expected"] == (
        "Ann may take any rod on the board with super joker 7 (super-joker), "
        "or decline it and roll again (roll 3 of 3)"
    )
    summary = accepted(tmp_path, [*OFFER, roll("Ann", 1), catch("Ann")])  # 7 -> 8 white
    assert summary["turn"] == "Ben" and summary["rows"]["Ann"]["white"] == 1


def test_the_next_player_cannot_decline_while_rolls_remain(tmp_path: Path) -> None:
    message = refused(tmp_path, [*OFFER, roll("Ben", 1)])
    assert message.startswith(
        f"line {len(OFFER) + 1}: it is Ann's turn, not Ben's: Ann rolls again (roll 3 of 3)"
    )
    assert "Ann's roll, which declines it" in message


def test_on_the_last_roll_the_next_players_event_declines_and_ends_the_turn(
    tmp_path: Path,
) -> None:
    log = [
        *ANN_FOUR_RED_BEN_KEEPS_7,
        roll("Ann", 3), keep("Ann"),  # 28 -> 1
        roll("Ann", 1), catch("Ann"),  # 1 -> 2 white
        roll("Ann", 5),  # 2 -> 7 on the third roll: super joker 7 on offer
    ]
    assert accepted(tmp_path, log)["rolls_left"] == 0
    assert accepted(tmp_path, [*log, roll("Ben", 1)])["turn"] == "Ben"
    message = refused(tmp_path, [*log, roll("Ann", 1)])
    assert "it is Ben's turn, not Ann's" in message and "ends Ann's turn" in message


# -- Can't Catch Harry: hand sizes --------------------------------------------------------

HARRY_SETUP: Event = {"type": "setup", "game": "cant-catch-harry", "players": ["Ann", "Ben"]}


def harry_round(ben: list[str]) -> Event:
    return {
        "type": "round",
        "hands": {"Ann": ["fox", "fox", "fox", "fox"], "Ben": ben},
        "moths": {"Ann": "harry", "Ben": "lamp"},
    }


@pytest.mark.parametrize(
    ("hand", "count"),
    [([], "0 cards"), (["mom"], "1 card"), (["mom", "james"], "2 cards"),
     (["mom", "james", "twin"], "3 cards")],
)
def test_a_hand_below_four_cards_is_refused(tmp_path: Path, hand: list[str], count: str) -> None:
    # "Deal everyone a hand of 4 cards." and each card drawn is passed on.
    message = refused(tmp_path, [HARRY_SETUP, harry_round(hand)])
    assert message == (
        f"line 2: Ben shows {count}, which cannot happen: at the end of a round every hand "
        "holds 4 cards, or 5 mid-pass (the deal is 4 and each card drawn is passed on)"
    )


def test_a_hand_above_five_cards_is_refused(tmp_path: Path) -> None:
    # "You can't hold more than five cards at a time."
    message = refused(tmp_path, [HARRY_SETUP, harry_round(["mom"] * 4 + ["twin", "james"])])
    assert message.startswith("line 2: Ben shows 6 cards; nobody may hold more than 5")


@pytest.mark.parametrize("hand", [["mom", "james", "twin", "mr-poe"],
                                  ["mom", "james", "twin", "mr-poe", "furry"]])
def test_hands_of_four_or_five_cards_are_scored(tmp_path: Path, hand: list[str]) -> None:
    summary = accepted(tmp_path, [HARRY_SETUP, harry_round(hand)])
    assert summary["totals"] == {"Ann": 3, "Ben": -1} and summary["round"] == 2
