"""The session index: one row per session (its summary, and the fields the list sorts and
filters on), so the session list, its filters, counts and pages are small queries that read no
session (issue "Stores and scale": first page and filters under 100 ms at 10,000 sessions).

The rows sit in SQLite (Python's ``sqlite3``): a local store keeps them in the file
``INDEX_FILE`` inside its directory, an in-memory collection in memory. The traces themselves
stay in pyoxigraph. (Measured on 10,000 sessions: sorting and filtering rows kept as triples in
a named graph of the on-disk pyoxigraph store took 150-350 ms a page, and reading them all
about a second; SQLite answers the same page in a few milliseconds.)

Rows are written by whoever adds traces (``local_store.ingest_file``; ``build_index`` for an
in-memory collection, or to index a store afresh) and read with ``model.reader.SessionReader``, the
rules of the session page, on the triples a summary depends on (``SUMMARY_PREDICATES``): what the
list says of a session is what the session page shows.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import timezone
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from ..model.reader import SessionReader
from ..model.roots import ROOT_PREFIXES, SUBTYPES, named_by, root_iris, step_owner
from ..model.session import Session
from ..model.summary import session_summary
from ..model.totals import FIGURES, TOTAL_PREFIX, add_totals
from ..model.triple_index import TripleIndex
from ..model.vocabulary import (PROV, QUERY, QUESTION, RDF_TYPE, SELECTED_CHUNK, SELECTED_EDGE, STARTED_AT_TIME, TG,
                                THOUGHT, WAS_DERIVED_FROM)
from ..model.words import WORD_FIELDS, session_words
from ..read.collector import collector_paused
from .fetch import DERIVED, ROOTS, fetch_sessions, queried_roots
from .filter import DEFAULT_ORDER, SORT_KEYS, SessionFilter, SessionOrder
from .ingest_phases import FULL_TEXT, INDEX, NO_PHASES, WORDS, Phases
from . import index_aggregates, index_previews, index_reach, index_reviews, index_typed
from .index_typed import TypedWrite
from .index_write_records import PUBLISHED_KEY, WriteRecords
from .index_words import GraphTexts, documents_named, match_rows, words_of_documents
from .search import MARKS, fold, fts_query
from .session_insights import (HEALTH_CHOICES, INSIGHT_PREDICATES, add_rows, filter_clauses, forget_rows,
                               insight_row, mark_complete, note_mending_due, prepare)
from .session_insights import TABLES as INSIGHT_TABLES
from .source import DOCUMENTS_GRAPH
from .sparql_text import PREFIXES, iri_batches, values_clause
from .store import StoreSource
from .triples_text import TriplesText, is_iri, subjects_of
from .triples_text import iri as triple_iri

INDEX_FILE = "trace-explorer-sessions.sqlite"
VERSION = "3"

# What a session's summary (``model.summary.session_summary``) is read from: membership
# (types, derivations, links to thoughts and selections), the question, time, pattern, tool
# names and errors, durations and tokens, and the fields that tell a GraphRAG Exploration from a
# DocRAG one.
SUMMARY_PREDICATES = frozenset({
    RDF_TYPE, WAS_DERIVED_FROM, PROV + "wasGeneratedBy", THOUGHT, SELECTED_EDGE, SELECTED_CHUNK,
    QUERY, STARTED_AT_TIME, TG + "pattern", TG + "action", TG + "toolError", TG + "edgeCount",
    TG + "entity", TG + "chunkCount", TG + "llmDurationMs", TG + "toolDurationMs", TG + "inToken",
    TG + "outToken",
}) | INSIGHT_PREDICATES
# What the search's words are read from besides (``model.words``): inline texts, links to a
# step's Thought and Observation, ``tg:document`` (its text from the store's documents), tools
# and their arguments, reasoning, plan steps, goals and concepts.
WORD_PREDICATES = frozenset(TG + p for p in ("answer", "content", "thought", "observation", "document", "arguments",
                                             "reasoning", "planStep", "subagentGoal", "concept"))
INDEX_PREDICATES = SUMMARY_PREDICATES | WORD_PREDICATES
_CONTENT = TG + "content"
_BATCH = 200  # sessions read from a store per query batch
_WRITE_BATCH = 1000  # rows a rebuild writes between two counts on its bar (``build_index``)
# A search's page either starts from the words' matches (every one found and sorted) or walks
# the list in its order, keeping the rows among the matches (found once while the index is
# unchanged: ``SessionIndex._common``), whichever costs less: a page of ``wanted`` rows (offset
# + limit) among ``m`` matches in ``rows`` sessions walks about wanted * rows / m rows, and a row
# walked costs about half a match sorted or less (0.3 us of CPU, a match 0.4 us at 10,000
# sessions and 1.1 us at 100,000), so it walks when _WALK_COST * m * m >= wanted * rows (and
# for the first _WALK_PAGES pages). Either way a page costs at most about the work of
# sqrt(wanted * rows) rows, and a word in a given share of the sessions costs the same at any
# size once its pages walk. On an index of 100,000 sessions, a page of "bronze" (18,190
# matches) takes 0.12 ms walked against 9 ms sorted, of "sarbanes" (4,540) 0.6 against 5 ms; a
# word in 20 sessions 0.05 ms sorted, 35 ms walked.
_WALK_COST = 2
_WALK_PAGES = 10
_COUNTED_KEPT = 64  # counts kept between writes (``SessionIndex.count``)
_MATCHES_KEPT = 4  # searches whose matching row ids are kept between writes (about 60 bytes a match)
_PARENT_LIMIT = 64  # levels of parent sessions followed up when totals change (a loop is cut)

# The list's columns in a narrow table (a covering index serves the default order and the
# filters; the other sort keys are columns too, so a sort is one query on the whole result), the
# searched words in an FTS5 table (rowid = sessions.id; a column per ``model.words.WORD_FIELDS``
# name, so that a search may name its field; unicode61 folds case and accents) and the
# summaries in a table of their own: a filter over 100,000 rows then reads a few megabytes, not
# every summary.
_TABLES = ("meta", "sessions", "search", "summaries", "files", "pending", index_typed.TABLE)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY, root TEXT NOT NULL UNIQUE, top INTEGER NOT NULL, time TEXT,
    mechanism TEXT NOT NULL, pattern TEXT, status TEXT NOT NULL, steps INTEGER NOT NULL,
    question_key TEXT, duration INTEGER, tokens INTEGER, tool_errors INTEGER NOT NULL, parent TEXT);
CREATE INDEX IF NOT EXISTS sessions_listed ON sessions (top, time IS NULL, time DESC, root, mechanism, pattern, status);
CREATE INDEX IF NOT EXISTS sessions_every_listed ON sessions (time IS NULL, time DESC, root);
CREATE INDEX IF NOT EXISTS sessions_parent ON sessions (parent);
CREATE INDEX IF NOT EXISTS sessions_by_id ON sessions (top, root);
CREATE VIRTUAL TABLE IF NOT EXISTS search USING fts5(""" + ", ".join(WORD_FIELDS) + """,
    tokenize = 'unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS summaries (id INTEGER PRIMARY KEY, summary TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (digest TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pending (id INTEGER PRIMARY KEY CHECK (id = 1), name TEXT NOT NULL, generation INTEGER,
    undo BLOB);
""" + index_typed.SCHEMA
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
# SessionOrder keys -> the column sorted on
_SORT_COLUMNS = {"time": "time", "id": "root", "type": "mechanism", "pattern": "pattern",
                 "question": "question_key", "steps": "steps", "status": "status", "duration": "duration",
                 "tokens": "tokens", "tool_errors": "tool_errors", "parent": "parent"}
