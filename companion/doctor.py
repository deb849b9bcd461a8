"""``companion doctor``: is this Pi ready to run the table? One line per check, and a fix.

Each check prints ``NAME: ok`` or ``NAME: problem: WHAT`` followed by
``fix: WHAT TO DO``; the exit status is 0 when everything is ok and 1 when
anything is not. Checks are plain functions grouped by part (Python, the
configuration, the data folder, the port, the board); a group takes a
:class:`DoctorContext` and yields :class:`Check` results as it goes, so a slow
or interactive check shows progress. The camera's checks plug in as one more
group in :data:`CHECK_GROUPS`.

>>> print(Check("python", True, "3.11.9").line())
python: ok (3.11.9)
>>> print(Check("port", False, "8000 is in use", "stop the other program").line())
port: problem: 8000 is in use
  fix: stop the other program
"""

from __future__ import annotations

import argparse
import ast
import glob
import importlib
import os
import socket
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from companion.config import CompanionConfig, ConfigError, find_config, load_config
from companion.inputs import input_overrides
from hardware.boardmap import BoardMap, BoardMapError, load_board_map
from hardware.connect import find_board_port, make_source, setup_problems
from hardware.protocol import PROTOCOL_VERSION, Hello
from hardware.simulated import FIRMWARE_DIR
from hardware.sources import ScanSpeed, SensorChange, SensorSource

MIN_PYTHON = (3, 11)
REQUIRED_MODULES: tuple[tuple[str, str], ...] = (
    ("fastapi", "fastapi"), ("uvicorn", "uvicorn"), ("pydantic", "pydantic"),
    ("pydantic_settings", "pydantic-settings"), ("serial", "pyserial"),
    ("gpiozero", "gpiozero"), ("numpy", "numpy"), ("cv2", "opencv-python-headless"),
    ("segno", "segno"), ("zeroconf", "zeroconf"),
)
"""(module to import, package to install) for everything ``companion serve`` loads."""
SERIAL_PATTERNS = ("/dev/serial/by-id/*", "/dev/ttyACM*", "/dev/ttyUSB*")
"""Where a USB serial board shows up, most stable name first."""
INTERACTIVE_SENSORS = ("REST", "U2", "U1", "G1", "S1.white.1", "S1.J1")
"""One recess of each kind: the Catch Mag's rest, a rod space, a joker space, a super
joker, a station slot and a home recess."""
HARDWARE_DOC = "docs/hardware.md"


@dataclass(frozen=True)
class Check:
    """One check's result: ``ok``, what was found, and (when not ok) how to put it right."""

    name: str
    ok: bool
    detail: str = ""
    fix: str = ""

    def line(self) -> str:
        if self.ok:
            return f"{self.name}: ok" + (f" ({self.detail})" if self.detail else "")
        return f"{self.name}: problem: {self.detail}\n  fix: {self.fix}"


@dataclass
class DoctorContext:
    """What every check group may use: the options, the configuration and where to talk."""

    config: CompanionConfig
    config_path: Path | None
    config_error: str | None
    seconds: float
    interactive: bool
    sensors: tuple[str, ...]
    out: TextIO
    source_factory: Callable[[str, BoardMap], SensorSource] = make_source
    serial_patterns: tuple[str, ...] = SERIAL_PATTERNS
    notes: list[str] = field(default_factory=list)

    def say(self, text: str) -> None:
        """A prompt or progress line (not a check result)."""
        print(text, file=self.out, flush=True)


CheckGroup = Callable[[DoctorContext], Iterable[Check]]


# -- Python and packages ---------------------------------------------------------------------


def python_checks(context: DoctorContext) -> Iterator[Check]:
    yield check_python(sys.version_info[:3])
    yield check_modules(REQUIRED_MODULES)


def check_python(version: tuple[int, ...]) -> Check:
    """
    >>> check_python((3, 9, 2)).ok
    False
    """
    shown = ".".join(str(v) for v in version)
    if tuple(version[:2]) >= MIN_PYTHON:
        return Check("python", True, shown)
    need = ".".join(str(v) for v in MIN_PYTHON)
    return Check("python", False, f"Python {shown} is too old; the companion needs {need} or later",
                 f"install Python {need}+ (Raspberry Pi OS bookworm has 3.11) and recreate the "
                 "virtualenv with it")


