"""What the session index records for the store's writers (``write_journal``): the write a
writer began and has not finished, the snapshot generation that holds every quad the rows
describe, and the digests of the files already added. A part of ``session_index.SessionIndex``
(its ``_lock`` and ``_db``), kept apart because it serves the write journal, not the list."""

from __future__ import annotations

from typing import NamedTuple

PUBLISHED_KEY = "published"  # meta: the snapshot generation that holds every quad the rows describe


class PendingWrite(NamedTuple):
    """A write into the store that its writer began and did not finish (``begin_write``)."""

    name: str  # the file
    generation: int | None  # the snapshot to roll the store back to, or
    undo: bytes | None  # the N-Quads of the quads to take out


class WriteRecords:
    """The write journal's records in the index's tables ``pending``, ``meta`` and ``files``."""

    def pending_write(self) -> PendingWrite | None:
        """The write begun (``begin_write``) and not finished by a ``replace``: what a killed
        writer left (``write_journal.recover`` undoes it), or None."""
        found = self._query("SELECT name, generation, undo FROM pending")
        return PendingWrite(*found[0]) if found else None

    def published_generation(self) -> int | None:
        """The snapshot generation published since the last ``replace``, or None when the store
        has quads the newest snapshot lacks (written and indexed, not yet published)."""
        found = self._query("SELECT value FROM meta WHERE key = ?", (PUBLISHED_KEY,))
        return int(found[0][0]) if found else None

    def is_ingested(self, digest: str) -> bool:
        """True when a file with SHA-256 ``digest`` was added to the store before."""
        return bool(self._query("SELECT 1 FROM files WHERE digest = ?", (digest,)))

    def begin_write(self, name: str, generation: int | None = None, undo: bytes | None = None) -> None:
        """Record, before a file's quads go into the store, how to take them out again should
        the writer die before ``replace`` records the file: ``generation``, the snapshot that
        holds the store as it is now, or ``undo``, the N-Quads of the quads the write adds."""
        with self._lock, self._db:
            self._db.execute("INSERT OR REPLACE INTO pending VALUES (1, ?, ?, ?)", (name, generation, undo))

    def end_write(self) -> None:
        """Forget the pending write (once it is undone)."""
        with self._lock, self._db:
            self._db.execute("DELETE FROM pending")

    def mark_published(self, generation: int) -> None:
        """Note that snapshot ``generation`` holds every quad the rows describe."""
        with self._lock, self._db:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (PUBLISHED_KEY, str(generation)))
