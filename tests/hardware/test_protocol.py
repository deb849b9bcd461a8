"""The frame codec: documented test vectors, round trips, and a fuzzed decoder."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware import protocol
from hardware.protocol import (
    MAX_LINE,
    Changes,
    Frame,
    FrameDecoder,
    Heartbeat,
    Hello,
    ProtocolError,
    Snapshot,
    changes_frames,
    crc8,
    encode,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
ROW = re.compile(r"^\| `(?P<frame>[A-Z][a-z]+\(.*\))` \| `(?P<wire>[A-Z][0-9a-f]+)` \|$")


def documented_vectors() -> list[tuple[Frame, bytes]]:
    namespace = {name: getattr(protocol, name) for name in dir(protocol)}
    rows = [ROW.match(line) for line in DOC.read_text(encoding="utf-8").splitlines()]
    return [(eval(m["frame"], namespace), m["wire"].encode() + b"\n") for m in rows if m]


def test_the_documentation_has_a_vector_for_every_frame_type() -> None:
    kinds = {type(frame).__name__ for frame, _ in documented_vectors()}
    assert kinds == {"Hello", "Snapshot", "Changes", "Heartbeat", "Command"}


@pytest.mark.parametrize(("frame", "wire"), documented_vectors())
def test_documented_vectors_encode_and_decode(frame: Frame, wire: bytes) -> None:
    assert encode(frame) == wire
    assert FrameDecoder(protocol.BOARD_TYPES | protocol.HOST_TYPES).feed(wire) == [frame]


def test_crc8_is_crc8_smbus() -> None:
    assert crc8(b"123456789") == 0xF4
    assert crc8(b"") == 0


def test_a_cut_off_frame_is_dropped_when_the_next_one_starts() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"junk\r\nC0301230C03012300ae\n") == [Changes(3, ((35, False),))]
    assert decoder.errors == 1


def test_out_of_range_values_are_refused_with_plain_messages() -> None:
    with pytest.raises(ProtocolError, match="seq must be from 0 to 255, got 256"):
        encode(Heartbeat(256, 1, 250))
    with pytest.raises(ProtocolError, match="1 to 8 changes"):
        encode(Changes(0, ()))
    with pytest.raises(ProtocolError, match=r"outside 0\.\.9"):
        encode(Snapshot(0, 10, frozenset({10})))


def test_many_changes_split_into_numbered_frames() -> None:
    frames = changes_frames(254, [(i, True) for i in range(20)])
    assert [f.seq for f in frames] == [254, 255, 0]
    assert [len(f.changes) for f in frames] == [8, 8, 4]


# -- properties ---------------------------------------------------------------

seqs = st.integers(0, 255)
counts = st.integers(1, 255)


@st.composite
def snapshots(draw: st.DrawFn) -> Snapshot:
    count = draw(counts)
    present = draw(st.frozensets(st.integers(0, count - 1)))
    return Snapshot(draw(seqs), count, present)


frames_strategy = st.one_of(
    st.builds(Hello, seqs, st.tuples(*[st.integers(0, 255)] * 3), st.binary(min_size=4,
              max_size=4), counts, st.integers(0, 65535), st.integers(0, 255)),
    snapshots(),
    st.builds(Changes, seqs, st.lists(st.tuples(st.integers(0, 255), st.booleans()),
                                      min_size=1, max_size=8).map(tuple)),
    st.builds(Heartbeat, seqs, st.integers(0, 2**32 - 1), st.integers(0, 65535)),
)


@settings(deadline=None)
@given(frames_strategy)
def test_every_frame_round_trips_within_the_length_bound(frame: Frame) -> None:
    wire = encode(frame)
    assert len(wire) <= MAX_LINE
    assert FrameDecoder().feed(wire) == [frame]


@settings(max_examples=300, deadline=None)
@given(st.lists(frames_strategy, min_size=1, max_size=12),
       st.lists(st.tuples(st.sampled_from(["garbage", "truncate", "duplicate", "corrupt"]),
                          st.integers(0, 10_000), st.binary(max_size=40)), max_size=8))
def test_damaged_streams_never_crash_or_invent_frames(
    frames: list[Frame], damage: list[tuple[str, int, bytes]],
) -> None:
    wires = [encode(f) for f in frames]
    chunks: list[bytes] = list(wires)
    for action, where, junk in damage:
        i = where % len(chunks)
        if action == "garbage":
            chunks.insert(i, junk)
        elif action == "truncate" and len(chunks[i]) > 1:
            chunks[i] = chunks[i][: 1 + where % (len(chunks[i]) - 1)]
        elif action == "duplicate":
            chunks.insert(i, chunks[i])
        elif action == "corrupt" and chunks[i]:
            at = where % len(chunks[i])
            old = chunks[i][at]
            new = (junk[0] if junk else old ^ 1) or 1
            if new == old:
                new = old ^ 0x01
            chunks[i] = chunks[i][:at] + bytes([new]) + chunks[i][at + 1:]
    stream = b"".join(chunks)
    decoder = FrameDecoder()
    decoded: list[Frame] = []
    step = 1 + sum(len(j) for _, _, j in damage) % 7  # feed in odd-sized pieces
    for start in range(0, len(stream), step):
        decoded += decoder.feed(stream[start:start + step])
        assert len(decoder._line) <= MAX_LINE
    sent = set(frames)
    assert all(f in sent for f in decoded), "the decoder produced a frame nobody sent"
    # every frame whose bytes reached the wire whole and untouched is decoded, however
    # damaged its neighbours are
    by_wire = dict(zip(wires, frames, strict=True))
    intact = Counter(by_wire[c] for c in chunks if c in by_wire)
    assert not intact - Counter(decoded)


@settings(deadline=None)
@given(st.binary(max_size=4000))
def test_pure_noise_is_bounded_and_harmless(noise: bytes) -> None:
    decoder = FrameDecoder()
    frames = decoder.feed(noise)
    assert len(decoder._line) <= MAX_LINE
    beat = Heartbeat(9, 1, 250)
    assert decoder.feed(encode(beat)) == [beat]  # the next good frame always gets through
    assert all(type(f) in (Hello, Snapshot, Changes, Heartbeat) for f in frames)


def test_a_long_run_of_hex_without_a_newline_stays_bounded() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"S" + b"ab" * 10_000 + b"\n") == []
    assert decoder.errors == 1
    assert decoder.feed(encode(Heartbeat(1, 2, 3))) == [Heartbeat(1, 2, 3)]
