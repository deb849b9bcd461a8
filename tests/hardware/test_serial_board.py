"""The serial path end to end: SimulatedBoard on a real pty, read by SerialBoard."""

from __future__ import annotations

import io
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.games.match import Match
from hardware.boardmap import DEFAULT_PATH, load_board_map, parse_board_map
from hardware.connect import SimulatedSerialBoard, find_board_port, make_source, setup_problems
from hardware.serial_board import SerialBoard
from hardware.simulated import SimulatedBoard, perform
from hardware.sources import LinkStatus, SensorSource
from hardware.watch import watch
from tests.hardware.rigs import wait_changes, wait_for

BOARD = load_board_map()


@pytest.fixture
def sim() -> Iterator[SimulatedBoard]:
    with SimulatedBoard(BOARD, scan_hz=500, debounce_ms=16) as board:
        yield board


@pytest.fixture
def source(sim: SimulatedBoard) -> Iterator[SerialBoard]:
    with SerialBoard(sim.port, BOARD, retry_interval=0.05) as serial_board:
        assert wait_for(lambda: serial_board.link_status.state == "connected")
        yield serial_board


def pairs(source: SensorSource, count: int) -> list[tuple[str, bool]]:
    return [(c.sensor_id, c.present) for c in wait_changes(source, count)]


def test_unplug_and_replug_restores_the_state_and_loses_nothing(
    sim: SimulatedBoard, source: SerialBoard,
) -> None:
    statuses: list[LinkStatus] = []
    source.subscribe_status(statuses.append)
    sim.move("U5", "S1.red.1")
    assert pairs(source, 2) == [("U5", False), ("S1.red.1", True)]
    sim.unplug()
    assert wait_for(lambda: source.link_status.state == "lost")
    assert "lost the board" in source.link_status.detail
    # hands keep playing while the cable is out
    sim.lift("U6")
    sim.place("S2.blue.1")
    sim.lift("REST")
    sim.replug()
    assert wait_for(lambda: source.link_status.state == "connected")
    assert pairs(source, 3) == [("U6", False), ("REST", False), ("S2.blue.1", True)]
    assert source.snapshot() == sim.present
    assert source.connects == 2
    assert [s.state for s in statuses][-1] == "connected"
    assert "lost" in [s.state for s in statuses]
    sim.place("REST")  # and the link works as before
    assert pairs(source, 1) == [("REST", True)]


def test_garbage_on_the_line_resyncs_without_a_phantom_change(
    sim: SimulatedBoard, source: SerialBoard,
) -> None:
    sim.inject(b"\x00\xff\xfeHC99zz\nS0102\nMicroPython v1.27.0\r\n")
    assert wait_for(lambda: source.decoder.discarded > 0)
    assert wait_for(lambda: source.link_status.state == "connected")
    sim.lift("U9")
    assert pairs(source, 1) == [("U9", False)]
    assert source.drain() == []
    assert source.snapshot() == sim.present


def test_lost_frames_are_noticed_and_made_good_by_a_snapshot(
    sim: SimulatedBoard, source: SerialBoard,
) -> None:
    statuses: list[str] = []
    source.subscribe_status(lambda s: statuses.append(s.state))
    sim.drop_frames(1)
    sim.lift("U3")  # this change frame is lost on the wire
    sim.settle()
    sim.lift("U4")  # its sequence number reveals the gap
    assert sorted(pairs(source, 2)) == [("U3", False), ("U4", False)]
    assert "resyncing" in statuses
    assert source.snapshot() == sim.present


def test_a_lost_last_frame_is_noticed_by_the_next_heartbeat(
    sim: SimulatedBoard, source: SerialBoard,
) -> None:
    statuses: list[LinkStatus] = []
    source.subscribe_status(statuses.append)
    sim.drop_frames(1)
    start = time.monotonic()
    sim.lift("U3")  # the last frame for a while, and it is lost: no later change reveals it
    assert pairs(source, 1) == [("U3", False)]
    # the heartbeat (every 250 ms of board time) names the lost frame: a snapshot request,
    # not the 1 s of silence nor the next change
    assert any("last frames were lost" in s.detail for s in statuses), statuses
    assert time.monotonic() - start < 2.0
    assert source.snapshot() == sim.present


def test_a_frozen_board_is_reported_lost_then_found_again(
    sim: SimulatedBoard, source: SerialBoard,
) -> None:
    sim.hang()
    assert wait_for(lambda: source.link_status.state == "lost", timeout=4)
    assert "stopped answering" in source.link_status.detail
    sim.lift("U10")  # moved while the board was frozen
    sim.hang(False)
    assert wait_for(lambda: source.link_status.state == "connected", timeout=4)
    assert pairs(source, 1) == [("U10", False)]


def test_the_source_waits_for_a_board_that_is_not_there_yet(tmp_path: Path) -> None:
    link_dir = tmp_path / "by-id"
    with SimulatedBoard(BOARD, link_dir=link_dir, scan_hz=500, debounce_ms=16) as probe:
        port = probe.port  # the stable path, before any board is plugged in
    with SerialBoard(port, BOARD, retry_interval=0.05) as source:
        assert wait_for(lambda: "no board on" in source.link_status.detail)
        waiting = source.link_status
        assert waiting.state == "lost"
        with SimulatedBoard(BOARD, link_dir=link_dir, scan_hz=500, debounce_ms=16) as sim:
            assert wait_for(lambda: source.link_status.state == "connected")
            assert source.snapshot() == sim.present


