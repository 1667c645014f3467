"""The triples an ingest wrote into a store that was empty when it began, kept by subject in a
temporary file, so that the session index and the health check that follow read each
session's triples from there rather than asking the store again.

Why: after an ingest, every new session is read for its index row and its health
(``analysis.health.in_pass``). Asking the store (``fetch.session_triples``: two SPARQL
CONSTRUCTs a batch of 200 sessions, walking derivations) costs about 2 ms a session on a store
on disk, while the same triples went through this process a moment before, as the file's
quads. When the store was empty, what it holds afterwards is exactly what was written, so
``session_quads`` here gives the same triples as the store would (the same walk: every entity
that derives from a root through ``prov:wasDerivedFrom``/``prov:wasGeneratedBy``, zero or more
steps, then what their steps point at with ``tg:selectedEdge``, ``tg:selectedChunk`` and
``tg:thought``). On a store that already held something, nothing is kept
(``WrittenTriples.for_store`` returns None) and the store is asked, as before.

Each written triple is kept as its N-Triples line, by subject, in a temporary SQLite file (one
row a subject and written batch), with the derivations between entities and the typed IRIs
beside it: about 200 bytes a triple on disk (1.4 GB at 6.9 million triples, gone when the
ingest ends), a few megabytes of memory whatever the file's size, and a session's triples read
back by a few indexed lookups and one parse (about 0.3 ms a session). ``limit`` (none by
default) lets them all go past that many triples (``kept`` False), and the store is asked.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import pyoxigraph as ox

from ..model.vocabulary import RDF_TYPE, WAS_DERIVED_FROM, WAS_GENERATED_BY
from ..sources.fetch import POINTERS
from ..index.typed import under
from ..index.session_index import SessionIndex
from ..sources.triples_text import TriplesText, iri, is_node, objects_of

_DERIVED = (WAS_DERIVED_FROM.encode(), WAS_GENERATED_BY.encode())
_RDF_TYPE = RDF_TYPE.encode()
_LOOKUP = 500  # keys looked up a query
_SCHEMA = """
CREATE TABLE lines (subject TEXT NOT NULL, text BLOB NOT NULL);
CREATE TABLE derived (object TEXT NOT NULL, subject TEXT NOT NULL);
CREATE TABLE typed (iri TEXT PRIMARY KEY) WITHOUT ROWID;
"""
_INDEXES = """
CREATE INDEX IF NOT EXISTS lines_subject ON lines (subject);
CREATE INDEX IF NOT EXISTS derived_object ON derived (object);
"""


class WrittenTriples:
    """Triples by subject (as N-Triples lines, a row per subject and ``add``), the entities
    deriving from each entity and the typed IRIs, in a temporary SQLite file under ``folder``
    (the system's temporary folder by default). ``add(quads)`` as each file or batch is written;
    ``session_quads(roots)`` / ``session_text(roots)`` for the session index and the health
    check; ``let_go()`` (or the end of the object) removes the file. Subjects are keyed by their
    N-Triples form (``<iri>``, ``_:id``)."""

    def __init__(self, limit: int | None = None, folder: str | Path | None = None) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="trace-explorer-written-", dir=folder)
        self._db: sqlite3.Connection | None = sqlite3.connect(Path(self._folder.name) / "written.sqlite",
                                                              check_same_thread=False)
        self._db.executescript("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;" + _SCHEMA)
        self._indexed = False
        self.triples = 0
        self.limit = limit
        self.kept = True  # False once more than ``limit`` triples were written: nothing is kept then

    @classmethod
    def for_store(cls, store: ox.Store, index: SessionIndex) -> WrittenTriples | None:
        """A new, empty ``WrittenTriples`` when ``store`` holds no quad and ``index`` no session
        (what will be written is then all there is), else None."""
        if next(iter(store.quads_for_pattern(None, None, None, None)), None) is not None or index.roots():
            return None
        return cls()

    def add(self, quads: Sequence[ox.Quad], text: TriplesText | None = None) -> None:
        """Keep the triples of ``quads`` (the graph names folded, as a query over the union of
        graphs sees them); past ``limit`` triples in all, let every one go (``kept`` False).
        ``text``: ``quads`` as ``TriplesText`` when the caller has it already."""
        if not self.kept:
            return
        if self.limit is not None and self.triples + len(quads) > self.limit:
            self.let_go()
            return
        text = text if text is not None else TriplesText(quads)
        grouped: dict[bytes, list[bytes]] = {}
        for subject, lines in text.runs():
            found = grouped.get(subject)
            if found is None:
                grouped[subject] = [lines]
            else:
                found.append(lines)
        derived: list[tuple[str, str]] = []
        typed: dict[bytes, None] = {}
        for subject, predicate, obj in text.noted():
            if predicate in _DERIVED:
                if is_node(obj):
                    derived.append((obj.decode(), subject.decode()))
            elif predicate == _RDF_TYPE and subject[:1] == b"<" and b"/" in subject:
                typed[subject] = None
        rows = ((s.decode(), b"".join(found)) for s, found in grouped.items())
        if text.repeats():  # each line once a row (``_texts``)
            rows = ((s, b"\n".join(dict.fromkeys(lines.split(b"\n")[:-1])) + b"\n") for s, lines in rows)
        with self._db:
            self._db.executemany("INSERT INTO lines VALUES (?, ?)", rows)
            self._db.executemany("INSERT INTO derived VALUES (?, ?)", derived)
            self._db.executemany("INSERT OR IGNORE INTO typed VALUES (?)", ((iri(s),) for s in typed))
        self.triples += len(quads)

    def let_go(self) -> None:
        """Let every triple go, as past ``limit`` (``kept`` False): for a write these were not
        given, after which only the store knows it all. Removes the temporary file."""
        self.kept, self.triples = False, 0
        if self._db is not None:
            self._db.close()
            self._db = None
        self._folder.cleanup()

    def typed_iris(self) -> Iterator[str]:
        """Every IRI with an ``rdf:type`` that holds a "/": what ``analysis.health.checks.entities_under``
        scans the store for."""
        if self._db is None:
            return iter(())
        return (iri for (iri,) in self._db.execute("SELECT iri FROM typed"))

    def typed_under(self, roots: Iterable[str]) -> list[str]:
        """The typed IRIs (as ``typed_iris``) that extend any of ``roots`` (``{root}/...``), by an
        indexed range a root."""
        if self._db is None:
            return []
        return under(self._db, roots, table="typed")

    def session_quads(self, roots: Sequence[str]) -> list[ox.Quad]:
        """Every triple of the entities of sessions ``roots`` (IRIs) and of what derives from
        them, with what their steps point at, each once: the triples ``fetch.session_triples``
        reads from the store these were written to, as quads in the default graph (what
        ``model.triple_index.TripleIndex`` reads as well, without a triple made of each)."""
        return parsed_text(self.session_text(roots))

    def session_text(self, roots: Sequence[str]) -> bytes:
        """``session_quads`` as N-Triples text, unparsed (to hand to another process)."""
        if self._db is None:
            return b""
        if not self._indexed:
            self._db.executescript(_INDEXES)
            self._indexed = True
        seen: dict[str, None] = {}
        todo = [f"<{r}>" for r in roots]
        while todo:
            fresh = [key for key in dict.fromkeys(todo) if key not in seen]
            seen.update(dict.fromkeys(fresh))
            todo = [subject for (subject,) in self._lookup("SELECT subject FROM derived WHERE object IN", fresh)]
        text = b"".join(self._texts(seen))
        pointed = {key: None for key in (obj.decode() for obj in objects_of(text, POINTERS)) if key not in seen}
        return text + b"".join(self._texts(pointed)) if pointed else text

    def _texts(self, subjects: Iterable[str]) -> list[bytes]:
        """The N-Triples lines of ``subjects`` (keys), each once (a triple written twice, or in
        two graphs, is one line), in the order they were written, a text (lines, each with its
        line break) a row. A row holds each of its lines once (``add``), so only a subject kept
        in more than one row is looked at line by line."""
        rows = self._lookup("SELECT subject, text FROM lines WHERE subject IN", list(subjects), order="rowid")
        counts: dict[str, int] = {}
        for subject, _ in rows:
            counts[subject] = counts.get(subject, 0) + 1
        if len(counts) == len(rows):
            return [text for _, text in rows]
        known: dict[str, set[bytes]] = {}  # by subject kept in more than one row: its lines in the rows before
        out = []
        for subject, text in rows:
            if counts[subject] == 1:
                out.append(text)
                continue
            lines = known.setdefault(subject, set())
            fresh = [line for line in text.split(b"\n")[:-1] if line not in lines]
            lines.update(fresh)
            if fresh:
                out.append(b"\n".join(fresh) + b"\n")
        return out

    def _lookup(self, query: str, keys: list[str], order: str | None = None) -> list[tuple]:
        """Rows of ``query`` + ``(?, ...)`` for ``keys``, ``_LOOKUP`` keys a query (each group
        sorted by ``order``, when given)."""
        out: list[tuple] = []
        for start in range(0, len(keys), _LOOKUP):
            part = keys[start:start + _LOOKUP]
            sql = f"{query} ({', '.join('?' * len(part))})" + (f" ORDER BY {order}" if order else "")
            out += self._db.execute(sql, part).fetchall()
        return out


def parsed_text(text: bytes) -> list[ox.Quad]:
    """N-Triples ``text`` (``WrittenTriples.session_text``) parsed, as quads of the default graph.
    The text is pyoxigraph's own writing of terms it parsed and checked already, so it is read
    without checking IRIs and language tags again (``lenient``: the same quads, about 40% less
    CPU: 0.65 s against 1.05 s for the 855,000 triples of 10,000 sessions)."""
    return list(ox.parse(text, format=ox.RdfFormat.N_TRIPLES, lenient=True)) if text else []
