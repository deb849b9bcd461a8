"""Drives the firmware on fake registers through a scenario; runs under MicroPython.

The scenario (global SCENARIO, a JSON string) is a list of steps:
{"set": [sensor indices that see a magnet], "scans": n} or {"host": "text"}.
The first step may be {"boot": [indices]}. The result (global RESULT) is one
hex string of the firmware's output per step, plus the boot output first.
Time moves by one scan period (1 / SCAN_HZ, or {"period_us": n}) per scan. Two probes answer with
JSON text (hex-encoded) instead of output: {"registers": n} runs n scans and
counts register reads and writes; {"locked": n} runs n scans with the heap
locked (MicroPython only: any allocation raises MemoryError).
"""

import binascii
import json

import boardcfg
import machine
import tcboard
from machine import Pin


class Circuit:
    """Multiplexers and Hall switches: the GPIO_IN word for the select lines' output word."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.present = set()
        self.select = list(cfg.SELECT_PINS)
        self.mux = list(cfg.MUX_PINS)

    def word(self, out):
        # written to allocate nothing, so a heap-locked scan tests the firmware alone
        cfg = self.cfg
        channel = 0
        for bit in range(len(self.select)):
            if out >> self.select[bit] & 1:
                channel |= 1 << bit
        word = 0
        for m in range(len(self.mux)):
            index = cfg.SLOTS[channel * cfg.MUX_COUNT + m]
            # open-drain Hall switch: a magnet pulls the pulled-up line low
            if not (index >= 0 and index in self.present):
                word |= 1 << self.mux[m]
        return word


def install(circuit):
    machine.mem32.wiring = circuit.word


def run(scenario_json):
    steps = json.loads(scenario_json)
    circuit = Circuit(boardcfg)
    install(circuit)
    out = []
    clock = [0]
    period_us = 1_000_000 // boardcfg.SCAN_HZ
    first = steps[0] if steps and "boot" in steps[0] else None
    if first is not None:
        circuit.present = set(first["boot"])
        steps = steps[1:]
    fw = tcboard.open_board(boardcfg, Pin, out.append, lambda: clock[0] // 1000,
                            mem32=machine.mem32, ticks_us=lambda: clock[0], boot_id=0x7c01)
    results = [b"".join(out)]
    for step in steps:
        del out[:]
        if "host" in step:
            fw.host_bytes(step["host"].encode())
        if "set" in step:
            circuit.present = set(step["set"])
        if "period_us" in step:  # from now on, scans this far apart (a slower loop)
            period_us = step["period_us"]
        if "registers" in step:
            regs = machine.mem32
            reads, writes = regs.reads, regs.writes
            for _ in range(step["registers"]):
                fw.scan()
                clock[0] += period_us
            out.append(json.dumps([regs.reads - reads, regs.writes - writes]).encode())
        if "locked" in step:
            import micropython
            done = [0]
            micropython.heap_lock()
            try:
                for _ in range(step["locked"]):
                    fw.scan()
                    clock[0] += period_us
                    done[0] += 1
            except MemoryError:
                pass  # nothing may be allocated here: report once the heap is unlocked
            micropython.heap_unlock()
            out.append(json.dumps(done[0]).encode())
        for _ in range(step.get("scans", 0)):
            fw.step()
            clock[0] += period_us
        results.append(b"".join(out))
    return json.dumps([binascii.hexlify(r).decode() for r in results])


if "SCENARIO" in globals():  # injected by run_micropython.mjs for a scenario run
    RESULT = run(SCENARIO)  # noqa: F821
