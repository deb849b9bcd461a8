"""The board map: every Hall-effect sensor of the Catch Mag board, read from one TOML file.

``hardware/boardmap.toml`` is the single source of truth. The drivers, the
simulator and ``companion doctor`` load it with :func:`load_board_map`; the
Pico firmware gets a generated copy (:func:`firmware_config_source`), checked
by a test to be current.

>>> board = load_board_map()
>>> len(board.sensors)
156
>>> board.sensor("S2.red.4").label
'station 2, red row, slot 4'
>>> board.sensor("U7").role
'joker-space'
>>> board.sensor("U31")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
hardware.boardmap.BoardMapError: unknown sensor 'U31'; expected an id from the board map ...
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Final, Literal

COLORS: Final = ("white", "green", "red", "yellow", "blue")
"""Rod and row colours, in the order the rulebook lists them."""
JOKER_SPACES: Final = (1, 7, 13, 19, 25)
"""The outer joker spaces; a joker ball, a super joker and a home recess carry these numbers."""
ROLES: Final = ("rod-space", "joker-space", "super-joker", "row-slot", "home-joker", "rest")

Role = Literal["rod-space", "joker-space", "super-joker", "row-slot", "home-joker", "rest"]

DEFAULT_PATH: Final = Path(__file__).with_name("boardmap.toml")
FIRMWARE_CONFIG_PATH: Final = Path(__file__).resolve().parent.parent / "firmware" / "boardcfg.py"
MAX_SENSORS: Final = 255
"""The serial protocol numbers sensors with one byte."""


class BoardMapError(ValueError):
    """The board map file is wrong, or a sensor id is not on the board."""


@dataclass(frozen=True)
class Sensor:
    """One Hall-effect sensor: where it is wired and what it means to the game."""

    id: str
    index: int
    """Position in the board map: the sensor's number in the serial protocol."""
    mux: int
    channel: int
    role: Role
    space: int | None = None
    """Universe space 1-30 (``rod-space``, ``joker-space``)."""
    joker: int | None = None
    """Joker number 1, 7, 13, 19 or 25 (``super-joker``, ``home-joker``)."""
    station: int | None = None
    """Space station 1-4, clockwise from the first seat (``row-slot``, ``home-joker``)."""
    color: str | None = None
    slot: int | None = None

    @property
    def label(self) -> str:
        """Where the sensor is, in words a person finds on the board."""
        if self.role == "rod-space":
            return f"universe space {self.space}"
        if self.role == "joker-space":
            return f"outer joker space {self.space}"
        if self.role == "super-joker":
            return f"super joker recess of arm {self.joker}"
        if self.role == "row-slot":
            return f"station {self.station}, {self.color} row, slot {self.slot}"
        if self.role == "home-joker":
            return f"station {self.station}, home recess for joker {self.joker}"
        return "the Catch Mag's rest"


@dataclass(frozen=True)
class PinMap:
    """GPIO numbers of the multiplexer select lines and of each multiplexer's output."""

    select: tuple[int, ...]
    mux_out: tuple[int, ...]


