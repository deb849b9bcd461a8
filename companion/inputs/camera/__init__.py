"""The overhead camera as a table input: frames in, card-game table events out.

:class:`CameraFeed` is a table attachment (see :mod:`companion.inputs`) and the
one object the service and the demo talk to. Its parts, one job each:

* :mod:`.frames`: the worker thread's frame loop and the link status;
* :mod:`.following`: following the table's match and entering its events;
* :mod:`.teaching`: teaching a deck from a phone;
* :mod:`.corners`: where the play area is (markers, or corners tapped on a phone);
* :mod:`.errors`: the camera's refusals (kinds of :mod:`companion.refusals`).

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
forms (a Harry round, the Collector reveal); it enters nothing.

OpenCV is imported only here and in :mod:`vision`, so a table with
``camera = none`` never loads it. The simulated hands that move cards in front
of the simulated camera for the demo are in :mod:`companion.inputs.demo`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.config import CameraSection
from companion.inputs.camera.corners import CORNERS_FILE, load_corners
from companion.inputs.camera.errors import (
    CameraFeedError,
    CameraNotFound,
    CameraNotReady,
    CameraRequestError,
)
from companion.inputs.camera.following import (
    DECKS,
    FLUSH_AFTER,
    SEATED_GAMES,
    UNREAD_PATIENCE,
    Adapter,
)
from companion.inputs.camera.frames import (
    LOST_AFTER,
    MAX_FPS,
    CameraWorker,
    SourceFactory,
    open_camera,
)
from companion.inputs.camera.teaching import TEACHABLE
from companion.inputs.feed import LOOP_TIMEOUT, TableLink
from vision.enrolled import Gallery, default_store
from vision.simtable import SimTable
from vision.sources import FrameSource

if TYPE_CHECKING:
    from companion.service.table import TableService


class CameraFeed:
    """The overhead camera, attached to a running table.

    ``CameraFeed(config)(table)`` is a context manager: entering starts the
    worker thread (which opens the camera, and keeps trying if it cannot),
    leaving stops it and closes the camera. ``store`` is where enrolled decks
    live (default: :func:`vision.enrolled.default_store`); ``source_factory``
    replaces :func:`open_camera`; ``corners_file`` is where tapped corners are
    kept (default: ``camera-corners.json`` in the table's data directory).
    """

    def __init__(self, config: CameraSection, *, store: Path | None = None,
                 source_factory: SourceFactory | None = None,
                 max_fps: float = MAX_FPS, lost_after: float = LOST_AFTER,
                 flush_after: float = FLUSH_AFTER, corners_file: Path | None = None) -> None:
        if config.source == "none":
            raise CameraFeedError("the [camera] source is 'none': there is no camera to attach")
        if max_fps <= 0:
            raise CameraFeedError(f"max_fps must be positive, got {max_fps}")
        self.config = config
        self.store = store
        self.corners_file = corners_file
        self.source_factory = source_factory or open_camera
        self.max_fps, self.lost_after, self.flush_after = max_fps, lost_after, flush_after
        self.sim = (SimTable("star-catcher", size=(config.width, config.height))
                    if config.source == "sim" else None)
        self._worker: CameraWorker | None = None
        self._hands_over = 0

    def __call__(self, table: TableService) -> AbstractContextManager[CameraFeed]:
        return self._running(TableLink(table))

    @contextmanager
    def _running(self, table: TableLink) -> Iterator[CameraFeed]:
        worker = CameraWorker(
            table, self.config, open_source=self.source_factory, sim=self.sim,
            store=self.store or default_store(),
            corners_file=self.corners_file or table.data_dir / CORNERS_FILE,
            max_fps=self.max_fps, lost_after=self.lost_after, flush_after=self.flush_after,
            held=lambda: self._hands_over > 0)
        worker.start()
        self._worker = worker
        try:
            yield self
        finally:
            self._worker = None
            worker.stop()

    def _running_worker(self) -> CameraWorker:
        worker = self._worker
        if worker is None:
            raise CameraFeedError("the camera is not running")
        return worker

    # -- what the service and the demo read ----------------------------------------------

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
        frame, detections, geometry = worker.live_view()
        if frame is None:
            return None
        from vision.liveview import jpeg

        return jpeg(frame, detections, width=min(width, frame.shape[1]), geometry=geometry)

    @property
    def warnings(self) -> list[str]:
        worker = self._worker
        return worker.notices.texts() if worker is not None else []

    @property
    def warning_count(self) -> int:
        """How many warnings the camera has given since it started (to notice a new one)."""
        worker = self._worker
        return worker.notices.given if worker is not None else 0

    @property
    def frames(self) -> int:
        """Frames the camera delivered and the feed looked at since it started."""
        worker = self._worker
        return worker.frames if worker is not None else 0

    @property
    def adapter(self) -> Adapter | None:
        """The game adapter following the current match (read-only use)."""
        worker = self._worker
        return worker.follower.adapter if worker is not None else None

    @property
    def gallery(self) -> Gallery | None:
        """The references the camera reads the current match's deck with (``None``: the
        standard deck, or no deck enrolled)."""
        worker = self._worker
        recognizer = worker.follower.recognizer if worker is not None else None
        return recognizer.gallery if recognizer is not None else None

    @property
    def following(self) -> int | None:
        """The match whose events the camera enters now, or ``None``."""
        worker = self._worker
        if worker is None or worker.follower.adapter is None:
            return None
        return worker.follower.match_id

    def followed_game(self) -> str | None:
        """Catch up with the table's match now; the game the camera follows in it, or
        ``None`` (no card game, a deck not enrolled, the camera not running)."""
        worker = self._worker
        if worker is None:
            return None
        follower = worker.follower
        try:
            worker.call(follower.sync)
        except (CameraFeedError, TimeoutError):
            return None
        return follower.game if follower.adapter is not None else None

    @contextmanager
    def hand_over_table(self) -> Iterator[None]:
        """While inside, a play is not over however still the table is (the simulated
        hands move between frames, not in them; a real hand would show as motion)."""
        self._hands_over += 1
        try:
            yield
        finally:
            self._hands_over -= 1

    # -- what a phone asks ---------------------------------------------------------------

    def show_round(self, moths: Mapping[str, str], timeout: float = LOOP_TIMEOUT
                   ) -> list[dict[str, Any]]:
        """Can't Catch Harry: read the shown hands now and enter the round with ``moths``.

        Returns the events entered; raises :class:`CameraFeedError` saying why
        none was (no Harry match, unreadable hands, a refusal).
        """
        worker = self._running_worker()
        chosen = dict(moths)
        return worker.call(lambda: worker.follower.enter_round(chosen), timeout)

    def shown_hands(self, timeout: float = LOOP_TIMEOUT) -> dict[str, Any]:
        """The hands shown in front of each seat now, for the phone to prefill its form.

        ``{"match", "game", "hands": {player: [card, ...]}, "unread": {player: n},
        "face_down": {player: n (of the unread)},
        "notes": [plain sentences]}``; enters nothing. Raises
        :class:`CameraNotReady` when the camera cannot tell yet (ask again) and
        :class:`CameraFeedError` saying why it cannot (no Harry or Collector match,
        no seat areas without the markers, a deck not enrolled).
        """
        worker = self._running_worker()
        return worker.call(lambda: worker.follower.shown_hands(worker.connection), timeout)

    def enroll_start(self, deck: str, restart: bool = False, back: bool = False,
                     ) -> dict[str, Any]:
        """Start teaching ``deck``; while it is being taught already, join in (or start
        again from its first card with ``restart``). Another deck being taught is refused
        unless ``restart``. While a deck is taught the camera enters nothing. ``back``:
        teach only the back of a deck taught already."""
        if deck not in TEACHABLE:
            raise CameraRequestError(f"the camera cannot be taught deck {deck!r}; expected one "
                                     f"of {', '.join(TEACHABLE)}")
        worker = self._running_worker()
        return worker.call(lambda: worker.teacher.start(deck, restart, back))

    def enroll_redo(self) -> dict[str, Any]:
        """Forget the card captured last, to show it again."""
        worker = self._running_worker()
        return worker.call(worker.teacher.redo)

    def enroll_cancel(self) -> dict[str, Any]:
        """Stop teaching; the deck as it was before stays."""
        worker = self._running_worker()
        return worker.call(worker.teacher.cancel)

    def enroll_status(self) -> dict[str, Any]:
        """The teaching's progress and what to tell the user now (cheap: for polling)."""
        return self._running_worker().teacher.status()

    def enroll_thumbnail(self, index: int) -> bytes:
        """The captured picture of the deck's card number ``index`` (0-based), as JPEG."""
        return self._running_worker().teacher.thumbnail(index)

    def corners(self) -> dict[str, Any]:
        """How the camera knows the table: ``tapped`` corners, ``markers`` or ``none``."""
        worker = self._running_worker()
        return worker.corners.status(worker.frame_size())

    def set_corners(self, points: Any) -> dict[str, Any]:
        """Use and keep four tapped corners (frame pixels: TL, TR, BR, BL). Tapped corners
        win over the printed markers."""
        worker = self._running_worker()

        def tap() -> dict[str, Any]:
            adapter = worker.follower.adapter
            players = adapter.match.players if adapter is not None else ()
            return worker.corners.tap(points, worker.frame_size(), players)

        return worker.call(tap)

    def clear_corners(self) -> dict[str, Any]:
        """Forget the tapped corners: the markers (or nothing) calibrate again."""
        worker = self._running_worker()
        return worker.call(lambda: worker.corners.untap(worker.frame_size()))


if TYPE_CHECKING:
    from companion.service.controls import CameraControl

    def _answers_the_camera_routes(feed: CameraFeed) -> CameraControl:
        return feed  # mypy: CameraFeed has every method the service's camera routes call


__all__ = [
    "CORNERS_FILE",
    "DECKS",
    "SEATED_GAMES",
    "TEACHABLE",
    "UNREAD_PATIENCE",
    "CameraFeed",
    "CameraFeedError",
    "CameraNotFound",
    "CameraNotReady",
    "CameraRequestError",
    "load_corners",
    "open_camera",
]
