"""A real table server with inputs attached, a phone signed in, and a live-stream watcher.

Shared by the board and camera tests: the service runs under uvicorn on a free
port in a thread, exactly as `companion serve` runs it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from companion.service import Settings, create_app
from companion.service.app import TableAttachment
from companion.service.server import serving_in_thread
from tests.service.sse import SseClient, SseEvent

PIN = "2468"


@dataclass
class Watcher:
    """An SSE client that keeps every frame it has seen, for waiting on and checking later."""

    client: SseClient
    seen: list[SseEvent] = field(default_factory=list)

    cursor: int = 0
    """Frames before this index have been matched by a waiting test already."""

    def wait_for(self, test: Callable[[SseEvent], bool], timeout: float = 5.0,
                 what: str = "an event", consume: bool = True,
                 start: int | None = None) -> SseEvent:
        """The first frame after the cursor that passes ``test`` (reading more as needed).

        ``consume=False`` leaves the cursor where it was, so frames that came before
        the one waited for can still be waited for next; ``start`` looks from that
        index instead of the cursor.
        """
        index = self.cursor if start is None else start
        deadline = time.monotonic() + timeout
        while True:
            while index < len(self.seen):
                event = self.seen[index]
                index += 1
                if test(event):
                    if consume:
                        self.cursor = index
                    return event
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"the live stream never showed {what}; board status: "
                                     f"{self.board_status()}")
            try:
                self.seen.append(self.client.next(timeout=left))
            except Exception as exc:  # queue.Empty or EOFError
                raise AssertionError(f"the live stream never showed {what} ({exc!r}); board "
                                     f"status: {self.board_status()}") from None

    def board_status(self) -> dict[str, Any] | None:
        """The last ``board`` status the stream has shown."""
        for event in reversed(self.seen):
            status = event.data.get("status") if isinstance(event.data, dict) else None
            if isinstance(status, dict) and "board" in status:
                board: dict[str, Any] = status["board"]
                return board
        return None


@dataclass
class LiveTable:
    """The running server's address, a signed-in phone's client and headers, the watcher."""

    url: str
    http: httpx.Client
    headers: dict[str, str]
    watcher: Watcher


@contextmanager
def live_table(tmp_path: Path, attachments: Sequence[TableAttachment],
               timeout: float = 10.0) -> Iterator[LiveTable]:
    """Serve a table with ``attachments`` until the block ends, then stop it."""
    settings = Settings(data_dir=tmp_path / "table", pin=PIN, mdns=False,
                        public_host="127.0.0.1", port=0)
    with serving_in_thread(create_app(settings, attachments=attachments)) as server:
        url = f"http://127.0.0.1:{server.bound_port}"
        client = SseClient(url + "/api/stream")
        try:
            with httpx.Client(base_url=url, timeout=timeout) as http:
                token = http.post("/api/auth", json={"pin": PIN, "name": "Ann's phone"})
                assert token.status_code == 200, token.text
                headers = {"Authorization": f"Bearer {token.json()['token']}"}
                yield LiveTable(url, http, headers, Watcher(client))
        finally:
            client.close()
