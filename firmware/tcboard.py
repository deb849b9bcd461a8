"""Catch Mag board firmware logic: scan, debounce, speak the line protocol.

Runs unchanged under MicroPython on the Pico (``main.py`` wires it to
``machine.Pin`` and USB serial), under MicroPython in node for the tests, and
under CPython inside the simulated board. It touches hardware only through the
pin objects and the ``write``, ``ticks_ms`` and ``sleep_us`` callables it is
given. The frame format is documented in docs/protocol.md.
"""

TYPE_CHECKING = False  # type checkers treat this name as true; MicroPython has no typing module

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import ModuleType

VERSION = (1, 0, 0)
PROTOCOL = 1
MAX_CHANGES = 8  # per change frame; more changes go out in further frames
HEARTBEAT_MS = 1000
_HEX = b"0123456789abcdef"


def crc8(data: "bytes | bytearray", crc: int = 0) -> int:
    """CRC-8, polynomial 0x07, initial value 0 (the same as hardware.protocol.crc8)."""
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def frame(kind: int, body: "bytes | bytearray") -> bytes:
    """One frame on the wire: type letter, hex body, hex CRC-8, newline."""
    out = bytearray(len(body) * 2 + 4)
    out[0] = kind
    i = 1
    for byte in body:
        out[i] = _HEX[byte >> 4]
        out[i + 1] = _HEX[byte & 15]
        i += 2
    crc = crc8(body, crc8(bytes([kind])))
    out[i] = _HEX[crc >> 4]
    out[i + 1] = _HEX[crc & 15]
    out[i + 2] = 10
    return bytes(out)


class CommandReader:
    """Host commands (``Q`` hello, ``R`` snapshot) from a byte stream; bounded, resyncing."""

    def __init__(self) -> None:
        self.kind = 0
        self.digits = bytearray()

    def feed(self, data: "bytes | bytearray") -> "list[int]":
        commands = []
        for byte in data:
            if byte == 81 or byte == 82:  # 'Q' or 'R' always starts a command
                self.kind = byte
                self.digits = bytearray()
            elif not self.kind:
                continue
            elif byte == 10:
                if self._valid():
                    commands.append(self.kind)
                self.kind = 0
            elif byte in _HEX and len(self.digits) < 4:
                self.digits.append(byte)
            elif byte != 13:
                self.kind = 0
        return commands

    def _valid(self) -> bool:
        if len(self.digits) != 4:
            return False
        d = [b - 48 if b < 58 else b - 87 for b in self.digits]  # hex digit values
        seq, crc = d[0] << 4 | d[1], d[2] << 4 | d[3]
        return crc8(bytes([seq]), crc8(bytes([self.kind]))) == crc


