"""A power cut in the middle of a game loses nothing that a phone was told was saved."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from companion.games.match import Match
from tests.service.conftest import PIN

SETUP = {"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben", "Cy"]}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def serve(data_dir: Path, port: int) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(
        [sys.executable, "-m", "companion.serve", "--host", "127.0.0.1",
         "--port", str(port), "--data-dir", str(data_dir), "--pin", PIN, "--no-mdns"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/state", timeout=1).is_success:
                    break
            except httpx.HTTPError:
                pass
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(10)
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()


def test_sigkill_mid_stream_loses_no_acknowledged_event(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    acknowledged: list[dict[str, Any]] = []
    with serve(tmp_path, port) as process:
        http = httpx.Client(base_url=base, timeout=5)
        token = http.post("/api/auth", json={"pin": PIN}).json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        assert http.post("/api/matches", json={"game": "catch-mag",
                                               "players": SETUP["players"]},
                         headers=headers).status_code == 201
        mirror = Match(SETUP)
        rng = random.Random(7)

        def post_events() -> None:
            while not mirror.finished:
                event = mirror.random_event(rng)
                try:
                    response = http.post("/api/events", json={"event": event}, headers=headers)
                except httpx.HTTPError:
                    return  # the power went
                if response.status_code != 201:
                    return
                acknowledged.append(event)
                mirror.push(event)

        writer = threading.Thread(target=post_events)
        writer.start()
        while len(acknowledged) < 40 and writer.is_alive():
            time.sleep(0.005)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
        writer.join(10)
        http.close()
    assert len(acknowledged) >= 40
    with serve(tmp_path, port):
        state = httpx.get(base + "/api/state", timeout=5).json()
    stored = [entry["event"] for entry in state["match"]["entries"]]
    # Every acknowledged event is there, in order; at most one more was on disk
    # when the power went before its answer reached the phone.
    assert stored[: len(acknowledged)] == acknowledged
    assert len(stored) <= len(acknowledged) + 1
    assert all(not entry["flagged"] for entry in state["match"]["entries"])
    resumed = Match.from_events([SETUP, *stored])
    assert state["match"]["summary"]["turn"] == resumed.turn
    assert state["match"]["summary"]["totals"] == resumed.summary()["totals"]
