"""How one table service is configured.

>>> Settings(data_dir=Path("/tmp/t"), pin="482193").port
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
    table_pin_attempts: int = 10
    """Wrong PINs the whole table takes, from every address together, before it waits;
    then one more each :attr:`table_pin_refill_seconds` (docs/security.md: the arithmetic)."""
    table_pin_refill_seconds: float = 360.0
    """One more table-wide try per this many seconds: 10 an hour."""
    token_idle_days: float = 30.0
    """A phone's sign-in ends after this many days without using it."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses of reverse proxies whose X-Forwarded-For is believed (none by default)."""
    allowed_hosts: tuple[str, ...] = ()
    """Host names phones may use besides the table's addresses, its mDNS name and
    localhost (e.g. a name the café's router gives the Pi)."""
    backup_minutes: float = 10.0
    """A backup every this many minutes while the table changes (and after each match)."""
    backups_kept: int = 10
    """Backups kept in ``backups/``; the oldest go first."""
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
        if self.table_pin_attempts < 1 or self.table_pin_refill_seconds <= 0:
            raise SettingsError("table_pin_attempts must be at least 1 and "
                                "table_pin_refill_seconds positive")
        if self.token_idle_days <= 0:
            raise SettingsError("token_idle_days must be positive")
        if self.backup_minutes <= 0 or self.backups_kept < 1:
            raise SettingsError("backup_minutes must be positive and backups_kept at least 1")

    @property
    def backup_dir(self) -> Path:
        """Where the rolling backups go (inside the data directory)."""
        return self.data_dir / "backups"

    @property
    def database(self) -> Path:
        """The SQLite file holding the table's whole history."""
        return self.data_dir / "table.sqlite3"
