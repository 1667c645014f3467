"""The review store's rows for the session list's filters: one row a review as it stands
(``sources.index_reviews.SCHEMA``: review, session, target, label, author), in the SQLite file
``ROWS_FILE`` beside the annotations.

Only the store's writer writes them, holding the store's lock, right after each change; the rows
record the store's generation (``history.generation``), so a writer killed between the two leaves
rows one change behind, which the next writer sees and rebuilds (``catch_up``). Readers read them
without the store's lock (SQLite's own, in WAL mode, keeps them whole).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

from ..sources.index_reviews import SCHEMA, TABLE
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
            connection.executescript(SCHEMA)
        yield connection
    finally:
        connection.close()


def _generation(connection: sqlite3.Connection) -> int:
    row = connection.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    return int(row[0]) if row else 0


def catch_up(folder: Path, generation: int, current: Callable[[], list[Review]]) -> None:
    """Rebuild the rows from ``current()`` (every review as it stands) when they do not record
    the store's ``generation``. Raises sqlite3.Error when the file cannot be written."""
    with _connection(folder, write=True) as connection:
        if _generation(connection) == generation:
            return
        connection.execute("BEGIN IMMEDIATE")
        connection.execute(f"DELETE FROM {TABLE}")
        connection.executemany(f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?, ?)", [_row(r) for r in current()])
        connection.execute("INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (str(generation),))
        connection.execute("COMMIT")


def apply(folder: Path, old_id: str | None, new: Review | None, generation: int) -> None:
    """Replace the row of ``old_id`` (if any) by that of ``new`` (if any) and record
    ``generation``, in one transaction."""
    with _connection(folder, write=True) as connection:
        connection.execute("BEGIN IMMEDIATE")
        if old_id:
            connection.execute(f"DELETE FROM {TABLE} WHERE review = ?", (old_id,))
        if new is not None:
            connection.execute(f"INSERT OR REPLACE INTO {TABLE} VALUES (?, ?, ?, ?, ?)", _row(new))
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


def _row(review: Review) -> tuple:
    return review.id, review.session, review.target, review.label, review.author
