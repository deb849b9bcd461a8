"""Collector: play a card against a Target Number and collect high cards.

A standard 52-card deck. Four cards start face up as Target Numbers; each
player holds 10. On a turn a player plays a card from hand next to a target
and the comparison of the two numbers decides what happens (see
``docs/rulings/collector.md`` and the contract's Collector section).

Hands and the deck are hidden, so the state tracks them as counts only, plus
the set of every card already *seen* (targets, played, collected, refilled,
revealed): since every card is unique, none of those can turn up again.

>>> from companion.games.match import Match
>>> m = Match({"type": "setup", "game": "collector", "players": ["Ann", "Ben"],
...            "targets": ["10H", "5S", "KD", "2C"]})
>>> _ = m.push({"type": "play", "player": "Ann", "target": "10H", "card": "4H",
...             "second": "6S"})
>>> m.state.targets_text()
['5S', 'KD', '2C', '4H', '6S']
>>> m.state.collection("Ann").up
(Card(rank='10', suit='H'),)
>>> for part in m.describe_last().split("; "):
...     print(part)
Ann plays 4H + 6S on 10H (sum 4 + 6 = 10): 10H face up (+10)
4H, 6S stay as targets
Ann 10 pts collected, hand 8
Ben to play
>>> m.turn
'Ben'
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from companion.games.base import Rules, top_players
from companion.games.errors import IllegalEvent, MalformedEvent
from companion.games.fields import (
    JSON,
    RawEvent,
    optional_list,
    require_list,
    require_mapping,
    require_player,
    show,
)

# -- cards --------------------------------------------------------------------

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
_RANK_VALUE = {r: i + 1 for i, r in enumerate(RANKS)}  # A 1 here; value() picks 1 or 14

HAND_SIZE = 10
TARGETS_AT_START = 4
FACE_DOWN_POINTS = 3
CARD_FORM = "a card like AS, 10H, QD (rank A, 2-10, J, Q, K then suit S, H, D, C)"


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card.

    >>> Card.parse("10H")
    Card(rank='10', suit='H')
    >>> str(Card.parse("QD")), Card.parse("QD").value()
    ('QD', 12)
    >>> Card.parse("AS").value(), Card.parse("AS").value(1)
    (14, 1)
    >>> Card.parse("1H")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    companion.games.errors.MalformedEvent: card must be a card like AS, 10H, QD (...), got "1H"
    """

    rank: str
    suit: str

    @staticmethod
    def parse(text: object, what: str = "card") -> Card:
        """The card named ``text``, or :class:`MalformedEvent` naming the valid form."""
        card = _BY_NAME.get(text) if isinstance(text, str) else None
        if card is None:
            raise MalformedEvent(f"{what} must be {CARD_FORM}, got {show(text)}")
        return card

    @property
    def is_ace(self) -> bool:
        return self.rank == "A"

    def value(self, ace_as: int = 14) -> int:
        """The card's number: 2-10, J 11, Q 12, K 13; an Ace counts ``ace_as`` (1 or 14)."""
        return ace_as if self.rank == "A" else _RANK_VALUE[self.rank]

    def __str__(self) -> str:
        return self.rank + self.suit


ALL_CARDS: tuple[Card, ...] = tuple(Card(r, s) for s in SUITS for r in RANKS)
_BY_NAME: dict[str, Card] = {str(c): c for c in ALL_CARDS}


def _names(cards: Iterable[Card]) -> str:
    """``[AS, 10H]`` for messages."""
    return "[" + ", ".join(str(c) for c in cards) + "]"


def _points(card: Card) -> int:
    """A card's score value: its number, an Ace always 14."""
    return card.value(14)


# -- parameters and state -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Params:
    """The setup: seated players, the four starting targets, who plays first."""

    players: tuple[str, ...]
    targets: tuple[Card, ...]
    first: str


@dataclass(frozen=True, slots=True)
class Collection:
    """One player's collection: the face-up and the face-down pile."""

    up: tuple[Card, ...]
    down: tuple[Card, ...]

    @property
    def points(self) -> int:
        """What the collection scores: face-up cards their number, face-down 3 each."""
        return sum(_points(c) for c in self.up) + FACE_DOWN_POINTS * len(self.down)


@dataclass(frozen=True, slots=True)
class ScoreLine:
    """One player's final score, as the reveal worked it out."""

    face_up: int
    face_down: int
    hand: int
    """The (positive) points lost for cards left in hand."""

    @property
    def total(self) -> int:
        return self.face_up + self.face_down - self.hand


