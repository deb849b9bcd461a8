"""The Pi's belief about the board: gaps, garbage, silence, replays, wrong firmware or protocol,
and a fuzzed link."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.boardmap import load_board_map
from hardware.protocol import Changes, FrameDecoder, Heartbeat, Hello, Snapshot, encode
from hardware.tracker import SILENCE_LOST_S, SNAPSHOT_RETRY_S, BoardTracker

BOARD = load_board_map()
N = len(BOARD.sensors)
INITIAL = frozenset(BOARD.sensor(s).index for s in BOARD.initial_layout())


def hello(seq: int = 0, map_hash: bytes = BOARD.map_hash, boot_id: int = 1) -> Hello:
    return Hello(seq, (2, 0, 0), map_hash, N, 1000, 5, boot_id=boot_id)


def synced(present: frozenset[int] = INITIAL) -> BoardTracker:
    tracker = BoardTracker(BOARD)
    assert tracker.link_opened(now=0.0) == ["Q"]
    tracker.feed([hello(0), Snapshot(1, N, present)], now=0.0)
    assert tracker.state == "connected"
    return tracker


def test_changes_in_sequence_are_reported_and_repeats_are_not() -> None:
    tracker = synced()
    update = tracker.feed([Changes(2, ((35, False), (0, True), (4, False)))], now=0.1)
    # sensor 0 (U1, a joker ball) is already present: not a change, not reported
    assert update.changes == [(35, False), (4, False)]
    assert update.requests == []


def test_a_sequence_gap_resyncs_and_the_snapshot_brings_only_real_differences() -> None:
    tracker = synced()
    update = tracker.feed([Changes(5, ((35, False),))], now=0.1)
    assert (update.changes, update.requests, tracker.state) == ([], ["R"], "resyncing")
    assert tracker.feed([Changes(6, ((4, False),))], now=0.15).changes == []  # held back
    truth = (INITIAL - {35, 4}) | {40}
    update = tracker.feed([Snapshot(7, N, truth)], now=0.2)
    assert update.changes == [(4, False), (35, False), (40, True)]
    assert tracker.state == "connected" and tracker.present == truth


def test_garbled_bytes_ask_for_a_snapshot_once() -> None:
    tracker = synced()
    assert tracker.garbled(now=0.1) == ["R"]
    assert tracker.garbled(now=0.2) == []  # already waiting
    assert tracker.tick(now=0.1 + SNAPSHOT_RETRY_S + 0.01) == ["R"]  # not answered: again


def test_a_replayed_snapshot_or_change_never_takes_the_belief_back() -> None:
    tracker = synced()
    assert tracker.feed([Changes(2, ((35, False),))], now=0.1).changes == [(35, False)]
    # the boot snapshot (35 present) and the change again, much later: both older than held
    update = tracker.feed([Snapshot(1, N, INITIAL), Changes(2, ((35, False),))], now=0.2)
    assert (update.changes, update.requests) == ([], [])
    assert tracker.stale == 2 and 35 not in (tracker.present or ())
    assert tracker.state == "connected"


def test_a_heartbeat_naming_a_frame_never_received_resyncs_at_once() -> None:
    tracker = synced()
    assert tracker.feed([Heartbeat(1, 1, 1000)], now=0.25).requests == []  # in step
    # the change frame 2 was lost; the next heartbeat names it
    update = tracker.feed([Heartbeat(2, 1, 1000)], now=0.5)
    assert (update.requests, tracker.state) == (["R"], "resyncing")
    update = tracker.feed([Snapshot(3, N, INITIAL - {35})], now=0.52)
    assert update.changes == [(35, False)] and tracker.state == "connected"


def test_a_replayed_hello_is_dropped_and_a_new_boot_starts_afresh() -> None:
    tracker = synced()
    tracker.feed([Changes(2, ((35, False),))], now=0.1)
    tracker.feed([hello(0), Snapshot(1, N, INITIAL)], now=0.2)  # same boot, old: replays
    # as tuples: mypy would otherwise keep `state` narrowed across the feed() calls
    assert (tracker.state, tracker.stale) == ("connected", 2)
    tracker.feed([hello(0, boot_id=2)], now=0.3)  # the board restarted
    assert tracker.state == "resyncing"
    update = tracker.feed([Snapshot(1, N, INITIAL - {35, 4})], now=0.31)
    assert (update.changes, tracker.state) == ([(4, False)], "connected")


def test_a_protocol_1_board_is_refused_with_the_reason() -> None:
    tracker = BoardTracker(BOARD)
    tracker.link_opened(now=0.0)
    assert tracker.legacy_seen(now=0.1) == ["Q1"]  # its heartbeats: ask for its hello
    assert tracker.legacy_seen(now=0.2) == []  # not again at once
    old = Hello(0, (1, 0, 0), BOARD.map_hash, N, 250, 30, protocol=1)
    tracker.feed([old, Snapshot(1, N, frozenset({1}))], now=0.3)
    assert tracker.state == "lost" and tracker.present is None
    assert "speaks protocol 1" in tracker.detail and "flash the Pico again" in tracker.detail


def test_a_silent_board_is_reported_lost_and_queried() -> None:
    tracker = synced()
    tracker.feed([Heartbeat(1, 1, 250)], now=1.0)
    assert tracker.tick(now=1.0 + SILENCE_LOST_S - 0.1) == []
    assert tracker.tick(now=1.0 + SILENCE_LOST_S + 0.1) == ["Q"]
    assert tracker.state == "lost"
    assert "stopped answering" in tracker.detail


def test_firmware_built_for_another_board_map_is_refused() -> None:
    tracker = BoardTracker(BOARD)
    tracker.link_opened(now=0.0)
    tracker.feed([hello(0, b"\x00\x01\x02\x03"), Snapshot(1, N, frozenset({1, 2}))], now=0.0)
    assert tracker.state == "lost"
    assert "flash the Pico again" in tracker.detail
    assert tracker.present is None  # its snapshot is not believed


def test_frames_before_the_hello_are_not_believed() -> None:
    tracker = BoardTracker(BOARD)
    tracker.link_opened(now=0.0)
    assert tracker.feed([Snapshot(7, N, frozenset({1})), Changes(8, ((2, True),))],
                        now=0.0).changes == []
    assert tracker.present is None


def test_a_replug_diffs_the_new_snapshot_against_the_old_belief() -> None:
    tracker = synced()
    tracker.link_closed("cable pulled")
    assert tracker.state == "lost"
    tracker.link_opened(now=5.0)
    update = tracker.feed([hello(0), Snapshot(1, N, INITIAL - {4} | {40})], now=5.1)
    assert update.changes == [(4, False), (40, True)]


# -- a fuzzed link: the real firmware's frames, damaged on the way --------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.lists(st.sampled_from(["drop", "duplicate", "garbage",
                                                        "corrupt", "truncate", "none"]),
                                       min_size=1, max_size=40))
def test_a_damaged_link_never_invents_a_change_and_the_next_snapshot_restores_the_truth(
    seed: int, damage: list[str],
) -> None:
    rng = random.Random(seed)
    truth = set(INITIAL)
    happened: set[tuple[int, bool]] = set()
    frames: list[bytes] = [encode(hello(0)), encode(Snapshot(1, N, frozenset(truth)))]
    seq = 2
    for _ in damage:
        moved = rng.sample(range(N), rng.randint(1, 3))
        changes = []
        for index in moved:
            now_present = index not in truth
            truth ^= {index}
            changes.append((index, now_present))
            happened.add((index, now_present))
        frames.append(encode(Changes(seq, tuple(changes))))
        seq += 1
    wire = [frames[0], frames[1]]
    for frame, what in zip(frames[2:], damage, strict=True):
        if what == "drop":
            continue
        if what == "duplicate":
            wire += [frame, frame]
        elif what == "garbage":
            wire += [bytes(rng.randrange(256) for _ in range(rng.randint(1, 30))), frame]
        elif what == "corrupt":
            at = rng.randrange(len(frame))
            wire.append(frame[:at] + bytes([frame[at] ^ (1 << rng.randrange(7))]) + frame[at + 1:])
        elif what == "truncate":
            wire.append(frame[: rng.randrange(1, len(frame))])
        else:
            wire.append(frame)
    tracker = BoardTracker(BOARD)
    tracker.link_opened(now=0.0)
    decoder = FrameDecoder()
    belief = set(INITIAL)
    for chunk in wire:
        update = tracker.feed(decoder.feed(chunk), now=0.0)
        for index, present in update.changes:
            assert (index, present) in happened, "a change that never happened"
            belief ^= {index}
    # the firmware answers the resync request with a snapshot of the truth
    final = tracker.feed(decoder.feed(b"\n" + encode(Snapshot(seq, N, frozenset(truth)))),
                         now=1.0)
    for index, present in final.changes:
        assert (index, present) in happened
        belief ^= {index}
    assert tracker.state == "connected"
    assert tracker.present == frozenset(truth) == frozenset(belief)
