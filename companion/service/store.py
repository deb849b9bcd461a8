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

import json
import sqlite3
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
    created TEXT NOT NULL
);
"""


class StoreError(ValueError):
    """The database file cannot be used (not a table database, or damaged)."""


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
    """The SQLite journal, PIN and phone tokens of one table. Use as a context manager."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        try:
            # Autocommit mode: every write below is its own explicit transaction.
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path} is not a usable table database ({exc})") from exc

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
            self._db.execute("ROLLBACK")
            raise
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

    # -- phone tokens (stored as digests, never in clear) -------------------------

    def add_token(self, digest: str, label: str, at: str) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO tokens (digest, label, created) VALUES (?, ?, ?)",
            (digest, label, at),
        )

    def tokens(self) -> dict[str, str]:
        """Digest -> label of every valid token."""
        return {d: label for d, label in self._db.execute("SELECT digest, label FROM tokens")}

    def revoke_tokens(self, keep: str | None = None) -> None:
        """Forget every token except ``keep`` (a digest)."""
        self._db.execute("DELETE FROM tokens WHERE digest IS NOT ?", (keep,))
