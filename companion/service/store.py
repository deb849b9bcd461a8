"""The table's durable history: one SQLite file, append-only.

Every change at the table (a match started, an event, an undo, a correction,
a PIN change) is one row of the ``journal``; the live table is the fold of
those rows (:mod:`companion.service.session`). A row is committed (WAL,
``synchronous=FULL``: the commit returns after the log is on disk) before the
change is acknowledged to anyone, so a power cut loses nothing that a phone
was told had happened.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d, EventStore(Path(d) / "t.db") as store:
...     rec = store.append("pin", {}, actor="host", at="2026-01-01T20:00:00Z")
...     [r.seq for r in store.records()]
[1]
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
import struct
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

JSON = dict[str, Any]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    seq   INTEGER PRIMARY KEY AUTOINCREMENT,
    at    TEXT NOT NULL,
    actor TEXT NOT NULL,
    kind  TEXT NOT NULL,
    body  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tokens (
    digest  TEXT PRIMARY KEY,
    label   TEXT NOT NULL,
    created TEXT NOT NULL,
    used    REAL NOT NULL DEFAULT 0
);
"""


class StoreError(ValueError):
    """The database file cannot be used (not a table database, damaged, a part missing,
    a read-only or full disk); the message is one plain line saying what to do."""


RESTORE_HINT = "put the last good copy back with `companion restore` (docs/raspberry-pi.md)"

MIN_FREE_BYTES = 1_000_000
"""Free space below which the table refuses to start: the first write would fail."""

_WAL_MAGIC = (0x377F0682, 0x377F0683)


