"""The frame codec: documented test vectors, round trips, replays from other laps of the
16-bit counter, protocol 1 recognised, and a fuzzed decoder."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
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
    crc16,
    encode,
    extend_seq,
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
    decoder = FrameDecoder(protocol.BOARD_TYPES | protocol.HOST_TYPES, anchor=frame.seq)
    assert decoder.feed(wire) == [frame]


def test_crc16_is_ccitt_false_as_in_the_standard_library() -> None:
    assert crc16(b"123456789") == 0x29B1
    assert crc16(b"") == 0xFFFF


def test_a_cut_off_frame_is_dropped_when_the_next_one_starts() -> None:
    decoder = FrameDecoder(anchor=0)
    assert decoder.feed(b"junk\r\nC00030123C00030123006a97\n") == [Changes(3, ((35, False),))]
    assert decoder.errors == 1


def test_before_a_hello_only_a_hello_can_be_checked() -> None:
    decoder = FrameDecoder()
    beat = encode(Heartbeat(3, 1, 1000))
    assert decoder.feed(beat) == []
    hello = Hello(2, (2, 0, 0), b"abcd", 156, 1000, 5, boot_id=9)
    assert decoder.feed(encode(hello) + beat) == [hello, Heartbeat(3, 1, 1000)]


def test_sequence_numbers_extend_to_the_nearest_lap() -> None:
    assert extend_seq(0, 5) == 5
    assert extend_seq(0x1_FFF0, 0x0003) == 0x2_0003  # just past a wrap
    assert extend_seq(0x2_0003, 0xFFF0) == 0x1_FFF0  # a late frame from before it
    assert extend_seq(MAX_SEQ := 0xFFFF_FFFF, 2) == 0xFFFF_0002  # never past 32 bits
    assert extend_seq(MAX_SEQ, 0xFFFF) == MAX_SEQ


@settings(deadline=None)
@given(st.integers(0, 0xFFFF_FFFF), st.integers(1, 0xFFFF).map(lambda laps: laps << 16))
def test_a_frame_from_another_lap_of_the_16_bit_counter_never_passes(seq: int, back: int) -> None:
    # the frame's wire bytes are those of a frame `back` numbers (whole laps) from the anchor:
    # same low 16 bits, other high bits, which the CRC covers for certain
    old = Changes(seq, ((4, True),))
    anchor = (seq + back) & 0xFFFF_FFFF
    decoder = FrameDecoder(anchor=anchor)
    assert decoder.feed(encode(old)) == []
    assert decoder.errors == 1


def test_a_protocol_1_hello_is_recognised_for_a_clear_refusal() -> None:
    decoder = FrameDecoder()
    frames = decoder.feed(b"H0001010000a9a261a89c00fa1ea4\n")
    assert len(frames) == 1 and isinstance(frames[0], Hello)
    assert (frames[0].protocol, frames[0].firmware, frames[0].scan_hz) == (1, (1, 0, 0), 250)
    assert decoder.feed(b"K050000002a00faf7\n") == []  # a protocol-1 heartbeat: counted
    assert (decoder.legacy, decoder.errors) == (2, 0)


def test_out_of_range_values_are_refused_with_plain_messages() -> None:
    with pytest.raises(ProtocolError, match="seq must be from 0 to 4294967295, got -1"):
        encode(Heartbeat(-1, 1, 250))
    with pytest.raises(ProtocolError, match="1 to 8 changes"):
        encode(Changes(0, ()))
    with pytest.raises(ProtocolError, match=r"outside 0\.\.9"):
        encode(Snapshot(0, 10, frozenset({10})))


def test_many_changes_split_into_numbered_frames() -> None:
    frames = changes_frames(0xFFFF, [(i, True) for i in range(20)])
    assert [f.seq for f in frames] == [0xFFFF, 0x1_0000, 0x1_0001]
    assert [len(f.changes) for f in frames] == [8, 8, 4]


# -- properties ---------------------------------------------------------------

seqs = st.integers(0, 0x7FFF)  # within half a lap of anchor 0: every one is placed right
counts = st.integers(1, 255)


@st.composite
def snapshots(draw: st.DrawFn) -> Snapshot:
    count = draw(counts)
    present = draw(st.frozensets(st.integers(0, count - 1)))
    return Snapshot(draw(seqs), count, present)


u16 = st.integers(0, 65535)
frames_strategy = st.one_of(
    st.builds(Hello, seqs, st.tuples(*[st.integers(0, 255)] * 3), st.binary(min_size=4,
              max_size=4), counts, u16, st.integers(0, 255), u16, u16, u16),
    snapshots(),
    st.builds(Changes, seqs, st.lists(st.tuples(st.integers(0, 255), st.booleans()),
                                      min_size=1, max_size=8).map(tuple)),
    st.builds(Heartbeat, seqs, st.integers(0, 2**32 - 1), u16, u16),
)


@settings(deadline=None)
@given(frames_strategy, st.integers(0, 0xFFFF_FFFF))
def test_every_frame_round_trips_within_the_length_bound(frame: Frame, lap: int) -> None:
    if not isinstance(frame, Hello):  # any lap of the counter, the decoder anchored near it
        frame = replace(frame, seq=(lap & ~0xFFFF) | frame.seq)
    wire = encode(frame)
    assert len(wire) <= MAX_LINE
    assert FrameDecoder(anchor=frame.seq).feed(wire) == [frame]


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
    decoder = FrameDecoder(anchor=0)
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
    decoder = FrameDecoder(anchor=0)
    frames = decoder.feed(noise)
    assert len(decoder._line) <= MAX_LINE
    beat = Heartbeat(9, 1, 250)
    assert decoder.feed(encode(beat)) == [beat]  # the next good frame always gets through
    assert all(type(f) in (Hello, Snapshot, Changes, Heartbeat) for f in frames)


def test_a_long_run_of_hex_without_a_newline_stays_bounded() -> None:
    decoder = FrameDecoder(anchor=0)
    assert decoder.feed(b"S" + b"ab" * 10_000 + b"\n") == []
    assert decoder.errors == 1
    assert decoder.feed(encode(Heartbeat(1, 2, 3))) == [Heartbeat(1, 2, 3)]
