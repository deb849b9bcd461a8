"""From sensor changes to Catch Mag table events: a move is read when it is finished.

Sensor changes are hints; the board as it stands is the truth. The interpreter
keeps the board's picture up to date with every change, and reads a move only
when the board has been quiet for :data:`SETTLE_S`: it compares the picture
with what the match says the board should show, and looks for the legal
events (from :func:`companion.games.catch_mag.legal_events`, so it follows
whatever the rules engine says about whose turn and which roll it is) whose
effect on the board explains the difference:

* a rod from the ship's space into a row of the player's station: ``catch``, in
  the colour of the row it *ended* in;
* joker ball N from its space into the player's home recess N: ``joker`` keep;
* a rod from an opponent's row into the player's row of that colour while the
  player is on a joker space: ``joker`` swipe (with a kept ball before the roll:
  ``use-joker``); where the ball was meanwhile does not matter;
* a rod from any space into the player's row while a super joker is offered:
  ``super-joker``;
* the Catch Mag lifted for a catch and put back (off its rest for at least
  :data:`MIN_TRY_S`) with no rod moved: a failed ``catch``. Lifted and set back
  faster than that is a re-grip, not a try.

So the order of the hands does not matter: a rod moved from one row to
another before the quiet, a ball put back before the rod, the Catch Mag back
on its rest before the rod is in the station, a re-grip. A rod moved to
another row *after* its catch was entered, in a game whose setup gives no
rod layout, is a :class:`Revision` of that event: a rod's colour is the row it
finally stays in.

Whatever the events do not explain is shown as a :class:`BoardWarning` in
:meth:`CatchMagInterpreter.notices`, computed afresh from the match and the
picture (nothing stale survives a correction on a phone), each naming real
things (rods by place and colour, joker balls by their space 1, 7, 13, 19, 25)
and saying how to put it right. A failed catch no sensor can see (the Catch
Mag used from the board edge) is asked about there, never dropped silently.

Die rolls are not the sensors' business: they come from the phone.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from companion.games.catch_mag import (
    COLORS,
    JOKER_SPACES,
    RULES,
    State,
    legal_events,
    pending,
)
from companion.games.errors import TableEventError
from hardware.boardmap import BoardMap, Sensor, load_board_map
from hardware.sources import SensorChange

TableEvent = dict[str, Any]
SETTLE_S: Final = 0.2
"""Quiet time after the last change before a move is read (see docs/hardware.md)."""
MIN_TRY_S: Final = 0.55
"""The Catch Mag off its rest for less than this, with nothing else moved, is a re-grip."""
ASK_REPELLED: Final = "catch as 'Repelled' on the phone"
"""How a question about a failed catch no sensor saw ends (the phone's button is 'Repelled')."""
MAX_EVENTS_PER_MOVE: Final = 3
"""A settled board is explained by at most this many board events in a row."""

Key = tuple[Any, ...]
"""A place the match has an opinion about: ``("U", space)``, ``("J", station, ball)``,
``("G", arm)`` (present or not) or ``("R", station, colour)`` (how many rods)."""


@dataclass(frozen=True)
class BoardWarning:
    """Something on the board does not match the match; ``message`` says how to fix it."""

    message: str
    sensors: tuple[str, ...] = ()
    """The sensors involved, for highlighting on the dashboard."""


@dataclass(frozen=True)
class Revision:
    """The board entered ``old`` earlier and now shows ``new`` instead (a rod moved to
    another row of the same station): replace the board's last ``old`` by ``new``."""

    old: TableEvent
    new: TableEvent


Reading = TableEvent | BoardWarning | Revision


def key_of(sensor: Sensor) -> Key | None:
    """What a sensor tells the match about (``None`` for the Catch Mag's rest).

    >>> board = load_board_map()
    >>> key_of(board.sensor("S2.red.4")), key_of(board.sensor("S1.J7")), key_of(board.sensor("U3"))
    (('R', 2, 'red'), ('J', 1, 7), ('U', 3))
    """
    if sensor.role in ("rod-space", "joker-space"):
        return ("U", sensor.space)
    if sensor.role == "home-joker":
        return ("J", sensor.station, sensor.joker)
    if sensor.role == "super-joker":
        return ("G", sensor.joker)
    if sensor.role == "row-slot":
        return ("R", sensor.station, sensor.color)
    return None


@dataclass
class _Lift:
    """The Catch Mag's last trip off its rest."""

    lifter: str | None
    """Whose turn it was when it left the rest."""
    at: float
    returned_at: float | None = None
    returned_for: tuple[str | None, str | None] | None = None
    """Whose turn and what was pending when it came back."""
    spent: bool = False
    """An event was read during this lift, or the turn moved on: it makes no failed catch."""
    unread: bool = False
    """Lifted before the last move was read: whose lift it is is known only after it."""


@dataclass
class _Explained:
    events: list[TableEvent]
    state: State
    residual: dict[Key, int]
    score: int


@dataclass
class _Claim:
    station: int
    event: TableEvent


@dataclass
class _Move:
    """The changes since the board was last read."""

    first: SensorChange | None = None
    player: str | None = None
    lifted: list[str] = field(default_factory=list)


class CatchMagInterpreter:
    """Turns sensor changes plus the current Catch Mag state into table events.

    :meth:`feed` every change in order (with the match as it was when the
    change came in); call :meth:`settle` at :meth:`due` and whenever the match
    changed (with the current state, after pushing any event it returned);
    call :meth:`follow` when someone else changed the match (``corrected`` for
    an undo or an edit). Seat ``i`` plays at station ``i + 1`` unless
    ``stations`` says otherwise.
    """

    def __init__(self, board: BoardMap | None = None, *, present: Iterable[str] | None = None,
                 stations: Mapping[str, int] | None = None, settle_s: float = SETTLE_S) -> None:
        self.board = board or load_board_map()
        self.stations = dict(stations) if stations is not None else None
        self.settle_s = settle_s
        self.reset(self.board.initial_layout() if present is None else present)

    # -- queries ------------------------------------------------------------------

    @property
    def present(self) -> frozenset[str]:
        return frozenset(self._present)

    @property
    def catch_mag_away(self) -> bool:
        """The Catch Mag is off its rest (in a hand, or left on the board edge)."""
        return "REST" not in self._present

    def reset(self, present: Iterable[str]) -> None:
        """Start over from a known board (a new game, or a resync the caller chose to trust).

        Whatever differs from the match at the next read and is not touched
        afterwards (a dead sensor, say) is taken as it is.
        """
        self._present: set[str] = set(present)
        self._last_change: float | None = None
        self._dirty = False
        self._decided: State | None = None
        self._lift: _Lift | None = None
        self._prior: _Lift | None = None
        """The trip before the current one, when its return is not read yet."""
        self._turn: str | None = None
        self._phase: str | None = None
        self._over = False
        self._ack: dict[Key, int] | None = None
        """Where board and match differed when a phone corrected the match: not read as
        a move again until one of those places is touched."""
        self._baseline: dict[Key, int] | None = None
        self._claims: list[_Claim] = []
        self._notices: list[BoardWarning] = []
        self._move = _Move()

    def station_of(self, state: State, player: str) -> int:
        if self.stations is not None:
            return self.stations[player]
        return state.players.index(player) + 1

    def player_at(self, state: State, station: int) -> str | None:
        for player in state.players:
            if self.station_of(state, player) == station:
                return player
        return None

    def due(self) -> float | None:
        """When the board will have been quiet long enough to read (on the changes' clock)."""
        if not self._dirty or self._last_change is None:
            return None
        return self._last_change + self.settle_s

    def notices(self) -> list[BoardWarning]:
        """What the phones should show about the board now: the move in progress, or
        where the board and the match disagree (as of the last read)."""
        if self._over:
            return []
        if self._dirty:  # a question about a failed try stays up until the move is read
            return self._progress() + [n for n in self._notices if ASK_REPELLED in n.message]
        return list(self._notices)

    # -- feeding ------------------------------------------------------------------

    def feed(self, change: SensorChange, state: State) -> list[Reading]:
        """Take one debounced change in; events only come from :meth:`settle`."""
        if change.sensor_id not in self.board:
            return [BoardWarning(
                f"the board reported sensor {change.sensor_id!r}, which the board map does not "
                "have: the Pico's firmware and hardware/boardmap.toml disagree; flash it again",
                (change.sensor_id,))]
        sensor = self.board.sensor(change.sensor_id)
        if change.present == (sensor.id in self._present):
            return []  # not a change to what we know (a repeat after a resync)
        self._observe(state)
        if change.present:
            self._present.add(sensor.id)
        else:
            self._present.discard(sensor.id)
        if self._baseline is not None:
            key = key_of(sensor)
            if key is not None:
                self._baseline.pop(key, None)  # touched: it counts again
        if self._ack is not None and key_of(sensor) in self._ack:
            self._ack = None  # someone is putting the difference right: read it again
        if not self._dirty:
            self._move = _Move(change, state.turn)
        if not change.present:
            self._move.lifted.append(sensor.id)
        self._dirty = True
        self._last_change = change.at if self._last_change is None else max(
            self._last_change, change.at)
        if sensor.role == "rest":
            if not change.present:
                prior = self._lift
                unread = len(self._move.lifted) > 1 or self._move.first != change
                if prior is not None and prior.returned_at is not None and unread:
                    self._prior = prior  # its return is still to be read
                self._lift = _Lift(state.turn, change.at, unread=unread)
            elif self._lift is not None and self._lift.returned_at is None:
                self._lift.returned_at = change.at
                self._lift.returned_for = (state.turn, pending(state))
        return []

    def follow(self, state: State, corrected: bool) -> None:
        """Someone else changed the match: a phone's entry, or (``corrected``) an undo or
        an edit. After a correction, where the board disagrees with the match is shown,
        not read again as a move, until a magnet in one of those places moves."""
        self._observe(state)
        if corrected:
            self._ack = self.difference(state) or None
            self._claims.clear()
            if self._lift is not None:
                self._lift.spent = True

    def settle(self, now: float, state: State) -> list[Reading]:
        """Read the board if it has been quiet for the settle time (``now`` on the changes'
        clock), or again if the match changed since the last read."""
        self._observe(state)
        due = self.due()
        if due is not None and now < due - 1e-9:
            return []
        if not self._dirty and state == self._decided:
            return []
        self._dirty = False
        self._move = _Move()
        return self._read(state)

    def tick(self, now: float, state: State) -> list[Reading]:
        """Time passing with no change: the same as :meth:`settle`."""
        return self.settle(now, state)

    # -- reading a settled board ------------------------------------------------------

    def _observe(self, state: State) -> None:
        """A state seen: the first one fixes the baseline; the turn moving on while the
        Catch Mag is away spends that lift (it makes no failed catch)."""
        if self._baseline is None:
            self._baseline = self._raw_difference(state)
        self._over = state.finished
        if state.turn != self._turn:
            lift = self._lift
            if lift is not None and lift.lifter != state.turn:
                if (self._phase in ("roll", "super-joker") and not lift.spent
                        and lift.returned_at is None):
                    # Lifted while the last player was still to roll (or to take up a
                    # super joker) and did nothing on the board: the new player's lift.
                    lift.lifter = state.turn
                else:
                    lift.spent = True
            self._turn = state.turn
        self._phase = pending(state)

    def expected(self, state: State) -> dict[Key, int]:
        """What the match says the board shows."""
        out: dict[Key, int] = {}
        for space in range(1, 31):
            out[("U", space)] = 0
        for space, rod in enumerate(state.board):
            if rod is not None:
                out[("U", space)] = 1
        for ball, holder in zip(JOKER_SPACES, state.balls, strict=True):
            out[("U", ball)] = 1 if holder < 0 else 0
            for station in range(1, 5):
                out[("J", station, ball)] = 0
            if holder >= 0:
                out[("J", self.station_of(state, state.players[holder]), ball)] = 1
            out[("G", ball)] = 1
        for station in range(1, 5):
            for color in COLORS:
                out[("R", station, color)] = 0
        for seat, name in enumerate(state.players):
            station = self.station_of(state, name)
            for color, n in zip(COLORS, state.rows[seat], strict=True):
                out[("R", station, color)] = n
        return out

    def _seen(self) -> dict[Key, int]:
        out: dict[Key, int] = {}
        for sensor_id in self._present:
            key = key_of(self.board.sensor(sensor_id))
            if key is not None:
                out[key] = out.get(key, 0) + 1
        return out

    def _raw_difference(self, state: State) -> dict[Key, int]:
        seen = self._seen()
        expected = self.expected(state)
        return {k: seen.get(k, 0) - v for k, v in expected.items() if seen.get(k, 0) != v}

    def difference(self, state: State) -> dict[Key, int]:
        """Board minus match, place by place (only the places that differ), leaving out
        what already differed when the interpreter started following and was not
        touched since (a dead sensor, say)."""
        diff = self._raw_difference(state)
        for key, n in (self._baseline or {}).items():
            left = diff.get(key, 0) - n
            if left:
                diff[key] = left
            else:
                diff.pop(key, None)
        return diff

    def _read(self, state: State) -> list[Reading]:
        self._decided = state
        diff = self.difference(state)
        if self._ack is not None:
            diff = _subtract(diff, self._ack)
        out: list[Reading] = []
        revision = self._revision(diff, state)
        if revision is not None:
            # shown until the table takes the revision
            self._notices = self._describe(self.difference(state), state)
            return [revision]
        if state.finished:
            self._notices = []
            return []  # the match is over: hands are tidying the board away
        events: list[TableEvent] = []
        current = state
        for _ in range(MAX_EVENTS_PER_MOVE):
            best = self._explain(current, diff)
            if best is not None and best.events:
                events += best.events
                current, diff = best.state, best.residual
                break
            failed = self._failed_catch(current, diff)
            if failed is None:
                break
            events.append(failed)
            current = RULES.play(current, failed)[1]
        lift = self._lift
        if events and lift is not None:
            lift.spent = True
            if lift.unread and lift.returned_at is None:
                # Lifted again before the last move was read: the next player's lift.
                lift.lifter, lift.spent = current.turn, False
                self._turn = current.turn
        if lift is not None:
            lift.unread = False
        self._prior = None
        for event in events:
            self._claim(event, state)
        out += events
        self._notices = self._describe(self.difference(current), current)
        return out

    def _candidates(self, state: State, diff: Mapping[Key, int]) -> Iterator[TableEvent]:
        """The board events (no rolls) whose rod or ball goes where the board shows more."""
        wanted_rows = {(k[1], k[2]) for k, n in diff.items() if k[0] == "R" and n > 0}
        wanted_balls = {(k[1], k[2]) for k, n in diff.items() if k[0] == "J" and n > 0}
        for event in legal_events(state):
            kind = event["type"]
            if kind == "roll" or (kind == "catch" and not event["success"]):
                continue
            station = self.station_of(state, event["player"])
            if kind == "joker" and event["use"] == "keep":
                ship = state.ships[state.players.index(event["player"])]
                if (station, ship) in wanted_balls:
                    yield event
                continue
            color = event.get("color")
            if color is None:  # a known layout: the rod's colour is the layout's
                space = (event["space"] if kind == "super-joker"
                         else state.ships[state.players.index(event["player"])])
                color = state.board[space]
            if (station, color) in wanted_rows:
                yield event

    def _explain(self, state: State, diff: dict[Key, int]) -> _Explained | None:
        """The one best way board events explain ``diff``; ``None`` when two disagree.

        An explanation may leave things off the board (in a hand), never an extra one
        unless only a die roll on the phone is missing for it.
        """
        options: list[_Explained] = [_Explained([], state, diff, 0)]

        def grow(base: _Explained, depth: int) -> None:
            if depth == 0 or base.state.finished:
                return
            before: dict[Key, int] | None = None
            for event in self._candidates(base.state, base.residual):
                try:
                    after = RULES.play(base.state, event)[1]
                except TableEventError:
                    continue
                before = before or self.expected(base.state)
                effect = _subtract(self.expected(after), before)
                if not _fits(effect, base.residual):
                    continue
                residual = _subtract(base.residual, effect)
                full = self._complete(event, after, base.state)
                option = _Explained([*base.events, full], after, residual,
                                    base.score + sum(abs(n) for n in effect.values()))
                options.append(option)
                grow(option, depth - 1)

        grow(options[0], MAX_EVENTS_PER_MOVE)
        acceptable = [o for o in options
                      if not _extra(o.residual) or pending(o.state) == "roll"]
        if not acceptable:
            return None
        top = max(o.score for o in acceptable)
        best = [o for o in acceptable if o.score == top]
        if any(o.events != best[0].events for o in best[1:]):
            return None
        return best[0]

    def _complete(self, event: TableEvent, after: State, before: State) -> TableEvent:
        """The event as the board reports it: a rod taken from the universe names its colour."""
        if event["type"] in ("catch", "super-joker") and "color" not in event:
            seat = before.players.index(event["player"])
            gained = next(c for c, a, b in zip(COLORS, after.rows[seat], before.rows[seat],
                                               strict=True) if a > b)
            return {**event, "color": gained}
        return event

    def _failed_catch(self, state: State, diff: Mapping[Key, int]) -> TableEvent | None:
        """A failed catch, when the Catch Mag says so and nothing on the board says otherwise."""
        player = state.turn
        if player is None or pending(state) != "catch":
            return None
        ship = state.ships[state.players.index(player)]
        if diff.get(("U", ship), 0) < 0:
            return None  # the rod is in a hand
        event: TableEvent = {"type": "catch", "player": player, "success": False}
        for trip in (self._prior, self._lift):
            if (trip is not None and not trip.spent and trip.lifter == player
                    and trip.returned_at is not None and trip.returned_for == (player, "catch")
                    and trip.returned_at - trip.at >= MIN_TRY_S and not _extra(diff)):
                trip.spent = True
                self._prior = None
                return event
        if self.catch_mag_away:
            # Away from its rest (a hand, the board edge): the next player's rod movement
            # ends the try, whoever lifted it last.
            station = self.station_of(state, player)
            if any(k[0] == "R" and k[1] != station and n > 0 for k, n in diff.items()):
                if self._lift is not None:
                    self._lift.spent = True
                return event
        return None

    def _claim(self, event: TableEvent, state: State) -> None:
        if event["type"] in ("catch", "super-joker") and event.get("success", True) \
                and state.params.layout is None:
            self._claims.append(_Claim(self.station_of(state, event["player"]), event))
            del self._claims[:-8]

    def _revision(self, diff: Mapping[Key, int], state: State) -> Revision | None:
        """A rod moved from one row of a station to another after the board entered it."""
        if state.params.layout is not None or len(diff) != 2:
            return None
        (k1, n1), (k2, n2) = sorted(diff.items(), key=lambda kv: kv[1])
        if not (k1[0] == k2[0] == "R" and k1[1] == k2[1] and n1 == -1 and n2 == 1):
            return None
        station, old_color, new_color = k1[1], k1[2], k2[2]
        for claim in reversed(self._claims):
            if claim.station == station and claim.event.get("color") == old_color:
                self._claims.remove(claim)
                new = {**claim.event, "color": new_color}
                self._claims.append(_Claim(station, new))
                return Revision(claim.event, new)
        return None

    # -- words ------------------------------------------------------------------------

    def _progress(self) -> list[BoardWarning]:
        move = self._move
        who = move.player or "someone"
        first = move.first
        if first is None:
            return []
        if "REST" in move.lifted:
            return [BoardWarning(f"{who} lifted the Catch Mag…", ("REST",))]
        if first.sensor_id == "REST":
            return []  # the Catch Mag put back: nothing to announce
        sensor = self.board.sensor(first.sensor_id)
        return [BoardWarning(f"{who} is moving {self._thing(sensor)}…", (sensor.id,))]

    def _thing(self, sensor: Sensor) -> str:
        if sensor.role == "rod-space":
            return f"the rod on space {sensor.space}"
        if sensor.role == "joker-space":
            return f"joker ball {sensor.space}"
        if sensor.role == "home-joker":
            return f"joker ball {sensor.joker}"
        if sensor.role == "super-joker":
            return f"super joker {sensor.joker}"
        if sensor.role == "row-slot":
            return f"a rod in station {sensor.station}'s {sensor.color} row"
        return "the Catch Mag"

    def _row_name(self, state: State, station: int, color: str) -> str:
        player = self.player_at(state, station)
        return (f"{player}'s {color} row (station {station})" if player
                else f"the {color} row of station {station}, where nobody plays")

    def _sensors(self, key: Key, missing: bool) -> tuple[str, ...]:
        if key[0] == "U":
            return (f"U{key[1]}",)
        if key[0] == "J":
            return (f"S{key[1]}.J{key[2]}",)
        if key[0] == "G":
            return (f"G{JOKER_SPACES.index(key[1]) + 1}",)
        row = [s.id for s in self.board.row(key[1], key[2])]
        chosen = [s for s in row if (s in self._present) != missing]
        return tuple(chosen[-1:] if not missing else chosen[:1])

    def _describe(self, diff: Mapping[Key, int], state: State) -> list[BoardWarning]:
        """Plain words for each place where the board and the match disagree."""
        if state.finished:
            return []
        out: list[BoardWarning] = []
        player = state.turn
        phase = pending(state)
        ship = state.ships[state.players.index(player)] if player is not None else 0
        rods_from = [k for k, n in diff.items() if n < 0 and (
            k[0] == "R" or (k[0] == "U" and k[1] not in JOKER_SPACES))]
        rods_to = [k for k, n in diff.items() if n > 0 and (
            k[0] == "R" or (k[0] == "U" and k[1] not in JOKER_SPACES))]
        if len(rods_from) == 1 and len(rods_to) == 1:
            out.append(self._rod_moved(rods_from[0], rods_to[0], state))
        else:
            for key in rods_to:
                out.append(self._extra_rod(key, state))
            for key in rods_from:
                out.append(self._missing_rod(key, state))
        for key, n in diff.items():
            if key[0] == "U" and key[1] in JOKER_SPACES:
                ball = key[1]
                if n < 0:
                    out.append(BoardWarning(
                        f"joker ball {ball} is off its space: put it back on space {ball}",
                        (f"U{ball}",)))
                else:
                    out.append(BoardWarning(
                        f"joker ball {ball} is on space {ball}, but the match has it kept "
                        f"in a home recess: put it back in its recess {ball}, or correct "
                        "the match on the phone", (f"U{ball}",)))
            elif key[0] == "J":
                station, ball = key[1], key[2]
                who = self.player_at(state, station) or f"station {station}"
                if n > 0:
                    out.append(BoardWarning(
                        f"joker ball {ball} is in {who}'s home recess {ball}, but the match "
                        f"has it elsewhere: put it back on space {ball}, or correct the match "
                        "on the phone", (f"S{station}.J{ball}",)))
                else:
                    out.append(BoardWarning(
                        f"joker ball {ball} is missing from {who}'s home recess {ball}: put "
                        "it back there (or, spent, on its space)", (f"S{station}.J{ball}",)))
            elif key[0] == "G" and n < 0:
                out.append(BoardWarning(
                    f"super joker {key[1]} is out of the galaxy: it goes straight back to the "
                    f"end of arm {key[1]}", self._sensors(key, True)))
        own = self.station_of(state, player) if player is not None else 0
        if (phase == "catch" and player is not None and self.catch_mag_away
                and not any(k[0] == "R" and k[1] == own for k in rods_to)):
            # Nothing in the player's own station: a failed try is possible, and may have
            # ended where no sensor sees it (the Catch Mag left on the board edge).
            out.append(BoardWarning(
                f"the Catch Mag is off its rest while {player} is to catch the rod on "
                f"space {ship}: if {player}'s try failed (the poles repelled), put the "
                f"Catch Mag back on its rest, or enter {player}'s {ASK_REPELLED}",
                ("REST",)))
        elif (phase == "catch" and player is not None and not diff.get(("U", ship))
                and not rods_to):
            lift = self._lift
            if (lift is not None and lift.returned_for == (player, "catch")
                    and (lift.spent or lift.lifter != player)):
                out.append(BoardWarning(
                    f"the Catch Mag came back to its rest while {player} is to catch the rod "
                    f"on space {ship}: if {player}'s try failed (the poles repelled), enter "
                    f"{player}'s {ASK_REPELLED}", ("REST",)))
            elif (lift is not None and lift.returned_for == (player, "catch")
                    and lift.returned_at is not None
                    and lift.returned_at - lift.at < MIN_TRY_S):
                out.append(BoardWarning(
                    f"{player} lifted the Catch Mag for a moment: if that was a try and the "
                    f"poles repelled, enter {player}'s {ASK_REPELLED}", ("REST",)))
        return out

    def _place(self, key: Key, state: State) -> str:
        if key[0] == "U":
            layout = state.params.layout
            color = layout[key[1]] if layout is not None else None
            return f"the {color + ' ' if color else ''}rod from space {key[1]}"
        return f"a {key[2]} rod from {self._row_name(state, key[1], key[2])}"

    def _rod_moved(self, source: Key, target: Key, state: State) -> BoardWarning:
        what = self._place(source, state)
        back = (f"put it back on space {source[1]}" if source[0] == "U"
                else f"put it back in {self._row_name(state, source[1], source[2])}")
        sensors = self._sensors(target, False) + self._sensors(source, True)
        if target[0] == "U":
            return BoardWarning(f"{what} is on space {target[1]}: rods only leave the universe, "
                                f"they never move within it; {back}", sensors)
        station, color = target[1], target[2]
        player = self.player_at(state, station)
        where = self._row_name(state, station, color)
        turn = state.turn
        phase = pending(state)
        if player is None:
            why = f"{what} went into {where}"
        elif source[0] == "R" and source[1] == station:
            why = (f"{what} moved to {player}'s {color} row, but the match counts it as "
                   f"{source[2]}: a rod stays in the row of its colour; or correct "
                   "the event on the phone")
        elif player != turn:
            why = f"{what} went into {where}, but it is {turn}'s turn ({_expected(state)})"
        elif source[0] == "R":
            victim = self.player_at(state, source[1]) or f"station {source[1]}"
            if source[2] != color:
                why = (f"a swiped rod keeps its colour: {what} went into {player}'s {color} "
                       "row")
            else:
                ship = state.ships[state.players.index(player)]
                why = (f"{what} went into {where}, but a rod is only taken from {victim} "
                       f"with a joker ball on the Catch Mag (landing on joker space with its "
                       f"ball, or spending a kept ball before rolling; {player}'s ship is on "
                       f"space {ship})")
        else:
            ship = state.ships[state.players.index(player)]
            space = source[1]
            if phase == "catch" and space != ship:
                why = (f"{what} went into {where}, but {player}'s ship is on space {ship}: "
                       f"take the rod on space {ship}")
            elif phase == "catch" and state.params.layout is not None:
                right = state.params.layout[space]
                why = (f"{what} went into {where}, but the setup's layout says it is "
                       f"{right}: move it to {player}'s {right} row")
                back = f"or tap the catch ({right}) on the phone"
            elif phase == "joker":
                why = (f"{what} went into {where}, but {player}'s ship is on joker space "
                       f"{ship}: take joker ball {ship}, not a rod")
            elif phase == "roll":
                why = (f"{what} went into {where}, but {player} is to roll: tap the die on "
                       "the phone (the rod counts if the roll lands on it)")
                back = f"or put it back on space {space}"
            else:
                why = f"{what} went into {where}, which the rules do not allow now"
        return BoardWarning(f"{why}; {back}", sensors)

    def _extra_rod(self, key: Key, state: State) -> BoardWarning:
        if key[0] == "U":
            return BoardWarning(f"a magnet is on space {key[1]}, whose rod the match has as "
                                "taken: take it away, or put it where it came from",
                                self._sensors(key, False))
        where = self._row_name(state, key[1], key[2])
        return BoardWarning(f"{where} holds a rod more than the match counts: put it back "
                            "where it came from, or correct the match on the phone",
                            self._sensors(key, False))

    def _missing_rod(self, key: Key, state: State) -> BoardWarning:
        if key[0] == "U":
            return BoardWarning(f"{self._place(key, state)} is off the board: put it back on "
                                f"space {key[1]}", self._sensors(key, True))
        where = self._row_name(state, key[1], key[2])
        return BoardWarning(f"{where} holds a rod fewer than the match counts: put the "
                            f"{key[2]} rod back, or correct the match on the phone",
                            self._sensors(key, True))


def _subtract(a: Mapping[Key, int], b: Mapping[Key, int]) -> dict[Key, int]:
    out = {k: a.get(k, 0) - b.get(k, 0) for k in set(a) | set(b)}
    return {k: n for k, n in out.items() if n}


def _fits(effect: Mapping[Key, int], diff: Mapping[Key, int]) -> bool:
    """Every change the event makes is one the board shows."""
    return bool(effect) and all(
        (n > 0 and diff.get(k, 0) >= n) or (n < 0 and diff.get(k, 0) <= n)
        for k, n in effect.items())


def _extra(diff: Mapping[Key, int]) -> bool:
    """Something is on the board that the match does not have there."""
    return any(n > 0 for n in diff.values())


def _expected(state: State) -> str:
    from companion.games.catch_mag import expected

    return expected(state).note
