"""The board over USB serial: a pyserial reader thread around the pure decoder and tracker.

The thread only moves bytes: it opens the port (retrying while the cable is
out), feeds what it reads to :class:`~hardware.protocol.FrameDecoder` and
:class:`~hardware.tracker.BoardTracker`, writes the commands they ask for, and
reports changes and link status. Give it a stable path such as
``/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_e6614c...-if00`` so a
replugged Pico comes back under the same name.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import serial

from hardware.boardmap import BoardMap, load_board_map
from hardware.protocol import V1_QUERY, WIRE_SEQ, Command, FrameDecoder, Heartbeat, Hello, encode
from hardware.sources import ScanSpeed, SensorChange, SensorSource
from hardware.tracker import LEGACY_QUERY, BoardTracker

log = logging.getLogger(__name__)

BAUDRATE = 115200
"""Ignored by USB CDC (the Pico runs at USB speed) but needed by a real UART."""


class SerialBoard(SensorSource):
    """Sensor changes from the Pico firmware over a serial port."""

    def __init__(self, port: str, board: BoardMap | None = None, *, baudrate: int = BAUDRATE,
                 retry_interval: float = 0.5, read_timeout: float = 0.02,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(board or load_board_map())
        self.port = port
        self.baudrate = baudrate
        self.retry_interval = retry_interval
        self.read_timeout = read_timeout
        self.clock = clock
        self.decoder = FrameDecoder()
        self.tracker = BoardTracker(self.board)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._command_seq = 0
        self._snapshot_wanted = threading.Event()
        self.connects = 0
        """How many times the port was opened (1 + reconnects)."""

    def open(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._set_status("lost", f"looking for the board on {self.port}")
        self._thread = threading.Thread(target=self._run, name=f"serial-board {self.port}",
                                        daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._closed()

    @property
    def firmware(self) -> Hello | None:
        """The board's last hello: firmware version, map hash, scan rate, debounce."""
        return self.tracker.hello

    @property
    def heartbeat(self) -> Heartbeat | None:
        """The board's last heartbeat: scans per second and slowest scan, measured on the board."""
        return self.tracker.heartbeat

    @property
    def scan_speed(self) -> ScanSpeed | None:
        beat, hello = self.tracker.heartbeat, self.tracker.hello
        if beat is None or hello is None:
            return None
        return ScanSpeed(beat.scans_per_s, beat.slowest_scan_us / 1e6, hello.scan_hz)

    def request_snapshot(self) -> None:
        """Ask the board for a snapshot now (``companion doctor`` uses it)."""
        self._snapshot_wanted.set()

    # -- the reader thread -------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                link = serial.Serial(self.port, self.baudrate, timeout=self.read_timeout,
                                     write_timeout=1)
            except (serial.SerialException, OSError, ValueError) as exc:
                self.tracker.link_closed(f"no board on {self.port} ({_reason(exc)})")
                self._sync_status()
                self._stop.wait(self.retry_interval)
                continue
            self.connects += 1
            try:
                self._serve(link)
            except (serial.SerialException, OSError) as exc:
                self.tracker.link_closed(f"lost the board on {self.port} ({_reason(exc)})")
                self._sync_status()
                self._stop.wait(self.retry_interval)
            except Exception as exc:  # a bug must not end the reader: report, reopen
                log.exception("serial board reader failed")
                self.tracker.link_closed(f"reader error on {self.port} ({_reason(exc)})")
                self._sync_status()
                self._stop.wait(self.retry_interval)
            finally:
                link.close()

    def _serve(self, link: serial.Serial) -> None:
        self.decoder.reset()
        link.reset_input_buffer()
        self._send(link, self.tracker.link_opened(self.clock()))
        self._sync_status()
        while not self._stop.is_set():
            data = link.read(max(1, link.in_waiting))
            now = self.clock()
            errors = self.decoder.errors + self.decoder.discarded
            legacy = self.decoder.legacy
            update = self.tracker.feed(self.decoder.feed(data), now)
            requests = update.requests
            if self.decoder.errors + self.decoder.discarded > errors:
                requests += self.tracker.garbled(now)
            if self.decoder.legacy > legacy:
                requests += self.tracker.legacy_seen(now)
            requests += self.tracker.tick(now)
            if self._snapshot_wanted.is_set():
                self._snapshot_wanted.clear()
                requests.append("R")
            sensors = self.board.sensors
            for index, present in update.changes:
                self._emit(SensorChange(sensors[index].id, present, now))
            self._sync_status()
            self._send(link, requests)

    def _send(self, link: serial.Serial, kinds: list[str]) -> None:
        for kind in dict.fromkeys(kinds):  # one of each kind per pass is enough
            if kind == LEGACY_QUERY:
                link.write(V1_QUERY)
                continue
            link.write(encode(Command(self._command_seq, kind)))
            self._command_seq = (self._command_seq + 1) % WIRE_SEQ

    def _sync_status(self) -> None:
        tracker = self.tracker
        if tracker.state == "connected" and self.link_status.state != "connected":
            # the first snapshot after (re)connecting is the belief from now on
            assert tracker.present is not None
            self._set_present(frozenset(self.board.sensors[i].id for i in tracker.present))
        self._set_status(tracker.state, tracker.detail)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip()
    return text or type(exc).__name__
