"""What every table input shares: one way onto the table, notices, a worker thread.

An input (the board, the camera) runs its own thread next to the service's
event loop. This module is the whole of that seam:

* :class:`TableLink` is the only way an input reaches the table from its
  thread. It reads the current match, enters and corrects events, reports the
  link status and names the data directory, each through the
  :class:`~companion.service.table.TableService`'s own methods on the event
  loop; nothing else in an input touches the session, the store or the loop.
* :class:`Notices` keeps the warnings an input shows on the dashboard: the
  newest last, at most ten, each for a while.
* :class:`FeedWorker` is the thread: it calls :meth:`FeedWorker.step` at a
  bounded rate, logs a failure and carries on, runs what other threads ask
  of it between two steps (:meth:`FeedWorker.call`), and reports the link
  status to the dashboard whenever it changed.

>>> notices = Notices(seconds=60.0, cap=2)
>>> for text in ("one", "two", "one", "three"):
...     notices.add(text)
>>> notices.texts(), notices.given
(['one', 'three'], 4)
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from companion.games.errors import TableEventError
from companion.refusals import InputRefused
from companion.service.session import SessionError

if TYPE_CHECKING:
    from companion.service.table import TableService

log = logging.getLogger(__name__)
T = TypeVar("T")

LOOP_TIMEOUT = 5.0
"""How long an input's thread waits for the event loop before giving up on one step."""
NOTICE_SECONDS = 20.0
"""How long a warning stays on the dashboard."""
MAX_NOTICES = 10
"""The dashboard shows at most this many warnings per input."""


@dataclass(frozen=True)
class CurrentMatch:
    """The table's current match as an input sees it, read on the event loop."""

    match_id: int
    game: str | None
    log: tuple[dict[str, Any], ...]
    """The setup, then every accepted event (copies); empty when the match cannot take any."""
    state: Any
    """The rules engine's state (immutable), or ``None`` when the match cannot take events."""
    entries: tuple[tuple[int, str, dict[str, Any]], ...] = ()
    """Each entry's id, who entered it (its actor) and its event, in order (an edit
    changes the event, not the id)."""

    @property
    def events(self) -> int:
        """Events entered in the match so far."""
        return len(self.entries)


def read_current(table: TableService) -> CurrentMatch | None:
    """The current match as it stands (call on the event loop)."""
    record = table.current_match()
    if record is None:
        return None
    game = record.setup.get("game")
    match = record.match
    return CurrentMatch(record.id, game if isinstance(game, str) else None,
                        tuple(match.log()) if match is not None else (),
                        match.state if match is not None else None,
                        tuple((e.id, e.actor, e.event) for e in record.entries))


