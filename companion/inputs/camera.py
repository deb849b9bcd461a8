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
  hands at the end come from the phone; the phone can prefill the reveal from
  the hands shown in front of the seats (:meth:`CameraFeed.shown_hands`).

:meth:`CameraFeed.shown_hands` is a read-only preview for the phone's hands
forms (a Harry round, the Collector reveal): the cards read in front of each
seat, and how many there could not be read. It enters nothing: the phone
sends the event, checked, as the player's own.

The link status (``camera``) is ``connected`` while frames arrive, ``lost``
when none came for ``lost_after`` seconds (a pulled cable, the end of a
replay), and back to ``connected`` by itself when frames return. A deck that
is not enrolled is reported on the same status.

Setting the camera up from a phone (the ``/camera`` page): teaching it an
enrolled deck one card at a time (:meth:`CameraFeed.enroll_start` and the
other ``enroll_*`` methods; while a deck is taught the camera enters
nothing), and the four corners of the play area tapped on the live view
(:meth:`CameraFeed.set_corners`), kept in the data directory. Tapped corners
win over the printed markers; clearing them goes back to the markers.

OpenCV is imported only here and in :mod:`vision`, so a table with
``camera = none`` never loads it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
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
from vision import standard as standard_deck
from vision.adapters import (
    CollectorAdapter,
    HarryAdapter,
    StarCatcherAdapter,
    StarPlusAdapter,
    read_seats,
)
from vision.calibration import CalibrationError, TableGeometry
from vision.decks import deck_ids
from vision.enroll import Enroller, card_name
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


TEACHABLE: Mapping[str, str] = {
    "star-catcher": "Star Catcher",
    "star-plus": "Star Plus",
    "cant-catch-harry": "Can't Catch Harry",
}
"""The decks a phone can teach the camera (the standard deck needs no teaching)."""
CORNERS_FILE = "camera-corners.json"
"""Where the tapped corners are kept, in the table's data directory."""
THUMB_SIZE = (100, 140)


class CameraFeedError(ValueError):
    """The camera feed cannot do what was asked (no camera, no round to read)."""

    status = 409
    """The HTTP status the service answers with (it does not import this module)."""


class CameraRequestError(CameraFeedError):
    """The request itself is wrong (an unknown deck, corners that outline no table)."""

    status = 400


class CameraNotFound(CameraFeedError):
    """The thing asked for is not there (a card not captured yet)."""

    status = 404


class CameraNotReady(CameraFeedError):
    """The camera cannot answer yet (no frames now, the markers not looked for yet): ask
    again in ``retry_after`` seconds."""

    status = 503
    retry_after = 1.0


