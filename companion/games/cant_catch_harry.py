"""Can't Catch Harry: a frantic four-of-a-kind race, scored one round at a time.

The play itself (drawing, passing, grabbing moths) is too fast to log card by
card, so the table reports each round as it ends: one ``round`` event with
every player's final hand and the moth figurine each grabbed. The engine
judges that the round could have happened (hands of 4 cards, or 5 mid-pass;
the deck's contents; the figurines on the mat; at least one set) and scores it.

Round points: the moth's value; +3 with a set of ``harry``; -1 per ``devil``
card unless the hand's set is of ``devil``; -1 per ``lamp`` card. A ``devil``
set resets every total to 0 before this round's points are added. A total
that would go over 11 stays where it was; exactly 11 wins (several share).

>>> set_kind(["fox", "fox", "everyone", "fox", "lamp"])
'fox'
>>> hand_points(["harry", "harry", "harry", "everyone", "devil"], "cream").total
4
>>> m = RULES.new_state({"type": "setup", "game": "cant-catch-harry", "players": ["Ann", "Ben"]})
>>> m = RULES.play(m, {"type": "round",
...     "hands": {"Ann": ["fox", "fox", "fox", "fox"], "Ben": ["mom", "devil", "lamp", "james"]},
...     "moths": {"Ann": "harry", "Ben": "lamp"}})[1]
>>> dict(m.totals), m.round, m.turn
({'Ann': 3, 'Ben': -3}, 2, None)
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import ClassVar, Literal

from companion.games.base import Rules, left_of
from companion.games.errors import IllegalEvent, MalformedEvent
from companion.games.fields import (
    JSON,
    RawEvent,
    require_mapping,
    require_player,
    show,
)

# -- the box --------------------------------------------------------------

KINDS: tuple[str, ...] = (
    "baby-james",
    "james",
    "fox",
    "evil-bird",
    "furry",
    "harry",
    "twin",
    "hunters",
    "mom",
    "mr-poe",
    "sandwich-artist",
    "devil",
    "teacher",
    "lamp",
)
"""The fourteen card kinds, four of each."""
WILD = "everyone"
"""The wild card: it fills any gap in a set (two in the deck)."""
CARDS: tuple[str, ...] = (*KINDS, WILD)
DECK: Mapping[str, int] = {**{kind: 4 for kind in KINDS}, WILD: 2}
DECK_SIZE = sum(DECK.values())  # 58
DEAL = 4
"""Cards dealt to each hand; every card drawn is passed on, so a round ends with 4 (or 5)."""
MAX_HAND = 5
"""A hand's size mid-pass: "You can't hold more than five cards at a time"."""
SET_SIZE = 4
TARGET = 11
HARRY_BONUS = 3

MOTHS: tuple[str, ...] = ("harry", "cream", "grey", "lamp")
MOTH_VALUES: Mapping[str, int] = {"harry": 3, "cream": 2, "grey": 1, "lamp": -1}
MOTH_NAMES: Mapping[str, str] = {
    "harry": "Harry",
    "cream": "Cray Cray",
    "grey": "Chubs",
    "lamp": "Lamp",
}
"""The box's figurine names: Cray Cray is the open-mouthed cream moth, Chubs the grey one."""
BOX: Mapping[str, int] = {"harry": 1, "cream": 2, "grey": 2, "lamp": 1}
"""How many figurines of each moth kind the box holds."""

# A hand holds at most one set, so a round is worth at most the Harry moth plus
# the Harry bonus, and at least the Lamp moth with five devil/lamp cards.
MAX_ROUND_POINTS = MOTH_VALUES["harry"] + HARRY_BONUS  # 6
MIN_ROUND_POINTS = MOTH_VALUES["lamp"] - MAX_HAND  # -6

_CARD_LIST = ", ".join(CARDS)


