"""What the Pi believes about the board, kept in step by frames: pure, no I/O, no threads.

Change frames are hints; the snapshot is the truth. Sequence gaps, garbled
bytes or a silent link make the tracker stop trusting changes, ask for a
snapshot, and emit only the difference between the snapshot and what it
believed, so nothing is lost and nothing is reported twice.

>>> from hardware.boardmap import load_board_map
>>> from hardware.protocol import Changes, Hello, Snapshot
>>> t = BoardTracker(load_board_map())
>>> t.link_opened(now=0.0)
['Q']
>>> t.feed([Hello(0, (1, 0, 0), t.board.map_hash, 156, 250, 30)], now=0.1).changes
[]
>>> t.feed([Snapshot(1, 156, frozenset({3}))], now=0.1).changes
[]
>>> t.feed([Changes(2, ((3, False), (40, True)))], now=0.2).changes
[(3, False), (40, True)]
>>> update = t.feed([Changes(5, ((41, True),))], now=0.3)   # frames 3-4 were lost
>>> update.changes, update.requests, t.state
([], ['R'], 'resyncing')
>>> t.feed([Snapshot(6, 156, frozenset({40, 41, 7}))], now=0.4).changes
[(7, True), (41, True)]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from hardware.boardmap import BoardMap
from hardware.protocol import Changes, Frame, Heartbeat, Hello, Snapshot
from hardware.sources import LinkState

SILENCE_LOST_S = 2.5
"""No frame for this long (heartbeats come every second): the link is lost."""
SNAPSHOT_RETRY_S = 0.5
"""A requested snapshot that has not come by then is asked for again."""


@dataclass
class Update:
    """What one call produced: changes to report, commands to send to the board."""

    changes: list[tuple[int, bool]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


class BoardTracker:
    """The Pi's belief about every sensor, plus the link state that says how far to trust it."""

    def __init__(self, board: BoardMap) -> None:
        self.board = board
        self.present: frozenset[int] | None = None
        """Indices believed present; ``None`` until the first snapshot ever."""
        self.state: LinkState = "lost"
        self.detail = "not connected"
        self.hello: Hello | None = None
        self._expected_seq: int | None = None
        self._awaiting_since: float | None = None
        self._last_frame_at = 0.0
        self._mismatch = False

    # -- link events -----------------------------------------------------------

    def link_opened(self, now: float) -> list[str]:
        """The port opened (first time or after a replug): ask who is there."""
        self._expected_seq = None
        self.hello = None
        self._awaiting_since = now
        self._last_frame_at = now
        self._set("resyncing", "waiting for the board to answer")
        return ["Q"]

    def link_closed(self, detail: str) -> None:
        self._expected_seq = None
        self._awaiting_since = None
        self._set("lost", detail)

    def tick(self, now: float) -> list[str]:
        """Time passing: retry a snapshot request, notice a silent board."""
        if self.state == "lost" and self._awaiting_since is None:
            return []
        if now - self._last_frame_at > SILENCE_LOST_S:
            self._last_frame_at = now
            self._awaiting_since = now
            self._set("lost", "the board stopped answering (no heartbeat)")
            return ["Q"]
        if self._awaiting_since is not None and now - self._awaiting_since > SNAPSHOT_RETRY_S:
            self._awaiting_since = now
            return ["Q" if self.hello is None or self._mismatch else "R"]
        return []

    def garbled(self, now: float) -> list[str]:
        """The decoder dropped bytes: a change may be among them, so resync."""
        if self.present is None or self._awaiting_since is not None:
            return []
        return self._resync(now, "garbled bytes on the serial line")

    # -- frames ----------------------------------------------------------------

    def feed(self, frames: Iterable[Frame], now: float) -> Update:
        update = Update()
        for frame in frames:
            self._last_frame_at = now
            if isinstance(frame, Hello):
                self._on_hello(frame, now, update)
                continue
            if self._mismatch or self.hello is None:
                continue  # not known to be our board (yet): a matching hello must come first
            gap = self._expected_seq is not None and frame.seq != self._expected_seq
            self._expected_seq = (frame.seq + 1) & 0xFF
            if isinstance(frame, Snapshot):
                self._on_snapshot(frame, update)
            elif gap:
                if self._awaiting_since is None:
                    update.requests += self._resync(now, "frames were lost on the serial line")
            elif isinstance(frame, Changes) and self._awaiting_since is None:
                self._on_changes(frame, update)
            elif isinstance(frame, Heartbeat) and self.state == "lost" and self.present is not None:
                update.requests += self._resync(now, "the board is talking again")
        return update

    def _on_hello(self, hello: Hello, now: float, update: Update) -> None:
        self.hello = hello
        self._expected_seq = (hello.seq + 1) & 0xFF
        expected = self.board.map_hash
        if hello.map_hash != expected or hello.sensor_count != len(self.board.sensors):
            self._mismatch = True
            self._awaiting_since = None
            self._set("lost", f"the board's firmware was built for another board map "
                              f"(hash {hello.map_hash.hex()}, {hello.sensor_count} sensors; "
                              f"expected {expected.hex()}, {len(self.board.sensors)}): "
                              "flash the Pico again (docs/hardware.md)")
            return
        self._mismatch = False
        if self._awaiting_since is None:
            self._awaiting_since = now
        self._set("resyncing", "waiting for the board's snapshot")

    def _on_snapshot(self, snapshot: Snapshot, update: Update) -> None:
        if snapshot.sensor_count != len(self.board.sensors):
            return
        before = self.present
        self.present = snapshot.present
        self._awaiting_since = None
        self._set("connected", "")
        if before is None:
            return  # first sync: the snapshot is the starting belief, not a change
        update.changes += [(i, False) for i in sorted(before - snapshot.present)]
        update.changes += [(i, True) for i in sorted(snapshot.present - before)]

    def _on_changes(self, frame: Changes, update: Update) -> None:
        assert self.present is not None
        present = set(self.present)
        for index, is_present in frame.changes:
            if index >= len(self.board.sensors) or (index in present) == is_present:
                continue  # not a change to what we believe: drop it, never invent one
            if is_present:
                present.add(index)
            else:
                present.discard(index)
            update.changes.append((index, is_present))
        self.present = frozenset(present)

    def _resync(self, now: float, why: str) -> list[str]:
        self._awaiting_since = now
        self._set("resyncing", why)
        return ["R"]

    def _set(self, state: LinkState, detail: str) -> None:
        self.state = state
        self.detail = detail
