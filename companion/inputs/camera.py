"""The overhead camera as a table input: frames in, card-game table events out.

:class:`CameraFeed` is a table attachment (see :mod:`companion.inputs`). While
the service runs, one worker thread reads the camera (a webcam, the Pi camera,
a replayed video or image folder, or the simulated table) at a bounded frame
rate, never queueing frames: a slow frame means the next one is simply read
later. Each frame goes through the vision pipeline (detect, identify, track)
and every stable change of the table goes to the adapter of the current
match's game, whose events are entered with ``actor="camera"`` through the
same rules check as a phone's entry.

The table's match is the authority. The adapter proposes events to its own
copy of the match; whenever that copy and the table's match differ (a phone
entered or corrected something, the table refused a reading), the adapter is
rebuilt from the table's events and what the camera sees now.

What the camera enters, per game:

* Star Catcher: the ``table`` deal and every ``play``: the cards taken away
  together with the played card are its catch; a played card the table has
  been still after for ``flush_after`` seconds caught nothing.
* Star Plus: every ``play``: the cards laid in front of the player (the
  seat's area), sent once the table has been still for ``flush_after``
  seconds; they are then gathered onto the points pile (taking cards away
  enters nothing). Draws come from the phone.
* Can't Catch Harry: the ``round``: the hands shown in front of each seat
  are read by the camera when a phone sends the moths
  (``POST /api/camera/round``, :meth:`CameraFeed.show_round`).
* Collector: every ``play``: a card (and a second) put next to a target,
  settled by what leaves the table (the target; with an equal card both, then
  the refill dealt) or, when nothing leaves, by ``flush_after`` seconds of
  stillness (no match). An Ace's value that changes only the collection,
  which of several face-down cards is flipped, and the ``reveal`` of the
  hands at the end come from the phone.

The link status (``camera``) is ``connected`` while frames arrive, ``lost``
when none came for ``lost_after`` seconds (a pulled cable, the end of a
replay), and back to ``connected`` by itself when frames return. A deck that
is not enrolled is reported on the same status.

OpenCV is imported only here and in :mod:`vision`, so a table with
``camera = none`` never loads it.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from companion.config import CameraSection
from companion.games.errors import TableEventError
from companion.games.match import Match
from companion.service.session import SessionError
from vision.adapters import (
    CollectorAdapter,
    HarryAdapter,
    StarCatcherAdapter,
    StarPlusAdapter,
)
from vision.calibration import CalibrationError, TableGeometry
from vision.enrolled import EnrollmentError, Gallery, default_store
from vision.pipeline import Detection, Recognizer
from vision.simtable import SimCameraSource, SimTable, SimTableError, rendered_gallery
from vision.sources import (
    CameraUnavailable,
    FrameSource,
    PiCameraSource,
    ReplaySource,
    WebcamSource,
)
from vision.tracker import TableState, Tracker

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from companion.service.table import TableService

    Image = NDArray[np.uint8]

log = logging.getLogger(__name__)
T = TypeVar("T")

ACTOR = "camera"
STATUS_SOURCE = "camera"
DECKS: Mapping[str, str] = {
    "star-catcher": "star-catcher",
    "star-plus": "star-plus",
    "cant-catch-harry": "cant-catch-harry",
    "collector": "standard",
}
"""The deck each card game is played with."""
SEATED_GAMES = frozenset({"star-plus", "cant-catch-harry"})
"""Games whose cards lie in front of the seats (the camera needs calibration markers)."""
MAX_FPS = 10.0
"""Frames per second the worker reads at most (the Pi 4 goal)."""
LOST_AFTER = 1.5
"""Seconds without a frame before the camera counts as lost."""
REOPEN_SECONDS = 2.0
"""How often a camera that could not be opened is tried again."""
FLUSH_AFTER = 2.0
"""Seconds a Star Plus pile must stay still before its cards are sent as one play."""
QUIET_FRAMES = 8
"""Frames without a change or motion before a play counts as over (with ``flush_after``)."""
UNREAD_PATIENCE = 4.0
"""A play with a card not read yet waits this many times ``flush_after`` for a better read."""
SYNC_SECONDS = 0.25
"""How often the feed checks the table's match when nothing changes on camera."""
NOTICE_SECONDS = 20.0
"""How long a warning stays on the dashboard."""
LOOP_TIMEOUT = 5.0
EDGE_SHARE = 0.08
"""Detections this close (in table widths and heights) to a corner marker are dropped."""
TABLE_MM = (600.0, 400.0)
"""The play area's nominal size: zones are fractions of it, so any size works."""


