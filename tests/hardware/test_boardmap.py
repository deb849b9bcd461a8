"""The board map: every recess once, wiring sane, and the firmware's copy current."""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from hardware.boardmap import (
    COLORS,
    DEFAULT_PATH,
    FIRMWARE_CONFIG_PATH,
    BoardMapError,
    firmware_config_source,
    load_board_map,
    main,
    parse_board_map,
)

BOARD = load_board_map()


def raw() -> dict[str, Any]:
    return tomllib.loads(DEFAULT_PATH.read_text(encoding="utf-8"))


def test_every_recess_of_the_catch_mag_board_has_one_sensor() -> None:
    roles = Counter(s.role for s in BOARD.sensors)
    assert roles == {"rod-space": 25, "joker-space": 5, "super-joker": 5,
                     "row-slot": 4 * 25, "home-joker": 4 * 5, "rest": 1}
    assert len(BOARD.sensors) == 156
    for station in range(1, 5):
        for color in COLORS:
            assert [s.slot for s in BOARD.row(station, color)] == [1, 2, 3, 4, 5]
        assert all(BOARD.home_joker(station, j).role == "home-joker" for j in (1, 7, 13, 19, 25))
    assert [BOARD.super_joker(j).id for j in (1, 7, 13, 19, 25)] == ["G1", "G2", "G3", "G4", "G5"]


def test_indices_follow_the_file_and_wires_are_unique() -> None:
    assert [s.index for s in BOARD.sensors] == list(range(156))
    assert len({(s.mux, s.channel) for s in BOARD.sensors}) == 156
    assert all(0 <= s.mux < BOARD.mux_count and 0 <= s.channel < 16 for s in BOARD.sensors)


def test_the_game_starts_with_35_magnets_and_the_catch_mag_on_its_rest() -> None:
    layout = BOARD.initial_layout()
    assert len(layout) == 25 + 5 + 5 + 1
    assert "REST" in layout and not any(s.startswith("S") for s in layout)


def test_the_firmware_copy_is_generated_from_the_current_map() -> None:
    assert FIRMWARE_CONFIG_PATH.read_text(encoding="utf-8") == firmware_config_source(BOARD), (
        "firmware/boardcfg.py is stale: run python -m hardware.boardmap --firmware "
        "firmware/boardcfg.py"
    )


def test_the_map_hash_changes_when_the_wiring_does() -> None:
    data = raw()
    data["sensors"][0]["channel"], data["sensors"][1]["channel"] = 1, 0
    assert parse_board_map(data).map_hash != BOARD.map_hash
    assert parse_board_map(raw()).map_hash == BOARD.map_hash


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["sensors"].append(dict(d["sensors"][0])), "appears twice"),
    (lambda d: d["sensors"][1].update(mux=0, channel=0), "both wired to mux 0 channel 0"),
    (lambda d: d["sensors"].pop(35), "lacks sensors REST"),
    (lambda d: d["sensors"][1].update(id="U3"), "must be named 'U2'"),
    (lambda d: d["sensors"][40].update(color="purple"), "'color' must be one of white"),
    (lambda d: d["sensors"][0].update(mux=11), "'mux' must be a whole number from 0 to 10"),
    (lambda d: d["gpio"].update(select=[5, 6, 13]), "'select' must list the 4"),
    (lambda d: d["pico"].update(mux_out=[2] * 11), "uses a GPIO number twice"),
    (lambda d: d["scan"].update(rate_hz="fast"), "'rate_hz' must be a whole number"),
])
def test_a_broken_map_is_refused_with_a_plain_message(edit: Any, message: str) -> None:
    data = raw()
    edit(data)
    with pytest.raises(BoardMapError, match=message):
        parse_board_map(data)


def test_a_file_that_is_not_toml_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "map.toml"
    bad.write_text("sensors = [", encoding="utf-8")
    with pytest.raises(BoardMapError, match="not valid TOML"):
        load_board_map(bad)


def test_the_command_line_writes_the_firmware_copy(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "boardcfg.py"
    assert main(["--firmware", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == firmware_config_source(BOARD)
    assert "156 sensors" in capsys.readouterr().out
    assert main(["--map", str(tmp_path / "missing.toml")]) == 2