class TableLink:
    """An input's one way onto the table, from its own thread.

    Every method may be called from any thread; what touches the table runs
    on the service's event loop. While the service is not running (before
    start, after stop) reads answer ``None`` and reports are dropped.
    """

    def __init__(self, table: TableService) -> None:
        self._table = table

    @property
    def up(self) -> bool:
        """Whether the table's event loop is running."""
        return self._table.running

    def run(self, function: Callable[[], T], timeout: float = LOOP_TIMEOUT) -> T:
        """``function()`` run on the event loop; raises :class:`TimeoutError` if it took
        longer than ``timeout``."""
        return self._table.run_from_thread(function, timeout)

    def post(self, function: Callable[..., object], *args: Any) -> bool:
        """Queue ``function(*args)`` on the event loop; ``False`` when the loop is gone."""
        if not self.up:
            return False
        try:
            self._table.call_from_thread(function, *args)
        except RuntimeError:  # the loop closed meanwhile: the service is stopping
            return False
        return True

    def current(self, timeout: float = LOOP_TIMEOUT) -> CurrentMatch | None:
        """The current match, or ``None`` (no match, or the table not running)."""
        if not self.up:
            return None
        table = self._table
        return self.run(lambda: read_current(table), timeout)

    def with_current(self, function: Callable[[CurrentMatch | None], object]) -> bool:
        """Queue ``function(current match)`` on the event loop: it sees the match as it is
        when the loop gets to it, in order with the phones' entries. ``False`` when the
        loop is gone (``function`` is not called then)."""
        table = self._table

        def stamped() -> None:
            try:
                current = read_current(table)
            except Exception:  # never lose what came in over the stamp
                log.exception("could not read the current match")
                current = None
            function(current)

        return self.post(stamped)

    def submit(self, event: dict[str, Any], actor: str,
               timeout: float = LOOP_TIMEOUT) -> dict[str, Any]:
        """Enter ``event`` as ``actor`` through the table's rules check; a refusal raises
        its ``TableEventError`` (or ``SessionError``) here."""
        return self._table.submit_from_thread(event, actor=actor, timeout=timeout)

    def enter(self, event: dict[str, Any], actor: str, notices: Notices,
              timeout: float = LOOP_TIMEOUT) -> bool:
        """Enter what ``actor`` read; when the table refuses it or does not answer in time,
        say so in ``notices`` (the phones can enter it instead). Whether it went in."""
        described = ", ".join(f"{k} {v}" for k, v in event.items() if k != "type")
        saw = f"the {actor} saw a {event.get('type')} ({described})"
        try:
            self.submit(event, actor, timeout)
        except (TableEventError, SessionError) as refusal:
            notices.add(f"{saw} but the table refused it: {refusal}; enter it on a phone if "
                        "it was right")
            return False
        except TimeoutError:
            log.warning("the table did not answer in time for %r", event)
            notices.add(f"{saw} but the table did not confirm it in time: check the match on "
                        "a phone")
            return False
        return True

    def report(self, source: str, link: str, detail: str, warnings: list[str]) -> bool:
        """Show ``source``'s link state and warnings on the dashboard."""
        return self.post(self._table.report_status, source, link, detail, warnings)

    def replace_own(self, actor: str, old: Mapping[str, Any], new: dict[str, Any],
                    timeout: float = LOOP_TIMEOUT) -> str | None:
        """Put ``new`` in place of ``actor``'s latest entry of ``old`` in the current match.

        ``None`` when done; otherwise why not (the entry is gone, later entries would no
        longer fit). A refusal of ``new`` itself raises its ``TableEventError`` (or
        ``SessionError``) here.
        """
        table = self._table

        def edit() -> str | None:
            record = table.current_match()
            if record is None:
                return "there is no current match"
            for entry in reversed(record.entries):
                if entry.actor == actor and entry.event == old:
                    if table.check_edit(record.id, entry.id, new):
                        return "later entries would no longer fit"
                    table.edit(record.id, entry.id, new, actor)
                    return None
            return f"the {actor}'s entry is no longer in the match"

        return self.run(edit, timeout)

    @property
    def data_dir(self) -> Path:
        """The table's data directory (where an input keeps what it learned)."""
        return self._table.data_dir


@dataclass
class _Notice:
    text: str
    shown_at: float
    about: frozenset[str] = frozenset()