@dataclass(frozen=True, slots=True)
class State:
    """Everything public about a Collector game; hands and deck are counts."""

    params: Params
    targets: tuple[Card, ...]
    face_up: tuple[tuple[Card, ...], ...]
    face_down: tuple[tuple[Card, ...], ...]
    hand_counts: tuple[int, ...]
    deck: int
    seen: frozenset[Card]
    """Every card that has shown itself; none of them can be played again."""
    turn_seat: int | None
    end_reason: str | None = None
    """Why the game ended (awaiting or after the reveal), else ``None``."""
    hands: tuple[tuple[Card, ...], ...] | None = None
    """The revealed hands, once the reveal is in."""
    scores: tuple[ScoreLine, ...] | None = None

    # -- the GameState protocol --

    @property
    def players(self) -> tuple[str, ...]:
        return self.params.players

    @property
    def round(self) -> int:
        return 1

    @property
    def turn(self) -> str | None:
        return None if self.turn_seat is None else self.params.players[self.turn_seat]

    @property
    def finished(self) -> bool:
        return self.scores is not None

    @property
    def ended(self) -> bool:
        """The play is over (a hand ran out or no target is left); the reveal may be pending."""
        return self.end_reason is not None

    @property
    def awaiting_reveal(self) -> bool:
        return self.end_reason is not None and self.scores is None

    @property
    def winners(self) -> tuple[str, ...]:
        if self.scores is None:
            return ()
        return top_players(self.players, self.totals)

    @property
    def round_scores(self) -> tuple[Mapping[str, int], ...]:
        if self.scores is None:
            return ()
        return ({p: s.total for p, s in zip(self.players, self.scores, strict=True)},)

    @property
    def totals(self) -> Mapping[str, int]:
        if self.scores is None:
            return dict.fromkeys(self.players, 0)
        return {p: s.total for p, s in zip(self.players, self.scores, strict=True)}

    def zone_counts(self) -> Mapping[str, int]:
        zones = {"deck": self.deck, "table": len(self.targets)}
        for i, p in enumerate(self.players):
            zones[f"hand:{p}"] = self.hand_counts[i]
            zones[f"up:{p}"] = len(self.face_up[i])
            zones[f"down:{p}"] = len(self.face_down[i])
        return zones

    # -- queries for the phone, board and camera --

    def seat(self, player: str) -> int:
        """The seat index of ``player`` (``IllegalEvent`` if not seated)."""
        try:
            return self.params.players.index(player)
        except ValueError:
            raise IllegalEvent(
                f"{show(player)} is not seated; the players are {', '.join(self.players)}"
            ) from None

    def targets_text(self) -> list[str]:
        """The Target Numbers on the table, as card names, oldest first."""
        return [str(c) for c in self.targets]

    def collection(self, player: str) -> Collection:
        """``player``'s face-up and face-down piles."""
        i = self.seat(player)
        return Collection(self.face_up[i], self.face_down[i])

    def hand_count(self, player: str) -> int:
        """How many cards ``player`` holds."""
        return self.hand_counts[self.seat(player)]

    def unseen(self) -> tuple[Card, ...]:
        """The cards not seen yet (in some hand or in the deck), in deck order AS..KC."""
        return tuple(c for c in ALL_CARDS if c not in self.seen)

    def where(self, card: Card) -> str | None:
        """Where a seen card lies, in words (``None`` if it has not been seen)."""
        if card not in self.seen:
            return None
        if card in self.targets:
            return "it is a Target Number on the table"
        for i, p in enumerate(self.players):
            if card in self.face_up[i]:
                return f"it is face up in {p}'s collection"
            if card in self.face_down[i]:
                return f"it is face down in {p}'s collection"
            if self.hands is not None and card in self.hands[i]:
                return f"it was revealed in {p}'s hand"
        return "it has already been seen"

    def score_breakdown(self) -> dict[str, ScoreLine] | None:
        """Each player's score parts after the reveal; ``None`` before it."""
        if self.scores is None:
            return None
        return dict(zip(self.players, self.scores, strict=True))


# -- events -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayEvent:
    """``player`` plays ``card`` (and maybe ``second``) against ``target``."""

    player: str
    target: Card
    card: Card
    second: Card | None = None
    flip: Card | None = None
    refill: tuple[Card, ...] = ()
    aces: tuple[tuple[Card, int], ...] = ()
    """Ace -> 1 or 14 for Aces in the play; an Ace not listed counts 14."""
    type: ClassVar[str] = "play"

    def ace_values(self) -> dict[Card, int]:
        return dict(self.aces)

    def to_json(self) -> JSON:
        out: JSON = {
            "type": "play",
            "player": self.player,
            "target": str(self.target),
            "card": str(self.card),
        }
        if self.second is not None:
            out["second"] = str(self.second)
        if self.flip is not None:
            out["flip"] = str(self.flip)
        if self.refill:
            out["refill"] = [str(c) for c in self.refill]
        if self.aces:
            out["aces"] = {str(c): v for c, v in self.aces}
        return out


