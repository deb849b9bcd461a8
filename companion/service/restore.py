"""``companion restore``: put a backup of the table's history back.

The files it replaces (``table.sqlite3``, its ``-wal``, ``-shm`` and ``.last-seq``) are
moved into ``<data dir>/replaced-<time>/``, never deleted, so nothing is lost by a
restore either. The table must be stopped (``companion serve`` holds the directory).
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from companion.service.backup import (
    backups,
    data_dir_parser,
    hold_data_dir,
    last_change,
    resolve_data_dir,
)
from companion.service.store import StoreError, backup_file, mark_path, wal_path, write_mark


def restore(data_dir: Path, backup: Path | None = None) -> tuple[Path, int, Path | None]:
    """Put ``backup`` (default: the newest sound one) in place of the table's database;
    the backup used, the last change it holds, and where the old files went."""
    database = data_dir / "table.sqlite3"
    if backup is None:
        sound = [(b, last_change(b)) for b in reversed(backups(data_dir / "backups"))]
        found = next(((b, seq) for b, seq in sound if seq is not None), None)
        if found is None:
            raise StoreError(f"there is no sound backup in {data_dir / 'backups'}")
        backup, seq = found
    else:
        checked = last_change(backup)
        if checked is None:
            raise StoreError(f"{backup} is not a sound table database")
        seq = checked
    with hold_data_dir(data_dir):
        old = [p for p in (database, wal_path(database), database.with_name(
            database.name + "-shm"), mark_path(database)) if p.exists()]
        aside: Path | None = None
        if old:
            aside = data_dir / f"replaced-{datetime.now(UTC):%Y%m%d-%H%M%S}"
            aside.mkdir(parents=True, exist_ok=True)
            for path in old:
                path.rename(aside / path.name)
        backup_file(backup, database)
        write_mark(database, seq)
    return backup, seq, aside


def main(argv: list[str], out: Callable[[str], None] = print) -> int:
    parser = data_dir_parser(
        "companion restore",
        "Put a backup of the table's history back (default: the newest sound one in "
        "<data dir>/backups/). The files it replaces are moved to <data dir>/replaced-<time>/. "
        "Stop the table first.")
    parser.add_argument("backup", nargs="?", type=Path, default=None,
                        help="the backup file to put back")
    args = parser.parse_args(argv)
    try:
        data_dir, _ = resolve_data_dir(args)
        used, seq, aside = restore(data_dir, args.backup)
    except (ValueError, OSError, sqlite3.Error) as exc:
        print(f"companion restore: {exc}", file=sys.stderr)
        return 2
    out(f"restored the table's history up to change {seq} from {used}")
    if aside is not None:
        out(f"the files it replaced are kept in {aside}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
