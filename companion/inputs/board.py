"""The Catch Mag board as a table input: sensor changes in, table events out.

:class:`BoardFeed` is a table attachment (see :mod:`companion.inputs`). While the
service runs it holds the sensor source open (the Pico over serial, the Pi's
GPIO, or the simulated board), shows the link state and any "put it back"
warnings on the dashboard as the ``board`` status, and runs one thread that
feeds every sensor change to :class:`~hardware.interpreter.CatchMagInterpreter`
with the current match's state and enters what it recognises with
``actor="board"``, through the same rules check as a phone's entry.

Threads: the source's reader thread only hands changes and link reports on; the
feed thread does the interpreting. It never reads the table from its own
thread: the current match's (immutable) state is fetched on the event loop,
and events go in with :meth:`TableService.submit_from_thread`.

Reading a move when it is finished: every change goes to the interpreter at once
(the phones see the move in progress, "Ann lifted the Catch Mag…"), and the feed
thread wakes when the board has been quiet for the settle time
(:data:`hardware.interpreter.SETTLE_S`) to read the move as a whole and enter
what it means. It also reads the board again whenever the match changed (a roll
tapped after the rod was already in the station is then read as the catch), and
tells the interpreter about every phone entry, undo and correction, so its
belief is rebuilt from the match and the board (a correction is never undone
by the board; where the two disagree the phones say so).

Timing: a change is judged against the match as it stood when the change came
in, not when the feed gets round to it. Each change passes through the event
loop on its way to the feed queue and is stamped there with the match as it is
at that moment; if phones have entered events since (and the board none), the
change is judged against the stamped state. So a Catch Mag put back just
before a roll is tapped stays "put back before the roll", however busy the Pi.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.config import BoardSection
from companion.games.errors import TableEventError
from companion.service.session import SessionError
from hardware.boardmap import BoardMap, load_board_map
from hardware.connect import make_source, setup_problems
from hardware.interpreter import BoardWarning, CatchMagInterpreter, Revision
from hardware.simulated import SimulatedBoard
from hardware.simulated import perform as perform_on_board
from hardware.sources import LinkStatus, SensorChange, SensorSource

if TYPE_CHECKING:
    from companion.service.table import TableService

log = logging.getLogger(__name__)

GAME = "catch-mag"
ACTOR = "board"
STATUS_SOURCE = "board"
TICK_SECONDS = 0.25
"""How often the feed looks at the match for entries made on the phones."""
NOTICE_SECONDS = 20.0
"""How long a warning of the feed's own (a refused entry) stays up if nobody acts on it."""
LOOP_TIMEOUT = 5.0
"""How long the feed thread waits for the event loop before giving up on one step."""


@dataclass(frozen=True)
class CurrentMatch:
    """What the feed needs to know about the table's current match, read on the event loop."""

    match_id: int
    game: str | None
    state: Any
    """The rules engine's state (immutable), or ``None`` when the match cannot take events."""
    events: int = 0
    """Events entered in the match so far."""
    entries: tuple[tuple[int, str, Any], ...] = ()
    """Each entry's id, actor and event, in order (an edit changes the event)."""

    def judge_against(self, seen: CurrentMatch | None) -> Any:
        """The state to judge a change against that was stamped with ``seen`` on arrival.

        ``seen``'s state when only phones have added events since (they came after the
        change); otherwise this state (the board's own events must count, and an undo
        or a correction since makes the old state history).
        """
        if (seen is None or seen.match_id != self.match_id or seen.state is None
                or len(self.entries) <= len(seen.entries)
                or self.entries[:len(seen.entries)] != seen.entries
                or any(e[1] == ACTOR for e in self.entries[len(seen.entries):])):
            return self.state
        return seen.state


@dataclass
class _Shown:
    warning: BoardWarning
    shown_at: float
    setup: bool = False
    """The board is not set up for the new match: it stays until it is, or play starts."""


