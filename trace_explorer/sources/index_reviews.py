"""The session list's review filters (issue 42: by label, by reviewer, "not reviewed"), answered
inside the session index's own query, as the type filter is.

The review store (``trace_explorer.reviews``) keeps one row a review as it stands in a SQLite
file of its own (``SCHEMA``: session, label, author), beside its annotations. A session index
that filters by review attaches that file read-only under the name ``ATTACHED`` and adds an
``EXISTS`` (or ``NOT EXISTS``) clause on it, which SQLite answers from the index on
``(session, label, author)``: one look-up a listed session, as a type filter costs one
comparison (``benchmarks/review_filter.py`` measures both at 100,000 sessions).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TABLE = "reviewed"
ATTACHED = "reviews"
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS {TABLE} (
    review TEXT PRIMARY KEY, session TEXT, target TEXT NOT NULL, label TEXT NOT NULL, author TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS {TABLE}_by_session ON {TABLE} (session, label, author);
CREATE INDEX IF NOT EXISTS {TABLE}_by_label ON {TABLE} (label, session);
CREATE INDEX IF NOT EXISTS {TABLE}_by_author ON {TABLE} (author, session);
"""


@dataclass(frozen=True)
class ReviewFilter:
    """Which sessions the list keeps by their reviews: ``rows`` is the review store's SQLite file
    of rows (``ReviewStore.filter_rows_path``); ``label`` keeps the sessions with a review of
    that label, ``author`` those with a review by that reviewer (both: one review with both);
    ``not_reviewed`` keeps the sessions without any review instead (label and author then say
    whose review does not count: "not reviewed by me")."""

    rows: Path
    label: str | None = None
    author: str | None = None
    not_reviewed: bool = False

    @property
    def active(self) -> bool:
        """Whether this filter leaves any session out."""
        return bool(self.label or self.author or self.not_reviewed)


def clause(review_filter: ReviewFilter, root_column: str = "root") -> tuple[str, list[Any]]:
    """The SQL condition (and its parameters) that keeps a row of the sessions table, whose
    session IRI is ``root_column``, by ``review_filter``, on the rows attached as ``ATTACHED``
    (``attach``)."""
    conditions, params = [f"r.session = {root_column}"], []
    for column, value in (("label", review_filter.label), ("author", review_filter.author)):
        if value:
            conditions.append(f"r.{column} = ?")
            params.append(value)
    exists = f"EXISTS (SELECT 1 FROM {ATTACHED}.{TABLE} AS r WHERE {' AND '.join(conditions)})"
    return ("NOT " + exists if review_filter.not_reviewed else exists), params


def attach(connection: sqlite3.Connection, rows: Path) -> None:
    """Attach the review rows file ``rows`` read-only to ``connection`` as ``ATTACHED`` (an empty
    in-memory table when the file does not exist yet: no session is reviewed), once. Raises
    sqlite3.Error when the file is not such a database."""
    attached = {row[1] for row in connection.execute("PRAGMA database_list")}
    if ATTACHED in attached:
        return
    if Path(rows).is_file():
        connection.execute(f"ATTACH DATABASE ? AS {ATTACHED}", (Path(rows).resolve().as_uri() + "?mode=ro",))
    else:
        connection.execute(f"ATTACH DATABASE ':memory:' AS {ATTACHED}")
        connection.executescript(SCHEMA.replace("EXISTS ", f"EXISTS {ATTACHED}."))


def detach(connection: sqlite3.Connection) -> None:
    """Let the attached review rows go, if attached."""
    if ATTACHED in {row[1] for row in connection.execute("PRAGMA database_list")}:
        connection.execute(f"DETACH DATABASE {ATTACHED}")