class CameraFeedError(ValueError):
    """The camera feed cannot do what was asked (no camera, no round to read)."""


@dataclass(frozen=True)
class CurrentMatch:
    """What the feed needs to know about the table's current match, read on the event loop."""

    match_id: int
    game: str | None
    log: tuple[dict[str, Any], ...]
    """The setup, then every accepted event (copies)."""


def open_camera(config: CameraSection, sim: SimTable | None) -> FrameSource:
    """The frame source a ``[camera]`` section names; :class:`CameraUnavailable` if absent."""
    size = (config.width, config.height)
    if config.source == "sim":
        if sim is None:
            raise CameraUnavailable("the simulated camera has no table to look at")
        return SimCameraSource(sim)
    if config.source == "webcam":
        return WebcamSource(config.index, size)
    if config.source == "picamera2":
        return PiCameraSource(size)
    if config.source == "file":
        if config.path is None:
            raise CameraUnavailable("[camera] source = file needs a path (a video or a folder "
                                    "of images)")
        return ReplaySource(config.path)
    raise CameraUnavailable(f"[camera] source {config.source!r} is not a camera")


Adapter = StarCatcherAdapter | StarPlusAdapter | HarryAdapter | CollectorAdapter


class CameraFeed:
    """The overhead camera, attached to a running table.

    ``CameraFeed(config)(table)`` is a context manager: entering starts the
    worker thread (which opens the camera, and keeps trying if it cannot),
    leaving stops it and closes the camera. ``store`` is where enrolled decks
    live (default: :func:`vision.enrolled.default_store`); ``source_factory``
    replaces :func:`open_camera`.
    """

    def __init__(self, config: CameraSection, *, store: Path | None = None,
                 source_factory: Callable[[CameraSection, SimTable | None], FrameSource]
                 | None = None,
                 max_fps: float = MAX_FPS, lost_after: float = LOST_AFTER,
                 flush_after: float = FLUSH_AFTER) -> None:
        if config.source == "none":
            raise CameraFeedError("the [camera] source is 'none': there is no camera to attach")
        if max_fps <= 0:
            raise CameraFeedError(f"max_fps must be positive, got {max_fps}")
        self.config = config
        self.store = store
        self.source_factory = source_factory or open_camera
        self.max_fps, self.lost_after, self.flush_after = max_fps, lost_after, flush_after
        self.sim = (SimTable("star-catcher", size=(config.width, config.height))
                    if config.source == "sim" else None)
        self._worker: _Worker | None = None
        self.holding = 0

    def __call__(self, table: TableService) -> AbstractContextManager[CameraFeed]:
        return self._running(table)

    @contextmanager
    def _running(self, table: TableService) -> Iterator[CameraFeed]:
        worker = _Worker(self, table)
        worker.start()
        self._worker = worker
        try:
            yield self
        finally:
            self._worker = None
            worker.stop()

    # -- for the service's routes and the demo ----------------------------------

    @property
    def running(self) -> bool:
        return self._worker is not None

    @property
    def source(self) -> FrameSource | None:
        worker = self._worker
        return worker.source if worker is not None else None

    def live_jpeg(self, width: int = 960) -> bytes | None:
        """The last frame, every detected card outlined and named; ``None`` before one."""
        worker = self._worker
        if worker is None:
            return None
        with worker.lock:
            frame, detections = worker.last_frame, list(worker.last_detections)
        if frame is None:
            return None
        from vision.liveview import jpeg

        return jpeg(frame, detections, width=min(width, frame.shape[1]))

    def show_round(self, moths: Mapping[str, str], timeout: float = LOOP_TIMEOUT
                   ) -> list[dict[str, Any]]:
        """Can't Catch Harry: read the shown hands now and enter the round with ``moths``.

        Returns the events entered; raises :class:`CameraFeedError` saying why
        none was (no Harry match, unreadable hands, a refusal).
        """
        worker = self._worker
        if worker is None:
            raise CameraFeedError("the camera is not running")
        return worker.request_round(dict(moths), timeout)

    @property
    def warnings(self) -> list[str]:
        worker = self._worker
        return worker.warning_texts() if worker is not None else []

    @property
    def adapter(self) -> Adapter | None:
        """The game adapter following the current match (read-only use)."""
        worker = self._worker
        return worker.adapter if worker is not None else None

    @property
    def frames(self) -> int:
        """Frames the camera delivered and the feed looked at since it started."""
        worker = self._worker
        return worker.frames if worker is not None else 0

    @property
    def warning_count(self) -> int:
        """How many warnings the camera has given since it started (to notice a new one)."""
        worker = self._worker
        return worker.warned if worker is not None else 0

    @property
    def following(self) -> int | None:
        """The match whose events the camera enters now, or ``None``."""
        worker = self._worker
        return worker.match_id if worker is not None and worker.adapter is not None else None

    @contextmanager
    def hand_over_table(self) -> Iterator[None]:
        """While inside, a play is not over however still the table is (the simulated
        hands move between frames, not in them; a real hand would show as motion)."""
        self.holding += 1
        try:
            yield
        finally:
            self.holding -= 1

    def perform(self, event: Mapping[str, Any], state: Any) -> bool:
        """Make the simulated hands do ``event`` in front of the simulated camera.

        ``state`` is the engine's state before the event. Returns ``False``
        when the camera cannot show it (a phone-only event, no room on the
        table, no simulated camera running); send such events another way.
        """
        sim, worker = self.sim, self._worker
        if sim is None or worker is None:
            return False
        try:
            worker.call(worker.sync)  # follow the table's match first: a new one resets the sim
        except (CameraFeedError, TimeoutError):
            return False
        game = worker.game
        if game is None or worker.adapter is None:
            return False
        try:
            return _perform(self, sim, game, dict(event), state)
        except (SimTableError, TableEventError):  # no room, or a move the rules refuse
            return False


