"""Firmware speed: the scan loop timed under MicroPython here, and what that means on a Pico.

Run: .venv/bin/python bench/bench_firmware_speed.py [--scans N] [--rounds R]

No RP2040 runs here, so the figure is calibrated. Issue 11 measured the
firmware of commit 656f648 on a cycle-counted RP2040 (the rp2040js emulator at
125 MHz, MicroPython 1.28 built for the Pico): 6.2 ms a scan (164 scans/s).
This bench runs that same firmware and today's under the WebAssembly port of
MicroPython in node (tests/firmware), each scan loop step (scan + heartbeat
check) timed over many scans, and scales today's time by the ratio.

Both run on stand-ins that cost what the Pico's C calls cost, not Python
code: a pin's ``value`` is the built-in ``int`` (C), ``sleep_us`` is ``int``
too (the call without the wait), so are ``ticks_ms`` and ``ticks_us`` (this
port's clock calls out to JavaScript; a Pico's reads a register), and
``mem32`` is a ``dict`` holding the two registers (C subscripts). The old
firmware's 16 settle sleeps of 10 us are taken out of the 6.2 ms before the
ratio, and today's settle time is added back after it. Every sensor reads
"magnet present" in both (an idle board).

The WebAssembly port cannot compile viper, so today's figure is the plain path;
on a Pico ``tcfast`` (viper) runs the steps, faster still. This is an estimate:
a real Pico confirms it in every heartbeat (scans per second and the slowest
scan; ``companion doctor`` shows them).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hardware.boardmap import load_board_map

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE_TESTS = ROOT / "tests" / "firmware"
CALIBRATION_COMMIT = "656f648"
EMULATED_RP2040_SCAN_US = 6200.0
"""Issue 11: 656f648's scan on the rp2040js emulator at 125 MHz (heartbeats said 162-165/s)."""
OLD_SETTLE_US = 16 * 10
"""656f648 slept 10 us after each of its 16 select steps (sleep_us, passed by main.py)."""

DRIVER = r"""
import { readFileSync } from "node:fs";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";
const [dir, scans, rounds, kind] = process.argv.slice(2);
const mp = await loadMicroPython({ heapsize: 4 * 1024 * 1024, stdout: () => {} });
mp.FS.mkdir("/fw");
for (const n of ["boardcfg.py", "tcboard.py"]) {
  mp.FS.writeFile("/fw/" + n, readFileSync(dir + "/" + n, "utf8"));
}
mp.runPython(`
import sys, time
sys.path.insert(0, "/fw")
import boardcfg, tcboard

class Pin:
    IN, OUT, PULL_UP = 0, 1, 1
    def __init__(self, n, mode=-1, pull=-1, value=None):
        self.value = int  # C, like machine.Pin.value: () -> 0 (a magnet), (v) -> v

def write(data):
    pass

# the clock is int() too: this port's ticks call out to JavaScript, the Pico's read a register
if "${kind}" == "new":
    fw = tcboard.open_board(boardcfg, Pin, write, int, int,
                            mem32={0xD0000004: 0, 0xD000001C: 0}, ticks_us=int)
else:
    fw = tcboard.open_board(boardcfg, Pin, write, int, int)
def run(n):
    for _ in range(n):
        fw.step()

run(100)
`);
// timed from JavaScript: this port's ticks_us() moves in whole milliseconds
let best = Infinity;
for (let r = 0; r < Number(rounds); r++) {
  const t0 = performance.now();
  mp.runPython(`run(${scans})`);
  best = Math.min(best, ((performance.now() - t0) * 1000) / Number(scans));
}
process.stdout.write(String(best));
"""


def time_firmware(directory: Path, kind: str, scans: int, rounds: int) -> float:
    """Microseconds per loop step, the best of ``rounds`` runs of ``scans`` steps."""
    driver = FIRMWARE_TESTS / ".bench_firmware_speed.mjs"
    driver.write_text(DRIVER, encoding="utf-8")
    try:
        done = subprocess.run(["node", str(driver), str(directory), str(scans), str(rounds), kind],
                              capture_output=True, text=True, timeout=600, check=False,
                              cwd=FIRMWARE_TESTS)
    finally:
        driver.unlink(missing_ok=True)
    if done.returncode != 0:
        raise SystemExit(f"MicroPython failed on the {kind} firmware:\n{done.stderr[-2000:]}")
    return float(done.stdout)


def old_firmware(into: Path) -> None:
    for name in ("tcboard.py", "boardcfg.py"):
        done = subprocess.run(["git", "show", f"{CALIBRATION_COMMIT}:firmware/{name}"],
                              capture_output=True, cwd=ROOT, check=False)
        if done.returncode != 0:
            raise SystemExit(f"cannot read firmware/{name} at {CALIBRATION_COMMIT} (a clone "
                             f"with history is needed): {done.stderr.decode().strip()}")
        (into / name).write_bytes(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=80)
    args = parser.parse_args()
    if not (FIRMWARE_TESTS / "node_modules" / "@micropython").exists():
        raise SystemExit("run `make tests/firmware/node_modules/.package-lock.json` first")
    board = load_board_map()
    settle_us = board.mux_channels * board.settle_us
    with tempfile.TemporaryDirectory(prefix="tc-fw-656f648-") as tmp:
        old_dir = Path(tmp)
        old_firmware(old_dir)
        old, new = [], []
        for _ in range(3):  # interleaved: a busy machine slows both alike
            old.append(time_firmware(old_dir, "old", max(30, args.scans // 10), args.rounds))
            new.append(time_firmware(ROOT / "firmware", "new", args.scans, args.rounds))
    old_us, new_us = min(old), min(new)
    ratio = (EMULATED_RP2040_SCAN_US - OLD_SETTLE_US) / old_us
    estimate = new_us * ratio + settle_us
    print("under MicroPython (WebAssembly, node), one loop step (scan + heartbeat check):")
    print(f"  firmware at {CALIBRATION_COMMIT}: {old_us:8.1f} us")
    print(f"  firmware now (plain path): {new_us:8.1f} us   ({old_us / new_us:.0f}x faster)")
    print(f"calibration: {CALIBRATION_COMMIT} took {EMULATED_RP2040_SCAN_US / 1000:.1f} ms a "
          f"scan on an emulated RP2040 at 125 MHz; less its {OLD_SETTLE_US} us of settle "
          f"sleeps that is {ratio:.1f} RP2040 us per WebAssembly us")
    print(f"ESTIMATED RP2040 scan, firmware now: {estimate:.0f} us "
          f"({new_us * ratio:.0f} us of code on the plain path + {settle_us} us settle "
          f"[{board.mux_channels} x {board.settle_us} us]) = {1e6 / estimate:.0f} scans/s "
          f"(goal >= 1000, target {board.scan_hz})")
    print("  an estimate: the Pico runs the steps as viper code (faster than the plain path "
          "timed here); a real Pico's heartbeats report its scans/s and slowest scan "
          "(companion doctor shows them)")
    latency = board.debounce_ms * 1000 + 1e6 / min(board.scan_hz, 1e6 / estimate) + estimate
    print(f"magnet to wire, estimated: <= {latency / 1000:.1f} ms (debounce {board.debounce_ms} ms "
          "+ up to one scan period before it is first seen + the confirming scan; goal 10 ms)")
    print(json.dumps({"old_wasm_us": round(old_us, 1), "new_wasm_us": round(new_us, 1),
                      "ratio": round(ratio, 2), "estimated_rp2040_scan_us": round(estimate),
                      "estimated_scans_per_s": round(1e6 / estimate)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
