"""The scan's inner steps as viper code (native Thumb on the Pico's RP2040).

Imported by ``tcboard`` when MicroPython can compile viper; it does exactly
what ``tcboard.Firmware.read_steps`` does on its plain path, register for
register. The WebAssembly port and CPython cannot compile this file, so the
tests run the plain path; ``mpy-cross -march=armv6m`` checks that this one
compiles for the Pico (tests/firmware).

``buf`` is the firmware's word array: RAW (0), XORS (16), MASKS (32),
STABLE (48), PENDING (64), then the SIO base and TIMERAWL addresses (80, 81).
"""

import micropython


@micropython.viper
def scan_steps(buf, steps: int, flip: int, settle_us: int) -> int:
    b = ptr32(buf)  # noqa: F821  (viper built-in)
    sio = ptr32(b[80])  # noqa: F821  SIO: GPIO_IN at word 1, GPIO_OUT_XOR at word 7
    timer = ptr32(b[81])  # noqa: F821  TIMERAWL: free-running microseconds
    changed = 0
    i = 0
    while i < steps:
        sio[7] = b[16 + i]  # one write moves the select lines to this step's channel
        if settle_us:
            t0 = timer[0]
            while timer[0] - t0 < settle_us:
                pass
        bits = (sio[1] ^ flip) & b[32 + i]  # one read: every multiplexer's output at once
        b[i] = bits
        if bits != b[48 + i] or b[64 + i] != 0:
            changed |= 1 << i
        i += 1
    return changed
