"""How many indexed sessions no top-level session reaches: sub-sessions whose chain of parents
ends at a session that is not indexed, or loops. The calls of the top-level sessions are theirs
and those of every session below them (docs/reading-traces.md, "Totals"); when every session is reached they
are the calls of every session, which the index keeps counted (``index_aggregates``), so the
statistics' default view reads no row.

A trigger cannot keep this count (SQLite runs no recursive query in one), so the index's writer
keeps it in ``meta`` (``UNREACHED_KEY``) inside its transaction (``Reach``): only the sessions a
write can change are looked at, the rows written and dropped and the sessions below them, each
walked up to its top-level session; a first write into an empty index, a large one, or an index
without the count counts every session once (``count_all``: one recursive query down from the
top-level rows, about 0.2 s of CPU at 100,000 sessions).

A session is reached when it is top-level (``top`` 1) or its parent session is reached.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence

UNREACHED_KEY = "sessions_unreached"
_LOOKED_AT = 5000  # the most sessions a write walks up before every session is counted instead
_CHUNK = 500  # roots a query, under SQLite's limit of bound parameters


def count_all(db: sqlite3.Connection) -> int:
    """The sessions of the index no top-level session reaches, every session counted."""
    return db.execute(
        "WITH RECURSIVE reached(root) AS (SELECT root FROM sessions WHERE top = 1 UNION "
        "SELECT s.root FROM sessions s JOIN reached r ON s.parent = r.root) "
        "SELECT (SELECT COUNT(*) FROM sessions) - (SELECT COUNT(*) FROM reached)").fetchone()[0]


def unreached(query: Callable[..., list[tuple]]) -> int | None:
    """How many sessions no top-level row reaches, as the last write counted them; None in an
    index written before the count was kept (``query``: the index's ``_query``)."""
    found = query("SELECT value FROM meta WHERE key = ?", (UNREACHED_KEY,))
    return int(found[0][0]) if found else None


def note(db: sqlite3.Connection, count: int) -> None:
    """Keep ``count`` as the index's unreached sessions (inside the writer's transaction)."""
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (UNREACHED_KEY, str(count)))


class Reach:
    """The unreached count kept true across one write of ``SessionIndex``'s rows, inside its
    transaction: made before the rows of ``drop`` are deleted, ``done(written)`` after the rows
    of ``written`` (roots) are in. The sessions whose state a write can change are the rows
    dropped and written and those below them; any other session's chain of parents holds no row
    the write touched."""

    def __init__(self, db: sqlite3.Connection, drop: Sequence[str]):
        self._db = db
        kept = unreached(lambda sql, params=(): db.execute(sql, params).fetchall())
        empty = not db.execute("SELECT 1 FROM sessions LIMIT 1").fetchone()
        self._before: set[str] | None = None
        if kept is not None and not empty and len(drop) <= _LOOKED_AT:
            before = set(_existing(db, drop)) | _below(db, drop)
            if len(before) <= _LOOKED_AT:
                self._kept, self._before = kept, before
                self._unreached_before = len(before) - _reached(db, before)

    def done(self, written: Sequence[str]) -> int:
        """Count the unreached sessions after the write into ``meta``, and return the count."""
        if self._before is None or len(written) > _LOOKED_AT:
            count = count_all(self._db)
        else:
            below = _below(self._db, written)
            if len(below) > _LOOKED_AT:
                count = count_all(self._db)
            else:
                # sessions below a written one that were not looked at before: their chain then
                # ended at that session, not indexed before (a written root that was is dropped
                # first, and so looked at), so each was unreached
                waiting = below - self._before - set(written)
                after = set(_existing(self._db, self._before)) | below | set(written)
                count = (self._kept - self._unreached_before - len(waiting)
                         + len(after) - _reached(self._db, after))
        note(self._db, count)
        return count


def _chunks(roots: Iterable[str]) -> Iterable[list[str]]:
    roots = list(roots)
    for start in range(0, len(roots), _CHUNK):
        yield roots[start:start + _CHUNK]


def _existing(db: sqlite3.Connection, roots: Iterable[str]) -> list[str]:
    """Those of ``roots`` that have a row."""
    out = []
    for chunk in _chunks(roots):
        out += [r for (r,) in db.execute(f"SELECT root FROM sessions WHERE root IN ({','.join('?' * len(chunk))})", chunk)]
    return out


def _below(db: sqlite3.Connection, roots: Iterable[str]) -> set[str]:
    """The sessions below ``roots`` (their sub-sessions, theirs, ...; a loop cut), whether or
    not a row of ``roots`` is indexed."""
    out: set[str] = set()
    for chunk in _chunks(roots):
        out.update(r for (r,) in db.execute(
            f"WITH RECURSIVE below(root) AS (SELECT root FROM sessions WHERE parent IN ({','.join('?' * len(chunk))}) "
            "UNION SELECT s.root FROM sessions s JOIN below b ON s.parent = b.root) SELECT root FROM below", chunk))
    return out


def _reached(db: sqlite3.Connection, roots: Iterable[str]) -> int:
    """How many of ``roots`` (indexed ones) a top-level session reaches: each walked up its
    parents (a loop cut) to a top-level row, or not."""
    found = 0
    for chunk in _chunks(roots):
        found += db.execute(
            f"WITH RECURSIVE up(start, root) AS (SELECT root, root FROM sessions WHERE root IN ({','.join('?' * len(chunk))}) "
            "UNION SELECT up.start, s.parent FROM up JOIN sessions s ON s.root = up.root "
            "WHERE s.top = 0 AND s.parent IS NOT NULL) "
            "SELECT COUNT(DISTINCT up.start) FROM up JOIN sessions t ON t.root = up.root AND t.top = 1", chunk).fetchone()[0]
    return found