_ROW_COLUMNS = ("root", "top", "time", "mechanism", "pattern", "status", "steps", "question_key", "duration",
                "tokens", "tool_errors", "parent")


def index_row(session: Session) -> dict[str, Any]:
    """The row of one session: ``root``, ``top`` (1 when it has no parent step), ``time`` (UTC,
    ``YYYY-MM-DDTHH:MM:SS.ffffffZ``, sortable as text; None when undated), ``mechanism``,
    ``pattern``, ``status``, ``steps``, the sort keys ``question_key`` (the question folded:
    ``search.fold``), ``duration`` (ms) and ``tokens`` (with sub-sessions, README "Totals": the
    session's own until ``SessionIndex.replace`` adds its sub-sessions' rows), ``tool_errors``,
    ``parent`` (the parent session), ``search`` (the words searched, by field:
    ``model.words.session_words``, without the characters that mark a match: ``search.MARKS``),
    ``summary`` (``session_summary`` as JSON) and ``insights`` (``session_insights.insight_row``,
    as it is: its rows are written from it, never the dict itself)."""
    summary = session_summary(session)
    return {
        "root": session.id,
        "top": 1 if session.parent is None else 0,
        "time": session.time.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ") if session.time else None,
        "mechanism": summary["type"],
        "pattern": summary["pattern"],
        "status": summary["status"],
        "steps": summary["step_count"],
        "question_key": fold(summary["question"]) if summary["question"] is not None else None,
        "duration": summary["total_duration_ms"],
        "tokens": summary["total_tokens"],
        "tool_errors": summary["tool_errors"],
        "parent": summary["parent_session"],
        "search": {k: v.replace(MARKS[0], " ").replace(MARKS[1], " ") for k, v in session_words(session).items()},
        "summary": json.dumps(summary, ensure_ascii=False, sort_keys=True),
        "insights": insight_row(session),
    }


class ListPages:
    """A page of the session list, for ``SessionIndex`` (which it is a part of: it reads the
    index through ``_query``, ``_lock``, ``_db``, ``_kept_count``, ``_unchanged``, ``_matched``
    and ``aggregates``): one query for most pages; a common word searched walks the list in its
    order against the rows it matches; a page past the middle reads from the list's end."""

    def page(self, filters: SessionFilter, limit: int = 50, offset: int = 0,
             order: SessionOrder = DEFAULT_ORDER) -> list[dict]:
        """The ``session_summary`` dicts of one page of matching sessions in ``order`` (sessions
        without a value for its key last, ties newest first, then by IRI); ``limit`` 0 means all.
        Under a search each also has ``match``: where its words were found
        (``index_words.match_rows``: ``{"field", "snippet"}``)."""
        matches = self._common(filters, offset + limit) if limit and offset < limit * _WALK_PAGES else None
        few = attach_reviews(self, filters) and _few_reviewed(self, filters, offset + limit)
        where, params = _where(filters, counting=few)
        total = self._kept_count(filters) if limit and offset > limit else None
        if matches is not None:
            ids = self._walk(filters, matches, limit, offset, order)
        elif total is not None and offset > total // 2:
            # a page past the middle: read from the list's end, in the opposite order, so that a
            # page near the end (the last) walks a page of the index, not the whole list before it
            start = max(0, total - offset - limit)
            ids = [i for (i,) in self._query(f"SELECT sessions.id {where} {_order_by(order, reverse=True)} LIMIT ? OFFSET ?",
                                             params + [max(0, total - offset - start), start])[::-1]]
        else:
            tail = " LIMIT ? OFFSET ?" if limit else (" LIMIT -1 OFFSET ?" if offset else "")
            params += [int(limit), int(offset)] if limit else ([int(offset)] if offset else [])
            ids = [i for (i,) in self._query(f"SELECT sessions.id {where} {_order_by(order)}{tail}", params)]
        summaries: dict[int, str] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            summaries.update(self._query(f"SELECT id, summary FROM summaries WHERE id IN ({','.join('?' * len(chunk))})", chunk))
        out = {i: json.loads(summaries[i]) for i in ids if i in summaries}
        if filters.needle and out:
            matched = list(out)
            for start in range(0, len(matched), 500):
                with self._lock:
                    for i, found_match in match_rows(self._db, filters.terms, matched[start:start + 500]).items():
                        out[i]["match"] = found_match
        return [out[i] for i in ids if i in out]

    def _common(self, filters: SessionFilter, wanted: int = 50) -> frozenset[int] | None:
        """The row ids the words searched are found in, when they are common enough that a page
        of ``wanted`` rows costs less walked than sorted (``_WALK_COST``); else (or in an index
        without kept counts) None. A page then walks the list in its order (``_walk``) and stops
        once it is full. The matches are read once while the index is unchanged (``_unchanged``),
        for ``_MATCHES_KEPT`` searches."""
        if not (filters.needle and self.aggregates):
            return None
        query = fts_query(filters.terms)
        with self._lock:
            matches = self._unchanged(self._matched, query, _MATCHES_KEPT, lambda: frozenset(
                i for (i,) in self._db.execute("SELECT rowid FROM search WHERE search MATCH ?", (query,))))
        return matches if _WALK_COST * len(matches) ** 2 >= wanted * self._rows() > 0 else None

    def _rows(self) -> int:
        """How many sessions the index holds, sub-sessions too, from its kept counts."""
        return self._query("SELECT COALESCE(SUM(n), 0) FROM list_counts")[0][0]

    def _walk(self, filters: SessionFilter, matches: frozenset[int], limit: int, offset: int,
              order: SessionOrder) -> list[int]:
        """The row ids of one page (``limit`` > 0 rows from ``offset``) of a search whose
        ``matches`` (``_common``) are common: the list under the other filters read in ``order``
        a batch at a time, each row kept when it is among the matches, until the page is full.
        Where one session in ``k`` matches, the first batch is about the ``k * (offset + limit)``
        rows that hold the page, and each further one twice the one before, however many match."""
        where, params = _where(filters, walk=True)
        wanted = offset + limit
        batch = wanted * self._rows() * 5 // (4 * max(1, len(matches))) + limit
        found: list[int] = []
        with self._lock:
            cursor = self._db.execute(f"SELECT sessions.id {where} {_order_by(order)}", params)
            try:
                while len(found) < wanted:
                    read = cursor.fetchmany(batch)
                    if not read:
                        break
                    found += [i for (i,) in read if i in matches]
                    batch *= 2
            finally:
                cursor.close()
        return found[offset:wanted]


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
        kept = _count_of_others(self, filters) if _not_reviewed(filters) else self._kept_count(filters)
        if kept is not None:
            return kept
        reviewed = attach_reviews(self, filters)
        where, params = _where(filters, counting=True, alone=True)
        with self._lock:  # counted once while the index (and the review rows) are unchanged
            key = (where, tuple(params), index_reviews.rows_version(self._db) if reviewed else None)
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


