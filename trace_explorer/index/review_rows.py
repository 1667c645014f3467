"""The session list's review filters (issue 42: by label, by reviewer, "not reviewed"), answered
inside the session index's own query, as the type filter is.

The review store (``trace_explorer.reviews``) keeps one row a review as it stands in a SQLite
file of its own (``SCHEMA``: session, label, author), beside its annotations. A session index
that filters by review attaches that file read-only under the name ``ATTACHED`` and adds an
``IN`` (or ``NOT IN``) clause on it (``clause``): the reviewed sessions are read once a query
from the rows' index on the label or the reviewer, and the list walks its own order testing each
row against them, as it tests a row's type (``benchmarks/review_filter.py`` measures both at
100,000 sessions).
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from ..sources.filter import ReviewFilter

TABLE = "reviewed"
ATTACHED = "reviews"
VERSION = "1"  # of the rows' shape: rows of another are made anew from the annotations
COLUMNS = ("review", "session", "target", "label", "author", "created")  # created: ISO 8601, UTC
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS {TABLE} (
    review TEXT PRIMARY KEY, session TEXT, target TEXT NOT NULL, label TEXT NOT NULL, author TEXT NOT NULL,
    created TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS {TABLE}_by_session ON {TABLE} (session, label, author);
CREATE INDEX IF NOT EXISTS {TABLE}_by_label ON {TABLE} (label, session);
CREATE INDEX IF NOT EXISTS {TABLE}_by_author ON {TABLE} (author, session);
"""


class ReviewedIds:
    """The ids of the session index's rows that have reviews of a filter's label and reviewer
    (with each row's ``top`` as ``listed_top``, so that a count of them alone reads no other table,
    and its ``time`` and ``root``, indexed in the list's default order, so that a page of them
    alone walks them in that order), in a table of
    the index connection's own (``temp``, an integer primary key), made once and kept
    while neither the index nor the review rows change: a page or count then tests a listed row
    by its id against that table, as cheaply as it tests the row's type, instead of finding the
    reviewed sessions again by their IRIs in every query. At most ``KEPT`` filters are kept.
    Used under the index's lock."""

    KEPT = 8

    def __init__(self) -> None:
        self._kept: dict[tuple, tuple[tuple, str]] = {}

    def keep(self, connection: sqlite3.Connection, review_filter: ReviewFilter, stamp: tuple) -> None:
        """Have the table of ``review_filter``'s reviewed row ids (``ids_table``) up to date:
        made anew when ``stamp`` (what changes when the index's rows do: ``SessionIndex.stamp``),
        the index file's or the review rows' ``data_version`` changed since. Attaches the rows
        first."""
        attach(connection, review_filter.rows)
        key = _key(review_filter)
        version = (stamp, connection.execute("PRAGMA main.data_version").fetchone()[0], rows_version(connection))
        kept = self._kept.get(key)
        if kept is not None and kept[0] == version:
            return
        if kept is None and len(self._kept) >= self.KEPT:
            for _, name in self._kept.values():
                connection.execute(f"DROP TABLE IF EXISTS temp.{name}")
            self._kept.clear()
        name = ids_table(review_filter)
        conditions, params = ["r.session IS NOT NULL"], []
        for column, value in (("label", review_filter.label), ("author", review_filter.author)):
            if value:
                conditions.append(f"r.{column} = ?")
                params.append(value)
        connection.execute(f"CREATE TEMP TABLE IF NOT EXISTS {name} (id INTEGER PRIMARY KEY, listed_top INTEGER NOT NULL, "
                           "kept_time TEXT, kept_root TEXT NOT NULL)")
        # the list's default order (newest first: ``list_pages._order_by``) over the kept rows, as
        # the session index's own ``sessions_listed`` and ``sessions_every_listed`` serve it: a
        # page of reviewed rows alone walks fifty of them and stops
        connection.execute(f"CREATE INDEX IF NOT EXISTS temp.{name}_listed ON {name} "
                           "(listed_top, kept_time IS NULL, kept_time DESC, kept_root)")
        connection.execute(f"CREATE INDEX IF NOT EXISTS temp.{name}_every ON {name} "
                           "(kept_time IS NULL, kept_time DESC, kept_root)")
        connection.execute(f"DELETE FROM temp.{name}")
        connection.execute(f"INSERT OR IGNORE INTO temp.{name} SELECT s.id, s.top, s.time, s.root FROM {ATTACHED}.{TABLE} AS r "
                           f"CROSS JOIN main.sessions AS s ON s.root = r.session WHERE {' AND '.join(conditions)}",
                           params)
        connection.commit()  # no transaction left open: it would hold the rows' snapshot (and the attachment)
        self._kept[key] = (version, name)


