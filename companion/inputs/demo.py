"""Demo bots: play a whole match through the table's real paths, to watch on a phone.

``companion serve --demo`` seats three bots and plays a match of the chosen game, at a
pace a table can follow (:class:`DemoPace`: a move every 3 to 8 seconds at ``--speed 1``,
a round of Can't Catch Harry about half a minute; ``--speed 2`` halves every wait).
Each move is chosen by the engine's own random legal playout, then made the
way a person at the table would make it: a rod or ball moved on the board
(sensors → interpreter), cards shown to the camera, or a tap on the phone for
what only a phone enters (die rolls, choices). So the demo exercises the same
code a real table does, and the dashboard shows it at human pace.

:class:`SimShowcase` keeps a few cards on the simulated table while nobody plays with
them (``companion serve`` on simulated hardware, no demo), so the camera page shows cards
being read from the start.

:class:`CameraHands` is the simulated camera's pair of hands: it lays out,
moves and takes away cards on the simulated table the way players would, for
the bots and the end-to-end tests. (The simulated board's hands are
:func:`hardware.simulated.perform`, behind ``BoardFeed.perform``.)
"""

from __future__ import annotations

import contextlib
import importlib
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from companion.games import rules_for
from companion.games.errors import TableEventError
from companion.inputs.feed import TableLink
from companion.service.table import TableService

if TYPE_CHECKING:
    from companion.inputs.camera import CameraFeed
    from vision.simtable import SimTable

BOT_NAMES = ("Ann", "Ben", "Cy")
THINK_SECONDS: Mapping[str, float] = {
    "roll": 4.0, "catch": 4.0, "joker": 5.0, "super-joker": 5.5, "use-joker": 5.5,
    "table": 8.0, "play": 6.0, "draw": 4.0, "reveal": 12.0, "round": 25.0,
}
"""Seconds a player takes before each kind of move at ``--speed 1`` (give or take a fifth):
time for the table to read the last line on a phone before the next one comes. A round of
Can't Catch Harry is a whole round of play, a Star Catcher deal is four cards turned up."""
SECONDS_PER_MOVE = 4.0
"""Any other kind of move, at ``--speed 1``."""
ROUND_PAUSE = 8.0
"""Seconds more before the first move of a new round (the scores are looked at)."""
PHYSICAL_TIMEOUT = 5.0
"""How long a move made on the board or before the camera may take to reach the table."""


class PhysicalPath(Protocol):
    """An input that can make an event happen physically (the simulated board or camera)."""

    def perform(self, event: dict[str, Any], state: Any) -> bool:
        """Make the moves for ``event``; ``False`` when this input cannot show it."""
        ...


class DemoPace:
    """How long the bots wait before each move: a human pace at ``speed`` 1, ``speed``
    times faster above it. The same seed gives the same waits.

    >>> pace = DemoPace(speed=2.0, seed=1)
    >>> 0.8 * 4.0 / 2 <= pace.delay({"type": "roll"}) <= 1.25 * 4.0 / 2
    True
    """

    def __init__(self, speed: float = 1.0, seed: int | None = None) -> None:
        if speed <= 0:
            raise ValueError(f"the demo speed must be positive, got {speed}")
        self.speed = speed
        self.rng = random.Random(seed)

    def delay(self, event: Mapping[str, Any], new_round: bool = False) -> float:
        """Seconds before ``event`` is made; ``new_round``: it is a round's first move."""
        think = THINK_SECONDS.get(str(event.get("type")), SECONDS_PER_MOVE)
        seconds = think * self.rng.uniform(0.8, 1.25) + (ROUND_PAUSE if new_round else 0.0)
        return seconds / self.speed


