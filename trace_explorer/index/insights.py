"""What the session index keeps beside each session's row for health and insights, in tables of
its own in the same SQLite file (``session_index``):

- ``insight_tools``: one row per tool call (an Analysis with ``tg:action``): the tool, its
  duration (the Observation's ``tg:toolDurationMs``) and whether it failed; a reply of the model
  that could not be parsed (``tg:action "__parse_error__"``) is no tool call;
- ``insight_llm``: one row per step that called an LLM (``tg:llmDurationMs``, tokens or model);
- ``insight_sessions``: the session's termination reason and how many replies of the model could
  not be parsed;
- ``health``: the counts of each severity and the rule ids ``analysis.health.checks`` found in the
  session (written by ``analysis.health.index``; a session whose row is rewritten loses it until
  it is checked again).

The first three are written with the session's row (``session_index.SessionIndex.replace``),
from the session as the index reads it (``insight_row``). They answer ``analysis.stats`` and the
list's tool, model, termination and health filters with queries that read no session.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..model.session import Session
from ..model.vocabulary import TG
from ..sources.filter import SessionFilter
from ..sources.source import SourceError
from ..sources.sparql_text import literal

# Predicates the index reads beyond a summary's, for these rows.
HealthRecord = tuple[str, int, int, int, str, "str | None"]  # root, errors, warnings, infos, rule ids and
# wants (``analysis.health.mending``), each joined by spaces

INSIGHT_PREDICATES = frozenset(TG + name for name in (
    "llmDurationMs", "toolDurationMs", "inToken", "outToken", "llmModel", "terminationReason"))

SCHEMA = """
CREATE TABLE IF NOT EXISTS insight_tools (root TEXT NOT NULL, tool TEXT NOT NULL, ms INTEGER, error INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS insight_tools_root ON insight_tools (root);
CREATE INDEX IF NOT EXISTS insight_tools_tool ON insight_tools (tool, root);
CREATE TABLE IF NOT EXISTS insight_llm (root TEXT NOT NULL, model TEXT, ms INTEGER, tokens_in INTEGER, tokens_out INTEGER);
CREATE INDEX IF NOT EXISTS insight_llm_root ON insight_llm (root);
CREATE INDEX IF NOT EXISTS insight_llm_model ON insight_llm (model, root);
CREATE TABLE IF NOT EXISTS insight_sessions (root TEXT PRIMARY KEY, termination TEXT, parse_errors INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS health (root TEXT PRIMARY KEY, errors INTEGER NOT NULL, warnings INTEGER NOT NULL,
                                   infos INTEGER NOT NULL, rules TEXT NOT NULL, wants TEXT);
"""
# The tables above: a session index of another version drops them with its own.
TABLES = ("insight_tools", "insight_llm", "insight_sessions", "health")
COMPLETE_KEY = "insights"  # meta key: every row of the index has its insight rows
# meta key: a file went in (its record written with its rows, in one transaction) since the
# findings a later file may mend were last looked at (``refresh_health`` after an ingest)
MENDING_DUE_KEY = "health_mending_due"
HEALTH_CHOICES = ("errors", "warnings", "infos", "clean", "unchecked")


def insight_row(session: Session) -> dict[str, Any]:
    """The insight fields of one session's index row: ``tools`` ([tool, ms or None, 0/1 error]
    per tool call, in order), ``llm`` ([model, ms, tokens in, tokens out] per LLM call),
    ``termination`` (the ``tg:terminationReason`` of its last step that has one, or None) and
    ``parse_errors`` (``Session.parse_errors``: replies of the model that could not be parsed)."""
    tools, llm, termination = [], [], None
    for step in session.steps:
        fields = step.fields
        if step.kind == "Analysis" and fields.get("action"):
            observation = session.nodes.get(fields.get("observation_id") or "")
            ms = observation.fields.get("tool_duration_ms") if observation else fields.get("tool_duration_ms")
            tools.append([fields["action"], ms, 1 if fields.get("error") is not None else 0])
        if any(fields.get(k) is not None for k in ("llm_duration_ms", "in_tokens", "out_tokens", "model")):
            llm.append([fields.get("model"), fields.get("llm_duration_ms"), fields.get("in_tokens"),
                        fields.get("out_tokens")])
        if fields.get("termination_reason"):
            termination = fields["termination_reason"]
    return {"tools": tools, "llm": llm, "termination": termination, "parse_errors": session.parse_errors}


def prepare(db: sqlite3.Connection, fresh: bool) -> None:
    """Create the tables (in a writable index); ``fresh``: the index has no session yet, so every
    row it gets will have its insight rows."""
    db.executescript(SCHEMA)
    if "wants" not in {column for _, column, *_ in db.execute("PRAGMA table_info(health)")}:
        # an index written before the column: its rows' wants are unknown (NULL), so their
        # sessions are checked again after an ingest, as they always were
        db.execute("ALTER TABLE health ADD COLUMN wants TEXT")
    if fresh:
        mark_complete(db)


def mark_complete(db: sqlite3.Connection) -> None:
    """Note that every session of the index has its insight rows (after a whole rebuild)."""
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, '1')", (COMPLETE_KEY,))


def write_rows(db: sqlite3.Connection, drop: Iterable[str], rows: list[dict]) -> None:
    """Inside the index's transaction: forget the insight and health rows of ``drop`` and of the
    sessions in ``rows``, and write the insight rows of ``rows`` (``index_row`` dicts; a row
    without ``insights`` gets none)."""
    forget_rows(db, [*drop, *(row["root"] for row in rows)])
    add_rows(db, rows)


def forget_rows(db: sqlite3.Connection, roots: Iterable[str]) -> None:
    """Inside the index's transaction: forget the insight and health rows of ``roots``."""
    roots = [(r,) for r in roots]
    for table in TABLES:
        db.executemany(f"DELETE FROM {table} WHERE root = ?", roots)


def add_rows(db: sqlite3.Connection, rows: list[dict]) -> None:
    """Inside the index's transaction: write the insight rows of ``rows`` (``index_row`` dicts;
    ``insights`` as JSON text or as its dict; a row without it gets none), for sessions that
    have none (``forget_rows``)."""
    facts = [(row["root"], _facts(row["insights"])) for row in rows if row.get("insights")]
    db.executemany("INSERT INTO insight_tools VALUES (?, ?, ?, ?)",
                   ((root, *call) for root, fact in facts for call in fact["tools"]))
    db.executemany("INSERT INTO insight_llm VALUES (?, ?, ?, ?, ?)",
                   ((root, *call) for root, fact in facts for call in fact["llm"]))
    db.executemany("INSERT INTO insight_sessions VALUES (?, ?, ?)",
                   ((root, fact["termination"], fact.get("parse_errors", 0)) for root, fact in facts))


def _facts(insights: str | Mapping[str, Any]) -> Mapping[str, Any]:
    return json.loads(insights) if isinstance(insights, str) else insights


# The sessions that made a call (``calls``: a query of roots) and every session above them: a
# session's calls count its sub-sessions' (docs/reading-traces.md, "Totals"), as the SPARQL filters do.
_OR_ABOVE = ("root IN (WITH RECURSIVE found(root) AS ({calls} UNION "
             "SELECT s.parent FROM sessions s JOIN found f ON s.root = f.root WHERE s.parent IS NOT NULL) "
             "SELECT root FROM found)")


# The values of a column of an insight table equal to the parameter whatever their case (the
# spellings recorded: "GPT-4o" and "gpt-4o" for gpt-4o), by a skip over the column's index, one
# seek a distinct value: ``column = ? COLLATE NOCASE`` cannot use the index, and reads every row
# (at a million LLM calls, 110 ms against 5).
_SPELLINGS = ("SELECT v FROM (WITH RECURSIVE spelled(v) AS (SELECT MIN({column}) FROM {table} UNION ALL "
              "SELECT (SELECT MIN({column}) FROM {table} WHERE {column} > v) FROM spelled WHERE v IS NOT NULL) "
              "SELECT v FROM spelled) WHERE v = ? COLLATE NOCASE")
_TOOL_SPELLINGS = "tool IN (" + _SPELLINGS.format(column="tool", table="insight_tools") + ")"


def filter_clauses(filters: SessionFilter) -> tuple[list[str], list[Any]]:
    """SQL conditions on ``sessions.root`` for the filters this module answers: ``tool``,
    ``failed_tool`` and ``model`` (a session that made such a call, or one of its sub-sessions, at
    any depth), ``termination`` (the session's own) and ``health`` (one of HEALTH_CHOICES, or a
    rule id). Tool, model and termination are matched ignoring case (``SessionFilter``; SQLite's
    NOCASE: ASCII letters)."""
    clauses: list[str] = []
    params: list[Any] = []
    if filters.tool:
        clauses.append(_OR_ABOVE.format(calls=f"SELECT root FROM insight_tools WHERE {_TOOL_SPELLINGS}"))
        params.append(filters.tool)
    if filters.failed_tool:
        clauses.append(_OR_ABOVE.format(calls=f"SELECT root FROM insight_tools WHERE {_TOOL_SPELLINGS} AND error = 1"))
        params.append(filters.failed_tool)
    if filters.model:
        clauses.append(_OR_ABOVE.format(calls="SELECT root FROM insight_llm WHERE model IN ("
                                              + _SPELLINGS.format(column="model", table="insight_llm") + ")"))
        params.append(filters.model)
    if filters.termination:
        if filters.termination.lower() == NO_TERMINATION:
            clauses.append("root IN (SELECT root FROM insight_sessions WHERE termination IS NULL)")
        else:  # no index on it: every row is read either way
            clauses.append("root IN (SELECT root FROM insight_sessions WHERE termination = ? COLLATE NOCASE)")
            params.append(filters.termination)
    if filters.health:
        clauses.append(_HEALTH_SQL.get(filters.health, "root IN (SELECT root FROM health WHERE ' ' || rules || ' ' LIKE ?)"))
        if filters.health not in _HEALTH_SQL:
            params.append(f"% {filters.health} %")
    return clauses, params


def sparql_clauses(filters: SessionFilter) -> list[str]:
    """The same filters as SPARQL on the traces themselves (a source without an index): a step
    derived from the root (sub-sessions' steps too) with that tool, model or termination reason,
    ignoring case (``LCASE``). Raises SourceError for ``health``, which only a session index knows."""
    parts = []
    for field, predicate in (("tool", "tg:action"), ("model", "tg:llmModel"), ("termination", "tg:terminationReason")):
        value = getattr(filters, field)
        if not value:
            continue
        if field == "termination" and value.lower() == NO_TERMINATION:
            parts.append(f"  MINUS {{ ?{field}Step prov:wasDerivedFrom+ ?root ; {predicate} ?{field}Value }}")
        else:  # a join, not EXISTS: not every server evaluates a property path inside EXISTS
            parts.append(f"  ?{field}Step prov:wasDerivedFrom+ ?root ; {predicate} ?{field}Value "
                         f"FILTER({_same_name(f'?{field}Value', value)})")
    if filters.failed_tool:  # the error on the call (seed shape) or on its Observation
        parts.append(f"  ?failedStep prov:wasDerivedFrom+ ?root ; tg:action ?failedTool "
                     f"FILTER({_same_name('?failedTool', filters.failed_tool)})\n"
                     "  { ?failedStep tg:toolError ?failedError } UNION "
                     "{ ?failedObservation prov:wasDerivedFrom ?failedStep ; tg:toolError ?failedError }")
    if filters.health:
        raise SourceError("the health filter needs a session index (a local store or files), not a SPARQL endpoint")
    return parts


def _same_name(variable: str, value: str) -> str:
    """A SPARQL test that ``variable`` is the name ``value`` whatever the case of either."""
    return f"LCASE(STR({variable})) = LCASE({literal(value)})"


NO_TERMINATION = "none"  # the termination "reason" of a session that records none
# Each a lookup of the row's own health row (by its key), so a page in the list's order stops
# once it is full; ``root IN (SELECT ...)`` read every matching health row first (at 10,000
# sessions 12 ms of CPU a page for "warnings", growing with the store).
_HEALTH_ROW = "EXISTS (SELECT 1 FROM health h WHERE h.root = sessions.root{})"
_HEALTH_SQL = {
    "errors": _HEALTH_ROW.format(" AND h.errors > 0"),
    "warnings": _HEALTH_ROW.format(" AND h.errors = 0 AND h.warnings > 0"),
    "infos": _HEALTH_ROW.format(" AND h.errors = 0 AND h.warnings = 0 AND h.infos > 0"),
    "clean": _HEALTH_ROW.format(" AND h.errors + h.warnings + h.infos = 0"),
    "unchecked": "NOT " + _HEALTH_ROW.format(""),
}


# -- health rows (computed by analysis.health, kept here) -------------------------------------------
def unchecked_roots(index) -> list[str]:
    """The sessions of ``index`` (a ``session_index.SessionIndex``) with no health row, in IRI order."""
    return [r for (r,) in index._query("SELECT root FROM sessions WHERE root NOT IN (SELECT root FROM health) ORDER BY root")]


def write_health(index, rows: dict[str, dict[str, Any]]) -> None:
    """Write health rows: ``{root: {"error": n, "warning": n, "info": n, "rules": [ids]}}``."""
    write_health_records(index, (health_record(r, v) for r, v in rows.items()))


def health_record(root: str, row: Mapping[str, Any]) -> HealthRecord:
    """A health row (``{"error", "warning", "info", "rules", "wants"}``, ``wants`` optional) as
    the table holds it: ``(root, errors, warnings, infos, "rule rule ...", wants)``, a fifth of
    the dict's memory."""
    return root, row["error"], row["warning"], row["info"], " ".join(row["rules"]), row.get("wants")


def write_health_records(index, records: Iterable[HealthRecord]) -> None:
    """Write ``health_record`` tuples (a session's row replaced)."""
    with index._lock, index._db:
        index._db.executemany("INSERT OR REPLACE INTO health VALUES (?, ?, ?, ?, ?, ?)", records)


_HELD = ("CREATE TEMP TABLE IF NOT EXISTS health_held (root TEXT PRIMARY KEY, errors INTEGER, warnings INTEGER, "
         "infos INTEGER, rules TEXT, wants TEXT)")


def hold_health(index, records: Iterable[HealthRecord], clear: bool = False) -> None:
    """Keep ``health_record`` tuples in a temporary table of the index's connection until
    ``write_held_health``, rather than in memory (at 100,000 sessions, 20 to 40 MB of them).
    Only from inside the index's own write (``SessionIndex.replace_batches``, which holds its
    lock and transaction while it reads the rows being written): a write that fails takes them
    with it. ``clear``: forget those held before (of a pass that failed)."""
    index._db.execute(_HELD)
    if clear:
        index._db.execute("DELETE FROM health_held")
    index._db.executemany("INSERT OR REPLACE INTO health_held VALUES (?, ?, ?, ?, ?, ?)", records)


def write_held_health(index) -> list[str]:
    """Write the health rows ``hold_health`` kept (a session's row replaced) and forget them;
    returns their roots."""
    with index._lock, index._db:
        index._db.execute(_HELD)
        roots = [root for (root,) in index._db.execute("SELECT root FROM health_held")]
        index._db.execute("INSERT OR REPLACE INTO health (root, errors, warnings, infos, rules, wants) "
                          "SELECT root, errors, warnings, infos, rules, wants FROM health_held")
        index._db.execute("DELETE FROM health_held")
    return roots


def note_mending_due(db: sqlite3.Connection) -> None:
    """Mark, in the transaction that records an ingested file, that the findings a later file may
    mend are to be looked at again (``mending_due``)."""
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, '1')", (MENDING_DUE_KEY,))