@dataclass(frozen=True, slots=True)
class RevealEvent:
    """The end of the game: every player's remaining hand, in seating order."""

    hands: tuple[tuple[str, tuple[Card, ...]], ...]
    type: ClassVar[str] = "reveal"

    def to_json(self) -> JSON:
        return {"type": "reveal", "hands": {p: [str(c) for c in cs] for p, cs in self.hands}}


Event = PlayEvent | RevealEvent


# -- what a play does ---------------------------------------------------------

SUM = "sum"
HALF = "half"
LOWER = "lower"
SUIT = "one-higher-same-suit"
ONE_HIGHER = "one-higher"
DOUBLE = "more-than-double"
EQUAL = "equal"
DRAW = "draw"
NOTHING = "no-effect"

KIND_LABELS: dict[str, str] = {
    SUM: "sum",
    HALF: "exactly half",
    LOWER: "lower",
    SUIT: "one higher, same suit",
    ONE_HIGHER: "one higher, other suit",
    DOUBLE: "more than double",
    EQUAL: "equal",
    DRAW: "no match",
    NOTHING: "no match, deck empty",
}
"""Every outcome kind with its words for people."""


def classify(t: int, x: int, y: int | None = None, same_suit: bool = False) -> str | None:
    """The outcome kind for target value ``t``, card ``x`` and optional second ``y``.

    The conditions are disjoint: lower / equal / higher split on ``x`` vs
    ``t``, and "exactly 1 higher" (x = t + 1) never exceeds 2t since t >= 1.
    ``None`` when a second card is given that does not make the sum.
    "No match" is reported as :data:`DRAW`; whether the deck allows the draw
    is the state's business.

    >>> classify(10, 4, 6), classify(10, 5), classify(10, 3), classify(1, 2)
    ('sum', 'half', 'lower', 'one-higher')
    >>> classify(4, 9), classify(7, 7), classify(5, 8), classify(10, 4, 5)
    ('more-than-double', 'equal', 'draw', None)
    """
    if y is not None:
        return SUM if x < t and x + y == t else None
    if x < t:
        return HALF if 2 * x == t else LOWER
    if x == t:
        return EQUAL
    if x == t + 1:
        return SUIT if same_suit else ONE_HIGHER
    if x > 2 * t:
        return DOUBLE
    return DRAW


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a play does, worked out before it is made (the phone's preview)."""

    kind: str
    player: str
    target: Card
    card: Card
    second: Card | None
    target_value: int
    card_value: int
    second_value: int | None
    to_face_up: tuple[Card, ...]
    """Cards that go to the player's face-up pile (the target, an equal card)."""
    to_face_down: tuple[Card, ...]
    stay: tuple[Card, ...]
    """Played cards that stay on the table as new Target Numbers."""
    flip: bool
    """The player must turn one face-down card of the collection face up first."""
    draws: int
    refill: int
    """How many cards are dealt from the deck onto the table afterwards."""
    ends: bool
    """The play ends the game (last card of the hand, or no target left)."""

    @property
    def label(self) -> str:
        return KIND_LABELS[self.kind]

    def explain(self) -> str:
        """One line for people: ``5D on 10H: exactly half; 10H face down; ...``."""
        played = _play_words(self.card, self.card_value, self.second, self.second_value)
        parts = [f"{played} on {_value_words(self.target, self.target_value)}: {self.label}"]
        parts.extend(_consequences(self))
        return "; ".join(parts)


def _value_words(card: Card, value: int) -> str:
    """``AS as 1`` for an Ace, else the card name."""
    return f"{card} as {value}" if card.is_ace else str(card)


def _play_words(card: Card, x: int, second: Card | None, y: int | None) -> str:
    if second is None or y is None:
        return _value_words(card, x)
    return f"{_value_words(card, x)} + {_value_words(second, y)}"


def _consequences(o: Outcome) -> list[str]:
    """The effects of an outcome in words, for ``explain`` and ``describe``."""
    out: list[str] = []
    if o.flip:
        out.append("turn one face-down card face up")
    if o.to_face_up:
        out.append(f"{' and '.join(str(c) for c in o.to_face_up)} face up")
    if o.to_face_down:
        out.append(f"{' and '.join(str(c) for c in o.to_face_down)} face down")
    if o.stay:
        out.append(_stay_words(o.stay))
    if o.draws:
        out.append("draw 1 card")
    if o.refill:
        out.append(f"refill {o.refill} target{'s' if o.refill > 1 else ''} from the deck")
    if o.ends:
        out.append("the game ends")
    return out


def _stay_words(stay: tuple[Card, ...]) -> str:
    """``4H, 6S stay as targets``."""
    if len(stay) == 1:
        return f"{stay[0]} stays as target"
    return f"{', '.join(str(c) for c in stay)} stay as targets"


def _ace_hint(cards: Iterable[Card | None]) -> str:
    aces = [str(c) for c in cards if c is not None and c.is_ace]
    if not aces:
        return ""
    return f" (an Ace counts 14 unless 'aces' gives 1: {', '.join(aces)})"


def _judge(
    state: State, seat: int, target: Card, card: Card, second: Card | None,
    aces: Mapping[Card, int],
) -> Outcome:
    """Check a play against the rules (not the turn) and work out its outcome."""
    player = state.players[seat]
    if target not in state.targets:
        raise IllegalEvent(
            f"{target} is not a Target Number on the table; the targets are "
            f"{_names(state.targets)}"
        )
    for c, what in ((card, "card"), (second, "second card")):
        if c is None:
            continue
        where = state.where(c)
        if where is not None:
            raise IllegalEvent(
                f"{c} cannot be played as the {what}: {where} (every card is unique); "
                f"play a card from {player}'s hand"
            )
    if second is not None:
        if second == card:
            raise IllegalEvent(f"the second card must be another card than {card}")
        if state.hand_counts[seat] < 2:
            raise IllegalEvent(
                f"{player} has only {state.hand_counts[seat]} card in hand and cannot play "
                "a second card; play one card"
            )
    in_play = {target, card} if second is None else {target, card, second}
    for ace in aces:
        if ace not in in_play:
            raise IllegalEvent(
                f"'aces' names {ace}, which is not in this play; only the target, the card "
                f"and the second card may be given a value ({_names(c for c in in_play)})"
            )
    t = target.value(aces.get(target, 14))
    x = card.value(aces.get(card, 14))
    y = None if second is None else second.value(aces.get(second, 14))
    kind = classify(t, x, y, card.suit == target.suit)
    if kind is None:
        assert second is not None and y is not None  # classify says None only then
        why = (
            f"{card} ({x}) is not lower than {target} ({t})" if x >= t
            else f"{x} + {y} = {x + y}, not {t}"
        )
        raise IllegalEvent(
            "a second card may be played only when the card is lower than the target and "
            f"the two add up to it: {why}{_ace_hint((target, card, second))}"
        )
    up: tuple[Card, ...] = ()
    down: tuple[Card, ...] = ()
    stay: tuple[Card, ...] = (card,) if second is None else (card, second)
    draws = refill = 0
    played = 1 if second is None else 2
    if kind in (SUM, SUIT, DOUBLE):
        up = (target,)
    elif kind in (HALF, LOWER, ONE_HIGHER):
        down = (target,)
    elif kind == EQUAL:
        up, stay = (target, card), ()
        # The table lost the target; refill it back up to 4 while the deck lasts.
        refill = min(max(0, TARGETS_AT_START - (len(state.targets) - 1)), state.deck)
    elif state.deck > 0:
        draws = 1
    else:
        kind = NOTHING
    flip = kind == HALF and bool(state.face_down[seat])
    hand_left = state.hand_counts[seat] - played + draws
    targets_left = len(state.targets) - (1 if up or down else 0) + len(stay) + refill
    return Outcome(
        kind=kind, player=player, target=target, card=card, second=second,
        target_value=t, card_value=x, second_value=y, to_face_up=up, to_face_down=down,
        stay=stay, flip=flip, draws=draws, refill=refill,
        ends=hand_left == 0 or targets_left == 0,
    )


def _as_card(value: Card | str, what: str) -> Card:
    return value if isinstance(value, Card) else Card.parse(value, what)


def _as_aces(aces: Mapping[Card, int] | Mapping[str, int] | None) -> dict[Card, int]:
    out: dict[Card, int] = {}
    for key, v in (aces or {}).items():
        card = _as_card(key, "an 'aces' key")
        if not card.is_ace or isinstance(v, bool) or v not in (1, 14):
            raise MalformedEvent(f"'aces' maps Aces to 1 or 14, got {card}: {show(v)}")
        out[card] = v
    return out


def outcome(
    state: State,
    player: str,
    target: Card | str,
    card: Card | str,
    second: Card | str | None = None,
    aces: Mapping[Card, int] | Mapping[str, int] | None = None,
) -> Outcome:
    """What ``player`` playing ``card`` (+ ``second``) on ``target`` would do.

    Raises :class:`IllegalEvent` when the play is against the rules (the turn
    is not checked, so a phone may preview for anyone).

    >>> s = RULES.new_state({"type": "setup", "game": "collector", "players": ["Ann", "Ben"],
    ...                      "targets": ["10H", "5S", "KD", "AC"]})
    >>> outcome(s, "Ann", "10H", "5D").explain()
    '5D on 10H: exactly half; 10H face down; 5D stays as target'
    >>> outcome(s, "Ann", "AC", "2C", aces={"AC": 1}).label
    'one higher, same suit'
    >>> outcome(s, "Ann", "5S", "5H").to_face_up
    (Card(rank='5', suit='S'), Card(rank='5', suit='H'))
    """
    if state.ended:
        raise IllegalEvent(f"the game has ended ({state.end_reason}); no more plays")
    return _judge(
        state, state.seat(player), _as_card(target, "target"), _as_card(card, "card"),
        None if second is None else _as_card(second, "second"), _as_aces(aces),
    )


def ace_choice_matters(
    state: State, target: Card | str, card: Card | str, second: Card | str | None = None
) -> bool:
    """Whether counting an Ace in this play as 1 or as 14 changes what happens.

    The phone asks "Ace as 1 or 14?" only then. A second card that makes the
    sum with one value and not with the other counts as mattering. Only the
    cards' values decide; ``state`` keeps the signature alike the other queries.

    >>> s = RULES.new_state({"type": "setup", "game": "collector", "players": ["Ann", "Ben"],
    ...                      "targets": ["10H", "5S", "KD", "AC"]})
    >>> ace_choice_matters(s, "10H", "AS")  # 1 is lower (face down), 14 is no match
    True
    >>> ace_choice_matters(s, "KD", "AD")   # 1 lower, 14 one higher same suit
    True
    >>> ace_choice_matters(s, "10H", "4H")
    False
    """
    t, x = _as_card(target, "target"), _as_card(card, "card")
    y = None if second is None else _as_card(second, "second")
    cards = [c for c in (t, x, y) if c is not None and c.is_ace]
    if not cards:
        return False
    kinds = set()
    for values in itertools.product((1, 14), repeat=len(cards)):
        v = dict(zip(cards, values, strict=True))
        tv, xv = t.value(v.get(t, 14)), x.value(v.get(x, 14))
        yv = None if y is None else y.value(v.get(y, 14))
        kinds.add(classify(tv, xv, yv, t.suit == x.suit))
    return len(kinds) > 1


# -- the engine ---------------------------------------------------------------


class CollectorRules(Rules[State, Event]):
    """Collector's rules as a pure fold over table events."""

    id = "collector"
    title = "Collector"
    min_players = 2
    max_players = 4
    event_types = ("play", "reveal")

    def start(self, players: tuple[str, ...], setup: RawEvent) -> State:
        raw = require_list(setup, "targets")
        targets = tuple(Card.parse(v, "each setup 'targets' entry") for v in raw)
        if len(targets) != TARGETS_AT_START or len(set(targets)) != TARGETS_AT_START:
            raise MalformedEvent(
                f"setup 'targets' must be {TARGETS_AT_START} distinct cards (the face-up Target "
                f"Numbers), got {show(raw)}"
            )
        first = players[0] if setup.get("first") is None else require_player(
            setup, players, "first"
        )
        n = len(players)
        return State(
            params=Params(players, targets, first),
            targets=targets,
            face_up=((),) * n,
            face_down=((),) * n,
            hand_counts=(HAND_SIZE,) * n,
            deck=len(ALL_CARDS) - TARGETS_AT_START - HAND_SIZE * n,
            seen=frozenset(targets),
            turn_seat=players.index(first),
        )

    def parse_event(self, raw: RawEvent, state: State) -> Event:
        if raw["type"] == "reveal":
            return self._parse_reveal(raw, state)
        player = require_player(raw, state.players)
        target = Card.parse(raw.get("target"), "field 'target'")
        card = Card.parse(raw.get("card"), "field 'card'")
        second = None if raw.get("second") is None else Card.parse(raw["second"], "field 'second'")
        flip = None if raw.get("flip") is None else Card.parse(raw["flip"], "field 'flip'")
        refill = tuple(
            Card.parse(v, "each 'refill' entry") for v in optional_list(raw, "refill")
        )
        aces: list[tuple[Card, int]] = []
        if raw.get("aces") is not None:
            for key, value in require_mapping(raw, "aces").items():
                ace = Card.parse(key, "each 'aces' key")
                if not ace.is_ace:
                    raise MalformedEvent(
                        f"'aces' keys must be Aces (AS, AH, AD, AC), got {show(key)}"
                    )
                if isinstance(value, bool) or not isinstance(value, int) or value not in (1, 14):
                    raise MalformedEvent(
                        f"'aces' gives each Ace the value 1 or 14, got {show(value)} for {ace}"
                    )
                aces.append((ace, value))
        aces.sort(key=lambda a: ALL_CARDS.index(a[0]))
        return PlayEvent(player, target, card, second, flip, refill, tuple(aces))

    @staticmethod
    def _parse_reveal(raw: RawEvent, state: State) -> RevealEvent:
        hands = require_mapping(raw, "hands")
        for name in hands:
            if name not in state.players:
                raise MalformedEvent(
                    f"'hands' names {show(name)}, who is not seated; expected every one of "
                    f"{', '.join(state.players)}"
                )
        out: list[tuple[str, tuple[Card, ...]]] = []
        for p in state.players:
            if p not in hands:
                raise MalformedEvent(
                    f"'hands' must list every player's remaining cards; {p} is missing"
                )
            cards = hands[p]
            if not isinstance(cards, list):
                raise MalformedEvent(
                    f"'hands' maps each player to a list of cards; {p} has {show(cards)}"
                )
            out.append((p, tuple(Card.parse(v, f"each card in {p}'s hand") for v in cards)))
        return RevealEvent(tuple(out))

    def apply(self, state: State, event: Event) -> State:
        if isinstance(event, RevealEvent):
            return self._reveal(state, event)
        return self._play(state, event)

    def _play(self, state: State, ev: PlayEvent) -> State:
        if state.turn_seat is None:
            raise IllegalEvent(
                f"the game has ended ({state.end_reason}); only the 'reveal' of every hand "
                "is accepted now"
            )
        seat = state.turn_seat
        if ev.player != state.players[seat]:
            raise IllegalEvent(f"it is {state.players[seat]}'s turn, not {ev.player}'s")
        o = _judge(state, seat, ev.target, ev.card, ev.second, ev.ace_values())
        down_pile = state.face_down[seat]
        up_pile = state.face_up[seat]
        if ev.flip is not None:
            if o.kind != HALF:
                raise IllegalEvent(
                    f"'flip' is only for a card exactly half the target; this play is "
                    f"{o.label}, so leave 'flip' out"
                )
            if ev.flip not in down_pile:
                have = f"one of {_names(down_pile)}" if down_pile else "nothing: there is none"
                raise IllegalEvent(
                    f"'flip' must name one of {ev.player}'s face-down cards: {have}, "
                    f"not {ev.flip}"
                )
        elif o.flip:
            raise IllegalEvent(
                f"{ev.card} is exactly half of {ev.target}: {ev.player} must turn one "
                f"face-down card face up first; give 'flip' as one of {_names(down_pile)}"
            )
        if ev.refill and o.kind != EQUAL:
            raise IllegalEvent(
                f"'refill' is only for an equal card (the targets are then refilled); this "
                f"play is {o.label}, so leave 'refill' out"
            )
        seen = state.seen | {ev.card} if ev.second is None else state.seen | {ev.card, ev.second}
        if len(ev.refill) != o.refill:
            raise IllegalEvent(
                f"'refill' must list exactly {o.refill} card{'s' if o.refill != 1 else ''} "
                f"(targets back up to {TARGETS_AT_START} while the deck of {state.deck} lasts), "
                f"got {len(ev.refill)}"
            )
        for i, c in enumerate(ev.refill):
            if c in seen:
                where = state.where(c) or (
                    "it is listed twice in 'refill'" if c in ev.refill[:i]
                    else "it is played in this very play"
                )
                raise IllegalEvent(
                    f"{c} cannot come from the deck as a refill: {where} (every card is unique)"
                )
            seen = seen | {c}
        if ev.flip is not None:
            down_pile = tuple(c for c in down_pile if c != ev.flip)
            up_pile = (*up_pile, ev.flip)
        targets = state.targets
        if o.to_face_up or o.to_face_down:
            targets = tuple(c for c in targets if c != ev.target)
        targets = targets + o.stay + ev.refill
        hand = state.hand_counts[seat] - (1 if ev.second is None else 2) + o.draws
        end_reason: str | None = None
        if hand == 0:
            end_reason = f"{ev.player} played the last card of the hand"
        elif not targets:
            end_reason = "no Target Number is left"
        return dataclasses.replace(
            state,
            targets=targets,
            face_up=_set(state.face_up, seat, up_pile + o.to_face_up),
            face_down=_set(state.face_down, seat, down_pile + o.to_face_down),
            hand_counts=_set(state.hand_counts, seat, hand),
            deck=state.deck - o.draws - o.refill,
            seen=seen,
            turn_seat=None if end_reason else (seat + 1) % len(state.players),
            end_reason=end_reason,
        )

    def _reveal(self, state: State, ev: RevealEvent) -> State:
        if state.end_reason is None:
            raise IllegalEvent(
                "the game has not ended: the reveal comes once a player has played the last "
                f"card of the hand or no Target Number is left; it is {state.turn}'s turn to play"
            )
        seen = set(state.seen)
        owner: dict[Card, str] = {}
        for i, (p, cards) in enumerate(ev.hands):
            if len(cards) != state.hand_counts[i]:
                raise IllegalEvent(
                    f"{p} has {state.hand_counts[i]} card{'s' if state.hand_counts[i] != 1 else ''}"
                    f" in hand, but the reveal lists {len(cards)}; list exactly those cards"
                )
            for c in cards:
                if c in owner:
                    raise IllegalEvent(
                        f"{c} is listed twice (in {owner[c]}'s and {p}'s hands); every card "
                        "is unique"
                    )
                if c in seen:
                    raise IllegalEvent(
                        f"{c} cannot be in {p}'s hand: {state.where(c)} (every card is unique)"
                    )
                owner[c] = p
        seen.update(owner)
        hands = tuple(cards for _, cards in ev.hands)
        scores = tuple(
            ScoreLine(
                face_up=sum(_points(c) for c in state.face_up[i]),
                face_down=FACE_DOWN_POINTS * len(state.face_down[i]),
                hand=sum(_points(c) for c in hands[i]),
            )
            for i in range(len(state.players))
        )
        return dataclasses.replace(state, seen=frozenset(seen), hands=hands, scores=scores)

    # -- people --

    def describe(self, before: State, event: Event, after: State) -> str:
        if isinstance(event, RevealEvent):
            lines = []
            assert after.scores is not None  # a reveal always scores
            for (p, cards), s in zip(event.hands, after.scores, strict=True):
                lines.append(
                    f"{p} {s.face_up} up + {s.face_down} down - {s.hand} in hand "
                    f"{_names(cards)} = {s.total}"
                )
            won = " and ".join(after.winners)
            verb = "share the win" if len(after.winners) > 1 else "wins"
            return f"Hands revealed: {'; '.join(lines)}. {won} {verb}"
        seat = before.players.index(event.player)
        o = _judge(before, seat, event.target, event.card, event.second, event.ace_values())
        played = _play_words(event.card, o.card_value, event.second, o.second_value)
        head = f"{event.player} plays {played} on {_value_words(event.target, o.target_value)}"
        if o.kind == SUM:
            head += f" (sum {o.card_value} + {o.second_value} = {o.target_value})"
        else:
            head += f" ({o.label})"
        gained = (
            Collection(after.face_up[seat], after.face_down[seat]).points
            - Collection(before.face_up[seat], before.face_down[seat]).points
        )
        parts: list[str] = []
        if event.flip is not None:
            parts.append(f"turns {event.flip} face up")
        if o.to_face_up:
            parts.append(f"{' and '.join(str(c) for c in o.to_face_up)} face up")
        if o.to_face_down:
            parts.append(f"{' and '.join(str(c) for c in o.to_face_down)} face down")
        if parts:
            parts[-1] += f" (+{gained})"
        if o.stay:
            parts.append(_stay_words(o.stay))
        if event.refill:
            parts.append(f"refill {', '.join(str(c) for c in event.refill)}")
        elif o.kind == EQUAL and len(after.targets) < TARGETS_AT_START:
            parts.append("no refill (deck empty)")
        if o.kind == DRAW:
            parts.append(f"draws 1 (deck {after.deck})")
        elif o.kind == NOTHING:
            parts.append("deck empty, no draw")
        pts = Collection(after.face_up[seat], after.face_down[seat]).points
        parts.append(f"{event.player} {pts} pts collected, hand {after.hand_counts[seat]}")
        if after.end_reason is not None:
            parts.append(f"game ends: {after.end_reason}; reveal the hands")
        else:
            parts.append(f"{after.turn} to play")
        return f"{head}: {'; '.join(parts)}"

    def extras(self, state: State) -> JSON:
        breakdown = state.score_breakdown()
        return {
            "targets": state.targets_text(),
            "collections": {
                p: {
                    "up": [str(c) for c in state.face_up[i]],
                    "down": [str(c) for c in state.face_down[i]],
                }
                for i, p in enumerate(state.players)
            },
            "collected_points": {
                p: Collection(state.face_up[i], state.face_down[i]).points
                for i, p in enumerate(state.players)
            },
            "hand_counts": dict(zip(state.players, state.hand_counts, strict=True)),
            "deck": state.deck,
            "first": state.params.first,
            "awaiting_reveal": state.awaiting_reveal,
            "end_reason": state.end_reason,
            "hands": None if state.hands is None else {
                p: [str(c) for c in cs] for p, cs in zip(state.players, state.hands, strict=True)
            },
            "scores": None if breakdown is None else {
                p: {"face_up": s.face_up, "face_down": s.face_down, "hand": s.hand,
                    "total": s.total}
                for p, s in breakdown.items()
            },
        }

    # -- playouts --

    def random_event(self, state: State, rng: random.Random) -> JSON:
        unseen = list(state.unseen())
        if state.turn_seat is None:
            # Deal the hidden cards out: any split of the unseen cards is consistent.
            rng.shuffle(unseen)
            hands: JSON = {}
            for i, p in enumerate(state.players):
                hands[p] = [str(c) for c in unseen[: state.hand_counts[i]]]
                unseen = unseen[state.hand_counts[i]:]
            return {"type": "reveal", "hands": hands}
        seat = state.turn_seat
        player = state.players[seat]
        # Every unseen card is equally likely to be anywhere hidden, so a uniform
        # sample is a consistent guess at this player's hand.
        hand = rng.sample(unseen, state.hand_counts[seat])
        by_value: dict[int, list[Card]] = {}
        for c in hand:
            for v in (1, 14) if c.is_ace else (c.value(),):
                by_value.setdefault(v, []).append(c)
        by_kind: dict[str, list[tuple[Card, Card, Card | None, dict[Card, int]]]] = {}
        for target in state.targets:
            for card in hand:
                for aces in _ace_choices(target, card):
                    t, x = target.value(aces.get(target, 14)), card.value(aces.get(card, 14))
                    kind = classify(t, x, None, target.suit == card.suit)
                    assert kind is not None
                    by_kind.setdefault(kind, []).append((target, card, None, aces))
                    # A second card worth t - x (an Ace as 1 or 14 as needed) makes a sum.
                    for second in by_value.get(t - x, []) if x < t else []:
                        if second is not card:
                            both = aces | ({second: t - x} if second.is_ace else {})
                            by_kind.setdefault(SUM, []).append((target, card, second, both))
        kind = rng.choice(sorted(by_kind))
        t_pick, x_pick, y_pick, aces = rng.choice(by_kind[kind])
        o = _judge(state, seat, t_pick, x_pick, y_pick, aces)
        event: JSON = {"type": "play", "player": player, "target": str(t_pick),
                       "card": str(x_pick)}
        if y_pick is not None:
            event["second"] = str(y_pick)
        if o.flip:
            event["flip"] = str(rng.choice(state.face_down[seat]))
        if o.refill:
            deck_cards = [c for c in unseen if c not in hand]
            event["refill"] = [str(c) for c in rng.sample(deck_cards, o.refill)]
        shown = {str(c): v for c, v in aces.items() if v == 1 or rng.random() < 0.5}
        if shown:
            event["aces"] = shown
        return event


def _ace_choices(target: Card, card: Card) -> list[dict[Card, int]]:
    """Every assignment of 1/14 to the Aces among the two cards."""
    aces = [c for c in (target, card) if c.is_ace]
    return [dict(zip(aces, vs, strict=True)) for vs in itertools.product((1, 14), repeat=len(aces))]


T = TypeVar("T")


def _set(items: tuple[T, ...], i: int, value: T) -> tuple[T, ...]:
    """``items`` with position ``i`` replaced: states stay immutable."""
    return (*items[:i], value, *items[i + 1:])


def random_setup(rng: random.Random, players: list[str]) -> JSON:
    """A valid random ``setup``: shuffled targets, sometimes a ``first`` player.

    >>> e = random_setup(random.Random(1), ["Ann", "Ben"])
    >>> e["game"], len(e["targets"])
    ('collector', 4)
    """
    event: JSON = {
        "type": "setup",
        "game": "collector",
        "players": list(players),
        "targets": [str(c) for c in rng.sample(ALL_CARDS, TARGETS_AT_START)],
    }
    if rng.random() < 0.5:
        event["first"] = rng.choice(players)
    return event


RULES = CollectorRules()

__all__ = [
    "ALL_CARDS",
    "KIND_LABELS",
    "RULES",
    "Card",
    "Collection",
    "CollectorRules",
    "Outcome",
    "Params",
    "PlayEvent",
    "RevealEvent",
    "ScoreLine",
    "State",
    "ace_choice_matters",
    "classify",
    "outcome",
    "random_setup",
]