class DemoBots:
    """A table attachment: bots that play one match, then watch."""

    def __init__(
        self,
        *,
        board: PhysicalPath | None = None,
        camera: PhysicalPath | None = None,
        speed: float = 1.0,
        game: str | None = None,
        seed: int | None = None,
    ) -> None:
        self.pace = DemoPace(speed, seed)
        self.paths = [p for p in (board, camera) if p is not None]
        self.delays: list[float] = []
        """Every wait so far, in seconds (what the pace gave)."""
        self.game = game or "catch-mag"
        rules_for(self.game)  # an unknown game fails at start, with the list of games
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.finished = threading.Event()
        self.error: str | None = None

    @contextlib.contextmanager
    def __call__(self, table: TableService) -> Iterator[DemoBots]:
        with _thread_until(self.stop, "demo-bots", lambda: self._run(table)):
            yield self

    # -- the bot thread -------------------------------------------------------

    def _run(self, table: TableService) -> None:
        link = TableLink(table)
        try:
            self._play(table, link)
        except Exception as exc:  # the demo must never take the table down with it
            self.error = f"{type(exc).__name__}: {exc}"
            with contextlib.suppress(Exception):
                link.post(table.report_status, "demo", "disconnected", self.error)
        finally:
            self.finished.set()

    def _play(self, table: TableService, link: TableLink) -> None:
        rules = rules_for(self.game)
        module = importlib.import_module(type(rules).__module__)
        setup = module.random_setup(self.rng, list(BOT_NAMES[: max(2, rules.min_players)]))
        if self.paths and self.game == "catch-mag":
            setup.pop("rods", None)  # a board read by sensors needs no typed layout
        link.run(lambda: table.start_match(setup, actor="demo"))
        last_round: object = None
        while not self.stop.is_set():
            current = link.current()
            if current is None or current.state is None or current.state.finished:
                return  # the table stopped, or the match is over (or cannot go on)
            state = current.state
            count = current.events
            event = rules.random_event(state, self.rng)
            round_now = state.round
            delay = self.pace.delay(event, new_round=last_round not in (None, round_now))
            last_round = round_now
            self.delays.append(delay)
            if self.stop.wait(delay):
                return
            if self._events(link) != count:
                continue  # a phone entered something meanwhile: choose afresh
            if not self._physically(link, event, state, count):
                try:
                    link.submit(event, actor="demo")
                except TableEventError as exc:
                    # Another phone got there first: the next move is chosen afresh.
                    self.error = str(exc)

    @staticmethod
    def _events(link: TableLink) -> int:
        """Events in the current match now (-1: no match, or the table stopped)."""
        current = link.current()
        return current.events if current is not None else -1

    def _physically(
        self, link: TableLink, event: dict[str, Any], state: Any, count: int
    ) -> bool:
        """Make the move on the board or before the camera and wait until the table has it."""
        for path in self.paths:
            if path.perform(event, state):
                deadline = PHYSICAL_TIMEOUT
                step = 0.02
                while deadline > 0 and not self.stop.is_set():
                    if self._events(link) > count:
                        return True
                    self.stop.wait(step)
                    deadline -= step
                return True  # not seen: the board shows a warning; the next move retries
        return False


# -- the simulated table at rest -------------------------------------------------------

SHOWCASE_CARDS = 5
"""Cards on the simulated table at rest: never 4, which a Star Catcher table could take
for the deal."""
CENTRE_FREE_GAMES = frozenset({"star-plus", "cant-catch-harry"})
"""Games whose play is in front of the seats: cards in the centre are not a move."""


class SimShowcase:
    """A table attachment: cards lie on the simulated table when nothing there is a move.

    With no card match followed (no match, a Catch Mag match) or a match whose cards are
    played in front of the seats (Star Plus, Can't Catch Harry), a few cards of the deck the
    camera reads lie in the centre; the camera page shows them outlined and named. A Star
    Catcher or Collector match is played in the centre: its table stays the players'.
    """

    def __init__(self, feed: CameraFeed, period: float = 0.5) -> None:
        self.feed = feed
        self.period = period
        self.stop = threading.Event()

    @contextlib.contextmanager
    def __call__(self, table: TableService) -> Iterator[SimShowcase]:
        with _thread_until(self.stop, "sim-showcase", self._run):
            yield self

    def _run(self) -> None:
        while not self.stop.wait(self.period):
            with contextlib.suppress(Exception):  # a look that fails is tried again
                self.step()

    def step(self) -> bool:
        """One look at the table: lay the cards out if it is empty and nothing there would
        be a move; whether they were laid."""
        sim = self.feed.sim
        if sim is None or not self.feed.running or sim.cards:
            return False
        if not self._centre_free():
            return False
        sim.show(sim.showcase(SHOWCASE_CARDS), wait=False)
        if not self._centre_free():  # a centre game started meanwhile: its table is clear
            sim.clear(wait=False)
            return False
        return True

    def _centre_free(self) -> bool:
        game = self.feed.followed_game()
        return game is None or game in CENTRE_FREE_GAMES


# -- the simulated camera's hands -------------------------------------------------------