def default_mat(players: int) -> tuple[str, ...]:
    """The figurines on the mat for a table of ``players`` unless setup names them.

    Harry and the Lamp always; each extra player adds a cream (Cray Cray) then a
    grey (Chubs) moth, alternately, so the values stay spread.

    >>> default_mat(2)
    ('harry', 'lamp')
    >>> default_mat(5)
    ('harry', 'cream', 'cream', 'grey', 'lamp')
    """
    extra = [("cream", "grey")[i % 2] for i in range(players - 2)]
    return _sorted_moths(["harry", *extra, "lamp"])


def _sorted_moths(moths: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(moths, key=MOTHS.index))


def set_kind(hand: Iterable[str]) -> str | None:
    """The kind of the hand's set (four of a kind, ``everyone`` filling gaps), or ``None``.

    A set needs at least one real card of its kind. A hand of at most five cards
    holds at most one set (two would need eight cards, or six if the two
    ``everyone`` could count twice), so the answer is never a choice. For a
    longer hand the kind with most real cards wins (ties: deck order).

    >>> set_kind(["devil", "devil", "everyone", "everyone", "lamp"])
    'devil'
    >>> set_kind(["everyone", "everyone", "fox", "mom"]) is None
    True
    """
    cards = hand if isinstance(hand, tuple | list) else tuple(hand)
    if len(cards) < SET_SIZE:
        return None
    wild = cards.count(WILD)
    best: str | None = None
    best_real = 0
    for kind in dict.fromkeys(cards):  # first appearance order: no Counter, it is hot
        real = cards.count(kind)
        if kind == WILD or kind not in DECK or real + wild < SET_SIZE:
            continue
        if best is None or (real, -KINDS.index(kind)) > (best_real, -KINDS.index(best)):
            best, best_real = kind, real
    return best


@dataclass(frozen=True, slots=True)
class Points:
    """One hand's round points, part by part (before any reset or the over-11 rule)."""

    moth: int
    harry_bonus: int = 0
    devil: int = 0
    lamp: int = 0

    @property
    def total(self) -> int:
        return self.moth + self.harry_bonus + self.devil + self.lamp

    def to_json(self) -> JSON:
        return {
            "moth": self.moth,
            "harry_bonus": self.harry_bonus,
            "devil": self.devil,
            "lamp": self.lamp,
            "total": self.total,
        }

    def explain(self, moth_name: str = "moth") -> str:
        """The parts in words.

        >>> Points(3, 3, -1).explain("Harry")
        'Harry +3, harry set +3, 1 devil -1 = +5'
        >>> Points(1).explain("Chubs")
        'Chubs +1'
        """
        parts = [f"{moth_name} {self.moth:+d}"]
        if self.harry_bonus:
            parts.append(f"harry set {self.harry_bonus:+d}")
        if self.devil:
            parts.append(f"{-self.devil} devil {self.devil:+d}")
        if self.lamp:
            parts.append(f"{-self.lamp} lamp {self.lamp:+d}")
        text = ", ".join(parts)
        return text if len(parts) == 1 else f"{text} = {self.total:+d}"


def hand_points(hand: Iterable[str], moth: str) -> Points:
    """A hand's points with the moth grabbed.

    >>> hand_points(["devil", "devil", "devil", "everyone", "lamp"], "grey")
    Points(moth=1, harry_bonus=0, devil=0, lamp=-1)
    >>> hand_points(["devil", "lamp", "fox", "fox"], "lamp").total
    -3
    """
    cards = tuple(hand)
    return _points(cards, set_kind(cards), moth)


def _points(hand: tuple[str, ...], kind: str | None, moth: str) -> Points:
    return Points(
        moth=MOTH_VALUES[moth],
        harry_bonus=HARRY_BONUS if kind == "harry" else 0,
        devil=0 if kind == "devil" else -hand.count("devil"),
        lamp=-hand.count("lamp"),
    )


# -- parameters, results, state ----------------------------------------------


