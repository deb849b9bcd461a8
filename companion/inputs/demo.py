"""Demo bots: play a whole match through the table's real paths, to watch on a phone.

``companion serve --demo`` seats three bots and plays a match of the chosen game.
Each move is chosen by the engine's own random legal playout, then made the
way a person at the table would make it: a rod or ball moved on the board
(sensors → interpreter), cards shown to the camera, or a tap on the phone for
what only a phone enters (die rolls, choices). So the demo exercises the same
code a real table does, and the dashboard shows it at human pace.
"""

from __future__ import annotations

import contextlib
import importlib
import random
import threading
from collections.abc import Iterator
from typing import Any, Protocol

from companion.games import rules_for
from companion.games.errors import TableEventError
from companion.service.table import TableService

BOT_NAMES = ("Ann", "Ben", "Cy")
SECONDS_PER_MOVE = 1.5
"""Human pace at ``--speed 1``: a move every second and a half."""
PHYSICAL_TIMEOUT = 5.0
"""How long a move made on the board or before the camera may take to reach the table."""


class PhysicalPath(Protocol):
    """An input that can make an event happen physically (the simulated board or camera)."""

    def perform(self, event: dict[str, Any], state: Any) -> bool:
        """Make the moves for ``event``; ``False`` when this input cannot show it."""
        ...


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
        if speed <= 0:
            raise ValueError(f"the demo speed must be positive, got {speed}")
        self.paths = [p for p in (board, camera) if p is not None]
        self.pause = SECONDS_PER_MOVE / speed
        self.game = game or "catch-mag"
        rules_for(self.game)  # an unknown game fails at start, with the list of games
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.finished = threading.Event()
        self.error: str | None = None

    @contextlib.contextmanager
    def __call__(self, table: TableService) -> Iterator[DemoBots]:
        thread = threading.Thread(target=self._run, args=(table,), name="demo-bots", daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self.stop.set()
            thread.join(timeout=10)

    # -- the bot thread -------------------------------------------------------

    def _run(self, table: TableService) -> None:
        try:
            self._play(table)
        except Exception as exc:  # the demo must never take the table down with it
            self.error = f"{type(exc).__name__}: {exc}"
            with contextlib.suppress(Exception):
                table.call_from_thread(table.report_status, "demo", "disconnected", self.error)
        finally:
            self.finished.set()

    def _play(self, table: TableService) -> None:
        rules = rules_for(self.game)
        module = importlib.import_module(type(rules).__module__)
        setup = module.random_setup(self.rng, list(BOT_NAMES[: max(2, rules.min_players)]))
        if self.paths and self.game == "catch-mag":
            setup.pop("rods", None)  # a board read by sensors needs no typed layout
        table.run_from_thread(lambda: table.start_match(setup, actor="demo"))
        while not self.stop.wait(self.pause):
            record = table.run_from_thread(lambda: table.session.match())
            match = record.match
            if match is None or match.finished:
                return
            state = match.state
            count = len(record.entries)
            event = rules.random_event(state, self.rng)
            if not self._physically(table, event, state, count):
                try:
                    table.submit_from_thread(event, actor="demo")
                except TableEventError as exc:
                    # Another phone got there first: the next move is chosen afresh.
                    self.error = str(exc)

    def _physically(
        self, table: TableService, event: dict[str, Any], state: Any, count: int
    ) -> bool:
        """Make the move on the board or before the camera and wait until the table has it."""
        for path in self.paths:
            if path.perform(event, state):
                deadline = PHYSICAL_TIMEOUT
                step = 0.02
                while deadline > 0 and not self.stop.is_set():
                    seen = table.run_from_thread(lambda: len(table.session.match().entries))
                    if seen > count:
                        return True
                    self.stop.wait(step)
                    deadline -= step
                return True  # not seen: the board shows a warning; the next move retries
        return False
