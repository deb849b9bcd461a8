"""Test rigs: a sensor source plus hands that move magnets on the board behind it.

Each rig puts a real back-end behind the same ``SensorSource`` interface:

* ``SimulatedRig``: the firmware logic on CPython (``SimulatedBoard``) on a pty,
  read by ``SerialBoard``;
* ``MicroPythonRig``: the firmware under real MicroPython in node, its bytes
  bridged onto a pty, read by ``SerialBoard``;
* ``GpioRig``: ``GpioBoard`` on gpiozero's ``MockFactory``, with mock pins that
  behave like 74HC4067 multiplexers and Hall switches.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Protocol

from gpiozero.pins.mock import MockFactory, MockPin  # type: ignore[import-untyped]

from hardware.boardmap import BoardMap, load_board_map
from hardware.gpio_board import GpioBoard
from hardware.serial_board import SerialBoard
from hardware.simulated import SimulatedBoard
from hardware.sources import SensorChange, SensorSource

FIRMWARE_TESTS = Path(__file__).resolve().parent.parent / "firmware"
FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "firmware"


class Rig(Protocol):
    source: SensorSource
    board: BoardMap

    def place(self, sensor_id: str) -> None: ...
    def lift(self, sensor_id: str) -> None: ...
    def wobble(self, sensor_id: str) -> None: ...
    def close(self) -> None: ...


def wait_changes(source: SensorSource, count: int, timeout: float = 3.0) -> list[SensorChange]:
    """The next ``count`` changes, or fewer if ``timeout`` passes first."""
    got: list[SensorChange] = []
    deadline = time.monotonic() + timeout
    while len(got) < count:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        for change in source.changes(timeout=left):
            got.append(change)
            if len(got) == count:
                break
        else:
            break
    return got


def wait_for(predicate: Any, timeout: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return bool(predicate())


# -- the simulated board on a pty ----------------------------------------------------


class SimulatedRig:
    def __init__(self, board: BoardMap, scan_hz: int = 500, debounce_ms: int = 16) -> None:
        self.board = board
        self.sim = SimulatedBoard(board, scan_hz=scan_hz, debounce_ms=debounce_ms)
        self.sim.start()
        self.source: SensorSource = SerialBoard(self.sim.port, board, retry_interval=0.05)
        self.source.open()

    def place(self, sensor_id: str) -> None:
        self.sim.place(sensor_id)

    def lift(self, sensor_id: str) -> None:
        self.sim.lift(sensor_id)

    def wobble(self, sensor_id: str) -> None:
        self.sim.wobble(sensor_id)

    def close(self) -> None:
        self.source.close()
        self.sim.stop()


# -- the firmware under MicroPython, bridged onto a pty -------------------------------


def node_ready() -> bool:
    """node is installed and the MicroPython package is there (``npm ci`` run if needed)."""
    if shutil.which("node") is None:
        return False
    package = FIRMWARE_TESTS / "node_modules" / "@micropython" / \
        "micropython-webassembly-pyscript"
    if not package.exists() and shutil.which("npm") is not None:
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=FIRMWARE_TESTS,
                       check=False, capture_output=True, timeout=300)
    return package.exists()


class MicroPythonRig:
    def __init__(self, board: BoardMap, scan_hz: int = 250) -> None:
        self.board = board
        self.scan_hz = scan_hz
        present = sorted(board.sensor(s).index for s in board.initial_layout())
        self.node = subprocess.Popen(
            ["node", str(FIRMWARE_TESTS / "run_micropython.mjs"), str(FIRMWARE_DIR), "--live",
             str(scan_hz), json.dumps(present)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self._master, slave = os.openpty()
        import tty
        tty.setraw(slave)
        self._slave = slave
        self._dir = tempfile.TemporaryDirectory(prefix="tc-mpy-")
        self.port = str(Path(self._dir.name) / "usb-MicroPython_Pico-if00")
        os.symlink(os.ttyname(slave), self.port)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._to_host, daemon=True),
                         threading.Thread(target=self._to_board, daemon=True)]
        for thread in self._threads:
            thread.start()
        self.source: SensorSource = SerialBoard(self.port, board, retry_interval=0.05)
        self.source.open()

    def _to_host(self) -> None:
        assert self.node.stdout is not None
        fd = self.node.stdout.fileno()
        while not self._stop.is_set():
            data = os.read(fd, 4096)
            if not data:
                return
            os.write(self._master, data)

    def _to_board(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self._master], [], [], 0.05)
            if ready:
                try:
                    data = os.read(self._master, 256)
                except OSError:
                    return
                self._command({"host": data.hex()})

    def _command(self, command: dict[str, Any]) -> None:
        assert self.node.stdin is not None
        with self._lock:
            self.node.stdin.write((json.dumps(command) + "\n").encode())
            self.node.stdin.flush()

    def place(self, sensor_id: str) -> None:
        self._command({"place": self.board.sensor(sensor_id).index})

    def lift(self, sensor_id: str) -> None:
        self._command({"lift": self.board.sensor(sensor_id).index})

    def wobble(self, sensor_id: str) -> None:
        # the firmware debounces in time on a clock that moves one period per scan
        debounce_scans = 1 + -(-self.board.debounce_ms * self.scan_hz // 1000)
        scans = max(1, debounce_scans // 2)
        self._command({"wobble": self.board.sensor(sensor_id).index, "scans": scans})
        time.sleep((scans + 2) / self.scan_hz)

    def close(self) -> None:
        self.source.close()
        self._stop.set()
        if self.node.stdin is not None:
            self.node.stdin.close()
        self.node.terminate()
        self.node.wait(timeout=5)
        if self.node.stdout is not None:
            self.node.stdout.close()
        if self.node.stderr is not None:
            self.node.stderr.close()
        for thread in self._threads:
            thread.join(timeout=2)
        os.close(self._master)
        os.close(self._slave)
        self._dir.cleanup()


# -- the Pi's own GPIO on gpiozero's MockFactory ---------------------------------------


class MockCircuit:
    """Multiplexers and open-drain Hall switches behind mock pins.

    Select pins report their level here; each multiplexer output pin shows
    the level of the sensor its channel selects. ``scans`` tells how many
    scans the reader finished, so a wobble ends after a number of scans,
    checked inside the reader's own thread.
    """

    def __init__(self, board: BoardMap) -> None:
        self.board = board
        self.present: set[str] = set(board.initial_layout())
        self.select = [0] * len(board.gpio.select)
        self.scans: Any = lambda: 0
        self._restores: list[tuple[int, str, threading.Event]] = []
        self._wires = {(s.mux, s.channel): s.id for s in board.sensors}
        self.lock = threading.Lock()

    def set_select(self, bit: int, level: int) -> None:
        self.select[bit] = level

    def level(self, mux: int) -> bool:
        if self._restores:
            with self.lock:
                for restore in [r for r in self._restores if r[0] <= self.scans()]:
                    self.present.add(restore[1])
                    self._restores.remove(restore)
                    restore[2].set()
        channel = sum(v << b for b, v in enumerate(self.select))
        sensor = self._wires.get((mux, channel))
        return not (sensor is not None and sensor in self.present)  # magnet pulls it low

    def wobble(self, sensor_id: str, scans: int) -> None:
        back = threading.Event()
        with self.lock:
            self.present.discard(sensor_id)
            self._restores.append((self.scans() + scans, sensor_id, back))
        back.wait(timeout=5)


class SelectPin(MockPin):  # type: ignore[misc]
    def __init__(self, factory: MockFactory, info: Any, circuit: MockCircuit, bit: int) -> None:
        super().__init__(factory, info)
        self.circuit, self.bit = circuit, bit

    def _change_state(self, value: bool) -> bool:
        self.circuit.set_select(self.bit, int(value))
        changed: bool = super()._change_state(value)
        return changed


class MuxOutputPin(MockPin):  # type: ignore[misc]
    def __init__(self, factory: MockFactory, info: Any, circuit: MockCircuit, mux: int) -> None:
        super().__init__(factory, info)
        self.circuit, self.mux = circuit, mux

    def _get_state(self) -> bool:
        return self.circuit.level(self.mux)


def mock_gpio(board: BoardMap) -> tuple[MockFactory, MockCircuit]:
    """A MockFactory whose pins are wired like the board map's GPIO multiplexers."""
    factory = MockFactory()
    circuit = MockCircuit(board)
    for bit, pin in enumerate(board.gpio.select):
        factory.pin(f"GPIO{pin}", pin_class=SelectPin, circuit=circuit, bit=bit)
    for mux, pin in enumerate(board.gpio.mux_out):
        factory.pin(f"GPIO{pin}", pin_class=MuxOutputPin, circuit=circuit, mux=mux)
    return factory, circuit


