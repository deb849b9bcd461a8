"""A board, a damaging wire and the Pi's decoder and tracker in one loop: counts phantom changes.

A *phantom* is a sensor change the Pi reports that the board never made. The
board model numbers its frames as the firmware does (from any 32-bit start,
so the 16-bit wire number laps), sends change bursts, heartbeats every 250
(simulated) ms naming its last frame, and answers the tracker's ``R`` and ``Q``
a few milliseconds later. The wire between them drops, bit-flips, truncates,
reorders and replays frames (any earlier frame, snapshots included) and
throws in random bytes.

The check does not trust the tracker: the Pi's belief is rebuilt from the
changes it reports, and after every report it must equal the board's real
state at the frame the tracker says it reached (compared by Zobrist hash, so
10^6 frames fit in memory), and those frames must come in order. Every change
in a report that fails this is counted as a phantom. At the end the wire is
clean for a while and the Pi must be connected and believe the board's truth.

Used by ``tests/hardware/test_phantoms.py`` (Hypothesis picks the damage) and
``bench/bench_phantoms.py`` (10^6 frames and more).
"""

from __future__ import annotations

import random
from array import array
from collections import deque
from dataclasses import dataclass, field

from hardware.boardmap import BoardMap
from hardware.protocol import (
    MAX_SEQ,
    FrameDecoder,
    Heartbeat,
    Hello,
    Snapshot,
    changes_frames,
    encode,
)
from hardware.tracker import BoardTracker


@dataclass(frozen=True)
class Damage:
    """Per frame sent, the chance of each kind of trouble on the wire."""

    drop: float = 0.02
    flip: float = 0.02
    """1 to 4 random bits flipped anywhere in the frame."""
    truncate: float = 0.02
    garbage: float = 0.02
    """Up to 40 random bytes before the frame."""
    replay: float = 0.05
    """A copy of any earlier frame (a snapshot a third of the time) put before this one."""
    reorder: float = 0.02
    """The frame is held back and sent after the next one."""


@dataclass
class Tally:
    frames: int = 0
    """Frames the board sent (replays and garbage not counted)."""
    damaged: dict[str, int] = field(default_factory=dict)
    phantoms: int = 0
    reported: int = 0
    """Changes the Pi reported (genuine ones, when phantoms is 0)."""
    made: int = 0
    """Changes the board made."""
    resync_requests: int = 0
    stale_dropped: int = 0
    decoder_errors: int = 0
    final_ok: bool = False


class BoardModel:
    """What the firmware does, as far as the wire can tell: numbered frames of a true state."""

    def __init__(self, board: BoardMap, rng: random.Random, first_seq: int) -> None:
        self.n = len(board.sensors)
        self.board = board
        self.rng = rng
        self.present = {board.sensor(s).index for s in board.initial_layout()}
        self.keys = [rng.getrandbits(63) for _ in range(self.n)]
        self.hash = 0
        for i in self.present:
            self.hash ^= self.keys[i]
        self.first_seq = first_seq
        self.seq = first_seq
        self.last_sent = first_seq
        self.history = array("q")
        """Zobrist hash of the true state after frame ``first_seq + i``."""
        self.boot_id = rng.randrange(0x10000)
        self.changes_made = 0

    def _numbered(self) -> int:
        seq = self.seq
        self.last_sent = seq
        self.seq += 1
        self.history.append(self.hash)
        return seq

    def hello(self) -> bytes:
        return encode(Hello(self._numbered(), (2, 0, 0), self.board.map_hash, self.n, 1000, 5,
                            boot_id=self.boot_id))

    def snapshot(self) -> bytes:
        return encode(Snapshot(self._numbered(), self.n, frozenset(self.present)))

    def heartbeat(self, uptime_s: int) -> bytes:
        return encode(Heartbeat(self.last_sent, uptime_s, 1000, 700))

    def burst(self) -> list[bytes]:
        """One scan's debounced changes: usually a few, now and then more than a frame holds."""
        rng = self.rng
        count = rng.randint(1, 3) if rng.random() < 0.95 else rng.randint(9, 20)
        moved = []
        for index in rng.sample(range(self.n), count):
            now_present = index not in self.present
            moved.append((index, now_present))
        self.changes_made += count
        out = []
        for frame in changes_frames(self.seq, moved):
            for index, now_present in frame.changes:  # the state after this very frame
                if now_present:
                    self.present.add(index)
                else:
                    self.present.discard(index)
                self.hash ^= self.keys[index]
            assert self._numbered() == frame.seq
            out.append(encode(frame))
        return out

    def state_hash(self, seq: int) -> int | None:
        at = seq - self.first_seq
        return self.history[at] if 0 <= at < len(self.history) else None