def _spec(config: BoardSection) -> str:
    """The :func:`hardware.connect.make_source` spec for a ``[board]`` section.

    >>> _spec(BoardSection(source="serial", device="/dev/catch-mag"))
    '/dev/catch-mag'
    >>> _spec(BoardSection(source="gpio"))
    'gpio'
    """
    return config.device if config.source == "serial" else config.source


class BoardFeedError(ValueError):
    """The board feed cannot be used as asked (no source configured)."""


class BoardFeed:
    """The Catch Mag board, attached to a running table.

    ``BoardFeed(config)(table)`` is a context manager: entering opens the
    sensor source and starts the feed thread, leaving stops both promptly.
    ``source_factory`` replaces :func:`hardware.connect.make_source` (tests).
    """

    def __init__(self, config: BoardSection, *,
                 source_factory: Callable[[str, BoardMap], SensorSource] | None = None,
                 tick_seconds: float = TICK_SECONDS) -> None:
        if config.source == "none":
            raise BoardFeedError("the [board] source is 'none': there is no board to attach")
        self.config = config
        self.board = load_board_map(config.map)
        self.source_factory = source_factory or make_source
        self.tick_seconds = tick_seconds
        self.source: SensorSource | None = None
        self._feed: _Feed | None = None

    def __call__(self, table: TableService) -> AbstractContextManager[BoardFeed]:
        return self._running(table)

    @contextmanager
    def _running(self, table: TableService) -> Iterator[BoardFeed]:
        source = self.source_factory(_spec(self.config), self.board)
        feed = _Feed(table, source, self.board, self.tick_seconds)
        # Subscribe before opening so the first link report and the first snapshot are seen.
        unsubscribe = [source.subscribe(feed.on_change), source.subscribe_status(feed.on_status)]
        try:
            source.open()
            self.source, self._feed = source, feed
            feed.start()
            yield self
        finally:
            for stop in unsubscribe:
                stop()
            feed.stop()
            source.close()
            self.source, self._feed = None, None

    @property
    def simulator(self) -> SimulatedBoard | None:
        """The simulated board's hands while a ``sim`` source runs, else ``None``."""
        simulator = getattr(self.source, "simulator", None)
        return simulator if isinstance(simulator, SimulatedBoard) else None

    def perform(self, event: Mapping[str, Any], state: Any,
                stations: Mapping[str, int] | None = None) -> bool:
        """Make the simulated hands do ``event`` on the board (demo bots, end-to-end tests).

        ``state`` is the Catch Mag state before the event. Returns ``False`` when
        the board cannot show it: a phone-only event (a roll, a declined super
        joker), or no simulated board running; send such events another way.
        """
        simulator = self.simulator
        if simulator is None:
            return False
        return perform_on_board(simulator, event, state, stations)

    @property
    def following(self) -> int | None:
        """The Catch Mag match whose events the board enters now, or ``None``."""
        feed = self._feed
        return feed.match_id if feed is not None else None

    @property
    def picture(self) -> frozenset[str] | None:
        """The sensors the feed believes see a magnet (``None`` before the board synced)."""
        feed = self._feed
        return feed.picture if feed is not None else None

    @property
    def warnings(self) -> list[str]:
        """The warnings on the dashboard now (empty when the feed is not running)."""
        feed = self._feed
        return feed.warning_texts() if feed is not None else []


_STOP = object()


def _read_current(table: TableService) -> CurrentMatch | None:
    """The current match as it stands (call on the event loop)."""
    session = table.session
    if session.current is None:
        return None
    record = session.matches[session.current]
    game = record.setup.get("game")
    state = record.match.state if record.match is not None else None
    return CurrentMatch(record.id, game if isinstance(game, str) else None, state,
                        len(record.entries),
                        tuple((e.id, e.actor, e.event) for e in record.entries))


