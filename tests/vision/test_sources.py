"""One contract, every camera source: frames are BGR uint8, end is None, close is final."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.render import CONDITIONS, render_scene
from vision.sources import (
    CameraUnavailable,
    FrameSource,
    PiCameraSource,
    ReplaySource,
    SourceClosed,
    SyntheticSource,
    WebcamSource,
    open_source,
)

N = 3


def _frames() -> list[np.ndarray]:
    return [cv2.resize(render_scene(CONDITIONS["upright"], s).image, (320, 180))
            for s in range(N)]


def _folder(tmp: Path) -> FrameSource:
    for i, f in enumerate(_frames()):
        cv2.imwrite(str(tmp / f"{i:03d}.png"), f)
    (tmp / "notes.txt").write_text("not an image")
    return ReplaySource(tmp)


def _video(tmp: Path) -> FrameSource:
    path = tmp / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (320, 180))
    for f in _frames():
        writer.write(f)
    writer.release()
    return ReplaySource(path)


def _synthetic(_tmp: Path) -> FrameSource:
    return SyntheticSource(frames=_frames())


SOURCES: dict[str, Callable[[Path], FrameSource]] = {
    "folder": _folder, "video": _video, "synthetic": _synthetic}


@pytest.fixture(params=list(SOURCES))
def source(request: pytest.FixtureRequest, tmp_path: Path) -> FrameSource:
    return SOURCES[request.param](tmp_path)


def test_frames_are_bgr_uint8_then_none_at_the_end(source: FrameSource) -> None:
    with source as cam:
        frames = list(cam.frames())
        assert len(frames) == N
        for f in frames:
            assert f.dtype == np.uint8 and f.ndim == 3 and f.shape[2] == 3
            assert f.shape[:2] == (180, 320)
        assert cam.read() is None
        assert cam.read() is None  # stays at the end, no exception


def test_frames_show_what_was_recorded(source: FrameSource) -> None:
    originals = _frames()
    with source as cam:
        for want, got in zip(originals, cam.frames(), strict=True):
            assert np.abs(want.astype(int) - got.astype(int)).mean() < 6  # JPEG in video


def test_closing_is_final_and_idempotent(source: FrameSource) -> None:
    with source as cam:
        assert cam.read() is not None
    assert cam.closed
    cam.close()
    with pytest.raises(SourceClosed, match="closed"):
        cam.read()


def test_missing_cameras_say_what_to_check(tmp_path: Path) -> None:
    with pytest.raises(CameraUnavailable, match="does not exist"):
        ReplaySource(tmp_path / "nothing.mp4")
    with pytest.raises(CameraUnavailable, match="no images"):
        ReplaySource(tmp_path)
    (tmp_path / "junk.mp4").write_bytes(b"no video here")
    with pytest.raises(CameraUnavailable, match="not a video"):
        ReplaySource(tmp_path / "junk.mp4")
    with pytest.raises(CameraUnavailable, match="no webcam"):
        WebcamSource("/dev/video-that-is-not-there")
    with pytest.raises(CameraUnavailable, match="picamera2"):
        PiCameraSource()


def test_a_replay_can_loop(tmp_path: Path) -> None:
    _folder(tmp_path).close()
    with ReplaySource(tmp_path, loop=True) as cam:
        assert sum(cam.read() is not None for _ in range(2 * N + 1)) == 2 * N + 1


def test_open_source_specs(tmp_path: Path) -> None:
    _folder(tmp_path).close()
    with open_source(f"replay:{tmp_path}") as cam:
        assert isinstance(cam, ReplaySource)
    with open_source("synthetic:star-plus") as cam:
        f = cam.read()
        assert f is not None and f.shape == (720, 1280, 3)
