"""Rolling backups of the table's history, and ``companion backup``.

While the table runs, a copy of the whole database goes into ``<data dir>/backups/``
after each match and every few minutes while it changes; the last few are kept.
Each copy is made with SQLite's online backup API, so it is consistent even while
phones keep entering events, and it is one self-contained file (no ``-wal``).

``companion backup`` makes one now (the table may be running); ``companion restore``
(:mod:`companion.service.restore`) puts one back.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import logging
import sqlite3
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from companion.service.store import EventStore, StoreError, backup_file

log = logging.getLogger(__name__)

PATTERN = "table-*.sqlite3"


def backup_name(now: datetime | None = None) -> str:
    """``table-20261201-223000-123.sqlite3``: names sort in time order."""
    now = now or datetime.now(UTC)
    return f"table-{now:%Y%m%d-%H%M%S}-{now.microsecond // 1000:03d}.sqlite3"


def make_backup(database: Path, directory: Path, keep: int) -> tuple[Path, int]:
    """One backup of ``database`` into ``directory``, the oldest beyond ``keep`` removed;
    the file and the last change it holds."""
    target = directory / backup_name()
    seq = backup_file(database, target)
    for old in backups(directory)[:-keep]:
        with contextlib.suppress(OSError):
            old.unlink()
    return target, seq


def backups(directory: Path) -> list[Path]:
    """The backups in ``directory``, oldest first."""
    return sorted(directory.glob(PATTERN)) if directory.is_dir() else []


def last_change(backup: Path) -> int | None:
    """The last change a backup holds, or ``None`` when it is not a sound table database."""
    try:
        db = sqlite3.connect(f"file:{backup}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        if db.execute("PRAGMA integrity_check").fetchall() != [("ok",)]:
            return None
        return int(db.execute("SELECT COALESCE(MAX(seq), 0) FROM journal").fetchone()[0])
    except sqlite3.Error:
        return None
    finally:
        db.close()


class BackupSchedule:
    """Backups while the table runs: :meth:`soon` (after a match) and every ``interval``
    seconds when something changed. A failed backup is logged, never raised: the
    table goes on."""

    def __init__(self, store: EventStore, directory: Path, keep: int, interval: float) -> None:
        self.store = store
        self.directory = directory
        self.keep = keep
        self.interval = interval
        self.backed_up = -1
        self.made = 0
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def soon(self) -> None:
        self._wake.set()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.interval)
            self._wake.clear()
            if self.store.committed != self.backed_up:
                await self.backup_now()

    async def backup_now(self) -> Path | None:
        committed = self.store.committed
        try:
            path, _ = await asyncio.to_thread(make_backup, self.store.path, self.directory,
                                              self.keep)
        except (OSError, sqlite3.Error) as exc:
            log.warning("the table's backup into %s failed: %s", self.directory, exc)
            return None
        self.backed_up = committed
        self.made += 1
        return path


# -- one table at a time ----------------------------------------------------------------


class TableRunning(StoreError):
    pass


@contextlib.contextmanager
def hold_data_dir(directory: Path) -> Iterator[None]:
    """Held by ``companion serve`` while it runs, so ``companion restore`` cannot swap
    the database under it (and two tables never share one directory)."""
    directory.mkdir(parents=True, exist_ok=True)
    lock: IO[bytes] = (directory / ".lock").open("a+b")
    try:
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise TableRunning(
                f"a table is running on {directory}; stop it first "
                "(sudo systemctl stop table-companion)"
            ) from None
        yield
    finally:
        lock.close()


# -- the commands ----------------------------------------------------------------------------


def data_dir_parser(prog: str, description: str) -> argparse.ArgumentParser:
    from companion.config import add_config_option, add_data_dir_option

    parser = argparse.ArgumentParser(prog=prog, description=description)
    add_config_option(parser)
    add_data_dir_option(parser)
    return parser


def resolve_data_dir(args: argparse.Namespace) -> tuple[Path, int]:
    """The data directory and the number of backups kept, from the options and the
    configuration file, as ``companion serve`` would find them."""
    from companion.config import find_config, load_config

    table = {"data_dir": args.data_dir} if args.data_dir is not None else {}
    config = load_config(find_config(args.config), table=table)
    return config.table.data_dir, config.table.backups_kept


def main(argv: list[str], out: Callable[[str], None] = print) -> int:
    parser = data_dir_parser(
        "companion backup",
        "Copy the table's whole history now into <data dir>/backups/ (safe while the table "
        "runs). Copy that folder, or the whole data directory, to keep it elsewhere.")
    parser.add_argument("--to", type=Path, default=None,
                        help="write the backup to this file instead")
    args = parser.parse_args(argv)
    try:
        data_dir, keep = resolve_data_dir(args)
        database = data_dir / "table.sqlite3"
        if not database.exists():
            raise StoreError(f"there is no table history at {database}")
        if args.to is not None:
            target, seq = args.to, backup_file(database, args.to)
        else:
            target, seq = make_backup(database, data_dir / "backups", keep)
    except (ValueError, OSError, sqlite3.Error) as exc:
        print(f"companion backup: {exc}", file=sys.stderr)
        return 2
    out(f"backed up the table's history (up to change {seq}) to {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