def _key(review_filter: ReviewFilter) -> tuple:
    return str(review_filter.rows), review_filter.label, review_filter.author


def ids_table(review_filter: ReviewFilter) -> str:
    """The name of the temp table of ``review_filter``'s reviewed row ids: the same for the same
    rows file, label and reviewer (a digest of them)."""
    return "reviewed_" + hashlib.sha256(repr(_key(review_filter)).encode("utf-8")).hexdigest()[:16]


def clause(review_filter: ReviewFilter, table: str = "sessions") -> str:
    """The SQL condition that keeps a row of the session index's ``table`` by ``review_filter``:
    its id in (or, for ``not_reviewed``, not in) the kept ids (``ReviewedIds.keep`` first)."""
    return f"{table}.id {'NOT IN' if review_filter.not_reviewed else 'IN'} (SELECT id FROM temp.{ids_table(review_filter)})"


def attach(connection: sqlite3.Connection, rows: Path | None) -> None:
    """Have the review rows file ``rows`` attached to ``connection`` as ``ATTACHED`` (only read
    through it), in place of any other attached before; an empty table in memory when there is
    no such file yet (no session is reviewed) or ``rows`` is None. Raises sqlite3.Error when the
    file is not such a database."""
    wanted = str(Path(rows).resolve()) if rows is not None and Path(rows).is_file() else ""
    attached = {row[1]: row[2] for row in connection.execute("PRAGMA database_list")}
    if ATTACHED in attached:
        if attached[ATTACHED] == wanted:
            return
        connection.execute(f"DETACH DATABASE {ATTACHED}")
    connection.execute(f"ATTACH DATABASE ? AS {ATTACHED}", (wanted or ":memory:",))
    if not wanted:
        connection.executescript(SCHEMA.replace("EXISTS ", f"EXISTS {ATTACHED}."))


def rows_version(connection: sqlite3.Connection) -> int:
    """What changes whenever the attached rows change (SQLite's ``data_version`` of the attached
    file: another connection's commits), for counts kept between two writes."""
    return connection.execute(f"PRAGMA {ATTACHED}.data_version").fetchone()[0]


def detach(connection: sqlite3.Connection) -> None:
    """Let the attached review rows go, if attached."""
    if ATTACHED in {row[1] for row in connection.execute("PRAGMA database_list")}:
        connection.execute(f"DETACH DATABASE {ATTACHED}")


def reviewed_roots(review_filter: ReviewFilter) -> set[str]:
    """The session IRIs with a review of ``review_filter``'s label and reviewer (not reversed
    by ``not_reviewed``), read from its rows file: for a source without a session index, whose
    list query names them (``catalog``). Raises sqlite3.Error when the file cannot be read."""
    rows = Path(review_filter.rows)
    if not rows.is_file():
        return set()
    conditions, params = ["session IS NOT NULL"], []
    for column, value in (("label", review_filter.label), ("author", review_filter.author)):
        if value:
            conditions.append(f"{column} = ?")
            params.append(value)
    connection = sqlite3.connect(f"{rows.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return {r[0] for r in connection.execute(f"SELECT session FROM {TABLE} WHERE {' AND '.join(conditions)}", params)}
    finally:
        connection.close()
