"""Game adapters: stable table-state changes into table events for the engines.

An adapter owns no rules: it proposes the event the camera saw to the
match, and the engine judges it. A refused reading becomes a warning for
the dashboard (and a question for the phone), never a score.

Star Catcher: a new card in the centre is the current player's play; the
cards that leave the centre together with it are its catch. A played card
still on the table when the next card arrives was not a catch. The first
four cards of a round are the ``table`` deal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from companion.games.errors import TableEventError
from companion.games.match import Match
from vision.tracker import Change, TableCard, TableState

JSON = dict[str, Any]


@dataclass
class StarCatcherAdapter:
    """Turns what the camera sees in the centre zone into ``table`` and ``play`` events."""

    match: Match
    zone: str = "centre"
    warnings: list[str] = field(default_factory=list)
    centre: dict[int, TableCard] = field(default_factory=dict)
    pending: TableCard | None = None
    _stale: set[int] = field(default_factory=set)  # tracks left over from an earlier round

    def _push(self, event: JSON) -> list[JSON]:
        try:
            self.match.push(event)
        except TableEventError as exc:
            self.warnings.append(f"the camera saw {_say(event)}, which the rules refuse: {exc}")
            return []
        return [event]

    def _needs_table(self) -> bool:
        summary = self.match.summary()
        return not summary["finished"] and not summary.get("table_dealt", True)

    def on_change(self, change: Change) -> list[JSON]:
        """The events one stable change implies (already applied to the match)."""
        if self.match.finished:
            return []
        added_tracks = {c.track for c in change.added}
        removed_tracks = {c.track for c in change.removed}
        events: list[JSON] = []
        for c in change.removed:
            if c.track not in added_tracks:
                self.centre.pop(c.track, None)
        arrived: list[TableCard] = []
        for c in change.added:
            if c.zone != self.zone:
                continue
            if c.track in removed_tracks:  # the same card, read better now
                self.centre[c.track] = c
                if self.pending is not None and self.pending.track == c.track:
                    self.pending = c
                continue
            self.centre[c.track] = c
            arrived.append(c)
        left = [c for c in change.removed if c.track not in added_tracks and c.zone == self.zone]

        if self._needs_table():
            self.pending = None
            return events + self._try_table()
        if self.pending is not None and any(c.track == self.pending.track for c in left):
            events += self._play(self.pending, [c for c in left if c.track != self.pending.track])
            self.pending = None
        elif left:
            self.warnings.append(
                f"{len(left)} card(s) left the table without a card being played; "
                "please enter this play on the phone")
        if arrived:
            if self.pending is not None and self.pending.track in self.centre:
                events += self._play(self.pending, [])  # it stayed: no catch
                self.pending = None
            if len(arrived) > 1:
                self.warnings.append(f"{len(arrived)} cards appeared at once; play one card "
                                     "at a time, or enter the play on the phone")
            else:
                self.pending = arrived[0]
        return events

    def flush(self) -> list[JSON]:
        """The pending play as a no-catch play (the last card of a hand, say)."""
        if self.pending is None or self.pending.track not in self.centre:
            return []
        card, self.pending = self.pending, None
        return self._play(card, [])

    def _try_table(self) -> list[JSON]:
        fresh = [c for n, c in self.centre.items() if n not in self._stale]
        if len(fresh) != 4 or len(self.centre) != 4:
            return []
        if any(c.card is None for c in fresh):
            return []  # wait for a better read
        return self._push({"type": "table", "cards": [c.card for c in fresh]})

    def _play(self, played: TableCard, taken: list[TableCard]) -> list[JSON]:
        player = self.match.turn
        if player is None:
            return []
        if played.card is None or any(c.card is None for c in taken):
            self.warnings.append(f"could not read every card of {player}'s play; "
                                 "please enter it on the phone")
            return []
        event: JSON = {"type": "play", "player": player, "card": played.card,
                       "take": sorted(str(c.card) for c in taken)}
        events = self._push(event)
        if events and self._needs_table():
            # round over: what is left on the table is cleared before the next deal
            self._stale = set(self.centre) - {played.track}
        return events


def _say(event: JSON) -> str:
    if event.get("type") == "play":
        take = event.get("take") or []
        return (f"{event.get('player')} play {event.get('card')}"
                + (f" taking {', '.join(take)}" if take else ""))
    return f"a {event.get('type')} event"


@dataclass
class StarPlusAdapter:
    """Cards put on the current player's points pile (zone ``seat:NAME``) make a play.

    A play may take several cards, put one after the other; it is sent when
    cards arrive on another player's pile, or on :meth:`flush` (the phone's
    "done"). Draws are not visible to the camera: they come from the phone.
    """

    match: Match
    warnings: list[str] = field(default_factory=list)
    pending: list[TableCard] = field(default_factory=list)
    owner: str | None = None

    def on_change(self, change: Change) -> list[JSON]:
        if self.match.finished:
            return []
        removed_tracks = {c.track for c in change.removed}
        events: list[JSON] = []
        for c in change.added:
            if c.track in removed_tracks:  # the same card, read better now
                self.pending = [c if p.track == c.track else p for p in self.pending]
                continue
            owner = _seat(c.zone)
            if owner is None:
                continue
            if self.pending and owner != self.owner:
                events += self.flush()
            if not self.pending:
                if owner != self.match.turn:
                    self.warnings.append(f"a card appeared on {owner}'s pile, but it is "
                                         f"{self.match.turn}'s turn; enter it on the phone")
                    continue
                self.owner = owner
            self.pending.append(c)
        return events

    def flush(self) -> list[JSON]:
        """Send the cards put so far as one play."""
        cards, owner = self.pending, self.owner
        self.pending, self.owner = [], None
        if not cards or owner is None:
            return []
        if any(c.card is None for c in cards):
            self.warnings.append(f"could not read every card of {owner}'s play; "
                                 "please enter it on the phone")
            return []
        event: JSON = {"type": "play", "player": owner, "cards": [str(c.card) for c in cards]}
        try:
            self.match.push(event)
        except TableEventError as exc:
            self.warnings.append(f"the camera saw {owner} play {', '.join(event['cards'])}, "
                                 f"which the rules refuse: {exc}")
            return []
        return [event]


@dataclass(frozen=True)
class SeatReading:
    """The cards lying in front of one seat: those read, and how many could not be read,
    ``face_down`` of them lying face down."""

    cards: tuple[str, ...]
    unread: int
    face_down: int = 0

    def notes(self, player: str) -> list[str]:
        """What the phone says about the cards not read, in plain words.

        >>> SeatReading(("fox",), 3, 1).notes("Ben")
        ["2 cards in Ben's area could not be read: show them flat or tap them in", \
"1 card in Ben's area lies face down: turn it up or tap it in"]
        """
        sentences = ((self.unread - self.face_down,
                      "{cards} in {player}'s area could not be read: show {them} flat or tap "
                      "{them} in"),
                     (self.face_down,
                      "{cards} in {player}'s area {lie} face down: turn {them} up or tap "
                      "{them} in"))
        return [sentence.format(player=player, cards="1 card" if n == 1 else f"{n} cards",
                                lie="lies" if n == 1 else "lie", them="it" if n == 1 else "them")
                for n, sentence in sentences if n]


def read_seats(state: TableState, players: Sequence[str],
               zone_of: Callable[[tuple[float, float]], str | None] | None = None
               ) -> dict[str, SeatReading]:
    """What lies in front of each seat now, unread cards counted rather than refused (a
    card face down among them).

    ``zone_of`` places each card afresh (a card first seen before the camera knew
    the seats was tracked in another zone); by default a card's tracked zone counts.

    >>> a = TableCard("harry", (10.0, 90.0), ((0, 0),) * 4, "seat:Ann", 1)
    >>> b = TableCard(None, (50.0, 90.0), ((0, 0),) * 4, "seat:Ann", 2)
    >>> c = TableCard("fox", (50.0, 50.0), ((0, 0),) * 4, "centre", 3)
    >>> read_seats(TableState((a, b, c)), ("Ann", "Ben"))
    {'Ann': SeatReading(cards=('harry',), unread=1, face_down=0), \
'Ben': SeatReading(cards=(), unread=0, face_down=0)}
    >>> from vision.tracker import FaceDown
    >>> read_seats(TableState((c,), (FaceDown((90.0, 90.0), "seat:Ben"),)), ("Ann", "Ben"))["Ben"]
    SeatReading(cards=(), unread=1, face_down=1)
    """
    read: dict[str, list[str]] = {p: [] for p in players}
    unread = dict.fromkeys(players, 0)
    face_down = dict.fromkeys(players, 0)

    def owner_of(centre: tuple[float, float], zone: str | None) -> str | None:
        return _seat(zone_of(centre) if zone_of is not None else zone)

    for c in state.cards:
        owner = owner_of(c.centre, c.zone)
        if owner not in read:
            continue
        if c.card is None:
            unread[owner] += 1
        else:
            read[owner].append(c.card)
    for back in state.face_down:
        owner = owner_of(back.centre, back.zone)
        if owner in read:
            unread[owner] += 1
            face_down[owner] += 1
    return {p: SeatReading(tuple(sorted(read[p])), unread[p], face_down[p]) for p in players}



def shown_hands(state: TableState, players: tuple[str, ...]) -> dict[str, list[str]] | None:
    """Every player's cards as shown in front of their seat, or ``None`` if one is unread."""
    seats = read_seats(state, players)
    if any(seat.unread for seat in seats.values()):
        return None
    return {p: list(seat.cards) for p, seat in seats.items()}

