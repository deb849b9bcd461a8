"""Pico entry point: wire the firmware logic to the RP2040's registers and USB serial, loop.

Flash with ``mpremote`` (see docs/hardware.md): copy ``boardcfg.py``,
``tcboard.py``, ``tcfast.py`` and this file to the Pico's flash; it runs at
power-up. The scan steps run as viper code (``tcfast``) reading the SIO
block's GPIO_IN and writing GPIO_OUT_XOR directly.
"""

import os
import select
import sys
import time

import boardcfg
import tcboard
from machine import Pin, mem32


def boot_id() -> int:
    """Random at each power-up, so the Pi can tell a restarted board from a replayed hello."""
    try:
        return int.from_bytes(os.urandom(2), "big")
    except (AttributeError, OSError):
        return time.ticks_us() & 0xFFFF


def run() -> None:
    out = sys.stdout.buffer
    inp = sys.stdin.buffer
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    # the register offsets are the RP2040's (an RP2350 has GPIO_OUT_XOR elsewhere): on any
    # other chip the firmware reads and writes through the Pin objects instead
    rp2040 = "RP2040" in sys.implementation._machine
    firmware = tcboard.open_board(boardcfg, Pin, out.write, time.ticks_ms, time.sleep_us,
                                  mem32=mem32 if rp2040 else None, ticks_us=time.ticks_us,
                                  boot_id=boot_id(), native=rp2040)
    period_us = 1_000_000 // boardcfg.SCAN_HZ
    deadline = time.ticks_add(time.ticks_us(), period_us)
    while True:
        firmware.step()
        while poller.poll(0):
            firmware.host_bytes(inp.read(1))
        wait = time.ticks_diff(deadline, time.ticks_us())
        if wait > 0:
            time.sleep_us(wait)
            deadline = time.ticks_add(deadline, period_us)
        else:  # overran the period: start a fresh one rather than racing to catch up
            deadline = time.ticks_add(time.ticks_us(), period_us)


run()