class GpioRig:
    def __init__(self, board: BoardMap, scan_hz: int = 200, debounce_ms: int = 20) -> None:
        self.board = board
        self.factory, self.circuit = mock_gpio(board)
        made: list[GpioBoard] = []
        # the debounce clock is the scan count: a stalled thread stalls time with it, so a
        # wobble counted in scans stays shorter than the debounce on a busy machine
        self.gpio = GpioBoard(board, pin_factory=self.factory, scan_hz=scan_hz,
                              debounce_ms=debounce_ms,
                              clock=lambda: made[0].scans / scan_hz if made else 0.0)
        made.append(self.gpio)
        self.circuit.scans = lambda: self.gpio.scans
        self.source: SensorSource = self.gpio
        self.source.open()

    def place(self, sensor_id: str) -> None:
        with self.circuit.lock:
            self.circuit.present.add(sensor_id)

    def lift(self, sensor_id: str) -> None:
        with self.circuit.lock:
            self.circuit.present.discard(sensor_id)

    def wobble(self, sensor_id: str) -> None:
        self.circuit.wobble(sensor_id, max(1, self.gpio.debounce_scans // 2))

    def close(self) -> None:
        self.source.close()
        self.factory.reset()


def make_rig(kind: str, board: BoardMap | None = None) -> Rig:
    board = board or load_board_map()
    if kind == "simulated":
        return SimulatedRig(board)
    if kind == "micropython":
        return MicroPythonRig(board)
    return GpioRig(board)
