"""The companion's configuration file (TOML), validated with pydantic-settings.

Every key has a default that works on a desk with no hardware (simulated board
and camera), so the file only needs what differs. Environment variables
override the file: ``TABLE_COMPANION_BOARD__SOURCE=serial`` sets
``[board] source``. ``docs/configuration.md`` lists every key.

>>> config = load_config(None)
>>> (config.table.port, config.board.source, config.camera.source)
(8000, 'sim', 'sim')
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

DEFAULT_CONFIG_PATHS = (Path("/etc/table-companion/companion.toml"),)
"""Where ``companion serve`` and ``companion doctor`` look when no ``--config`` is given."""


class ConfigError(ValueError):
    """The configuration file is unreadable or has a wrong key or value."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TableSection(_Section):
    """``[table]``: the service phones connect to."""

    host: str = Field(
        default="0.0.0.0", description="address to listen on; 0.0.0.0 is every interface"
    )
    port: int = Field(default=8000, ge=1, le=65535, description="TCP port of the dashboard")
    pin: str | None = Field(
        default=None,
        description="table PIN (4-8 digits) needed to enter or correct events; "
        "unset keeps the stored PIN (a random 6-digit one on the first start)",
    )
    data_dir: Path = Field(
        default=Path("data"),
        description="folder of the SQLite event store (the table's whole history)",
    )
    public_host: str | None = Field(
        default=None, description="address put in the QR code; unset looks up this machine's LAN IP"
    )
    mdns: bool = Field(default=True, description="announce the table on mDNS (a convenience only)")
    allowed_hosts: tuple[str, ...] = Field(
        default=(), description="host names phones may use besides the table's addresses, "
        "table-companion.local and localhost (others get 400: DNS rebinding)",
    )
    trusted_proxies: tuple[str, ...] = Field(
        default=(), description="addresses of reverse proxies whose X-Forwarded-For is "
        "believed; none by default (docs/security.md)",
    )
    token_idle_days: float = Field(
        default=30.0, gt=0, description="a phone's sign-in ends after this many days unused",
    )
    backup_minutes: float = Field(
        default=10.0, gt=0, description="a backup into <data_dir>/backups every this many "
        "minutes while the table changes (and after each match)",
    )
    backups_kept: int = Field(default=10, ge=1, description="backups kept; the oldest go first")

    @field_validator("pin")
    @classmethod
    def _pin_digits(cls, value: str | None) -> str | None:
        if value is not None and not (value.isdigit() and 4 <= len(value) <= 8):
            raise ValueError("the PIN must be 4 to 8 digits")
        return value


class BoardSection(_Section):
    """``[board]``: where the Catch Mag board's Hall sensors are read."""

    source: Literal["sim", "serial", "gpio", "none"] = Field(
        default="sim",
        description="sim: a simulated board over a pseudo-terminal; serial: the Pico over USB; "
        "gpio: multiplexers wired to the Pi's own pins; none: no board (phone entry only)",
    )
    device: str = Field(
        default="auto",
        description="serial device, best a stable /dev/serial/by-id/... path (or the udev "
        "symlink /dev/catch-mag); auto finds the first Pico",
    )
    map: Path | None = Field(
        default=None, description="board map TOML; unset uses the bundled hardware/boardmap.toml"
    )


class CameraSection(_Section):
    """``[camera]``: the overhead camera that recognizes cards."""

    source: Literal["sim", "webcam", "picamera2", "file", "none"] = Field(
        default="sim",
        description="sim: rendered frames of the cards on the table; webcam: a USB camera; "
        "picamera2: a ribbon-cable Pi camera; file: a video or a folder of images; none",
    )
    index: int = Field(default=0, ge=0, description="webcam index (0 is /dev/video0)")
    path: Path | None = Field(
        default=None, description="for source = file: the video or image folder"
    )
    width: int = Field(default=1280, ge=160, le=4096, description="requested frame width in pixels")
    height: int = Field(
        default=720, ge=120, le=4096, description="requested frame height in pixels"
    )


class CompanionConfig(BaseSettings):
    """The whole configuration: ``[table]``, ``[board]`` and ``[camera]``."""

    model_config = SettingsConfigDict(
        env_prefix="TABLE_COMPANION_", env_nested_delimiter="__", extra="forbid", frozen=True
    )

    table: TableSection = TableSection()
    board: BoardSection = BoardSection()
    camera: CameraSection = CameraSection()


def _message(error: ValidationError, where: str) -> str:
    parts = []
    for item in error.errors():
        key = ".".join(str(p) for p in item["loc"])
        if item["type"] == "extra_forbidden":
            parts.append(f"unknown key '{key}' (see docs/configuration.md for the keys)")
        else:
            got = item.get("input")
            shown = f" (got {got!r})" if not isinstance(got, dict) else ""
            parts.append(f"'{key}': {item['msg']}{shown}")
    return f"{where}: " + "; ".join(parts)


def load_config(path: Path | None, **overrides: Any) -> CompanionConfig:
    """Read and validate a configuration file (``None``: defaults and environment only).

    ``overrides`` (``table={"port": 9000}``) win over the file and the environment,
    as command-line options do.
    """
    where = str(path) if path else "configuration"
    if path is not None:
        try:
            with path.open("rb") as handle:
                tomllib.load(handle)  # a clear syntax error before pydantic sees it
        except OSError as err:
            raise ConfigError(f"cannot read {path}: {err.strerror or err}") from None
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(f"{path}: not valid TOML: {err}") from None

    class _FromFile(CompanionConfig):
        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: type[BaseSettings],
            init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
            if path is not None:
                sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
            return tuple(sources)

    try:
        loaded = _FromFile(**overrides)
    except ValidationError as err:
        raise ConfigError(_message(err, where)) from None
    return loaded


def find_config(explicit: Path | None) -> Path | None:
    """The file to read: the one given, else the first default that exists, else none."""
    if explicit is not None:
        return explicit
    return next((p for p in DEFAULT_CONFIG_PATHS if p.is_file()), None)


BOARD_SOURCES = "sim, gpio, none, auto (find the Pico) or a serial device path"
CAMERA_SOURCES = "sim, webcam[:INDEX], picamera2, none, or a video file / image folder"


def add_config_option(parser: argparse.ArgumentParser) -> None:
    """The ``--config FILE`` option every ``companion`` command that reads it takes."""
    parser.add_argument("--config", type=Path, default=None,
                        help="configuration file (default: /etc/table-companion/companion.toml "
                             "when it exists)")


def add_data_dir_option(parser: argparse.ArgumentParser) -> None:
    """The ``--data-dir DIR`` option of the commands that open the table's history."""
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="where the table's SQLite file lives (default from the "
                             "configuration: ./data)")


def describe_keys() -> str:
    """Every key with its default and meaning, as Markdown (for docs/configuration.md)."""
    lines = []
    for name, field in CompanionConfig.model_fields.items():
        section = field.annotation
        assert isinstance(section, type) and issubclass(section, BaseModel)
        lines.append(f"## [{name}]\n\n{(section.__doc__ or '').strip()}\n")
        lines.append("| key | default | meaning |\n|---|---|---|")
        for key, info in section.model_fields.items():
            default = info.default
            shown = "unset" if default is None else f"`{default}`"
            lines.append(f"| `{key}` | {shown} | {info.description or ''} |")
        lines.append("")
    return "\n".join(lines)