SHOWN_HANDS_GAMES = frozenset({"cant-catch-harry", "collector"})
"""Games whose hands are shown in front of the seats (a Harry round, the Collector reveal)."""


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
                 flush_after: float = FLUSH_AFTER, corners_file: Path | None = None) -> None:
        if config.source == "none":
            raise CameraFeedError("the [camera] source is 'none': there is no camera to attach")
        if max_fps <= 0:
            raise CameraFeedError(f"max_fps must be positive, got {max_fps}")
        self.config = config
        self.store = store
        self.corners_file = corners_file
        """Default: ``camera-corners.json`` beside the table's event store."""
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

        return jpeg(frame, detections, width=min(width, frame.shape[1]),
                    geometry=worker.geometry)

    # -- setting the camera up from a phone ---------------------------------------------

    def _running_worker(self) -> _Worker:
        worker = self._worker
        if worker is None:
            raise CameraFeedError("the camera is not running")
        return worker

    def enroll_start(self, deck: str, restart: bool = False) -> dict[str, Any]:
        """Start teaching ``deck``; while it is being taught already, join in (or start
        again from its first card with ``restart``). Another deck being taught is refused
        unless ``restart``."""
        if deck not in TEACHABLE:
            raise CameraRequestError(f"the camera cannot be taught deck {deck!r}; expected one "
                                     f"of {', '.join(TEACHABLE)}")
        worker = self._running_worker()
        return worker.call(lambda: worker.teach(deck, restart))

    def enroll_redo(self) -> dict[str, Any]:
        """Forget the card captured last, to show it again."""
        worker = self._running_worker()
        return worker.call(worker.teach_redo)

    def enroll_cancel(self) -> dict[str, Any]:
        """Stop teaching; the deck as it was before stays."""
        worker = self._running_worker()
        return worker.call(worker.teach_cancel)

    def enroll_status(self) -> dict[str, Any]:
        """The teaching's progress and what to tell the user now (cheap: for polling)."""
        return self._running_worker().teach_status()

    def enroll_thumbnail(self, index: int) -> bytes:
        """The captured picture of the deck's card number ``index`` (0-based), as JPEG."""
        return self._running_worker().thumbnail(index)

    def corners(self) -> dict[str, Any]:
        """How the camera knows the table: ``tapped`` corners, ``markers`` or ``none``."""
        return self._running_worker().corners_status()

    def set_corners(self, points: Any) -> dict[str, Any]:
        """Use and keep four tapped corners (frame pixels: TL, TR, BR, BL)."""
        worker = self._running_worker()
        return worker.call(lambda: worker.tap_corners(points))

    def clear_corners(self) -> dict[str, Any]:
        """Forget the tapped corners: the markers (or nothing) calibrate again."""
        worker = self._running_worker()
        return worker.call(worker.untap_corners)

    def show_round(self, moths: Mapping[str, str], timeout: float = LOOP_TIMEOUT
                   ) -> list[dict[str, Any]]:
        """Can't Catch Harry: read the shown hands now and enter the round with ``moths``.

        Returns the events entered; raises :class:`CameraFeedError` saying why
        none was (no Harry match, unreadable hands, a refusal).
        """
        return self._running_worker().request_round(dict(moths), timeout)

    def shown_hands(self, timeout: float = LOOP_TIMEOUT) -> dict[str, Any]:
        """The hands shown in front of each seat now, for the phone to prefill its form.

        ``{"match", "game", "hands": {player: [card, ...]}, "unread": {player: n},
        "notes": [plain sentences]}``; enters nothing. Raises
        :class:`CameraNotReady` when the camera cannot tell yet (ask again) and
        :class:`CameraFeedError` saying why it cannot (no Harry or Collector match,
        no seat areas without the markers, a deck not enrolled).
        """
        worker = self._running_worker()
        return worker.call(worker.hands, timeout)

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
    def gallery(self) -> Gallery | None:
        """The references the camera reads the current match's deck with (``None``: the
        standard deck, or no deck enrolled)."""
        worker = self._worker
        recognizer = worker.recognizer if worker is not None else None
        return recognizer.gallery if recognizer is not None else None

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
        self.taught: dict[str, Gallery] = {}
        """Decks taught from a phone while running: used at once, before any stored one."""
        self.enroller: Enroller | None = None
        self._teaching: dict[str, Any] = _idle_teaching()
        self._faces: dict[str, Image] = {}
        self.tapped: tuple[tuple[tuple[float, float], ...], tuple[int, int]] | None = None
        """Tapped corners and the frame size they were tapped on."""
        self.corners_file = feed.corners_file or table.store.path.parent / CORNERS_FILE
        self.tapped = load_corners(self.corners_file)
        self._thread = threading.Thread(target=self._run, name="camera-feed", daemon=True)

    # -- life ---------------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()
        # The standard deck learns its templates from renders on first use: do it now, off
        # the frame loop, so a Collector match's first cards are not held up by it. Not a
        # daemon: one killed inside OpenCV at exit aborts the interpreter; exit waits instead.
        threading.Thread(target=standard_deck.prepare, name="standard-deck-prepare").start()

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
        if self.enroller is not None:
            self._teach_frame(frame)  # the cards shown are for learning, not for the game
            return
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
        if self.tapped is not None:  # set on purpose on the phone: they win over markers
            corners = _scaled(self.tapped, (frame.shape[1], frame.shape[0]))
            try:
                self.geometry = TableGeometry.from_points(corners, TABLE_MM, players)
                return
            except CalibrationError:
                log.warning("the tapped corners do not fit this camera; using the markers")
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
        if deck in self.taught:
            return Recognizer(self.taught[deck])
        if self.feed.sim is not None:
            return Recognizer(rendered_gallery(deck))
        try:
            return Recognizer(Gallery.load(self.feed.store or default_store(), deck))
        except EnrollmentError as exc:
            if self._enrolled(deck):
                # taught once, but not readable now (by an older version, or damaged): say
                # so, not that it was never taught
                self.problem = str(exc)
                return None
            self.problem = (f"deck {deck} is not enrolled: run companion vision enroll "
                            f"--deck {deck} --from PHOTOS (or --camera), or tap 'Teach a "
                            "deck' on the camera page (/camera), to teach it the cards")
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
        if self.enroller is not None:
            return  # paused while a deck is taught
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
        if self.enroller is not None:  # the tracker is paused: what it holds is stale
            raise CameraFeedError("the camera is learning a deck now; finish or cancel that "
                                  "first, or enter the round on the phone")
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

    def hands(self) -> dict[str, Any]:
        """The preview behind :meth:`CameraFeed.shown_hands` (on the worker thread)."""
        self.sync()
        if self.link[0] != "connected":
            raise CameraNotReady(f"the camera is not delivering frames ({self.link[1] or 'lost'})"
                                 "; check its cable or power, or tap the hands in")
        if self.enroller is not None:  # the tracker is paused meanwhile: it would show stale cards
            raise CameraFeedError("the camera is learning a deck now; finish or cancel that "
                                  "first, or tap the hands in")
        adapter, game = self.adapter, self.game
        if game not in SHOWN_HANDS_GAMES or adapter is None:
            if self.problem:
                raise CameraFeedError(self.problem)
            raise CameraFeedError("the camera reads shown hands only in a Can't Catch Harry or "
                                  "Collector match; start one first")
        geometry = self.geometry
        if geometry is None:
            if self._calibrate_at == 0.0:  # a new match: its first frame looks for the markers
                raise CameraNotReady("the camera is still looking for the table's markers")
            raise CameraFeedError("the camera does not know where each seat's area is: lay the "
                                  "four ArUco markers at the play area's corners (first player "
                                  "along the bottom edge) or tap the corners on the camera page, "
                                  "or tap the hands in")
        players = adapter.match.players
        seats = read_seats(self.tracker.state, players, geometry.zone_of)
        notes = []
        for player, seat in seats.items():
            if seat.unread:
                cards = "1 card" if seat.unread == 1 else f"{seat.unread} cards"
                notes.append(f"{cards} in {player}'s area could not be read: show "
                             f"{'it' if seat.unread == 1 else 'them'} flat or tap "
                             f"{'it' if seat.unread == 1 else 'them'} in")
        return {"match": self.match_id, "game": game,
                "hands": {p: list(s.cards) for p, s in seats.items()},
                "unread": {p: s.unread for p, s in seats.items()}, "notes": notes}

    # -- teaching a deck (on the worker thread, except the status) -------------------------

    def teach(self, deck: str, restart: bool) -> dict[str, Any]:
        current = self.enroller
        if current is not None and not restart:
            # a second phone joining in must not throw away what the first one taught
            if current.deck == deck:
                return self.teach_status()
            raise CameraFeedError(
                f"the camera is being taught {TEACHABLE[current.deck]} "
                f"({len(current.faces)} of {len(current.cards)} cards): carry on with it, "
                "or cancel it first")
        self.enroller = Enroller(deck, deck_ids(deck))
        self._publish_teaching(hint="", message="")
        return self.teach_status()

    def teach_redo(self) -> dict[str, Any]:
        enroller = self._active_enroller()
        card = enroller.undo()
        if card is None:
            raise CameraFeedError("no card has been captured yet: there is nothing to redo")
        self._publish_teaching(hint="", message=f"{card_name(enroller.deck, card)} forgotten: "
                                                "show it again")
        return self.teach_status()

    def teach_cancel(self) -> dict[str, Any]:
        enroller = self._active_enroller()
        self.enroller = None
        self._publish_teaching(message=f"Cancelled: the camera's {TEACHABLE[enroller.deck]} "
                                       "cards are as they were", deck=enroller.deck)
        return self.teach_status()

    def _active_enroller(self) -> Enroller:
        if self.enroller is None:
            raise CameraFeedError("no deck is being taught: start one first")
        return self.enroller

    def teach_status(self) -> dict[str, Any]:
        with self.lock:
            status = dict(self._teaching)
        status["decks"] = [{"deck": deck, "name": name, "cards": len(deck_ids(deck)),
                            "enrolled": self._enrolled(deck)}
                           for deck, name in TEACHABLE.items()]
        return status

    def _enrolled(self, deck: str) -> bool:
        store = self.feed.store or default_store()
        return deck in self.taught or (store / deck / "deck.json").is_file()

    def thumbnail(self, index: int) -> bytes:
        with self.lock:
            faces = self._faces
            deck = self._teaching.get("deck")
        cards = deck_ids(deck) if isinstance(deck, str) else ()
        if not 0 <= index < len(cards) or cards[index] not in faces:
            raise CameraNotFound(f"card number {index} has not been captured")
        import cv2

        small = cv2.resize(faces[cards[index]], THUMB_SIZE, interpolation=cv2.INTER_AREA)
        ok, data = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 80])
        if not ok:
            raise CameraNotFound(f"card number {index} could not be encoded")
        return bytes(data)

    def _teach_frame(self, frame: Image) -> None:
        enroller = self.enroller
        assert enroller is not None
        geometry = self.geometry
        said = enroller.offer(frame, None if geometry is None else
                              lambda quad: _on_play_area(geometry, _centre_of(quad)))
        with self.lock:
            self.last_detections = [Detection(None, q, 0.0) for q in enroller.last_quads]
        if said.startswith("that looks like "):
            known = said.removeprefix("that looks like ").split(",")[0]
            said = f"That is {card_name(enroller.deck, known)}, shown already: take it away"
        elif said == "only one card at a time, please":
            said = "Only one card at a time, please"
        elif said == "hold still":
            said = "Hold still…"
        elif said == "show one card":
            said = ""
        if not said.startswith("captured "):
            if said != self._teaching["hint"]:
                self._publish_teaching(hint=said)
            return
        if enroller.next_card is not None:
            self._publish_teaching(hint="", message="")
            return
        try:
            gallery = enroller.gallery()
            gallery.save(self.feed.store or default_store())
        except (EnrollmentError, OSError) as exc:
            enroller.undo()  # the last card again, once the problem is solved
            self._publish_teaching(hint="", message=f"The deck could not be saved ({exc}); "
                                                    "show the last card again to retry")
            return
        self.enroller = None
        self._use_taught(gallery)
        self._publish_teaching(finished=True, deck=enroller.deck, faces=dict(enroller.faces),
                               message=f"Saved: the camera knows the {len(enroller.cards)} "
                                       f"{TEACHABLE[enroller.deck]} cards")

    def _use_taught(self, gallery: Gallery) -> None:
        """The running feed reads ``gallery``'s deck with it from now on."""
        self.taught[gallery.deck] = gallery
        if self.deck != gallery.deck and not (self.game and DECKS.get(self.game) == gallery.deck):
            return
        self.recognizer = Recognizer(gallery)
        self.deck, self.problem = gallery.deck, ""
        if self.adapter is None:
            self.match_id = None  # not followed for want of the deck: follow it afresh

    def _publish_teaching(self, hint: str | None = None, message: str | None = None,
                          finished: bool = False, deck: str | None = None,
                          faces: dict[str, Image] | None = None) -> None:
        enroller = self.enroller
        status = dict(self._teaching)
        if enroller is not None:
            card = enroller.next_card
            cards = enroller.cards
            status.update(active=True, finished=False, deck=enroller.deck,
                          card=card, done=len(enroller.faces), total=len(cards),
                          prompt=(f"Lay {card_name(enroller.deck, card)} alone in view"
                                  if card is not None else "Saving…"))
            faces = dict(enroller.faces)
        else:
            cards = deck_ids(deck) if deck is not None else ()
            status.update(active=False, finished=finished, deck=deck, card=None, hint="",
                          prompt="", done=len(faces or {}), total=len(cards))
        faces = faces or {}
        deck_name = status["deck"]
        status["captured"] = [{"index": i, "card": c, "name": card_name(deck_name, c)}
                              for i, c in enumerate(cards) if c in faces]
        if hint is not None:
            status["hint"] = hint
        if message is not None:
            status["message"] = message
        status["version"] = int(status["version"]) + 1
        with self.lock:
            self._teaching = status
            self._faces = faces

    # -- tapped corners ------------------------------------------------------------------

    def corners_status(self) -> dict[str, Any]:
        tapped, geometry = self.tapped, self.geometry
        with self.lock:
            frame = self.last_frame
        size = None if frame is None else [int(frame.shape[1]), int(frame.shape[0])]
        corners = None
        if tapped is not None:
            at = _scaled(tapped, (size[0], size[1])) if size is not None else tapped[0]
            corners = [[round(x, 1), round(y, 1)] for x, y in at]
        source = "tapped" if tapped is not None else "markers" if geometry is not None \
            else "none"
        return {"source": source, "corners": corners, "frame": size}

    def tap_corners(self, points: Any) -> dict[str, Any]:
        with self.lock:
            frame = self.last_frame
        if frame is None:
            raise CameraFeedError("the camera has not delivered a picture yet: the corners "
                                  "are tapped on the live view")
        size = (int(frame.shape[1]), int(frame.shape[0]))
        players = self.adapter.match.players if self.adapter is not None else ()
        try:
            geometry = TableGeometry.from_tapped(points, size, TABLE_MM, players)
        except CalibrationError as exc:
            raise CameraRequestError(str(exc)) from None
        corners = tuple(_as_pairs(points))
        try:
            _save_corners(self.corners_file, corners, size)
        except OSError as exc:
            raise CameraFeedError(f"the corners could not be kept ({exc}); try again") from None
        self.tapped = (corners, size)
        self.geometry = geometry
        return self.corners_status()

    def untap_corners(self) -> dict[str, Any]:
        with contextlib.suppress(FileNotFoundError):
            self.corners_file.unlink()
        self.tapped = None
        self.geometry = None  # the markers, when the camera sees them, on the next frame
        self._calibrate_at = 0.0
        return self.corners_status()

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