def mending_due(index) -> bool:
    """True when a file went in and the findings it may mend were not looked at since: the
    health check after it did not finish (a Ctrl-C, a kill, ``ingest --no-health``)."""
    return bool(index._query("SELECT 1 FROM meta WHERE key = ?", (MENDING_DUE_KEY,)))


def mending_done(index) -> None:
    """Clear the mark ``note_mending_due`` left, once the findings are looked at again."""
    with index._lock, index._db:
        index._db.execute("DELETE FROM meta WHERE key = ?", (MENDING_DUE_KEY,))


def forget_health(index, rules: Iterable[str], keep: Iterable[str] = (),
                  mended: Callable[[list[str]], set[str]] | None = None) -> int:
    """Drop the health rows of sessions in which any of ``rules`` was found (they are checked
    again: what a later file adds, a text or a derivation target, may mend them), but for the
    sessions ``keep`` (roots checked after the last write); returns how many. ``mended(wants)``:
    those of the wants given (``analysis.health.mending``) that the store now has; when given,
    a row whose wants are known is dropped only when one of them is among those."""
    rules = list(rules)
    if not rules:
        return 0
    like = " OR ".join("' ' || rules || ' ' LIKE ?" for _ in rules)
    params = [f"% {r} %" for r in rules]
    with index._lock, index._db:
        db = index._db
        for table in ("health_kept", "health_mended"):
            db.execute(f"CREATE TEMP TABLE IF NOT EXISTS {table} (root TEXT PRIMARY KEY)")
            db.execute(f"DELETE FROM {table}")
        db.executemany("INSERT OR IGNORE INTO health_kept VALUES (?)", ((r,) for r in keep))
        if mended is None:
            return db.execute(f"DELETE FROM health WHERE ({like}) AND root NOT IN (SELECT root FROM health_kept)",
                              params).rowcount
        known = db.execute(f"SELECT root, wants FROM health WHERE ({like}) AND wants IS NOT NULL AND wants != '' "
                           "AND root NOT IN (SELECT root FROM health_kept)", params).fetchall()
        now = mended(sorted({want for _, wants in known for want in wants.split()}))
        db.executemany("INSERT OR IGNORE INTO health_mended VALUES (?)",
                       ((root,) for root, wants in known if not now.isdisjoint(wants.split())))
        return db.execute(f"DELETE FROM health WHERE ({like}) AND root NOT IN (SELECT root FROM health_kept) "
                          "AND (wants IS NULL OR root IN (SELECT root FROM health_mended))", params).rowcount


def health_of(index, roots: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The health rows of ``roots`` that have one: ``{root: {"error", "warning", "info", "rules"}}``."""
    wanted, out = list(roots), {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        found = index._query(f"SELECT root, errors, warnings, infos, rules FROM health "
                             f"WHERE root IN ({','.join('?' * len(chunk))})", chunk)
        out.update((r, {"error": e, "warning": w, "info": i, "rules": rules.split()}) for r, e, w, i, rules in found)
    return out
