"""A simulated Catch Mag board: the real firmware logic on virtual pins, served on a pty.

The simulator runs ``firmware/tcboard.py`` (the same file the Pico runs)
against a virtual circuit of multiplexers and Hall switches, in a thread at
the board map's scan rate, and speaks the byte protocol on a pty. So
``SerialBoard(sim.port)`` exercises the real serial path, including unplug
and replug (:meth:`SimulatedBoard.unplug`, :meth:`SimulatedBoard.replug`).

Scripts move magnets the way hands do::

    with SimulatedBoard() as sim, SerialBoard(sim.port) as source:
        sim.lift_catch_mag()
        sim.move("U5", "S1.red.1")
        sim.return_catch_mag()
"""

from __future__ import annotations

import importlib.util
import os
import select
import tempfile
import threading
import time
import tty
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any, Self

from hardware.boardmap import BoardMap, firmware_config_source, load_board_map

FIRMWARE_DIR = Path(__file__).resolve().parent.parent / "firmware"


def load_firmware(board: BoardMap) -> tuple[ModuleType, ModuleType]:
    """The firmware logic module and a config module generated from ``board``."""
    spec = importlib.util.spec_from_file_location("tcboard", FIRMWARE_DIR / "tcboard.py")
    assert spec is not None and spec.loader is not None
    logic = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(logic)
    cfg = ModuleType("boardcfg")
    exec(firmware_config_source(board), cfg.__dict__)
    return logic, cfg


class VirtualCircuit:
    """Multiplexers and open-drain Hall switches: the level each pin shows."""

    def __init__(self, board: BoardMap, cfg: ModuleType) -> None:
        self.board = board
        self.cfg = cfg
        self.present: set[int] = set()
        self.select_levels = [0] * len(cfg.SELECT_PINS)
        self._select_bit = {pin: bit for bit, pin in enumerate(cfg.SELECT_PINS)}
        self._mux_of = {pin: m for m, pin in enumerate(cfg.MUX_PINS)}

    def pin_class(self) -> type:
        """A ``machine.Pin`` look-alike wired to this circuit."""
        circuit = self

        class Pin:
            IN, OUT, PULL_UP = 0, 1, 1

            def __init__(self, pin_id: int, mode: int = -1, pull: int = -1,
                         value: int | None = None) -> None:
                self.pin_id = pin_id
                self.mode = mode
                if value is not None:
                    self.value(value)

            def value(self, level: int | None = None) -> int | None:
                if level is None:
                    return circuit.level(self.pin_id)
                circuit.select_levels[circuit._select_bit[self.pin_id]] = 1 if level else 0
                return None

        return Pin

    def level(self, pin_id: int) -> int:
        channel = 0
        for bit, level in enumerate(self.select_levels):
            channel |= level << bit
        index = self.cfg.SLOTS[channel * self.cfg.MUX_COUNT + self._mux_of[pin_id]]
        seen = index >= 0 and index in self.present
        return (0 if seen else 1) if self.cfg.ACTIVE_LOW else (1 if seen else 0)