def attach_reviews(index: SessionIndex, filters: SessionFilter) -> bool:
    """Make ready on ``index``'s connection what ``_where`` reads for ``filters.reviews``, when
    it filters: the review rows attached and the reviewed rows' ids kept
    (``index_reviews.ReviewedIds``, one per index). True when it filters."""
    if not (filters.reviews and filters.reviews.active):
        return False
    stamp = index.stamp()
    with index._lock:
        if getattr(index, "_reviewed_ids", None) is None:
            index._reviewed_ids = index_reviews.ReviewedIds()
        index._reviewed_ids.keep(index._db, filters.reviews, stamp)
    return True


def _few_reviewed(index: SessionIndex, filters: SessionFilter, wanted: int) -> bool:
    """Whether a page of ``wanted`` rows under a review filter costs less sorted from its
    reviewed rows (``m`` of them, kept by ``attach_reviews``) than walked in the list's order
    testing each row (about ``wanted * rows / m`` rows): the search's rule (``_WALK_COST``)."""
    reviews = filters.reviews
    if reviews.not_reviewed or filters.needle or not wanted or not index.aggregates:
        return False
    with index._lock:
        m = index._db.execute(f"SELECT COUNT(*) FROM temp.{index_reviews.ids_table(reviews)}").fetchone()[0]
    return _WALK_COST * m * m < wanted * index._rows()


def _not_reviewed(filters: SessionFilter) -> bool:
    return bool(filters.reviews and filters.reviews.not_reviewed and filters.reviews.active)


def _count_of_others(index: SessionIndex, filters: SessionFilter) -> int:
    """The count of sessions not reviewed under ``filters``: the others, two counts of few rows
    (or kept ones), not a walk of every row."""
    reviewed = dataclasses.replace(filters.reviews, not_reviewed=False, reviewed=True)
    return index.count(dataclasses.replace(filters, reviews=None)) - index.count(dataclasses.replace(filters, reviews=reviewed))


def _kept_count_query(filters: SessionFilter) -> tuple[str, list[Any]] | None:
    """The query of ``list_counts`` (``index_aggregates``) that counts ``filters``, with its
    parameters, or None when the kept counts cannot answer it."""
    if (filters.needle or filters.tool or filters.failed_tool or filters.model or filters.termination
            or (filters.health and filters.health not in HEALTH_CHOICES) or (filters.reviews and filters.reviews.active)):
        return None
    clauses, params = [], []
    if not filters.include_sub:
        clauses.append("top = 1")
    for column, values in (("mechanism", filters.mechanisms), ("pattern", filters.patterns)):
        if values:
            clauses.append(f"{column} IN ({','.join('?' * len(values))})")
            params += values
    for column, value in (("status", filters.status), ("health", filters.health)):
        if value:
            clauses.append(f"{column} = ?")
            params.append(value)
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    return f"SELECT COALESCE(SUM(n), 0) FROM list_counts{where}", params


def _made_ready(db: sqlite3.Connection) -> bool:
    """Give a writable index this version's tables (emptied and made anew when the file is of
    another version); True when they were made."""
    tables = {t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    version = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone() if "meta" in tables else None
    made = version is None or version[0] != VERSION
    if made:
        for table in _TABLES + INSIGHT_TABLES + index_aggregates.TABLES:
            db.execute(f"DROP TABLE IF EXISTS {table}")
    db.executescript(_SCHEMA)
    db.execute("INSERT OR IGNORE INTO meta VALUES ('version', ?)", (VERSION,))
    if made:
        index_previews.mark(db, True)  # no row yet: every row written from here on is read with the texts
    prepare(db, fresh=not db.execute("SELECT 1 FROM sessions LIMIT 1").fetchone())
    index_aggregates.prepare(db)
    return made


def _replace_rows(db: sqlite3.Connection, drop: Iterable[str], batches: Iterable[Sequence[dict]],
                  files: Iterable[tuple[str, str]]) -> int:
    """``SessionIndex.replace_batches`` inside its transaction. Into an index with no row
    (``index_aggregates.counted_empty``: a first ingest, a rebuild), the rows go in without the
    aggregates' triggers and the list's secondary indexes, which are made once after them
    (``_bulk``): the same tables, at a third of the cost."""
    db.execute("DELETE FROM pending")  # the write it finishes is whole now
    db.execute("DELETE FROM meta WHERE key = ?", (PUBLISHED_KEY,))  # until the next snapshot
    drop = list(drop)
    reach = index_reach.Reach(db, drop)  # the sessions no top-level session reaches, kept counted
    old = _ids(db, drop)
    above = _parents(db, list(old))  # their totals change with the rows dropped
    if old and len(old) == db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]:
        _emptied(db)  # every row goes (a rebuild): at once, and the new ones go in as into a new index
    else:
        gone = [(i,) for i in old.values()]
        for table in ("sessions", "summaries"):
            db.executemany(f"DELETE FROM {table} WHERE id = ?", gone)
        db.executemany("DELETE FROM search WHERE rowid = ?", gone)
        forget_rows(db, drop)
    dropped = set(drop)
    written: list[str] = []
    with _bulk(db) as bulk:
        for rows in batches:
            first = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM sessions").fetchone()[0]
            numbered = [dict(row, id=first + n) for n, row in enumerate(rows)]
            columns = ("id",) + _ROW_COLUMNS
            db.executemany(f"INSERT INTO sessions ({', '.join(columns)}) "
                           f"VALUES ({', '.join(':' + c for c in columns)})", numbered)
            db.executemany(f"INSERT INTO search (rowid, {', '.join(WORD_FIELDS)}) "
                           f"VALUES (?, {', '.join('?' * len(WORD_FIELDS))})",
                           ((row["id"], *(row["search"].get(f, "") for f in WORD_FIELDS)) for row in numbered))
            db.executemany("INSERT INTO summaries VALUES (:id, :summary)", numbered)
            if not bulk:  # a session's older insight rows (none in a bulk write)
                forget_rows(db, [r["root"] for r in rows if r["root"] not in dropped])
            add_rows(db, rows)
            written += [r["root"] for r in rows]
    db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?)", ((d, n) for n, d in files))
    if files:
        note_mending_due(db)
    _refresh_totals(db, written + [p for p in above if p], fresh=written)
    reach.done(written)
    return len(written)