@dataclass(frozen=True, slots=True)
class Params:
    """Setup: the players, who starts with the deck, and the figurines on the mat."""

    players: tuple[str, ...]
    youngest: str
    """The player next to whom the deck lies for round 1 (the deck passes left each round)."""
    figurines: tuple[str, ...] | None = None
    """The moths on the mat (setup ``figurines``); ``None``: any box-legal choice per round."""
    two_decks: bool = False
    """The Two Deck Variant: a second half-deck lies across the table."""


@dataclass(frozen=True, slots=True)
class Line:
    """One player's part of a scored round."""

    player: str
    hand: tuple[str, ...]
    moth: str
    set: str | None
    points: Points
    before: int
    """The total before the round (before any devil reset)."""
    after: int
    """The total after the round."""
    voided: bool
    """The over-11 rule dropped this round's points."""

    @property
    def delta(self) -> int:
        """The change actually applied to the total (what ``round_scores`` records)."""
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A scored round: every player's line, in seating order."""

    number: int
    lines: tuple[Line, ...]
    reset_by: str | None
    """Whose ``devil`` set reset every total to 0 (at most one hand can hold one)."""

    def line(self, player: str) -> Line:
        for line in self.lines:
            if line.player == player:
                return line
        raise KeyError(player)

    @property
    def voided(self) -> tuple[str, ...]:
        return tuple(line.player for line in self.lines if line.voided)