def check_modules(modules: Iterable[tuple[str, str]]) -> Check:
    missing: list[str] = []
    broken: list[str] = []
    names: list[str] = []
    for module, package in modules:
        names.append(package)
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(package)
        except Exception as exc:  # a package that is there but fails to load (a missing .so)
            broken.append(f"{package} ({type(exc).__name__}: {exc})")
    if not missing and not broken:
        return Check("packages", True, ", ".join(names))
    parts = []
    if missing:
        parts.append("not installed: " + ", ".join(missing))
    if broken:
        parts.append("installed but failing to import: " + "; ".join(broken))
    return Check("packages", False, "; ".join(parts),
                 f".venv/bin/pip install {' '.join(missing or [b.split()[0] for b in broken])} "
                 "(or reinstall the companion: .venv/bin/pip install -e .)")


# -- configuration, data folder, port ---------------------------------------------------------


def config_checks(context: DoctorContext) -> Iterator[Check]:
    where = str(context.config_path) if context.config_path else "no file (defaults)"
    if context.config_error is not None:
        yield Check("configuration", False, context.config_error,
                    "correct the file (every key is in docs/configuration.md); the checks "
                    "below use the defaults meanwhile")
    else:
        yield Check("configuration", True, where)
    yield check_data_dir(context.config.table.data_dir)
    yield check_port(context.config.table.host, context.config.table.port)


def check_data_dir(path: Path) -> Check:
    """The table's SQLite file can be created and written in ``path``."""
    fix_owner = (f"create it and give it to the user the service runs as: sudo mkdir -p {path} "
                 f"&& sudo chown $USER {path} (or set [table] data_dir)")
    if path.exists() and not path.is_dir():
        return Check("data folder", False, f"{path} is a file, not a folder", fix_owner)
    if not path.exists():
        parent = next((p for p in path.parents if p.exists()), Path("/"))
        if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            return Check("data folder", False,
                         f"{path} does not exist and cannot be created in {parent}", fix_owner)
        return Check("data folder", True,
                     f"{path.absolute()} will be created on the first start")
    try:
        with tempfile.NamedTemporaryFile(dir=path, prefix=".doctor-"):
            pass
    except OSError as exc:
        return Check("data folder", False, f"cannot write in {path} ({exc.strerror or exc})",
                     fix_owner)
    database = path / "table.sqlite3"
    if database.exists() and not os.access(database, os.R_OK | os.W_OK):
        return Check("data folder", False, f"{database} is not readable and writable",
                     f"sudo chown $USER {database}")
    return Check("data folder", True, str(path.absolute()))


