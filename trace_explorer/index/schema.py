"""The session index's SQLite tables, the triples a row is read from, and a session's row
(``index_row``): what the list sorts, filters and searches on."""

from __future__ import annotations

import json
from datetime import timezone
from typing import Any

from ..model.session import Session
from ..model.summary import session_summary
from ..model.vocabulary import (
    PROV,
    QUERY,
    RDF_TYPE,
    SELECTED_CHUNK,
    SELECTED_EDGE,
    STARTED_AT_TIME,
    TG,
    THOUGHT,
    WAS_DERIVED_FROM,
)
from ..model.words import WORD_FIELDS, session_words
from ..sources.search import MARKS, fold
from . import typed as index_typed
from .insights import INSIGHT_PREDICATES, insight_row

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
    ``search.fold``), ``duration`` (ms) and ``tokens`` (with sub-sessions, docs/reading-traces.md, "Totals": the
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
