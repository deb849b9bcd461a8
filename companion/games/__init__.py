"""The five rules engines: pure functions from table events to game states, no I/O.

Engines are imported on first use, so a process that needs one game loads one.

>>> GAME_IDS
('star-catcher', 'star-plus', 'catch-mag', 'cant-catch-harry', 'collector')
>>> rules_for("star-catcher").title
'Star Catcher'
>>> rules_for("chess")
Traceback (most recent call last):
...
companion.games.errors.MalformedEvent: unknown game "chess"; expected one of star-catcher, ...
"""

from __future__ import annotations

import importlib
from typing import Any

from companion.games.base import GameEvent, GameState, Rules
from companion.games.errors import IllegalEvent, MalformedEvent, MatchOver, TableEventError
from companion.games.fields import show

AnyRules = Rules[Any, Any]

_MODULES = {
    "star-catcher": "companion.games.star_catcher",
    "star-plus": "companion.games.star_plus",
    "catch-mag": "companion.games.catch_mag",
    "cant-catch-harry": "companion.games.cant_catch_harry",
    "collector": "companion.games.collector",
}

GAME_IDS: tuple[str, ...] = tuple(_MODULES)
"""Every game id, in the order the product lists the games."""


def rules_for(game_id: object) -> AnyRules:
    """The rules engine for a game id, or :class:`MalformedEvent` naming the known ids."""
    if isinstance(game_id, str) and game_id in _MODULES:
        rules: AnyRules = importlib.import_module(_MODULES[game_id]).RULES
        return rules
    raise MalformedEvent(f"unknown game {show(game_id)}; expected one of {', '.join(GAME_IDS)}")


__all__ = [
    "GAME_IDS",
    "AnyRules",
    "GameEvent",
    "GameState",
    "IllegalEvent",
    "MalformedEvent",
    "MatchOver",
    "Rules",
    "TableEventError",
    "rules_for",
]
