"""The Catch Mag board's checks: its map, the device, the link, the firmware, the scan
speed and the set-up; with ``--interactive``, sensor by sensor."""

from __future__ import annotations

import ast
import glob
import os
import time
import warnings
from collections.abc import Generator, Iterable, Iterator
from pathlib import Path

from companion.checks import Check, DoctorContext
from hardware.boardmap import BoardMap, BoardMapError, load_board_map
from hardware.connect import find_board_port, setup_problems
from hardware.protocol import PROTOCOL_VERSION, Hello
from hardware.simulated import FIRMWARE_DIR
from hardware.sources import ScanSpeed, SensorChange, SensorSource

INTERACTIVE_SENSORS = ("REST", "U2", "U1", "G1", "S1.white.1", "S1.J1")
"""One recess of each kind: the Catch Mag's rest, a rod space, a joker space, a super
joker, a station slot and a home recess."""
HARDWARE_DOC = "docs/hardware.md"


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
        context.not_configured("board", "every event")
        return
    board = yield from _board_map(settings.map)
    if board is None:
        return
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


def _board_map(path: Path | None) -> Generator[Check, None, BoardMap | None]:
    """Yields the board map's check; returns the map, or ``None``."""
    try:
        board = load_board_map(path)
    except (BoardMapError, OSError) as exc:
        yield Check("board map", False, str(exc),
                    "fix the file named in [board] map, or remove the key to use the "
                    "bundled hardware/boardmap.toml")
        return None
    yield Check("board map", True, f"{path or 'bundled'}: {len(board.sensors)} sensors, "
                                   f"hash {board.map_hash.hex()}")
    return board


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
