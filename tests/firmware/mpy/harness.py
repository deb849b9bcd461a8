"""Drives the firmware on fake pins through a scenario; runs under MicroPython.

The scenario (global SCENARIO, a JSON string) is a list of steps:
{"set": [sensor indices that see a magnet], "scans": n} or {"host": "text"}.
The result (global RESULT) is one hex string of the firmware's output per step,
plus the boot output first.
"""

import binascii
import json

import boardcfg
import tcboard
from machine import Pin


class Circuit:
    """Multiplexers and Hall switches: what level each mux output pin shows."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.present = set()
        self.mux_of = {pin: m for m, pin in enumerate(cfg.MUX_PINS)}

    def level(self, pin_id):
        channel = 0
        for bit, select_id in enumerate(self.cfg.SELECT_PINS):
            if Pin.claimed[select_id].level:
                channel |= 1 << bit
        index = self.cfg.SLOTS[channel * self.cfg.MUX_COUNT + self.mux_of[pin_id]]
        seen = index >= 0 and index in self.present
        # open-drain Hall switch: a magnet pulls the pulled-up line low
        return 0 if seen else 1


def run(scenario_json):
    steps = json.loads(scenario_json)
    circuit = Circuit(boardcfg)
    Pin.wiring = circuit.level
    out = []
    clock = [0]
    period_ms = 1000 // boardcfg.SCAN_HZ
    first = steps[0] if steps and "boot" in steps[0] else None
    if first is not None:
        circuit.present = set(first["boot"])
        steps = steps[1:]
    fw = tcboard.open_board(boardcfg, Pin, out.append, lambda: clock[0])
    results = [b"".join(out)]
    for step in steps:
        del out[:]
        if "host" in step:
            fw.host_bytes(step["host"].encode())
        if "set" in step:
            circuit.present = set(step["set"])
        for _ in range(step.get("scans", 0)):
            fw.step()
            clock[0] += period_ms
        results.append(b"".join(out))
    return json.dumps([binascii.hexlify(r).decode() for r in results])


if "SCENARIO" in globals():  # injected by run_micropython.mjs for a scenario run
    RESULT = run(SCENARIO)  # noqa: F821
