"""Random legal matches for tests: played event by event with every invariant checked."""

from __future__ import annotations

import importlib
import json
import random
from dataclasses import dataclass
from typing import Any

import pytest

from companion.games import rules_for
from companion.games.base import sum_scores
from companion.games.match import Match

NAMES = ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay"]
MAX_EVENTS = 5_000


def random_match(game_id: str, seed: int) -> tuple[Match, list[dict[str, Any]]]:
    """Play a random legal match, checking the invariants after every event."""
    rules = rules_for(game_id)
    rng = random.Random(seed)
    count = rng.randint(rules.min_players, rules.max_players)
    module = importlib.import_module(type(rules).__module__)
    setup = module.random_setup(rng, NAMES[:count])
    match = Match(setup)
    conserved = sum(match.state.zone_counts().values())
    check_state(match)
    for _ in range(MAX_EVENTS):
        if match.finished:
            break
        event = match.random_event(rng)
        before = match.state
        try:
            after = match.push(json.loads(json.dumps(event)))
        except ValueError as err:
            pytest.fail(f"random_event produced an event the engine refused: {event}: {err}")
        assert sum(after.zone_counts().values()) == conserved, (event, after.zone_counts())
        check_state(match)
        # Undo is exact, and redo lands on the identical state.
        undone = match.pop()
        assert match.state == before
        assert match.push(undone) == after
    assert match.finished, f"no end after {MAX_EVENTS} events"
    return match, match.log()


def check_state(match: Match) -> None:
    state = match.state
    players = state.players
    assert dict(state.totals) == sum_scores(players, tuple(state.round_scores))
    assert state.turn is None or state.turn in players
    assert state.round >= 1
    if state.finished:
        assert state.winners and set(state.winners) <= set(players)
    else:
        assert not state.winners
    summary = match.summary()
    json.dumps(summary)  # the public view is plain JSON
    for key in ("game", "players", "round", "turn", "totals", "finished", "winners"):
        assert key in summary


# -- Catch Mag turns ------------------------------------------------------------


@dataclass
class CatchMagTurn:
    """One Catch Mag turn of a log, read through the public summary only."""

    player: str
    three: bool | None = None
    """Whether it was a three-roll turn (known from its first roll on)."""
    rolls: int = 0
    empty_rolled_on: int = 0
    """Landings with nothing to take after which the same player rolled again."""
    declined_rolled_on: int = 0
    """Open super jokers the player declined by rolling on."""
    end: str = ""
    """``failed catch``, ``win``, ``declined`` (by the next player's event) or ``over``
    (the turn ran its course: its rolls were used)."""


def catch_mag_turns(log: list[dict[str, Any]]) -> list[CatchMagTurn]:
    """Split a Catch Mag log into turns and check each against the three-roll rule.

    A one-roll turn has one roll; a three-roll turn has three, whatever they land
    on, unless a failed catch or a win ends it early. Checked for every turn.
    """
    match = Match(log[0])
    turns: list[CatchMagTurn] = []
    current: CatchMagTurn | None = None
    for event in log[1:]:
        before = match.summary()
        if current is None:
            current = CatchMagTurn(before["turn"])
        own = event["player"] == current.player
        if not own:
            # Only an open super joker lets another player act: the event declines it.
            assert before["pending"] == "super-joker", (event, before["expected"])
            current.end = "declined"
            turns.append(current)
            current = CatchMagTurn(event["player"])
        match.push(event)
        after = match.summary()
        if event["type"] == "roll":
            current.rolls += 1
            if current.rolls == 1:  # four of a colour at the turn's first roll
                current.three = 4 in before["rows"][current.player].values()
            if own and before["pending"] == "super-joker":
                current.declined_rolled_on += 1
            if after["turn"] == current.player and after["pending"] == "roll":
                current.empty_rolled_on += 1
        if after["finished"]:
            current.end = "win"
        elif event["type"] == "catch" and not event["success"]:
            current.end = "failed catch"
        if after["finished"] or after["turn"] != current.player:
            current.end = current.end or "over"
            turns.append(current)
            current = None
    if current is not None:
        turns.append(current)
    for turn in turns:
        allowed = 3 if turn.three else 1
        if turn.end in ("failed catch", "win"):
            assert turn.rolls <= allowed, turn
        elif turn.end:
            assert turn.rolls == allowed, turn
        if not turn.three:
            assert turn.empty_rolled_on == turn.declined_rolled_on == 0, turn
    return turns
