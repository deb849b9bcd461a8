"""The camera's frame loop and its link status.

:class:`CameraWorker` is the camera's :class:`~companion.inputs.feed.FeedWorker`:
it opens the frame source (and keeps trying while it cannot), reads at most
``max_fps`` frames a second without queueing any (a slow frame means the next
one is simply read later), keeps the last one for the live view, and hands
each frame to the calibration, to the deck being taught, or to the match
follower.

The link status (``camera``) is ``connected`` while frames arrive, ``lost``
when none came for ``lost_after`` seconds (a pulled cable, the end of a
replay), and back to ``connected`` by itself when frames return. A deck that
is not enrolled is reported on the same status.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from companion.config import CameraSection
from companion.inputs.camera.corners import TableCorners
from companion.inputs.camera.following import MatchFollower
from companion.inputs.camera.teaching import DeckTeacher
from companion.inputs.feed import FeedWorker, TableLink
from vision.pipeline import Detection
from vision.simtable import SimCameraSource, SimTable
from vision.sources import (
    CameraUnavailable,
    FrameSource,
    PiCameraSource,
    ReplaySource,
    WebcamSource,
)

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from vision.calibration import TableGeometry

    Image = NDArray[np.uint8]

log = logging.getLogger(__name__)

STATUS_SOURCE = "camera"
MAX_FPS = 10.0
"""Frames per second the worker reads at most (the Pi 4 goal)."""
LOST_AFTER = 1.5
"""Seconds without a frame before the camera counts as lost."""
REOPEN_SECONDS = 2.0
"""How often a camera that could not be opened is tried again."""

SourceFactory = Callable[[CameraSection, SimTable | None], FrameSource]


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


class CameraWorker(FeedWorker):
    """Reads frames and hands each to the calibration, the teaching or the match follower."""

    def __init__(self, table: TableLink, config: CameraSection, *, open_source: SourceFactory,
                 sim: SimTable | None, store: Path, corners_file: Path, max_fps: float,
                 lost_after: float, flush_after: float, held: Callable[[], bool]) -> None:
        super().__init__(table, STATUS_SOURCE, 1.0 / max_fps)
        self.config, self.open_source, self.sim = config, open_source, sim
        self.lost_after = lost_after
        self.lock = threading.Lock()
        """Guards what other threads read: the last frame and its detections."""
        self.source: FrameSource | None = None
        self.last_frame: Image | None = None
        self.last_detections: list[Detection] = []
        self.frames = 0
        """Frames taken from the camera so far."""
        self.connection = ("lost", "opening the camera")
        self._last_frame_at = time.monotonic()
        self._last_open_try = -REOPEN_SECONDS
        self.corners = TableCorners(corners_file)
        self.teacher = DeckTeacher(store)
        self.follower = MatchFollower(table, self.notices, self.corners, self.teacher,
                                      store=store, sim=sim, flush_after=flush_after, held=held,
                                      shown=self._show)

    # -- the loop ------------------------------------------------------------------------

    def step(self) -> None:
        frame = self._read()
        now = time.monotonic()
        if frame is None:
            if now - self._last_frame_at > self.lost_after and self.connection[0] != "lost":
                # the tracker keeps what it knew: what changed meanwhile shows when frames return
                self.connection = ("lost", "no frames from the camera: check its cable or power")
        else:
            self._last_frame_at = now
            if self.connection[0] != "connected":
                self.connection = ("connected", "")
            self._on_frame(frame)
        if not self.stopping:
            self.follower.tick(now)

    def link(self) -> tuple[str, str]:
        state, detail = self.connection
        if state == "connected" and self.follower.problem:
            detail = self.follower.problem
        return state, detail

    def closing(self) -> None:
        if self.source is not None:
            self.source.close()
            self.source = None

    def _read(self) -> Image | None:
        if self.source is None:
            now = time.monotonic()
            if now - self._last_open_try < REOPEN_SECONDS:
                return None
            self._last_open_try = now
            try:
                self.source = self.open_source(self.config, self.sim)
            except CameraUnavailable as exc:
                self.connection = ("lost", str(exc)[:200])
                return None
        try:
            return self.source.read()
        except Exception as exc:  # a driver error is a missed frame, not the end of the feed
            log.warning("camera read failed: %s", exc)
            return None

    def _on_frame(self, frame: Image) -> None:
        self.frames += 1
        with self.lock:
            self.last_frame = frame
        players = self.follower.adapter.match.players if self.follower.adapter else ()
        self.corners.calibrate(frame, players)
        if self.teacher.active:  # the cards shown are for learning, not for the game
            self._teach(frame)
        else:
            self.follower.on_frame(frame)

    def _teach(self, frame: Image) -> None:
        geometry = self.corners.geometry
        quads, gallery = self.teacher.offer(
            frame, None if geometry is None else self.corners.on_play_area_quad)
        self._show([Detection(None, q, 0.0) for q in quads])
        if gallery is not None:
            self.follower.use_taught(gallery)

    def _show(self, detections: list[Detection]) -> None:
        with self.lock:
            self.last_detections = detections

    # -- for the feed's other threads ----------------------------------------------------

    def frame_size(self) -> tuple[int, int] | None:
        with self.lock:
            frame = self.last_frame
        return None if frame is None else (int(frame.shape[1]), int(frame.shape[0]))

    def live_view(self) -> tuple[Image | None, list[Detection], TableGeometry | None]:
        with self.lock:
            return self.last_frame, list(self.last_detections), self.corners.geometry


__all__ = ["MAX_FPS", "CameraWorker", "open_camera"]