# -- the simulated hands ------------------------------------------------------------------


def _perform(feed: CameraFeed, sim: SimTable, game: str, event: dict[str, Any],
             state: Any) -> bool:
    kind = event.get("type")
    if game == "star-catcher":
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
        with feed.hand_over_table():
            sim.show(placed)
            if take:
                sim.show(sim.with_removed([event["card"], *take], "centre"))
        return True
    if game == "star-plus":
        if kind != "play":
            return False  # draws are entered on the phone
        zone = f"seat:{event['player']}"
        # the played cards are laid out in front of the player, then gathered onto the
        # points pile once the camera has read them (a pile shows only its top card)
        with feed.hand_over_table():
            for card in event["cards"]:  # one at a time: the order is the play's
                sim.show(sim.with_added([card], zone))
        deadline = time.monotonic() + feed.flush_after * (UNREAD_PATIENCE + 1) + LOOP_TIMEOUT
        while time.monotonic() < deadline:
            adapter = feed.adapter
            if not isinstance(adapter, StarPlusAdapter) or not adapter.pending:
                break
            time.sleep(0.02)
        sim.show([c for c in sim.cards if c.zone != zone])
        return True
    if game == "cant-catch-harry":
        if kind != "round":
            return False
        layout = [c for c in sim.cards if c.zone == "centre"]
        for player, hand in event["hands"].items():
            layout = sim.with_added(hand, f"seat:{player}", layout)
        sim.show(layout)
        try:
            feed.show_round(event["moths"])
        except CameraFeedError:
            return False
        finally:
            sim.clear()  # the cards go back to the deck for the next round
        return True
    if game == "collector":
        return _perform_collector(feed, sim, event, state)
    return False


def _perform_collector(feed: CameraFeed, sim: SimTable, event: dict[str, Any],
                       state: Any) -> bool:
    """Collector's hands: targets in the centre, a card (and a second) put next to its
    target, collected cards taken off camera (to the player's collection, face up or
    down alike), refills dealt into the centre. The reveal is the phone's."""
    if event.get("type") != "play":
        return False
    from companion.games.collector import RULES as COLLECTOR
    from companion.games.collector import outcome

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
    with feed.hand_over_table():
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


# -- the worker thread ----------------------------------------------------------------------


@dataclass
class _Notice:
    text: str
    shown_at: float


