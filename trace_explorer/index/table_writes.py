"""Writing the index's tables: rows replaced in batches, words added, the totals of parent
sessions refreshed when a sub-session's change, and bulk loading."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence

from ..model.totals import FIGURES, TOTAL_PREFIX, add_totals
from ..model.words import WORD_FIELDS
from ..sources.search import MARKS
from . import aggregates as index_aggregates
from . import previews as index_previews
from . import reach as index_reach
from .insights import TABLES as INSIGHT_TABLES
from .insights import add_rows, forget_rows, note_mending_due, prepare
from .schema import _ROW_COLUMNS, _SCHEMA, _TABLES, VERSION
from .write_records import PUBLISHED_KEY

_PARENT_LIMIT = 64  # levels of parent sessions followed up when totals change (a loop is cut)


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
    """Set the totals with sub-sessions (docs/reading-traces.md, "Totals"; ``model.totals``) of the rows of
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
