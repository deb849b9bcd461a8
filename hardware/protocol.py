"""The board's serial line protocol (version 2): frame values, an encoder and a pure decoder.

Every frame is one ASCII line (``docs/protocol.md`` has the full definition
and test vectors)::

    TYPE  HEX(seq16, payload...)  HEX(crc16)  "\\n"

``TYPE`` is an upper-case letter and the rest is lower-case hex, so a frame
start can never hide inside a frame: the decoder resynchronises on the next
type letter after any garbage. Lines are at most :data:`MAX_LINE` bytes.

Sequence numbers are 32-bit counters of which the wire carries the low 16
bits. The high 16 bits are not sent (except in the hello, which states them)
but the CRC-16/CCITT covers them, so a frame replayed from another lap of the
16-bit counter never passes the check: a CRC-16 catches every error confined
to 16 bits. The decoder places each frame's number next to the newest one it
has seen (its *anchor*) and hands out whole 32-bit numbers; the tracker drops
anything not newer than what it holds.

>>> encode(Heartbeat(seq=7, uptime_s=42, scans_per_s=1000, slowest_scan_us=812))
b'K00070000002a03e8032c6bed\\n'
>>> FrameDecoder(anchor=0).feed(b'junk K00070000002a03e8032c6bed\\n')
[Heartbeat(seq=7, uptime_s=42, scans_per_s=1000, slowest_scan_us=812)]

A board still running protocol 1 is recognised by its hello (and its
heartbeats), so the Pi can say so instead of seeing only garbage.
"""

from __future__ import annotations

import binascii
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

PROTOCOL_VERSION: Final = 2
MAX_SENSORS: Final = 255
MAX_CHANGES_PER_FRAME: Final = 8
MAX_SEQ: Final = 0xFFFF_FFFF
"""Sequence numbers are 32-bit; the wire carries the low 16 bits."""
WIRE_SEQ: Final = 0x1_0000
MAX_BODY: Final = 3 + (MAX_SENSORS + 7) // 8
"""The longest body: a snapshot's seq (2), count and bitmap."""
MAX_LINE: Final = 1 + 2 * MAX_BODY + 4 + 1
BOARD_TYPES: Final = frozenset(b"HSCK")
HOST_TYPES: Final = frozenset(b"QR")
_HEX: Final = frozenset(b"0123456789abcdef")
_HELLO_PAYLOAD: Final = 20
V1_QUERY: Final = b"Q0019\n"
"""A protocol-1 ``Q`` (seq 0, CRC-8): makes a protocol-1 board say hello, so it can be named."""


class ProtocolError(ValueError):
    """A frame value that cannot be encoded (out-of-range field)."""


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no reflection.

    The standard library's ``binascii.crc_hqx`` computes exactly this one.

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    return binascii.crc_hqx(data, 0xFFFF)


def crc8(data: bytes) -> int:
    """CRC-8/SMBUS (polynomial 0x07, initial 0), the checksum of protocol 1.

    Only used to recognise a board that still speaks protocol 1.

    >>> hex(crc8(b"123456789"))
    '0xf4'
    """
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


# -- frame values -------------------------------------------------------------


@dataclass(frozen=True)
class Hello:
    """Sent at boot and on the host's ``Q``: who the firmware is and which map it was built for.

    ``boot_id`` is random at each power-up: a hello from another boot means the
    board restarted, so its sequence numbers start again. ``scans_per_s`` and
    ``slowest_scan_us`` are the firmware's own measurement (0 before the first
    heartbeat interval).
    """

    seq: int
    firmware: tuple[int, int, int]
    map_hash: bytes
    sensor_count: int
    scan_hz: int
    debounce_ms: int
    boot_id: int = 0
    scans_per_s: int = 0
    slowest_scan_us: int = 0
    protocol: int = PROTOCOL_VERSION


@dataclass(frozen=True)
class Snapshot:
    """Every sensor's debounced state; ``present`` holds the indices that see a magnet."""

    seq: int
    sensor_count: int
    present: frozenset[int]