def _emptied(db: sqlite3.Connection) -> None:
    """Inside the index's transaction: every session's rows, insight and health rows and every
    aggregate gone at once, with the aggregates' triggers paused (a row at a time with them, the
    10,000 rows of a ``reindex`` took 2 s to delete and 2.5 s to write again); the index is then
    as a new one is (``index_aggregates.counted_empty``), so the rows written next go in
    in bulk (``_bulk``)."""
    index_aggregates.pause(db)
    for table in ("sessions", "summaries", "search", *INSIGHT_TABLES, *index_aggregates.TABLES):
        db.execute(f"DELETE FROM {table}")
    index_aggregates.resume(db)


@contextlib.contextmanager
def _bulk(db: sqlite3.Connection) -> Iterator[bool]:
    """Inside the index's transaction: when the index has no row, the aggregates' triggers
    (``index_aggregates.pause``) and the secondary indexes of ``sessions`` are dropped for the
    ``with`` block, then the aggregates are counted from the rows and the indexes made (about
    0.1 ms a session less at 10,000 sessions); yields whether they were. An error inside leaves
    them dropped, for the transaction's rollback to restore."""
    if not index_aggregates.counted_empty(db):
        yield False
        return
    index_aggregates.pause(db)
    made = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sessions' "
                      "AND sql IS NOT NULL").fetchall()
    for name, _ in made:
        db.execute(f"DROP INDEX {name}")
    yield True
    for _, sql in made:
        db.execute(sql)
    index_aggregates.resume(db)


def _add_words(db: sqlite3.Connection, words: Mapping[str, Mapping[str, Sequence[str]]]) -> int:
    """``SessionIndex.add_words`` inside its transaction: each session's new texts joined to its
    search row's, field by field, without repeating a line. Returns how many rows changed."""
    changed = 0
    ids = _ids(db, words)
    for root, fields in words.items():
        if root not in ids:
            continue
        columns = [f for f in fields if f in WORD_FIELDS and fields[f]]
        old = db.execute(f"SELECT {', '.join(columns)} FROM search WHERE rowid = ?", (ids[root],)).fetchone()
        if not columns or old is None:
            continue
        new = []
        for before, column in zip(old, columns):
            added = [t.replace(MARKS[0], " ").replace(MARKS[1], " ") for t in fields[column]]
            lines = (before or "").split("\n") if before else []
            new.append("\n".join(dict.fromkeys(lines + added)))
        db.execute(f"UPDATE search SET {', '.join(c + ' = ?' for c in columns)} WHERE rowid = ?", (*new, ids[root]))
        changed += 1
    return changed


