"""The configuration file: defaults that work, plain errors, every key documented."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.config import ConfigError, describe_keys, find_config, load_config

DOCS = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "companion.toml"
    path.write_text(text)
    return path


def test_defaults_run_on_simulated_hardware() -> None:
    config = load_config(None)
    assert config.board.source == "sim" and config.camera.source == "sim"
    assert config.table.port == 8000 and config.table.pin is None


def test_file_values_environment_and_overrides_stack(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, '[table]\npin = "0042"\nport = 8100\n[board]\nsource = "serial"\n')
    monkeypatch.setenv("TABLE_COMPANION_BOARD__DEVICE", "/dev/catch-mag")
    config = load_config(path, table={"port": 9000})
    assert config.table.pin == "0042"  # from the file, kept beside the override
    assert config.table.port == 9000  # the command line wins
    assert config.board.source == "serial"
    assert config.board.device == "/dev/catch-mag"  # from the environment


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[board]\nsource = "usb"\n', ["board.source", "'sim', 'serial', 'gpio' or 'none'", "usb"]),
        ('[table]\npin = "12"\n', ["table.pin", "4 to 8 digits"]),
        ("[table]\nport = 70000\n", ["table.port", "65535"]),
        ("[camera]\nzoom = 2\n", ["unknown key 'camera.zoom'"]),
        ("[table\nport = 1\n", ["not valid TOML"]),
    ],
)
def test_bad_files_say_what_and_where(tmp_path: Path, text: str, words: list[str]) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert message.startswith(str(path))
    for word in words:
        assert word in message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "none.toml")


def test_find_config_prefers_the_explicit_file(tmp_path: Path) -> None:
    assert find_config(tmp_path / "x.toml") == tmp_path / "x.toml"


def test_every_key_is_documented() -> None:
    assert describe_keys() in DOCS.read_text()


def test_the_security_and_backup_keys_reach_the_service(tmp_path: Path) -> None:
    from companion.serve import settings_from

    path = tmp_path / "companion.toml"
    path.write_text('[table]\nallowed_hosts = ["scores.cafe"]\ntrusted_proxies = ["10.0.0.1"]\n'
                    "token_idle_days = 7\nbackup_minutes = 5\nbackups_kept = 3\n")
    settings = settings_from(load_config(path))
    assert settings.allowed_hosts == ("scores.cafe",)
    assert settings.trusted_proxies == ("10.0.0.1",)
    assert (settings.token_idle_days, settings.backup_minutes, settings.backups_kept) == (7, 5, 3)
    path.write_text("[table]\nbackups_kept = 0\n")
    with pytest.raises(ConfigError, match="backups_kept"):
        load_config(path)
