"""Setting the camera up from a phone: teaching it a deck, tapping the table's corners.

A real server with the simulated camera; the phone is an HTTP client with a PIN
token. The simulated table shows one card at a time as a person would lay it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from companion.config import CameraSection
from companion.inputs.camera import CORNERS_FILE, CameraFeed
from companion.inputs.demo import CameraHands
from companion.service import Settings, create_app
from tests.camera.conftest import SIZE, CameraTable, Event, entry_like, serving
from vision.decks import deck_ids
from vision.enrolled import Gallery
from vision.pipeline import Recognizer
from vision.refusal import Refusal
from vision.render import Placement, compose_scene, render_card
from vision.simtable import SimCameraSource, SimTable, rendered_gallery

PLAYERS = ["Ann", "Ben"]
Status = dict[str, Any]


def enroll_status(table: CameraTable) -> Status:
    response = table.http.get("/api/camera/enroll")
    assert response.status_code == 200, response.text
    status: Status = response.json()
    return status


def wait_status(table: CameraTable, test: Callable[[Status], bool], what: str,
                timeout: float = 8.0) -> Status:
    deadline = time.monotonic() + timeout
    while True:
        status = enroll_status(table)
        if test(status):
            return status
        assert time.monotonic() < deadline, f"the teaching never showed {what}: {status}"
        time.sleep(0.03)


def post(table: CameraTable, path: str, body: Event | None = None, status: int = 200,
         signed_in: bool = True) -> Status:
    response = table.http.post(path, json=body, headers=table.headers if signed_in else None)
    assert response.status_code == status, response.text
    answer: Status = response.json()
    return answer


def lay_alone(table: CameraTable, card: str) -> None:
    """One card in the middle of the view, nothing else (a person laying it down)."""
    assert table.sim.show(table.sim.with_added([card], "centre", []))


def captured(done: int) -> Callable[[Status], bool]:
    """A test for a status with ``done`` cards captured (or the deck finished)."""
    return lambda status: bool(status["done"] >= done or status["finished"])


def teach(table: CameraTable, card: str, done: int) -> Status:
    lay_alone(table, card)
    return wait_status(table, captured(done), f"{card} captured ({done} done)")


def followed(feed: CameraFeed) -> bool:
    return feed.following is not None


def match_entries(table: CameraTable, match_id: int) -> list[Event]:
    entries: list[Event] = table.http.get(f"/api/matches/{match_id}").json()["entries"]
    return entries


def test_a_deck_taught_on_the_phone_is_saved_and_read_at_once(camera_table: CameraTable,
                                                               tmp_path: Path) -> None:
    table = camera_table
    store = tmp_path / "decks"
    match_id = table.start_match({"type": "setup", "game": "star-plus", "players": PLAYERS})
    assert post(table, "/api/camera/enroll", {"deck": "star-plus"}, status=401,
                signed_in=False)["detail"]
    started = post(table, "/api/camera/enroll", {"deck": "star-plus"})
    assert started["active"] and started["total"] == 13 and started["done"] == 0
    assert started["prompt"] == "Lay 1 (Aquarius) alone in view"
    assert not next(d for d in started["decks"] if d["deck"] == "star-plus")["enrolled"]
    table.sim.reset("star-plus", (), markers=False)

    cards = deck_ids("star-plus")
    teach(table, cards[0], 1)
    # the same card again is refused, however still it lies
    refused = wait_status(table, lambda s: "shown already" in s["hint"], "the refusal")
    assert refused["done"] == 1 and refused["card"] == "2"
    assert refused["hint"] == "That is 1 (Aquarius), shown already: take it away"
    teach(table, cards[1], 2)
    # redo: the last card is forgotten and asked for again
    table.sim.clear()
    redone = post(table, "/api/camera/enroll/redo")
    assert redone["done"] == 1 and redone["card"] == "2"
    assert redone["prompt"] == "Lay 2 (Pisces) alone in view"
    assert [c["card"] for c in redone["captured"]] == ["1"]
    # a second phone choosing the same deck joins in; another deck waits for a cancel
    joined = post(table, "/api/camera/enroll", {"deck": "star-plus"})
    assert joined["done"] == 1 and joined["card"] == "2"
    busy = post(table, "/api/camera/enroll", {"deck": "cant-catch-harry"}, status=409)
    assert busy["detail"] == ("the camera is being taught Star Plus (1 of 13 cards): carry "
                              "on with it, or cancel it first")
    for done, card in enumerate(cards[1:], start=2):
        status = teach(table, card, done)
    assert status["finished"] and not status["active"], status
    assert status["message"] == "Saved: the camera knows the 13 Star Plus cards"
    assert len(status["captured"]) == 13
    assert next(d for d in status["decks"] if d["deck"] == "star-plus")["enrolled"]
    thumb = table.http.get("/api/camera/enroll/cards/12.jpg")
    assert thumb.status_code == 200 and thumb.content[:2] == b"\xff\xd8"
    picture = cv2.imdecode(np.frombuffer(thumb.content, np.uint8), cv2.IMREAD_COLOR)
    assert picture is not None and picture.shape[:2] == (140, 100)
    assert table.http.get("/api/camera/enroll/cards/13.jpg").status_code == 404
    # saved where the feed loads decks from, and read with at once, in the same match
    saved = Gallery.load(store, "star-plus")
    assert saved.cards == tuple(sorted(cards))
    table.sim.reset("star-plus", PLAYERS)  # the cards back to the players, the markers back
    gallery = table.feed.gallery
    assert gallery is not None and np.allclose(gallery.descriptors, saved.descriptors)
    assert not np.allclose(gallery.descriptors, rendered_gallery("star-plus").descriptors)
    play: Event = {"type": "play", "player": "Ann", "cards": ["1"]}
    adapter = table.feed.adapter
    assert adapter is not None
    assert CameraHands(table.feed).perform(play, adapter.match.state)
    entry = table.watcher.wait_for(entry_like(play), 10, "the camera's play")
    assert entry.data["actor"] == "camera"
    assert [e["event"] for e in match_entries(table, match_id)] == [play]


def test_a_decks_back_taught_on_the_phone_makes_its_cards_face_down_backs(
        camera_table: CameraTable, tmp_path: Path) -> None:
    table = camera_table
    store = tmp_path / "decks"
    # the back comes after the cards: the gallery its faces were taught into
    early = post(table, "/api/camera/enroll", {"deck": "star-plus", "back": True}, status=409)
    assert early["detail"] == ("teach the Star Plus cards first: the camera learns their "
                               "back after them")
    rendered_gallery("star-plus").save(store)
    table.sim.reset("star-plus", (), markers=False)
    decks = enroll_status(table)["decks"]
    assert not next(d for d in decks if d["deck"] == "star-plus")["back"]
    started = post(table, "/api/camera/enroll", {"deck": "star-plus", "back": True})
    assert started["active"] and started["back"] and started["card"] == "back"
    assert started["prompt"] == "Lay one card face down, alone in view"
    # the faces taught are kept: there is nothing to redo yet
    assert post(table, "/api/camera/enroll/redo", status=409)["detail"].startswith("no card")
    # a card face up is no back
    lay_alone(table, "1")
    refused = wait_status(table, lambda s: "face up" in s["hint"], "the refusal")
    assert refused["hint"] == "That is 1 (Aquarius) face up: lay a card face down"
    table.sim.clear()
    lay_alone(table, "back")
    saved_status = wait_status(table, lambda s: bool(s["finished"]), "the back saved")
    assert saved_status["message"] == "Saved: the camera knows the Star Plus cards' back"
    assert next(d for d in saved_status["decks"] if d["deck"] == "star-plus")["back"]
    assert [c["card"] for c in saved_status["captured"]][-1] == "back"
    thumb = table.http.get("/api/camera/enroll/cards/13.jpg")  # (the back, after 13 faces)
    assert thumb.status_code == 200 and thumb.content[:2] == b"\xff\xd8"
    saved = Gallery.load(store, "star-plus")
    assert saved.has_back and saved.card_count == 13
    # read with it, a card face down is said to be one; without it, it was no card known
    scene = compose_scene([Placement("back", 420, 300, 20.0, 160.0),
                           Placement("7", 860, 330, -10.0, 160.0)], "star-plus", seed=3)
    seen = {d.card or d.reason for d in Recognizer(saved).detect(scene.image)}
    assert seen == {"7", Refusal.CARD_BACK}, seen
    before = {d.card or d.reason for d in Recognizer(rendered_gallery("star-plus")).detect(
        scene.image)}
    assert Refusal.CARD_BACK not in before and "7" in before, before
    # taught again from its first card, the deck keeps the back it was taught
    table.sim.clear()
    post(table, "/api/camera/enroll", {"deck": "star-plus"})
    for done, card in enumerate(deck_ids("star-plus"), start=1):
        status = teach(table, card, done)
    assert status["message"] == "Saved: the camera knows the 13 Star Plus cards and their back"
    assert Gallery.load(store, "star-plus").has_back


def test_teaching_enters_nothing_and_a_cancel_keeps_the_old_deck(camera_table: CameraTable,
                                                                 tmp_path: Path) -> None:
    table = camera_table
    store = tmp_path / "decks"
    ids = deck_ids("star-catcher")
    Gallery.from_faces("star-catcher", {c: render_card("star-catcher", c) for c in ids}
                       ).save(store)
    before = (store / "star-catcher" / "references.npz").read_bytes()
    match_id = table.start_match({"type": "setup", "game": "star-catcher", "players": PLAYERS})
    post(table, "/api/camera/enroll", {"deck": "star-catcher"})
    # four cards laid one by one in the centre: unpaused, the first would be the deal
    for done, card in enumerate(("D1", "D1*", "D1**", "D2"), start=1):
        teach(table, card, done)
    assert table.sim.show(table.sim.with_added(["D3", "D4", "D5", "D6"], "centre", []))
    crowded = wait_status(table, lambda s: s["hint"] == "Only one card at a time, please",
                          "the refusal of four cards")
    assert crowded["done"] == 4 and crowded["card"] == "D2*"
    table.sim.clear()
    cancelled = post(table, "/api/camera/enroll/cancel")
    assert not cancelled["active"] and not cancelled["finished"]
    assert "as they were" in cancelled["message"]
    assert (store / "star-catcher" / "references.npz").read_bytes() == before
    assert match_entries(table, match_id) == []
    assert not [f for f in table.watcher.seen if f.kind == "change" and "entry" in f.data]
    # not teaching any more: the errors say so, and the camera follows the game again
    assert post(table, "/api/camera/enroll/redo", status=409)["detail"].startswith("no deck")
    assert post(table, "/api/camera/enroll/cancel", status=409)
    deal: Event = {"type": "table", "cards": ["D3", "D4", "D5", "D6"]}
    assert table.sim.show(table.sim.with_added(deal["cards"], "centre", []))
    table.watcher.wait_for(entry_like(deal), 10, "the camera's deal")


def test_teaching_errors_are_plain(camera_table: CameraTable) -> None:
    table = camera_table
    unknown = post(table, "/api/camera/enroll", {"deck": "chess"}, status=400)
    assert "star-catcher, star-plus, cant-catch-harry" in unknown["detail"]
    assert post(table, "/api/camera/enroll", {"deck": "standard"}, status=400)
    assert post(table, "/api/camera/enroll", {"cards": 3}, status=422)["expected"]
    post(table, "/api/camera/enroll", {"deck": "cant-catch-harry"})
    nothing = post(table, "/api/camera/enroll/redo", status=409)
    assert nothing["detail"] == "no card has been captured yet: there is nothing to redo"
    assert table.http.get("/api/camera/enroll/cards/0.jpg").status_code == 404
    assert table.http.get("/api/camera/enroll/cards/x.jpg").status_code == 422
    # a second phone sees the same teaching; "start again" begins at the first card
    assert enroll_status(table)["prompt"] == "Lay Baby James alone in view"
    again = post(table, "/api/camera/enroll", {"deck": "star-plus", "restart": True})
    assert again["active"] and again["done"] == 0 and again["deck"] == "star-plus"
    post(table, "/api/camera/enroll/cancel")


def test_corners_tapped_on_the_phone(tmp_path: Path) -> None:
    cv2.setNumThreads(1)

    def feed() -> CameraFeed:
        return CameraFeed(CameraSection(source="sim", width=SIZE[0], height=SIZE[1]),
                          store=tmp_path / "decks", max_fps=60.0, flush_after=0.4)

    kept = tmp_path / "table" / CORNERS_FILE
    with serving(tmp_path, feed()) as table:
        table.start_match({"type": "setup", "game": "star-plus", "players": PLAYERS})
        x0, y0, x1, y1 = table.sim.rect
        wait = time.monotonic() + 5
        while table.http.get("/api/camera/corners").json()["source"] != "markers":
            assert time.monotonic() < wait, "the markers were never seen"
            time.sleep(0.05)
        assert table.http.get("/api/camera/corners").json()["frame"] == list(SIZE)

        def put(corners: Any, status: int) -> Status:
            response = table.http.put("/api/camera/corners", json={"corners": corners},
                                      headers=table.headers)
            assert response.status_code == status, response.text
            answer: Status = response.json()
            return answer

        assert "exactly 4" in put([[x0, y0], [x1, y0], [x1, y1]], 400)["detail"]
        assert "outside" in put([[x0, y0], [x1, y0], [x1, y1], [x0, 470]], 400)["detail"]
        assert "in order" in put([[x0, y0], [x1, y1], [x1, y0], [x0, y1]], 400)["detail"]
        assert "in order" in put([[x0, y0], [x0, y1], [x1, y1], [x1, y0]], 400)["detail"]
        assert "less than 5%" in put([[10, 10], [60, 10], [60, 60], [10, 60]], 400)["detail"]
        assert put("four", 422)["expected"]
        no_token = table.http.put("/api/camera/corners", json={"corners": []})
        assert no_token.status_code == 401
        assert not kept.exists()
        # the table seen the other way round: Ann's seat is now at the top of the picture
        turned = [[x1, y1], [x0, y1], [x0, y0], [x1, y0]]
        answer = put(turned, 200)
        assert answer == {"source": "tapped", "corners": turned, "frame": list(SIZE)}
        assert kept.exists()
        play: Event = {"type": "play", "player": "Ann", "cards": ["1"]}
        assert table.sim.show(table.sim.with_added(["1"], "seat:Ben"))  # the top, as tapped
        table.watcher.wait_for(entry_like(play), 10, "Ann's play, read in her tapped area")
        view = table.http.get("/api/camera/frame.jpg")
        assert view.status_code == 200 and view.content[:2] == b"\xff\xd8"

    with serving(tmp_path, feed()) as table:  # a restart keeps the corners
        corners = table.http.get("/api/camera/corners").json()
        assert corners["source"] == "tapped" and corners["corners"] == turned
        cleared = table.http.delete("/api/camera/corners", headers=table.headers)
        assert cleared.status_code == 200 and cleared.json()["corners"] is None
        assert not kept.exists()


def test_no_camera_is_a_plain_404(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=tmp_path, pin="2468", mdns=False))
    with TestClient(app) as client:
        token = client.post("/api/auth", json={"pin": "2468"}).json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        for method, path in (("GET", "/api/camera/enroll"), ("POST", "/api/camera/enroll/redo"),
                             ("GET", "/api/camera/corners"),
                             ("DELETE", "/api/camera/corners")):
            response = client.request(method, path, headers=headers)
            assert response.status_code == 404, (path, response.text)
            assert "no camera" in response.json()["detail"]


@pytest.mark.parametrize("content", ["not json", '{"corners": [[1, 2]], "frame": [800, 450]}'])
def test_a_damaged_corners_file_falls_back_to_the_markers(tmp_path: Path, content: str) -> None:
    (tmp_path / "table").mkdir()
    (tmp_path / "table" / CORNERS_FILE).write_text(content, encoding="utf-8")
    feed = CameraFeed(CameraSection(source="sim", width=SIZE[0], height=SIZE[1]),
                      store=tmp_path / "decks", max_fps=30.0)
    with serving(tmp_path, feed) as table:
        assert table.http.get("/api/camera/corners").json()["corners"] is None


def test_the_live_view_draws_the_play_area_and_the_seats() -> None:
    from vision.calibration import TableGeometry
    from vision.liveview import AREA, annotate

    frame = np.zeros((450, 800, 3), np.uint8)
    corners = [(100.0, 50.0), (700.0, 50.0), (700.0, 400.0), (100.0, 400.0)]
    geometry = TableGeometry.from_tapped(corners, (800, 450), (600.0, 400.0), ("Ann", "Ben"))
    plain = annotate(frame, [], 800)
    drawn = annotate(frame, [], 800, geometry)
    assert not plain.any()
    blue = np.all(drawn == AREA, axis=2)
    assert blue[50, 300:500].all() and blue[400, 300:500].all()  # the play area's edges
    blue = np.asarray(drawn.any(axis=2))  # thin lines and names are anti-aliased: any ink
    assert blue[100:350, 100].all() and blue[100:350, 700].all()
    # the centre's sides (0.3 of 600 mm either side), Ann's name below it and Ben's above
    assert blue[225, 400 - 181:400 - 178].any() and blue[225, 400 + 178:400 + 181].any()
    assert blue[355:375, 385:415].any() and blue[75:95, 385:415].any()
    assert not blue[300:320, 385:415].any()  # inside the centre: nothing


def test_corners_kept_at_another_resolution_are_scaled_to_the_camera(tmp_path: Path) -> None:
    (tmp_path / "table").mkdir()
    tapped = [[200, 100], [1400, 100], [1400, 800], [200, 800]]
    (tmp_path / "table" / CORNERS_FILE).write_text(
        json.dumps({"corners": tapped, "frame": [1600, 900]}), encoding="utf-8")
    feed = CameraFeed(CameraSection(source="sim", width=SIZE[0], height=SIZE[1]),
                      store=tmp_path / "decks", max_fps=30.0)
    with serving(tmp_path, feed) as table:
        wait = time.monotonic() + 5
        while (corners := table.http.get("/api/camera/corners").json())["frame"] is None:
            assert time.monotonic() < wait, "no frame"
            time.sleep(0.05)
        assert corners["source"] == "tapped"
        assert corners["corners"] == [[100, 50], [700, 50], [700, 400], [100, 400]]


def test_a_webcam_with_no_deck_follows_the_match_once_the_deck_is_taught(
        tmp_path: Path) -> None:
    """Not the simulated camera's built-in deck: the gallery comes from the store only."""
    cv2.setNumThreads(1)
    room = SimTable("star-plus", (), size=SIZE, markers=False)

    def webcam(_config: CameraSection, _sim: SimTable | None) -> SimCameraSource:
        return SimCameraSource(room)

    feed = CameraFeed(CameraSection(source="webcam", width=SIZE[0], height=SIZE[1]),
                      store=tmp_path / "decks", source_factory=webcam, max_fps=60.0,
                      flush_after=0.4)
    with serving(tmp_path, feed) as table:
        table.http.post("/api/matches", json={"game": "cant-catch-harry", "players": PLAYERS},
                        headers=table.headers).raise_for_status()
        wait = time.monotonic() + 5
        while "not enrolled" not in ((table.camera_status() or {}).get("message") or ""):
            assert time.monotonic() < wait, table.camera_status()
            table.watcher.wait_for(lambda f: f.kind == "status", 1, "a status", consume=False,
                                   start=len(table.watcher.seen))
        assert feed.following is None
        post(table, "/api/camera/enroll", {"deck": "cant-catch-harry"})
        room.reset("cant-catch-harry", ())
        cards = deck_ids("cant-catch-harry")
        for done, card in enumerate(cards, start=1):
            assert room.show(room.with_added([card], "centre", []))
            wait_status(table, captured(done), card)
        assert enroll_status(table)["finished"]
        assert Gallery.load(tmp_path / "decks", "cant-catch-harry").cards == tuple(sorted(cards))
        room.clear()
        wait = time.monotonic() + 5
        while not followed(feed):  # no restart: the match is followed with the new deck
            assert time.monotonic() < wait, "the camera never followed the match"
            time.sleep(0.02)
        gallery = feed.gallery
        assert gallery is not None and gallery.deck == "cant-catch-harry"
