"""Counts the session index keeps up to date as rows are written, so that the list's "1-50 of N"
and the statistics of every session (``stats --all``) read a few small tables instead of every
row: their cost does not grow with the store (docs/performance.md, "At scale").

SQLite triggers on the index's tables (``session_index``'s ``sessions``, ``session_insights``'
``health``, ``insight_tools``, ``insight_llm``, ``insight_sessions``) add or take one off a
count whenever a row is inserted, deleted or changed, whoever writes it, inside the writer's
own transaction:

- ``list_counts``: sessions by (top-level or not, mechanism, pattern, status, health class:
  one of ``session_insights.HEALTH_CHOICES`` but a rule id); a count of the list under any
  mix of those filters is a sum of a few of its rows (``count``);
- ``stats_periods`` (sessions by scope ("all": every session; "top": the top-level ones), unit
  ("day", "week" from its Monday, "month"), UTC period of that unit, mechanism and pattern: a
  dated session counts in three rows of "all", a top-level one in three of "top" too, so that
  either series is read in its order, not grouped),
  ``stats_steps`` (sessions by steps) and ``stats_termination`` (sessions and unparsed replies
  by termination reason); ``stats_top_steps`` and ``stats_top_termination``, the same of the
  top-level sessions only (the statistics' default view), the latter counting a session once
  both its row and its ``insight_sessions`` row are in, whichever came first;
- ``stats_tools`` (calls and errors by tool), ``stats_llm`` (calls and tokens by model) and the
  distributions of their durations: each value with how many calls took it (``*_ms``), and the
  same counted in buckets of ``BUCKET_MS`` (``*_ms_buckets``), so that a percentile reads the
  buckets and then the values of one bucket (``spread``), exact, in a time that grows with the
  durations' range, not with the calls.

A key with no value is kept as '' (a session without a pattern, a call without a model, an
undated session) and a duration without a value is not counted in a distribution. Counts may
reach 0 and stay as rows. An index file made before these tables gets them filled from its rows
when it is next opened for writing (``prepare``); one opened only for reading without them is
answered by counting the rows, as before (``present``).

Rows replaced by ``INSERT OR REPLACE`` are counted out by a BEFORE INSERT trigger (SQLite fires no
delete trigger for them unless ``recursive_triggers`` is on, which this index never turns on).

The calls of the top-level sessions are theirs and those of every session below them (docs/reading-traces.md,
"Totals"): those of every session when each one's chain of parents reaches a top-level row,
which the writer counts (``index_reach``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from . import reach as index_reach

BUCKET_MS = 64  # width of a duration bucket, in ms
# The period of each unit kept, from a row's ``time`` (``YYYY-MM-DDTHH:MM:SS...Z``, UTC): its day,
# the Monday of its week (strftime's %w: 0 is Sunday) and its month.
PERIODS = {
    "day": "substr({t}, 1, 10)",
    "week": "date(substr({t}, 1, 10), '-' || ((CAST(strftime('%w', substr({t}, 1, 10)) AS INTEGER) + 6) % 7) || ' days')",
    "month": "substr({t}, 1, 7)",
}
SCOPES = {"all": "", "top": " AND {r}.top = 1"}  # the sessions each scope of ``stats_periods`` counts: a condition
_OBSOLETE = ("stats_days",)  # a table an index made before ``stats_periods`` has: dropped by ``prepare``

# The health class of a session, from its ``health`` row's columns (``session_insights``'
# filters: errors first, then warnings, then infos, else clean); a session with no row is
# "unchecked".
_CLASS = ("CASE WHEN {h}errors > 0 THEN 'errors' WHEN {h}warnings > 0 THEN 'warnings' "
          "WHEN {h}infos > 0 THEN 'infos' ELSE 'clean' END")
_CLASS_OF = "IFNULL((SELECT " + _CLASS.format(h="") + " FROM health WHERE health.root = {root}), 'unchecked')"

# table -> (its key columns, its counted columns)
_AGGREGATES = {
    "list_counts": (("top", "mechanism", "pattern", "status", "health"), ("n",)),
    "stats_periods": (("scope", "unit", "period", "mechanism", "pattern"), ("n",)),
    "stats_steps": (("steps",), ("n",)),
    "stats_top_steps": (("steps",), ("n",)),
    "stats_termination": (("termination",), ("n", "parse_errors")),
    "stats_top_termination": (("termination",), ("n",)),
    "stats_tools": (("tool",), ("calls", "errors")),
    "stats_tool_ms": (("tool", "ms"), ("n",)),
    "stats_tool_ms_buckets": (("tool", "bucket"), ("n",)),
    "stats_llm": (("model",), ("calls", "tokens_in", "tokens_out")),
    "stats_llm_ms": (("ms",), ("n",)),
    "stats_llm_ms_buckets": (("bucket",), ("n",)),
}
TABLES = tuple(_AGGREGATES)
PERIOD_TABLES = ("stats_periods", "stats_top_steps", "stats_top_termination")


def _upsert(table: str, keys: Sequence[str], counts: Sequence[str], sign: str, condition: str = "") -> str:
    """A statement of a trigger: add (``sign`` "+") or take off ("-") ``counts`` at the row of
    ``keys`` (SQL expressions over ``new.``/``old.``) of ``table``; only when ``condition``."""
    key_columns, count_columns = _AGGREGATES[table]
    values = ", ".join(list(keys) + [f"{sign}({c})" for c in counts])
    where = f" WHERE {condition}" if condition else " WHERE true"  # WHERE: an upsert after SELECT needs one
    added = ", ".join(f"{c} = {c} + excluded.{c}" for c in count_columns)
    return (f"INSERT INTO {table} ({', '.join(key_columns + count_columns)}) SELECT {values}{where} "
            f"ON CONFLICT ({', '.join(key_columns)}) DO UPDATE SET {added};")


def _session_counts(row: str) -> list[tuple[str, tuple[str, ...], tuple[str, ...], str]]:
    """What a ``sessions`` row (``row`` "{r}", formatted later) adds to each table it is counted
    in: (table, key expressions, counted expressions, condition)."""
    pattern = f"IFNULL({row}.pattern, '')"
    top_ended = f"(SELECT IFNULL(termination, '') FROM insight_sessions i WHERE i.root = {row}.root)"
    return [
        ("list_counts", (f"{row}.top", f"{row}.mechanism", pattern, f"{row}.status",
                         _CLASS_OF.format(root=f"{row}.root")), ("1",), ""),
        *(("stats_periods", (f"'{scope}'", f"'{unit}'", period.format(t=f"{row}.time"), f"{row}.mechanism", pattern),
           ("1",), f"{row}.time IS NOT NULL{top}") for scope, top in SCOPES.items() for unit, period in PERIODS.items()),
        ("stats_steps", (f"{row}.steps",), ("1",), ""),
        ("stats_top_steps", (f"{row}.steps",), ("1",), f"{row}.top = 1"),
        ("stats_top_termination", (top_ended,), ("1",),
         f"{row}.top = 1 AND EXISTS (SELECT 1 FROM insight_sessions i WHERE i.root = {row}.root)"),
    ]


def _health_move(root: str, health_class: str, sign: str) -> list[str]:
    """Statements moving the session ``root`` (an SQL expression) into (``sign`` "+") or out of
    ("-") the health class ``health_class``, and out of or into "unchecked"."""
    session = f"(SELECT {{c}} FROM sessions WHERE sessions.root = {root})"
    keys = [session.format(c=c) for c in ("top", "mechanism", "IFNULL(pattern, '')", "status")]
    exists = f"EXISTS (SELECT 1 FROM sessions WHERE sessions.root = {root})"
    other = "-" if sign == "+" else "+"
    return [_upsert("list_counts", keys + ["'unchecked'"], ["1"], other, exists),
            _upsert("list_counts", keys + [health_class], ["1"], sign, exists)]


def _trigger(name: str, when: str, table: str, body: Sequence[str], condition: str = "") -> str:
    return (f"CREATE TRIGGER IF NOT EXISTS aggregate_{name} {when} ON {table}"
            f"{' WHEN ' + condition if condition else ''} BEGIN\n  " + "\n  ".join(body) + "\nEND;\n")


# table -> (trigger name, [(aggregate, key expressions, counted expressions, condition)]), with
# "{r}" for the row ("new" or "old")
_TOP_SESSION = "EXISTS (SELECT 1 FROM sessions s WHERE s.root = {r}.root AND s.top = 1)"
_COUNTED = {
    "sessions": ("session", _session_counts("{r}")),
    "insight_sessions": ("termination", [
        ("stats_termination", ("IFNULL({r}.termination, '')",), ("1", "{r}.parse_errors"), ""),
        ("stats_top_termination", ("IFNULL({r}.termination, '')",), ("1",), _TOP_SESSION)]),
    "insight_tools": ("tool", [
        ("stats_tools", ("{r}.tool",), ("1", "IFNULL({r}.error, 0)"), ""),
        ("stats_tool_ms", ("{r}.tool", "{r}.ms"), ("1",), "{r}.ms IS NOT NULL"),
        ("stats_tool_ms_buckets", ("{r}.tool", f"CAST({{r}}.ms / {BUCKET_MS} AS INTEGER)"), ("1",),
         "{r}.ms IS NOT NULL")]),
    "insight_llm": ("llm", [
        ("stats_llm", ("IFNULL({r}.model, '')",), ("1", "IFNULL({r}.tokens_in, 0)", "IFNULL({r}.tokens_out, 0)"), ""),
        ("stats_llm_ms", ("{r}.ms",), ("1",), "{r}.ms IS NOT NULL"),
        ("stats_llm_ms_buckets", (f"CAST({{r}}.ms / {BUCKET_MS} AS INTEGER)",), ("1",), "{r}.ms IS NOT NULL")]),
}


def _triggers() -> str:
    """The triggers that keep every table of ``TABLES`` true to the rows."""
    out = []
    for table, (name, parts) in _COUNTED.items():
        def body(row: str, sign: str, parts=parts) -> list[str]:
            return [_upsert(t, [k.format(r=row) for k in keys], [c.format(r=row) for c in counts], sign,
                            condition.format(r=row)) for t, keys, counts, condition in parts]
        out.append(_trigger(f"{name}_insert", "AFTER INSERT", table, body("new", "+")))
        out.append(_trigger(f"{name}_delete", "AFTER DELETE", table, body("old", "-")))
        changed = " OF root, top, time, mechanism, pattern, status, steps" if table == "sessions" else ""
        out.append(_trigger(f"{name}_update", "AFTER UPDATE" + changed, table, body("old", "-") + body("new", "+")))
    # INSERT OR REPLACE of a row with the same key (these two tables have one): the old one counted out
    replaced = "(SELECT {c} FROM insight_sessions WHERE root = new.root)"
    out.append(_trigger("termination_replace", "BEFORE INSERT", "insight_sessions", [
        _upsert("stats_termination", [f"IFNULL({replaced.format(c='termination')}, '')"],
                ["1", replaced.format(c="parse_errors")], "-"),
        _upsert("stats_top_termination", [f"IFNULL({replaced.format(c='termination')}, '')"], ["1"], "-",
                _TOP_SESSION.format(r="new"))],
        "EXISTS (SELECT 1 FROM insight_sessions WHERE root = new.root)"))
    out.append(_trigger("health_insert", "AFTER INSERT", "health", _health_move("new.root", _CLASS.format(h="new."), "+")))
    out.append(_trigger("health_delete", "AFTER DELETE", "health", _health_move("old.root", _CLASS.format(h="old."), "-")))
    out.append(_trigger("health_update", "AFTER UPDATE", "health",
                        _health_move("old.root", _CLASS.format(h="old."), "-")
                        + _health_move("new.root", _CLASS.format(h="new."), "+")))
    replaced = "(SELECT " + _CLASS.format(h="") + " FROM health WHERE root = new.root)"
    out.append(_trigger("health_replace", "BEFORE INSERT", "health", _health_move("new.root", replaced, "-"),
                        "EXISTS (SELECT 1 FROM health WHERE root = new.root)"))
    return "".join(out)


_SCHEMA = "".join(
    f"CREATE TABLE IF NOT EXISTS {table} ({', '.join(f'{k} NOT NULL' for k in keys)}, "
    f"{', '.join(f'{c} INTEGER NOT NULL' for c in counts)}, PRIMARY KEY ({', '.join(keys)})) WITHOUT ROWID;\n"
    for table, (keys, counts) in _AGGREGATES.items())

# Each table filled afresh from the rows (an index made before it had them), as the triggers keep it.
_FILL = {
    "list_counts": "SELECT s.top, s.mechanism, IFNULL(s.pattern, ''), s.status, IIF(h.root IS NULL, 'unchecked', "
                   + _CLASS.format(h="h.") + "), COUNT(*) FROM sessions s LEFT JOIN health h ON h.root = s.root "
                   "GROUP BY 1, 2, 3, 4, 5",
    "stats_periods": " UNION ALL ".join(
        f"SELECT '{scope}', '{unit}', {period.format(t='time')}, mechanism, IFNULL(pattern, ''), COUNT(*) FROM sessions "
        f"WHERE time IS NOT NULL{top.replace('{r}.', '')} GROUP BY 3, 4, 5"
        for scope, top in SCOPES.items() for unit, period in PERIODS.items()),
    "stats_steps": "SELECT steps, COUNT(*) FROM sessions GROUP BY 1",
    "stats_top_steps": "SELECT steps, COUNT(*) FROM sessions WHERE top = 1 GROUP BY 1",
    "stats_termination": "SELECT IFNULL(termination, ''), COUNT(*), SUM(parse_errors) FROM insight_sessions GROUP BY 1",
    "stats_top_termination": "SELECT IFNULL(i.termination, ''), COUNT(*) FROM insight_sessions i "
                             "JOIN sessions s ON s.root = i.root AND s.top = 1 GROUP BY 1",
    "stats_tools": "SELECT tool, COUNT(*), SUM(IFNULL(error, 0)) FROM insight_tools GROUP BY 1",
    "stats_tool_ms": "SELECT tool, ms, COUNT(*) FROM insight_tools WHERE ms IS NOT NULL GROUP BY 1, 2",
    "stats_tool_ms_buckets": f"SELECT tool, CAST(ms / {BUCKET_MS} AS INTEGER), COUNT(*) FROM insight_tools "
                             "WHERE ms IS NOT NULL GROUP BY 1, 2",
    "stats_llm": "SELECT IFNULL(model, ''), COUNT(*), SUM(IFNULL(tokens_in, 0)), SUM(IFNULL(tokens_out, 0)) "
                 "FROM insight_llm GROUP BY 1",
    "stats_llm_ms": "SELECT ms, COUNT(*) FROM insight_llm WHERE ms IS NOT NULL GROUP BY 1",
    "stats_llm_ms_buckets": f"SELECT CAST(ms / {BUCKET_MS} AS INTEGER), COUNT(*) FROM insight_llm "
                            "WHERE ms IS NOT NULL GROUP BY 1",
}


def prepare(db: sqlite3.Connection) -> None:
    """In a writable index, inside a transaction, once its own tables and ``session_insights``'
    exist: create the tables and their triggers; tables new to an index that has rows are filled
    from them (``fill``), its triggers made anew (an older index's count fewer tables); its
    sessions no top-level row reaches are counted when the index has no such count
    (``index_reach``); tables no longer kept are dropped."""
    db.execute("SAVEPOINT aggregates")  # the tables, their counts and their triggers, all or none
    try:
        have = {t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        new = [t for t in TABLES if t not in have]
        if new:
            _drop_triggers(db)
        for table in _OBSOLETE:
            db.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in _statements(_SCHEMA) + _statements(_triggers(), "END;"):
            db.execute(statement)
        if new and db.execute("SELECT 1 FROM sessions LIMIT 1").fetchone():
            fill(db, new)
        if index_reach.unreached(lambda sql, params=(): db.execute(sql, params).fetchall()) is None:
            index_reach.note(db, index_reach.count_all(db))
    except BaseException:
        db.execute("ROLLBACK TO aggregates")
        raise
    finally:
        db.execute("RELEASE aggregates")


def _statements(script: str, end: str = ";") -> list[str]:
    """The statements of ``script``, each ending with ``end`` at a line's end."""
    out, current = [], []
    for line in script.splitlines():
        current.append(line)
        if line.rstrip().endswith(end):
            out.append("\n".join(current))
            current = []
    return out


def fill(db: sqlite3.Connection, tables: Sequence[str] = TABLES) -> None:
    """Count ``tables`` afresh from the rows (the caller holds the transaction)."""
    for table in tables:
        keys, counts = _AGGREGATES[table]
        db.execute(f"DELETE FROM {table}")
        db.execute(f"INSERT INTO {table} ({', '.join(keys + counts)}) {_FILL[table]}")


def counted_empty(db: sqlite3.Connection) -> bool:
    """Whether every table the triggers read or count (``sessions``, ``health``, the insight
    tables and ``TABLES``) is empty: what the triggers would count from there on is then exactly
    what ``fill`` counts from the rows."""
    return not any(db.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone()
                   for table in ("sessions", "health", *_COUNTED, *TABLES))


def pause(db: sqlite3.Connection) -> None:
    """Drop the triggers (inside the caller's transaction), for a write into an index whose
    counted tables are empty (``counted_empty``); ``resume`` counts the rows and puts them back.
    The triggers cost about 0.1 ms a session row at 10,000 sessions (three upserts a row, and
    more for its insight rows); one ``fill`` of the same rows a few milliseconds."""
    _drop_triggers(db)


def _drop_triggers(db: sqlite3.Connection) -> None:
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'aggregate_%'"
                              ).fetchall():
        db.execute(f"DROP TRIGGER {name}")