def check_port(host: str, port: int) -> Check:
    """Whether ``companion serve`` could listen on ``host:port`` now."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
        with socket.socket(family, kind, proto) as sock:
            # as uvicorn does, so a connection in TIME_WAIT is no false alarm
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
    except OSError as exc:
        return Check("port", False, f"cannot listen on {host}:{port} ({exc.strerror or exc})",
                     "stop the program using it (is companion serve already running? "
                     "systemctl status table-companion) or choose another [table] port")
    return Check("port", True, f"{host}:{port} is free")


# -- the board ---------------------------------------------------------------------------------


def shipped_firmware_version(path: Path = FIRMWARE_DIR / "tcboard.py") -> tuple[int, ...] | None:
    """The ``VERSION`` of the firmware this companion ships (what the Pico should run).

    >>> shipped_firmware_version()
    (2, 0, 0)
    """
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return None
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "VERSION"):
            value = ast.literal_eval(node.value)
            if isinstance(value, tuple) and all(isinstance(v, int) for v in value):
                return value
    return None


def serial_candidates(patterns: Iterable[str]) -> list[str]:
    found: list[str] = []
    for pattern in patterns:
        found += [p for p in sorted(glob.glob(pattern)) if p not in found]
    return found


def board_checks(context: DoctorContext) -> Iterator[Check]:
    settings = context.config.board
    if settings.source == "none":
        context.notes.append("no board configured ([board] source = none): phones enter "
                             "every event")
        return
    try:
        board = load_board_map(settings.map)
    except (BoardMapError, OSError) as exc:
        yield Check("board map", False, str(exc),
                    "fix the file named in [board] map, or remove the key to use the "
                    "bundled hardware/boardmap.toml")
        return
    yield Check("board map", True, f"{settings.map or 'bundled'}: {len(board.sensors)} sensors, "
                                   f"hash {board.map_hash.hex()}")
    spec: str = settings.source
    if settings.source == "serial":
        device = yield from _serial_device(context, settings.device)
        if device is None:
            return
        spec = device
    elif settings.source == "gpio":
        gpio = check_gpio()
        yield gpio
        if not gpio.ok:
            return
    yield from _live_board_checks(context, board, spec)


def _serial_device(context: DoctorContext, device: str) -> Generator[Check, None, str | None]:
    """Yields the device check; returns the path to open, or ``None``."""
    found = serial_candidates(context.serial_patterns)
    listing = ("devices present: " + ", ".join(found)) if found else "no serial devices present"
    unplugged = (f"plug the Pico in with a data USB cable (not a charge-only one), then run "
                 f"ls /dev/serial/by-id; set [board] device to its path ({HARDWARE_DOC})")
    if device == "auto":
        port = find_board_port(context.serial_patterns)
        if port is None:
            yield Check("serial device", False, f"no board found ({listing})", unplugged)
            return None
        yield Check("serial device", True, f"found {port}")
        return port
    if not os.path.exists(device):
        fix = unplugged if not found else (
            f"set [board] device (or --board) to one of: {', '.join(found)}")
        yield Check("serial device", False, f"{device} is not there; {listing}", fix)
        return None
    yield Check("serial device", True, device)
    return device


def check_gpio() -> Check:
    """Whether gpiozero can drive the Pi's pins here (lgpio on a Pi 5, or any pin factory)."""
    from gpiozero import Device  # type: ignore[import-untyped]
    from gpiozero.exc import BadPinFactory  # type: ignore[import-untyped]

    factory = Device.pin_factory
    with warnings.catch_warnings(record=True) as fallbacks:
        warnings.simplefilter("always")
        try:
            if factory is None:
                factory = Device._default_pin_factory()
                factory.close()  # only asked whether it loads; the board claims the pins
        except (BadPinFactory, OSError, RuntimeError) as exc:
            tried = "; ".join(str(w.message) for w in fallbacks)
            return Check("gpio", False, f"no GPIO pin factory works here ({exc}"
                                        + (f"; {tried}" if tried else "") + ")",
                         "on a Raspberry Pi: sudo apt install python3-lgpio (or .venv/bin/pip "
                         "install lgpio) and add the user to the gpio group; elsewhere use "
                         "[board] source = serial or sim")
    return Check("gpio", True, f"pin factory {type(factory).__name__}")


def _live_board_checks(context: DoctorContext, board: BoardMap, spec: str) -> Iterator[Check]:
    source = context.source_factory(spec, board)
    with source:
        deadline = time.monotonic() + context.seconds
        while source.link_status.state != "connected" and time.monotonic() < deadline:
            hello = getattr(source, "firmware", None)
            if isinstance(hello, Hello) and hello.map_hash != board.map_hash:
                break  # it will never sync with this map: no point waiting
            time.sleep(0.02)
        link = source.link_status
        connected = link.state == "connected"
        if connected:
            yield Check("board link", True, f"connected; {len(source.snapshot())} magnets seen")
        else:
            yield Check("board link", False, f"{link.state}: {link.detail or 'no answer'} "
                                             f"(waited {context.seconds:g} s)",
                        "check the USB cable and that the Pico runs the companion firmware "
                        f"(flashing: {HARDWARE_DOC}); python -m hardware.watch {spec} shows "
                        "the link live")
        if hasattr(source, "firmware"):
            hello = source.firmware
            if isinstance(hello, Hello):
                yield check_firmware(hello, board)
            elif connected:
                yield Check("board firmware", False, "the board never said which firmware it runs",
                            f"flash the companion firmware again ({HARDWARE_DOC})")
        if not connected:
            return
        yield check_scan_speed(_wait_for_speed(source, min(context.seconds, 1.0)),
                               "the Pi" if spec == "gpio" else "the board")
        problems = setup_problems(board, source.snapshot())
        if problems:
            yield Check("board set-up", False,
                        f"{len(problems)} recess(es) differ from a new game's set-up: "
                        + "; ".join(problems),
                        "set the board up for a new game (a rod on every rod space, the five "
                        "joker balls, the five super jokers, the Catch Mag on its rest, empty "
                        "stations); a recess that still reads wrong has a dead or stuck sensor "
                        f"({HARDWARE_DOC}, 'Testing each sensor')")
        else:
            yield Check("board set-up", True,
                        f"every sensor as for a new game, {len(source.snapshot())} magnets")
        if context.interactive:
            yield from _interactive(context, board, source)


