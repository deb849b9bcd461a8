"""A Catch Mag match played the way a family plays it: die rolls on a phone, the rest by hand.

:func:`next_event` picks each player's next event from the state and the
physical board (which rod of which colour sits where: the engine does not
know, the sensors read it), greedily steering towards a win so a match is
short. The first catch attempt of each player fails (the poles repel), the
first joker ball within reach is taken and kept, and a kept ball is spent on
the keeper's next turn to swipe a rod, so the board's failed-catch, joker and
use-joker paths are exercised too.
"""

from __future__ import annotations

import random
from typing import Any

from companion.games.catch_mag import (
    COLORS,
    JOKER_SPACES,
    ROD_SPACES,
    State,
    balls_on_board,
    kept_jokers,
    next_space,
    pending,
    rods_on_board,
    rows,
    ships,
    swipe_options,
)

Event = dict[str, Any]


def shuffled_layout(seed: int) -> dict[int, str]:
    """Which colour of rod stands on each of the 25 rod spaces (five of each)."""
    colors = [c for c in COLORS for _ in range(5)]
    random.Random(seed).shuffle(colors)
    return dict(zip(ROD_SPACES, colors, strict=True))


class Player:
    """Chooses every next event for whoever's turn it is."""

    def __init__(self, layout: dict[int, str], seed: int = 0) -> None:
        self.layout = layout
        self.rng = random.Random(seed)
        self.failed_once: set[str] = set()
        self.took_joker: set[str] = set()

    def next_event(self, state: State) -> Event:
        player = state.turn
        assert player is not None, "the match is over"
        phase = pending(state)
        ship = ships(state)[player]
        if phase == "catch":
            if player not in self.failed_once:
                self.failed_once.add(player)
                return {"type": "catch", "player": player, "success": False}
            return {"type": "catch", "player": player, "success": True,
                    "color": self.layout[ship]}
        if phase == "joker":
            self.took_joker.add(player)
            return {"type": "joker", "player": player, "use": "keep"}
        assert phase == "roll", f"the policy never opens a {phase} choice"
        held = rows(state)[player]
        kept = kept_jokers(state)[player]
        options = swipe_options(state, player)
        if kept and options and not state.rolled:
            victim, color = max(options, key=lambda o: held[o[1]])
            return {"type": "use-joker", "player": player, "joker": kept[0], "from": victim,
                    "color": color}
        wants_ball = player not in self.took_joker
        rods = rods_on_board(state)
        balls = balls_on_board(state)

        def worth(value: int) -> float:
            space = next_space(ship, value)
            if space in rods:
                return 10 + held[self.layout[space]]
            if space in balls:
                return 30 if wants_ball else -5
            if space in JOKER_SPACES:
                return -10  # its ball is kept: a super-joker choice, which this policy avoids
            return 0

        value = max(range(1, 7), key=lambda v: (worth(v), self.rng.random()))
        return {"type": "roll", "player": player, "value": value}