def run(board: BoardMap, *, seed: int, frames: int, first_seq: int = 0,
        damage: Damage | None = None, change_rate: float = 0.9,
        tracker_class: type[BoardTracker] = BoardTracker) -> Tally:
    """Play ``frames`` board frames through the damaged wire, then two clean seconds."""
    damage = damage or Damage()
    rng = random.Random(seed)
    wire_rng = random.Random(seed ^ 0x5EED)
    model = BoardModel(board, rng, min(first_seq, MAX_SEQ - 2 * frames - 10_000))
    decoder = FrameDecoder()
    tracker = tracker_class(board)
    tally = Tally()
    sent: list[bytes] = []
    snapshots: list[bytes] = []
    held: bytes | None = None
    requests: deque[tuple[int, str]] = deque()

    belief: set[int] | None = None
    belief_hash = 0
    last_seq = -1

    def deliver(data: bytes, now: float, clean: bool) -> None:
        nonlocal belief, belief_hash, last_seq
        errors = decoder.errors + decoder.discarded
        legacy = decoder.legacy
        update = tracker.feed(decoder.feed(data), now)
        asked = update.requests
        if decoder.errors + decoder.discarded > errors:
            asked += tracker.garbled(now)
        if decoder.legacy > legacy:
            asked += tracker.legacy_seen(now)
        queue(asked, now)
        if belief is None and tracker.present is not None:
            belief = set(tracker.present)  # the first snapshot: a belief, not changes
            belief_hash = _hash(model.keys, belief)
            last_seq = tracker.belief_seq if tracker.belief_seq is not None else -1
        if not update.changes:
            return
        assert belief is not None
        for index, present in update.changes:
            belief_hash ^= model.keys[index] if (index in belief) != present else 0
            if present:
                belief.add(index)
            else:
                belief.discard(index)
        tally.reported += len(update.changes)
        seq = tracker.belief_seq
        real = None if seq is None else model.state_hash(seq)
        if real != belief_hash or seq is None or seq < last_seq:
            tally.phantoms += len(update.changes)
            assert tracker.present is not None
            belief = set(tracker.present)  # count each bad report once, not its aftermath
            belief_hash = _hash(model.keys, belief)
        last_seq = seq if seq is not None else last_seq

    def queue(asked: list[str], now: float) -> None:
        step = round(now * 1000)
        for kind in dict.fromkeys(asked):
            tally.resync_requests += kind == "R"
            requests.append((step + rng.randint(1, 5), kind))

    def send(frame: bytes, step: int, clean: bool) -> None:
        nonlocal held
        now = step / 1000
        sent.append(frame)
        if frame[:1] == b"S":
            snapshots.append(frame)
        tally.frames += 1
        if clean:
            deliver(frame, now, clean)
            return
        roll = wire_rng.random
        out = b""
        if roll() < damage.garbage:
            out += wire_rng.randbytes(wire_rng.randint(1, 40))
            _count(tally, "garbage")
        if roll() < damage.replay:
            pool = snapshots if snapshots and roll() < 1 / 3 else sent
            out += pool[wire_rng.randrange(len(pool))]
            _count(tally, "replay")
        if roll() < damage.drop:
            _count(tally, "drop")
            frame = b""
        elif roll() < damage.flip:
            data = bytearray(frame)
            for _ in range(wire_rng.randint(1, 4)):
                data[wire_rng.randrange(len(data))] ^= 1 << wire_rng.randrange(8)
            frame = bytes(data)
            _count(tally, "flip")
        elif roll() < damage.truncate:
            frame = frame[:wire_rng.randrange(1, len(frame))]
            _count(tally, "truncate")
        if held is not None:
            out += frame + held  # the held-back frame comes after this one
            held = None
        elif frame and roll() < damage.reorder:
            held = frame
            _count(tally, "reorder")
        else:
            out += frame
        if out:
            deliver(out, now, clean)

    queue(tracker.link_opened(0.0), 0.0)
    step = 0
    uptime_steps = 0
    clean_steps = 2_000
    while tally.frames < frames or clean_steps > 0:
        clean = tally.frames >= frames
        if clean:
            clean_steps -= 1
        step += 1
        uptime_steps += 1
        now = step / 1000
        while requests and requests[0][0] <= step:
            _, kind = requests.popleft()
            if kind == "Q":
                send(model.hello(), step, clean)
            if kind in ("Q", "R"):
                send(model.snapshot(), step, clean)
        if not clean and rng.random() < change_rate:
            for frame in model.burst():
                send(frame, step, clean)
        if step % 250 == 0:
            send(model.heartbeat(uptime_steps // 1000), step, clean)
        queue(tracker.tick(now), now)
    tally.made = model.changes_made
    tally.stale_dropped = tracker.stale
    tally.decoder_errors = decoder.errors
    tally.final_ok = (tracker.state == "connected" and tracker.present is not None
                      and set(tracker.present) == model.present and belief == model.present)
    return tally


def _hash(keys: list[int], present: set[int]) -> int:
    value = 0
    for i in present:
        value ^= keys[i]
    return value


def _count(tally: Tally, what: str) -> None:
    tally.damaged[what] = tally.damaged.get(what, 0) + 1
