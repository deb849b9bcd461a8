"""From sensor changes to Catch Mag table events: automatic magnet-catch detection.

The interpreter follows magnets as hands move them: a magnet that leaves a
recess is *in flight* until it lands. When it lands, the move (where from,
where to) is judged against the game state the caller passes in:

* a rod from the ship's space into the player's row: ``catch``, in that row's colour;
* the Catch Mag lifted from its rest and put back with no rod moved: a failed ``catch``;
* joker ball N from its space into the player's recess N: ``joker`` keep;
* a rod from an opponent's row into the player's row of the same colour while
  ball N is off its space: ``joker`` swipe (or ``use-joker`` with a kept ball);
* a rod from any space into the player's row while super joker N is offered: ``super-joker``.

Anything else is a :class:`BoardWarning` saying what happened and how to put
it right; every event is checked by the rules engine before it is offered, so
a refused one becomes a warning too, never a silent wrong score. A magnet put
back where it came from produces nothing; so does a rod slid along its row.
Moving a misplaced magnet back (or on to the right place) clears the warning.

Die rolls are not the sensors' business: they come from the phone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from companion.games.catch_mag import RULES, State, kept_jokers, pending
from companion.games.errors import TableEventError
from hardware.boardmap import BoardMap, Sensor, load_board_map
from hardware.sources import SensorChange

TableEvent = dict[str, Any]
STRAY_WINDOW_S = 0.5
"""A landing may be reported just before its take-off; after this long it stands alone."""
Kind = Literal["rod", "ball", "super", "mag"]


@dataclass(frozen=True)
class BoardWarning:
    """Something on the board does not match the rules; ``message`` says how to fix it."""

    message: str
    sensors: tuple[str, ...] = ()
    """The sensors involved, for highlighting on the dashboard."""


Reading = TableEvent | BoardWarning


def kind_of(sensor: Sensor) -> Kind:
    """What sits in a recess: a rod, a joker ball, a super joker, or the Catch Mag.

    >>> kind_of(load_board_map().sensor("S1.J7"))
    'ball'
    """
    if sensor.role in ("rod-space", "row-slot"):
        return "rod"
    if sensor.role in ("joker-space", "home-joker"):
        return "ball"
    if sensor.role == "super-joker":
        return "super"
    return "mag"


@dataclass
class _Flight:
    lifted_from: str
    origin: str
    """Where the magnet belongs: ``lifted_from``, or where a misplaced one came from."""
    kind: Kind


class CatchMagInterpreter:
    """Turns sensor changes plus the current Catch Mag state into table events and warnings.

    Feed every change in order with the state *after* the events already
    returned were applied (push them to the match first). Seat ``i`` plays at
    station ``i + 1`` unless ``stations`` says otherwise.
    """

    def __init__(self, board: BoardMap | None = None, *, present: Iterable[str] | None = None,
                 stations: Mapping[str, int] | None = None) -> None:
        self.board = board or load_board_map()
        self.stations = dict(stations) if stations is not None else None
        self._present: set[str] = set(self.board.initial_layout() if present is None else present)
        self._flying: list[_Flight] = []
        self._strays: list[tuple[str, float]] = []
        self._misplaced: dict[str, str] = {}
        self._mag_lifted_at: tuple[int, int, str | None] | None = None

    # -- queries ------------------------------------------------------------------

    @property
    def present(self) -> frozenset[str]:
        return frozenset(self._present)

    @property
    def misplaced(self) -> dict[str, str]:
        """Magnets still out of place after a warning: where each sits -> where it belongs."""
        return dict(self._misplaced)

    def reset(self, present: Iterable[str]) -> None:
        """Start over from a known board (a new game, or a resync the caller chose to trust)."""
        self._present = set(present)
        self._flying.clear()
        self._strays.clear()
        self._misplaced.clear()
        self._mag_lifted_at = None

    def station_of(self, state: State, player: str) -> int:
        if self.stations is not None:
            return self.stations[player]
        return state.players.index(player) + 1

    def player_at(self, state: State, station: int) -> str | None:
        for player in state.players:
            if self.station_of(state, player) == station:
                return player
        return None

    # -- feeding ------------------------------------------------------------------

    def feed(self, change: SensorChange, state: State) -> list[Reading]:
        """What one debounced sensor change means now."""
        out = self._expire_strays(change.at)
        if change.sensor_id not in self.board:
            return [*out, BoardWarning(
                f"the board reported sensor {change.sensor_id!r}, which the board map does not "
                "have: the Pico's firmware and hardware/boardmap.toml disagree; flash it again",
                (change.sensor_id,))]
        sensor = self.board.sensor(change.sensor_id)
        if change.present == (sensor.id in self._present):
            return out  # not a change to what we know (a repeat after a resync)
        if change.present:
            self._present.add(sensor.id)
            return out + self._landed(sensor, state, change.at)
        self._present.discard(sensor.id)
        return out + self._lifted(sensor, state)

    def tick(self, now: float) -> list[Reading]:
        """Time passing with no change (``now`` on the changes' clock): reports a magnet
        that appeared without anything leaving once :data:`STRAY_WINDOW_S` has passed."""
        return self._expire_strays(now)

    def _expire_strays(self, now: float) -> list[Reading]:
        out: list[Reading] = []
        for stray in [s for s in self._strays if now - s[1] > STRAY_WINDOW_S]:
            self._strays.remove(stray)
            label = self.board.sensor(stray[0]).label
            out.append(BoardWarning(
                f"something was put on {label} but nothing left the board: if it came from "
                "elsewhere on the board, put it back there; if it was off the table, take it "
                "away", (stray[0],)))
        return out

    # -- lifting and landing ------------------------------------------------------

    def _context(self, state: State) -> tuple[int, int, str | None]:
        seat = state.players.index(state.turn) if state.turn is not None else -1
        ship = state.ships[seat] if seat >= 0 else 0
        return (seat, ship, pending(state))

    def _lifted(self, sensor: Sensor, state: State) -> list[Reading]:
        kind = kind_of(sensor)
        if kind == "mag":
            self._mag_lifted_at = self._context(state)
            return []
        origin = self._misplaced.pop(sensor.id, sensor.id)
        stray = next((s for s in self._strays if kind_of(self.board.sensor(s[0])) == kind), None)
        if stray is not None:  # the landing was reported before this take-off
            self._strays.remove(stray)
            return self._move(origin, stray[0], kind, state)
        out: list[Reading] = []
        if kind == "rod" and not state.finished:
            others = [f for f in self._flying if f.kind == "rod"]
            if others:
                first = self.board.sensor(others[0].lifted_from).label
                out.append(BoardWarning(
                    f"two rods are off the board at once (from {first} and from "
                    f"{sensor.label}): move one rod at a time; put the rod from "
                    f"{sensor.label} back",
                    (others[0].lifted_from, sensor.id),
                ))
        self._flying.append(_Flight(sensor.id, origin, kind))
        return out

    def _landed(self, sensor: Sensor, state: State, at: float) -> list[Reading]:
        kind = kind_of(sensor)
        if kind == "mag":
            return self._mag_returned(state)
        flights = [f for f in self._flying if f.kind == kind]
        if not flights:
            self._strays.append((sensor.id, at))  # its take-off may still be on its way
            return []
        back = next((f for f in flights if sensor.id in (f.lifted_from, f.origin)), None)
        flight = back or flights[0]
        self._flying.remove(flight)
        return self._move(flight.origin, sensor.id, kind, state)

    def _mag_returned(self, state: State) -> list[Reading]:
        lifted_at, self._mag_lifted_at = self._mag_lifted_at, None
        now = self._context(state)
        if lifted_at is None or now[2] != "catch":
            return []  # not lifted as far as we know, spent on an event, or no catch due
        # lifted for this catch, or by the same player just before the roll on the phone
        if lifted_at != now and not (lifted_at[0] == now[0] and lifted_at[2] == "roll"):
            return []
        if any(f.kind == "rod" for f in self._flying) or self._strays or self._misplaced:
            return []  # a rod is in someone's hand or out of place: that is no failed catch
        player = state.turn
        assert player is not None
        return self._offer({"type": "catch", "player": player, "success": False}, state, None)

    # -- judging a move -----------------------------------------------------------

    def _move(self, origin: str, target: str, kind: Kind, state: State) -> list[Reading]:
        if origin == target:
            return []  # put back where it was (a wobble or a change of mind)
        if state.finished:
            return []  # the match is over: hands are tidying the board away
        if kind == "rod":
            return self._rod_move(self.board.sensor(origin), self.board.sensor(target), state)
        if kind == "ball":
            return self._ball_move(self.board.sensor(origin), self.board.sensor(target), state)
        return self._misplace(origin, target, "a super joker always goes straight back to "
                                              "its recess in the galaxy")

    def _misplace(self, origin: str, target: str, why: str) -> list[Reading]:
        self._misplaced[target] = origin
        where = self.board.sensor(origin).label
        return [BoardWarning(f"{why}: put it back ({where})", (target, origin))]

    def _rod_move(self, origin: Sensor, target: Sensor, state: State) -> list[Reading]:
        turn = state.turn
        assert turn is not None  # _move returns early once the match is over
        if target.role == "rod-space":
            return self._misplace(origin.id, target.id,
                                  f"a rod moved from {origin.label} to {target.label}; rods "
                                  "only leave the universe, they never move within it")
        if (origin.role == "row-slot" and origin.station == target.station
                and origin.color == target.color):
            return []  # slid along its own row, whoever's turn it is
        # The station a rod lands in says who is acting; the rules say whether they may.
        player = self.player_at(state, target.station or 0)
        phase = pending(state)
        if player is None:
            return self._misplace(origin.id, target.id,
                                  f"a rod went into station {target.station}, where nobody "
                                  "plays")
        if player != turn:
            # While a super joker is on offer, the next player acting declines it.
            if not (phase == "super-joker" and player == self._next(state, turn)):
                return self._misplace(origin.id, target.id,
                                      f"a rod went into {player}'s station, but it is "
                                      f"{turn}'s turn")
            phase = "roll"
        station = self.station_of(state, player)
        ship = state.ships[state.players.index(player)]
        color = target.color
        balls = [f.origin for f in self._flying if f.kind == "ball"]
        if origin.role == "row-slot":
            if origin.station == station:
                return self._misplace(origin.id, target.id,
                                      f"a rod moved from {player}'s {origin.color} row to the "
                                      f"{color} row; a rod stays in the row of its colour")
            victim = self.player_at(state, origin.station or 0) or f"station {origin.station}"
            if origin.color != color:
                return self._misplace(origin.id, target.id,
                                      f"a swiped rod keeps its colour: the {origin.color} rod "
                                      f"from {victim} went into {player}'s {color} row")
            if phase == "joker" and f"U{ship}" in balls:
                return self._offer({"type": "joker", "player": player, "use": "swipe",
                                    "from": victim, "color": color}, state, (origin, target))
            kept = [b for b in balls if b.startswith(f"S{station}.J")]
            if phase == "roll" and kept:
                joker = self.board.sensor(kept[-1]).joker
                return self._offer({"type": "use-joker", "player": player, "joker": joker,
                                    "from": victim, "color": color}, state, (origin, target))
            return self._misplace(origin.id, target.id,
                                  f"a rod was taken from {victim}'s station without a joker "
                                  f"ball on the Catch Mag (ball {ship} from its space, or "
                                  f"before rolling a ball from {player}'s home recesses)")
        # from the universe
        if phase == "catch" and origin.space == ship:
            return self._offer({"type": "catch", "player": player, "success": True,
                                "color": color}, state, (origin, target))
        if phase == "super-joker":
            return self._offer({"type": "super-joker", "player": player,
                                "space": origin.space, "color": color}, state, (origin, target))
        if phase == "catch":
            why = (f"{player}'s ship is on space {ship}, but the rod was taken from "
                   f"{origin.label}; take the rod on space {ship}")
        elif phase == "joker":
            why = f"{player}'s ship is on joker space {ship}: take joker ball {ship}, not a rod"
        else:
            why = f"{player} is to roll (tap the die on the phone) before taking a rod"
        return self._misplace(origin.id, target.id, why)

    @staticmethod
    def _next(state: State, player: str) -> str:
        players = state.players
        return players[(players.index(player) + 1) % len(players)]

    def _ball_move(self, origin: Sensor, target: Sensor, state: State) -> list[Reading]:
        player = state.turn
        number = origin.joker if origin.role == "home-joker" else origin.space
        # Where the rules say ball N is now: in its keeper's recess, or on its space.
        keeper = next((p for p, balls in kept_jokers(state).items() if number in balls), None)
        home = f"U{number}" if keeper is None else f"S{self.station_of(state, keeper)}.J{number}"
        if target.id == home:
            return []  # the ball went where the rules already have it
        assert player is not None  # _move returns early once the match is over
        station = self.station_of(state, player)
        seat = state.players.index(player)
        if (pending(state) == "joker" and origin.id == f"U{state.ships[seat]}"
                and target.id == f"S{station}.J{number}"):
            return self._offer({"type": "joker", "player": player, "use": "keep"}, state,
                               (origin, target))
        if target.role == "home-joker" and target.joker != number:
            why = (f"joker ball {number} went into recess {target.joker}; "
                   f"it only fits recess {number}")
        elif target.role == "joker-space" and target.space != number:
            why = (f"joker ball {number} went onto joker space {target.space}; "
                   f"it belongs on {number}")
        else:
            why = f"joker ball {number} moved to {target.label}, which no rule allows now"
        self._misplaced[target.id] = home
        where = self.board.sensor(home).label
        return [BoardWarning(f"{why}: put it back ({where})", (target.id, home))]

    def _offer(self, event: TableEvent, state: State,
               move: tuple[Sensor, Sensor] | None) -> list[Reading]:
        """The event if the rules accept it; otherwise a warning built from their refusal."""
        try:
            RULES.play(state, event)
        except TableEventError as refusal:
            if move is None:
                return [BoardWarning(f"the board suggests {_describe(event)}, but {refusal}")]
            origin, target = move
            self._misplaced[target.id] = origin.id
            return [BoardWarning(f"{refusal}: put the rod back ({origin.label})",
                                 (target.id, origin.id))]
        # A Catch Mag lift that made an event (a swipe with a kept ball before the roll,
        # say) is spent: putting the Catch Mag back ends that move. Without this, a
        # return read after the phone's roll looked like "lifted before the roll, put
        # back after it": a failed catch nobody made.
        self._mag_lifted_at = None
        return [event]


def _describe(event: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in event.items())


def seat_stations(players: Sequence[str]) -> dict[str, int]:
    """The default seating: the first player at station 1, and so on clockwise.

    >>> seat_stations(["Ann", "Ben"])
    {'Ann': 1, 'Ben': 2}
    """
    return {p: i + 1 for i, p in enumerate(players)}
