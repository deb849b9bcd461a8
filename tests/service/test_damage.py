"""A table that survives damage (issue 12): every damaged-file case ends in one plain
line and a restore, never in an empty or shortened table served as the truth."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from companion import cli
from companion.serve import main as serve_main
from companion.service import Settings, create_app
from companion.service.backup import backups, hold_data_dir, make_backup
from companion.service.restore import restore
from companion.service.store import EventStore, StoreError, mark_path, wal_path
from tests.playouts import random_match
from tests.service.conftest import PIN, login

ROWS = 62
MATCH = {"game": "catch-mag", "players": ["Ann", "Ben"]}


def history(directory: Path, rows: int = ROWS) -> Path:
    """A data directory as a power cut leaves it: ``rows`` changes, most of them only in
    the write-ahead log (the store was never closed, so never checkpointed)."""
    live = directory.parent / (directory.name + "-live")
    store = EventStore(live / "table.sqlite3")
    for n in range(rows):
        store.append("pin", {"n": n, "pad": "x" * 300}, actor="t", at="t")
    directory.mkdir(parents=True)
    for name in ("table.sqlite3", "table.sqlite3-wal", "table.sqlite3.last-seq"):
        shutil.copy(live / name, directory / name)
    store.close()
    return directory


def checkpointed(directory: Path) -> Path:
    """A data directory whose every change is in the database file itself."""
    store = EventStore(directory / "table.sqlite3")
    for n in range(ROWS):
        store.append("pin", {"n": n, "pad": "x" * 300}, actor="t", at="t")
    store.close()
    return directory


def refusal(directory: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert serve_main(["--data-dir", str(directory), "--no-mdns", "--host", "127.0.0.1",
                       "--port", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err
    assert "Traceback" not in err
    return err


def rows(directory: Path) -> int:
    with EventStore(directory / "table.sqlite3") as store:
        return store.last_seq()


def test_a_crashed_table_with_its_wal_loads_whole(tmp_path: Path) -> None:
    assert rows(history(tmp_path / "d")) == ROWS


def test_a_database_cut_in_half_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = checkpointed(tmp_path / "d")
    database = directory / "table.sqlite3"
    database.write_bytes(database.read_bytes()[: database.stat().st_size // 2])
    err = refusal(directory, capsys)
    assert "companion restore" in err


def test_a_page_overwritten_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = checkpointed(tmp_path / "d")
    database = directory / "table.sqlite3"
    data = bytearray(database.read_bytes())
    data[4096 * 3: 4096 * 4] = b"\x5a" * 4096
    database.write_bytes(bytes(data))
    err = refusal(directory, capsys)
    assert "damaged" in err or "not a usable" in err


@pytest.mark.parametrize("how", ["empty", "deleted"])
def test_a_wal_without_its_database_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    directory = history(tmp_path / "d")
    database = directory / "table.sqlite3"
    if how == "empty":
        database.write_bytes(b"")
    else:
        database.unlink()
    err = refusal(directory, capsys)
    assert "table.sqlite3-wal is there but its database" in err
    assert not database.exists() or database.stat().st_size == 0, "no new table made up"


def test_a_lost_wal_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    directory = history(tmp_path / "d")
    wal_path(directory / "table.sqlite3").unlink()
    err = refusal(directory, capsys)
    assert "had been saved: part of the history is missing" in err
    assert f"change {ROWS}" in err


def test_a_damaged_wal_header_is_refused(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    directory = history(tmp_path / "d")
    wal = wal_path(directory / "table.sqlite3")
    data = bytearray(wal.read_bytes())
    data[10] ^= 0xFF
    wal.write_bytes(bytes(data))
    assert "is damaged (its header is not SQLite's)" in refusal(directory, capsys)


def test_a_wal_cut_in_half_is_refused(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    directory = history(tmp_path / "d")
    wal = wal_path(directory / "table.sqlite3")
    wal.write_bytes(wal.read_bytes()[: wal.stat().st_size // 2])
    assert "part of the history is missing" in refusal(directory, capsys)


def test_the_refusal_is_one_line_from_the_real_command(tmp_path: Path) -> None:
    directory = history(tmp_path / "d")
    wal_path(directory / "table.sqlite3").unlink()
    done = subprocess.run([sys.executable, "-m", "companion.cli", "serve", "--data-dir",
                           str(directory), "--no-mdns"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


# -- backups and restore -----------------------------------------------------------------


def test_restore_puts_the_newest_sound_backup_back_and_keeps_the_damaged_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = history(tmp_path / "d")
    make_backup(directory / "table.sqlite3", directory / "backups", keep=3)
    (directory / "backups" / "table-99999999-999999-999.sqlite3").write_bytes(b"junk" * 100)
    wal_path(directory / "table.sqlite3").unlink()
    refusal(directory, capsys)
    assert cli.main(["restore", "--data-dir", str(directory)]) == 0
    out = capsys.readouterr().out
    assert f"up to change {ROWS}" in out
    assert rows(directory) == ROWS
    kept = list(directory.glob("replaced-*/table.sqlite3"))
    assert len(kept) == 1
    with EventStore(directory / "table.sqlite3"):  # starts again: the checks pass
        pass


def test_restore_is_refused_while_the_table_runs(tmp_path: Path) -> None:
    directory = checkpointed(tmp_path / "d")
    make_backup(directory / "table.sqlite3", directory / "backups", keep=3)
    with hold_data_dir(directory), pytest.raises(StoreError, match="stop it first"):
        restore(directory)


def test_companion_backup_copies_a_running_table(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    directory = history(tmp_path / "d")
    live = tmp_path / "d-live" / "table.sqlite3"
    store = EventStore(live)  # open and writing while the backup is taken
    store.append("pin", {}, actor="t", at="t")
    assert cli.main(["backup", "--data-dir", str(live.parent)]) == 0
    assert f"up to change {ROWS + 1}" in capsys.readouterr().out
    store.close()
    target = tmp_path / "elsewhere.sqlite3"
    assert cli.main(["backup", "--data-dir", str(directory), "--to", str(target)]) == 0
    with sqlite3.connect(target) as db:
        assert db.execute("SELECT COUNT(*) FROM journal").fetchone()[0] == ROWS


@pytest.fixture
def quick_backups(settings: Settings) -> Iterator[tuple[TestClient, Settings]]:
    fast = replace(settings, backup_minutes=0.005, backups_kept=2)
    with TestClient(create_app(fast)) as client:
        yield client, fast


def wait_for(condition: object, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return True
        time.sleep(0.05)
    return False


def test_backups_roll_while_the_table_changes(quick_backups: tuple[TestClient, Settings]
                                              ) -> None:
    client, settings = quick_backups
    player = login(client)
    schedule = client.app.state.table.after_match.__self__  # type: ignore[attr-defined]
    for _ in range(4):
        made = schedule.made
        assert client.post("/api/matches", json=MATCH, headers=player).status_code == 201
        assert wait_for(lambda made=made: schedule.made > made), "a backup after each change"
    assert schedule.made >= 4
    assert len(backups(settings.backup_dir)) == 2, "only the last two are kept"
    newest = backups(settings.backup_dir)[-1]
    with sqlite3.connect(newest) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_a_backup_follows_the_end_of_a_match(settings: Settings) -> None:
    match, _ = random_match("cant-catch-harry", 3)
    log = match.log()
    slow = replace(settings, backup_minutes=600)
    with TestClient(create_app(slow)) as client:
        player = login(client)
        setup = {k: v for k, v in log[0].items() if k != "type"}
        assert client.post("/api/matches", json={"game": setup.pop("game"),
                                                 "players": setup.pop("players"),
                                                 "options": setup},
                           headers=player).status_code == 201
        for event in log[1:-1]:
            client.post("/api/events", json={"event": event}, headers=player)
        assert backups(slow.backup_dir) == []
        client.post("/api/events", json={"event": log[-1]}, headers=player)
        assert wait_for(lambda: len(backups(slow.backup_dir)) == 1)


# -- read-only directory, full disk ------------------------------------------------------


def test_a_disk_that_fills_while_running_says_so(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        player = login(client)
        db = client.app.state.table.store._db  # type: ignore[attr-defined]
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "disk full"
        for _ in range(40):
            answer = client.post("/api/matches", json={**MATCH, "options": {
                "note": "x" * 200}}, headers=player)
            if answer.status_code != 201:
                break
        assert answer.status_code == 503
        assert answer.json()["detail"].startswith("the disk is full")
        assert "no transaction" not in answer.json()["detail"]


def unshare_available() -> bool:
    if shutil.which("unshare") is None:
        return False
    try:
        return subprocess.run(["unshare", "-rm", "true"], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


needs_unshare = pytest.mark.skipif(not unshare_available(),
                                   reason="needs unprivileged mount namespaces (unshare -rm)")


def serve_in_namespace(script: str, directory: Path) -> subprocess.CompletedProcess[str]:
    """Run ``script`` (shell) in a private mount namespace; $D is ``directory``, $SERVE
    starts ``companion serve`` on it (so a read-only or full mount is real, even for root)."""
    serve = (f"{sys.executable} -m companion.cli serve --data-dir {directory} --no-mdns "
             "--host 127.0.0.1 --port 1")
    return subprocess.run(["unshare", "-rm", "sh", "-c", script],
                          env={"D": str(directory), "SERVE": serve, "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=60)


@needs_unshare
def test_a_read_only_data_directory_stops_the_start_in_one_line(tmp_path: Path) -> None:
    directory = checkpointed(tmp_path / "d")
    done = serve_in_namespace('mount --bind "$D" "$D" && mount -o remount,ro,bind "$D" "$D" '
                              "&& $SERVE", directory)
    assert done.returncode == 2, done.stderr
    assert "is read-only" in done.stderr and done.stderr.count("\n") == 1


@needs_unshare
def test_a_full_disk_stops_the_start_in_one_line(tmp_path: Path) -> None:
    directory = tmp_path / "d"
    directory.mkdir()
    done = serve_in_namespace('mount -t tmpfs -o size=256k tmpfs "$D" && '
                              'dd if=/dev/zero of="$D/fill" bs=4k 2>/dev/null; $SERVE',
                              directory)
    assert done.returncode == 2, done.stderr
    assert "is full" in done.stderr and done.stderr.count("\n") == 1


def test_the_last_change_mark_is_kept_beside_the_database(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "table.sqlite3")
    store.append("pin", {}, actor="t", at="t")
    store.append("pin", {}, actor="t", at="t")
    assert int(mark_path(tmp_path / "table.sqlite3").read_text()) == 2
    store.close()
    assert PIN  # the fixtures' PIN module is shared with these tests


@needs_unshare
def test_a_disk_that_fills_under_the_running_table_is_a_plain_503(tmp_path: Path) -> None:
    import os
    import signal

    import httpx

    from tests.service.test_durability import free_port

    directory, flag = tmp_path / "d", tmp_path / "fill-now"
    directory.mkdir()
    port = free_port()
    script = (f'mount -t tmpfs -o size=3m tmpfs "$D" && ({sys.executable} -m companion.cli '
              f"serve --data-dir {directory} --no-mdns --host 127.0.0.1 --port {port} "
              f"--pin {PIN} --board none --camera none & "
              f'while [ ! -e {flag} ]; do sleep 0.05; done; '
              f'dd if=/dev/zero of="$D/fill" bs=4k 2>/dev/null; touch {flag}.done; wait)')
    process = subprocess.Popen(["unshare", "-rm", "sh", "-c", script],
                               env={"D": str(directory), "PATH": "/usr/bin:/bin"},
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        assert wait_for(lambda: _answers(url), 30), "the server did not start"
        with httpx.Client(base_url=url) as client:
            player = login(client)
            assert client.post("/api/matches", json=MATCH, headers=player).status_code == 201
            flag.touch()
            assert wait_for(lambda: Path(f"{flag}.done").exists(), 10)
            answers = [client.post("/api/matches", json=MATCH, headers=player)
                       for _ in range(20)]
            full = [a for a in answers if a.status_code != 201]
            assert full, "20 new matches fitted on a full disk?"
            assert all(a.status_code == 503 for a in full)
            assert full[0].json()["detail"].startswith("the disk is full")
            assert client.get("/api/state").status_code == 200, "still serving"
    finally:
        os.killpg(process.pid, signal.SIGINT)
        process.wait(15)
        stderr = process.stderr.read().decode() if process.stderr else ""
        if process.stderr:
            process.stderr.close()
    assert "Traceback" not in stderr


def _answers(url: str) -> bool:
    import httpx

    try:
        return httpx.get(url + "/api/state", timeout=1).is_success
    except httpx.HTTPError:
        return False