def _idle_teaching() -> dict[str, Any]:
    return {"active": False, "finished": False, "deck": None, "card": None, "prompt": "",
            "hint": "", "message": "", "done": 0, "total": 0, "captured": [], "version": 0}


def _as_pairs(points: Any) -> list[tuple[float, float]]:
    return [(float(p[0]), float(p[1])) for p in points]


def _scaled(tapped: tuple[tuple[tuple[float, float], ...], tuple[int, int]],
            size: tuple[int, int]) -> list[tuple[float, float]]:
    """Tapped corners for a frame of ``size`` (the camera's resolution may have changed)."""
    corners, (w, h) = tapped
    sx, sy = size[0] / w, size[1] / h
    return [(x * sx, y * sy) for x, y in corners]


def _save_corners(path: Path, corners: tuple[tuple[float, float], ...],
                  size: tuple[int, int]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"corners": [list(c) for c in corners], "frame": list(size)}),
                   encoding="utf-8")
    os.replace(tmp, path)


def load_corners(path: Path) -> tuple[tuple[tuple[float, float], ...], tuple[int, int]] | None:
    """The kept corners, or ``None`` (none kept, or a file that is not ours: markers then)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        corners = tuple(_as_pairs(data["corners"]))
        w, h = (int(v) for v in data["frame"])
        TableGeometry.from_tapped(list(corners), (w, h), TABLE_MM)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        log.warning("ignoring the kept camera corners in %s: %s", path, exc)
        return None
    return corners, (w, h)


def _on_play_area(geometry: TableGeometry, point: tuple[float, float]) -> bool:
    """Inside the markers' rectangle, away from its corners (the markers lie there: a
    marker's white border can pass for an unreadable card)."""
    x, y = geometry.to_table(point)
    w, h = geometry.size_mm
    inside = 0 <= x <= w and 0 <= y <= h
    near_corner = min(x, w - x) < EDGE_SHARE * w and min(y, h - y) < EDGE_SHARE * h
    return inside and not near_corner


def _centre_of(quad: Any) -> tuple[float, float]:
    c = quad.mean(axis=0)
    return float(c[0]), float(c[1])


def _centre(detection: Detection) -> tuple[float, float]:
    c = detection.quad.mean(axis=0)
    return float(c[0]), float(c[1])


__all__ = ["CameraFeed", "CameraFeedError", "CameraNotReady", "open_camera"]
