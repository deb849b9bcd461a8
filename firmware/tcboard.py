"""Catch Mag board firmware logic: scan, debounce in time, speak the line protocol (v2).

Runs unchanged under MicroPython on the Pico (``main.py`` wires it to the
RP2040's registers and USB serial), under MicroPython in node for the tests,
and under CPython inside the simulated board. It touches hardware only
through the ``regs`` object (``machine.mem32`` on the Pico: the SIO block's
``GPIO_IN`` and ``GPIO_OUT_XOR`` registers) and the callables it is given.
The frame format is documented in docs/protocol.md.

The scan: the 16 multiplexer channels are visited in Gray-code order, so each
step flips exactly one select line with one register write; then one read of
``GPIO_IN`` gives every multiplexer's output at once. Every table is built
before the first scan; an idle scan allocates nothing. On the Pico the steps
run in ``tcfast`` (viper, native code); elsewhere the same steps run here.
"""

from array import array

try:  # viper needs a native emitter: the Pico has one, the WebAssembly port and CPython do not
    import tcfast
except (ImportError, SyntaxError):
    tcfast = None

TYPE_CHECKING = False  # type checkers treat this name as true; MicroPython has no typing module

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import ModuleType

VERSION = (2, 0, 0)
PROTOCOL = 2
MAX_CHANGES = 8  # per change frame; more changes go out in further frames
HEARTBEAT_US = 250_000
TICKS_MASK = 0x3FFFFFFF  # MicroPython's ticks_us() counts modulo 2**30
SIO_GPIO_IN = 0xD0000004
SIO_GPIO_OUT_XOR = 0xD000001C
TIMER_RAWL = 0x40054028
# offsets into the one word array the scan works on (the viper code gets a single pointer)
RAW, XORS, MASKS, STABLE, PENDING, ADDR = 0, 16, 32, 48, 64, 80
_HEX = b"0123456789abcdef"
_NO_CHANGES = ()  # what an idle scan returns: nothing allocated


def _crc_table() -> "array[int]":
    table = array("H", [0] * 256)
    for n in range(256):
        crc = n << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
        table[n] = crc
    return table


_CRC = _crc_table()