def check_firmware(hello: Hello, board: BoardMap,
                   shipped: tuple[int, ...] | None = None) -> Check:
    """The board's hello against this companion's firmware and board map."""
    shipped = shipped or shipped_firmware_version()
    version = ".".join(str(v) for v in hello.firmware)
    reflash = f"flash the Pico again with this companion's firmware ({HARDWARE_DOC}, " \
              "'Flashing the Pico')"
    if hello.protocol != PROTOCOL_VERSION:
        return Check("board firmware", False, f"the board speaks protocol {hello.protocol}; "
                                              f"this companion speaks {PROTOCOL_VERSION}", reflash)
    if hello.map_hash != board.map_hash or hello.sensor_count != len(board.sensors):
        return Check("board firmware", False,
                     f"the firmware was built for another board map (hash "
                     f"{hello.map_hash.hex()}, {hello.sensor_count} sensors; this companion's "
                     f"map: {board.map_hash.hex()}, {len(board.sensors)} sensors)",
                     "regenerate firmware/boardcfg.py (python -m hardware.boardmap --firmware "
                     f"firmware/boardcfg.py) and {reflash}")
    if shipped is not None and hello.firmware != shipped:
        want = ".".join(str(v) for v in shipped)
        return Check("board firmware", False,
                     f"the board runs firmware {version}; this companion ships {want}", reflash)
    timing = ""
    if (hello.scan_hz, hello.debounce_ms) != (board.scan_hz, board.debounce_ms):
        timing = (f"; note: it scans at {hello.scan_hz} Hz with {hello.debounce_ms} ms debounce, "
                  f"the map says {board.scan_hz} Hz, {board.debounce_ms} ms")
    return Check("board firmware", True,
                 f"firmware {version}, protocol {hello.protocol}, board map "
                 f"{hello.map_hash.hex()}, {hello.scan_hz} Hz scan, {hello.debounce_ms} ms "
                 f"debounce{timing}")


def _wait_for_speed(source: SensorSource, seconds: float) -> ScanSpeed | None:
    """The scanner's own figures: the Pico's heartbeat comes every 250 ms."""
    deadline = time.monotonic() + seconds
    while source.scan_speed is None and time.monotonic() < deadline:
        time.sleep(0.02)
    return source.scan_speed


def check_scan_speed(speed: ScanSpeed | None, scanner: str = "the board") -> Check:
    """The scan rate and slowest scan the scanner measured itself, against the map's target.

    >>> print(check_scan_speed(ScanSpeed(1004, 0.00062, 1000)).line())
    board scan speed: ok (1004 scans/s, target 1000; slowest scan 0.62 ms)
    >>> print(check_scan_speed(ScanSpeed(164, 0.0062, 1000)).line())  # doctest: +ELLIPSIS
    board scan speed: problem: the board scans 164 times a second, below the target of 1000 ...
      fix: flash the Pico with this companion's firmware ...
    """
    if speed is None:
        return Check("board scan speed", False, f"{scanner} has not reported its scan rate",
                     f"flash the Pico with this companion's firmware ({HARDWARE_DOC}, "
                     "'Flashing the Pico'): firmware 2 reports it in every heartbeat")
    figures = (f"{speed.scans_per_s:.0f} scans/s, target {speed.target_hz}; slowest scan "
               f"{speed.slowest_scan_s * 1000:.2f} ms")
    if not speed.below_target:
        return Check("board scan speed", True, figures)
    if scanner == "the Pi":
        fix = ("the Pi is too busy to scan the multiplexers itself: stop other programs, "
               "or read the board through a Pico ([board] source = serial)")
    else:
        fix = (f"flash the Pico with this companion's firmware ({HARDWARE_DOC}, 'Flashing "
               "the Pico'); if it stays slow, check that nothing else was copied onto it "
               "(mpremote ls) and that it runs at 125 MHz")
    return Check("board scan speed", False,
                 f"{scanner} scans {speed.scans_per_s:.0f} times a second, below the target of "
                 f"{speed.target_hz} (slowest scan {speed.slowest_scan_s * 1000:.2f} ms): "
                 "a magnet is seen later than it should be", fix)


def _interactive(context: DoctorContext, board: BoardMap, source: SensorSource) -> Iterator[Check]:
    sensors = board.ids if context.sensors == ("all",) else context.sensors
    for sensor_id in sensors:
        if sensor_id not in board:
            yield Check(f"sensor {sensor_id}", False, "no such sensor in the board map",
                        "name sensors as in hardware/boardmap.toml (U2, G1, S1.red.1, S1.J7, "
                        "REST)")
            continue
        sensor = board.sensor(sensor_id)
        had = sensor_id in source.snapshot()
        source.drain()
        if had:
            context.say(f"  -> lift the magnet on {sensor.label} ({sensor_id}), then put it back "
                        f"(within {context.seconds:g} s)")
        else:
            context.say(f"  -> put a rod on {sensor.label} ({sensor_id}), then take it away "
                        f"(within {context.seconds:g} s)")
        yield _watch_sensor(context, source, sensor_id, sensor.label, had)