@dataclass(frozen=True, slots=True)
class State:
    """Totals and the rounds scored so far (``turn`` is always ``None``: nobody takes turns)."""

    params: Params
    scores: tuple[int, ...]
    """Totals by seat."""
    results: tuple[RoundResult, ...] = ()
    finished: bool = False
    winners: tuple[str, ...] = ()

    # -- GameState ------------------------------------------------------

    @property
    def players(self) -> tuple[str, ...]:
        return self.params.players

    @property
    def round(self) -> int:
        return len(self.results) + (0 if self.finished else 1)

    @property
    def turn(self) -> str | None:
        return None

    @property
    def totals(self) -> Mapping[str, int]:
        return dict(zip(self.params.players, self.scores, strict=True))

    @property
    def round_scores(self) -> tuple[Mapping[str, int], ...]:
        """The change each round actually made to each total.

        With a devil reset or the over-11 rule this differs from the round's
        points (see :meth:`round_points`), so that ``totals`` is their sum.
        """
        return tuple({line.player: line.delta for line in r.lines} for r in self.results)

    def zone_counts(self) -> Mapping[str, int]:
        """Cards in the last round's hands vs. the rest of the deck; moths grabbed vs. on the mat.

        Before the first round every card is in the deck and every moth on the mat.
        """
        players = self.params.players
        counts: dict[str, int] = {}
        last = self.results[-1] if self.results else None
        in_hands = 0
        for i, player in enumerate(players):
            held = len(last.lines[i].hand) if last else 0
            counts[f"hand:{player}"] = held
            counts[f"moth:{player}"] = 1 if last else 0
            in_hands += held
        counts["deck"] = DECK_SIZE - in_hands
        counts["mat"] = 0 if last else len(players)
        return counts

    # -- queries ----------------------------------------------------------

    def total(self, player: str) -> int:
        """``player``'s total after the completed rounds."""
        return self.scores[self.params.players.index(player)]

    def to_win(self, player: str) -> int:
        """The distance to exactly 11: the round points that would win.

        >>> s = RULES.new_state({"type": "setup", "game": "cant-catch-harry",
        ...                      "players": ["Ann", "Ben"]})
        >>> s.to_win("Ann")
        11
        """
        return TARGET - self.total(player)

    def can_win_next(self, player: str) -> bool:
        """Whether one round can bring ``player`` to exactly 11 (needs at most 6 points)."""
        return self.to_win(player) <= MAX_ROUND_POINTS

    def bust_protected(self, player: str) -> bool:
        """True when no round can take ``player`` over 11 (total at most 5).

        Only then are this round's points sure to count; a player above 5 may
        grab points that the over-11 rule throws away.
        """
        return self.total(player) + MAX_ROUND_POINTS <= TARGET

    def mat(self) -> tuple[str, ...]:
        """The figurines on the mat: setup's, else the last round's, else the default."""
        if self.params.figurines is not None:
            return self.params.figurines
        if self.results:
            return _sorted_moths(line.moth for line in self.results[-1].lines)
        return default_mat(len(self.params.players))

    def deck_holders(self) -> tuple[str, ...]:
        """Who has the deck this round: the youngest for round 1, passing left each round.

        With two decks the second half lies across the table (half the table
        clockwise, rounded down).
        """
        players = self.params.players
        first = left_of(players, self.params.youngest, self.round - 1)
        if not self.params.two_decks:
            return (first,)
        return (first, left_of(players, first, len(players) // 2))

    @property
    def last_round(self) -> RoundResult | None:
        return self.results[-1] if self.results else None

    def round_points(self) -> tuple[Mapping[str, int], ...]:
        """Each scored round's raw points per player (before reset and the over-11 rule)."""
        return tuple({line.player: line.points.total for line in r.lines} for r in self.results)

    def leaders(self) -> tuple[str, ...]:
        """Every player tied for the highest total, in seating order."""
        best = max(self.scores)
        return tuple(p for p, s in zip(self.params.players, self.scores, strict=True) if s == best)


# -- the event ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundEvent:
    """The end of a round as the table shows it: final hands and moths, in seating order."""

    hands: tuple[tuple[str, tuple[str, ...]], ...]
    moths: tuple[tuple[str, str], ...]
    type: Literal["round"] = field(default="round", init=False)

    def to_json(self) -> JSON:
        return {
            "type": self.type,
            "hands": {player: list(cards) for player, cards in self.hands},
            "moths": dict(self.moths),
        }


def _card_hint(value: object) -> str:
    """A "did you mean" for near-miss card names (``Mr. Poe`` -> ``mr-poe``)."""
    if isinstance(value, str):
        guess = value.strip().lower().replace(". ", "-").replace(" ", "-").replace(".", "")
        if guess in DECK:
            return f" (did you mean {show(guess)}?)"
    return ""


def _parse_hand(player: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise MalformedEvent(
            f"hands[{show(player)}] must be a list of card names, got {show(value)}"
        )
    for card in value:
        if not isinstance(card, str) or card not in DECK:
            raise MalformedEvent(
                f"hands[{show(player)}] holds unknown card {show(card)}{_card_hint(card)}; "
                f"cards are {_CARD_LIST}"
            )
    return tuple(value)


def _seated(raw: Mapping[str, object], key: str, players: tuple[str, ...]) -> None:
    """``raw`` names exactly the seated players."""
    for name in raw:
        if name not in players:
            raise MalformedEvent(
                f"field '{key}' names {show(name)}, who is not seated; "
                f"expected exactly the seated players ({', '.join(players)})"
            )
    missing = [p for p in players if p not in raw]
    if missing:
        raise MalformedEvent(
            f"field '{key}' must list every seated player; missing {', '.join(missing)}"
        )


def _parse_round(raw: RawEvent, players: tuple[str, ...]) -> RoundEvent:
    hands = require_mapping(raw, "hands")
    moths = require_mapping(raw, "moths")
    _seated(hands, "hands", players)
    _seated(moths, "moths", players)
    parsed_hands = tuple((p, _parse_hand(p, hands[p])) for p in players)
    parsed_moths: list[tuple[str, str]] = []
    for p in players:
        moth = moths[p]
        if not isinstance(moth, str) or moth not in MOTH_VALUES:
            raise MalformedEvent(
                f"moths[{show(p)}] must be one of {', '.join(MOTHS)} "
                f"(cream is Cray Cray, grey is Chubs), got {show(moth)}"
            )
        parsed_moths.append((p, moth))
    return RoundEvent(parsed_hands, tuple(parsed_moths))


def _parse_figurines(value: object, count: int) -> tuple[str, ...]:
    expected = (
        f"a list of the {count} moths on the mat from {', '.join(MOTHS)}: "
        "one harry, one lamp, at most 2 cream and 2 grey"
    )
    if not isinstance(value, list) or not all(isinstance(m, str) and m in BOX for m in value):
        raise MalformedEvent(f"setup 'figurines' must be {expected}, got {show(value)}")
    counts = Counter(value)
    if len(value) != count or counts["harry"] != 1 or counts["lamp"] != 1 or any(
        counts[m] > BOX[m] for m in BOX
    ):
        raise MalformedEvent(
            f"setup 'figurines' must be {expected} (one moth per player), got {show(value)}"
        )
    return _sorted_moths(value)


def _names(players: Sequence[str]) -> str:
    return players[0] if len(players) == 1 else ", ".join(players[:-1]) + " and " + players[-1]


# -- the rules -----------------------------------------------------------------


class CantCatchHarry(Rules[State, RoundEvent]):
    """Can't Catch Harry: one ``round`` event per round, scored to exactly 11."""

    id: ClassVar[str] = "cant-catch-harry"
    title: ClassVar[str] = "Can't Catch Harry"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    event_types: ClassVar[tuple[str, ...]] = ("round",)

    def start(self, players: tuple[str, ...], setup: RawEvent) -> State:
        youngest = (
            players[0]
            if setup.get("youngest") is None
            else require_player(setup, players, "youngest")
        )
        figurines = (
            None
            if setup.get("figurines") is None
            else _parse_figurines(setup["figurines"], len(players))
        )
        two_decks = setup.get("two_decks")
        if two_decks is None:
            two_decks = False
        elif not isinstance(two_decks, bool):
            raise MalformedEvent(
                f"setup 'two_decks' must be true or false, got {show(two_decks)}"
            )
        params = Params(players, youngest, figurines, two_decks)
        return State(params, (0,) * len(players))

    def parse_event(self, raw: RawEvent, state: State) -> RoundEvent:
        return _parse_round(raw, state.players)

    def apply(self, state: State, event: RoundEvent) -> State:
        kinds = [set_kind(hand) for _, hand in event.hands]
        _check_round(state, event, kinds)
        number = len(state.results) + 1
        reset_by = next(
            (p for (p, _), k in zip(event.hands, kinds, strict=True) if k == "devil"), None
        )
        scored: list[Line] = []
        for (player, hand), (_, moth), kind, before in zip(
            event.hands, event.moths, kinds, state.scores, strict=True
        ):
            points = _points(hand, kind, moth)
            base = 0 if reset_by is not None else before
            after = base + points.total
            voided = after > TARGET
            # Over 11: the total stays where it was this round (after any reset).
            scored.append(
                Line(player, hand, moth, kind, points, before, base if voided else after, voided)
            )
        result = RoundResult(number, tuple(scored), reset_by)
        scores = tuple(line.after for line in scored)
        winners = tuple(line.player for line in scored if line.after == TARGET)
        return replace(
            state,
            scores=scores,
            results=(*state.results, result),
            finished=bool(winners),
            winners=winners,
        )

    def describe(self, before: State, event: RoundEvent, after: State) -> str:
        result = after.results[-1]
        head = f"Round {result.number} ends"
        if result.reset_by is not None:
            head += f" ({result.reset_by}'s devil set resets every total to 0 first)"
        parts = []
        for line in result.lines:
            what = f"{line.player}"
            if line.set:
                what += f" (set of {line.set})"
            what += f" grabs {line.points.explain(MOTH_NAMES[line.moth])}"
            if line.voided:
                what += f", over 11: stays at {line.after}"
            else:
                what += f" -> {line.after}"
            parts.append(what)
        text = head + ": " + "; ".join(parts) + "."
        if after.finished:
            if len(after.winners) == 1:
                return text + f" {after.winners[0]} wins with exactly 11."
            return text + f" {_names(after.winners)} share the win at 11."
        holders = after.deck_holders()
        return text + f" No one at 11: round {after.round} next, deck to {_names(holders)}."

    def extras(self, state: State) -> JSON:
        players = state.players
        last = state.last_round
        last_json: JSON | None = None
        if last is not None:
            last_json = {
                "number": last.number,
                "hands": {line.player: list(line.hand) for line in last.lines},
                "moths": {line.player: line.moth for line in last.lines},
                "sets": {line.player: line.set for line in last.lines},
                "points": {line.player: line.points.to_json() for line in last.lines},
                "reset_by": last.reset_by,
                "voided": list(last.voided),
            }
        return {
            "target": TARGET,
            "mat": list(state.mat()),
            "mat_fixed": state.params.figurines is not None,
            "moth_values": dict(MOTH_VALUES),
            "deck_holders": list(state.deck_holders()),
            "to_win": {p: state.to_win(p) for p in players},
            "can_win_next": [p for p in players if state.can_win_next(p)],
            "bust_protected": [p for p in players if state.bust_protected(p)],
            "round_points": [dict(r) for r in state.round_points()],
            "resets": [r.number for r in state.results if r.reset_by is not None],
            "last_round": last_json,
        }

    def random_event(self, state: State, rng: random.Random) -> JSON:
        return random_round(state, rng)


def _check_round(state: State, event: RoundEvent, kinds: Sequence[str | None]) -> None:
    """Could this round have happened? IllegalEvent naming the rule if not.

    ``kinds`` is each hand's set kind, in seating order.
    """
    for player, hand in event.hands:
        if len(hand) > MAX_HAND:
            raise IllegalEvent(
                f"{player} shows {len(hand)} cards; nobody may hold more than {MAX_HAND} "
                f"(pass or discard down to {MAX_HAND})"
            )
        if len(hand) < DEAL:
            # Every card drawn is passed on, so a hand never drops below the deal.
            shown = "1 card" if len(hand) == 1 else f"{len(hand)} cards"
            raise IllegalEvent(
                f"{player} shows {shown}, which cannot happen: at the end of a round every "
                f"hand holds {DEAL} cards, or {MAX_HAND} mid-pass (the deal is {DEAL} and each "
                f"card drawn is passed on)"
            )
    seen = Counter(chain.from_iterable(hand for _, hand in event.hands))
    for card, count in seen.items():
        if count > DECK[card]:
            holders = ", ".join(
                f"{p} {hand.count(card)}" for p, hand in event.hands if card in hand
            )
            raise IllegalEvent(
                f"the round shows {count} {show(card)} cards ({holders}); "
                f"the deck holds only {DECK[card]}"
            )
    _check_moths(state, event)
    if not any(kinds):
        closest = max(
            ((p, kind, hand.count(kind) + hand.count(WILD)) for p, hand in event.hands
             for kind in dict.fromkeys(hand) if kind != WILD),
            key=lambda t: t[2],
            default=None,
        )
        hint = f"; closest: {closest[0]} with {closest[2]} toward {closest[1]}" if closest else ""
        raise IllegalEvent(
            "no hand holds a set (four of a kind with at least one real card, 'everyone' "
            f"filling gaps); a round ends only once someone has one{hint}"
        )


def _check_moths(state: State, event: RoundEvent) -> None:
    counts = Counter(moth for _, moth in event.moths)
    for kind in ("harry", "lamp"):
        holders = [p for p, m in event.moths if m == kind]
        if len(holders) != 1:
            who = f"{_names(holders)} hold it" if holders else "nobody holds it"
            raise IllegalEvent(
                f"each round has exactly one {show(kind)} moth ({MOTH_NAMES[kind]}); {who}"
            )
    for kind in ("cream", "grey"):
        if counts[kind] > BOX[kind]:
            holders = [p for p, m in event.moths if m == kind]
            raise IllegalEvent(
                f"the box has only {BOX[kind]} {show(kind)} moths ({MOTH_NAMES[kind]}); "
                f"{_names(holders)} hold one each"
            )
    fixed = state.params.figurines
    if fixed is not None and _sorted_moths(counts.elements()) != fixed:
        raise IllegalEvent(
            f"the mat holds {', '.join(fixed)} (setup 'figurines'); "
            f"this round shows {', '.join(_sorted_moths(counts.elements()))}"
        )


RULES = CantCatchHarry()


# -- random playouts -----------------------------------------------------------

# Set kinds for a random round: Harry sets are favoured (they score), devil sets
# are rare (a reset sends everyone back to 0 and would drag the match out).
_SET_WEIGHTS: tuple[float, ...] = tuple(
    {"harry": 2.0, "devil": 0.5}.get(kind, 1.0) for kind in KINDS
)
_NEUTRAL: tuple[str, ...] = tuple(k for k in KINDS if k not in ("harry", "devil", "lamp"))
# Chance that a round is built to land someone on exactly 11 when one round can.
_AIM = 0.3


def random_setup(rng: random.Random, players: list[str]) -> JSON:
    """A random valid ``setup``: sometimes a youngest player, a fixed mat, two decks.

    >>> random_setup(random.Random(1), ["Ann", "Ben"])["game"]
    'cant-catch-harry'
    """
    setup: JSON = {"type": "setup", "game": RULES.id, "players": list(players)}
    if rng.random() < 0.5:
        setup["youngest"] = rng.choice(players)
    if rng.random() < 0.5:
        extra = rng.sample(["cream", "cream", "grey", "grey"], len(players) - 2)
        setup["figurines"] = list(_sorted_moths(["harry", *extra, "lamp"]))
    if rng.random() < 0.3:
        setup["two_decks"] = True
    return setup


def random_round(state: State, rng: random.Random) -> JSON:
    """A legal random ``round`` event for an unfinished state.

    Most rounds are free: one player (sometimes two) holds a set of a random
    kind, the other hands are dealt from the rest of the deck. The over-11
    rule makes "exactly 11" hard to hit by chance, so with probability 0.3,
    when someone is within one round of 11, the round is built so that one or
    two of them land on it exactly. Matches then last about 6 rounds on
    average and 95% end within 12 (300 seeded playouts, 2 to 6 players).
    """
    mat = state.mat() if state.params.figurines is not None else _random_mat(state, rng)
    close = [p for p in state.players if state.can_win_next(p)]
    if close and rng.random() < _AIM:
        aimed = rng.sample(close, min(len(close), rng.choice((1, 1, 1, 2))))
        for _ in range(5):
            event = _aimed_round(state, mat, aimed, rng)
            if event is not None:
                return event
    return _free_round(state.players, mat, rng)


def _random_mat(state: State, rng: random.Random) -> tuple[str, ...]:
    """Without a fixed mat, usually keep the last one; sometimes pick another legal one."""
    if state.results and rng.random() < 0.9:
        return state.mat()
    extra = rng.sample(["cream", "cream", "grey", "grey"], len(state.players) - 2)
    return _sorted_moths(["harry", *extra, "lamp"])


def _deal(pool: Counter[str], count: int, rng: random.Random) -> list[str]:
    """``count`` random cards taken out of ``pool``."""
    cards = rng.sample(list(pool.elements()), count)
    pool.subtract(cards)
    return cards


def _take(pool: Counter[str], kind: str, count: int) -> list[str]:
    pool[kind] -= count
    return [kind] * count


def _free_round(players: tuple[str, ...], mat: tuple[str, ...], rng: random.Random) -> JSON:
    pool: Counter[str] = Counter(DECK)
    hands: dict[str, list[str]] = {}
    holders = rng.sample(players, 2 if len(players) > 2 and rng.random() < 0.15 else 1)
    for holder in holders:
        kinds = [k for k in KINDS if pool[k] + pool[WILD] >= SET_SIZE and pool[k] > 0]
        weights = [_SET_WEIGHTS[KINDS.index(k)] for k in kinds]
        kind = rng.choices(kinds, weights)[0]
        wild = rng.randint(max(0, SET_SIZE - pool[kind]), min(pool[WILD], SET_SIZE - 1))
        if rng.random() < 0.6:
            wild = max(0, SET_SIZE - pool[kind])  # mostly real four of a kind
        hand = _take(pool, kind, SET_SIZE - wild) + _take(pool, WILD, wild)
        hand += _deal(pool, rng.randint(0, 1), rng)
        rng.shuffle(hand)
        hands[holder] = hand
    for player in players:
        if player not in hands:
            hands[player] = _deal(pool, rng.choice((4, 4, 5)), rng)
    moths = list(mat)
    rng.shuffle(moths)
    return {
        "type": "round",
        "hands": {p: hands[p] for p in players},
        "moths": dict(zip(players, moths, strict=True)),
    }


def _aimed_round(
    state: State, mat: tuple[str, ...], aimed: list[str], rng: random.Random
) -> JSON | None:
    """A round in which every ``aimed`` player ends on exactly 11, or ``None``."""
    pool: Counter[str] = Counter(DECK)
    moths_left = list(mat)
    hands: dict[str, list[str]] = {}
    moths: dict[str, str] = {}
    for player in aimed:
        options = []
        for moth in dict.fromkeys(moths_left):  # not a set: seeds must replay alike
            for harry_set in (False, True):
                if harry_set and pool["harry"] < SET_SIZE:
                    continue
                for devil in range(0, min(3, pool["devil"]) + 1):
                    for lamp in range(0, min(4, pool["lamp"]) + 1):
                        size = devil + lamp + (SET_SIZE if harry_set else 0)
                        points = MOTH_VALUES[moth] + HARRY_BONUS * harry_set - devil - lamp
                        if size <= MAX_HAND and points == state.to_win(player):
                            options.append((moth, harry_set, devil, lamp))
        if not options:
            return None
        moth, harry_set, devil, lamp = rng.choice(options)
        moths_left.remove(moth)
        moths[player] = moth
        hand = _take(pool, "devil", devil) + _take(pool, "lamp", lamp)
        if harry_set:
            hand += _take(pool, "harry", SET_SIZE)
        elif len(hand) <= 1 and rng.random() < 0.5:
            # A neutral set: it scores nothing but ends the round.
            kind = rng.choice([k for k in _NEUTRAL if pool[k] == SET_SIZE])
            hand += _take(pool, kind, SET_SIZE)
        else:
            # Filler that cannot score: no harry, devil, lamp or everyone.
            neutral: Counter[str] = Counter({k: pool[k] for k in _NEUTRAL})
            fill = _deal(neutral, max(0, rng.choice((4, 5)) - len(hand)), rng)
            pool.subtract(fill)
            hand += fill
        rng.shuffle(hand)
        hands[player] = hand
    others = [p for p in state.players if p not in hands]
    if not any(set_kind(h) for h in hands.values()):
        if not others:
            return None
        holder = rng.choice(others)
        kind = rng.choice([k for k in _NEUTRAL if pool[k] == SET_SIZE])
        hands[holder] = _take(pool, kind, SET_SIZE)
    for player in others:
        if player not in hands:
            hands[player] = _deal(pool, rng.choice((4, 4, 5)), rng)
    rng.shuffle(moths_left)
    moths.update(zip(others, moths_left, strict=True))
    event: JSON = {
        "type": "round",
        "hands": {p: hands[p] for p in state.players},
        "moths": {p: moths[p] for p in state.players},
    }
    # Another hand may hold a devil set by chance, which would reset everyone.
    after = RULES.play(state, event)[1]
    return event if set(aimed) <= set(after.winners) else None
