"""Live sync over a real uvicorn server: server-sent events with a table-wide seq."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.service.conftest import CATCH_MAG, RunningServer, login
from tests.service.sse import SseClient

ROLLS = [
    {"type": "roll", "player": "Ann", "value": 2},
    {"type": "catch", "player": "Ann", "success": False},
    {"type": "roll", "player": "Ben", "value": 1},
    {"type": "catch", "player": "Ben", "success": True, "color": "red"},
]


def test_two_phones_see_the_same_events_in_the_same_order(live_server: RunningServer) -> None:
    http = httpx.Client(base_url=live_server.url)
    headers = login(http)
    http.post("/api/matches", json=CATCH_MAG, headers=headers)
    phones = [SseClient(live_server.url + "/api/stream") for _ in range(2)]
    try:
        snapshots = [phone.next() for phone in phones]
        assert [s.kind for s in snapshots] == ["snapshot", "snapshot"]
        assert snapshots[0].data["seq"] == snapshots[1].data["seq"] == 1
        sent_at = []
        for event in ROLLS:
            sent_at.append(time.monotonic())
            assert http.post("/api/events", json={"event": event}, headers=headers).is_success
        http.post("/api/undo", json={}, headers=headers)
        seen = [[phone.next() for _ in range(5)] for phone in phones]
        for changes in seen:
            assert [c.data["seq"] for c in changes] == [2, 3, 4, 5, 6]
            assert [c.data["entry"]["event"] for c in changes[:4]] == ROLLS
            assert changes[4].data["removed"] == changes[3].data["entry"]["id"]
            assert changes[3].data["summary"]["totals"] == {"Ann": 0, "Ben": 1}
            assert changes[4].data["summary"]["totals"] == {"Ann": 0, "Ben": 0}
            # Each change arrived soon after its POST was answered.
            for change, sent in zip(changes, sent_at, strict=False):
                assert change.received - sent < 1.0
    finally:
        for phone in phones:
            phone.close()
        http.close()


def test_a_reconnecting_phone_catches_up_from_the_snapshot(live_server: RunningServer) -> None:
    http = httpx.Client(base_url=live_server.url)
    headers = login(http)
    http.post("/api/matches", json=CATCH_MAG, headers=headers)
    phone = SseClient(live_server.url + "/api/stream")
    assert phone.next().data["seq"] == 1
    phone.close()  # the phone sleeps; events go on without it
    for event in ROLLS[:3]:
        http.post("/api/events", json={"event": event}, headers=headers)
    again = SseClient(live_server.url + "/api/stream")
    try:
        snapshot = again.next().data
        assert snapshot["seq"] == 4
        assert [e["event"] for e in snapshot["match"]["entries"]] == ROLLS[:3]
        assert snapshot["match"]["summary"]["turn"] == "Ben"
        http.post("/api/events", json={"event": ROLLS[3]}, headers=headers)
        change = again.next().data
        assert change["from_seq"] == snapshot["seq"] + 1
    finally:
        again.close()
        http.close()


def test_a_status_report_reaches_open_streams(live_server: RunningServer) -> None:
    http = httpx.Client(base_url=live_server.url)
    headers = login(http)
    phone = SseClient(live_server.url + "/api/stream")
    try:
        phone.next()
        http.put("/api/status/camera", json={"link": "disconnected", "message": "no camera"},
                 headers=headers)
        status = phone.next()
        assert status.kind == "status"
        assert status.data["status"]["camera"]["link"] == "disconnected"
    finally:
        phone.close()
        http.close()


def test_the_server_stops_promptly_with_streams_open(live_server: RunningServer,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    phones = [SseClient(live_server.url + "/api/stream") for _ in range(3)]
    for phone in phones:
        phone.next()
    live_server.stop()
    assert not live_server.thread.is_alive()
    # the streams were ended by the server, not cut by uvicorn's graceful timeout
    assert "graceful shutdown exceeded" not in caplog.text
    assert all(phone.ended(2.0) for phone in phones)


def test_racing_phones_cannot_both_enter_the_same_move(live_server: RunningServer) -> None:
    import threading

    http = httpx.Client(base_url=live_server.url)
    headers = login(http)
    http.post("/api/matches", json=CATCH_MAG, headers=headers)
    statuses: list[int] = []
    barrier = threading.Barrier(8)

    def tap_send() -> None:
        with httpx.Client(base_url=live_server.url) as phone:
            barrier.wait()
            response = phone.post("/api/events", json={"event": ROLLS[0]}, headers=headers)
            statuses.append(response.status_code)

    threads = [threading.Thread(target=tap_send) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [201] + [422] * 7
    entries = http.get("/api/state").json()["match"]["entries"]
    assert [e["event"] for e in entries] == [ROLLS[0]]
    http.close()
