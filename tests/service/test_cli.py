"""``companion serve`` as a user runs it: banner, PIN, prompt stop with phones connected."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from companion.serve import main
from tests.service.sse import SseClient
from tests.service.test_durability import free_port, serve


def test_bad_options_are_a_plain_message_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--pin", "12", "--data-dir", str(tmp_path)]) == 2
    assert "the PIN must be 4 to 8 digits" in capsys.readouterr().err
    (tmp_path / "table.sqlite3").write_bytes(b"this is not a database" * 100)
    assert main(["--data-dir", str(tmp_path)]) == 2
    assert "not a usable table database" in capsys.readouterr().err


def test_serve_prints_the_url_qr_and_pin_and_stops_promptly(tmp_path: Path) -> None:
    port = free_port()
    with serve(tmp_path, port) as process:
        phones = [SseClient(f"http://127.0.0.1:{port}/api/stream") for _ in range(2)]
        for phone in phones:
            phone.next()
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0
        assert all(phone.ended(2) for phone in phones)
        assert process.stdout is not None and process.stderr is not None
        out, err = process.stdout.read().decode(), process.stderr.read().decode()
    # prompt: the server ended the streams itself, not uvicorn's graceful timeout (the time
    # it takes is bench/bench_shutdown.py's to measure)
    assert "graceful shutdown exceeded" not in err and "Traceback" not in err, err
    assert f"http://127.0.0.1:{port}/" in out
    assert "Table PIN: 2468" in out
    assert "█" in out or "▀" in out, "a QR code drawn in the terminal"


def banner(*options: str) -> list[str]:
    """Start ``companion serve`` with these options, read its banner, stop it."""
    process = subprocess.Popen(
        [sys.executable, "-m", "companion.serve", *options],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line)
        if line.startswith("Table PIN:"):
            break
    process.send_signal(signal.SIGINT)
    process.wait(10)
    process.stdout.close()
    return lines


def test_the_pin_is_made_up_once_and_kept(tmp_path: Path) -> None:
    options = ["--host", "127.0.0.1", "--port", str(free_port()), "--data-dir", str(tmp_path),
               "--no-mdns"]
    first, second = banner(*options)[-1], banner(*options)[-1]
    made_up = first.split()[2]
    assert made_up.isdigit() and len(made_up) == 6
    # Kept only as a hash: the second start cannot show it, and does not change it.
    assert second.startswith("Table PIN: unchanged since ")
    assert made_up not in second


def test_options_override_the_configuration_file(tmp_path: Path) -> None:
    config = tmp_path / "companion.toml"
    port = free_port()
    config.write_text(f'[table]\nhost = "127.0.0.1"\nport = {port}\npin = "13579"\n'
                      f'data_dir = "{tmp_path / "data"}"\nmdns = false\n'
                      'public_host = "10.1.2.3"\n')
    lines = banner("--config", str(config))
    assert lines[0].strip().endswith(f"http://10.1.2.3:{port}/")
    assert lines[-1].startswith("Table PIN: 13579")
    assert (tmp_path / "data" / "table.sqlite3").exists()
    assert banner("--config", str(config), "--pin", "2468")[-1].startswith("Table PIN: 2468")
