"""The board's serial line protocol: frame values, an encoder and a pure decoder.

Every frame is one ASCII line (``docs/protocol.md`` has the full definition
and test vectors)::

    TYPE  HEX(seq, payload...)  HEX(crc8)  "\\n"

``TYPE`` is an upper-case letter and the rest is lower-case hex, so a frame
start can never hide inside a frame: the decoder resynchronises on the next
type letter after any garbage. The CRC-8 (polynomial 0x07) covers the type
byte and the binary body. Lines are at most :data:`MAX_LINE` bytes.

>>> encode(Heartbeat(seq=7, uptime_s=42, scan_hz=250))
b'K070000002a00fa4e\\n'
>>> FrameDecoder().feed(b'junk K070000002a00fa4e\\n')
[Heartbeat(seq=7, uptime_s=42, scan_hz=250)]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

PROTOCOL_VERSION: Final = 1
MAX_SENSORS: Final = 255
MAX_CHANGES_PER_FRAME: Final = 8
MAX_BODY: Final = 2 + (MAX_SENSORS + 7) // 8
"""The longest body: a snapshot's seq, count and bitmap."""
MAX_LINE: Final = 1 + 2 * MAX_BODY + 2 + 1
BOARD_TYPES: Final = frozenset(b"HSCK")
HOST_TYPES: Final = frozenset(b"QR")
_HEX: Final = frozenset(b"0123456789abcdef")


class ProtocolError(ValueError):
    """A frame value that cannot be encoded (out-of-range field)."""


def crc8(data: bytes) -> int:
    """CRC-8 with polynomial 0x07, initial value 0, no reflection (CRC-8/SMBUS).

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
    """Sent at boot and on the host's ``Q``: who the firmware is and which map it was built for."""

    seq: int
    firmware: tuple[int, int, int]
    map_hash: bytes
    sensor_count: int
    scan_hz: int
    debounce_ms: int
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
    """Once a second, so the host can tell a quiet board from a dead link."""

    seq: int
    uptime_s: int
    scan_hz: int


@dataclass(frozen=True)
class Command:
    """Host to board: ``Q`` asks for hello and snapshot, ``R`` for a snapshot only."""

    seq: int
    kind: str


Frame = Hello | Snapshot | Changes | Heartbeat | Command


# -- encoding -----------------------------------------------------------------


def _byte(value: int, what: str, high: int = 0xFF) -> int:
    if not 0 <= value <= high:
        raise ProtocolError(f"{what} must be from 0 to {high}, got {value}")
    return value


def _payload(frame: Frame) -> tuple[bytes, bytes]:
    if isinstance(frame, Hello):
        if len(frame.map_hash) != 4:
            raise ProtocolError(f"map_hash must be 4 bytes, got {len(frame.map_hash)}")
        body = bytes([_byte(frame.protocol, "protocol"), *(_byte(v, "firmware version")
                                                           for v in frame.firmware)])
        body += frame.map_hash + bytes([_byte(frame.sensor_count, "sensor_count")])
        body += _byte(frame.scan_hz, "scan_hz", 0xFFFF).to_bytes(2, "big")
        return b"H", body + bytes([_byte(frame.debounce_ms, "debounce_ms")])
    if isinstance(frame, Snapshot):
        count = _byte(frame.sensor_count, "sensor_count")
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
        entries = b"".join(bytes([_byte(i, "sensor index"), int(p)]) for i, p in frame.changes)
        return b"C", bytes([len(frame.changes)]) + entries
    if isinstance(frame, Heartbeat):
        return b"K", (_byte(frame.uptime_s, "uptime_s", 0xFFFFFFFF).to_bytes(4, "big")
                      + _byte(frame.scan_hz, "scan_hz", 0xFFFF).to_bytes(2, "big"))
    if frame.kind not in ("Q", "R"):
        raise ProtocolError(f"a command is Q (hello) or R (snapshot), got {frame.kind!r}")
    return frame.kind.encode(), b""


def encode(frame: Frame) -> bytes:
    """One frame as the bytes on the wire, newline included.

    >>> encode(Command(seq=1, kind="R"))
    b'R0121\\n'
    """
    kind, payload = _payload(frame)
    body = bytes([_byte(frame.seq, "seq")]) + payload
    return kind + body.hex().encode() + b"%02x" % crc8(kind + body) + b"\n"


def changes_frames(first_seq: int, changes: Iterable[tuple[int, bool]]) -> list[Changes]:
    """Split changes into as many frames as needed, numbering them from ``first_seq``."""
    pending = list(changes)
    frames: list[Changes] = []
    for start in range(0, len(pending), MAX_CHANGES_PER_FRAME):
        chunk = tuple(pending[start:start + MAX_CHANGES_PER_FRAME])
        frames.append(Changes((first_seq + len(frames)) & 0xFF, chunk))
    return frames


# -- decoding -----------------------------------------------------------------


def _parse(kind: int, body: bytes) -> Frame | None:
    """A frame from its checked body, or None when the body's shape is wrong."""
    seq, payload = body[0], body[1:]
    if kind == ord("H"):
        if len(payload) != 12:
            return None
        return Hello(seq, (payload[1], payload[2], payload[3]), bytes(payload[4:8]), payload[8],
                     int.from_bytes(payload[9:11], "big"), payload[11], protocol=payload[0])
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
        if len(payload) != 6:
            return None
        return Heartbeat(seq, int.from_bytes(payload[:4], "big"),
                         int.from_bytes(payload[4:], "big"))
    if payload:
        return None
    return Command(seq, chr(kind))


class FrameDecoder:
    """A pure state machine: bytes in, whole checked frames out.

    It never raises on input and never holds more than :data:`MAX_LINE` bytes.
    A frame is dropped (and counted in :attr:`errors`) when its checksum,
    length or shape is wrong; bytes outside any frame are counted in
    :attr:`discarded`. A type letter always starts a new frame, so one lost
    newline costs one frame, not the stream.

    >>> d = FrameDecoder()
    >>> d.feed(b"K070000002a00fa4e")
    []
    >>> d.feed(b"\\nK070000002a00fa00\\n")
    [Heartbeat(seq=7, uptime_s=42, scan_hz=250)]
    >>> d.errors
    1
    """

    def __init__(self, accept: frozenset[int] = BOARD_TYPES) -> None:
        self.accept = accept
        self._kind = 0
        self._line = bytearray()
        self.frames = 0
        self.errors = 0
        self.discarded = 0

    def reset(self) -> None:
        """Forget a partial frame (after the link was reopened)."""
        self._kind = 0
        self._line.clear()

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
                if len(self._line) > 2 * (MAX_BODY + 1):
                    self._drop()
            elif byte == 0x0A:
                frame = self._finish()
                if frame is None:
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
        line = self._line
        if len(line) < 4 or len(line) % 2:
            return None
        raw = bytes.fromhex(line.decode())
        body, crc = raw[:-1], raw[-1]
        if crc8(bytes([self._kind]) + body) != crc:
            return None
        return _parse(self._kind, body)
