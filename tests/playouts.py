"""Random legal matches for tests: played event by event with every invariant checked."""

from __future__ import annotations

import importlib
import json
import random
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
