"""What the phone asks the rules while a player is entering an event.

The dashboard never re-implements a rule: it asks here which catches a card
allows, whether an Ace's value matters, what a play would do, and it gets
each game's card names for its pickers.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from companion.games.errors import MalformedEvent, TableEventError
from companion.games.fields import show
from companion.games.match import Match
from companion.service.session import MatchRecord, replay

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
                "moth_names": dict(module.MOTH_NAMES), "max_hand": module.MAX_HAND,
                "box": dict(module.BOX), "deck": dict(module.DECK)}
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
    seat = match.players.index(player)
    return {"text": result.explain(), "label": result.label, "kind": result.kind,
            "flip": result.flip, "flip_options": [str(c) for c in match.state.face_down[seat]],
            "refill": result.refill, "draws": result.draws, "ends": result.ends}


def _unseen(match: Match, args: JSON) -> JSON:
    """Collector cards nobody has seen yet: what a hand, a play or a refill may show."""
    return {"cards": [str(c) for c in match.state.unseen()]}


def _legal_events(match: Match, args: JSON) -> JSON:
    """Catch Mag: every legal next event (the phone offers only these) and the expectation."""
    module = _module("catch-mag")
    return {"events": module.legal_events(match.state),
            "expected": module.expected(match.state).to_json()}


QUERIES: dict[str, dict[str, Callable[[Match, JSON], JSON]]] = {
    "star-catcher": {"legal-catches": _legal_catches},
    "collector": {"ace-choice": _ace_choice, "outcome": _outcome, "unseen": _unseen},
    "catch-mag": {"legal-events": _legal_events},
}


def answer(match: Match, name: object, args: JSON) -> JSON:
    """Run one named query against a match's current state."""
    known = QUERIES.get(match.rules.id, {})
    if not isinstance(name, str) or name not in known:
        names = ", ".join(known) or "none"
        raise UnknownQuery(f"unknown query {show(name)} for {match.rules.title}; "
                           f"expected one of: {names}")
    return known[name](match, args)


def match_before(record: MatchRecord, entry_id: int) -> Match:
    """The match as it stood just before entry ``entry_id`` (flagged entries skipped),
    so a correction form offers and checks what was possible at that point.

    >>> record = _example_record()
    >>> match_before(record, 3).summary()["expected"]
    'Ann is to catch a rod on space 3 (success or not)'
    >>> answer(match_before(record, 2), "legal-events", {})["expected"]["events"]
    ['roll']
    """
    index = record.index_of(entry_id)
    match, _ = replay(record.setup, record.entries[:index])
    return match


def check_correction(record: MatchRecord, entry_id: int, event: object) -> JSON:
    """Would replacing entry ``entry_id`` with ``event`` be accepted, and what would it flag?

    ``{"ok": True, "text", "flagged": [ids]}`` or ``{"ok": False, "error"}``; changes nothing.

    >>> record = _example_record()
    >>> check_correction(record, 2, {"type": "roll", "player": "Ann", "value": 6})["flagged"]
    [3]
    >>> check_correction(record, 2, {"type": "roll", "player": "Ben", "value": 6})["error"]
    "it is Ann's turn, not Ben's: Ann is to roll"
    >>> len(record.entries), record.entries[0].event["value"]  # nothing changed
    (2, 2)
    """
    index = record.index_of(entry_id)
    if not isinstance(event, dict):
        return {"ok": False, "error": f"an event must be a JSON object, got {show(event)}"}
    trial = list(record.entries)
    trial[index] = replace(trial[index], event=event)
    try:
        _, result = replay(record.setup, trial)
    except TableEventError as exc:
        return {"ok": False, "error": str(exc)}
    if result[index].error is not None:
        return {"ok": False, "error": result[index].error}
    flagged = [e.id for e in result[index + 1:] if e.error is not None]
    return {"ok": True, "text": result[index].text, "flagged": flagged}


def _example_record() -> MatchRecord:
    """A Catch Mag match with two entries (ids 2 and 3), for the examples above."""
    from companion.service.session import Entry

    setup = {"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]}
    record = MatchRecord(1, setup, "host", "2026-01-01T20:00:00", imported=False)
    record.entries = [
        Entry(2, {"type": "roll", "player": "Ann", "value": 2}, "host", "2026-01-01T20:01:00"),
        Entry(3, {"type": "catch", "player": "Ann", "success": False}, "host",
              "2026-01-01T20:02:00"),
    ]
    record.recompute()
    return record
