"""The Catch Mag board as a table input: sensor changes in, table events out.

:class:`BoardFeed` is a table attachment (see :mod:`companion.inputs`). While the
service runs it holds the sensor source open (the Pico over serial, the Pi's
GPIO, or the simulated board), shows the link state and any "put it back"
warnings on the dashboard as the ``board`` status, and runs one thread that
feeds every sensor change to :class:`~hardware.interpreter.CatchMagInterpreter`
with the current match's state and enters what it recognises with
``actor="board"``, through the same rules check as a phone's entry.

Threads: the source's reader thread only hands changes and link reports on; the
feed thread (a :class:`~companion.inputs.feed.FeedWorker`) does the
interpreting. It reaches the table only through its
:class:`~companion.inputs.feed.TableLink`: the current match's (immutable)
state is read on the event loop, and events go in through the table's rules
check there.

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

import queue
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

from companion.config import BoardSection
from companion.games.errors import TableEventError
from companion.inputs.feed import CurrentMatch, FeedWorker, TableLink
from companion.service.session import SessionError
from hardware.boardmap import BoardMap, load_board_map
from hardware.connect import make_source, setup_problems
from hardware.interpreter import BoardWarning, CatchMagInterpreter, Revision
from hardware.simulated import SimulatedBoard
from hardware.simulated import perform as perform_on_board
from hardware.sources import LinkStatus, SensorChange, SensorSource

if TYPE_CHECKING:
    from companion.service.table import TableService

GAME = "catch-mag"
ACTOR = "board"
STATUS_SOURCE = "board"
TICK_SECONDS = 0.25
"""How often the feed looks at the match for entries made on the phones."""


def judge_against(current: CurrentMatch, seen: CurrentMatch | None) -> Any:
    """The state to judge a change against that was stamped with ``seen`` on arrival.

    ``seen``'s state when only phones have added events since (they came after the
    change); otherwise ``current``'s state (the board's own events must count, and an
    undo or a correction since makes the old state history).
    """
    if (seen is None or seen.match_id != current.match_id or seen.state is None
            or len(current.entries) <= len(seen.entries)
            or current.entries[:len(seen.entries)] != seen.entries
            or any(e[1] == ACTOR for e in current.entries[len(seen.entries):])):
        return current.state
    return seen.state


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
        self._worker: BoardWorker | None = None

    def __call__(self, table: TableService) -> AbstractContextManager[BoardFeed]:
        return self._running(TableLink(table))

    @contextmanager
    def _running(self, table: TableLink) -> Iterator[BoardFeed]:
        source = self.source_factory(_spec(self.config), self.board)
        worker = BoardWorker(table, source, self.board, self.tick_seconds)
        # Subscribe before opening so the first link report and the first snapshot are seen.
        unsubscribe = [source.subscribe(worker.on_change),
                       source.subscribe_status(worker.on_status)]
        try:
            source.open()
            self.source, self._worker = source, worker
            worker.start()
            yield self
        finally:
            for stop in unsubscribe:
                stop()
            worker.stop()  # closes the source
            self.source, self._worker = None, None

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
        worker = self._worker
        return worker.match_id if worker is not None else None

    @property
    def picture(self) -> frozenset[str] | None:
        """The sensors the feed believes see a magnet (``None`` before the board synced)."""
        worker = self._worker
        return worker.picture if worker is not None else None

    @property
    def warnings(self) -> list[str]:
        """The warnings on the dashboard now (empty when the feed is not running)."""
        worker = self._worker
        return list(worker.shown) if worker is not None else []


_STOP = object()
"""Put on the worker's queue by the stop: the step waiting on it returns."""


