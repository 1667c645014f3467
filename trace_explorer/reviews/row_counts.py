"""Counts the session list and its filters need from the review store's filter rows
(``filter_rows``: one row a review as it stands), without opening the annotations: the labels of
each listed session, and who has reviewed. Read-only; an absent rows file is a store with no
review yet."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

from ..sources.index_reviews import TABLE
from .filter_rows import rows_path

_CHUNK = 500  # session IRIs per query (SQLite's default limit on parameters is 999 or more)


def _connect(folder: Path) -> sqlite3.Connection | None:
    path = rows_path(folder)
    if not path.is_file():
        return None
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=10.0)


def label_counts(folder: Path | str, sessions: Iterable[str]) -> dict[str, dict[str, dict[str, int]]]:
    """For each of ``sessions`` (IRIs) that has reviews as they stand in the review store in
    ``folder``: label -> author -> how many of that author's reviews (of the session or of any
    part of it) carry it. Sessions without reviews are left out."""
    ids = list(dict.fromkeys(sessions))
    out: dict[str, dict[str, dict[str, int]]] = {}
    connection = _connect(Path(folder))
    if connection is None or not ids:
        return out
    try:
        for start in range(0, len(ids), _CHUNK):
            part = ids[start:start + _CHUNK]
            marks = ",".join("?" * len(part))
            for session, label, author, count in connection.execute(
                    f"SELECT session, label, author, COUNT(*) FROM {TABLE} WHERE session IN ({marks}) "
                    "GROUP BY session, label, author", part):
                out.setdefault(session, {}).setdefault(label, {})[author] = count
    finally:
        connection.close()
    return out


def authors(folder: Path | str) -> list[str]:
    """Everyone with a review as it stands in the review store in ``folder``, sorted."""
    connection = _connect(Path(folder))
    if connection is None:
        return []
    try:
        return sorted(row[0] for row in connection.execute(f"SELECT DISTINCT author FROM {TABLE}"))
    finally:
        connection.close()
