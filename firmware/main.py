"""Pico entry point: wire the firmware logic to machine.Pin and USB serial, loop forever.

Flash with ``mpremote`` (see docs/hardware.md): copy ``boardcfg.py``,
``tcboard.py`` and this file to the Pico's flash; it runs at power-up.
"""

import select
import sys
import time

import boardcfg
import tcboard
from machine import Pin


def run() -> None:
    out = sys.stdout.buffer
    inp = sys.stdin.buffer
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    firmware = tcboard.open_board(boardcfg, Pin, out.write, time.ticks_ms, time.sleep_us)
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