def storage_problem(exc: sqlite3.Error) -> str:
    """One plain line for a storage failure while running (what a phone is told)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code == sqlite3.SQLITE_FULL:
        return ("the disk is full: this change was not saved and nothing changed; "
                "free some space on the table's SD card")
    if code is not None and code & 0xFF == sqlite3.SQLITE_READONLY:
        return ("the table's storage has become read-only: this change was not saved and "
                "nothing changed; check the SD card")
    return f"the table could not save this change ({exc}); nothing changed, try again"


def wal_path(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def mark_path(path: Path) -> Path:
    """The small file beside the database holding the last change ever committed: a
    database that ends before it has lost part of its history (a lost ``-wal``)."""
    return path.with_name(path.name + ".last-seq")


def read_mark(path: Path) -> int:
    try:
        return int(mark_path(path).read_text().strip() or 0)
    except (OSError, ValueError):
        return 0


def write_mark(path: Path, seq: int) -> None:
    mark_path(path).write_text(f"{seq:>20}\n")


def _wal_header_ok(header: bytes) -> bool:
    """SQLite's own check of a write-ahead log header: magic, version and checksum."""
    if len(header) < 32:
        return False
    magic, version = struct.unpack(">II", header[:8])
    if magic not in _WAL_MAGIC or version != 3007000:
        return False
    order = ">" if magic & 1 else "<"
    s0 = s1 = 0
    words = struct.unpack(order + "6I", header[:24])
    for i in range(0, 6, 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return (s0, s1) == struct.unpack(">II", header[24:32])


def check_data_dir(directory: Path) -> None:
    """Refuse, in one line, a data directory that cannot be written or a full disk."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / f".write-test-{os.getpid()}"
        with probe.open("wb") as file:
            file.write(b"x")
            file.flush()
            os.fsync(file.fileno())
        probe.unlink()
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise StoreError(f"the disk holding {directory} is full; free some space") from None
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise StoreError(
                f"the data directory {directory} is read-only ({exc.strerror}); the table "
                "writes every change there: mount it read-write or choose another --data-dir"
            ) from None
        raise StoreError(f"the data directory {directory} cannot be used: {exc}") from None
    stats = os.statvfs(directory)
    free = stats.f_bavail * stats.f_frsize
    if free < MIN_FREE_BYTES:
        raise StoreError(f"the disk holding {directory} is full ({free // 1000} kB free); "
                         "free some space")


def check_files(path: Path) -> None:
    """Refuse a write-ahead log without its database, or with a damaged header: SQLite
    would start on an empty (or shortened) table without a word."""
    wal = wal_path(path)
    wal_size = wal.stat().st_size if wal.exists() else 0
    if wal_size == 0:
        return
    db_size = path.stat().st_size if path.exists() else 0
    if db_size == 0:
        raise StoreError(
            f"{wal.name} is there but its database {path.name} is "
            f"{'empty' if path.exists() else 'missing'}: the table's history cannot be read "
            f"from it alone; {RESTORE_HINT}"
        )
    with wal.open("rb") as file:
        header = file.read(32)
    if not _wal_header_ok(header):
        raise StoreError(f"{wal} is damaged (its header is not SQLite's): the changes in it "
                         f"cannot be read; {RESTORE_HINT}")


def integrity_problem(db: sqlite3.Connection) -> str | None:
    """``None`` when SQLite's ``PRAGMA integrity_check`` finds the file sound."""
    rows = db.execute("PRAGMA integrity_check").fetchall()
    if rows == [("ok",)]:
        return None
    return "; ".join(str(r[0]) for r in rows[:2])[:200]


@dataclass(frozen=True)
class JournalRecord:
    """One committed change; ``seq`` is the table-wide sequence number."""

    seq: int
    at: str
    actor: str
    kind: str
    body: JSON

    def to_json(self) -> JSON:
        return {"seq": self.seq, "at": self.at, "actor": self.actor, "kind": self.kind,
                "body": self.body}


class EventStore:
    """The SQLite journal, PIN and phone tokens of one table. Use as a context manager.

    Opening checks the file (``PRAGMA integrity_check``, the write-ahead log, the last
    change known to have been committed) and refuses a damaged or shortened history
    with a :class:`StoreError` rather than serve it as the truth.
    """

    def __init__(self, path: Path, *, check: bool = True) -> None:
        self.path = path
        if check:
            check_data_dir(path.parent)
            check_files(path)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
        try:
            # Autocommit mode: every write below is its own explicit transaction.
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"{path} cannot be opened ({exc})") from exc
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            problem = integrity_problem(self._db) if check else None
            if problem is not None:
                raise StoreError(f"{path} is damaged ({problem}); {RESTORE_HINT}")
            self._db.executescript(_SCHEMA)
            self._migrate()
            last = self.last_seq()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            if getattr(exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_FULL,):
                raise StoreError(f"the disk holding {path.parent} is full; free some "
                                 "space") from None
            raise StoreError(f"{path} is not a usable table database ({exc}); "
                             f"{RESTORE_HINT}") from None
        except StoreError:
            self._db.close()
            raise
        known = read_mark(path)
        if check and known > last:
            self._db.close()
            raise StoreError(
                f"{path.name} ends at change {last} but change {known} had been saved: "
                f"part of the history is missing (a lost or damaged {wal_path(path).name}?); "
                f"{RESTORE_HINT}, or delete {mark_path(path).name} to start from what is left"
            )
        self.committed = last

    def _migrate(self) -> None:
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(tokens)")}
        if "used" not in columns:
            # Tokens from before sign-ins expired count as used now.
            self._db.execute(f"ALTER TABLE tokens ADD COLUMN used REAL NOT NULL "
                             f"DEFAULT {time.time():.0f}")

    # -- context manager ----------------------------------------------------

    def __enter__(self) -> EventStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    # -- the journal ----------------------------------------------------------

    def append(self, kind: str, body: JSON, *, actor: str, at: str) -> JournalRecord:
        """Commit one record and return it with its sequence number."""
        return self.append_many([(kind, body)], actor=actor, at=at)[0]

    def append_many(
        self, items: Sequence[tuple[str, JSON]], *, actor: str, at: str
    ) -> list[JournalRecord]:
        """Commit several records in one transaction: all of them or none."""
        records: list[JournalRecord] = []
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for kind, body in items:
                cursor = self._db.execute(
                    "INSERT INTO journal (at, actor, kind, body) VALUES (?, ?, ?, ?)",
                    (at, actor, kind, json.dumps(body, ensure_ascii=False)),
                )
                seq = cursor.lastrowid
                assert seq is not None
                records.append(JournalRecord(seq, at, actor, kind, body))
            self._db.execute("COMMIT")
        except BaseException:
            # A failed COMMIT (disk full) has rolled back already; a second ROLLBACK
            # would hide the real reason behind "no transaction is active".
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise
        self.committed = records[-1].seq
        with contextlib.suppress(OSError):  # a lower bound only: never fails a write
            write_mark(self.path, self.committed)
        return records

    def records(self, after: int = 0) -> Iterator[JournalRecord]:
        """Every record with ``seq > after``, oldest first."""
        cursor = self._db.execute(
            "SELECT seq, at, actor, kind, body FROM journal WHERE seq > ? ORDER BY seq", (after,)
        )
        for seq, at, actor, kind, body in cursor:
            try:
                parsed = json.loads(body)
            except ValueError:
                parsed = {"unreadable": body}
            if not isinstance(parsed, dict):
                parsed = {"unreadable": body}
            yield JournalRecord(seq, at, actor, kind, parsed)

    def latest(self, limit: int, before: int | None = None) -> list[JournalRecord]:
        """Up to ``limit`` records with ``seq < before``, newest first."""
        cursor = self._db.execute(
            "SELECT seq FROM journal WHERE seq < ? ORDER BY seq DESC LIMIT ?",
            (before if before is not None else 2**62, limit),
        )
        seqs = [int(row[0]) for row in cursor.fetchall()]
        if not seqs:
            return []
        wanted = set(seqs)
        return [r for r in reversed(list(self.records(after=seqs[-1] - 1))) if r.seq in wanted]

    def last_seq(self) -> int:
        row = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM journal").fetchone()
        return int(row[0])

    # -- settings kept with the table -------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self._db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def delete_meta(self, key: str) -> None:
        self._db.execute("DELETE FROM meta WHERE key = ?", (key,))

    # -- phone tokens (stored as digests, never in clear) -------------------------

    def add_token(self, digest: str, label: str, at: str, used: float) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO tokens (digest, label, created, used) VALUES (?, ?, ?, ?)",
            (digest, label, at, used),
        )

    def tokens(self) -> dict[str, tuple[str, float]]:
        """Digest -> (label, last used, epoch seconds) of every token."""
        return {d: (label, float(used)) for d, label, used in
                self._db.execute("SELECT digest, label, used FROM tokens")}

    def touch_token(self, digest: str, used: float) -> None:
        self._db.execute("UPDATE tokens SET used = ? WHERE digest = ?", (used, digest))

    def revoke_one(self, digest: str) -> None:
        self._db.execute("DELETE FROM tokens WHERE digest = ?", (digest,))

    def revoke_tokens(self, keep: str | None = None) -> None:
        """Forget every token except ``keep`` (a digest)."""
        self._db.execute("DELETE FROM tokens WHERE digest IS NOT ?", (keep,))

    # -- backups ---------------------------------------------------------------------

    def backup_to(self, target: Path) -> int:
        """Copy the whole history into ``target`` with SQLite's online backup (safe while
        the table is in use); returns the last change it holds. Another connection
        does the copy, so it may run in a worker thread."""
        return backup_file(self.path, target)


def backup_file(source: Path, target: Path) -> int:
    """An online, consistent copy of the database at ``source`` written to ``target``
    (through a temporary file, so ``target`` is whole or absent); its last change."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(partial)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")
            row = dst.execute("SELECT COALESCE(MAX(seq), 0) FROM journal").fetchone()
        finally:
            dst.close()
    finally:
        src.close()
    with partial.open("rb") as file:
        os.fsync(file.fileno())
    os.replace(partial, target)
    return int(row[0])
