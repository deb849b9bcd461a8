"""The fault run: a Catch Mag match survives a pulled cable and a killed service.

The simulated board runs in this test process, like a real Pico on the end of a
USB cable: `companion serve` is a separate process reading it over a
pseudo-terminal. Mid-match the cable is pulled (a catch is made while it is
out) and plugged back, and the service is killed with SIGKILL and started again.
The match then finishes; every event that was acknowledged is in the exported
log, and `companion replay` of that log gives the scores the table shows.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from companion.games.catch_mag import random_setup
from companion.games.match import Match
from companion.tablelog import replay_text
from hardware.simulated import SimulatedBoard, perform

PIN = "8642"
COMPANION = Path(sys.executable).with_name("companion")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Service:
    """`companion serve` as a real process on the simulated board's serial port."""

    def __init__(self, data: Path, board_port: str) -> None:
        self.port = free_port()
        self.command = [
            str(COMPANION), "serve", "--host", "127.0.0.1", "--port", str(self.port),
            "--data-dir", str(data), "--pin", PIN, "--no-mdns",
            "--board", board_port, "--camera", "none",
        ]
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.http = httpx.Client(base_url=self.url, timeout=10)
        self.headers: dict[str, str] = {}

    def start(self) -> None:
        self.process = subprocess.Popen(
            self.command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if self.http.get("/api/state").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        else:
            raise AssertionError("the service did not start")
        token = self.http.post("/api/auth", json={"pin": PIN, "name": "test"}).json()["token"]
        self.headers = {"Authorization": f"Bearer {token}"}

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        assert self.process.stderr is not None
        self.process.stderr.close()
        self.http.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            assert self.process.stderr is not None
            self.process.stderr.close()
        self.http.close()

    def match(self) -> dict[str, Any]:
        match: dict[str, Any] = self.http.get("/api/state").json()["match"]
        return match

    def log(self, match_id: int) -> list[dict[str, Any]]:
        text = self.http.get(f"/api/matches/{match_id}/log.jsonl").text
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def board_link(self) -> str | None:
        status = self.http.get("/api/state").json().get("status", {}).get("board")
        return None if status is None else str(status.get("link"))


@pytest.fixture
def board(tmp_path: Path) -> Iterator[SimulatedBoard]:
    sim = SimulatedBoard(link_dir=tmp_path / "by-id")
    sim.start()
    yield sim
    sim.stop()


def wait_until(test: Any, timeout: float = 8.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if test():
            return True
        time.sleep(0.03)
    return False


def link_is(service: Service, state: str) -> Callable[[], bool]:
    return lambda: service.board_link() == state


def log_longer(service: Service, match_id: int, than: int) -> Callable[[], bool]:
    return lambda: len(service.log(match_id)) > than


def test_pulled_cable_and_killed_service_lose_nothing(
    tmp_path: Path, board: SimulatedBoard
) -> None:
    rng = random.Random(69)  # a short match (40 events) that still reaches both faults
    service = Service(tmp_path / "data", board.port)
    service.start()
    try:
        setup = random_setup(rng, ["Ann", "Ben"])
        setup.pop("rods", None)  # the board reads colours from the rows; nothing is typed
        created = service.http.post(
            "/api/matches", json={k: v for k, v in setup.items() if k != "type"},
            headers=service.headers,
        )
        assert created.status_code == 201, created.text
        match_id = service.match()["id"]
        acknowledged: list[dict[str, Any]] = []
        unplug_after, killed_at = 10, 30
        unplugged: int | None = None

        while True:
            log = service.log(match_id)
            assert log[1:] == acknowledged, (log[-4:], acknowledged[-4:])
            local = Match.from_events(log)
            if local.finished:
                break
            step = len(acknowledged)
            event = local.random_event(rng)
            # The cable is pulled just before a successful catch (a failed catch made while
            # it is out cannot be seen: the Catch Mag's lift and return cancel out).
            pull = (
                unplugged is None and step >= unplug_after
                and event["type"] == "catch" and event["success"]
            )
            if pull:
                board.unplug()
                unplugged = step
                assert wait_until(link_is(service, "lost"))
            if perform(board, event, local.state):
                if pull:
                    time.sleep(0.3)  # the catch happens while the cable is out
                    board.replug()
                    assert wait_until(link_is(service, "connected"))
                arrived = wait_until(log_longer(service, match_id, than=len(log)))
                status = service.http.get("/api/state").json()["status"]
                assert arrived, (step, unplugged, event, status)
                acknowledged.append(service.log(match_id)[-1])
            else:
                response = service.http.post(
                    "/api/events", json={"event": event}, headers=service.headers
                )
                assert response.status_code == 201, response.text
                acknowledged.append(event)
            if step == killed_at:
                service.kill()
                service = Service(tmp_path / "data", board.port)
                service.start()
                assert wait_until(link_is(service, "connected"))
            assert step < 2_000, "the match did not end"
        assert unplugged is not None, "the match ended before the cable could be pulled"

        final = service.match()
        assert final["finished"]
        exported = service.http.get(f"/api/matches/{match_id}/log.jsonl").text
    finally:
        service.stop()
    replayed = replay_text(exported)
    assert replayed.summary()["totals"] == final["summary"]["totals"]
    assert replayed.summary()["winners"] == final["summary"]["winners"]
    assert len(replayed) == len(acknowledged)
    assert os.path.exists(tmp_path / "data" / "table.sqlite3")

