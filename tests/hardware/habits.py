"""Players' habits on a Catch Mag board: a physical model, a catalogue, and a referee.

The physical model is written from the rulebook and docs/hardware.md only (not
from ``hardware/script.py`` or ``hardware/simulated.py``, which share the
interpreter's assumptions):

* the board has one Hall switch under every recess that can hold a magnet: the
  30 universe spaces (rods; joker balls on 1, 7, 13, 19, 25), the five super
  jokers at the ends of the galaxy's arms, every station's 5 x 5 row slots and 5
  home recesses, and the Catch Mag's rest in the middle;
* a rod that leaves its recess is seen as "empty" there; a magnet in a hand, on
  the table, on the board edge or hanging from the Catch Mag is seen nowhere;
* the board scans at 250 Hz and reports a change once it has held for 30 ms
  (the debounce), so a flicker shorter than that is never reported;
* a turn: the player rolls the die and taps the roll on a phone; on a rod they
  lift the Catch Mag from its rest, set it on the rod, and either pull the rod
  (carried to the matching colour row of their own station, any free slot) or
  feel the poles repel (the turn is over, the Catch Mag goes back to the middle);
  a joker ball is pulled from its space and kept in the home recess of that
  number, or hangs on the Catch Mag to pull a rod out of an opponent's row
  (then it goes back to its space); a super joker is taken from the galaxy, pulls
  any rod of the universe, and goes straight back; a kept ball is spent before
  the roll to swipe a rod and then goes back to its space.

A *habit* changes how the hands do a move (the order, the timing, extra
touches), never what the move is. :func:`play_game` plays a random legal game
with one habit, feeds the debounced sensor changes through the real
:class:`~hardware.interpreter.CatchMagInterpreter` the way ``BoardFeed`` feeds it
(each change with the match as it stands, the board read at the settle time,
phone entries followed), taps the rolls on the "phone", and compares the match
with the game at every roll: :class:`Score`.
"""

from __future__ import annotations

import bisect
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from companion.games.catch_mag import COLORS, JOKER_SPACES, ROD_SPACES, State, kept_jokers
from companion.games.errors import TableEventError
from companion.games.match import Match
from hardware.boardmap import load_board_map
from hardware.interpreter import (
    ASK_REPELLED,
    SETTLE_S,
    BoardWarning,
    CatchMagInterpreter,
    Revision,
)
from hardware.sources import SensorChange

BOARD = load_board_map()
SCAN_S = 1 / 250
DEBOUNCE_S = 0.030
NAMES = ["Ann", "Ben", "Cy", "Di"]
Event = dict[str, Any]


# -- the referee: the interpreter fed as BoardFeed feeds it ------------------------------


class FollowedMatch:
    """A match on a phone plus the board's interpreter, on one clock.

    Changes go in with the match as it stands; the board is read when it is
    due and after every phone entry; events the board reads go into the match
    as ``board`` entries, revisions replace the board's entry.
    """

    def __init__(self, setup: Event, present: Iterable[str] | None = None,
                 settle_s: float = SETTLE_S) -> None:
        self.match = Match(setup)
        self.actors: list[str] = []
        self.interpreter = CatchMagInterpreter(BOARD, present=present, settle_s=settle_s)
        self.now = 0.0
        self.revisions = 0
        self.process_s: list[float] = []
        self.taps: list[float] = []
        """When each phone entry went in."""
        self.entries: list[tuple[float, Event]] = []
        """When each board event went in (on the changes' clock), and the event."""

    @property
    def state(self) -> State:
        state: State = self.match.state
        return state

    @property
    def notices(self) -> list[BoardWarning]:
        return self.interpreter.notices()

    def advance(self, until: float) -> None:
        """Let time pass: the board is read whenever it is due."""
        while True:
            due = self.interpreter.due()
            if due is None or due > until:
                break
            self.now = max(self.now, due)
            self._read()
        self.now = max(self.now, until)

    def change(self, change: SensorChange) -> None:
        self.advance(change.at)
        self.interpreter.feed(change, self.state)

    def phone(self, event: Event, at: float | None = None) -> str | None:
        """A phone's entry; the refusal's text, or ``None`` when it went in."""
        if at is not None:
            self.advance(at)
        try:
            self.match.push(event)
        except TableEventError as refusal:
            return str(refusal)
        self.actors.append("phone")
        self.taps.append(self.now)
        self.interpreter.follow(self.state, corrected=False)
        self._read()
        return None

    def correct(self, events: list[Event]) -> None:
        """A phone's undo or edit: the match becomes ``events``."""
        match = Match(self.match.setup)
        for event in events:
            match.push(event)
        keep = 0
        while keep < min(len(events), len(self.match.events)) \
                and events[keep] == self.match.events[keep]:
            keep += 1
        self.actors = self.actors[:keep] + ["phone"] * (len(events) - keep)
        self.match = match
        self.interpreter.follow(self.state, corrected=True)
        self._read()

    def _read(self) -> None:
        for _ in range(5):
            started = time.perf_counter()
            readings = self.interpreter.settle(self.now, self.state)
            self.process_s.append(time.perf_counter() - started)
            took = False
            for reading in readings:
                if isinstance(reading, Revision):
                    took = self._revise(reading) or took
                elif isinstance(reading, dict):
                    try:
                        self.match.push(reading)
                    except TableEventError:
                        continue
                    self.actors.append("board")
                    self.entries.append((self.now, reading))
                    took = True
            if not took:
                return

    def _revise(self, revision: Revision) -> bool:
        events = self.match.events
        for i in range(len(events) - 1, -1, -1):
            if events[i] == revision.old and self.actors[i] == "board":
                changed = [*events[:i], revision.new, *events[i + 1:]]
                try:
                    match = Match.from_events([self.match.setup, *changed])
                except TableEventError:
                    return False
                self.match = match
                self.revisions += 1
                self.entries.append((self.now, revision.new))
                return True
        return False


