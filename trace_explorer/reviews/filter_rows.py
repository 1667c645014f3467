"""The review store's rows for the session list's filters: one row a review as it stands
(``sources.index_reviews.SCHEMA``: review, session, target, label, author), in the SQLite file
``ROWS_FILE`` beside the annotations.

Only the store's writer writes them, holding the store's lock, right after each change; the rows
record the generation of the store and its journal (``history.generation``, ``journal``), so a
writer killed between the two leaves rows one change behind, which the next writer sees and
rebuilds (``catch_up``). A new review's row is written on a connection the process keeps open
(``add_after``): SQLite checkpoints a WAL file when its last connection closes, which costs an
fsync and several milliseconds a save. Readers read them
without the store's lock (SQLite's own, in WAL mode, keeps them whole).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import timezone
from pathlib import Path

from ..index.review_rows import COLUMNS, SCHEMA, TABLE, VERSION
from .review import Review

ROWS_FILE = "reviewed.sqlite"
_TIMEOUT_S = 10.0


def rows_path(folder: Path) -> Path:
    """The rows file of the review store in ``folder``."""
    return Path(folder) / ROWS_FILE


@contextlib.contextmanager
def _connection(folder: Path, write: bool) -> Iterator[sqlite3.Connection | None]:
    path = rows_path(folder)
    if not write and not path.is_file():
        yield None
        return
    connection = sqlite3.connect(path if write else f"{path.resolve().as_uri()}?mode=ro", uri=not write,
                                 timeout=_TIMEOUT_S, isolation_level=None)
    try:
        if write:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")  # WAL: durable at each checkpoint, whole always
            connection.executescript(SCHEMA)
        yield connection
    finally:
        connection.close()


def _generation(connection: sqlite3.Connection) -> int:
    row = connection.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    return int(row[0]) if row else 0


def add_after(folder: Path, generation: int, review: Review, save: Callable[[], int]) -> bool:
    """When the rows record ``generation``: call ``save()`` (which keeps ``review`` elsewhere and
    returns the generation it made) and add its row at that generation, in one transaction, and
    return True; else False, having called and written nothing (the rows are then to be rebuilt,
    ``catch_up``). The caller holds the store's lock. Raises sqlite3.Error, and what ``save``
    raises (the row is then not written)."""
    connection = _kept(folder)
    connection.execute("BEGIN IMMEDIATE")
    try:
        meta = dict(connection.execute("SELECT key, value FROM meta WHERE key IN ('generation', 'version')"))
        if meta.get("version") != VERSION or meta.get("generation") != str(generation):
            connection.execute("ROLLBACK")
            return False
        connection.execute(_INSERT, _row(review))
        connection.execute("INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (str(save()),))
        connection.execute("COMMIT")
        return True
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise


_KEPT: dict[tuple[int, Path], tuple[int, sqlite3.Connection]] = {}
_KEPT_LOCK = threading.Lock()


def _kept(folder: Path) -> sqlite3.Connection:
    """This process's open connection to the rows of ``folder`` for ``add_after``, opened again
    when the file was replaced (its inode changed) or the process forked."""
    path = rows_path(folder)
    key = (os.getpid(), path.resolve())
    with _KEPT_LOCK:
        kept = _KEPT.get(key)
        if kept is None or kept[0] != _inode(path):
            if kept is not None:
                kept[1].close()
            with _connection(folder, write=True):  # made, in WAL mode, with the schema
                pass
            connection = sqlite3.connect(path, timeout=_TIMEOUT_S, isolation_level=None, check_same_thread=False)
            connection.execute("PRAGMA synchronous=NORMAL")
            kept = _KEPT[key] = (_inode(path), connection)
        return kept[1]


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None


def catch_up(folder: Path, generation: int, current: Callable[[], list[Review]]) -> None:
    """Rebuild the rows from ``current()`` (every review as it stands) when they do not record
    the store's ``generation`` (or are of another ``VERSION``). Raises sqlite3.Error when the
    file cannot be written."""
    with _connection(folder, write=True) as connection:
        version = connection.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
        if _generation(connection) == generation and version == (VERSION,):
            return
        connection.execute("BEGIN IMMEDIATE")
        connection.execute(f"DELETE FROM {TABLE}")
        connection.executemany(_INSERT, [_row(r) for r in current()])
        connection.execute("INSERT OR REPLACE INTO meta VALUES ('generation', ?), ('version', ?)",
                           (str(generation), VERSION))
        connection.execute("COMMIT")


def apply(folder: Path, old_id: str | None, new: Review | None, generation: int) -> None:
    """Replace the row of ``old_id`` (if any) by that of ``new`` (if any) and record
    ``generation``, in one transaction."""
    with _connection(folder, write=True) as connection:
        connection.execute("BEGIN IMMEDIATE")
        if old_id:
            connection.execute(f"DELETE FROM {TABLE} WHERE review = ?", (old_id,))
        if new is not None:
            connection.execute(_INSERT, _row(new))
        connection.execute("INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (str(generation),))
        connection.execute("COMMIT")


def sessions(folder: Path, label: str | None = None, author: str | None = None) -> set[str]:
    """The session IRIs with a review as it stands of ``label`` and/or by ``author`` (any when
    None); reviews whose session is unknown count for none."""
    clauses, params = ["session IS NOT NULL"], []
    for column, value in (("label", label), ("author", author)):
        if value:
            clauses.append(f"{column} = ?")
            params.append(value)
    with _connection(folder, write=False) as connection:
        if connection is None:
            return set()
        return {row[0] for row in connection.execute(
            f"SELECT DISTINCT session FROM {TABLE} WHERE {' AND '.join(clauses)}", params)}


def labels_of(folder: Path, sessions: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
    """``{session IRI: [(label, author), ...]}`` of the reviews as they stand of ``sessions``
    (those without a review left out), oldest first: a page of the session list's review column
    in one query a 500 sessions."""
    out: dict[str, list[tuple[str, str]]] = {}
    with _connection(folder, write=False) as connection:
        if connection is None:
            return out
        for start in range(0, len(sessions), 500):
            chunk = list(sessions[start:start + 500])
            for session, label, author in connection.execute(
                    f"SELECT session, label, author FROM {TABLE} WHERE session IN ({','.join('?' * len(chunk))}) "
                    f"ORDER BY created, review", chunk):
                out.setdefault(session, []).append((label, author))
    return out


def rows(folder: Path) -> list[dict]:
    """Every row (``COLUMNS``: review, session, target, label, author, created), oldest first:
    what counts of labels over time or by reviewer are made from without reading annotations."""
    with _connection(folder, write=False) as connection:
        if connection is None:
            return []
        return [dict(zip(COLUMNS, row)) for row in
                connection.execute(f"SELECT {', '.join(COLUMNS)} FROM {TABLE} ORDER BY created, review")]


_INSERT = f"INSERT OR REPLACE INTO {TABLE} ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"


def _row(review: Review) -> tuple:
    created = review.created.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return review.id, review.session, review.target, review.label, review.author, created