class BoardWorker(FeedWorker):
    """The feed thread: interprets changes against the current match and enters events.

    A step waits for what the source hands on (or for the board to settle, or the
    next tick), handles it, reads a settled move and, every ``tick_seconds``,
    reads the board again against the match.
    """

    def __init__(self, table: TableLink, source: SensorSource, board: BoardMap,
                 tick_seconds: float) -> None:
        super().__init__(table, STATUS_SOURCE, period=0.0)  # a step waits for its input
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
        self.connection = LinkStatus("lost", "opening the board")
        self.queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        """What came in (a change, or a link report with the source's belief), each with
        the match as it stood when it came in; or ``_STOP``."""
        self._known: tuple[tuple[int, str, dict[str, Any]], ...] | None = None
        """The match's entries as the interpreter last followed them."""
        self._next_tick = time.monotonic() + tick_seconds

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
        if not self.table.with_current(lambda seen: self.queue.put((item, seen))):
            self.queue.put((item, None))

    # -- the feed thread -------------------------------------------------------------

    def step(self) -> None:
        wake = self._next_tick
        due = self.interpreter.due() if self.match_id is not None else None
        if due is not None:
            wake = min(wake, due)
        try:
            item = self.queue.get(timeout=max(0.0, wake - time.monotonic()))
        except queue.Empty:
            item = None
        if item is _STOP:
            return
        if isinstance(item, tuple):
            self.handle(*item)
        due = self.interpreter.due()
        if due is not None and time.monotonic() >= due:
            self.read()
        if time.monotonic() >= self._next_tick:
            self._next_tick = time.monotonic() + self.tick_seconds
            self.read()  # the match may have changed on a phone: read the board against it

    def wake(self) -> None:
        self.queue.put(_STOP)

    def closing(self) -> None:
        self.source.close()

    def link(self) -> tuple[str, str]:
        return self.connection.state, self.connection.detail

    def warnings(self) -> list[str]:
        """The feed's own notices, then the interpreter's (the move in progress, or where
        the board and the match disagree)."""
        own = self.notices.texts()
        if self.match_id is None or self.awaiting_setup:
            return own[:self.notices.cap]
        seen = set(own)
        board = [w.message for w in self.interpreter.notices() if w.message not in seen]
        return (own + board)[:self.notices.cap]

    def handle(self, item: object, seen: CurrentMatch | None) -> None:
        """One queued item: a change (with the match as it was when it came in) or a
        link report (with the source's belief as of that report)."""
        if isinstance(item, SensorChange):
            self._on_change(item, seen)
        elif isinstance(item, tuple):
            self._on_status(*item)

    # -- following the match -------------------------------------------------------------

    def _follow(self, current: CurrentMatch | None) -> Any:
        """The current Catch Mag state, or ``None``; resyncs on a new match."""
        if current is None or current.game != GAME or current.state is None:
            if self.match_id is not None:
                self.match_id = None
                self._known = None
                self.awaiting_setup = False
                self.notices.clear()
            return None
        picture = self.picture or frozenset()
        if current.match_id != self.match_id:
            # A new Catch Mag match (or another one made current): start from the board
            # as it is now, with nothing in flight and no old warnings.
            self.match_id = current.match_id
            self._known = None
            self.interpreter.reset(picture)
            self.notices.clear()
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
        self.notices.pin(f"set the board up for a new game: {problems[0]}{more}")

    def _end_setup(self) -> None:
        self.awaiting_setup = False
        self.interpreter.reset(self.picture or frozenset())
        self.notices.pin(None)

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

    # -- handling ------------------------------------------------------------------------

    def _on_change(self, change: SensorChange, seen: CurrentMatch | None = None) -> None:
        if self.picture is None:
            self.picture = self.source.snapshot()
        current = self.table.current()
        state = self._follow(current)  # a resync uses the picture before this change
        before = self.picture
        self.picture = (before | {change.sensor_id} if change.present
                        else before - {change.sensor_id})
        self.notices.forget(change.sensor_id)  # someone acted on it
        if state is None or current is None:
            return
        if self.awaiting_setup:
            self._check_setup()
            return
        self._sync(current, state)
        for reading in self.interpreter.feed(change, judge_against(current, seen)):
            if isinstance(reading, BoardWarning):
                self._warn(reading)

    def read(self) -> None:
        """Read the board (settled, or the match changed) and enter what it means."""
        for _ in range(5):  # each entry changes the match: read again, until nothing new
            current = self.table.current()
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
        current = self.table.current()
        if current is not None:
            self._known = current.entries

    def _submit(self, event: dict[str, Any]) -> bool:
        # A refusal: the table moved on between reading the state and entering (an undo).
        if not self.table.enter(event, ACTOR, self.notices):
            return False
        self._entered()
        return True

    def _revise(self, revision: Revision) -> bool:
        """Replace the board's last entry of ``revision.old`` by ``revision.new``."""
        try:
            problem = self.table.replace_own(ACTOR, revision.old, revision.new)
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
        self.connection = status
        if status.state == "connected" and self.picture is None:
            # The first sync: the source reports no changes for it, only this snapshot.
            self.picture = snapshot
            if self.match_id is not None:
                self.interpreter.reset(snapshot)
                if self.awaiting_setup:
                    self._check_setup()

    def _warn(self, warning: BoardWarning) -> None:
        self.notices.add(warning.message, about=warning.sensors)
