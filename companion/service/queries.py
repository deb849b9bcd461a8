"""What the phone asks the rules while a player is entering an event.

The dashboard never re-implements a rule: it asks here which catches a card
allows, whether an Ace's value matters, what a play would do, and it gets
each game's card names for its pickers.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from companion.games.errors import MalformedEvent
from companion.games.fields import show
from companion.games.match import Match

JSON = dict[str, Any]


class UnknownQuery(MalformedEvent):
    """The query name is not one this game answers."""


def _module(game_id: str) -> Any:
    return importlib.import_module("companion.games." + game_id.replace("-", "_"))


def catalog(game_id: str) -> JSON:
    """The names a phone's pickers offer for a game (cards, moths, colours, ...)."""
    try:
        module = _module(game_id)
    except ImportError:
        return {}
    if game_id == "star-catcher":
        cards = sorted({str(c) for c in module.SIMULATION_DECK},
                       key=lambda n: (n[0] != "D", n == "M", n))
        return {"cards": cards}
    if game_id == "star-plus":
        return {"cards": list(module.KINDS)}
    if game_id == "cant-catch-harry":
        return {"cards": [*module.KINDS, module.WILD], "moths": list(module.MOTHS),
                "moth_names": dict(module.MOTH_NAMES), "max_hand": module.MAX_HAND}
    if game_id == "collector":
        return {"cards": [str(c) for c in module.ALL_CARDS], "ranks": list(module.RANKS),
                "suits": list(module.SUITS)}
    if game_id == "catch-mag":
        return {"colors": list(module.COLORS), "jokers": list(module.JOKER_SPACES)}
    return {}


def _text(args: JSON, key: str, optional: bool = False) -> str | None:
    value = args.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value:
        raise MalformedEvent(f"query argument '{key}' must be a card name, got {show(value)}")
    return value


def _legal_catches(match: Match, args: JSON) -> JSON:
    module = _module("star-catcher")
    card = module.Card.parse(_text(args, "card"))
    options = module.legal_catches(match.state, card)
    return {"options": [[str(c) for c in option] for option in options],
            "must_catch": bool(module.must_catch(match.state, card))}


def _ace_choice(match: Match, args: JSON) -> JSON:
    module = _module("collector")
    matters = module.ace_choice_matters(
        match.state, _text(args, "target"), _text(args, "card"),
        _text(args, "second", optional=True),
    )
    return {"matters": bool(matters)}


def _outcome(match: Match, args: JSON) -> JSON:
    module = _module("collector")
    aces = args.get("aces")
    if aces is not None and not isinstance(aces, dict):
        raise MalformedEvent(f"query argument 'aces' must be an object, got {show(aces)}")
    player = args.get("player") or match.turn
    if player not in match.players:
        raise MalformedEvent(f"query argument 'player' must be a seated player, got {show(player)}")
    result = module.outcome(match.state, player, _text(args, "target"), _text(args, "card"),
                            _text(args, "second", optional=True), aces)
    return {"text": result.explain(), "label": result.label}


QUERIES: dict[str, dict[str, Callable[[Match, JSON], JSON]]] = {
    "star-catcher": {"legal-catches": _legal_catches},
    "collector": {"ace-choice": _ace_choice, "outcome": _outcome},
}


def answer(match: Match, name: object, args: JSON) -> JSON:
    """Run one named query against a match's current state."""
    known = QUERIES.get(match.rules.id, {})
    if not isinstance(name, str) or name not in known:
        names = ", ".join(known) or "none"
        raise UnknownQuery(f"unknown query {show(name)} for {match.rules.title}; "
                           f"expected one of: {names}")
    return known[name](match, args)