def _watch_sensor(context: DoctorContext, source: SensorSource, sensor_id: str, label: str,
                  had: bool) -> Check:
    wanted = [not had, had]  # the two changes asked for, in order
    others: list[str] = []
    deadline = time.monotonic() + context.seconds
    while wanted:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        change: SensorChange
        for change in source.changes(timeout=left):
            if change.sensor_id == sensor_id and change.present == wanted[0]:
                wanted.pop(0)
            elif change.sensor_id != sensor_id and change.sensor_id not in others:
                others.append(change.sensor_id)
            if not wanted or time.monotonic() >= deadline:
                break
    name = f"sensor {sensor_id}"
    if not wanted:
        return Check(name, True, f"{label}: seen both ways")
    instead = f"; changes seen on {', '.join(others)} instead" if others else ""
    seen = "nothing" if len(wanted) == 2 else ("the magnet arrive but never leave" if had is False
                                                else "the magnet leave but never come back")
    return Check(name, False, f"{label}: saw {seen} within {context.seconds:g} s{instead}",
                 "a sensor that never changes is dead or unpowered; one whose neighbour changes "
                 "instead is wired to another channel than hardware/boardmap.toml says "
                 f"({HARDWARE_DOC}, 'Testing each sensor')")


# -- the camera ---------------------------------------------------------------------------------

ENROLLED_DECKS = ("star-catcher", "star-plus", "cant-catch-harry")
"""Decks the camera learns from the user's own cards (the standard deck needs no enrollment)."""

CAMERA_FIXES = {
    "webcam": "plug the USB camera in, check `ls /dev/video*`, and that the service's user is "
              "in the video group; set [camera] index if it is not the first camera",
    "picamera2": "check the ribbon cable, that `rpicam-hello` shows a picture, and that "
                 "no other program uses the camera",
    "file": "set [camera] path to a video file or a folder of images that exists",
}


def camera_checks(context: DoctorContext) -> Iterator[Check]:
    settings = context.config.camera
    if settings.source == "none":
        context.notes.append("no camera configured ([camera] source = none): phones enter "
                             "the cards")
        return
    try:
        from companion.inputs.camera import CORNERS_FILE, load_corners, open_camera
        from vision.calibration import detect_markers
        from vision.enrolled import EnrollmentError, Gallery, default_store
        from vision.simtable import SimTable
        from vision.sources import CameraUnavailable
    except ImportError as exc:
        yield Check("camera", False, f"the vision packages do not load ({exc})",
                    "reinstall the companion (pip install -e .) so opencv-python-headless "
                    "and numpy are present")
        return
    sim = SimTable("standard") if settings.source == "sim" else None
    fix = CAMERA_FIXES.get(settings.source, "check the camera and its configuration")
    try:
        source = open_camera(settings, sim)
    except CameraUnavailable as exc:
        # the source knows the cause best: picamera2 that does not import (a numpy that
        # does not fit, a venv that cannot see it) is no cable fault
        yield Check("camera", False, f"{settings.source}: {exc.cause}", exc.fix or fix)
        return
    except (OSError, ValueError) as exc:
        yield Check("camera", False, f"{settings.source}: {exc}", fix)
        return
    frame = None
    with source:
        deadline = time.monotonic() + min(context.seconds, 5.0)
        while frame is None and time.monotonic() < deadline:
            frame = source.read()
            if frame is None:
                time.sleep(0.05)
    if frame is None:
        yield Check("camera", False, f"{settings.source}: no picture within 5 s", fix)
        return
    height, width = frame.shape[:2]
    yield Check("camera", True, f"{settings.source}: {width}x{height} frames")
    if sim is not None:
        context.notes.append("simulated camera: no markers or enrolled decks needed")
        return
    if load_corners(context.config.table.data_dir / CORNERS_FILE) is not None:
        # tapped corners win over the markers in the running camera feed
        yield Check("table corners", True, "tapped on the phone's camera page (/camera; "
                    "'Clear corners' there to use the printed markers instead)")
    else:
        markers = sorted(detect_markers(frame))
        yield Check(
            "calibration markers", markers == [0, 1, 2, 3],
            f"markers seen: {', '.join(map(str, markers)) or 'none'}",
            "print docs/aruco-markers.svg at 100 % and lay markers 0-3 at the corners of the "
            "play area (0 top-left, clockwise, the first player's seat along the bottom edge), "
            "or tap the four corners on the phone's camera page (/camera); without either the "
            "whole picture counts as the centre and seats cannot be told apart",
        )
    store = default_store()
    for deck in ENROLLED_DECKS:
        try:
            gallery = Gallery.load(store, deck)
        except EnrollmentError as exc:
            yield Check(f"deck {deck}", False, str(exc),
                        f"tap 'Teach a deck' on the phone's camera page (/camera), or run "
                        f"companion vision enroll --deck {deck} --from PHOTOS (one flat, "
                        "upright photo per distinct card), or --camera to show each card")
        else:
            yield Check(f"deck {deck}", True, f"{len(gallery.cards)} cards enrolled in {store}")


