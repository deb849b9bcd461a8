"""Shown hands on the simulated table, for the preview's API and browser tests.

A card shown face down: a published card's back painted into the frames. The
camera finds it, reads no face and tells its back: the preview says it lies face
down (the standard deck's reader and a taught deck's alike).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2

from companion.config import CameraSection
from companion.inputs.camera import CameraFeed
from tests.camera.conftest import SIZE, CameraTable, serving
from vision.designs import on_background, published_back
from vision.simtable import Laid, SimCameraSource, SimTable

Point = tuple[float, float]
BACK_DESIGN = "aisleriot-anglo"
"""A lattice back (Bicycle's kind)."""


class FaceDownCards(SimCameraSource):
    """The simulated camera, with card backs (no face to read) lying at ``backs``."""

    def __init__(self, table: SimTable) -> None:
        super().__init__(table)
        self.backs: tuple[Point, ...] = ()
        self._lock = threading.Lock()
        self._painted_back: Any = None

    def lay_backs(self, points: list[Point]) -> None:
        with self._lock:
            self.backs = tuple(points)

    def _read(self) -> Any:
        frame = super()._read()
        with self._lock:
            backs = self.backs
        if frame is None or not backs:
            return frame
        painted = frame.copy()
        w, h = self.table.card_width, self.table.card_height
        for x, y in backs:
            x0, y0, x1, y1 = round(x - w / 2), round(y - h / 2), round(x + w / 2), round(y + h / 2)
            painted[y0:y1, x0:x1] = self._back(x1 - x0, y1 - y0)
        return painted

    def _back(self, w: int, h: int) -> Any:
        if self._painted_back is None or self._painted_back.shape[:2] != (h, w):
            back = on_background(published_back(BACK_DESIGN, height=h), 235.0)
            self._painted_back = cv2.resize(back, (w, h), interpolation=cv2.INTER_AREA)
        return self._painted_back


@contextmanager
def camera_table_with_backs(tmp_path: Path) -> Iterator[CameraTable]:
    """A served table whose simulated camera can also show cards face down."""
    cv2.setNumThreads(1)  # the Pi budget: one core for the camera

    def open_source(_config: CameraSection, sim: SimTable | None) -> FaceDownCards:
        assert sim is not None
        return FaceDownCards(sim)

    feed = CameraFeed(CameraSection(source="sim", width=SIZE[0], height=SIZE[1]),
                      store=tmp_path / "decks", max_fps=60.0, flush_after=0.4,
                      source_factory=open_source)
    with serving(tmp_path, feed) as table:
        yield table


def lay(table: CameraTable, hands: dict[str, list[str]], face_down: dict[str, int]) -> None:
    """Show ``hands`` in front of the seats, with ``face_down`` cards more per player."""
    sim = table.sim
    layout: list[Laid] = []
    for player, hand in hands.items():
        layout = sim.with_added(hand, f"seat:{player}", layout)
    backs: list[Point] = []
    for player, count in face_down.items():
        # the seat's next free places, which the real cards leave clear
        spare = sim.with_added(["back"] * count, f"seat:{player}", layout)[len(layout):]
        backs += [(c.x, c.y) for c in spare]
    source = table.feed.source
    assert isinstance(source, FaceDownCards)
    source.lay_backs(backs)
    assert sim.show(layout), "the camera did not settle on the shown hands"