def resume(db: sqlite3.Connection) -> None:
    """After ``pause``: every table counted afresh from the rows (``fill``), and the triggers back."""
    fill(db)
    for statement in _statements(_triggers(), "END;"):
        db.execute(statement)


def present(query: Callable[..., list[tuple]], tables: Sequence[str] = ()) -> bool:
    """Whether the index (``query``: its ``_query``) has every table of ``TABLES`` the list and
    the calls' statistics read (the periods' and top-level sessions' tables, ``PERIOD_TABLES``,
    are newer: an index only read keeps its other counts without them) and every one of
    ``tables``."""
    have = {t for (t,) in query("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return all(t in have for t in TABLES if t not in PERIOD_TABLES) and all(t in have for t in tables)


def counts_of(table: str, query: Callable[..., list[tuple]]) -> list[tuple]:
    """The rows of one aggregate table with a count above 0: its key columns, then its counts."""
    keys, counts = _AGGREGATES[table]
    return query(f"SELECT {', '.join(keys + counts)} FROM {table} WHERE {counts[0]} > 0")


def kinds(query: Callable[..., list[tuple]]) -> list[tuple]:
    """``(mechanism, pattern, sessions)`` of every session, sub-sessions too, by mechanism and
    pattern ('' for none), those above 0 (``list_counts``: a few rows, whatever the store)."""
    return query("SELECT mechanism, pattern, SUM(n) FROM list_counts GROUP BY mechanism, pattern HAVING SUM(n) > 0")


def kinds_of_top(query: Callable[..., list[tuple]]) -> list[tuple]:
    """``(mechanism, pattern, sessions)`` of the top-level sessions, as ``kinds``."""
    return query("SELECT mechanism, pattern, SUM(n) FROM list_counts WHERE top = 1 "
                 "GROUP BY mechanism, pattern HAVING SUM(n) > 0")


def day_span(query: Callable[..., list[tuple]], scope: str) -> tuple[str, str] | None:
    """The first and last UTC day (``YYYY-MM-DD``) of the dated sessions of ``scope`` ("all" or
    "top"), or None when none is dated: a row read at each end of the table's key, not a scan."""
    ends = [query("SELECT period FROM stats_periods WHERE scope = ? AND unit = 'day' AND n > 0 "
                  f"ORDER BY period {direction} LIMIT 1", (scope,)) for direction in ("ASC", "DESC")]
    return (ends[0][0][0], ends[1][0][0]) if ends[0] else None


def periods(query: Callable[..., list[tuple]], unit: str, scope: str) -> list[tuple]:
    """``(period, mechanism, pattern ('' for none), sessions)`` of the dated sessions of
    ``scope`` ("all" or "top") by ``unit`` ("day", "week", "month" as kept, read in the key's
    order; "year" summed from the months), counts above 0, in the order of that key (SQLite
    compares text by its UTF-8 bytes, which orders it as Python's ``sorted`` does)."""
    if unit == "year":
        return query("SELECT substr(period, 1, 4), mechanism, pattern, SUM(n) FROM stats_periods WHERE scope = ? "
                     "AND unit = 'month' GROUP BY 1, 2, 3 HAVING SUM(n) > 0 ORDER BY 1, 2, 3", (scope,))
    return query("SELECT period, mechanism, pattern, n FROM stats_periods WHERE scope = ? AND unit = ? AND n > 0 "
                 "ORDER BY period, mechanism, pattern", (scope, unit))


def spread(query: Callable[..., list[tuple]], kind: str, rank: Callable[[int, int], int],
           tool: str | None = None) -> tuple:
    """``(count, p50, p95, max)`` of the durations of ``kind`` ("tool" or "llm") calls (of one
    ``tool``, or of every tool when None), nearest-rank (``rank(p, n)``: the 1-based rank of the
    p-th percentile among n), from the buckets and then the values of the bucket a rank falls in.
    A kind with no duration: (0, None, None, None)."""
    # every tool's: a lookup of each tool's values (the table's key), not a scan of them all
    where, params = ("tool = ?", [tool]) if tool is not None else ("tool IN (SELECT tool FROM stats_tools)", [])
    if kind == "llm":
        where, params = "true", []
    buckets = query(f"SELECT bucket, SUM(n) FROM stats_{kind}_ms_buckets WHERE {where} AND n > 0 "
                    "GROUP BY bucket ORDER BY bucket", params)
    total = sum(n for _, n in buckets)
    if not total:
        return (0, None, None, None)

    def value_at(wanted: int) -> Any:
        seen = 0
        for bucket, n in buckets:
            if seen + n >= wanted:
                # the bucket's values (a bucket of values below 0 reaches one bucket's width lower)
                values = query(f"SELECT ms, SUM(n) FROM stats_{kind}_ms WHERE {where} AND n > 0 "
                               f"AND ms > ? AND ms < ? AND CAST(ms / {BUCKET_MS} AS INTEGER) = ? "
                               "GROUP BY ms ORDER BY ms",
                               params + [(bucket - 1) * BUCKET_MS, (bucket + 2) * BUCKET_MS, bucket])
                for ms, count in values:
                    seen += count
                    if seen >= wanted:
                        return ms
                return values[-1][0] if values else None
            seen += n
        return None

    return (total, value_at(rank(50, total)), value_at(rank(95, total)), value_at(total))
