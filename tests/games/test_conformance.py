"""One conformance suite every game passes: random legal playouts (OpenSpiel style).

For every event of a random legal match:
- pieces are conserved (the sum of ``zone_counts`` never changes);
- ``totals`` equal the sum of the round scores;
- ``turn`` is a seated player or ``None``; winners only once finished;
- undo then redo gives the identical state;
and at the end the match is finished, and replaying its log (through the
file form) gives the identical state. Catch Mag playouts also have every turn
checked against the three-roll rule (:func:`tests.playouts.catch_mag_turns`).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games import GAME_IDS, rules_for
from companion.games.match import Match
from companion.tablelog import dump, replay_text
from tests.playouts import catch_mag_turns, random_match


@pytest.mark.parametrize("game_id", GAME_IDS)
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=False,
)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_random_playouts_keep_every_invariant(game_id: str, seed: int) -> None:
    match, log = random_match(game_id, seed)
    replayed = replay_text(dump(log))
    assert replayed.state == match.state
    assert replayed.summary() == match.summary()
    if game_id == "catch-mag":
        catch_mag_turns(log)  # one roll a turn, or three unless a failed catch or a win


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_undo_back_to_setup_is_the_initial_state(game_id: str) -> None:
    match, log = random_match(game_id, seed=7)
    initial = Match(log[0]).state
    while len(match):
        match.pop()
    assert match.state == initial
    with pytest.raises(IndexError):
        match.pop()


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_no_event_after_the_match_is_over(game_id: str) -> None:
    match, _ = random_match(game_id, seed=11)
    state = match.state
    # Any well-formed event is refused once the match is finished, and nothing changes.
    with pytest.raises(ValueError, match="over"):
        match.push({"type": rules_for(game_id).event_types[0], "player": match.players[0]})
    assert match.state == state


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_example_log_is_a_finished_match(game_id: str) -> None:
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / f"{game_id}.jsonl"
    match = replay_text(path.read_text(encoding="utf-8"))
    assert match.rules.id == game_id
    assert match.finished and match.summary()["winners"]


def test_catch_mag_playouts_roll_on_after_empty_landings_and_declined_super_jokers() -> None:
    # The contract: in a three-roll turn the player rolls again after an empty landing
    # or a declined super joker (their own roll declines it), while rolls remain.
    # The playouts must reach both, and every turn keeps the three-roll rule.
    turns = [
        turn
        for seed in range(80)
        for turn in catch_mag_turns(random_match("catch-mag", seed)[1])
        if turn.three
    ]
    assert sum(t.empty_rolled_on for t in turns) >= 20
    assert sum(t.declined_rolled_on for t in turns) >= 3
    # ... and such turns go on to their third roll unless a failed catch or a win ends them.
    rolled_on = [t for t in turns if t.empty_rolled_on or t.declined_rolled_on]
    assert any(t.rolls == 3 and t.end == "over" for t in rolled_on)
    assert any(t.end == "failed catch" for t in rolled_on)
