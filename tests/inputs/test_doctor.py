"""``companion doctor`` against real parts: a simulated board on a pty, real sockets, files."""

from __future__ import annotations

import io
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import Device  # type: ignore[import-untyped]
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from companion import doctor
from companion.doctor import Check, DoctorContext, check_modules, context_from, main, run
from hardware.boardmap import DEFAULT_PATH, load_board_map
from hardware.simulated import SimulatedBoard


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """A configuration file for a table on a free local port, with its data in tmp_path."""
    path = tmp_path / "companion.toml"
    path.write_text(f'[table]\nhost = "127.0.0.1"\nport = {free_port()}\n'
                    f'data_dir = "{tmp_path / "data"}"\n', encoding="utf-8")
    return path


def doctor_says(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, out=out)
    return code, out.getvalue()


def result(text: str, name: str) -> str:
    """The line of check ``name`` (with its fix line, if any)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(f"{name}: "):
            fix = lines[i + 1] if i + 1 < len(lines) and lines[i + 1].startswith("  fix:") else ""
            return f"{line}\n{fix}".strip()
    raise AssertionError(f"no {name!r} check in:\n{text}")


@pytest.fixture
def started_board(tmp_path: Path) -> Iterator[list[SimulatedBoard]]:
    """Simulated boards a test starts; stopped afterwards."""
    boards: list[SimulatedBoard] = []
    yield boards
    for board in boards:
        board.stop()


def test_a_ready_table_with_the_simulated_board_is_all_ok(config: Path) -> None:
    code, text = doctor_says(["--config", str(config), "--board", "sim", "--seconds", "5"])
    assert code == 0, text
    for name in ("python", "packages", "configuration", "data folder", "port", "board map",
                 "board link", "board firmware", "board scan speed", "board set-up"):
        assert result(text, name).startswith(f"{name}: ok"), text
    assert "firmware 2.0.0, protocol 2" in result(text, "board firmware")
    assert "scans/s, target 1000; slowest scan" in result(text, "board scan speed")
    assert text.rstrip().endswith("all checks ok")


def test_a_stuck_and_a_dead_sensor_are_named(config: Path, tmp_path: Path,
                                             started_board: list[SimulatedBoard]) -> None:
    board = load_board_map()
    wrong = board.initial_layout() - {"U12"} | {"S1.red.1"}
    sim = SimulatedBoard(board, present=wrong, link_dir=tmp_path / "by-id")
    started_board.append(sim)
    sim.start()
    code, text = doctor_says(["--config", str(config), "--board", sim.port, "--seconds", "5"])
    assert code == 1
    assert result(text, "serial device").startswith("serial device: ok")
    assert result(text, "board link").startswith("board link: ok")
    setup = result(text, "board set-up")
    assert setup.startswith("board set-up: problem: 2 recess(es)")
    assert "nothing seen on universe space 12" in setup
    assert "a magnet on station 1, red row, slot 1" in setup and "stuck" in setup
    assert "fix: set the board up for a new game" in setup


def test_a_pico_flashed_for_another_board_map_is_caught_at_once(
    config: Path, tmp_path: Path, started_board: list[SimulatedBoard]
) -> None:
    text = DEFAULT_PATH.read_text(encoding="utf-8")
    rewired = text.replace('id = "U2", mux = 0, channel = 1', 'id = "U2", mux = 0, channel = 2'
                           ).replace('id = "U3", mux = 0, channel = 2',
                                     'id = "U3", mux = 0, channel = 1')
    assert rewired != text
    other_map = tmp_path / "rewired.toml"
    other_map.write_text(rewired, encoding="utf-8")
    other = load_board_map(other_map)
    assert other.map_hash != load_board_map().map_hash
    sim = SimulatedBoard(other, link_dir=tmp_path / "by-id")
    started_board.append(sim)
    sim.start()
    code, text = doctor_says(["--config", str(config), "--board", sim.port, "--seconds", "20"])
    assert code == 1
    assert result(text, "board link").startswith("board link: problem: lost")
    firmware = result(text, "board firmware")
    assert firmware.startswith("board firmware: problem: the firmware was built for another "
                               f"board map (hash {other.map_hash.hex()}")
    assert "flash the Pico again" in firmware
    assert "board set-up" not in text  # nothing to trust from a board that is not in step

    # With that map configured, the same Pico is fine.
    config.write_text(config.read_text(encoding="utf-8")
                      + f'[board]\nmap = "{other_map}"\n', encoding="utf-8")
    code, text = doctor_says(["--config", str(config), "--board", sim.port, "--seconds", "5"])
    assert code == 0, text


def test_a_missing_serial_device_lists_what_is_there(config: Path, tmp_path: Path) -> None:
    by_id = tmp_path / "serial" / "by-id"
    by_id.mkdir(parents=True)
    pico = by_id / "usb-MicroPython_Board_in_FS_mode_e6614c-if00"
    pico.touch()
    args = doctor.build_parser().parse_args(
        ["--config", str(config), "--board", "/dev/no-such-pico", "--seconds", "1"])
    out = io.StringIO()
    context = context_from(args, out)
    context.serial_patterns = (str(by_id / "*"),)
    assert run(context) == 1
    line = result(out.getvalue(), "serial device")
    assert line.startswith("serial device: problem: /dev/no-such-pico is not there; "
                           f"devices present: {pico}")
    assert f"fix: set [board] device (or --board) to one of: {pico}" in line
    assert "board link" not in out.getvalue()

    context.serial_patterns = (str(tmp_path / "nothing" / "*"),)
    context.config = context.config.model_copy(
        update={"board": context.config.board.model_copy(update={"device": "auto"})})
    out.truncate(0)
    out.seek(0)
    assert run(context) == 1
    assert "serial device: problem: no board found (no serial devices present)" in out.getvalue()


def test_configuration_data_folder_and_port_problems(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = tmp_path / "companion.toml"
        config.write_text(f'[table]\nhost = "127.0.0.1"\nport = {port}\n'
                          f'data_dir = "{blocker / "data"}"\ncolour = "blue"\n', encoding="utf-8")
        code, text = doctor_says(["--config", str(config), "--board", "none"])
    assert code == 1
    assert "configuration: problem:" in text and "unknown key 'table.colour'" in text
    # The file is wrong, so the checks after it use the defaults and say so.
    assert "the checks below use the defaults" in text

    config.write_text(f'[table]\nhost = "127.0.0.1"\nport = {port}\n'
                      f'data_dir = "{blocker / "data"}"\n', encoding="utf-8")
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.bind(("127.0.0.1", port))
        taken.listen()
        code, text = doctor_says(["--config", str(config), "--board", "none"])
    assert code == 1
    assert result(text, "configuration").startswith("configuration: ok")
    assert result(text, "data folder").startswith(
        f"data folder: problem: {blocker / 'data'} does not exist and cannot be created")
    assert result(text, "port").startswith(f"port: problem: cannot listen on 127.0.0.1:{port}")
    assert "note: no board configured" in text


def test_gpio_access(config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    code, text = doctor_says(["--config", str(config), "--board", "gpio", "--seconds", "1"])
    assert code == 1
    assert result(text, "gpio").startswith("gpio: problem: no GPIO pin factory works here")
    assert "board link" not in text

    factory = MockFactory()
    monkeypatch.setattr(Device, "pin_factory", factory)
    try:
        code, text = doctor_says(["--config", str(config), "--board", "gpio", "--seconds", "1"])
    finally:
        factory.reset()
    assert result(text, "gpio") == "gpio: ok (pin factory MockFactory)"
    assert result(text, "board link").startswith("board link: ok")
    assert "scan" in result(text, "board scan speed")  # the Pi's own figures, ok or not
    # Bare mock pins see no magnets at all: every set-up recess is reported empty.
    assert result(text, "board set-up").startswith("board set-up: problem: 36 recess(es)")


def test_missing_and_broken_packages_are_named() -> None:
    check = check_modules([("json", "json"), ("no_such_module_xyz", "no-such-package")])
    assert not check.ok
    assert check.detail == "not installed: no-such-package"
    assert check.fix.startswith(".venv/bin/pip install no-such-package")


def test_a_failing_check_group_is_a_problem_not_a_traceback(config: Path) -> None:
    def broken(context: DoctorContext) -> Iterator[Check]:
        yield Check("first", True)
        raise RuntimeError("camera exploded")

    out = io.StringIO()
    context = context_from(doctor.build_parser().parse_args(["--config", str(config)]), out)
    assert run(context, [broken]) == 1
    assert out.getvalue().splitlines()[:2] == [
        "first: ok", "broken: problem: the check failed: RuntimeError: camera exploded"]


class Hands(io.StringIO):
    """The doctor's output, and a person reading it: does what each prompt asks, once."""

    def __init__(self, sim: SimulatedBoard, ignore: set[str]) -> None:
        super().__init__()
        self.sim = sim
        self.ignore = ignore
        self.threads: list[threading.Thread] = []

    def write(self, text: str) -> int:
        if text.startswith("  -> "):
            sensor = text.split("(")[-2].split(")")[0]
            if sensor not in self.ignore:
                lift_first = text.startswith("  -> lift")
                thread = threading.Thread(target=self._do, args=(sensor, lift_first))
                thread.start()
                self.threads.append(thread)
        return super().write(text)

    def _do(self, sensor: str, lift_first: bool) -> None:
        if lift_first:
            self.sim.lift_back(sensor)
        else:
            self.sim.place(sensor)
            self.sim.settle()
            self.sim.lift(sensor)
            self.sim.settle()


def test_interactive_sensor_test(config: Path, tmp_path: Path,
                                 started_board: list[SimulatedBoard]) -> None:
    sim = SimulatedBoard(link_dir=tmp_path / "by-id")
    started_board.append(sim)
    sim.start()
    hands = Hands(sim, ignore={"G1"})  # nobody touches the super joker: it must be reported
    code = main(["--config", str(config), "--board", sim.port, "--interactive",
                 "--sensors", "U2,S1.white.1,G1,X9", "--seconds", "1.5"], out=hands)
    for thread in hands.threads:
        thread.join(5)
    text = hands.getvalue()
    assert code == 1, text
    assert "-> lift the magnet on universe space 2 (U2)" in text
    assert "-> put a rod on station 1, white row, slot 1 (S1.white.1)" in text
    assert result(text, "sensor U2").startswith("sensor U2: ok")
    assert result(text, "sensor S1.white.1").startswith("sensor S1.white.1: ok")
    assert result(text, "sensor G1").startswith("sensor G1: problem:")
    assert "saw nothing within 1.5 s" in result(text, "sensor G1")
    assert result(text, "sensor X9").startswith("sensor X9: problem: no such sensor")