class Firmware:
    """The scan loop's state: debounced sensor bitmaps, counters and the frame sequence.

    Sensors are read one multiplexer channel at a time: set the four select
    lines, then read every multiplexer's output. Each (channel, mux) pair has
    a debounce counter; a change is reported once it has held for
    ``debounce_scans`` consecutive scans.
    """

    def __init__(self, cfg: "ModuleType", select_pins: "Sequence[object]",
                 mux_pins: "Sequence[object]", write: "Callable[[bytes], object]",
                 ticks_ms: "Callable[[], int]", sleep_us: "Callable[[int], object] | None" = None,
                 debounce_scans: "int | None" = None) -> None:
        self.cfg = cfg
        self.select = list(select_pins)
        self.mux = list(mux_pins)
        self.write = write
        self.ticks_ms = ticks_ms
        self.sleep_us = sleep_us
        self.muxes = cfg.MUX_COUNT
        self.channels = cfg.MUX_CHANNELS
        self.slots = cfg.SLOTS
        self.count = cfg.SENSOR_COUNT
        if debounce_scans is None:
            debounce_scans = max(1, -(-cfg.DEBOUNCE_MS * cfg.SCAN_HZ // 1000))
        self.debounce_scans = debounce_scans
        self.stable = [0] * self.channels   # bit m: the sensor on mux m sees a magnet
        self.pending = [0] * self.channels  # bit m: a change is being debounced
        self.counts = bytearray(self.channels * self.muxes)
        self.seq = 0
        self.started_ms = ticks_ms()
        self.last_heartbeat_ms = self.started_ms
        self.scans = 0
        self.scans_at_heartbeat = 0
        self.commands = CommandReader()

    # -- reading -------------------------------------------------------------

    def read_channel(self, channel: int) -> int:
        for bit, pin in enumerate(self.select):
            pin.value((channel >> bit) & 1)  # type: ignore[attr-defined]
        if self.sleep_us is not None and self.cfg.SETTLE_US:
            self.sleep_us(self.cfg.SETTLE_US)
        raw = 0
        low = self.cfg.ACTIVE_LOW
        for m, pin in enumerate(self.mux):
            level = pin.value()  # type: ignore[attr-defined]
            if (level == 0) if low else (level != 0):
                raw |= 1 << m
        return raw

    def start(self) -> None:
        """Take the first scan as the truth, then announce: hello and snapshot."""
        for c in range(self.channels):
            self.stable[c] = self.read_channel(c)
        self.send_hello()
        self.send_snapshot()

    def scan(self) -> "list[tuple[int, bool]]":
        """One full scan; returns and sends the changes that finished debouncing."""
        changes = []
        need = self.debounce_scans
        for c in range(self.channels):
            raw = self.read_channel(c)
            diff = raw ^ self.stable[c]
            if not diff and not self.pending[c]:
                continue
            base = c * self.muxes
            pending = 0
            for m in range(self.muxes):
                bit = 1 << m
                k = base + m
                if diff & bit:
                    n = self.counts[k] + 1
                    if n >= need:
                        self.counts[k] = 0
                        self.stable[c] ^= bit
                        index = self.slots[k]
                        if index >= 0:
                            changes.append((index, bool(raw & bit)))
                    else:
                        self.counts[k] = n
                        pending |= bit
                elif self.counts[k]:
                    self.counts[k] = 0  # it bounced back: start over
            self.pending[c] = pending
        self.scans += 1
        if changes:
            self.send_changes(changes)
        return changes

    def present(self) -> "list[int]":
        """Indices of the sensors whose debounced state is 'magnet present'."""
        out = []
        for c in range(self.channels):
            bits = self.stable[c]
            base = c * self.muxes
            for m in range(self.muxes):
                if bits >> m & 1 and self.slots[base + m] >= 0:
                    out.append(self.slots[base + m])
        out.sort()
        return out

    # -- sending -------------------------------------------------------------

    def _send(self, kind: int, payload: "bytes | bytearray") -> None:
        body = bytearray(1 + len(payload))
        body[0] = self.seq
        body[1:] = payload
        self.seq = (self.seq + 1) & 0xFF
        self.write(frame(kind, body))

    def send_hello(self) -> None:
        payload = bytearray([PROTOCOL, VERSION[0], VERSION[1], VERSION[2]])
        payload += self.cfg.MAP_HASH
        hz = self.cfg.SCAN_HZ
        payload += bytes([self.count, hz >> 8, hz & 0xFF, self.cfg.DEBOUNCE_MS & 0xFF])
        self._send(72, payload)  # 'H'

    def send_snapshot(self) -> None:
        bitmap = bytearray(1 + (self.count + 7) // 8)
        bitmap[0] = self.count
        for index in self.present():
            bitmap[1 + (index >> 3)] |= 1 << (index & 7)
        self._send(83, bitmap)  # 'S'

    def send_changes(self, changes: "list[tuple[int, bool]]") -> None:
        for start in range(0, len(changes), MAX_CHANGES):
            chunk = changes[start:start + MAX_CHANGES]
            payload = bytearray([len(chunk)])
            for index, present in chunk:
                payload.append(index)
                payload.append(1 if present else 0)
            self._send(67, payload)  # 'C'

    def heartbeat_due(self) -> None:
        now = self.ticks_ms()
        elapsed = now - self.last_heartbeat_ms
        if elapsed < 0:  # ticks_ms wrapped (MicroPython ticks are modular)
            elapsed += 1 << 30
        if elapsed >= HEARTBEAT_MS:
            rate = (self.scans - self.scans_at_heartbeat) * 1000 // max(1, elapsed)
            self.last_heartbeat_ms = now
            self.scans_at_heartbeat = self.scans
            uptime = now - self.started_ms
            if uptime < 0:
                uptime += 1 << 30
            uptime //= 1000
            self._send(75, bytes([uptime >> 24 & 0xFF, uptime >> 16 & 0xFF,  # 'K'
                                  uptime >> 8 & 0xFF, uptime & 0xFF,
                                  rate >> 8 & 0xFF, rate & 0xFF]))

    def host_bytes(self, data: "bytes | bytearray") -> None:
        """Answer host commands: ``Q`` hello and snapshot, ``R`` snapshot."""
        for command in self.commands.feed(data):
            if command == 81:
                self.send_hello()
            self.send_snapshot()

    def step(self) -> None:
        """One pass of the main loop: a scan, then a heartbeat when one is due."""
        self.scan()
        self.heartbeat_due()


def open_board(cfg: "ModuleType", pin_class: "Callable[..., object]",
               write: "Callable[[bytes], object]", ticks_ms: "Callable[[], int]",
               sleep_us: "Callable[[int], object] | None" = None) -> Firmware:
    """Claim the pins named by the board config and return a started firmware."""
    out, inp, up = pin_class.OUT, pin_class.IN, pin_class.PULL_UP  # type: ignore[attr-defined]
    select = [pin_class(n, out, value=0) for n in cfg.SELECT_PINS]
    mux = [pin_class(n, inp, up) for n in cfg.MUX_PINS]
    firmware = Firmware(cfg, select, mux, write, ticks_ms, sleep_us)
    firmware.start()
    return firmware
