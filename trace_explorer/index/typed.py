"""The store's typed IRIs, kept in the session index, so that the entities whose IRI extends a
few sessions' roots (``analysis.health.checks.entities_under``) are one indexed range a root
rather than a scan of every typed IRI of the store (pyoxigraph has no index by IRI prefix: at
100,000 sessions the scan returns 584,000 IRIs and takes about 13 s, a ``STRSTARTS`` filter
19 s).

A typed IRI is what ``written_triples.WrittenTriples`` keeps as one: a named node that is the
subject of an ``rdf:type`` triple (in any graph) and whose IRI holds a "/". The table is
trusted only while the ``meta`` key ``COMPLETE_KEY`` is set, which says it holds every typed IRI
of the store. Each write into a local store changes it in the index transaction that writes the
write's rows (``TypedWrite``, applied by ``SessionIndex.replace_batches`` before the rows, so
that a health pass inside that transaction sees it), so a write that fails or is rolled back
(``write_journal``) changes neither; ``build_index`` fills it from the store and sets the key.
An index written before the table existed gets it empty, without the key: the store is scanned
then, as before.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from typing import NamedTuple

import pyoxigraph as ox

from ..model.vocabulary import RDF_TYPE

TABLE = "typed_iris"
COMPLETE_KEY = "typed_iris_complete"  # meta: the table holds every typed IRI of the store
SCHEMA = f"CREATE TABLE IF NOT EXISTS {TABLE} (iri TEXT PRIMARY KEY) WITHOUT ROWID;\n"
# a streamed file's typed IRIs, batch by batch, until its rows are written (a temp file, not memory)
_STAGED = "CREATE TEMP TABLE IF NOT EXISTS typed_staged (iri TEXT PRIMARY KEY) WITHOUT ROWID"


class TypedWrite(NamedTuple):
    """What one write into the store does to the table (``write_typed``): ``fresh``, the store
    was empty before it (the table becomes exactly the write's IRIs, and complete); ``iris``,
    the typed IRIs the write added (None: those staged, ``stage``); ``known`` False, the write's
    typed IRIs were not kept (the table is no longer complete)."""

    fresh: bool
    iris: Iterable[str] | None = None
    known: bool = True


UNKNOWN = TypedWrite(False, known=False)


def typed_iris_of(quads: Iterable[ox.Quad | ox.Triple]) -> Iterator[str]:
    """The typed IRIs among the subjects of ``quads`` (module docstring), as they come (an IRI
    typed twice, twice)."""
    return (q.subject.value for q in quads
            if q.predicate.value == RDF_TYPE and type(q.subject) is ox.NamedNode and "/" in q.subject.value)


def is_complete(db: sqlite3.Connection) -> bool:
    """True when the index behind ``db`` holds every typed IRI of its store (False for an index
    without the table, or of another version)."""
    try:
        return db.execute("SELECT 1 FROM meta WHERE key = ?", (COMPLETE_KEY,)).fetchone() is not None
    except sqlite3.Error:
        return False


def under(db: sqlite3.Connection, roots: Iterable[str], table: str = TABLE) -> list[str]:
    """The IRIs of ``table`` (an ``iri`` column, its key) that extend any of ``roots``
    (``{root}/...``), by one indexed range a root, in root then IRI order (an IRI under two
    roots, one extending the other, twice)."""
    query = f"SELECT iri FROM {table} WHERE iri >= ? AND iri < ?"  # "0" follows "/"
    return [iri for root in roots for (iri,) in db.execute(query, (root + "/", root + "0"))]


def stage(db: sqlite3.Connection, iris: Iterable[str]) -> None:
    """Keep ``iris`` (a batch of a streamed file's typed IRIs) in a temporary table of ``db``'s
    connection until ``write_typed`` moves them in."""
    db.execute(_STAGED)
    db.executemany("INSERT OR IGNORE INTO typed_staged VALUES (?)", ((iri,) for iri in iris))


def clear_staged(db: sqlite3.Connection) -> None:
    """Forget what ``stage`` kept (a write that failed, or before a new one)."""
    db.execute(_STAGED)
    db.execute("DELETE FROM typed_staged")


def write_typed(db: sqlite3.Connection, write: TypedWrite) -> None:
    """Inside the index transaction that writes a write's rows: add its typed IRIs to the table
    (``write.fresh``: in place of what it held) and keep it marked complete, or (``known``
    False, or a table not complete before a write on a store that was not empty) leave it
    unmarked. What ``stage`` kept is forgotten either way."""
    if not write.known or not (write.fresh or is_complete(db)):
        db.execute("DELETE FROM meta WHERE key = ?", (COMPLETE_KEY,))
        clear_staged(db)
        return
    if write.fresh:
        db.execute(f"DELETE FROM {TABLE}")
    if write.iris is None:
        db.execute(_STAGED)
        db.execute(f"INSERT OR IGNORE INTO {TABLE} SELECT iri FROM typed_staged")
    else:
        db.executemany(f"INSERT OR IGNORE INTO {TABLE} VALUES (?)", ((iri,) for iri in write.iris))
    clear_staged(db)
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, '1')", (COMPLETE_KEY,))


def rebuild(db: sqlite3.Connection, store: ox.Store) -> int:
    """Inside a transaction: fill the table from ``store`` (its ``rdf:type`` quads, read by the
    store's predicate index, never all held) and mark it complete; returns how many IRIs."""
    db.execute(f"DELETE FROM {TABLE}")
    quads = store.quads_for_pattern(None, ox.NamedNode(RDF_TYPE), None, None)
    db.executemany(f"INSERT OR IGNORE INTO {TABLE} VALUES (?)", ((iri,) for iri in typed_iris_of(quads)))
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, '1')", (COMPLETE_KEY,))
    return db.execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0]