class Notices:
    """Warnings for the dashboard, safe to use from any thread.

    A warning given again moves to the end instead of showing twice; at most
    ``cap`` are kept (the oldest go first) and each goes after ``seconds``.
    A warning may say what it is *about* (the sensors it names): it goes once
    someone acts on one of them (:meth:`forget`). One *pinned* warning says
    what state the input waits in (the board not set up yet): it stays first,
    and never expires until it is pinned again or cleared.

    >>> notices = Notices()
    >>> notices.add("put the rod back on space 9", about={"U9"})
    >>> notices.pin("set the board up for a new game")
    >>> notices.texts()
    ['set the board up for a new game', 'put the rod back on space 9']
    >>> notices.forget("U9")
    >>> notices.pin(None)
    >>> notices.texts()
    []
    """

    def __init__(self, seconds: float = NOTICE_SECONDS, cap: int = MAX_NOTICES,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds, self.cap, self.clock = seconds, cap, clock
        self.given = 0
        """Warnings given so far (each one counts, shown or expired)."""
        self._lock = threading.Lock()
        self._shown: list[_Notice] = []
        self._pinned: str | None = None

    def add(self, text: str, about: Collection[str] = ()) -> None:
        with self._lock:
            self.given += 1
            self._shown = [n for n in self._shown if n.text != text]
            self._shown.append(_Notice(text, self.clock(), frozenset(about)))
            del self._shown[:-self.cap]

    def pin(self, text: str | None) -> None:
        """Show ``text`` first until it is pinned again or cleared (``None``: unpin)."""
        with self._lock:
            if text is not None and text != self._pinned:
                self.given += 1
            self._pinned = text

    def forget(self, about: str) -> None:
        """Drop the warnings about ``about`` (someone acted on it)."""
        with self._lock:
            self._shown = [n for n in self._shown if about not in n.about]

    def clear(self) -> None:
        """Drop every warning, the pinned one too."""
        with self._lock:
            self._shown, self._pinned = [], None

    def texts(self) -> list[str]:
        """The warnings up now: the pinned one, then the others the oldest first."""
        now = self.clock()
        with self._lock:
            self._shown = [n for n in self._shown if now - n.shown_at < self.seconds]
            pinned = [] if self._pinned is None else [self._pinned]
            return pinned + [n.text for n in self._shown]


class FeedStopped(InputRefused):
    """The input's thread is not running (not started yet, or stopped)."""


class FeedWorker(ABC):
    """An input's worker thread, for subclasses to give a :meth:`step` and a :meth:`link`.

    ``period`` is the least time between the starts of two steps. A step that
    raises is logged and the next one runs all the same: a bug or a stopped
    loop must not end the feed. Between steps the thread runs what
    :meth:`call` hands it, then reports ``(link, detail)`` and the notices as
    the ``name`` status whenever they changed.
    """

    def __init__(self, table: TableLink, name: str, period: float) -> None:
        self.table = table
        self.name = name
        """The status source this input reports as (``camera``, ``board``)."""
        self.period = period
        self.notices = Notices()
        self._stop = threading.Event()
        self._requests: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = \
            queue.SimpleQueue()
        self._reported: tuple[str, str, tuple[str, ...]] | None = None
        self.shown: tuple[str, ...] = ()
        """The warnings as last reported (for other threads to read)."""
        self._thread = threading.Thread(target=self._run, name=f"{name}-feed", daemon=True)

    # -- for subclasses ------------------------------------------------------------------

    @abstractmethod
    def step(self) -> None:
        """One turn of the loop (a frame read and handled, say)."""

    @abstractmethod
    def link(self) -> tuple[str, str]:
        """The link state (one of the table's ``LINK_STATES``) and a plain detail."""

    def warnings(self) -> list[str]:
        """The warnings to show now (default: the notices); see :attr:`shown`."""
        return self.notices.texts()

    def wake(self) -> None:  # noqa: B027 (an optional hook: most steps only poll)
        """Called by :meth:`stop` first: end a step that is waiting for input (put a
        sentinel on the queue it blocks on). A step that only polls needs nothing."""

    def closing(self) -> None:  # noqa: B027 (an optional hook: not every input holds a device)
        """Called on the caller's thread once the worker thread has ended (close devices)."""

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    # -- life ----------------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = LOOP_TIMEOUT + 2) -> None:
        """End the thread (after the step under way), refuse what was still asked, close."""
        self._stop.set()
        self.wake()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        self._refuse_requests()
        self.closing()

    def call(self, function: Callable[[], T], timeout: float = LOOP_TIMEOUT) -> T:
        """Run ``function`` on the worker thread, between two steps, and wait for it;
        its exception is raised here. :class:`TimeoutError` if it did not run in time."""
        if not self._thread.is_alive() or self._stop.is_set():
            raise FeedStopped(f"the {self.name} is not running")
        answer: Future[T] = Future()
        self._requests.put((function, answer))
        return answer.result(timeout)

    def report(self) -> None:
        """Show the link status and the notices on the dashboard, if they changed."""
        state, detail = self.link()
        self.shown = tuple(self.warnings())
        current = (state, detail, self.shown)
        if current != self._reported and self.table.report(self.name, state, detail,
                                                           list(current[2])):
            self._reported = current

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                self.step()
            except Exception:
                log.exception("the %s feed failed on a step", self.name)
            try:  # asked and reported even when every step fails (a bug, a broken driver)
                self._answer_requests()
                self.report()
            except Exception:
                log.exception("the %s feed could not report its status", self.name)
            self._stop.wait(max(0.0, started + self.period - time.monotonic()))

    def _answer_requests(self) -> None:
        while not self._stop.is_set():
            try:
                function, answer = self._requests.get_nowait()
            except queue.Empty:
                return
            if not answer.set_running_or_notify_cancel():
                continue
            try:
                answer.set_result(function())
            except Exception as exc:  # the caller gets it, in its own thread
                answer.set_exception(exc)

    def _refuse_requests(self) -> None:
        """Answer what is still queued at once, rather than let its caller time out."""
        while True:
            try:
                _, answer = self._requests.get_nowait()
            except queue.Empty:
                return
            with contextlib.suppress(Exception):  # cancelled or answered meanwhile
                if answer.set_running_or_notify_cancel():
                    answer.set_exception(FeedStopped(f"the {self.name} stopped"))
