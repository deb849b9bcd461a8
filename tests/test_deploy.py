"""The Raspberry Pi install: the script stages every file, the unit is valid systemd."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from companion.config import load_config

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
UNIT = DEPLOY / "table-companion.service"


def stage(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(DEPLOY / "install.sh"), "--root", str(root), "--no-start"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_staged_install_places_every_file_and_keeps_a_config(tmp_path: Path) -> None:
    result = stage(tmp_path)
    assert result.returncode == 0, result.stderr
    unit = tmp_path / "etc/systemd/system/table-companion.service"
    assert unit.read_text() == UNIT.read_text()
    assert (tmp_path / "etc/udev/rules.d/99-table-companion.rules").is_file()
    assert (tmp_path / "opt/table-companion/companion/cli.py").is_file()
    assert not (tmp_path / "opt/table-companion/.git").exists()
    config = tmp_path / "etc/table-companion/companion.toml"
    # The shipped configuration is valid as it stands.
    assert load_config(config).board.source == "serial"
    # The system steps are printed, not run, in a staged install.
    assert "would run: systemctl enable table-companion.service" in result.stdout
    # A second run updates the code but keeps the user's configuration.
    config.write_text("[table]\nport = 8123\n")
    assert stage(tmp_path).returncode == 0
    assert config.read_text() == "[table]\nport = 8123\n"


def test_unknown_option_is_a_plain_error(tmp_path: Path) -> None:
    result = subprocess.run(
        ["bash", str(DEPLOY / "install.sh"), "--frobnicate"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 2 and "unknown option --frobnicate" in result.stderr


def test_unit_runs_unprivileged_and_restarts() -> None:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(UNIT)
    service = unit["Service"]
    assert service["User"] == "companion"
    assert set(service["SupplementaryGroups"].split()) == {"dialout", "gpio", "video"}
    assert service["Restart"] == "on-failure"
    assert "pkill" not in UNIT.read_text()
    assert service["ExecStart"].split()[1:3] == ["serve", "--config"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze missing")
def test_systemd_accepts_the_unit(tmp_path: Path) -> None:
    # No systemd runs here: stand-in targets let `verify` judge the unit file itself,
    # and ExecStart points at a binary that exists on this machine.
    for target in (
        "sysinit",
        "basic",
        "network-online",
        "multi-user",
        "shutdown",
        "sockets",
        "paths",
        "timers",
        "slices",
        "local-fs",
        "swap",
    ):
        (tmp_path / f"{target}.target").write_text(f"[Unit]\nDescription={target}\n")
    text = UNIT.read_text().replace(
        "ExecStart=/opt/table-companion/.venv/bin/companion", "ExecStart=/bin/true"
    )
    unit = tmp_path / "table-companion.service"
    unit.write_text(text)
    result = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "SYSTEMD_UNIT_PATH": str(tmp_path)},
    )
    assert result.returncode == 0 and result.stderr == "", result.stderr


def fake_apt_cache(folder: Path, offered: tuple[str, ...]) -> dict[str, str]:
    """An environment whose apt-cache offers only ``offered`` (the one thing that differs
    between Raspberry Pi OS and plain Debian here); everything else is the real script."""
    folder.mkdir()
    cases = "".join(f'  {name}) echo "  Candidate: 1.0-1";;\n' for name in offered)
    script = folder / "apt-cache"
    script.write_text(f'#!/bin/sh\necho "$2:"\ncase "$2" in\n{cases}'
                      '  *) echo "  Candidate: (none)";;\nesac\n')
    script.chmod(0o755)
    return {**os.environ, "PATH": f"{folder}:{os.environ['PATH']}"}


def stage_with(root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(DEPLOY / "install.sh"), "--root", str(root), "--no-start"],
        capture_output=True, text=True, timeout=120, check=False, env=env,
    )


def test_raspberry_pi_os_gets_lgpio_and_picamera2_from_its_repository(tmp_path: Path) -> None:
    env = fake_apt_cache(tmp_path / "bin", ("python3-lgpio", "python3-picamera2"))
    result = stage_with(tmp_path / "root", env)
    assert result.returncode == 0, result.stderr
    apt = next(line for line in result.stdout.splitlines() if "apt-get install" in line)
    assert {"python3-lgpio", "python3-picamera2", "python3-numpy"} <= set(apt.split())
    pip = next(line for line in result.stdout.splitlines() if "pip install --quiet -c" in line)
    # the runtime only, no PyPI lgpio, and the system's versions kept
    assert pip.endswith("-c /opt/table-companion/system-constraints.txt -e /opt/table-companion")
    assert "note: python3-picamera2" not in result.stdout


def test_plain_debian_gets_lgpio_from_pypi_and_a_note_about_the_camera(tmp_path: Path) -> None:
    env = fake_apt_cache(tmp_path / "bin", ())
    result = stage_with(tmp_path / "root", env)
    assert result.returncode == 0, result.stderr
    apt = next(line for line in result.stdout.splitlines() if "apt-get install" in line)
    assert "python3-lgpio" not in apt and "python3-picamera2" not in apt
    assert "python3-lgpio is not in this system's package sources: lgpio comes from PyPI" in (
        result.stdout)
    assert "-e /opt/table-companion[pi]" in result.stdout
    assert "the Pi camera (ribbon cable) needs Raspberry Pi OS" in result.stdout
    assert 'A USB webcam works here: [camera] source = "webcam"' in result.stdout


def test_the_install_pins_the_system_versions_and_checks_them(tmp_path: Path) -> None:
    result = stage(tmp_path)
    assert result.returncode == 0, result.stderr
    pins = (tmp_path / "opt/table-companion/system-constraints.txt").read_text()
    assert pins.startswith("# The system's own versions")
    assert "--check /opt/table-companion/system-constraints.txt" in result.stdout
    assert "[dev]" not in result.stdout


def make_dry_run(*targets: str) -> str:
    """What make would run for ``targets`` from nothing (-B: as on a clean machine)."""
    result = subprocess.run(
        ["make", "-n", "-B", *targets], cwd=DEPLOY.parent, capture_output=True, text=True,
        timeout=60, check=True,
    )
    return result.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make missing")
def test_make_run_installs_the_runtime_and_make_test_the_dev_extras() -> None:
    run = make_dry_run("run")
    assert "pip install --quiet -e .\n" in run and "[dev]" not in run
    assert "pip install --quiet -e '.[dev]'" in make_dry_run("pytest")


@pytest.mark.skipif(shutil.which("make") is None, reason="make missing")
def test_make_flash_installs_mpremote_alone_in_its_own_venv() -> None:
    flash = make_dry_run("flash", "PORT=/dev/ttyACM0")
    installs = [line for line in flash.splitlines() if "pip install" in line]
    assert len(installs) == 1 and installs[0].startswith(".venv-flash/bin/python -m pip")
    assert '["optional-dependencies"]["board"]' in installs[0]
    project = tomllib.loads((DEPLOY.parent / "pyproject.toml").read_text())["project"]
    assert [r.split(">")[0] for r in project["optional-dependencies"]["board"]] == ["mpremote"]
    assert ".venv/" not in flash.replace(".venv-flash/", "")