def _ids(db: sqlite3.Connection, roots: Iterable[str]) -> dict[str, int]:
    """The row ids of those of ``roots`` that have a row, by IRI (the caller holds the lock)."""
    wanted, found = list(roots), {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        found.update(db.execute(f"SELECT root, id FROM sessions WHERE root IN ({','.join('?' * len(chunk))})", chunk).fetchall())
    return found


def _parents(db: sqlite3.Connection, roots: Sequence[str]) -> list[str | None]:
    """The parent sessions (``parent`` column) of those of ``roots`` that have a row."""
    return list(_parent_map(db, roots).values())


def _parent_map(db: sqlite3.Connection, roots: Sequence[str]) -> dict[str, str | None]:
    """Root -> parent session (``parent`` column) of those of ``roots`` that have a row."""
    out: dict[str, str | None] = {}
    for start in range(0, len(roots), 500):
        chunk = list(roots[start:start + 500])
        out.update(db.execute(f"SELECT root, parent FROM sessions WHERE root IN ({','.join('?' * len(chunk))})",
                              chunk).fetchall())
    return out


def _refresh_totals(db: sqlite3.Connection, roots: Sequence[str], fresh: Iterable[str] = ()) -> None:
    """Set the totals with sub-sessions (README, "Totals"; ``model.totals``) of the rows of
    ``roots`` and of every row above them, from the rows themselves: a row's ``total_*``
    figures are its own plus its sub-sessions' totals (the rows whose ``parent`` is its root),
    the ``duration`` and ``tokens`` columns the totals. So a sub-session indexed before or after
    its parent counts, at any depth. ``fresh``: those of ``roots`` just written by
    ``index_row`` (their totals their own figures: left as they are unless they have
    sub-sessions). Rows are done deepest first, in memory, with a few batched queries; a loop
    of parents is cut (the caller holds the lock, inside a transaction)."""
    parent_of: dict[str, str | None] = {}
    level = list(dict.fromkeys(roots))
    for _ in range(_PARENT_LIMIT):
        level = [r for r in dict.fromkeys(level) if r not in parent_of]
        if not level:
            break
        found = _parent_map(db, level)
        parent_of.update((r, found.get(r)) for r in level)
        level = [p for p in found.values() if p]
    kids: dict[str, list[str]] = {}
    below = _summaries_where(db, "s.parent", list(parent_of))  # root -> (id, parent, summary)
    for root, (_, parent, _) in below.items():
        if parent is not None and root != parent:
            kids.setdefault(parent, []).append(root)
    # a row just written without sub-sessions already holds its own figures as its totals
    fresh = set(fresh)
    need = [r for r in parent_of if r in kids or r not in fresh]
    rows = {r: below[r] for r in need if r in below}
    rows.update(_summaries_where(db, "s.root", [r for r in need if r not in below]))
    below.update(rows)

    def depth(root: str) -> int:  # levels of parents above ``root`` (a loop counts once)
        seen, current = set(), parent_of.get(root)
        while current is not None and current not in seen and len(seen) < _PARENT_LIMIT:
            seen.add(current)
            current = parent_of.get(current)
        return len(seen)

    updates = []
    for root in sorted(rows, key=depth, reverse=True):  # sub-sessions before their parents
        row_id, _, summary = rows[root]
        subs = [below[k][2] for k in kids.get(root, ())]
        total = add_totals(summary, [{name: sub.get(TOTAL_PREFIX + name) for name in FIGURES} for sub in subs])
        summary.update({TOTAL_PREFIX + name: total[name] for name in FIGURES})
        summary["sub_sessions"] = sum(1 + (sub.get("sub_sessions") or 0) for sub in subs)
        updates.append((json.dumps(summary, ensure_ascii=False, sort_keys=True), total["duration_ms"], total["tokens"],
                        row_id))
    db.executemany("UPDATE summaries SET summary = ? WHERE id = ?", [(u[0], u[3]) for u in updates])
    db.executemany("UPDATE sessions SET duration = ?, tokens = ? WHERE id = ?", [u[1:] for u in updates])


def _summaries_where(db: sqlite3.Connection, column: str, values: Sequence[str]) -> dict[str, tuple]:
    """Root -> (row id, parent, summary dict) of the rows whose ``column`` ("s.root" or
    "s.parent") is one of ``values``, 500 at a time."""
    out: dict[str, tuple] = {}
    for start in range(0, len(values), 500):
        chunk = list(values[start:start + 500])
        found = db.execute(f"SELECT s.root, s.id, s.parent, m.summary FROM sessions s JOIN summaries m ON m.id = s.id "
                           f"WHERE {column} IN ({','.join('?' * len(chunk))})", chunk)
        out.update((root, (row_id, parent, json.loads(summary))) for root, row_id, parent, summary in found)
    return out


def _order_by(order: SessionOrder, reverse: bool = False) -> str:
    """The ORDER BY of ``order`` (``SessionIndex.page``); ``reverse``: the same order backwards
    (every term the other way, so that an index that serves the order serves it read backwards)."""
    column = _SORT_COLUMNS.get(order.key, "time")

    def term(expression: str, descending: bool) -> str:
        return f"{expression} DESC" if descending != reverse else expression

    if column == "root":
        return "ORDER BY " + term("root", order.descending)
    # missing values last, ties newest first, then by IRI
    terms = [] if column == "time" else [term(f"{column} IS NULL", False), term(column, order.descending)]
    terms += [term("time IS NULL", False), term("time", order.descending if column == "time" else True),
              term("root", False)]
    return "ORDER BY " + ", ".join(terms)


def _where(filters: SessionFilter, walk: bool = False, counting: bool = False,
           alone: bool = False) -> tuple[str, list[Any]]:
    """``FROM ... WHERE ...`` of the sessions matching ``filters``, and its parameters. A search
    starts from the full-text table (its matches, then each one's row by id): far fewer rows
    than the whole list when the words are rare, and no worse when they are common. ``walk``:
    the words searched are left out, for a caller that walks the list in its order and keeps
    the rows among their matches itself (``SessionIndex._walk``: a page of common words then
    stops after its rows, instead of sorting every match). ``counting``: a review filter
    (``index_reviews``) starts from its reviewed rows (a count, or a page of few:
    ``_few_reviewed``); ``alone``: for a count, which a review filter with no other answers from
    its reviewed rows alone."""
    clauses, params, tables = [], [], "sessions"
    reviews = filters.reviews if filters.reviews and filters.reviews.active else None
    if counting and reviews and not reviews.not_reviewed and not filters.needle:
        kept = index_reviews.ids_table(reviews)
        if alone and dataclasses.replace(filters, reviews=None).unfiltered:  # the reviewed rows alone
            return f"FROM temp.{kept}" + ("" if filters.include_sub else " WHERE listed_top = 1"), []
        tables, reviews = f"temp.{kept} AS kept CROSS JOIN sessions ON sessions.id = kept.id", None
    if filters.needle:
        if not walk:
            tables = "search CROSS JOIN sessions ON sessions.id = search.rowid"
            clauses.append("search MATCH ?")
            params.append(fts_query(filters.terms))
    if not filters.include_sub:
        clauses.append("top = 1")
    if filters.mechanisms:
        clauses.append(f"mechanism IN ({','.join('?' * len(filters.mechanisms))})")
        params += filters.mechanisms
    if filters.patterns:  # only an agent's row has a pattern
        clauses.append(f"pattern IN ({','.join('?' * len(filters.patterns))})")
        params += filters.patterns
    if filters.status:
        clauses.append("status = ?")
        params.append(filters.status)
    more = filter_clauses(filters)
    clauses, params = clauses + more[0], params + more[1]
    if reviews:  # on the ids ``attach_reviews`` kept
        clauses.append(index_reviews.clause(reviews))
    return f"FROM {tables}" + ((" WHERE " + " AND ".join(clauses)) if clauses else ""), params


# -- keeping the rows true to the traces -------------------------------------------------------
def summary_quads(quads: Iterable[ox.Quad | ox.Triple]) -> list[ox.Quad | ox.Triple]:
    """The quads (or triples) a row is read from (``INDEX_PREDICATES``: the summary and the
    searched words), in their order; the texts of the documents graph are looked up, not read
    here."""
    documents = ox.NamedNode(DOCUMENTS_GRAPH)
    return [q for q in quads if q.predicate.value in INDEX_PREDICATES
            and (q.predicate.value != _CONTENT or getattr(q, "graph_name", None) != documents)]


def texts_in_documents_graph(quads: Iterable[ox.Quad | ox.Triple]) -> dict[str, str]:
    """Document IRI -> text of the ``tg:content`` quads of the documents graph among ``quads``
    (how a store, an export or ``sync`` keeps the librarian's texts)."""
    documents = ox.NamedNode(DOCUMENTS_GRAPH)
    return {q.subject.value: q.object.value for q in quads if q.predicate.value == _CONTENT
            and getattr(q, "graph_name", None) == documents and isinstance(q.subject, ox.NamedNode)
            and isinstance(q.object, ox.Literal)}


def content_subjects(quads: Iterable[ox.Quad | ox.Triple]) -> set[str]:
    """The IRIs given a text (a ``tg:content`` quad, in any graph) among ``quads``: what mends
    a health finding that lacked their text (``analysis.health.mending``)."""
    return {q.subject.value for q in quads if q.predicate.value == _CONTENT and isinstance(q.subject, ox.NamedNode)}


def rows_from_store(store: ox.Store, roots: Sequence[str], documents: Mapping[str, str] | None = None) -> list[dict]:
    """Rows of ``roots`` read from ``store`` (each session with all its steps, wherever they
    came from), ``_BATCH`` sessions per query batch; the texts behind ``tg:document`` from
    ``documents`` (by default the store's documents graph)."""
    source = StoreSource(store, label="store")
    texts = documents if documents is not None else GraphTexts(store)
    out: list[dict] = []
    for start in range(0, len(roots), _BATCH):
        found = fetch_sessions(source, list(roots[start:start + _BATCH]), context=False, documents=texts)
        out.extend(index_row(s) for s in found.values())
    return out


def build_index(store: ox.Store, index: SessionIndex | None = None,
                documents: Mapping[str, str] | None = None, phases: Phases = NO_PHASES,
                rows_reader: RowsReader | None = None) -> SessionIndex:
    """(Re)build the rows of every session in ``store`` into ``index`` (a new in-memory index
    when None); returns the index. Reads every session once, from the summary and word triples,
    with the texts behind ``tg:document`` from ``documents`` (texts loaded beside the store: a
    ``*.documents.json``) or the store's documents graph. ``phases`` hears of the sessions read
    (``ingest_phases.INDEX``, its total once the store's summary triples are read) and of the rows
    written (``FULL_TEXT``, a ``_WRITE_BATCH`` at a time), as an ingest's do. ``rows_reader``
    (``RowsReader``: the health check's, ``analysis.health.in_pass``) reads the rows instead, from
    the store a batch of sessions at a time, each written as it is read, in the one pass its
    phase names (``INDEX_HEALTH``), as a large file's ingest does. The store's typed IRIs are read
    again too (``index_typed.rebuild``: one pass over its ``rdf:type`` quads)."""
    index = index or SessionIndex()
    if rows_reader is not None:
        _rebuild_read_by(store, index, rows_reader, phases)
    else:
        texts = GraphTexts(store, documents)
        phases.begin(INDEX)
        with collector_paused():
            reader = SessionReader(TripleIndex(stored_summary_quads(store, phases.step)), texts, graphs=False)
            phases.set_total(len(reader.roots))
            phases.step("")
            rows = []
            for root in reader.roots:
                rows.append(index_row(reader.read(root)))
                phases.advance(1)
        phases.begin(FULL_TEXT, len(rows))
        index.replace_batches(set(index.roots()) | {r["root"] for r in rows}, _counted_batches(rows, phases))
    with index._lock, index._db:
        mark_complete(index._db)
        index_previews.mark(index._db, True)
        index_typed.rebuild(index._db, store)
    phases.finish()
    return index


def _rebuild_read_by(store: ox.Store, index: SessionIndex, rows_reader: RowsReader, phases: Phases) -> None:
    """``build_index``'s rows read by ``rows_reader``: every session root of ``store``
    (``fetch.queried_roots``) read and written a batch at a time, in one transaction."""
    phases.begin(rows_reader.phase)
    phases.step("finding the sessions")
    roots = queried_roots(StoreSource(store, label="store"))
    phases.set_total(len(roots))
    phases.step("")

    def read() -> Iterator[list[dict]]:
        for rows in rows_reader.rows(roots, None, phases.step):
            phases.advance(len(rows))
            yield rows
        phases.step("making the list's indexes")

    phases.counted(FULL_TEXT, index.replace_batches(set(index.roots()) | set(roots), read()))


def stored_summary_quads(store: ox.Store, step: Callable[[str], None] = lambda what: None) -> Iterator[ox.Quad]:
    """The quads of ``store`` a row is read from (``summary_quads`` of every quad), read a
    predicate at a time from the store's predicate-first index, so that ``step`` can tell how far
    the read is (they are about 8 in 10 of a store's quads: it takes about the time of a pass
    over every quad). Their order differs from that pass's, which no row depends on: a file's
    rows are read in the file's order. ``step`` hears, before each
    predicate, how many of ``INDEX_PREDICATES`` are read ("reading the summary triples: 3 of
    29 predicates")."""
    documents = ox.NamedNode(DOCUMENTS_GRAPH)
    predicates = sorted(INDEX_PREDICATES)
    for done, predicate in enumerate(predicates):
        step(f"reading the summary triples: {done} of {len(predicates)} predicates")
        quads = store.quads_for_pattern(None, ox.NamedNode(predicate), None, None)
        if predicate == _CONTENT:  # the librarian's texts are looked up, not read here
            quads = (q for q in quads if q.graph_name != documents)
        yield from quads


def _counted_batches(rows: Sequence[dict], phases: Phases) -> Iterator[Sequence[dict]]:
    """``rows`` ``_WRITE_BATCH`` at a time for ``SessionIndex.replace_batches``, each counted on
    ``phases``' open bar once it is written (when the next is asked for), then the step that
    ends the transaction named."""
    for start in range(0, len(rows), _WRITE_BATCH):
        yield rows[start:start + _WRITE_BATCH]
        phases.advance(len(rows[start:start + _WRITE_BATCH]))
    phases.step("making the list's indexes")


class IndexUpdate:
    """What adding one file's quads to a store does to the index, in three steps:

    1. ``IndexUpdate(store, index, quads)``, before the quads go in: keeps the triples a summary
       needs and notes which of the file's sessions the store already has (indexed, or with
       steps derived from their Question);
    2. ``read()``, before, during or after the write (it does not touch the store): reads the
       sessions whose Question is in the file and new to the store, from the file, and finds
       the sessions outside the file that its steps extend (by IRI, ``model.roots.step_owner``,
       or by a derivation to an entity outside the file: a later step, a sub-session's parent);
    3. ``apply(files)``, after the write: reads those and the known ones again from the store
       and writes every row, with the file's typed IRIs (``index_typed``; ``fresh``: the store
       was empty before the file).
    """

    def __init__(self, store: ox.Store, index: SessionIndex, quads: Sequence[ox.Quad],
                 documents: Mapping[str, str] | None = None, fresh: bool = False):
        self.store, self.index = store, index
        self.texts = GraphTexts(store, documents)  # the file's texts, then the store's
        with collector_paused():  # a file's quads are millions of live objects: nothing to collect
            self.quads = summary_quads(quads)
            in_file = root_iris(self.quads)
            keep = fresh or index.typed_complete()
            self.typed = TypedWrite(fresh, set(index_typed.typed_iris_of(self.quads))) if keep else index_typed.UNKNOWN
        self.known = index.has(in_file) | _derived_from(store, in_file)
        # texts new to the store whose steps are already there: their sessions' words (and
        # answers' previews) change; a file's documents graph may bring them as well as a content file
        # the texts among the file's quads, found in one pass (none looked for in a store empty
        # before: no step of it lacks them, and it held no finding to mend)
        given = [] if fresh else [q for q in quads if q.predicate.value == _CONTENT]
        self.documents_of_known = documents_named(store, {**texts_in_documents_graph(given), **(documents or {})})
        # the IRIs the file gives a text to, for the health check's mending
        self.texts_given = content_subjects(given) | set(documents or ())
        self.rows: list[dict] = []
        self.outside: set[str] = set(self.known)
        self.from_file: list[str] = []
        self.dangling: list[str] = []

    def read(self, phases: Phases = NO_PHASES) -> None:
        """Read the file's new sessions and what else it extends (step 2); ``phases`` hears of
        the sessions read (``ingest_phases.INDEX``)."""
        with collector_paused():
            self._read(phases)

    def _read(self, phases: Phases) -> None:
        triples = TripleIndex(self.quads)
        self.quads = []
        reader = SessionReader(triples, self.texts, graphs=False)
        self.from_file = [r for r in reader.roots if r not in self.known]
        phases.begin(INDEX, len(self.from_file))
        self.rows = []
        for start in range(0, len(self.from_file), _BATCH):
            self.rows += [index_row(reader.read(r)) for r in self.from_file[start:start + _BATCH]]
            phases.advance(len(self.from_file[start:start + _BATCH]))
        members = {m for r in reader.roots for m in reader.members(r)}
        dangling: set[str] = set()
        for subject in triples.properties:
            owner = step_owner(subject) if subject not in members else None
            if owner is not None:
                self.outside.add(owner)
            for parent in triples.iris(subject, WAS_DERIVED_FROM):
                if parent not in triples.properties:
                    owner = step_owner(parent)
                    if owner is not None:
                        self.outside.add(owner)
                    else:
                        dangling.add(parent)
        self.dangling = sorted(dangling)

    def apply(self, files: Iterable[tuple[str, str]] = (), phases: Phases = NO_PHASES) -> int:
        """Write the rows, once the file's quads are in the store (step 3); returns how many.
        ``phases`` hears of the rows written (``ingest_phases.FULL_TEXT``)."""
        outside = (self.outside | _roots_above(self.store, self.dangling)) - set(self.from_file)
        rows = self.rows + rows_from_store(self.store, sorted(outside), self.texts)
        phases.begin(FULL_TEXT, len(rows))
        self.index.replace(sorted(outside), rows, files, self.typed)
        phases.advance(len(rows))
        add_words_of_new_texts(self.index, self.store, self.texts, self.documents_of_known,
                               outside | set(self.from_file), phases)
        return len(rows)


def add_words_of_new_texts(index: SessionIndex, store: ox.Store, texts: Mapping[str, str],
                           documents: Sequence[str], written: set[str], phases: Phases = NO_PHASES) -> None:
    """Add to ``index`` the words ``words_of_new_texts`` finds; ``phases`` hears of the
    documents looked up (``ingest_phases.WORDS``: seconds for a content file of 20,000 texts
    into a store of 10,000 sessions) and of the write after them."""
    if not documents:
        return
    phases.begin(WORDS, len(documents))
    words = words_of_new_texts(store, texts, documents, written, progress=phases.advance)
    phases.step("writing the words")
    index.add_words(words, store)


def words_of_new_texts(store: ox.Store, texts: Mapping[str, str], documents: Sequence[str],
                       written: set[str], progress: Callable[[int], None] | None = None,
                       ) -> dict[str, dict[str, list[str]]]:
    """The words that the texts of ``documents`` (new to the store, and pointed at by steps it
    had: ``documents_named``) add to sessions already indexed and not among ``written`` (read
    with the texts just now), ``{root: {field: [text, …]}}``, found in ``store`` once the texts
    are in it (``words_of_documents``, which calls ``progress``; a step whose IRI does not name
    its session is followed to its roots)."""
    by_root, by_step = words_of_documents(store, texts, documents, progress)
    owners = _roots_of(store, sorted(by_step), pointed=True)
    for step, words in by_step.items():
        for root in owners.get(step, ()):
            for field, found in words.items():
                by_root.setdefault(root, {}).setdefault(field, []).extend(found)
    return {root: words for root, words in by_root.items() if root not in written}


_ROOT_TYPES = frozenset({QUESTION}) | SUBTYPES.keys()  # a subject typed one of these is a root (``model.roots.is_root``)
_ROOT_SHAPES = tuple(prefix for prefix, _ in ROOT_PREFIXES)  # ... as is one of these with a ``tg:query``
_ROOT_TYPES_WRITTEN = frozenset(f"<{t}>".encode() for t in _ROOT_TYPES)  # as ``TriplesText`` writes them
_ROOT_SHAPES_WRITTEN = tuple(f"<{p}".encode() for p in _ROOT_SHAPES)
_RDF_TYPE_BYTES, _QUERY_BYTES, _DERIVED_BYTES = RDF_TYPE.encode(), QUERY.encode(), WAS_DERIVED_FROM.encode()
_CONTENT_WRITTEN = f" <{_CONTENT}> ".encode()


class RowsReader:
    """Reads the index rows of a streamed file's sessions (``StreamedIndexUpdate.apply``) in
    place of its own summary reader, for a reader that does more with each session as it goes
    (the health check: ``analysis.health.in_pass``). ``phase``: the ``ingest_phases`` phase
    its pass is reported as."""

    phase = INDEX

    def rows(self, roots: Sequence[str], triples_of: Callable[[list[str]], list[ox.Quad]] | None,
             step: Callable[[str], None] | None = None) -> Iterator[list[dict]]:
        """The ``index_row`` dicts of ``roots`` (IRI order), ``_BATCH`` roots a batch, batch by
        batch in their order (roots the store lacks left out). ``triples_of``: where their
        triples are kept (``written_triples``; None: in the store only). ``step(what)``: what
        the reader does before its first batch (starting its workers; "" once it is back)."""
        raise NotImplementedError


class StreamedIndexUpdate:
    """What adding a file's quads to a store a batch at a time (``read.rdf_stream``) does to the
    index, holding IRIs (a few a session), never the quads:

    1. ``note(quads)`` for each batch, as it goes in: the sessions it touches (the roots among
       its subjects, as ``model.roots.is_root`` tells them; the roots its steps' IRIs name,
       ``model.roots.step_owner``) and the entities its steps derive from that the file has not
       described so far (another session's step, a sub-session's parent);
    2. ``apply(files)``, once every batch is in: adds the sessions those entities belong to in
       the store, reads every touched session from the store (all its steps, wherever they came
       from), ``_BATCH`` at a time, and writes their rows batch by batch in one transaction,
       with the file's digest (``SessionIndex.replace_batches``); then adds the words (and
       answers' previews) of the texts the file brought for sessions it did not re-read, as
       ``IndexUpdate`` does (``words_of_new_texts``).

    The same sessions get the same rows as ``IndexUpdate`` gives them, read from the store
    rather than from the file; or, when ``triples_of`` is given (``written_triples``: what was
    written into a store empty before, kept in memory), from what it gives
    (``triples_of(roots)``: the sessions' triples as ``fetch.session_triples`` reads them, or as
    quads of the default graph).

    ``stage_typed``: each batch's typed IRIs are kept in a temporary table of the index
    (``SessionIndex.stage_typed``) and added to the store's in the rows' transaction
    (``typed_write``), so that the index keeps every typed IRI of the store without holding a
    file's in memory."""

    def __init__(self, store: ox.Store, index: SessionIndex,
                 triples_of: Callable[[list[str]], list[ox.Triple | ox.Quad]] | None = None,
                 stage_typed: bool = False, fresh: bool = False):
        self.store, self.index, self.triples_of = store, index, triples_of
        # texts (in the documents graph) for steps the store had: their sessions' words and
        # answers' previews change (``apply``); only IRIs are held. None in a store empty before
        self.fresh = fresh
        self.documents_of_known: list[str] = []
        self.touched: set[str] = set()
        self.undescribed: set[str] = set()  # derivation targets no batch so far described
        self.texts_given: set[str] = set()  # as ``IndexUpdate.texts_given``
        self.stage_typed = stage_typed
        index.clear_staged_typed()  # nothing of a write that failed

    def note(self, quads: Sequence[ox.Quad], text: TriplesText | None = None) -> None:
        """Note what one batch touches (step 1). ``text``: ``quads`` as ``TriplesText``, when
        the caller has it already."""
        text = text if text is not None else TriplesText(quads)
        if not self.fresh and _CONTENT_WRITTEN in text.text:
            self.documents_of_known += documents_named(self.store, texts_in_documents_graph(quads))
            self.texts_given |= subjects_of(text.text, _CONTENT)
        subjects = text.subjects()
        touched = self.touched
        typed: set[bytes] = set()
        stage_typed = self.stage_typed
        targets: set[str] = set()
        for subject, predicate, obj in text.noted():
            if subject[:1] != b"<":
                continue
            if predicate == _RDF_TYPE_BYTES:
                if stage_typed and b"/" in subject:
                    typed.add(subject)
                if obj in _ROOT_TYPES_WRITTEN:
                    touched.add(triple_iri(subject))
            elif predicate == _QUERY_BYTES:
                if subject.startswith(_ROOT_SHAPES_WRITTEN):
                    touched.add(triple_iri(subject))
            elif predicate == _DERIVED_BYTES and is_iri(obj):
                targets.add(triple_iri(obj))
        for iri in subjects:
            owner = step_owner(iri)
            if owner is not None:
                touched.add(owner)
        self.undescribed -= subjects
        for target in targets - subjects:
            owner = step_owner(target)
            if owner is not None:
                touched.add(owner)
            else:
                self.undescribed.add(target)
        if typed:
            self.index.stage_typed({triple_iri(subject) for subject in typed})

    def typed_write(self, fresh: bool) -> TypedWrite:
        """What the file did to the store's typed IRIs (``fresh``: the store was empty before
        it): those staged, or, when they were not, unknown (the index's are no longer whole)."""
        return TypedWrite(fresh) if self.stage_typed else index_typed.UNKNOWN

    def apply(self, files: Iterable[tuple[str, str]] = (), phases: Phases = NO_PHASES,
              rows_reader: RowsReader | None = None, typed: TypedWrite | None = None) -> int:
        """Read and write the rows, once every batch is in the store (step 2); returns how
        many. ``phases`` hears of the sessions read, their rows written as they are read
        (``ingest_phases.INDEX``), then of the rows in all (``FULL_TEXT``, at once).
        ``rows_reader``: reads the rows instead (``RowsReader``). ``typed``: what the file did
        to the store's typed IRIs (``index_typed.TypedWrite``; by default ``typed_write(False)``)."""
        roots = sorted(self.touched | _roots_above(self.store, sorted(self.undescribed)))
        texts = GraphTexts(self.store)
        phases.begin(INDEX if rows_reader is None else rows_reader.phase, len(roots))

        def read() -> Iterable[list[dict]]:
            for rows in rows_reader.rows(roots, self.triples_of, phases.step):
                phases.advance(len(rows))
                yield rows
            phases.step("writing the rows")  # what follows the last: the typed IRIs, the commit

        def batches() -> Iterable[list[dict]]:
            for start in range(0, len(roots), _BATCH):
                chunk = roots[start:start + _BATCH]
                with collector_paused():
                    if self.triples_of is None:
                        rows = rows_from_store(self.store, chunk, texts)
                    else:
                        reader = SessionReader(TripleIndex(summary_quads(self.triples_of(chunk))), texts,
                                               graphs=False)
                        rows = [index_row(reader.read(r)) for r in chunk if r in reader.roots]
                phases.advance(len(chunk))
                yield rows
            phases.step("writing the rows")

        written = self.index.replace_batches(roots, batches() if rows_reader is None else read(), files,
                                             typed if typed is not None else self.typed_write(False))
        phases.counted(FULL_TEXT, written)
        add_words_of_new_texts(self.index, self.store, texts, self.documents_of_known, set(roots), phases)  # written as they were read: the index pass took their time
        return written


def _derived_from(store: ox.Store, roots: Sequence[str]) -> set[str]:
    """Those of ``roots`` that ``store`` already has steps derived from."""
    derived = ox.NamedNode(WAS_DERIVED_FROM)
    return {r for r in roots if any(True for _ in store.quads_for_pattern(None, derived, ox.NamedNode(r), None))}


def _roots_of(store: ox.Store, entities: Sequence[str], pointed: bool = False) -> dict[str, set[str]]:
    """The session roots each of ``entities`` (IRIs in the store) derives from, through
    ``prov:wasDerivedFrom``/``prov:wasGeneratedBy`` (itself when it is one), by entity: one
    query a batch. ``pointed``: an entity a step points at (a reranker's ChunkSelection, an
    EdgeSelection, a Thought: ``tg:selectedChunk``, ``tg:selectedEdge``, ``tg:thought``), which
    derives from nothing, belongs to the sessions of that step."""
    out: dict[str, set[str]] = {}
    path = f"(^tg:selectedChunk|^tg:selectedEdge|^tg:thought)?/{DERIVED}*" if pointed else f"{DERIVED}*"
    for chunk in iri_batches(entities):
        rows = store.query(PREFIXES + f"""SELECT DISTINCT ?e ?root WHERE {{ {values_clause('e', chunk)}
  ?e {path} ?root . {ROOTS} }}""", use_default_graph_as_union=True)
        for row in rows:
            if isinstance(row["root"], ox.NamedNode) and isinstance(row["e"], ox.NamedNode):
                out.setdefault(row["e"].value, set()).add(row["root"].value)
    return out


def _roots_above(store: ox.Store, entities: Sequence[str]) -> set[str]:
    """The session roots that ``entities`` (IRIs in the store) derive from, through
    ``prov:wasDerivedFrom``/``prov:wasGeneratedBy``; those that are roots themselves too."""
    return set().union(*_roots_of(store, entities).values())