@dataclass
class HarryAdapter:
    """Can't Catch Harry: the final hands shown to the camera at the round's end.

    The moths each player grabbed are figurines, not cards: the phone asks for
    them, and :meth:`round_shown` combines both into the ``round`` event.
    """

    match: Match
    warnings: list[str] = field(default_factory=list)

    def round_shown(self, state: TableState, moths: dict[str, str]) -> list[JSON]:
        hands = shown_hands(state, self.match.players)
        if hands is None:
            self.warnings.append("some shown cards could not be read; show them again, "
                                 "one hand per seat, or enter the hands on the phone")
            return []
        event: JSON = {"type": "round", "hands": hands, "moths": dict(moths)}
        try:
            self.match.push(event)
        except TableEventError as exc:
            self.warnings.append(f"the shown hands were refused by the rules: {exc}")
            return []
        return [event]


def _seat(zone: str | None) -> str | None:
    if zone is not None and zone.startswith("seat:"):
        return zone[len("seat:"):]
    return None


@dataclass
class CollectorAdapter:
    """Collector: a card put next to a target, and what leaves the table.

    A played card is matched to the nearest target. The play is settled by
    what the camera sees next: the target leaves (collected; with a second
    card put beside it, that is the ``second``), both leave (equal; the new
    targets dealt next are the ``refill``), or the next card arrives while
    the target is still there (no catch). Aces (1 or 14) and anything the
    camera cannot settle are resolved by trying every reading on the engine
    and keeping the one whose targets are what the table shows; none or
    several: a question for the phone.
    """

    match: Match
    zone: str = "centre"
    warnings: list[str] = field(default_factory=list)
    centre: dict[int, TableCard] = field(default_factory=dict)
    pending: list[tuple[TableCard, TableCard]] = field(default_factory=list)  # card, target
    equal: tuple[TableCard, TableCard] | None = None
    refill: list[TableCard] = field(default_factory=list)

    def on_change(self, change: Change) -> list[JSON]:
        if self.match.finished:
            return []
        added_tracks = {c.track for c in change.added}
        removed_tracks = {c.track for c in change.removed}
        moved = self._moves(change)
        left = [c for c in change.removed if c.track not in added_tracks
                and c.track not in moved and self.centre.pop(c.track, None) is not None]
        arrived = []
        for c in change.added:
            if c.zone != self.zone or c.track in moved.values():
                continue
            self.centre[c.track] = c
            if c.track in removed_tracks:  # the same card, read better now
                self.pending = [(c if x.track == c.track else x, t if t.track != c.track else c)
                                for x, t in self.pending]
                if any(x.track == c.track for x, _ in self.pending) and self._known(c):
                    # an unread card taken for a play: it was a target laid out, read now
                    self.pending = [(x, t) for x, t in self.pending if x.track != c.track]
            else:
                arrived.append(c)
        events: list[JSON] = []
        if left:
            events += self._settle_removal(left)
        for c in arrived:
            events += self._arrival(c)
        return events

    def _arrival(self, card: TableCard) -> list[JSON]:
        if self.equal is not None:
            self.refill.append(card)
            return self._try_equal()
        events: list[JSON] = []
        if self._known(card):
            return events  # a target the engine already knows (the setup's four, say)
        if card.card is None:
            if not self._missing_targets():  # else: most likely a target it cannot read
                self.warnings.append("could not read the card played; enter the play on "
                                     "the phone")
            return events
        target = self._nearest_target(card)
        if target is None:
            self.warnings.append("a card was played with no target next to it; "
                                 "enter the play on the phone")
            return events
        self.pending.append((card, target))
        # earlier cards whose target is still there and not this card's: they caught nothing
        while len(self.pending) > 1 and self.pending[0][1].track != target.track:
            first = self.pending.pop(0)
            events += self._play(*first)
        return events

    def _moves(self, change: Change) -> dict[int, int]:
        """Cards pushed aside: a read card gone from one place and the same card come at
        another in one change. Old track -> new track; the adapter follows them."""
        added_tracks = {c.track for c in change.added}
        removed_tracks = {c.track for c in change.removed}
        gone = {c.card: c for c in change.removed if c.track not in added_tracks
                and c.card is not None and c.track in self.centre}
        moves: dict[int, int] = {}
        for c in change.added:
            old = gone.pop(c.card, None) if c.card is not None else None
            if old is None or c.track in removed_tracks or c.zone != self.zone:
                continue
            moves[old.track] = c.track
            del self.centre[old.track]
            self.centre[c.track] = c
            self.pending = [(c if x.track == old.track else x, c if t.track == old.track else t)
                            for x, t in self.pending]
        return moves

    def _missing_targets(self) -> list[str]:
        """Targets the engine knows that no card read on camera shows."""
        missing = list(self.match.summary().get("targets", []))
        for c in self.centre.values():
            if c.card in missing:
                missing.remove(c.card)
        return missing

    def _resolved(self, card: TableCard) -> TableCard:
        """An unread target read by elimination: the only unread card in the centre and
        the only target not seen otherwise."""
        if card.card is not None:
            return card
        missing = self._missing_targets()
        unread = [c for c in self.centre.values() if c.card is None and c.track != card.track]
        if len(missing) == 1 and not unread:
            return replace(card, card=missing[0])
        return card

    def _known(self, card: TableCard) -> bool:
        """``card`` is a target the engine knows that was not on camera before."""
        targets = list(self.match.summary().get("targets", []))
        on_camera = [c.card for c in self.centre.values() if c.track != card.track]
        return card.card is not None and targets.count(card.card) > on_camera.count(card.card)

    def _settle_removal(self, left: list[TableCard]) -> list[JSON]:
        in_play = set(self.match.summary().get("targets", [])) | {
            str(c.card) for pair in self.pending for c in pair}
        # a card in nobody's play (a stale one tidied away after a phone's entry): no event
        left = [c for c in left if c.card is None or c.card in in_play]
        if not left:
            return []
        if not self.pending:
            self.warnings.append("cards left the table without a play; enter it on the phone")
            return []
        card, target = self.pending[0]
        gone = {c.track for c in left}
        if target.track not in gone:
            self.warnings.append("cards left the table that were not the played target; "
                                 "enter the play on the phone")
            return []
        if card.track in gone:
            self.pending = self.pending[1:]
            self.equal, self.refill = (card, target), []
            return self._try_equal()
        second = None
        if len(self.pending) > 1 and self.pending[1][1].track == target.track:
            second = self.pending[1][0]
        self.pending = self.pending[2:] if second else self.pending[1:]
        return self._play(card, target, second=second)

    def _try_equal(self) -> list[JSON]:
        assert self.equal is not None
        deck = int(self.match.summary().get("deck", 0))
        targets_left = len(self.centre) - len(self.refill)
        wanted = min(max(4 - targets_left, 0), deck)
        if len(self.refill) < wanted:
            return []  # the dealer is still putting out new targets
        card, target = self.equal
        refill, self.equal, self.refill = self.refill, None, []
        return self._play(card, target, refill=refill)

    def flush(self) -> list[JSON]:
        """Settle the pending play as one that caught nothing."""
        if not self.pending:
            return []
        card, target = self.pending.pop(0)
        return self._play(card, target)

    def _nearest_target(self, card: TableCard) -> TableCard | None:
        played = {x.track for x, _ in self.pending}  # a second card goes by the target
        others = [c for c in self.centre.values()
                  if c.track != card.track and c.track not in played]
        if not others:
            return None
        return min(others, key=lambda c: (c.centre[0] - card.centre[0]) ** 2
                   + (c.centre[1] - card.centre[1]) ** 2)

    def _play(self, card: TableCard, target: TableCard, second: TableCard | None = None,
              refill: list[TableCard] | None = None) -> list[JSON]:
        player = self.match.turn
        target = self._resolved(target)
        cards = [card, target, *([second] if second else []), *(refill or [])]
        if player is None or any(c.card is None for c in cards):
            self.warnings.append("could not read every card of the play; "
                                 "please enter it on the phone")
            return []
        base: JSON = {"type": "play", "player": player, "target": target.card,
                      "card": card.card}
        if second is not None:
            base["second"] = second.card
        if refill:
            base["refill"] = [str(c.card) for c in refill]
        unsettled = {x.track for x, _ in self.pending}  # later plays, not judged yet
        seen = [c.card for c in self.centre.values() if c.track not in unsettled]
        read = Counter(c for c in seen if c is not None)  # an unread card may be any
        # exactly half: one face-down card is turned up first; which one, the camera
        # cannot see (the collections lie off camera), so only a single one is settled
        down = self.match.summary().get("collections", {}).get(player, {}).get("down", [])
        fits: list[JSON] = []
        results: list[JSON] = []
        for reading in _ace_readings(base, [c for c in (card, target, second) if c is not None]):
            for event in (reading, *({**reading, "flip": d} for d in down)):
                try:
                    self.match.push(event)
                except TableEventError:
                    continue
                result = self.match.summary()
                self.match.pop()
                # readings with the same result (an Ace that does not matter) are one
                after: Counter[str] = Counter(result.get("targets", []))
                if (len(seen) == sum(after.values()) and not read - after
                        and result not in results):
                    fits.append(event)
                    results.append(result)
        if len(fits) != 1:
            what = "no reading the rules accept" if not fits else "more than one reading"
            self.warnings.append(f"{player}'s play of {card.card} on {target.card}: {what} "
                                 "matches the table; please enter it on the phone")
            return []
        self.match.push(fits[0])
        return fits


def _ace_readings(base: JSON, cards: list[TableCard]) -> list[JSON]:
    """The play with every choice of 1 or 14 for its Aces (none: the play as it is)."""
    aces = sorted({str(c.card) for c in cards if str(c.card).startswith("A")})
    if not aces:
        return [base]
    out = []
    for k in range(1 << len(aces)):
        choice = {a: (1 if k >> i & 1 else 14) for i, a in enumerate(aces)}
        out.append({**base, "aces": choice})
    return out