def crc16(data: "bytes | bytearray", crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (the same as hardware.protocol.crc16)."""
    table = _CRC
    for byte in data:
        crc = ((crc << 8) & 0xFF00) ^ table[(crc >> 8) ^ byte]
    return crc


def frame(kind: int, seq_high: int, body: "bytes | bytearray") -> bytes:
    """One frame on the wire: type letter, hex body, hex CRC-16, newline.

    The CRC also covers the sequence number's high 16 bits, which are not sent.
    """
    out = bytearray(len(body) * 2 + 6)
    out[0] = kind
    i = 1
    for byte in body:
        out[i] = _HEX[byte >> 4]
        out[i + 1] = _HEX[byte & 15]
        i += 2
    crc = crc16(body, crc16(bytes([seq_high >> 8, seq_high & 0xFF, kind])))
    for shift in (12, 8, 4, 0):
        out[i] = _HEX[crc >> shift & 15]
        i += 1
    out[i] = 10
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
            elif byte in _HEX and len(self.digits) < 8:
                self.digits.append(byte)
            elif byte != 13:
                self.kind = 0
        return commands

    def _valid(self) -> bool:
        if len(self.digits) != 8:
            return False
        d = [b - 48 if b < 58 else b - 87 for b in self.digits]  # hex digit values
        seq = bytes([d[0] << 4 | d[1], d[2] << 4 | d[3]])
        crc = d[4] << 12 | d[5] << 8 | d[6] << 4 | d[7]
        return crc16(seq, crc16(bytes([0, 0, self.kind]))) == crc


class PinRegisters:
    """``GPIO_IN`` and ``GPIO_OUT_XOR`` made of pin objects, for hosts without the RP2040's
    registers (the simulated board): an XOR write toggles select pins, a read gathers
    every multiplexer pin into one word."""

    def __init__(self, select: "Sequence[object]", select_gpio: "Sequence[int]",
                 mux: "Sequence[object]", mux_gpio: "Sequence[int]") -> None:
        # (MicroPython's zip() has no strict=)
        self.select = [(select_gpio[b], select[b]) for b in range(len(select))]
        self.mux = [(mux_gpio[m], mux[m]) for m in range(len(mux))]
        self.out = 0

    def __setitem__(self, address: int, value: int) -> None:
        if address != SIO_GPIO_OUT_XOR:
            raise ValueError("only GPIO_OUT_XOR is wired here")
        self.out ^= value
        for gpio, pin in self.select:
            if value >> gpio & 1:
                pin.value(self.out >> gpio & 1)  # type: ignore[attr-defined]

    def __getitem__(self, address: int) -> int:
        if address != SIO_GPIO_IN:
            raise ValueError("only GPIO_IN is wired here")
        word = 0
        for gpio, pin in self.mux:
            if pin.value():  # type: ignore[attr-defined]
                word |= 1 << gpio
        return word


class Firmware:
    """The scan loop's state: debounced sensor bits, debounce timers, self-measurement
    and the frame sequence.

    Per select step ``i`` the words hold one bit per multiplexer, at the bit of
    its GPIO number: ``STABLE`` the debounced "magnet present" bits, ``PENDING``
    the bits seen different from it and being timed. A bit must read the same
    new level for ``debounce_us`` before it changes; a bounce back restarts it.
    """

    def __init__(self, cfg: "ModuleType", regs: object, write: "Callable[[bytes], object]",
                 ticks_us: "Callable[[], int]", sleep_us: "Callable[[int], object] | None" = None,
                 boot_id: int = 0, native: bool = False) -> None:
        self.cfg = cfg
        self.regs = regs
        self.write = write
        self.ticks_us = ticks_us
        self.sleep_us = sleep_us
        self.boot_id = boot_id & 0xFFFF
        self.native = native and tcfast is not None
        self.muxes = cfg.MUX_COUNT
        self.steps = cfg.MUX_CHANNELS
        self.count = cfg.SENSOR_COUNT
        self.settle_us = cfg.SETTLE_US if sleep_us is not None or self.native else 0
        self.debounce_us = cfg.DEBOUNCE_MS * 1000
        self.mux_bits = [1 << gpio for gpio in cfg.MUX_PINS]
        self.flip = sum(self.mux_bits) if cfg.ACTIVE_LOW else 0
        # the scan's words (see the ADDR layout above) and per-sensor tables, in step order
        self.buf = array("I", [0] * (ADDR + 2))
        self.since = array("i", [0] * (self.steps * self.muxes))
        self.slot = array("h", [0] * (self.steps * self.muxes))
        self.found = array("h", [0] * (self.steps * self.muxes))
        self.found_count = 0
        channels = [i ^ (i >> 1) for i in range(self.steps)]  # Gray code: one line per step
        select_word = [0] * self.steps
        for c in range(self.steps):
            for bit, gpio in enumerate(cfg.SELECT_PINS):
                if c >> bit & 1:
                    select_word[c] |= 1 << gpio
        for i, c in enumerate(channels):
            self.buf[XORS + i] = select_word[c] ^ select_word[channels[i - 1]]
            mask = 0
            for m in range(self.muxes):
                index = cfg.SLOTS[c * self.muxes + m]
                self.slot[i * self.muxes + m] = index
                if index >= 0:
                    mask |= self.mux_bits[m]  # an unwired channel is never read
            self.buf[MASKS + i] = mask
        # views of the word array for the plain path (the viper code takes the whole array)
        view = memoryview(self.buf)
        self.raw = view[RAW:RAW + self.steps]
        self.xors = view[XORS:XORS + self.steps]
        self.masks = view[MASKS:MASKS + self.steps]
        self.stable = view[STABLE:STABLE + self.steps]
        self.pending = view[PENDING:PENDING + self.steps]
        self.buf[ADDR] = 0xD0000000
        self.buf[ADDR + 1] = TIMER_RAWL
        # every scan starts from the last step's channel (the select lines start at 0)
        regs[SIO_GPIO_OUT_XOR] = select_word[channels[-1]]  # type: ignore[index]
        self.seq = 0
        self.seq_high = 0
        self.last_seq = 0
        self.last_seq_high = 0
        now = ticks_us()
        self.last_heartbeat = now
        self.scan_ended = now
        self.uptime_s = 0
        self.uptime_us = 0
        self.scans = 0
        self.interval_scans = 0
        self.slowest_us = 0
        self.scans_per_s = 0
        self.reported_slowest_us = 0
        self.commands = CommandReader()

    # -- reading -------------------------------------------------------------

    def read_steps(self) -> int:
        """One pass over the select steps: fill ``RAW``; a bit per step that needs a look."""
        if self.native:
            return tcfast.scan_steps(self.buf, self.steps, self.flip,  # type: ignore[union-attr]
                                     self.settle_us)
        regs = self.regs
        xors, masks, raw = self.xors, self.masks, self.raw
        stable, pending = self.stable, self.pending
        flip = self.flip
        write_at, read_at = SIO_GPIO_OUT_XOR, SIO_GPIO_IN  # locals: a global costs a lookup
        changed = 0
        if self.settle_us:
            settle, sleep_us = self.settle_us, self.sleep_us
            for i in range(self.steps):
                regs[write_at] = xors[i]  # type: ignore[index]
                sleep_us(settle)  # type: ignore[misc]
                bits = (regs[read_at] ^ flip) & masks[i]  # type: ignore[index]
                raw[i] = bits
                if bits != stable[i] or pending[i]:
                    changed |= 1 << i
            return changed
        for i in range(self.steps):
            regs[write_at] = xors[i]  # type: ignore[index]
            bits = (regs[read_at] ^ flip) & masks[i]  # type: ignore[index]
            raw[i] = bits
            if bits != stable[i] or pending[i]:
                changed |= 1 << i
        return changed

    def start(self) -> None:
        """Take the first scan as the truth, then announce: hello and snapshot."""
        self.read_steps()
        for i in range(self.steps):
            self.buf[STABLE + i] = self.buf[RAW + i]
        self.send_hello()
        self.send_snapshot()

    def scan(self) -> "Sequence[tuple[int, bool]]":
        """One full scan; returns and sends the changes that finished debouncing."""
        began = self.ticks_us()
        changed = self.read_steps()
        changes = _NO_CHANGES
        if changed:
            self.found_count = 0
            for i in range(self.steps):
                if changed >> i & 1:
                    self._debounce(i, began)
            if self.found_count:
                changes = self._found_changes()
                self.send_changes(changes)
        ended = self.ticks_us()
        self.scan_ended = ended
        took = (ended - began) & TICKS_MASK
        if took > self.slowest_us:
            self.slowest_us = took
        self.scans += 1
        self.interval_scans += 1
        return changes

    def _found_changes(self) -> "list[tuple[int, bool]]":
        # a method of its own: a comprehension in scan() would make `self` a closure cell,
        # allocated on every call
        found = self.found
        return [(found[j] >> 1, bool(found[j] & 1)) for j in range(self.found_count)]

    def _debounce(self, i: int, now: int) -> None:
        """The bits of step ``i`` that differ or are being timed; finished ones go to ``found``
        (index << 1 | present), without allocating: a bounce may last many scans."""
        buf = self.buf
        bits = buf[RAW + i]
        stable = buf[STABLE + i]
        pending = buf[PENDING + i]
        diff = bits ^ stable
        base = i * self.muxes
        for m in range(self.muxes):
            bit = self.mux_bits[m]
            k = base + m
            if diff & bit:
                if not pending & bit:
                    pending |= bit
                    self.since[k] = now
                if (now - self.since[k]) & TICKS_MASK >= self.debounce_us:
                    pending &= ~bit
                    stable ^= bit
                    self.found[self.found_count] = self.slot[k] << 1 | (1 if bits & bit else 0)
                    self.found_count += 1
            elif pending & bit:
                pending &= ~bit  # it bounced back: start over next time
        buf[STABLE + i] = stable
        buf[PENDING + i] = pending

    def present(self) -> "list[int]":
        """Indices of the sensors whose debounced state is 'magnet present'."""
        out = []
        for i in range(self.steps):
            bits = self.buf[STABLE + i]
            for m in range(self.muxes):
                if bits & self.mux_bits[m]:
                    out.append(self.slot[i * self.muxes + m])
        out.sort()
        return out

    # -- sending -------------------------------------------------------------

    def _send(self, kind: int, payload: "bytes | bytearray") -> None:
        body = bytearray(2 + len(payload))
        body[0] = self.seq >> 8
        body[1] = self.seq & 0xFF
        body[2:] = payload
        self.last_seq, self.last_seq_high = self.seq, self.seq_high
        self.seq = (self.seq + 1) & 0xFFFF
        if not self.seq:
            self.seq_high = (self.seq_high + 1) & 0xFFFF
        self.write(frame(kind, self.last_seq_high, body))

    def send_hello(self) -> None:
        hz, high, boot = self.cfg.SCAN_HZ, self.seq_high, self.boot_id
        payload = bytearray([PROTOCOL, high >> 8, high & 0xFF, boot >> 8, boot & 0xFF,
                             VERSION[0], VERSION[1], VERSION[2]])
        payload += self.cfg.MAP_HASH
        payload += bytes([self.count, hz >> 8, hz & 0xFF, self.cfg.DEBOUNCE_MS & 0xFF])
        payload += self._speed()
        self._send(72, payload)  # 'H'

    def _speed(self) -> bytes:
        rate, slowest = min(self.scans_per_s, 0xFFFF), min(self.reported_slowest_us, 0xFFFF)
        return bytes([rate >> 8, rate & 0xFF, slowest >> 8, slowest & 0xFF])

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

    def heartbeat_due(self, now: "int | None" = None) -> None:
        """Every 250 ms: the last sequence number sent, uptime, and this interval's speed."""
        if now is None:
            now = self.ticks_us()
        elapsed = (now - self.last_heartbeat) & TICKS_MASK
        if elapsed < HEARTBEAT_US:
            return
        self.last_heartbeat = now
        self.scans_per_s = (self.interval_scans * 1_000_000 + elapsed // 2) // elapsed
        self.reported_slowest_us = self.slowest_us
        self.interval_scans = 0
        self.slowest_us = 0
        self.uptime_us += elapsed
        while self.uptime_us >= 1_000_000:
            self.uptime_us -= 1_000_000
            self.uptime_s += 1
        up, seq, high = self.uptime_s, self.last_seq, self.last_seq_high
        body = bytes([seq >> 8, seq & 0xFF, up >> 24 & 0xFF, up >> 16 & 0xFF, up >> 8 & 0xFF,
                      up & 0xFF]) + self._speed()
        self.write(frame(75, high, body))  # 'K': no number of its own

    def host_bytes(self, data: "bytes | bytearray") -> None:
        """Answer host commands: ``Q`` hello and snapshot, ``R`` snapshot."""
        for command in self.commands.feed(data):
            if command == 81:
                self.send_hello()
            self.send_snapshot()

    def step(self) -> None:
        """One pass of the main loop: a scan, then a heartbeat when one is due."""
        self.scan()
        self.heartbeat_due(self.scan_ended)


def open_board(cfg: "ModuleType", pin_class: "Callable[..., object]",
               write: "Callable[[bytes], object]", ticks_ms: "Callable[[], int]",
               sleep_us: "Callable[[int], object] | None" = None, mem32: object = None,
               ticks_us: "Callable[[], int] | None" = None, boot_id: int = 0,
               native: bool = False) -> Firmware:
    """Claim the pins named by the board config and return a started firmware.

    ``mem32``: the register window (``machine.mem32`` on the Pico); without it the
    registers are made of the pin objects. ``ticks_us`` defaults to ``ticks_ms`` x 1000.
    ``native``: run the steps as viper code (only on a real RP2040).
    """
    out, inp, up = pin_class.OUT, pin_class.IN, pin_class.PULL_UP  # type: ignore[attr-defined]
    select = [pin_class(n, out, value=0) for n in cfg.SELECT_PINS]
    mux = [pin_class(n, inp, up) for n in cfg.MUX_PINS]
    regs = mem32 if mem32 is not None else PinRegisters(select, cfg.SELECT_PINS, mux,
                                                        cfg.MUX_PINS)
    clock = ticks_us if ticks_us is not None else lambda: (ticks_ms() * 1000) & TICKS_MASK
    firmware = Firmware(cfg, regs, write, clock, sleep_us, boot_id, native)
    firmware.start()
    return firmware
