"""Malformed logs: whatever a file holds, only the project's own error comes out.

Logs of random legal matches are damaged in the ways real files get damaged
(wrong types, unknown cards, missing fields, events out of turn, lines
swapped, cut or repeated, garbage); replaying them either succeeds or raises
``LogError`` naming a line of the file, never anything else.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games import GAME_IDS
from companion.tablelog import LogError, dump, replay_text
from tests.playouts import random_match

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=8,
)
odd_cards = st.sampled_from(
    ["D0", "D", "C-1", "X7", "M*", "11", "0", "Z*", "AX", "1S", "harry ", "", "10h", "everyone2"]
)


def mutate(log: list[dict[str, Any]], data: st.DataObject) -> list[str]:
    lines = [json.dumps(e) for e in log]
    index = data.draw(st.integers(0, len(lines) - 1), label="line")
    event = dict(log[index])
    kind = data.draw(
        st.sampled_from(
            ["field", "delete", "player", "type", "card", "insert", "swap", "cut", "repeat", "drop"]
        ),
        label="mutation",
    )
    keys = sorted(event)
    if kind == "field":
        event[data.draw(st.sampled_from(keys))] = data.draw(json_values)
    elif kind == "delete":
        event.pop(data.draw(st.sampled_from(keys)))
    elif kind == "player":
        event["player"] = data.draw(st.sampled_from(["Ann", "Ben", "Cy", "Zed", 3, None]))
    elif kind == "type":
        event["type"] = data.draw(
            st.sampled_from(["play", "draw", "roll", "catch", "round", "reveal", "setup", "x", 1])
        )
    elif kind == "card":
        for key in ("card", "cards", "take", "target", "second", "hands"):
            if key in event:
                card = data.draw(odd_cards)
                event[key] = [card] if isinstance(event[key], list) else card
                break
    elif kind == "insert":
        lines.insert(index, json.dumps(data.draw(json_values)))
        return lines
    elif kind == "swap" and len(lines) > 1:
        other = data.draw(st.integers(0, len(lines) - 1))
        lines[index], lines[other] = lines[other], lines[index]
        return lines
    elif kind == "cut":
        lines[index] = lines[index][: data.draw(st.integers(0, len(lines[index]) - 1))]
        return lines
    elif kind == "repeat":
        lines.insert(index, lines[index])
        return lines
    elif kind == "drop":
        del lines[index]
        return lines
    lines[index] = json.dumps(event)
    return lines


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_id=st.sampled_from(GAME_IDS), seed=st.integers(0, 50), data=st.data())
def test_damaged_logs_give_only_line_numbered_errors(
    game_id: str, seed: int, data: st.DataObject
) -> None:
    _, log = random_match(game_id, seed)
    lines = mutate(log, data)
    try:
        match = replay_text("\n".join(lines))
    except LogError as err:
        assert 1 <= err.line <= max(len(lines), 1)
        assert str(err).startswith(f"line {err.line}: ")
        assert "internal error" not in err.message, err.message
        assert "\n" not in str(err)
    else:
        json.dumps(match.summary())


@given(text=st.text(max_size=200))
@settings(max_examples=200, deadline=None)
def test_arbitrary_text_never_escapes(text: str) -> None:
    try:
        replay_text(text)
    except LogError as err:
        assert "internal error" not in err.message


def test_dump_round_trips() -> None:
    _, log = random_match("star-catcher", 3)
    assert replay_text(dump(log)).log() == log