class _Worker:
    """Reads frames, runs the pipeline, follows the table's match, enters events."""

    def __init__(self, feed: CameraFeed, table: TableService) -> None:
        self.feed = feed
        self.table = table
        self.lock = threading.Lock()
        self.source: FrameSource | None = None
        self.last_frame: Image | None = None
        self.last_detections: list[Detection] = []
        self.match_id: int | None = None
        self.game: str | None = None
        self.deck: str | None = None
        self.adapter: Adapter | None = None
        self.recognizer: Recognizer | None = None
        self.geometry: TableGeometry | None = None
        self.tracker = Tracker(zone_of=self._zone_of)
        self.link = ("lost", "opening the camera")
        self.problem = ""
        self._notices: list[_Notice] = []
        self.warned = 0
        self.frames = 0
        """Frames taken from the camera so far."""
        """Warnings given so far (each one counts, shown or expired)."""
        self._requests: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = \
            queue.SimpleQueue()
        self._stop = threading.Event()
        self._reported: tuple[str, str, tuple[str, ...]] | None = None
        self._last_frame_at = time.monotonic()
        self._last_open_try = -REOPEN_SECONDS
        self._last_change_at = time.monotonic()
        self._quiet_frames = 0
        self._last_sync = 0.0
        self._calibrate_at = 0.0
        self._thread = threading.Thread(target=self._run, name="camera-feed", daemon=True)

    # -- life ---------------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=LOOP_TIMEOUT + 2)
        if self.source is not None:
            self.source.close()
            self.source = None

    def call(self, function: Callable[[], T], timeout: float = LOOP_TIMEOUT) -> T:
        """Run ``function`` on the worker thread, between two frames, and wait for it."""
        if not self._thread.is_alive():
            raise CameraFeedError("the camera is not running")
        answer: Future[T] = Future()
        self._requests.put((function, answer))
        return answer.result(timeout)

    def request_round(self, moths: dict[str, str], timeout: float) -> list[dict[str, Any]]:
        return self.call(lambda: self._round(moths), timeout)

    def _run(self) -> None:
        period = 1.0 / self.feed.max_fps
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                self._step()
            except Exception:  # a bug or a stopped loop must not end the feed: log, carry on
                log.exception("the camera feed failed on a frame")
            self._stop.wait(max(0.0, started + period - time.monotonic()))

    def _step(self) -> None:
        frame = self._read()
        now = time.monotonic()
        if frame is None:
            if now - self._last_frame_at > self.feed.lost_after and self.link[0] != "lost":
                # the tracker keeps what it knew: what changed meanwhile shows when frames return
                self.link = ("lost", "no frames from the camera: check its cable or power")
        else:
            self._last_frame_at = now
            if self.link[0] != "connected":
                self.link = ("connected", "")
            self._on_frame(frame)
        if now - self._last_sync >= SYNC_SECONDS:
            self.sync()
        self._answer_requests()
        self._flush_if_still(now)
        self._report()

    def _read(self) -> Image | None:
        if self.source is None:
            now = time.monotonic()
            if now - self._last_open_try < REOPEN_SECONDS:
                return None
            self._last_open_try = now
            try:
                self.source = self.feed.source_factory(self.feed.config, self.feed.sim)
            except CameraUnavailable as exc:
                self.link = ("lost", str(exc)[:200])
                return None
        try:
            return self.source.read()
        except Exception as exc:  # a driver error is a missed frame, not the end of the feed
            log.warning("camera read failed: %s", exc)
            return None

    # -- frames --------------------------------------------------------------------------

    def _zone_of(self, point: tuple[float, float]) -> str | None:
        geometry = self.geometry
        return "centre" if geometry is None else geometry.zone_of(point)

    def _detect(self, frame: Image) -> list[Detection]:
        recognizer = self.recognizer
        if recognizer is None:
            return []
        found = recognizer.detect(frame)
        if self.geometry is not None:  # off the play area: a marker, a cup, a sleeve
            found = [d for d in found if _on_play_area(self.geometry, _centre(d))]
        with self.lock:
            self.last_detections = found
        return found

    def _on_frame(self, frame: Image) -> None:
        self.frames += 1
        with self.lock:
            self.last_frame = frame
        if self.geometry is None and time.monotonic() >= self._calibrate_at:
            self._calibrate(frame)
        if self.recognizer is None:
            with self.lock:
                self.last_detections = []
            return
        before, skipped = self.tracker.state, self.tracker.skipped
        change = self.tracker.update(frame, self._detect)
        self._quiet_frames += 1
        if self.tracker.skipped != skipped:  # a hand is moving: a play may not be over yet
            self._last_change_at = time.monotonic()
            self._quiet_frames = 0
        if change is None:
            return
        self._quiet_frames = 0
        self._last_change_at = time.monotonic()
        self.sync(before)  # a rebuilt adapter must still see this change as new
        adapter = self.adapter
        if adapter is None or isinstance(adapter, HarryAdapter):
            return
        self._enter(adapter.on_change(change), adapter)

    def _calibrate(self, frame: Image) -> None:
        players: tuple[str, ...] = ()
        if self.adapter is not None:
            players = self.adapter.match.players
        try:
            self.geometry = TableGeometry.from_markers(frame, TABLE_MM, players)
        except CalibrationError:
            self.geometry = None  # no markers: the whole picture is the centre
            self._calibrate_at = time.monotonic() + REOPEN_SECONDS

    # -- the table's match ------------------------------------------------------------

    def _current(self) -> CurrentMatch | None:
        table = self.table

        def read() -> CurrentMatch | None:
            session = table.session
            if session.current is None:
                return None
            record = session.matches[session.current]
            game = record.setup.get("game")
            match = record.match
            log_ = tuple(match.log()) if match is not None else ()
            return CurrentMatch(record.id, game if isinstance(game, str) else None, log_)

        loop = table.loop
        if loop is None or loop.is_closed():
            return None
        return table.run_from_thread(read, LOOP_TIMEOUT)

    def sync(self, seen: TableState | None = None) -> None:
        """Follow the table's current match; rebuild the adapter when it and the table differ.

        ``seen``: the table as the adapter should believe it is (default: the tracker's).
        """
        self._last_sync = time.monotonic()
        current = self._current()
        if current is None or current.game not in DECKS or not current.log:
            if self.adapter is not None:
                self.adapter, self.match_id, self.game = None, None, None
            return
        if current.match_id != self.match_id or current.game != self.game:
            self._follow(current)
            return
        adapter = self.adapter
        if adapter is not None and adapter.match.events != list(current.log[1:]):
            self._rebuild(current, seen)

    def _follow(self, current: CurrentMatch) -> None:
        assert current.game is not None
        self.match_id, self.game = current.match_id, current.game
        deck = DECKS[current.game]
        self.problem = ""
        players = tuple(str(p) for p in current.log[0].get("players", ()))
        if self.feed.sim is not None:
            # seat areas need calibration markers; a centre-only game shows the other way
            # the camera works: uncalibrated, the whole picture is the centre
            self.feed.sim.reset(deck, players, markers=current.game in SEATED_GAMES)
        if deck != self.deck or self.recognizer is None:
            self.recognizer = self._recognizer(deck)
            self.deck = deck if self.recognizer is not None else None
        self.geometry = None  # the seats changed: calibrate again on the next frame
        self._calibrate_at = 0.0
        self.tracker = Tracker(zone_of=self._zone_of)
        self._rebuild(current)

    def _recognizer(self, deck: str) -> Recognizer | None:
        if deck == "standard":
            return Recognizer("standard")
        if self.feed.sim is not None:
            return Recognizer(rendered_gallery(deck))
        try:
            return Recognizer(Gallery.load(self.feed.store or default_store(), deck))
        except EnrollmentError:
            self.problem = (f"deck {deck} is not enrolled: run companion vision enroll "
                            f"--deck {deck} --from PHOTOS (or --camera) to teach it the cards")
            return None

    def _rebuild(self, current: CurrentMatch, seen: TableState | None = None) -> None:
        """A fresh adapter on the table's match, knowing what the camera sees."""
        if self.recognizer is None:
            self.adapter = None
            return
        match = Match.from_events(current.log)
        seen = seen or self.tracker.state
        centre = {c.track: c for c in seen.in_zone("centre")}
        adapter: Adapter
        if current.game == "star-catcher":
            sc = StarCatcherAdapter(match)
            sc.centre = dict(centre)
            if not match.finished and not match.summary().get("table_dealt", True):
                sc._stale = set(centre)  # left from the last round: cleared before the deal
            adapter = sc
        elif current.game == "star-plus":
            adapter = StarPlusAdapter(match)
        elif current.game == "cant-catch-harry":
            adapter = HarryAdapter(match)
        else:
            co = CollectorAdapter(match)
            co.centre = dict(centre)
            adapter = co
        self.adapter = adapter

    # -- events --------------------------------------------------------------------------

    def _enter(self, events: list[dict[str, Any]], adapter: Adapter) -> list[dict[str, Any]]:
        entered = []
        for event in events:
            described = ", ".join(f"{k} {v}" for k, v in event.items() if k != "type")
            try:
                self.table.submit_from_thread(event, actor=ACTOR, timeout=LOOP_TIMEOUT)
            except (TableEventError, SessionError) as refusal:
                self._warn(f"the camera saw a {event.get('type')} ({described}) but the table "
                           f"refused it: {refusal}; enter it on a phone if it was right")
                break  # the adapter is out of step now: the next sync rebuilds it
            except TimeoutError:
                self._warn(f"the camera saw a {event.get('type')} ({described}) but the table "
                           "did not confirm it in time: check the match on a phone")
                break
            entered.append(event)
        for text in adapter.warnings:
            self._warn(f"camera: {text}")
        adapter.warnings.clear()
        if len(entered) != len(events):
            self.sync()
        return entered

    def _flush_if_still(self, now: float) -> None:
        """A play the table has been still after is settled: a Star Plus pile is complete,
        a Star Catcher or Collector card that nobody took with it caught nothing."""
        adapter = self.adapter
        still = now - self._last_change_at
        # still for long enough, and for enough frames: a slow machine is not a still table
        if still < self.feed.flush_after or self._quiet_frames < QUIET_FRAMES \
                or self.feed.holding:
            return
        if isinstance(adapter, StarPlusAdapter):
            pending = list(adapter.pending)
        elif isinstance(adapter, StarCatcherAdapter):
            pending = [] if adapter.pending is None else [adapter.pending]
        elif isinstance(adapter, CollectorAdapter):
            # a card whose target stayed caught nothing (no match: the card stays a target)
            pending = [] if adapter.equal is not None else [c for c, _ in adapter.pending]
        else:
            return
        if not pending:
            return
        if any(c.card is None for c in pending) and still < UNREAD_PATIENCE * self.feed.flush_after:
            return  # more quiet frames may settle the vote on an unread card
        self._enter(adapter.flush(), adapter)

    def _answer_requests(self) -> None:
        while True:
            try:
                function, answer = self._requests.get_nowait()
            except queue.Empty:
                return
            try:
                answer.set_result(function())
            except Exception as exc:  # the caller gets it, in its own thread
                answer.set_exception(exc)

    def _round(self, moths: dict[str, str]) -> list[dict[str, Any]]:
        self.sync()
        adapter = self.adapter
        if not isinstance(adapter, HarryAdapter):
            raise CameraFeedError("the current match is not a Can't Catch Harry match the "
                                  "camera follows")
        events = adapter.round_shown(self.tracker.state, moths)
        problems = list(adapter.warnings)
        entered = self._enter(events, adapter)
        if not entered:
            raise CameraFeedError("; ".join(problems) or "the table refused the shown round")
        return entered

    # -- status ------------------------------------------------------------------------

    def _warn(self, text: str) -> None:
        self.warned += 1
        with self.lock:
            self._notices = [n for n in self._notices if n.text != text]
            self._notices.append(_Notice(text, time.monotonic()))
            del self._notices[:-10]  # the dashboard shows at most ten

    def warning_texts(self) -> list[str]:
        now = time.monotonic()
        with self.lock:
            self._notices = [n for n in self._notices if now - n.shown_at < NOTICE_SECONDS]
            return [n.text for n in self._notices]

    def _report(self) -> None:
        state, detail = self.link
        if state == "connected" and self.problem:
            detail = self.problem
        warnings = tuple(self.warning_texts())
        current = (state, detail, warnings)
        if current == self._reported:
            return
        loop = self.table.loop
        if loop is None or loop.is_closed():
            return
        self._reported = current
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            self.table.call_from_thread(self.table.report_status, STATUS_SOURCE, state,
                                        detail, list(warnings))


def _on_play_area(geometry: TableGeometry, point: tuple[float, float]) -> bool:
    """Inside the markers' rectangle, away from its corners (the markers lie there: a
    marker's white border can pass for an unreadable card)."""
    x, y = geometry.to_table(point)
    w, h = geometry.size_mm
    inside = 0 <= x <= w and 0 <= y <= h
    near_corner = min(x, w - x) < EDGE_SHARE * w and min(y, h - y) < EDGE_SHARE * h
    return inside and not near_corner


def _centre(detection: Detection) -> tuple[float, float]:
    c = detection.quad.mean(axis=0)
    return float(c[0]), float(c[1])


__all__ = ["CameraFeed", "CameraFeedError", "open_camera"]
