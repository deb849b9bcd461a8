"""`companion doctor`'s camera checks: a picture, the calibration markers, enrolled decks."""

from __future__ import annotations

import io
import json
import socket
from pathlib import Path

import cv2
import pytest

from companion.doctor import main
from companion.inputs.camera import CORNERS_FILE
from vision.render import CONDITIONS, render_scene


@pytest.fixture(autouse=True)
def free_table_port(monkeypatch: pytest.MonkeyPatch) -> None:
    """The doctor checks the table's port too: a free one, not the default 8000 that another
    program on this machine may hold."""
    with socket.socket() as sock:
        sock.bind(("0.0.0.0", 0))
        monkeypatch.setenv("TABLE_COMPANION_TABLE__PORT", str(sock.getsockname()[1]))


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(["--board", "none", *argv], out=out)
    return code, out.getvalue()


def test_simulated_camera_is_ok() -> None:
    code, text = run("--camera", "sim")
    assert code == 0, text
    assert "camera: ok (sim: 1280x720 frames)" in text


def test_a_real_camera_without_markers_or_decks_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0001.png"), render_scene(CONDITIONS["upright"], 1).image)
    monkeypatch.setenv("TABLE_COMPANION_DATA", str(tmp_path / "store"))
    code, text = run("--camera", str(frames))
    assert code == 1
    assert "camera: ok (file:" in text
    assert "calibration markers: problem: markers seen: none" in text
    assert "aruco-markers.svg" in text
    assert "deck star-plus: problem:" in text
    assert "companion vision enroll --deck star-plus" in text


def test_a_missing_camera_is_a_problem_with_a_fix(tmp_path: Path) -> None:
    code, text = run("--camera", str(tmp_path / "nowhere"))
    assert code == 1
    assert "camera: problem:" in text and "fix:" in text


def test_corners_tapped_on_the_phone_calibrate_without_markers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    image = render_scene(CONDITIONS["upright"], 1).image
    cv2.imwrite(str(frames / "0001.png"), image)
    data = tmp_path / "data"
    data.mkdir()
    h, w = image.shape[:2]
    (data / CORNERS_FILE).write_text(json.dumps(
        {"corners": [[100, 60], [w - 100, 60], [w - 100, h - 60], [100, h - 60]],
         "frame": [w, h]}), encoding="utf-8")
    monkeypatch.setenv("TABLE_COMPANION_DATA", str(tmp_path / "store"))
    monkeypatch.setenv("TABLE_COMPANION_TABLE__DATA_DIR", str(data))
    _, text = run("--camera", str(frames))
    assert "table corners: ok (tapped on the phone's camera page" in text
    assert "calibration markers" not in text