@dataclass(frozen=True)
class BoardMap:
    """The whole board: sensors in protocol order, scan timing and pin maps."""

    name: str
    version: int
    sensors: tuple[Sensor, ...]
    scan_hz: int
    debounce_ms: int
    settle_us: int
    mux_count: int
    mux_channels: int
    active_low: bool
    pico: PinMap
    gpio: PinMap
    _by_id: Mapping[str, Sensor] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {s.id: s for s in self.sensors})

    def sensor(self, sensor_id: str) -> Sensor:
        try:
            return self._by_id[sensor_id]
        except KeyError:
            raise BoardMapError(
                f"unknown sensor {sensor_id!r}; expected an id from the board map "
                "such as U1, G1, S1.red.1, S1.J7 or REST"
            ) from None

    def __contains__(self, sensor_id: object) -> bool:
        return sensor_id in self._by_id

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.sensors)

    def super_joker(self, joker: int) -> Sensor:
        return next(s for s in self.sensors if s.role == "super-joker" and s.joker == joker)

    def row(self, station: int, color: str) -> tuple[Sensor, ...]:
        """The five slots of one colour row of a station, slot 1 first."""
        return tuple(
            s for s in self.sensors
            if s.role == "row-slot" and s.station == station and s.color == color
        )

    def home_joker(self, station: int, joker: int) -> Sensor:
        return self.sensor(f"S{station}.J{joker}")

    @property
    def rest(self) -> Sensor:
        return self.sensor("REST")

    @property
    def debounce_scans(self) -> int:
        """Scans at the map's rate that see a new level before it counts: the first one,
        then every scan until ``debounce_ms`` have passed since it.

        >>> board = load_board_map()
        >>> board.debounce_ms, board.scan_hz, board.debounce_scans
        (5, 1000, 6)
        """
        return 1 + -(-self.debounce_ms * self.scan_hz // 1000)

    @cached_property
    def map_hash(self) -> bytes:
        """Four bytes that change whenever the wiring or the sensor order changes.

        The firmware reports them in its hello frame, so the Pi notices a Pico
        flashed for another board map.
        """
        canonical = json.dumps(
            [[s.id, s.mux, s.channel] for s in self.sensors]
            + [self.mux_count, self.mux_channels, self.active_low],
            separators=(",", ":"),
        )
        return hashlib.sha256(canonical.encode()).digest()[:4]

    def initial_layout(self) -> frozenset[str]:
        """The sensors that see a magnet at the start of a game.

        Rods on the 25 rod spaces, the five joker balls, the five super jokers
        and the Catch Mag on its rest.
        """
        return frozenset(
            s.id for s in self.sensors
            if s.role in ("rod-space", "joker-space", "super-joker", "rest")
        )


def load_board_map(path: Path | str | None = None) -> BoardMap:
    """Read and validate a board map file (the packaged one by default)."""
    source = Path(path) if path is not None else DEFAULT_PATH
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise BoardMapError(f"{source}: not valid TOML ({exc})") from None
    return parse_board_map(data)


def _int(table: Mapping[str, Any], key: str, where: str, low: int, high: int) -> int:
    value = table.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BoardMapError(f"{where}: '{key}' must be a whole number from {low} to {high}, "
                            f"got {value!r}")
    return value


def _table(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key)
    if not isinstance(value, Mapping):
        raise BoardMapError(f"the board map needs a [{key}] table")
    return value


def _pins(data: Mapping[str, Any], key: str, mux_count: int) -> PinMap:
    table = _table(data, key)
    select, mux_out = table.get("select"), table.get("mux_out")
    if not (isinstance(select, list) and len(select) == 4
            and all(isinstance(p, int) and p >= 0 for p in select)):
        raise BoardMapError(f"[{key}] 'select' must list the 4 select-line GPIO numbers, "
                            f"got {select!r}")
    if not (isinstance(mux_out, list) and len(mux_out) == mux_count
            and all(isinstance(p, int) and p >= 0 for p in mux_out)):
        raise BoardMapError(f"[{key}] 'mux_out' must list {mux_count} GPIO numbers "
                            f"(one per multiplexer), got {mux_out!r}")
    if len(set(select) | set(mux_out)) != 4 + mux_count:
        raise BoardMapError(f"[{key}] uses a GPIO number twice")
    return PinMap(tuple(select), tuple(mux_out))


def _optional(entry: Mapping[str, Any], key: str, where: str, choices: Sequence[object]) -> Any:
    value = entry.get(key)
    if value not in choices:
        raise BoardMapError(f"{where}: '{key}' must be one of "
                            f"{', '.join(map(str, choices))}, got {value!r}")
    return value


def _sensor(index: int, entry: object, mux_count: int, channels: int) -> Sensor:
    where = f"sensor #{index + 1}"
    if not isinstance(entry, Mapping):
        raise BoardMapError(f"{where}: must be a table like {{ id = \"U1\", mux = 0, ... }}")
    sensor_id = entry.get("id")
    if not isinstance(sensor_id, str) or not sensor_id:
        raise BoardMapError(f"{where}: needs a string 'id'")
    where = f"sensor {sensor_id}"
    mux = _int(entry, "mux", where, 0, mux_count - 1)
    channel = _int(entry, "channel", where, 0, channels - 1)
    role = _optional(entry, "role", where, ROLES)
    space = joker = station = slot = None
    color = None
    expected_id = sensor_id
    if role in ("rod-space", "joker-space"):
        space = _int(entry, "space", where, 1, 30)
        if (space in JOKER_SPACES) != (role == "joker-space"):
            raise BoardMapError(f"{where}: space {space} is "
                                f"{'a' if space in JOKER_SPACES else 'not a'} joker space")
        expected_id = f"U{space}"
    elif role == "super-joker":
        joker = _optional(entry, "joker", where, JOKER_SPACES)
        expected_id = f"G{JOKER_SPACES.index(joker) + 1}"
    elif role == "row-slot":
        station = _int(entry, "station", where, 1, 4)
        color = _optional(entry, "color", where, COLORS)
        slot = _int(entry, "slot", where, 1, 5)
        expected_id = f"S{station}.{color}.{slot}"
    elif role == "home-joker":
        station = _int(entry, "station", where, 1, 4)
        joker = _optional(entry, "joker", where, JOKER_SPACES)
        expected_id = f"S{station}.J{joker}"
    else:
        expected_id = "REST"
    if sensor_id != expected_id:
        raise BoardMapError(f"{where}: a {role} sensor with these fields must be named "
                            f"{expected_id!r}")
    return Sensor(sensor_id, index, mux, channel, role, space, joker, station, color, slot)


def parse_board_map(data: Mapping[str, Any]) -> BoardMap:
    """Validate a parsed board map: every recess once, no channel wired twice."""
    scan, mux = _table(data, "scan"), _table(data, "mux")
    mux_count = _int(mux, "count", "[mux]", 1, 64)
    channels = _int(mux, "channels", "[mux]", 16, 16)
    raw_sensors = data.get("sensors")
    if not isinstance(raw_sensors, list) or not 1 <= len(raw_sensors) <= MAX_SENSORS:
        raise BoardMapError(f"'sensors' must be a list of 1 to {MAX_SENSORS} sensors")
    sensors = tuple(_sensor(i, e, mux_count, channels) for i, e in enumerate(raw_sensors))
    seen_ids: set[str] = set()
    seen_wires: dict[tuple[int, int], str] = {}
    for s in sensors:
        if s.id in seen_ids:
            raise BoardMapError(f"sensor {s.id} appears twice")
        seen_ids.add(s.id)
        wire = (s.mux, s.channel)
        if wire in seen_wires:
            raise BoardMapError(f"sensors {seen_wires[wire]} and {s.id} are both wired to "
                                f"mux {s.mux} channel {s.channel}")
        seen_wires[wire] = s.id
    required = {f"U{n}" for n in range(1, 31)} | {f"G{g}" for g in range(1, 6)} | {"REST"}
    missing = sorted(required - seen_ids)
    if missing:
        raise BoardMapError(f"the board map lacks sensors {', '.join(missing)}")
    name = data.get("name")
    active_low = mux.get("active_low")
    if not isinstance(active_low, bool):
        raise BoardMapError("[mux] 'active_low' must be true or false")
    return BoardMap(
        name=name if isinstance(name, str) else "Catch Mag board",
        version=_int(data, "version", "the board map", 1, 1_000_000),
        sensors=sensors,
        scan_hz=_int(scan, "rate_hz", "[scan]", 50, 5000),
        debounce_ms=_int(scan, "debounce_ms", "[scan]", 0, 255),  # one byte in the hello
        settle_us=_int(scan, "settle_us", "[scan]", 0, 1000),
        mux_count=mux_count,
        mux_channels=channels,
        active_low=active_low,
        pico=_pins(data, "pico", mux_count),
        gpio=_pins(data, "gpio", mux_count),
    )


def firmware_config_source(board: BoardMap) -> str:
    """The firmware's generated copy of the board map, as MicroPython source."""
    slots = [-1] * (board.mux_channels * board.mux_count)
    for s in board.sensors:
        slots[s.channel * board.mux_count + s.mux] = s.index
    rows = [
        "    " + ", ".join(f"{v:3d}" for v in slots[c * board.mux_count:(c + 1) * board.mux_count])
        + ",  # channel " + str(c)
        for c in range(board.mux_channels)
    ]
    return "\n".join([
        '"""Board map for the firmware. Generated from hardware/boardmap.toml: do not edit.',
        "",
        "Regenerate with: python -m hardware.boardmap --firmware firmware/boardcfg.py",
        '"""',
        "",
        f"MAP_HASH = {board.map_hash!r}",
        f"SENSOR_COUNT = {len(board.sensors)}",
        f"SCAN_HZ = {board.scan_hz}",
        f"DEBOUNCE_MS = {board.debounce_ms}",
        f"SETTLE_US = {board.settle_us}",
        f"MUX_COUNT = {board.mux_count}",
        f"MUX_CHANNELS = {board.mux_channels}",
        f"ACTIVE_LOW = {board.active_low}",
        f"SELECT_PINS = {board.pico.select!r}",
        f"MUX_PINS = {board.pico.mux_out!r}",
        "",
        "# Sensor index read on (channel, mux): SLOTS[channel * MUX_COUNT + mux]; -1 = unused.",
        "SLOTS = (",
        *rows,
        ")",
        "",
    ])


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m hardware.boardmap``: check the map, or write the firmware copy."""
    parser = argparse.ArgumentParser(prog="python -m hardware.boardmap", description=__doc__)
    parser.add_argument("--map", type=Path, default=DEFAULT_PATH, help="board map TOML file")
    parser.add_argument("--firmware", type=Path, metavar="PATH",
                        help="write the generated firmware copy to PATH")
    args = parser.parse_args(argv)
    try:
        board = load_board_map(args.map)
    except (BoardMapError, OSError) as exc:
        print(f"error: {exc}")
        return 2
    if args.firmware:
        args.firmware.write_text(firmware_config_source(board), encoding="utf-8")
    print(f"{board.name}: {len(board.sensors)} sensors on {board.mux_count} multiplexers, "
          f"map hash {board.map_hash.hex()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
