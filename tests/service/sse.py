"""A small server-sent-events reader for tests and the benchmark.

It speaks HTTP/1.1 over a plain socket in its own thread, so it can be stopped
at once and always closes its socket itself (no leaked connections).
"""

from __future__ import annotations

import json
import queue
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


@dataclass
class SseEvent:
    kind: str
    data: Any
    received: float


class ChunkedSseParser:
    """Feed it the bytes of a chunked ``text/event-stream`` body; get the events.

    >>> p = ChunkedSseParser()
    >>> p.feed(b'12\\r\\nevent: x\\ndata: 1\\n\\n\\r\\n')
    [('x', 1)]
    """

    def __init__(self) -> None:
        self._raw = b""
        self._text = ""
        self._kind = "message"
        self._data = ""
        self.ended = False

    def feed(self, data: bytes) -> list[tuple[str, Any]]:
        self._raw += data
        while True:
            head, sep, rest = self._raw.partition(b"\r\n")
            if not sep:
                break
            size = int(head.split(b";")[0] or b"0", 16)
            if size == 0:
                self.ended = True
                self._raw = b""
                break
            if len(rest) < size + 2:
                break
            self._text += rest[:size].decode()
            self._raw = rest[size + 2:]
        events: list[tuple[str, Any]] = []
        while "\n" in self._text:
            line, self._text = self._text.split("\n", 1)
            if line.startswith("event: "):
                self._kind = line[7:]
            elif line.startswith("data: "):
                self._data += line[6:]
            elif line == "" and self._data:
                events.append((self._kind, json.loads(self._data)))
                self._kind, self._data = "message", ""
        return events


class SseClient:
    """Reads one stream in a thread and queues its events with their arrival time."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self._address = (parts.hostname or "127.0.0.1", parts.port or 80)
        self._path = parts.path or "/"
        self.events: queue.Queue[SseEvent | None] = queue.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            with socket.create_connection(self._address, timeout=5) as sock:
                host = f"{self._address[0]}:{self._address[1]}"
                sock.sendall(f"GET {self._path} HTTP/1.1\r\nHost: {host}\r\n"
                             "Accept: text/event-stream\r\n\r\n".encode())
                sock.settimeout(0.1)
                buffer, parser, in_body = b"", ChunkedSseParser(), False
                while not self._stop.is_set() and not parser.ended:
                    try:
                        data = sock.recv(65536)
                    except TimeoutError:
                        continue
                    if not data:
                        break
                    if not in_body:
                        buffer += data
                        if b"\r\n\r\n" not in buffer:
                            continue
                        _, data = buffer.split(b"\r\n\r\n", 1)
                        in_body = True
                    now = time.monotonic()
                    for kind, payload in parser.feed(data):
                        self.events.put(SseEvent(kind, payload, now))
        except OSError:
            pass
        finally:
            self.events.put(None)

    def next(self, timeout: float = 5.0) -> SseEvent:
        event = self.events.get(timeout=timeout)
        if event is None:
            raise EOFError("the stream ended")
        return event

    def ended(self, timeout: float = 5.0) -> bool:
        """Whether the stream ends (after any events still queued) within ``timeout``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.events.get(timeout=max(0.01, deadline - time.monotonic())) is None:
                    return True
            except queue.Empty:
                return False
        return False

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
