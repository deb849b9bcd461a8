"""The checks ``companion doctor`` runs, one module per part of the table.

A check group takes a :class:`DoctorContext` and yields :class:`Check` results
as it goes, so a slow or interactive check shows progress:

* :mod:`.system`: Python and packages, the configuration, the data folder, the port;
* :mod:`.board`: the Catch Mag board (map, device, link, firmware, scan speed, set-up,
  and sensor by sensor with ``--interactive``);
* :mod:`.camera`: a picture, the calibration markers or tapped corners, enrolled decks.

The command itself (options, the order of the groups, the summary) is
:mod:`companion.doctor`.

>>> print(Check("python", True, "3.11.9").line())
python: ok (3.11.9)
>>> print(Check("port", False, "8000 is in use", "stop the other program").line())
port: problem: 8000 is in use
  fix: stop the other program
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from companion.config import CompanionConfig
from hardware.boardmap import BoardMap
from hardware.connect import make_source
from hardware.sources import SensorSource

SERIAL_PATTERNS = ("/dev/serial/by-id/*", "/dev/ttyACM*", "/dev/ttyUSB*")
"""Where a USB serial board shows up, most stable name first."""


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

    def not_configured(self, part: str, instead: str) -> None:
        """Note that ``part`` (``board``, ``camera``) is not used at this table."""
        self.notes.append(f"no {part} configured ([{part}] source = none): phones enter "
                          f"{instead}")


CheckGroup = Callable[[DoctorContext], Iterable[Check]]

