"""Fixtures: a table app over a real SQLite file, and a real uvicorn server."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from companion.service import Settings, create_app
from companion.service.server import TableServer

PIN = "2468"
CATCH_MAG = {"game": "catch-mag", "players": ["Ann", "Ben"]}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "table", pin=PIN, mdns=False, public_host="192.168.1.20",
                    pin_attempts=3, pin_lockout_seconds=60)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def login(client: TestClient | httpx.Client, name: str = "Ann's phone") -> dict[str, str]:
    response = client.post("/api/auth", json={"pin": PIN, "name": name})
    assert response.status_code == 200, response.text
    return {"Authorization": f"Bearer {response.json()['token']}"}


@pytest.fixture
def player(client: TestClient) -> dict[str, str]:
    return login(client)


@dataclass
class RunningServer:
    server: TableServer
    thread: threading.Thread
    url: str

    def stop(self, timeout: float = 10.0) -> float:
        """Ask the server to stop; seconds it took."""
        started = time.monotonic()
        self.server.should_exit = True
        self.thread.join(timeout)
        return time.monotonic() - started


def start_server(settings: Settings, port: int = 0) -> RunningServer:
    server = TableServer(create_app(settings), "127.0.0.1", port)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.01)
    return RunningServer(server, thread, f"http://127.0.0.1:{server.bound_port}")


@pytest.fixture
def live_server(settings: Settings) -> Iterator[RunningServer]:
    running = start_server(settings)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def settings_for_fuzz(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[TestClient, dict[str, str]]]:
    """One app for a whole hypothesis run (a match with an event already in it)."""
    fuzz_settings = Settings(data_dir=tmp_path_factory.mktemp("fuzz"), pin=PIN, mdns=False,
                             pin_attempts=1000)
    with TestClient(create_app(fuzz_settings)) as test_client:
        headers = login(test_client)
        test_client.post("/api/matches", json=CATCH_MAG, headers=headers)
        test_client.post("/api/events", json={"event": {"type": "roll", "player": "Ann",
                                                        "value": 2}}, headers=headers)
        yield test_client, headers
