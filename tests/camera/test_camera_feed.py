"""The camera feed's edges: no camera, a deck nobody enrolled, OpenCV kept out when off."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from companion.config import CameraSection
from companion.inputs.camera import CameraFeed, CameraFeedError
from companion.service import Settings, create_app
from tests.camera.conftest import REPO, serving, status_of
from tests.service.sse import SseEvent
from vision.simtable import SimTable
from vision.sources import SyntheticSource


def test_a_table_without_a_camera_says_so(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "table", pin="2468", mdns=False,
                        public_host="127.0.0.1", port=0)
    with TestClient(create_app(settings)) as client:
        response = client.get("/api/camera/frame.jpg")
        assert response.status_code == 404
        assert "no camera is attached" in response.json()["detail"]
        token = client.post("/api/auth", json={"pin": "2468", "name": "phone"}).json()["token"]
        refused = client.post("/api/camera/round", json={"moths": {"Ann": "harry"}},
                              headers={"Authorization": f"Bearer {token}"})
        assert refused.status_code == 404


def test_a_camera_source_of_none_is_refused() -> None:
    with pytest.raises(CameraFeedError, match="there is no camera to attach"):
        CameraFeed(CameraSection(source="none"))


def test_a_table_with_the_camera_off_never_loads_opencv() -> None:
    code = ("import sys\n"
            "from companion.config import CompanionConfig\n"
            "from companion.inputs import build_attachments\n"
            "config = CompanionConfig(board={'source': 'none'}, camera={'source': 'none'})\n"
            "assert build_attachments(config, demo=True) != []\n"
            "print('cv2' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO, timeout=60, check=True)
    assert out.stdout.strip() == "False"


def test_a_deck_taught_by_an_older_version_says_to_teach_it_again(tmp_path: Path) -> None:
    # a deck saved before galleries kept their card images: it was taught, so the
    # dashboard must not say it never was
    store = tmp_path / "decks"
    folder = store / "star-plus"
    folder.mkdir(parents=True)
    (folder / "deck.json").write_text('{"version": 1, "deck": "star-plus", "cards": ["1"]}',
                                      encoding="utf-8")
    np.savez_compressed(folder / "references.npz", descriptors=np.zeros((1, 2, 3780)))
    frame = SimTable("star-plus", ("Ann", "Ben"), size=(640, 360)).render()

    def webcam(_config: CameraSection, _sim: SimTable | None) -> SyntheticSource:
        return SyntheticSource(frames=itertools.repeat(frame))

    feed = CameraFeed(CameraSection(source="webcam"), store=store,
                      source_factory=webcam, max_fps=30.0)
    with serving(tmp_path, feed) as table:
        response = table.http.post("/api/matches", json={"game": "star-plus",
                                                         "players": ["Ann", "Ben"]},
                                   headers=table.headers)
        assert response.status_code == 201

        def says_teach_again(frame: SseEvent) -> bool:
            camera = status_of(frame, "camera")
            message = "" if camera is None else str(camera["message"])
            return "older version" in message and "teach it again" in message \
                and "not enrolled" not in message
        table.watcher.wait_for(says_teach_again, what="the teach-again message")
        assert feed.following is None


def test_a_deck_that_is_not_enrolled_shows_on_the_dashboard(tmp_path: Path) -> None:
    frame = SimTable("star-plus", ("Ann", "Ben"), size=(640, 360)).render()

    def webcam(_config: CameraSection, _sim: SimTable | None) -> SyntheticSource:
        return SyntheticSource(frames=itertools.repeat(frame))

    feed = CameraFeed(CameraSection(source="webcam"), store=tmp_path / "no-decks",
                      source_factory=webcam, max_fps=30.0)
    with serving(tmp_path, feed) as table:
        response = table.http.post("/api/matches", json={"game": "star-plus",
                                                         "players": ["Ann", "Ben"]},
                                   headers=table.headers)
        assert response.status_code == 201

        def says_not_enrolled(frame: SseEvent) -> bool:
            camera = status_of(frame, "camera")
            return camera is not None and "deck star-plus is not enrolled: run companion " \
                "vision enroll --deck star-plus" in camera["message"]
        table.watcher.wait_for(says_not_enrolled, what="the not-enrolled message")
        assert table.camera_status() is not None
        assert feed.following is None  # nothing is entered from a deck it cannot read
        view = table.http.get("/api/camera/frame.jpg")  # the set-up view still works
        assert view.status_code == 200 and view.content[:2] == b"\xff\xd8"
