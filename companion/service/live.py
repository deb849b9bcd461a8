"""Fan-out of live updates to every connected phone (server-sent events).

Each phone's stream gets a bounded queue. A phone too slow to keep up is
dropped rather than allowed to grow memory; its browser reconnects by itself
and gets a fresh snapshot, so it loses nothing. ``close()`` ends every
stream at once, which lets the server shut down promptly.

>>> import asyncio
>>> hub = Hub(queue_size=2)
>>> sub = hub.subscribe()
>>> hub.publish("a"); hub.publish("b"); hub.publish("c")
>>> sub.dropped, len(hub)
(True, 0)
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

_CLOSE = object()


def sse_frame(kind: str, data: Any, seq: int | None = None) -> str:
    """One server-sent event: ``event`` name, optional ``id``, JSON ``data``.

    >>> sse_frame("change", {"seq": 3}, seq=3)
    'event: change\\nid: 3\\ndata: {"seq":3}\\n\\n'
    """
    head = f"event: {kind}\n" + (f"id: {seq}\n" if seq is not None else "")
    return head + "data: " + json.dumps(data, separators=(",", ":"), ensure_ascii=False) + "\n\n"


class Subscriber:
    def __init__(self, queue_size: int) -> None:
        self.queue: asyncio.Queue[object] = asyncio.Queue(maxsize=queue_size)
        self.dropped = False

    async def next(self, timeout: float) -> str | None:
        """The next frame; ``None`` on timeout. Raises ``EOFError`` once closed."""
        try:
            item = await asyncio.wait_for(self.queue.get(), timeout)
        except TimeoutError:
            return None
        if item is _CLOSE:
            raise EOFError
        assert isinstance(item, str)
        return item


class Hub:
    """All open streams. Used from the event loop only."""

    def __init__(self, queue_size: int = 256) -> None:
        self.queue_size = queue_size
        self._subscribers: set[Subscriber] = set()
        self.closed = False

    def __len__(self) -> int:
        return len(self._subscribers)

    def subscribe(self) -> Subscriber:
        sub = Subscriber(self.queue_size)
        if self.closed:
            sub.queue.put_nowait(_CLOSE)
        else:
            self._subscribers.add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        self._subscribers.discard(sub)

    def publish(self, frame: str) -> None:
        for sub in list(self._subscribers):
            try:
                sub.queue.put_nowait(frame)
            except asyncio.QueueFull:
                self._drop(sub)

    def _drop(self, sub: Subscriber) -> None:
        sub.dropped = True
        self._subscribers.discard(sub)
        # Make room for the close marker so the stream ends now.
        while not sub.queue.empty():
            sub.queue.get_nowait()
        sub.queue.put_nowait(_CLOSE)

    def close(self) -> None:
        """End every stream (server shutdown)."""
        self.closed = True
        for sub in list(self._subscribers):
            self._drop(sub)
