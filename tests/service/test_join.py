"""Joining (QR code with the IP URL, mDNS) and plugging hardware into the table."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass

import cv2
import httpx
import numpy as np
from fastapi.testclient import TestClient
from zeroconf import Zeroconf

from companion.games.errors import IllegalEvent
from companion.service import Settings, create_app
from companion.service.join import MdnsAnnouncer, lan_address, qr_svg, qr_terminal
from companion.service.table import TableService
from tests.service.conftest import CATCH_MAG, RunningServer, login
from tests.service.sse import SseClient


def test_the_qr_code_decodes_to_the_ip_url() -> None:
    import io

    import segno

    url = "http://192.168.1.20:8000/"
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="png", scale=8, border=4)
    image = cv2.imdecode(np.frombuffer(buffer.getvalue(), np.uint8), cv2.IMREAD_GRAYSCALE)
    assert image is not None
    decoded, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert decoded == url
    assert qr_svg(url).startswith("<svg") and "<title>Scan to join the table</title>" in qr_svg(url)
    assert qr_terminal(url).count("\n") > 10


def test_mdns_announces_the_table() -> None:
    announcer = MdnsAnnouncer(lan_address(), 8765, name="Table Companion Test")
    if not announcer.start():  # no multicast here: the announcer must just say so
        assert announcer.error
        return
    browser = Zeroconf()
    try:
        info = browser.get_service_info(
            "_http._tcp.local.", "Table Companion Test._http._tcp.local.", timeout=3000
        )
        assert info is not None and info.port == 8765
    finally:
        browser.close()
        announcer.close()


def test_a_driver_thread_reports_link_status_to_every_phone(
    live_server: RunningServer,
) -> None:
    table = live_server.server.table_app.state.table
    phone = SseClient(live_server.url + "/api/stream")
    try:
        phone.next()
        # As the board driver would, from its own reader thread:
        table.call_from_thread(table.report_status, "board", "disconnected", "cable pulled")
        status = phone.next()
        assert status.kind == "status"
        assert status.data["status"]["board"] == {
            "link": "disconnected", "message": "cable pulled", "warnings": [],
            "at": status.data["status"]["board"]["at"],
        }
    finally:
        phone.close()


def test_hardware_attachments_run_with_the_table(settings: Settings) -> None:
    """A board driver plugs in as an attachment: opened with the table, closed at shutdown,
    its status and events reaching the table from its own thread."""
    log: list[str] = []

    @dataclass(frozen=True)
    class FakeLink:  # the shape of the sensor drivers' LinkStatus
        state: str
        detail: str

    @contextmanager
    def board(table: TableService) -> Iterator[None]:
        log.append("open")
        report = table.status_reporter("board")
        thread = threading.Thread(target=report, args=(FakeLink("lost", "cable pulled"),))
        thread.start()
        thread.join()
        yield
        log.append("close")

    def broken(table: TableService) -> AbstractContextManager[None]:
        raise OSError("no camera at /dev/video0")

    with TestClient(create_app(settings, attachments=[board, broken])) as client:
        deadline = time.monotonic() + 2
        while "board" not in client.get("/api/state").json()["status"]:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        status = client.get("/api/state").json()["status"]
        assert status["board"]["link"] == "lost"
        assert status["hardware 2"] == {"link": "absent", "message": "no camera at /dev/video0",
                                        "warnings": [], "at": status["hardware 2"]["at"]}
        assert log == ["open"]
    assert log == ["open", "close"]


def test_a_driver_thread_enters_events_and_hears_refusals(live_server: RunningServer) -> None:
    table = live_server.server.table_app.state.table
    http = httpx.Client(base_url=live_server.url)
    http.post("/api/matches", json=CATCH_MAG, headers=login(http))
    results: list[object] = []

    def board_thread() -> None:
        roll = {"type": "roll", "player": "Ann", "value": 2}
        results.append(table.submit_from_thread(roll, "board")["entry"]["actor"])
        try:
            table.submit_from_thread(roll, "board")
        except IllegalEvent as exc:
            results.append(str(exc))

    thread = threading.Thread(target=board_thread)
    thread.start()
    thread.join(10)
    http.close()
    assert results[0] == "board"
    assert isinstance(results[1], str) and "catch" in results[1]
