"""The firmware running live under MicroPython for the host tests; driven line by line.

run_micropython.mjs --live calls step() on a timer and command(line) for each
JSON line on its stdin: {"place": i}, {"lift": i}, {"wobble": i, "scans": n}
(lift for n scans, then put back) or {"host": "hex bytes from the host"}.
"""

import binascii
import json

import boardcfg
import machine
import tcboard
from harness import Circuit, install
from machine import Pin


class Live:
    def __init__(self, present):
        self.circuit = Circuit(boardcfg)
        self.circuit.present = set(present)
        install(self.circuit)
        self.out = []
        self.clock_us = 0
        self.restore = []  # (scan number, sensor index) to put back
        self.fw = tcboard.open_board(boardcfg, Pin, self.out.append, self.ticks_ms,
                                     mem32=machine.mem32, ticks_us=self.ticks_us, boot_id=0x2b3d)

    def ticks_ms(self):
        return self.clock_us // 1000

    def ticks_us(self):
        return self.clock_us & 0x3FFFFFFF

    def step(self, elapsed_us):
        self.clock_us += elapsed_us
        for item in [r for r in self.restore if r[0] <= self.fw.scans]:
            self.circuit.present.add(item[1])
            self.restore.remove(item)
        self.fw.step()

    def command(self, line):
        cmd = json.loads(line)
        if "place" in cmd:
            self.circuit.present.add(cmd["place"])
        if "lift" in cmd:
            self.circuit.present.discard(cmd["lift"])
        if "wobble" in cmd:
            self.circuit.present.discard(cmd["wobble"])
            self.restore.append((self.fw.scans + cmd["scans"], cmd["wobble"]))
        if "host" in cmd:
            self.fw.host_bytes(bytes.fromhex(cmd["host"]))

    def take(self):
        data = b"".join(self.out)
        del self.out[:]
        return binascii.hexlify(data).decode()