class SimulatedBoard:
    """A board on a pseudo-terminal, driven by a script.

    ``port`` is a stable path (a symlink, like ``/dev/serial/by-id/...``) that
    survives :meth:`unplug` and :meth:`replug`. Sensor changes take the
    debounce time to show, as on the real board: :meth:`move` holds each step
    long enough, :meth:`settle` waits for the last one.
    """

    def __init__(self, board: BoardMap | None = None, *, present: Iterable[str] | None = None,
                 link_dir: Path | str | None = None, scan_hz: int | None = None,
                 debounce_ms: int | None = None) -> None:
        self.board = board or load_board_map()
        self.scan_hz = scan_hz or self.board.scan_hz
        debounce = self.board.debounce_ms if debounce_ms is None else debounce_ms
        self.debounce_ms = debounce
        self.debounce_scans = 1 + -(-debounce * self.scan_hz // 1000)
        self._logic, self._cfg = load_firmware(self.board)
        self.circuit = VirtualCircuit(self.board, self._cfg)
        initial = self.board.initial_layout() if present is None else present
        self.circuit.present = {self.board.sensor(s).index for s in initial}
        self._own_dir = tempfile.TemporaryDirectory(prefix="tc-sim-") if link_dir is None else None
        base = Path(self._own_dir.name if self._own_dir else str(link_dir))
        self.port = str(base / "usb-TableCompanion_SimulatedBoard-if00")
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._master = -1
        self._slave = -1
        self._firmware: Any = None
        self._injected: list[bytes] = []
        self._restores: list[tuple[int, int, threading.Event]] = []
        self._hung = False
        self._drop_next = 0
        self.scans = 0
        self.bytes_sent = 0

    # -- life ------------------------------------------------------------------

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def start(self) -> None:
        """Power up: plug the pty in and start scanning."""
        self.replug()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="simulated-board", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self.unplug()
        if self._own_dir is not None:
            self._own_dir.cleanup()
            self._own_dir = None

    def unplug(self) -> None:
        """Pull the USB cable: the pty goes away (host reads fail), the Pico loses power."""
        with self._lock:
            for fd in (self._master, self._slave):
                if fd >= 0:
                    os.close(fd)
            self._master = self._slave = -1
            self._firmware = None
            if os.path.lexists(self.port):
                os.unlink(self.port)

    def replug(self) -> None:
        """Plug the cable back in: a new pty under the same path, a freshly booted firmware."""
        with self._lock:
            self.unplug()
            master, slave = os.openpty()
            tty.setraw(slave)
            os.set_blocking(master, False)
            self._master, self._slave = master, slave
            link = Path(self.port)
            link.parent.mkdir(parents=True, exist_ok=True)
            tmp = link.with_name(link.name + ".new")
            if os.path.lexists(tmp):
                os.unlink(tmp)
            os.symlink(os.ttyname(slave), tmp)
            os.replace(tmp, link)
            self._firmware = self._logic.open_board(
                self._cfg, self.circuit.pin_class(), self._write, self._ticks_ms,
                ticks_us=self._ticks_us)
            self._firmware.debounce_us = self.debounce_ms * 1000

    @property
    def plugged(self) -> bool:
        return self._master >= 0

    # -- what hands do ---------------------------------------------------------

    def place(self, sensor_id: str) -> None:
        with self._lock:
            self.circuit.present.add(self.board.sensor(sensor_id).index)

    def lift(self, sensor_id: str) -> None:
        with self._lock:
            self.circuit.present.discard(self.board.sensor(sensor_id).index)

    def set_present(self, sensor_ids: Iterable[str]) -> None:
        """Put the board in any state at once (every magnet that should be seen)."""
        indices = {self.board.sensor(s).index for s in sensor_ids}
        with self._lock:
            self.circuit.present = indices

    @property
    def present(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self.board.sensors[i].id for i in self.circuit.present)

    def move(self, source: str, target: str, hold: float | None = None) -> None:
        """Lift a magnet, carry it, put it down; each step held past the debounce time."""
        self.lift(source)
        self.settle(hold)
        self.place(target)
        self.settle(hold)

    def lift_catch_mag(self, hold: float | None = None) -> None:
        self.lift("REST")
        self.settle(hold)

    def return_catch_mag(self, hold: float | None = None) -> None:
        self.place("REST")
        self.settle(hold)

    def lift_back(self, sensor_id: str) -> None:
        """Lift a magnet long enough to be seen, then set it back in the same recess."""
        self.lift(sensor_id)
        self.settle()
        self.place(sensor_id)
        self.settle()

    def wobble(self, sensor_id: str, scans: int | None = None) -> None:
        """A magnet lifted and set back within fewer scans than the debounce needs.

        Counted in scans by the scan thread itself, so a busy machine cannot
        stretch the wobble into a real change. Returns once the magnet is back.
        """
        index = self.board.sensor(sensor_id).index
        back = threading.Event()
        with self._lock:
            self.circuit.present.discard(index)
            hold = max(1, self.debounce_scans // 2) if scans is None else scans
            self._restores.append((self.scans + hold, index, back))
        if not back.wait(timeout=5):
            raise TimeoutError("the simulated board stopped scanning")

    def settle(self, hold: float | None = None) -> None:
        """Wait until the last change has been debounced and sent (plus a margin).

        The firmware debounces in scans, not in seconds, so the wait is counted in
        scans of the scan thread: a busy machine that slows or stalls the scanning
        stretches the wait with it (a hand held still until the board has seen it),
        instead of putting the next change down before the last one counted. A
        ``hold`` in seconds waits at least that long as well.
        """
        start = self.scans
        scans = self.debounce_scans + 3
        time.sleep(hold if hold is not None else scans / self.scan_hz)
        deadline = time.monotonic() + 5
        while self.scans - start < scans and self._thread is not None:
            if time.monotonic() > deadline:
                raise TimeoutError("the simulated board stopped scanning")
            time.sleep(1 / self.scan_hz)

    # -- line trouble, for tests -------------------------------------------------

    def inject(self, data: bytes) -> None:
        """Put raw bytes on the line between frames (noise, a stray boot message)."""
        with self._lock:
            self._injected.append(data)

    def hang(self, hung: bool = True) -> None:
        """Freeze the firmware (no scans, no frames) with the cable still in, or thaw it."""
        with self._lock:
            self._hung = hung

    def drop_frames(self, count: int) -> None:
        """Lose the next ``count`` frames the firmware sends (a glitch on the wire)."""
        with self._lock:
            self._drop_next += count

    # -- the scan thread ---------------------------------------------------------

    def _ticks_ms(self) -> int:
        return self._ticks_us() // 1000

    def _ticks_us(self) -> int:
        # the firmware's clock is the scan count: a busy machine that stalls the scan thread
        # stalls the board's time with it, so a wobble shorter than the debounce stays shorter
        return (self.scans * 1_000_000 // self.scan_hz) & 0x3FFFFFFF

    def _write(self, data: bytes) -> None:
        if self._drop_next:
            self._drop_next -= 1
            return
        if self._master < 0:
            return
        try:
            os.write(self._master, data)
            self.bytes_sent += len(data)
        except BlockingIOError:
            pass  # nobody is reading: USB CDC drops data the same way
        except OSError:
            pass

    def _run(self) -> None:
        period = 1.0 / self.scan_hz
        deadline = time.monotonic()
        while not self._stop.is_set():
            with self._lock:
                firmware = self._firmware
                master = self._master
                for restore in [r for r in self._restores if r[0] <= self.scans]:
                    self.circuit.present.add(restore[1])
                    self._restores.remove(restore)
                    restore[2].set()
                if firmware is not None and not self._hung:
                    for data in self._injected:
                        self._write(data)
                    self._injected.clear()
                    firmware.step()
                self.scans += 1
            deadline += period
            wait = deadline - time.monotonic()
            if wait < -period:  # fell behind (busy machine): do not race to catch up
                deadline = time.monotonic()
                wait = 0
            self._wait_for_host(master, firmware, max(0.0, wait))

    def _wait_for_host(self, master: int, firmware: Any, wait: float) -> None:
        if master < 0 or firmware is None:
            self._stop.wait(wait)
            return
        try:
            ready, _, _ = select.select([master], [], [], wait)
        except (OSError, ValueError):
            return
        if not ready:
            return
        try:
            data = os.read(master, 256)
        except (BlockingIOError, OSError):
            return
        with self._lock:
            if self._firmware is firmware and not self._hung:
                firmware.host_bytes(data)


def perform(sim: SimulatedBoard, event: Mapping[str, Any], state: Any,
            stations: Mapping[str, int] | None = None) -> bool:
    """Make the board show a Catch Mag ``event`` (for demos and bots).

    Returns ``False`` when the event is not the sensors' business (a roll, a
    declined super joker): send it from the phone instead. ``state`` is the
    Catch Mag state before the event.
    """
    from hardware.script import hand_moves  # the script helpers need the rules engine

    steps = hand_moves(event, state, stations)
    run_script(sim, steps)
    return bool(steps)


def run_script(sim: SimulatedBoard, steps: Iterable[tuple[str, ...]],
               on_step: Callable[[tuple[str, ...]], None] | None = None) -> None:
    """Play a list of hand movements: ``("move", a, b)``, ``("lift", s)``, ``("place", s)``,
    ``("lift-mag",)``, ``("return-mag",)``, ``("lift-back", s)``, ``("wobble", s)``,
    ``("settle",)``, ``("try",)`` (the Catch Mag held away for a failed try)."""
    from hardware.script import TRY_S

    actions: dict[str, Callable[..., None]] = {
        "move": sim.move, "lift": sim.lift, "place": sim.place, "wobble": sim.wobble,
        "lift-back": sim.lift_back,
        "lift-mag": sim.lift_catch_mag, "return-mag": sim.return_catch_mag,
        "settle": sim.settle, "try": lambda: sim.settle(TRY_S),
    }
    for step in steps:
        if on_step is not None:
            on_step(step)
        try:
            action = actions[step[0]]
        except KeyError:
            raise ValueError(f"unknown simulator step {step[0]!r}; expected one of "
                             f"{', '.join(actions)}") from None
        action(*step[1:])
        if step[0] in ("lift", "place"):
            sim.settle()
