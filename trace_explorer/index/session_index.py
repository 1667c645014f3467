"""The session index: one row per session (its summary, and the fields the list sorts and
filters on), so the session list, its filters, counts and pages are small queries that read no
session (issue "Stores and scale": first page and filters under 100 ms at 10,000 sessions).

The rows sit in SQLite (Python's ``sqlite3``): a local store keeps them in the file
``INDEX_FILE`` inside its directory, an in-memory collection in memory. The traces themselves
stay in pyoxigraph. (Measured on 10,000 sessions: sorting and filtering rows kept as triples in
a named graph of the on-disk pyoxigraph store took 150-350 ms a page, and reading them all
about a second; SQLite answers the same page in a few milliseconds.)

Rows are written by whoever adds traces (``store.local_store.ingest_file``; ``build.build_index`` for an
in-memory collection, or to index a store afresh) and read with ``model.reader.SessionReader``, the
rules of the session page, on the triples a summary depends on (``SUMMARY_PREDICATES``): what the
list says of a session is what the session page shows.

This module holds ``SessionIndex``, the open index and its reads; its tables and a row are in
``schema``, the list's pages in ``list_pages``, the writes of rows and totals in
``table_writes``, building from a store in ``build`` and keeping it current in ``updates``.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from ..model.roots import ROOT_PREFIXES, named_by
from ..model.words import WORD_FIELDS
from ..sources.filter import SORT_KEYS, SessionFilter
from . import aggregates as index_aggregates
from . import previews as index_previews
from . import typed as index_typed
from . import review_rows
from .review_filter import attach_reviews, count_of_others, not_reviewed
from .list_pages import ListPages, _kept_count_query, _where
from .schema import _ROW_COLUMNS, _SCHEMA, VERSION
from .table_writes import _add_words, _ids, _made_ready, _replace_rows, _summaries_where
from .typed import TypedWrite
from .write_records import WriteRecords

_COUNTED_KEPT = 64  # counts kept between writes (``SessionIndex.count``)




# A sort by any other column in its first direction (a header's first click, ``filter.SORT_KEYS``)
# reads one of these in order and stops after the page: a covering index per column, in the order
# ``_order_by`` gives (at 10,000 sessions 6 ms of CPU a page without it, 0.05 ms with it; without,
# the whole list is sorted for every page, so the cost grows with the list). The other direction
# and the list with sub-sessions sort the rows found, but for the list with sub-sessions in the
# default order (``sessions_every_listed``: 22 ms a first page at 100,000 sessions without it,
# 0.02 ms with it).
_SCHEMA += "".join(
    f"CREATE INDEX IF NOT EXISTS sessions_by_{column} ON sessions "
    f"(top, {column} IS NULL, {column} {'DESC' if SORT_KEYS[key] else 'ASC'}, time IS NULL, time DESC, root);\n"
    for key, column in {"type": "mechanism", "pattern": "pattern", "question": "question_key", "steps": "steps",
                        "status": "status", "duration": "duration", "tokens": "tokens",
                        "tool_errors": "tool_errors", "parent": "parent"}.items())


class SessionIndex(WriteRecords, ListPages):
    """The rows of one store's sessions, in SQLite: ``path`` a file (created when missing,
    unless ``read_only``), or None for memory. Safe to share between threads (one connection,
    used under a lock). A writable file of another version is emptied and made anew
    (``created`` is then True, as for a new file: its store needs ``build_index``). Raises
    sqlite3.Error when the file cannot be opened."""

    def __init__(self, path: str | Path | None = None, read_only: bool = False):
        self.path = Path(path) if path is not None else None
        self.read_only = read_only
        self.created = False
        if self.path is None:
            self._db = sqlite3.connect(":memory:", check_same_thread=False)
        elif read_only:
            self._db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        else:
            self._db = sqlite3.connect(str(self.path), check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")  # readers (the app) go on while ingest writes
        self._lock = threading.RLock()  # a health pass inside a write (``RowsReader``) reads the index too
        # counts by query, with the index's version when counted: ``PRAGMA data_version`` (another
        # connection's writes) and this connection's ``total_changes`` (its own)
        self._counted: dict[tuple, tuple[tuple[int, int], int]] = {}
        self._matched: dict[str, tuple[tuple[int, int], frozenset[int]]] = {}  # row ids by FTS5 query, the same way
        if not read_only:
            with self._lock, self._db:
                self.created = _made_ready(self._db)
        try:  # an index that keeps its counts (``index_aggregates``): else they are counted from the rows
            self.aggregates = index_aggregates.present(self._query)
        except sqlite3.Error:
            self.aggregates = False

    @property
    def usable(self) -> bool:
        """True when the index has this version's shape (an older or foreign file: False)."""
        try:
            found = self._query("SELECT value FROM meta WHERE key = 'version'")
        except sqlite3.Error:
            return False
        return bool(found) and found[0][0] == VERSION

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    # -- reading (a page of the list: ``ListPages``) --------------------------------------------
    def _unchanged(self, kept: dict, key: Any, size: int, compute: Callable[[], Any]) -> Any:
        """``compute()``, kept in ``kept`` under ``key`` while the index is unchanged: its
        version is ``PRAGMA data_version`` (another connection's writes) and this connection's
        ``total_changes`` (its own). At most ``size`` kept (all forgotten when full). The caller
        holds the lock."""
        version = (self._db.execute("PRAGMA data_version").fetchone()[0], self._db.total_changes)
        found = kept.get(key)
        if found is None or found[0] != version:
            if len(kept) >= size:
                kept.clear()
            found = kept[key] = (version, compute())
        return found[1]

    def summary(self, root: str) -> dict | None:
        """The ``session_summary`` of one session, or None when it has no row."""
        found = self._query("SELECT summary FROM summaries m JOIN sessions s ON s.id = m.id WHERE s.root = ?", (root,))
        return json.loads(found[0][0]) if found else None

    def count(self, filters: SessionFilter) -> int:
        """How many sessions match ``filters``: from the counts kept by type, pattern, status and
        health class (``index_aggregates``) where those are all it filters on, else by counting
        the matching rows, once until the index changes (a search's count reads every match)."""
        kept = count_of_others(self, filters) if not_reviewed(filters) else self._kept_count(filters)
        if kept is not None:
            return kept
        reviewed = attach_reviews(self, filters)
        where, params = _where(filters, counting=True, alone=True)
        with self._lock:  # counted once while the index (and the review rows) are unchanged
            key = (where, tuple(params), review_rows.rows_version(self._db) if reviewed else None)
            return self._unchanged(self._counted, key, _COUNTED_KEPT,
                                   lambda: self._db.execute(f"SELECT COUNT(*) {where}", params).fetchone()[0])

    def _kept_count(self, filters: SessionFilter) -> int | None:
        """The count of ``filters`` from ``list_counts``, or None when it cannot answer it (a
        search, a tool, model or termination filter, a health rule id; an index without it)."""
        query = _kept_count_query(filters) if self.aggregates else None
        return self._query(*query)[0][0] if query is not None else None

    def stamp(self) -> tuple[int, int]:
        """What changes whenever rows are written (the highest row id, the files recorded): two
        equal stamps of one index mean the same rows, so counts may be kept between them."""
        found = self._query("SELECT (SELECT COALESCE(MAX(id), 0) FROM sessions), (SELECT COUNT(*) FROM files)")
        return tuple(found[0])

    def steps(self) -> int:
        """The steps of every session, as the session page counts them."""
        return self._query("SELECT COALESCE(SUM(steps), 0) FROM sessions")[0][0]

    def find(self, key: str, limit: int = 6) -> list[str]:
        """The session IRIs ``key`` may name, at most ``limit``: ``[key]`` when it is a session's
        IRI; else the sessions whose id (the IRI after ``urn:trustgraph:agent:`` and the like)
        starts with it (a UUID, or its first characters); else those whose IRI contains it; each
        as typed, then ignoring case (``model.roots.named_by``; ASCII letters)."""
        if not key:
            return []
        if self._query("SELECT 1 FROM sessions WHERE root = ?", (key,)):
            return [key]
        found: list[str] = []
        for prefix, _ in ROOT_PREFIXES:  # the common case, by the index on root
            start = prefix + key
            found += [r for (r,) in self._query("SELECT root FROM sessions WHERE root >= ? AND root < ? ORDER BY root LIMIT ?",
                                                (start, start + "\U0010ffff", limit))]
        # and the IRIs that hold it elsewhere (every IRI read): a start that sits inside other
        # sessions' ids too names none of them alone, and a part or another case names what holds it
        found += [r for (r,) in self._query(
            "SELECT root FROM sessions WHERE instr(lower(root), lower(?)) > 0 ORDER BY root LIMIT 200", (key,))]
        return named_by(key, found)[:limit]

    def rows(self) -> list[dict[str, Any]]:
        """Every row, as the ``index_row`` dicts it was written from."""
        columns = ", ".join(f"s.{c}" for c in _ROW_COLUMNS)
        words = ", ".join(f"w.{c}" for c in WORD_FIELDS)
        found = self._query(f"SELECT {columns}, m.summary, {words} FROM sessions s "
                            "JOIN search w ON w.rowid = s.id JOIN summaries m ON m.id = s.id")
        n = len(_ROW_COLUMNS) + 1
        return [dict(zip(_ROW_COLUMNS + ("summary",), row[:n]), search=dict(zip(WORD_FIELDS, row[n:])))
                for row in found]

    def roots(self) -> set[str]:
        """Every indexed session IRI."""
        return {r for (r,) in self._query("SELECT root FROM sessions")}

    def has(self, roots: Iterable[str]) -> set[str]:
        """Those of ``roots`` that have a row."""
        with self._lock:
            return set(_ids(self._db, roots))

    # -- writing ------------------------------------------------------------------------------
    def replace(self, drop: Iterable[str], rows: Iterable[dict], files: Iterable[tuple[str, str]] = (),
                typed: TypedWrite | None = None) -> None:
        """In one transaction: remove the rows of ``drop`` (and any older row of a session in
        ``rows``), write ``rows`` (``index_row`` dicts), record ``files`` as (name, SHA-256)
        pairs, forget the pending write (``begin_write``: the write is whole) and note that the
        newest snapshot is behind (``published_generation`` None); ``typed``: what the write
        did to the store's typed IRIs (``index_typed.write_typed``; None: nothing)."""
        rows = list(rows)
        self.replace_batches(set(drop) | {r["root"] for r in rows}, [rows], files, typed)

    def replace_batches(self, drop: Iterable[str], batches: Iterable[Sequence[dict]],
                        files: Iterable[tuple[str, str]] = (), typed: TypedWrite | None = None) -> int:
        """``replace`` with the rows coming a batch at a time (``batches``: lists of ``index_row``
        dicts, each session's among ``drop``), all in one transaction, so that no more than a
        batch of rows is held while the index of a large file is written; returns how many rows.
        The typed IRIs (``typed``) are written first, so that what reads the rows' sessions
        meanwhile (a health pass) finds them."""
        with self._lock, self._db:
            if typed is not None:
                index_typed.write_typed(self._db, typed)
            return _replace_rows(self._db, drop, batches, files)

    # -- the store's typed IRIs (``index_typed``) -------------------------------------------------
    def typed_complete(self) -> bool:
        """True when the index holds every typed IRI of its store (``index_typed``)."""
        with self._lock:
            return index_typed.is_complete(self._db)

    def typed_under(self, roots: Iterable[str]) -> list[str]:
        """The typed IRIs kept that extend any of ``roots`` (``{root}/...``), by an indexed range
        a root (``index_typed.under``); only whole when ``typed_complete()``."""
        with self._lock:
            return index_typed.under(self._db, roots)

    def stage_typed(self, iris: Iterable[str]) -> None:
        """Keep a batch of a streamed file's typed IRIs until its rows are written
        (``replace_batches`` with ``TypedWrite(fresh, None)``), in a temporary table."""
        with self._lock, self._db:
            index_typed.stage(self._db, iris)

    def clear_staged_typed(self) -> None:
        """Forget the typed IRIs ``stage_typed`` kept (of a write that failed)."""
        with self._lock, self._db:
            index_typed.clear_staged(self._db)

    def add_words(self, words: Mapping[str, Mapping[str, Sequence[str]]], store: ox.Store | None = None) -> int:
        """Add texts to the searched words of indexed sessions, ``{root: {field: [text, …]}}``, in
        one transaction (roots without a row are left out), and, given the ``store`` the texts
        are now in, the preview of each of those sessions' answers whose text it now holds
        (``index_previews.fill``). Returns how many sessions' words changed."""
        with self._lock, self._db:
            if store is not None:
                index_previews.fill(self._db, store, _summaries_where(self._db, "s.root", list(words)))
            return _add_words(self._db, words)

    def previews_complete(self) -> bool:
        """True when every row carries its answer's preview where the store has the text
        (``index_previews``): a page need not look them up."""
        with self._lock:
            return index_previews.is_complete(self._db)

    def close(self) -> None:
        """Close the SQLite connection."""
        with self._lock:
            self._db.close()