# -- the physical model ----------------------------------------------------------------


@dataclass(frozen=True)
class Touch:
    """A magnet arriving at (``present``) or leaving a recess at ``at`` seconds."""

    at: float
    sensor: str
    present: bool
    owner: int = -1
    """The game event (index) the touch is part of."""


def debounced(touches: Iterable[Touch], start: set[str]) -> list[SensorChange]:
    """What the board reports: each recess scanned every 4 ms, a new level reported
    once it has held for 30 ms (shorter flickers never reach the Pi)."""
    by_sensor: dict[str, list[Touch]] = {}
    for touch in sorted(touches, key=lambda t: t.at):
        by_sensor.setdefault(touch.sensor, []).append(touch)
    out: list[SensorChange] = []
    for sensor, seq in by_sensor.items():
        level = sensor in start
        for i, touch in enumerate(seq):
            seen = (touch.at // SCAN_S + 1) * SCAN_S  # the next scan sees it
            until = seq[i + 1].at if i + 1 < len(seq) else float("inf")
            if touch.present != level and until - seen >= DEBOUNCE_S:
                level = touch.present
                out.append(SensorChange(sensor, level, seen + DEBOUNCE_S))
    out.sort(key=lambda c: c.at)
    return out


@dataclass
class World:
    """Where every magnet physically is, and what colour each rod is."""

    layout: dict[int, str]
    stations: dict[str, int]
    present: set[str] = field(default_factory=set)
    color: dict[str, str] = field(default_factory=dict)
    """Rod colour by the recess it sits in."""
    mag_on_rest: bool = True

    @classmethod
    def new(cls, layout: dict[int, str], players: list[str]) -> World:
        world = cls(layout, {p: i + 1 for i, p in enumerate(players)})
        world.present = set(BOARD.initial_layout())
        world.color = {f"U{s}": c for s, c in layout.items()}
        return world

    def free_slots(self, station: int, color: str) -> list[str]:
        return [s.id for s in BOARD.row(station, color) if s.id not in self.present]

    def rods_in(self, station: int, color: str) -> list[str]:
        return [s.id for s in BOARD.row(station, color) if s.id in self.present]


class Hands:
    """Touches of one move, on a running clock."""

    def __init__(self, world: World, rng: random.Random, at: float) -> None:
        self.world = world
        self.rng = rng
        self.at = at
        self.touches: list[Touch] = []

    def wait(self, low: float, high: float) -> None:
        self.at += self.rng.uniform(low, high)

    def off(self, sensor: str) -> None:
        self.touches.append(Touch(self.at, sensor, False))
        self.world.present.discard(sensor)

    def on(self, sensor: str) -> None:
        self.touches.append(Touch(self.at, sensor, True))
        self.world.present.add(sensor)


@dataclass(frozen=True)
class Habit:
    """A way of moving (:func:`make_move` does its touches)."""

    name: str
    description: str
    board_reads: str
    """What docs/guides.md says: read by the board, or what needs a tap."""
    layout: bool | None = None
    """Only games with (``True``) or without (``False``) a rod layout; ``None``: both."""


HABITS: tuple[Habit, ...] = (
    Habit("clean", "every move done tidily, one thing at a time", "read"),
    Habit("wrong-row-first", "a rod first put into the wrong colour row, then moved to its "
          "own row (up to 2.5 s later)", "read (the colour is the row it stays in)", False),
    Habit("rest-before-station", "the Catch Mag put back on its rest before the rod goes "
          "into the station", "read"),
    Habit("ball-back-first", "the joker ball put back on its space (or a kept ball on its "
          "space) before the swiped rod is placed", "read"),
    Habit("re-grip", "the Catch Mag lifted and set back within half a second, then used",
          "read"),
    Habit("edge", "the Catch Mag left on the board edge; the next player takes it from "
          "there", "read, except a failed try from the edge: the phone asks"),
    Habit("dropped-rod", "a rod dropped on the table on its way and picked up again",
          "read"),
    Habit("two-hands", "two hands at once: the Catch Mag, the ball and the rod moved "
          "within a few milliseconds, in any order", "read"),
    Habit("knocked-off", "a rod knocked off the board during a move and put back before "
          "the next roll", "read (a warning while it is off)"),
    Habit("bumped", "a neighbouring rod bumped out and put back", "read"),
    Habit("bounce", "a rod that bounces out of its slot for 40-120 ms on landing", "read"),
    Habit("slide", "a rod put into a slot of its row, then slid into another slot", "read"),
    Habit("early-lift", "the Catch Mag lifted while the die is still rolling (before the "
          "roll is tapped)", "read"),
    Habit("late-return", "the next roll tapped before the Catch Mag is back on its rest",
          "read"),
    Habit("fast-tap", "the next roll tapped 50-300 ms after the last move (before the "
          "board has settled)", "read; the early tap is refused and tapped again"),
    Habit("tired", "long pauses mid-move: the rod held in the air, the Catch Mag held "
          "over the board (3-8 s)", "read"),
    Habit("rod-before-roll", "the rod taken (die already rolled) before the roll is tapped",
          "read once the roll is tapped"),
    Habit("ball-by-hand", "a joker ball to keep taken by hand, without the Catch Mag",
          "read"),
    Habit("wrong-station-first", "a rod first put into another player's station, then "
          "moved to the player's own", "read (a warning while it is there)"),
    Habit("dropped-on-board", "a rod dropped into an empty universe space on its way, "
          "picked up again", "read (a warning while it lies there)"),
    Habit("wrong-rod-first", "the neighbouring rod taken first and put into the row, then "
          "put back on its space and the right rod taken", "read (a warning meanwhile)"),
    Habit("quick-try", "a failed try done in a flash: the Catch Mag back on its rest "
          "within half a second", "asked (it looks like a re-grip)"),
    Habit("wrong-recess-first", "a joker ball to keep first put into a home recess of "
          "another number, then into its own", "read (a warning meanwhile)"),
)
HABIT_NAMES = tuple(h.name for h in HABITS)


def habit(name: str) -> Habit:
    return next(h for h in HABITS if h.name == name)


def random_game(rng: random.Random, layout_known: bool) -> tuple[Event, list[Event],
                                                                  dict[int, str]]:
    """A random legal game: its setup, events, and the rods' physical layout."""
    players = NAMES[: rng.randint(2, 4)]
    colors = [c for c in COLORS for _ in range(5)]
    rng.shuffle(colors)
    layout = dict(zip(ROD_SPACES, colors, strict=True))
    setup: Event = {"type": "setup", "game": "catch-mag", "players": players,
                    "rods": {str(s): c for s, c in layout.items()}}
    if rng.random() < 0.5:
        setup["first"] = rng.choice(players)
    match = Match(setup)
    while not match.finished and len(match.events) < 600:
        match.push(match.random_event(rng))
    events: list[Event] = []
    for event, state in zip(match.events, _states(setup, match.events), strict=True):
        if event["type"] in ("catch", "super-joker") and event.get("success", True):
            space = (event["space"] if event["type"] == "super-joker"
                     else state.ships[state.players.index(event["player"])])
            event = {**event, "color": layout[space]}
        events.append(event)
    if not layout_known:
        setup = {k: v for k, v in setup.items() if k != "rods"}
    return setup, events, layout


def _states(setup: Event, events: list[Event]) -> list[State]:
    match = Match(setup)
    out: list[State] = []
    for event in events:
        out.append(match.state)
        match.push(event)
    return out


def is_board_event(event: Event, state: State) -> bool:
    """An event the hands make (a declined super joker and rolls are the phone's)."""
    if event["type"] == "roll":
        return False
    return not (event["type"] == "super-joker" and state.turn != event["player"])


@dataclass
class Move:
    """One board event's touches and what the phone does around it."""

    touches: list[Touch]
    end: float


def make_move(event: Event, state: State, world: World, rng: random.Random, at: float,
              style: str) -> Move:
    """The touches that make ``event`` on the board, done with habit ``style``."""
    hands = Hands(world, rng, at)
    player = event["player"]
    station = world.stations[player]
    seat = state.players.index(player)
    ship = state.ships[seat]
    kind = event["type"]
    fast = style == "two-hands"
    pause = (3.0, 8.0) if style == "tired" else (0.3, 1.2)

    def step(low: float = 0.3, high: float = 1.0) -> None:
        if fast:
            hands.wait(0.0, 0.02)
        else:
            hands.wait(low, high)

    def mag_off() -> None:
        if style == "re-grip":
            hands.off("REST")
            hands.wait(0.1, 0.5)
            hands.on("REST")
            hands.wait(0.2, 1.0)
        if world.mag_on_rest:
            hands.off("REST")
            world.mag_on_rest = False

    def mag_back() -> None:
        if style == "edge":
            return  # left on the board edge
        hands.on("REST")
        world.mag_on_rest = True

    def nudge() -> None:
        """Knocked-off and bumped rods: something else on the board moves for a while."""
        if style not in ("knocked-off", "bumped"):
            return
        taken = f"U{event['space']}" if kind == "super-joker" else f"U{ship}"
        rods = sorted(s for s in world.present if s in world.color and s != taken
                      and (s.startswith("U") or kind == "catch"))
        if not rods:
            return
        victim = rng.choice(rods)
        hands.touches.append(Touch(hands.at, victim, False))
        back = rng.uniform(0.05, 0.3) if style == "bumped" else rng.uniform(0.5, 3.0)
        hands.touches.append(Touch(hands.at + back, victim, True))

    def land(rod_from: str, color: str) -> None:
        """A rod from ``rod_from`` into the player's ``color`` row, with the habit's touches."""
        world.color.pop(rod_from, None)
        hands.off(rod_from)
        if style == "dropped-on-board":
            empty = [f"U{x}" for x in ROD_SPACES
                     if f"U{x}" not in world.present and f"U{x}" != rod_from]
            if empty:
                hands.wait(0.2, 0.6)
                spot = rng.choice(empty)
                hands.on(spot)
                hands.wait(0.5, 2.0)
                hands.off(spot)
        if style == "wrong-station-first":
            other_stations = [st for st in range(1, 5) if st != station
                              and world.free_slots(st, color)]
            if other_stations:
                hands.wait(0.4, 1.0)
                slot = rng.choice(world.free_slots(rng.choice(other_stations), color))
                hands.on(slot)
                hands.wait(0.3, 2.5)
                hands.off(slot)
        if style == "dropped-rod":
            hands.wait(0.2, 0.6)  # it falls on the table: seen nowhere
            hands.wait(1.0, 3.0)
        elif style == "tired":
            hands.wait(*pause)
        else:
            step(0.4, 1.2)
        if style == "rest-before-station":
            mag_back()
            hands.wait(0.2, 0.8)
        if style == "wrong-row-first":
            wrong = [c for c in COLORS if c != color and world.free_slots(station, c)]
            if wrong:
                slot = rng.choice(world.free_slots(station, rng.choice(wrong)))
                hands.on(slot)
                hands.wait(0.3, 2.5)
                hands.off(slot)
                hands.wait(0.2, 0.8)
        slot = rng.choice(world.free_slots(station, color))
        hands.on(slot)
        if style == "bounce":
            hands.wait(0.0, 0.02)
            hands.off(slot)
            hands.wait(0.04, 0.12)
            hands.on(slot)
        if style == "slide":
            others = [s for s in world.free_slots(station, color) if s != slot]
            if others:
                hands.wait(0.2, 0.8)
                hands.off(slot)
                slot = rng.choice(others)
                hands.wait(0.05, 0.2)
                hands.on(slot)
        world.color[slot] = color

    def swipe(victim_station: int, color: str, ball_home: str) -> None:
        """A rod taken from another station with a joker ball, the ball put back on its
        space (before the rod is placed, in the "ball-back-first" habit)."""
        rod_from = rng.choice(world.rods_in(victim_station, color))
        if style == "ball-back-first":
            world.color.pop(rod_from, None)
            hands.off(rod_from)
            step(0.3, 0.8)
            hands.on(ball_home)
            step(0.3, 0.8)
            slot = rng.choice(world.free_slots(station, color))
            hands.on(slot)
            world.color[slot] = color
        else:
            land(rod_from, color)
            step()
            hands.on(ball_home)
        if style != "rest-before-station":
            step()
            mag_back()

    if kind == "catch":
        mag_off()
        nudge()
        if not event["success"]:
            if style == "quick-try":
                hands.wait(0.25, 0.5)
            elif fast:
                hands.wait(0.7, 1.2)
            else:
                hands.wait(1.0, 2.5)
            if style == "tired":
                hands.wait(*pause)
            mag_back()
        else:
            step(0.5, 1.5)
            near = [f"U{x}" for x in (ship - 1, ship + 1)
                    if f"U{x}" in world.color and f"U{x}" in world.present]
            if style == "wrong-rod-first" and near:
                wrong = rng.choice(near)
                wrong_color = world.color[wrong]
                slots = world.free_slots(station, wrong_color)
                if slots:
                    hands.off(wrong)
                    hands.wait(0.4, 1.2)
                    hands.on(slots[0])
                    hands.wait(0.5, 2.5)
                    hands.off(slots[0])
                    hands.wait(0.4, 1.2)
                    hands.on(wrong)
                    step(0.5, 1.5)
            land(f"U{ship}", event["color"])
            if style != "rest-before-station":
                step()
                mag_back()
    elif kind == "joker" and event["use"] == "keep":
        by_hand = style == "ball-by-hand"
        if not by_hand:
            mag_off()
        nudge()
        step(0.5, 1.5)
        hands.off(f"U{ship}")
        step(0.4, 1.2)
        if style == "wrong-recess-first":
            others = [f"S{station}.J{j}" for j in JOKER_SPACES
                      if j != ship and f"S{station}.J{j}" not in world.present]
            if others:
                wrong = rng.choice(others)
                hands.on(wrong)
                hands.wait(0.3, 2.0)
                hands.off(wrong)
                step(0.2, 0.6)
        hands.on(f"S{station}.J{ship}")
        if not by_hand:
            step()
            mag_back()
    elif kind == "joker":
        victim_station = world.stations[event["from"]]
        color = event["color"]
        mag_off()
        nudge()
        step(0.5, 1.5)
        hands.off(f"U{ship}")  # the ball hangs from the Catch Mag
        step(0.5, 1.5)
        swipe(victim_station, color, f"U{ship}")
    elif kind == "super-joker":
        arm = f"G{JOKER_SPACES.index(ship) + 1}"
        mag_off()
        nudge()
        step(0.5, 1.5)
        hands.off(arm)
        step(0.5, 1.5)
        land(f"U{event['space']}", event["color"])
        step()
        hands.on(arm)
        if style != "rest-before-station":
            step()
            mag_back()
    else:  # use-joker
        ball = event["joker"]
        assert ball in kept_jokers(state)[player]
        victim_station = world.stations[event["from"]]
        color = event["color"]
        mag_off()
        nudge()
        step(0.5, 1.5)
        hands.off(f"S{station}.J{ball}")
        step(0.5, 1.5)
        swipe(victim_station, color, f"U{ball}")
    if fast:  # two hands: neighbouring touches of different recesses come in any order
        touches = hands.touches
        for i in range(len(touches) - 1):
            a, b = touches[i], touches[i + 1]
            if a.sensor != b.sensor and rng.random() < 0.5 and b.at - a.at < 0.03:
                touches[i], touches[i + 1] = Touch(a.at, b.sensor, b.present), \
                    Touch(b.at, a.sensor, a.present)
    end = max([hands.at, *(t.at for t in hands.touches)])
    return Move(hands.touches, end)


# -- playing a game with a habit -------------------------------------------------------


@dataclass
class Score:
    """How the board did on one habit."""

    habit: str
    games: int = 0
    board_events: int = 0
    right: int = 0
    """Board events that were in the match, right, at the next roll."""
    asked: int = 0
    """Failed catches no sensor saw, entered by a tap after the board asked."""
    silent: int = 0
    """Failed catches no sensor saw, and no question on the phones: must stay 0."""
    phantom: int = 0
    """Events the board entered that the game did not have."""
    revised: int = 0
    retaps: int = 0
    """Rolls refused because the board had not settled yet, and tapped again."""
    corrections: int = 0
    latency_s: list[float] = field(default_factory=list)
    """From the move's last physical touch to its event in the match."""
    process_s: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    @property
    def agreement(self) -> float:
        return (self.right + self.asked) / self.board_events if self.board_events else 1.0

    def add(self, other: Score) -> None:
        for name in ("games", "board_events", "right", "asked", "silent", "phantom",
                     "revised", "retaps", "corrections"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.latency_s += other.latency_s
        self.process_s += other.process_s
        self.misses += other.misses


def _normal(event: Event, layout_known: bool) -> Event:
    """An event as compared: with a layout, a rod's colour is implied."""
    if layout_known and event["type"] in ("catch", "super-joker"):
        return {k: v for k, v in event.items() if k != "color"}
    return event


ASKS_FAILED_CATCH = ASK_REPELLED
RETAP_S = 0.6
"""A refused roll is tapped again this much later."""


@dataclass
class Tap:
    at: float
    index: int
    """The roll's index in the game's events."""


def physical_game(events: list[Event], states: list[State], world: World, rng: random.Random,
                  habit_name: str, share: float) -> tuple[list[Touch], list[Tap],
                                                          dict[int, Move]]:
    """Every touch and every roll tap of a game played with a habit on ``share`` of moves."""
    touches: list[Touch] = []
    taps: list[Tap] = []
    moves: dict[int, Move] = {}
    clock = 1.0
    early_done: set[int] = set()
    late_rest = False
    for i, (event, state) in enumerate(zip(events, states, strict=True)):
        style = habit_name if rng.random() < share else "clean"
        if event["type"] == "roll":
            gap = (0.05, 0.3) if style == "fast-tap" else (0.8, 3.0)
            tap_at = clock + rng.uniform(*gap)
            nxt = i + 1 if i + 1 < len(events) else None
            if (nxt is not None and style == "rod-before-roll"
                    and events[nxt]["type"] == "catch" and events[nxt]["success"]):
                move = make_move(events[nxt], states[nxt], world, rng, tap_at, "clean")
                touches += [replace(t, owner=nxt) for t in move.touches]
                moves[nxt] = move
                early_done.add(nxt)
                tap_at = move.end + rng.uniform(0.3, 1.5)
            elif (nxt is not None and style == "early-lift" and world.mag_on_rest
                  and is_board_event(events[nxt], states[nxt])):
                touches.append(Touch(max(clock + 0.05, tap_at - rng.uniform(0.2, 0.8)),
                                     "REST", False, owner=nxt))
                world.mag_on_rest = False
            taps.append(Tap(tap_at, i))
            clock = tap_at
            if late_rest:
                clock = tap_at + rng.uniform(0.1, 1.0)
                touches.append(Touch(clock, "REST", True, owner=i))
                late_rest = False
            continue
        if i in early_done or not is_board_event(event, state):
            continue
        move = make_move(event, state, world, rng, clock + rng.uniform(0.3, 1.5), style)
        if style == "late-return" and move.touches[-1].sensor == "REST" \
                and move.touches[-1].present and any(e["type"] == "roll" for e in events[i:]):
            move.touches.pop()  # the Catch Mag goes back only after the next roll's tap
            late_rest = True
        touches += [replace(t, owner=i) for t in move.touches]
        moves[i] = move
        clock = max([move.end, *(t.at for t in move.touches)])
    return touches, taps, moves


def play_game(habit_name: str, seed: int, share: float = 0.5,
              layout_known: bool | None = None, settle_s: float = SETTLE_S) -> Score:
    """One random legal game played with ``habit_name`` on a share of its moves, fed
    through the interpreter and compared with the game at every roll."""
    rng = random.Random(seed)
    chosen = habit(habit_name)
    if chosen.layout is not None:
        known = chosen.layout
    else:
        known = layout_known if layout_known is not None else rng.random() < 0.5
    setup, events, layout = random_game(rng, known)
    states = _states(setup, events)
    world = World.new(layout, list(setup["players"]))
    start_present = set(world.present)
    touches, taps, moves = physical_game(events, states, world, rng, habit_name, share)
    changes = debounced(touches, start_present)

    def hold_back(tap: Tap, after: float, by: float) -> None:
        """A refused roll: the hands of the moves after it wait for the tap to go in."""
        nonlocal touches, changes
        touches = [replace(t, at=t.at + by) if t.owner > tap.index and t.at > after else t
                   for t in touches]
        changes = debounced(touches, start_present)

    table = FollowedMatch(setup, present=start_present, settle_s=settle_s)
    score = Score(habit_name, games=1)
    score.board_events = len(moves)
    missed = 0
    fed_to = -1.0

    def feed_until(at: float) -> None:
        """Every change reported after the last one fed, up to ``at``."""
        nonlocal fed_to
        for change in changes:
            if fed_to < change.at <= at:
                table.change(change)
        fed_to = max(fed_to, at)
        table.advance(at)

    def check(upto: int, at: float, final: bool = False) -> None:
        nonlocal missed
        want = [_normal(e, known) for e in events[:upto]]
        got = [_normal(e, known) for e in table.match.events]
        if (got == want) if final else (got[:len(want)] == want):
            return
        common = 0
        while common < min(len(got), len(want)) and got[common] == want[common]:
            common += 1
        score.phantom += sum(1 for a in table.actors[common:] if a == "board")
        missed += sum(1 for j in range(common, upto) if j in moves)
        score.misses.append(f"seed {seed} at {at:.2f}s: wanted {want[common:][:2]}, "
                            f"got {got[common:][:2]}; notices "
                            f"{[n.message for n in table.notices][:2]}")
        score.corrections += 1
        table.correct(list(events[:upto]))

    done_at = 0.0
    delay = 0.0
    """How long refused taps held the later moves back."""
    for tap in taps:
        at = max(tap.at + delay, done_at + 0.05)
        feed_until(at)
        event = events[tap.index]
        asked = False
        for _attempt in range(8):
            refusal = table.phone(event, at)
            if refusal is None:
                break
            n = len(table.match.events)
            asked = asked or any(ASKS_FAILED_CATCH in w.message for w in table.notices)
            if (_attempt >= 2 and asked
                    and table.match.events == events[:n] and n < tap.index
                    and events[n]["type"] == "catch" and not events[n]["success"]):
                assert table.phone(events[n], at) is None
                score.asked += 1
                continue
            score.retaps += 1
            hold_back(tap, at, RETAP_S)
            delay += RETAP_S
            at += RETAP_S
            feed_until(at)
        else:
            n = len(table.match.events)
            if (n < tap.index and events[n]["type"] == "catch" and not events[n]["success"]
                    and not asked):
                score.silent += 1
            check(tap.index, at)
            assert table.phone(event, at) is None
        check(tap.index + 1, at)
        done_at = at
    feed_until(max([done_at, *(c.at for c in changes)]) + 5.0)
    check(len(events), table.now, final=True)
    score.right = score.board_events - missed - score.asked
    score.revised = table.revisions
    score.process_s = table.process_s
    # Latency: from the last thing that happened (a touch, or a tap on the phone) to the
    # board's entry.
    moments = sorted([t.at for t in touches] + table.taps)
    for entered_at, _event in table.entries:
        last = bisect.bisect_right(moments, entered_at + 1e-9)
        if last:
            score.latency_s.append(entered_at - moments[last - 1])
    return score


def run_habit(habit_name: str, games: int, first_seed: int = 0,
              on_game: Callable[[Score], None] | None = None,
              settle_s: float = SETTLE_S) -> Score:
    total = Score(habit_name)
    for seed in range(first_seed, first_seed + games):
        one = play_game(habit_name, seed, settle_s=settle_s)
        if on_game is not None:
            on_game(one)
        total.add(one)
    return total