class _Feed:
    """The feed thread: interprets changes against the current match and enters events."""

    def __init__(self, table: TableService, source: SensorSource, board: BoardMap,
                 tick_seconds: float) -> None:
        self.table = table
        self.source = source
        self.board = board
        self.tick_seconds = tick_seconds
        self.interpreter = CatchMagInterpreter(board)
        self.picture: frozenset[str] | None = None
        """The sensors seen, as of the last change handled; ``None`` before the first sync."""
        self.match_id: int | None = None
        """The Catch Mag match the interpreter follows, or ``None`` (changes only tracked)."""
        self.awaiting_setup = False
        """A new match waits for the board to be set up: changes are tracked, not interpreted."""
        self.link = LinkStatus("lost", "opening the board")
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._shown: list[_Shown] = []
        self._lock = threading.Lock()
        self._reported: tuple[str, str, tuple[str, ...]] | None = None
        self._texts: list[str] = []
        """The warnings as last reported (read from other threads)."""
        self._known: tuple[tuple[int, str, Any], ...] | None = None
        """The match's entries as the interpreter last followed them."""
        self._thread = threading.Thread(target=self._run, name="board-feed", daemon=True)

    # -- from the source's reader thread: only queue ------------------------------

    def on_change(self, change: SensorChange) -> None:
        self._via_loop(change)

    def on_status(self, status: LinkStatus) -> None:
        # Read now, in the reader thread: the source's belief exactly as of this report.
        self._via_loop((status, self.source.snapshot()))

    def _via_loop(self, item: object) -> None:
        """Queue ``item`` stamped with the match as it stands now, read on the event loop.

        Going through the loop keeps the order of changes, and puts each change before
        any phone entry the loop handles after it arrived.
        """
        loop = self.table.loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._stamp, item)
                return
            except RuntimeError:  # the loop closed meanwhile: the service is stopping
                pass
        self._queue.put((item, None))

    def _stamp(self, item: object) -> None:
        """On the event loop: queue ``item`` with the current match."""
        try:
            seen = _read_current(self.table)
        except Exception:  # never lose a change over a stamp
            log.exception("could not read the current match for %r", item)
            seen = None
        self._queue.put((item, seen))

    # -- life --------------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._queue.put(_STOP)
        if self._thread.is_alive():
            self._thread.join(timeout=LOOP_TIMEOUT + 1)

    def warning_texts(self) -> list[str]:
        with self._lock:
            return list(self._texts)

    def _run(self) -> None:
        next_tick = time.monotonic() + self.tick_seconds
        while True:
            wake = next_tick
            due = self.interpreter.due() if self.match_id is not None else None
            if due is not None:
                wake = min(wake, due)
            try:
                item = self._queue.get(timeout=max(0.0, wake - time.monotonic()))
            except queue.Empty:
                item = None
            if item is _STOP:
                return
            try:
                if isinstance(item, tuple):
                    self._handle(*item)
                due = self.interpreter.due()
                if due is not None and time.monotonic() >= due:
                    self._read()
                if time.monotonic() >= next_tick:
                    next_tick = time.monotonic() + self.tick_seconds
                    self._on_tick()
                self._report()
            except Exception:  # a bug or a stopped loop must not end the feed: log, carry on
                log.exception("the board feed failed on %r", item)

    def _handle(self, item: object, seen: CurrentMatch | None) -> None:
        """One queued item: a change (with the match as it was when it came in) or a
        link report (with the source's belief as of that report)."""
        if isinstance(item, SensorChange):
            self._on_change(item, seen)
        elif isinstance(item, tuple):
            self._on_status(*item)

    # -- the table, read and written on its event loop ----------------------------------

    def _current(self) -> CurrentMatch | None:
        table = self.table

        async def read() -> CurrentMatch | None:
            return _read_current(table)

        loop = table.loop
        if loop is None or loop.is_closed():
            return None
        return asyncio.run_coroutine_threadsafe(read(), loop).result(LOOP_TIMEOUT)

    def _follow(self, current: CurrentMatch | None) -> Any:
        """The current Catch Mag state, or ``None``; resyncs on a new match."""
        if current is None or current.game != GAME or current.state is None:
            if self.match_id is not None:
                self.match_id = None
                self._known = None
                self.awaiting_setup = False
                self._set_warnings([])
            return None
        picture = self.picture or frozenset()
        if current.match_id != self.match_id:
            # A new Catch Mag match (or another one made current): start from the board
            # as it is now, with nothing in flight and no old warnings.
            self.match_id = current.match_id
            self._known = None
            self.interpreter.reset(picture)
            self._set_warnings([])
            self.awaiting_setup = False
            if current.events == 0 and setup_problems(self.board, picture):
                # Setting the board up moves rods in ways no rule allows: wait for it
                # rather than warn about every move.
                self.awaiting_setup = True
                self._check_setup()
        elif self.awaiting_setup and current.events > 0:
            self._end_setup()  # play started anyway (a dead sensor, say): follow from here
        return current.state

    def _check_setup(self) -> None:
        """While waiting for the set-up: say what is left to do, or end the wait."""
        problems = setup_problems(self.board, self.picture or frozenset())
        if not problems:
            self._end_setup()
            return
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        shown = _Shown(BoardWarning(f"set the board up for a new game: {problems[0]}{more}"),
                       time.monotonic(), setup=True)
        with self._lock:
            self._shown = [shown, *(s for s in self._shown if not s.setup)]

    def _end_setup(self) -> None:
        self.awaiting_setup = False
        self.interpreter.reset(self.picture or frozenset())
        with self._lock:
            self._shown = [s for s in self._shown if not s.setup]

    # -- handling ------------------------------------------------------------------------

    def _sync(self, current: CurrentMatch | None, state: Any) -> None:
        """Tell the interpreter what others did to the match since it last looked."""
        if current is None or state is None:
            self._known = None
            return
        now, known = current.entries, self._known
        self._known = now
        if known is None or now == known:
            return
        if now[:len(known)] == known:
            if any(e[1] != ACTOR for e in now[len(known):]):
                self.interpreter.follow(state, corrected=False)
        else:  # an undo, an edit or a deletion: the board does not enter it again
            self.interpreter.follow(state, corrected=True)

    def _on_change(self, change: SensorChange, seen: CurrentMatch | None = None) -> None:
        if self.picture is None:
            self.picture = self.source.snapshot()
        current = self._current()
        state = self._follow(current)  # a resync uses the picture before this change
        before = self.picture
        self.picture = (before | {change.sensor_id} if change.present
                        else before - {change.sensor_id})
        self._drop_acted_on(change.sensor_id)
        if state is None or current is None:
            return
        if self.awaiting_setup:
            self._check_setup()
            return
        self._sync(current, state)
        for reading in self.interpreter.feed(change, current.judge_against(seen)):
            if isinstance(reading, BoardWarning):
                self._warn(reading)

    def _read(self) -> None:
        """Read the board (settled, or the match changed) and enter what it means."""
        for _ in range(5):  # each entry changes the match: read again, until nothing new
            current = self._current()
            state = self._follow(current)
            if state is None or current is None or self.awaiting_setup:
                return
            self._sync(current, state)
            entered = False
            for reading in self.interpreter.settle(time.monotonic(), state):
                if isinstance(reading, BoardWarning):
                    self._warn(reading)
                elif isinstance(reading, Revision):
                    entered = self._revise(reading) or entered
                else:
                    entered = self._submit(reading) or entered
            if not entered:
                return

    def _entered(self) -> None:
        """The board's own entry went in: the interpreter need not follow it."""
        current = self._current()
        if current is not None:
            self._known = current.entries

    def _submit(self, event: dict[str, Any]) -> bool:
        described = ", ".join(f"{k} {v}" for k, v in event.items() if k != "type")
        try:
            self.table.submit_from_thread(event, actor=ACTOR, timeout=LOOP_TIMEOUT)
        except (TableEventError, SessionError) as refusal:
            # The table moved on between reading the state and entering (a phone's undo).
            self._warn(BoardWarning(f"the board saw a {event.get('type')} ({described}) but the "
                                    f"table refused it: {refusal}; enter it on a phone if it "
                                    "was right"))
            return False
        except TimeoutError:
            log.warning("the table did not answer in time for %r", event)
            self._warn(BoardWarning(f"the board saw a {event.get('type')} ({described}) but the "
                                    "table did not confirm it in time: check the match on a "
                                    "phone"))
            return False
        self._entered()
        return True

    def _revise(self, revision: Revision) -> bool:
        """Replace the board's last entry of ``revision.old`` by ``revision.new``."""
        table = self.table

        def edit() -> str | None:
            record = table.session.match()
            for entry in reversed(record.entries):
                if entry.actor == ACTOR and entry.event == revision.old:
                    if table.session.check_edit(record.id, entry.id, revision.new):
                        return "later entries would no longer fit"
                    table.edit(record.id, entry.id, revision.new, ACTOR)
                    return None
            return "the board's entry is no longer in the match"

        try:
            problem = table.run_from_thread(edit, timeout=LOOP_TIMEOUT)
        except (TableEventError, SessionError) as refusal:
            problem = str(refusal)
        except TimeoutError:
            problem = "the table did not answer in time"
        if problem is not None:
            self._warn(BoardWarning(
                f"the board shows the rod in the {revision.new.get('color')} row, but the "
                f"match counts it as {revision.old.get('color')} and cannot be changed "
                f"({problem}): correct it on a phone, or move the rod back"))
            return False
        self._entered()
        return True

    def _on_status(self, status: LinkStatus, snapshot: frozenset[str]) -> None:
        self.link = status
        if status.state == "connected" and self.picture is None:
            # The first sync: the source reports no changes for it, only this snapshot.
            self.picture = snapshot
            if self.match_id is not None:
                self.interpreter.reset(snapshot)
                if self.awaiting_setup:
                    self._check_setup()

    def _on_tick(self) -> None:
        self._read()  # the match may have changed on a phone: read the board against it
        now = time.monotonic()
        with self._lock:
            self._shown = [s for s in self._shown
                           if s.setup or now - s.shown_at < NOTICE_SECONDS]

    # -- warnings --------------------------------------------------------------------------

    def _warn(self, warning: BoardWarning) -> None:
        with self._lock:
            self._shown = [s for s in self._shown if s.warning.message != warning.message]
            self._shown.append(_Shown(warning, time.monotonic()))
            del self._shown[:-10]  # the dashboard shows at most ten

    def _set_warnings(self, shown: list[_Shown]) -> None:
        with self._lock:
            self._shown = shown

    def _drop_acted_on(self, sensor_id: str) -> None:
        """A notice of the feed's own about a sensor goes once someone touches that sensor."""
        with self._lock:
            self._shown = [s for s in self._shown
                           if s.setup or sensor_id not in s.warning.sensors]

    def _warnings(self) -> list[str]:
        """The feed's own notices, then the interpreter's (the move in progress, or where
        the board and the match disagree)."""
        with self._lock:
            own = [s.warning.message for s in self._shown]
        if self.match_id is None or self.awaiting_setup:
            return own[:10]
        seen = set(own)
        board = [w.message for w in self.interpreter.notices() if w.message not in seen]
        return (own + board)[:10]

    def _report(self) -> None:
        link = self.link
        texts = self._warnings()
        with self._lock:
            self._texts = texts
        warnings = tuple(texts)
        current = (link.state, link.detail, warnings)
        if current == self._reported:
            return
        self._reported = current
        loop = self.table.loop
        if loop is None or loop.is_closed():
            return
        self.table.call_from_thread(self.table.report_status, STATUS_SOURCE, link.state,
                                    link.detail, list(warnings))
