"""What the Pi believes about the board, kept in step by frames: pure, no I/O, no threads.

Change frames are hints; the snapshot is the truth. Every frame carries a
32-bit sequence number (see :mod:`hardware.protocol`); the tracker holds the
newest one it has seen and drops any frame or snapshot that is not newer, so
a replayed or late frame can never take the belief back in time. A sequence
gap, garbled bytes, a heartbeat naming a frame that never came, or a silent
link make the tracker stop trusting changes, ask for a snapshot, and emit
only the difference between the snapshot and what it believed, so nothing
is lost and nothing is reported twice.

>>> from hardware.boardmap import load_board_map
>>> from hardware.protocol import Changes, Heartbeat, Hello, Snapshot
>>> t = BoardTracker(load_board_map())
>>> t.link_opened(now=0.0)
['Q']
>>> t.feed([Hello(0, (2, 0, 0), t.board.map_hash, 156, 1000, 5)], now=0.1).changes
[]
>>> t.feed([Snapshot(1, 156, frozenset({3}))], now=0.1).changes
[]
>>> t.feed([Changes(2, ((3, False), (40, True)))], now=0.2).changes
[(3, False), (40, True)]
>>> t.feed([Changes(2, ((3, False), (40, True)))], now=0.2).changes   # a replay: not newer
[]
>>> update = t.feed([Heartbeat(4, 1, 1000)], now=0.3)   # frames 3-4 were lost
>>> update.changes, update.requests, t.state
([], ['R'], 'resyncing')
>>> t.feed([Snapshot(5, 156, frozenset({40, 41, 7}))], now=0.4).changes
[(7, True), (41, True)]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from hardware.boardmap import BoardMap
from hardware.protocol import PROTOCOL_VERSION, Changes, Frame, Heartbeat, Hello, Snapshot
from hardware.sources import LinkState

SILENCE_LOST_S = 1.0
"""No frame for this long (heartbeats come every 250 ms): the link is lost."""
SNAPSHOT_RETRY_S = 0.5
"""A requested snapshot that has not come by then is asked for again."""
LEGACY_QUERY = "Q1"
"""A request for the protocol-1 hello (``hardware.protocol.V1_QUERY``)."""


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
        self.belief_seq: int | None = None
        """The sequence number of the frame that made ``present`` what it is."""
        self.state: LinkState = "lost"
        self.detail = "not connected"
        self.hello: Hello | None = None
        self.heartbeat: Heartbeat | None = None
        """The board's last heartbeat: its own scan rate and slowest scan."""
        self.stale = 0
        """Frames dropped because they were not newer than what the tracker held."""
        self._newest: int | None = None
        self._awaiting_since: float | None = None
        self._last_frame_at = 0.0
        self._mismatch = False
        self._legacy_asked_at: float | None = None

    # -- link events -----------------------------------------------------------

    def link_opened(self, now: float) -> list[str]:
        """The port opened (first time or after a replug): ask who is there."""
        self._newest = None
        self.hello = None
        self._awaiting_since = now
        self._last_frame_at = now
        self._set("resyncing", "waiting for the board to answer")
        return ["Q"]

    def link_closed(self, detail: str) -> None:
        self._newest = None
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

    def legacy_seen(self, now: float) -> list[str]:
        """Protocol-1 frames on the line: ask that board for its (protocol-1) hello."""
        if self.hello is not None and self.hello.protocol == PROTOCOL_VERSION:
            return []
        if self._legacy_asked_at is not None and now - self._legacy_asked_at < SNAPSHOT_RETRY_S:
            return []
        self._legacy_asked_at = now
        self._last_frame_at = now
        return [LEGACY_QUERY]

    # -- frames ----------------------------------------------------------------

    def feed(self, frames: Iterable[Frame], now: float) -> Update:
        update = Update()
        for frame in frames:
            if isinstance(frame, Hello):
                self._on_hello(frame, now)
                continue
            if self._mismatch or self.hello is None or self._newest is None:
                continue  # not known to be our board (yet): a matching hello must come first
            if isinstance(frame, Heartbeat):
                self._on_heartbeat(frame, now, update)
                continue
            if not isinstance(frame, Snapshot | Changes):
                continue
            if frame.seq <= self._newest:
                self.stale += 1  # a replay, a late or reordered frame: we hold newer
                continue
            self._last_frame_at = now
            gap = frame.seq != self._newest + 1
            self._newest = frame.seq
            if isinstance(frame, Snapshot):
                self._on_snapshot(frame, update)
            elif gap:
                if self._awaiting_since is None:
                    update.requests += self._resync(now, "frames were lost on the serial line")
            elif self._awaiting_since is None:
                self._on_changes(frame, update)
        return update

    def _on_hello(self, hello: Hello, now: float) -> None:
        if hello.protocol != PROTOCOL_VERSION:
            self.hello = hello
            self._mismatch = True
            self._awaiting_since = None
            self._set("lost", f"the board's firmware speaks protocol {hello.protocol}; this "
                              f"companion speaks protocol {PROTOCOL_VERSION}: flash the Pico "
                              "again (docs/hardware.md)")
            return
        same_boot = self.hello is not None and hello.boot_id == self.hello.boot_id
        if same_boot and self._newest is not None and hello.seq <= self._newest:
            self.stale += 1
            return
        self._last_frame_at = now
        self.hello = hello
        self._newest = hello.seq
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

    def _on_heartbeat(self, beat: Heartbeat, now: float, update: Update) -> None:
        assert self._newest is not None
        if beat.seq < self._newest:
            self.stale += 1
            return
        self._last_frame_at = now
        self.heartbeat = beat
        if beat.seq > self._newest:  # the board sent frames we never got
            self._newest = beat.seq
            if self._awaiting_since is None:
                update.requests += self._resync(now, "the last frames were lost on the "
                                                     "serial line")
        elif self.state == "lost" and self.present is not None \
                and self._awaiting_since is None:
            update.requests += self._resync(now, "the board is talking again")

    def _on_snapshot(self, snapshot: Snapshot, update: Update) -> None:
        if snapshot.sensor_count != len(self.board.sensors):
            return
        before = self.present
        self.present = snapshot.present
        self.belief_seq = snapshot.seq
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
        self.belief_seq = frame.seq

    def _resync(self, now: float, why: str) -> list[str]:
        self._awaiting_since = now
        self._set("resyncing", why)
        return ["R"]

    def _set(self, state: LinkState, detail: str) -> None:
        self.state = state
        self.detail = detail