def test_firmware_for_another_board_map_is_refused_with_advice() -> None:
    data = tomllib.loads(DEFAULT_PATH.read_text(encoding="utf-8"))
    data["sensors"][0]["channel"], data["sensors"][1]["channel"] = 1, 0
    other = parse_board_map(data)
    with SimulatedBoard(other, scan_hz=500) as sim, \
            SerialBoard(sim.port, BOARD, retry_interval=0.05) as source:
        assert wait_for(lambda: "flash the Pico again" in source.link_status.detail)
        assert source.link_status.state == "lost"
        assert source.snapshot() == frozenset()


def test_a_snapshot_can_be_requested_at_any_time(sim: SimulatedBoard,
                                                 source: SerialBoard) -> None:
    before = sim.bytes_sent
    source.request_snapshot()
    assert wait_for(lambda: sim.bytes_sent - before >= 47)  # one snapshot line
    assert source.link_status.state == "connected"
    assert source.drain() == []


def test_the_sim_source_owns_its_simulator() -> None:
    with make_source("sim", BOARD) as source:
        assert isinstance(source, SimulatedSerialBoard)
        assert wait_for(lambda: source.link_status.state == "connected")
        source.simulator.lift("REST")
        assert pairs(source, 1) == [("REST", False)]
        assert setup_problems(BOARD, source.snapshot()) == [
            "nothing seen on the Catch Mag's rest: the Catch Mag belongs there "
            "(or its sensor is dead)"]
    assert not source.simulator.plugged


def test_auto_finds_the_most_stable_name_first(tmp_path: Path) -> None:
    (tmp_path / "ttyACM0").touch()
    best = tmp_path / "usb-MicroPython_Board_in_FS_mode_e6614c-if00"
    best.touch()
    patterns = [str(tmp_path / "*MicroPython*"), str(tmp_path / "ttyACM*")]
    assert find_board_port(patterns) == str(best)
    assert find_board_port([str(tmp_path / "nothing*")]) is None


def test_the_watch_tool_reports_the_link_and_the_setup() -> None:
    out = io.StringIO()
    assert watch("sim", 0.2, out) == 0
    text = out.getvalue()
    assert "link: connected" in text
    assert "36 magnets seen; no differences from a new game's setup" in text
    assert "times a second (target 1000), slowest scan" in text  # the sim's own figures
    assert text.rstrip().endswith("link: lost (closed)")


def test_perform_plays_physical_events_and_hands_back_the_phones(
    sim: SimulatedBoard, source: SerialBoard,
) -> None:
    match = Match({"type": "setup", "game": "catch-mag", "players": ["Ann", "Ben"]})
    roll = {"type": "roll", "player": "Ann", "value": 4}
    assert perform(sim, roll, match.state) is False  # the phone sends rolls
    match.push(roll)
    catch = {"type": "catch", "player": "Ann", "success": True, "color": "red"}
    assert perform(sim, catch, match.state) is True
    assert pairs(source, 4) == [("REST", False), ("U5", False), ("S1.red.1", True),
                                ("REST", True)]


def test_hands_wait_for_the_scans_when_the_board_scans_slowly(
    sim: SimulatedBoard, source: SerialBoard, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A busy machine slows the scan thread: the hands must still hold each step for the
    debounce's scans, or a quick lift-and-return (a failed catch) is never seen at all and
    two moves can come out of one scan in wiring order instead of the order they were made."""
    step = sim._logic.Firmware.step  # this board's own copy of the firmware module

    def slow_step(firmware: object) -> None:
        time.sleep(4 / sim.scan_hz)  # every scan takes 5 periods: the wall-clock hold is 1/5 short
        step(firmware)

    monkeypatch.setattr(sim._logic.Firmware, "step", slow_step)
    sim.lift_catch_mag()
    sim.return_catch_mag()
    sim.lift("U16")  # channel 15: scanned after U17 (channel 0) within one scan
    sim.settle()
    sim.lift("U17")
    sim.settle()
    assert pairs(source, 4) == [("REST", False), ("REST", True), ("U16", False), ("U17", False)]


class ProtocolOneBoard:
    """A Pico still running firmware 1, on a real pty: heartbeats once a second (here: every
    50 ms), and a hello plus snapshot only when asked with a protocol-1 ``Q``."""

    HELLO = b"H0001010000a9a261a89c00fa1ea4\n"  # docs/protocol.md
    BEAT = b"K050000002a00faf7\n"

    def __init__(self, link_dir: Path) -> None:
        import os
        import threading
        import tty

        self._os = os
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.slave = slave
        self.port = str(link_dir / "usb-MicroPython_old-if00")
        os.symlink(os.ttyname(slave), self.port)
        self.queries = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import select

        heard = b""
        while not self._stop.is_set():
            self._os.write(self.master, self.BEAT)
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                heard += self._os.read(self.master, 256)
                if b"Q0019\n" in heard:  # only a protocol-1 query is understood
                    heard = b""
                    self.queries += 1
                    self._os.write(self.master, self.HELLO)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self._os.close(self.master)
        self._os.close(self.slave)


def test_a_pico_with_protocol_1_firmware_is_named_and_refused(tmp_path: Path) -> None:
    from companion.doctor import check_firmware

    old = ProtocolOneBoard(tmp_path)
    try:
        with SerialBoard(old.port, BOARD, retry_interval=0.05) as source:
            assert wait_for(lambda: "protocol 1" in source.link_status.detail, 5), \
                source.link_status
            assert source.link_status.state == "lost"
            assert "flash the Pico again" in source.link_status.detail
            assert source.snapshot() == frozenset()  # nothing it says is believed
            hello = source.firmware
            assert hello is not None and hello.protocol == 1
            check = check_firmware(hello, BOARD)
            assert not check.ok and "protocol 1" in check.detail
    finally:
        old.close()
    assert old.queries >= 1