CHECK_GROUPS: tuple[CheckGroup, ...] = (python_checks, config_checks, board_checks, camera_checks)
"""Every group ``companion doctor`` runs, in order."""


# -- the command ---------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion doctor",
        description="Check that this machine is ready to run the table: Python and packages, "
                    "the configuration, the data folder, the port, and the Catch Mag board "
                    "(device, link, firmware, set-up). Exit 0 when all is ok, 1 otherwise.",
    )
    parser.add_argument("--config", type=Path, default=None,
                        help="configuration file (default: /etc/table-companion/companion.toml "
                             "when it exists)")
    parser.add_argument("--board", default=None, metavar="SOURCE",
                        help="the board to check instead of the configured one: sim, gpio, "
                             "none, auto or a serial device path")
    parser.add_argument("--camera", default=None, metavar="SOURCE",
                        help="the camera to check instead of the configured one: sim, "
                             "webcam[:INDEX], picamera2, none, or a video file / image folder")
    parser.add_argument("--interactive", action="store_true",
                        help="also test sensors by hand: you are asked to lift and put back "
                             "a magnet on each one named by --sensors")
    parser.add_argument("--sensors", default=",".join(INTERACTIVE_SENSORS),
                        help="with --interactive: comma-separated sensor ids, or 'all' "
                             f"(default: {','.join(INTERACTIVE_SENSORS)})")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="how long to wait for the board to answer, and for each move "
                             "asked for with --interactive (default 10)")
    return parser


def context_from(args: argparse.Namespace, out: TextIO) -> DoctorContext:
    overrides = input_overrides(args.board, args.camera)
    path = find_config(args.config)
    error = None
    try:
        config = load_config(path, **overrides)
    except ConfigError as exc:
        error = str(exc)
        config = load_config(None, **overrides)
    sensors = tuple(s.strip() for s in args.sensors.split(",") if s.strip())
    return DoctorContext(config=config, config_path=path, config_error=error,
                         seconds=args.seconds, interactive=args.interactive, sensors=sensors,
                         out=out)


def run(context: DoctorContext, groups: Sequence[CheckGroup] = CHECK_GROUPS) -> int:
    """Run every group, printing each result as it comes; 0 if all are ok, else 1."""
    problems = 0
    for group in groups:
        try:
            for check in group(context):
                print(check.line(), file=context.out, flush=True)
                problems += not check.ok
        except Exception as exc:  # a broken check is itself a problem, never a traceback
            problems += 1
            print(Check(group.__name__, False, f"the check failed: {type(exc).__name__}: {exc}",
                        "report this with the output above").line(),
                  file=context.out, flush=True)
    for note in context.notes:
        print(f"note: {note}", file=context.out)
    summary = "all checks ok" if not problems else f"{problems} problem(s) found"
    print(summary, file=context.out, flush=True)
    return 1 if problems else 0


def main(argv: list[str], out: TextIO | None = None) -> int:
    """``companion doctor [--config FILE] [--board SOURCE] [--camera SOURCE] [--interactive]
    [--seconds N]``."""
    args = build_parser().parse_args(argv)
    stream = out or sys.stdout
    if args.seconds <= 0:
        print("companion doctor: --seconds must be a positive number, e.g. 10", file=sys.stderr)
        return 2
    try:
        context = context_from(args, stream)
    except ConfigError as exc:  # the environment itself is bad (TABLE_COMPANION_...)
        print(f"companion doctor: {exc}", file=sys.stderr)
        return 2
    return run(context)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