@dataclass(frozen=True)
class Changes:
    """Debounced changes in the order they were seen: (sensor index, present) pairs."""

    seq: int
    changes: tuple[tuple[int, bool], ...]


@dataclass(frozen=True)
class Heartbeat:
    """Every 250 ms. ``seq`` is the number of the last frame the board sent (a heartbeat
    takes no number of its own), so a lost last frame shows within a heartbeat.

    ``scans_per_s``: full scans in the last interval, per second; ``slowest_scan_us``:
    the longest single scan in that interval.
    """

    seq: int
    uptime_s: int
    scans_per_s: int
    slowest_scan_us: int = 0


@dataclass(frozen=True)
class Command:
    """Host to board: ``Q`` asks for hello and snapshot, ``R`` for a snapshot only."""

    seq: int
    kind: str


Frame = Hello | Snapshot | Changes | Heartbeat | Command


# -- encoding -----------------------------------------------------------------


def _int(value: int, what: str, high: int = 0xFF) -> int:
    if not 0 <= value <= high:
        raise ProtocolError(f"{what} must be from 0 to {high}, got {value}")
    return value


def _u16(value: int, what: str) -> bytes:
    return _int(value, what, 0xFFFF).to_bytes(2, "big")


def _payload(frame: Frame) -> tuple[bytes, bytes]:
    if isinstance(frame, Hello):
        if len(frame.map_hash) != 4:
            raise ProtocolError(f"map_hash must be 4 bytes, got {len(frame.map_hash)}")
        body = bytes([_int(frame.protocol, "protocol")]) + _u16(frame.seq >> 16, "seq high")
        body += _u16(frame.boot_id, "boot_id")
        body += bytes(_int(v, "firmware version") for v in frame.firmware)
        body += frame.map_hash + bytes([_int(frame.sensor_count, "sensor_count")])
        body += _u16(frame.scan_hz, "scan_hz") + bytes([_int(frame.debounce_ms, "debounce_ms")])
        body += _u16(frame.scans_per_s, "scans_per_s")
        return b"H", body + _u16(frame.slowest_scan_us, "slowest_scan_us")
    if isinstance(frame, Snapshot):
        count = _int(frame.sensor_count, "sensor_count")
        bitmap = bytearray((count + 7) // 8)
        for index in frame.present:
            if not 0 <= index < count:
                raise ProtocolError(f"sensor index {index} is outside 0..{count - 1}")
            bitmap[index >> 3] |= 1 << (index & 7)
        return b"S", bytes([count]) + bytes(bitmap)
    if isinstance(frame, Changes):
        if not 1 <= len(frame.changes) <= MAX_CHANGES_PER_FRAME:
            raise ProtocolError(f"a change frame carries 1 to {MAX_CHANGES_PER_FRAME} changes, "
                                f"got {len(frame.changes)}")
        entries = b"".join(bytes([_int(i, "sensor index"), int(p)]) for i, p in frame.changes)
        return b"C", bytes([len(frame.changes)]) + entries
    if isinstance(frame, Heartbeat):
        return b"K", (_int(frame.uptime_s, "uptime_s", 0xFFFFFFFF).to_bytes(4, "big")
                      + _u16(frame.scans_per_s, "scans_per_s")
                      + _u16(frame.slowest_scan_us, "slowest_scan_us"))
    if frame.kind not in ("Q", "R"):
        raise ProtocolError(f"a command is Q (hello) or R (snapshot), got {frame.kind!r}")
    return frame.kind.encode(), b""


def encode(frame: Frame) -> bytes:
    """One frame as the bytes on the wire, newline included.

    >>> encode(Command(seq=1, kind="R"))
    b'R00013183\\n'
    """
    kind, payload = _payload(frame)
    seq = _int(frame.seq, "seq", MAX_SEQ)
    body = (seq & 0xFFFF).to_bytes(2, "big") + payload
    check = crc16((seq >> 16).to_bytes(2, "big") + kind + body)
    return kind + body.hex().encode() + b"%04x" % check + b"\n"


def changes_frames(first_seq: int, changes: Iterable[tuple[int, bool]]) -> list[Changes]:
    """Split changes into as many frames as needed, numbering them from ``first_seq``."""
    pending = list(changes)
    frames: list[Changes] = []
    for start in range(0, len(pending), MAX_CHANGES_PER_FRAME):
        chunk = tuple(pending[start:start + MAX_CHANGES_PER_FRAME])
        frames.append(Changes(first_seq + len(frames), chunk))
    return frames


def extend_seq(anchor: int, low: int) -> int:
    """The 32-bit number with low 16 bits ``low`` nearest to ``anchor``.

    >>> extend_seq(0x1_fff0, 0x0002), extend_seq(0x2_0005, 0xfffe), extend_seq(3, 0xffff)
    (131074, 131070, 65535)
    """
    seq = (anchor & ~0xFFFF) | low
    if seq - anchor > WIRE_SEQ // 2 and seq >= WIRE_SEQ:
        seq -= WIRE_SEQ
    elif anchor - seq >= WIRE_SEQ // 2 and seq + WIRE_SEQ <= MAX_SEQ:
        seq += WIRE_SEQ
    return seq


# -- decoding -----------------------------------------------------------------


def _parse(kind: int, seq: int, payload: bytes) -> Frame | None:
    """A frame from its checked body, or None when the body's shape is wrong."""
    if kind == ord("H"):
        if len(payload) != _HELLO_PAYLOAD:
            return None
        p = payload
        return Hello(seq, (p[5], p[6], p[7]), bytes(p[8:12]), p[12],
                     int.from_bytes(p[13:15], "big"), p[15],
                     boot_id=int.from_bytes(p[3:5], "big"),
                     scans_per_s=int.from_bytes(p[16:18], "big"),
                     slowest_scan_us=int.from_bytes(p[18:20], "big"), protocol=p[0])
    if kind == ord("S"):
        if not payload or len(payload) != 1 + (payload[0] + 7) // 8:
            return None
        count = payload[0]
        present = frozenset(
            i for i in range(count) if payload[1 + (i >> 3)] >> (i & 7) & 1
        )
        return Snapshot(seq, count, present)
    if kind == ord("C"):
        # the count makes a frame cut short by a stray newline fail for sure, not by CRC luck
        if not payload or not 1 <= payload[0] <= MAX_CHANGES_PER_FRAME \
                or len(payload) != 1 + 2 * payload[0]:
            return None
        entries = payload[1:]
        if any(state > 1 for state in entries[1::2]):
            return None
        return Changes(seq, tuple((entries[i], entries[i + 1] == 1)
                                  for i in range(0, len(entries), 2)))
    if kind == ord("K"):
        if len(payload) != 8:
            return None
        return Heartbeat(seq, int.from_bytes(payload[:4], "big"),
                         int.from_bytes(payload[4:6], "big"),
                         int.from_bytes(payload[6:], "big"))
    if payload:
        return None
    return Command(seq, chr(kind))


def _parse_v1(kind: int, raw: bytes) -> Hello | Heartbeat | None:
    """A protocol-1 hello or heartbeat (CRC-8, one-byte seq), or None."""
    body, check = raw[:-1], raw[-1]
    if crc8(bytes([kind]) + body) != check:
        return None
    if kind == ord("H") and len(body) == 13 and body[1] == 1:
        p = body[1:]
        return Hello(body[0], (p[1], p[2], p[3]), bytes(p[4:8]), p[8],
                     int.from_bytes(p[9:11], "big"), p[11], protocol=1)
    if kind == ord("K") and len(body) == 7:
        return Heartbeat(body[0], int.from_bytes(body[1:5], "big"),
                         int.from_bytes(body[5:7], "big"))
    return None


class FrameDecoder:
    """A pure state machine: bytes in, whole checked frames out.

    It never raises on input and never holds more than :data:`MAX_LINE` bytes.
    A frame is dropped (and counted in :attr:`errors`) when its checksum,
    length or shape is wrong; bytes outside any frame are counted in
    :attr:`discarded`. A type letter always starts a new frame, so one lost
    newline costs one frame, not the stream.

    Board frames other than the hello can only be checked once a hello has
    set the :attr:`anchor` (the newest 32-bit sequence number seen); until
    then they are dropped. A hello from a new ``boot_id`` moves the anchor to
    its own number; otherwise the anchor only moves forward. Protocol-1
    frames are handed out as ``Hello(protocol=1)`` and counted in :attr:`legacy`.

    >>> d = FrameDecoder(anchor=0)
    >>> d.feed(b"K00070000002a03e8032c6bed")
    []
    >>> d.feed(b"\\nK00070000002a03e8032c0000\\n")
    [Heartbeat(seq=7, uptime_s=42, scans_per_s=1000, slowest_scan_us=812)]
    >>> d.errors
    1
    """

    def __init__(self, accept: frozenset[int] = BOARD_TYPES, anchor: int | None = None) -> None:
        self.accept = accept
        self.anchor = anchor
        self.boot_id: int | None = None
        self._kind = 0
        self._line = bytearray()
        self.frames = 0
        self.errors = 0
        self.discarded = 0
        self.legacy = 0

    def reset(self) -> None:
        """Forget a partial frame and the sequence anchor (after the link was reopened)."""
        self._kind = 0
        self._line.clear()
        self.anchor = None
        self.boot_id = None

    def _drop(self) -> None:
        if self._kind:
            self.errors += 1
            self.discarded += 1 + len(self._line)
        self._kind = 0
        self._line.clear()

    def feed(self, data: bytes) -> list[Frame]:
        frames: list[Frame] = []
        for byte in data:
            if byte in self.accept:
                self._drop()
                self._kind = byte
            elif not self._kind:
                if byte not in (0x0A, 0x0D):
                    self.discarded += 1
            elif byte in _HEX:
                self._line.append(byte)
                if len(self._line) > 2 * (MAX_BODY + 2):
                    self._drop()
            elif byte == 0x0A:
                legacy = self.legacy
                frame = self._finish()
                if frame is None and self.legacy != legacy:
                    self._kind = 0  # a protocol-1 heartbeat: counted, not an error
                    self._line.clear()
                elif frame is None:
                    self._drop()
                else:
                    self.frames += 1
                    frames.append(frame)
                    self._kind = 0
                    self._line.clear()
            elif byte != 0x0D:
                self._drop()
                self.discarded += 1
        return frames

    def _finish(self) -> Frame | None:
        line, kind = self._line, self._kind
        if len(line) % 2:
            return None
        raw = bytes.fromhex(line.decode())
        if len(raw) < 4:
            return None
        body, check = raw[:-2], int.from_bytes(raw[-2:], "big")
        low, payload = int.from_bytes(body[:2], "big"), body[2:]
        if kind == ord("H"):
            if len(payload) != _HELLO_PAYLOAD:
                return self._legacy(kind, raw)
            seq = int.from_bytes(payload[1:3], "big") << 16 | low
        elif kind in HOST_TYPES:
            seq = low  # the host numbers its commands modulo 2**16
        elif self.anchor is None:
            return self._legacy(kind, raw)  # nothing to check it against before a hello
        else:
            seq = extend_seq(self.anchor, low)
        if crc16((seq >> 16).to_bytes(2, "big") + bytes([kind]) + body) != check:
            return self._legacy(kind, raw)
        frame = _parse(kind, seq, payload)
        if isinstance(frame, Hello) and (frame.boot_id != self.boot_id or self.anchor is None):
            self.boot_id, self.anchor = frame.boot_id, seq  # a new boot counts from its hello
        if frame is not None and kind in BOARD_TYPES and self.anchor is not None:
            self.anchor = max(self.anchor, seq)
        return frame

    def _legacy(self, kind: int, raw: bytes) -> Frame | None:
        frame = _parse_v1(kind, raw) if kind in (ord("H"), ord("K")) else None
        if frame is not None:
            self.legacy += 1
            if isinstance(frame, Heartbeat):
                return None  # counted: the tracker asks a protocol-1 board for its hello
        return frame
