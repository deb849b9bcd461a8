"""How one table service is configured.

>>> Settings(data_dir=Path("/tmp/t"), pin="4821").port
8000
>>> Settings(data_dir=Path("/tmp/t"), pin="12")
Traceback (most recent call last):
...
companion.service.settings.SettingsError: the PIN must be 4 to 8 digits, got '12'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_PIN = re.compile(r"[0-9]{4,8}")


class SettingsError(ValueError):
    """A setting was out of range; the message says what was expected."""


def check_pin(pin: object) -> str:
    """A table PIN: 4 to 8 digits, so it is quick to type on a phone.

    >>> check_pin("0042")
    '0042'
    """
    if not isinstance(pin, str) or not _PIN.fullmatch(pin):
        shown = repr(pin) if isinstance(pin, str) else type(pin).__name__
        raise SettingsError(f"the PIN must be 4 to 8 digits, got {shown}")
    return pin


@dataclass(frozen=True)
class Settings:
    """Everything ``create_app`` needs; the CLI fills it from its options.

    ``pin`` ``None`` keeps the PIN stored in the database (a new random one on
    the first start). ``public_host`` is the address phones use (put in the QR
    code); ``None`` means the LAN address is looked up at start.
    """

    data_dir: Path
    host: str = "0.0.0.0"
    port: int = 8000
    pin: str | None = None
    public_host: str | None = None
    mdns: bool = True
    pin_attempts: int = 5
    """Wrong PINs allowed from one address before it must wait."""
    pin_lockout_seconds: float = 30.0
    """The first wait; it doubles with every further wrong PIN."""
    subscriber_queue: int = 256
    """Live updates held for one slow phone before it is dropped (it then reconnects)."""

    def __post_init__(self) -> None:
        if self.pin is not None:
            check_pin(self.pin)
        if not 0 <= self.port <= 65535:
            raise SettingsError(f"the port must be from 0 to 65535, got {self.port}")
        if self.pin_attempts < 1:
            raise SettingsError(f"pin_attempts must be at least 1, got {self.pin_attempts}")
        if self.pin_lockout_seconds < 0:
            raise SettingsError("pin_lockout_seconds must not be negative")
        if self.subscriber_queue < 1:
            raise SettingsError("subscriber_queue must be at least 1")

    @property
    def database(self) -> Path:
        """The SQLite file holding the table's whole history."""
        return self.data_dir / "table.sqlite3"