class CameraHands:
    """Moves cards in front of the simulated camera of a running :class:`CameraFeed`."""

    def __init__(self, feed: CameraFeed) -> None:
        self.feed = feed

    def perform(self, event: Mapping[str, Any], state: Any) -> bool:
        """Make the simulated hands do ``event`` in front of the simulated camera.

        ``state`` is the engine's state before the event. Returns ``False``
        when the camera cannot show it (a phone-only event, no room on the
        table, no simulated camera running); send such events another way.
        """
        from vision.simtable import SimTableError

        sim = self.feed.sim
        if sim is None or not self.feed.running:
            return False
        game = self.feed.followed_game()  # a new match resets the simulated table first
        if game is None:
            return False
        moves = {"star-catcher": self._star_catcher, "star-plus": self._star_plus,
                 "cant-catch-harry": self._harry, "collector": self._collector}.get(game)
        try:
            return moves is not None and moves(sim, dict(event), state)
        except (SimTableError, TableEventError):  # no room, or a move the rules refuse
            return False

    def _star_catcher(self, sim: SimTable, event: dict[str, Any], state: Any) -> bool:
        kind = event.get("type")
        if kind == "table":
            sim.show([c for c in sim.cards if c.zone != "centre"])  # last round's leftovers
            return sim.show(sim.with_added(event["cards"], "centre"))
        if kind != "play":
            return False
        from companion.games.star_catcher import RULES as STAR_CATCHER

        STAR_CATCHER.play(state, event)  # a move the rules refuse is not made at all
        take = list(event.get("take") or [])
        placed = sim.with_added([event["card"]], "centre")
        if take:
            sim.with_removed(take, "centre")  # all there? (raises before anything moves)
        with self.feed.hand_over_table():
            sim.show(placed)
            if take:
                sim.show(sim.with_removed([event["card"], *take], "centre"))
        return True

    def _star_plus(self, sim: SimTable, event: dict[str, Any], state: Any) -> bool:
        from companion.inputs.camera import UNREAD_PATIENCE
        from vision.adapters import StarPlusAdapter

        if event.get("type") != "play":
            return False  # draws are entered on the phone
        zone = f"seat:{event['player']}"
        # the played cards are laid out in front of the player, then gathered onto the
        # points pile once the camera has read them (a pile shows only its top card)
        with self.feed.hand_over_table():
            for card in event["cards"]:  # one at a time: the order is the play's
                sim.show(sim.with_added([card], zone))
        deadline = (time.monotonic() + self.feed.flush_after * (UNREAD_PATIENCE + 1)
                    + PHYSICAL_TIMEOUT)
        while time.monotonic() < deadline:
            adapter = self.feed.adapter
            if not isinstance(adapter, StarPlusAdapter) or not adapter.pending:
                break
            time.sleep(0.02)
        sim.show([c for c in sim.cards if c.zone != zone])
        return True

    def _harry(self, sim: SimTable, event: dict[str, Any], state: Any) -> bool:
        from companion.inputs.camera import CameraFeedError

        if event.get("type") != "round":
            return False
        layout = [c for c in sim.cards if c.zone == "centre"]
        for player, hand in event["hands"].items():
            layout = sim.with_added(hand, f"seat:{player}", layout)
        sim.show(layout)
        try:
            self.feed.show_round(event["moths"])
        except CameraFeedError:
            return False
        finally:
            sim.clear()  # the cards go back to the deck for the next round
        return True

    def _collector(self, sim: SimTable, event: dict[str, Any], state: Any) -> bool:
        """Targets in the centre, a card (and a second) put next to its target, collected
        cards taken off camera (to the player's collection, face up or down alike), refills
        dealt into the centre. The reveal is the phone's."""
        from companion.games.collector import RULES as COLLECTOR
        from companion.games.collector import outcome
        from vision.simtable import SimTableError

        if event.get("type") != "play":
            return False
        COLLECTOR.play(state, event)  # a move the rules refuse is not made at all
        done = outcome(state, event["player"], event["target"], event["card"],
                       event.get("second"), aces=event.get("aces"))
        # the table as the rules have it first (a phone's entry may have been made by hand)
        targets = [str(c) for c in state.targets]
        layout = [c for c in sim.cards if c.zone == "centre" and c.card in targets]
        missing = [t for t in targets if t not in {c.card for c in layout}]
        if layout != sim.cards or missing:
            sim.show(sim.with_added(missing, "centre", layout))
        second = event.get("second")

        def beside() -> list[Any]:
            placed = sim.with_beside(event["card"], event["target"])
            if second is not None:
                placed = sim.with_beside(second, event["target"], ignore=[event["card"]],
                                         base=placed)
            return placed

        try:
            placed = beside()
        except SimTableError:  # no room beside the target: push the targets apart first
            sim.show(sim.spread())
            placed = beside()
        with self.feed.hand_over_table():
            sim.show(placed[:-1] if second is not None else placed)
            if second is not None:
                sim.show(placed)
            gone = [str(c) for c in (*done.to_face_up, *done.to_face_down)]
            if gone:  # into the collection, out of the camera's view
                sim.show(sim.with_removed(gone, "centre"))
            refill = list(event.get("refill") or [])
            if refill:
                sim.show(sim.with_added(refill, "centre"))
        return True


@contextlib.contextmanager
def _thread_until(stop: threading.Event, name: str, target: Callable[[], None],
                  ) -> Iterator[None]:
    """Run ``target`` in a daemon thread for the length of the block; at its end, set
    ``stop`` and give the thread 10 s to finish."""
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=10)
