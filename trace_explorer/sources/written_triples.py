"""The triples an ingest wrote into a store that was empty when it began, kept in memory by
subject, so that the health check that follows reads each session's triples from here rather
than asking the store again.

Why: after an ingest, ``analysis.health`` reads every new session's triples
(``fetch.session_triples``: two SPARQL CONSTRUCTs a batch of 200 sessions). On a store on disk
that is about 2 ms a session (20 s of CPU at 10,000 sessions, a fifth of the whole ingest),
while the same triples are in memory a moment before, as the file's quads. When the store was
empty, what it holds afterwards is exactly what was written, so ``session_quads`` here gives
the same triples as the store would (the same walk: every entity that derives from a root
through ``prov:wasDerivedFrom``/``prov:wasGeneratedBy``, zero or more steps, then what their
steps point at with ``tg:selectedEdge``, ``tg:selectedChunk`` and ``tg:thought``). On a store
that already held something, nothing is kept (``WrittenTriples.for_store`` returns None) and the
store is asked, as before.

It holds every written triple as N-Triples text, by subject (about 200 bytes a triple, text
and keys: 150 MB at 747,526 quads; as live pyoxigraph objects they took 400 bytes each), parsed
again when a session is asked for (about 1 µs a triple, a fifth of reading it from the store on
disk); so it keeps at most ``LIMIT`` triples, and past that lets them all go (``kept`` False)
and the store is asked, as before. The session index of a file written a batch at a time is
read from here too (``session_index.StreamedIndexUpdate``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import pyoxigraph as ox

from ..model.vocabulary import RDF_TYPE, WAS_DERIVED_FROM, WAS_GENERATED_BY
from .fetch import POINTERS
from .session_index import SessionIndex

_DERIVED = frozenset({WAS_DERIVED_FROM, WAS_GENERATED_BY})
LIMIT = 1_000_000  # triples kept at most (about 200 MB)
_SUBJECTS = (ox.NamedNode, ox.BlankNode)
_POINTER_TEXTS = tuple(f" <{p}> ".encode() for p in POINTERS)  # as a predicate is written in N-Triples


class WrittenTriples:
    """Triples by subject (as N-Triples text, a piece per ``add``), the entities deriving from
    each entity and the typed IRIs. ``add(quads)`` as each file or batch is written;
    ``session_quads(roots)`` for the session index and the health check."""

    def __init__(self, limit: int = LIMIT) -> None:
        self._by_subject: dict[ox.NamedNode | ox.BlankNode, list[bytes]] = {}
        self._derived: dict[ox.NamedNode | ox.BlankNode, list[ox.NamedNode | ox.BlankNode]] = {}
        self._typed: dict[str, None] = {}
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

    def add(self, quads: Sequence[ox.Quad]) -> None:
        """Keep the triples of ``quads`` (the graph names folded, as a query over the union of
        graphs sees them); past ``limit`` triples in all, let every one go (``kept`` False)."""
        if not self.kept:
            return
        if self.triples + len(quads) > self.limit:
            self.let_go()
            return
        triples = [quad.triple for quad in quads]
        lines = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES).split(b"\n")  # a line a triple, in order
        grouped: dict[ox.NamedNode | ox.BlankNode, list[bytes]] = {}
        derived, typed = self._derived, self._typed
        for triple, line in zip(triples, lines):
            subject = triple.subject
            found = grouped.get(subject)
            if found is None:
                found = grouped[subject] = []
            found.append(line)
            predicate = triple.predicate.value
            if predicate in _DERIVED:
                if isinstance(triple.object, _SUBJECTS):
                    derived.setdefault(triple.object, []).append(subject)
            elif predicate == RDF_TYPE and type(subject) is ox.NamedNode and "/" in subject.value:
                typed[subject.value] = None
        by_subject = self._by_subject
        for subject, found in grouped.items():
            text = b"\n".join(found) + b"\n"
            kept = by_subject.get(subject)
            if kept is None:
                by_subject[subject] = [text]
            else:
                kept.append(text)
        self.triples += len(quads)

    def let_go(self) -> None:
        """Let every triple go, as past ``limit`` (``kept`` False): for a write these were not
        given, after which only the store knows it all."""
        self.kept, self.triples = False, 0
        self._by_subject, self._derived, self._typed = {}, {}, {}

    def typed_iris(self) -> Iterator[str]:
        """Every IRI with an ``rdf:type`` that holds a "/": what ``analysis.health.checks.entities_under``
        scans the store for."""
        return iter(self._typed)

    def session_quads(self, roots: Sequence[str]) -> list[ox.Quad]:
        """Every triple of the entities of sessions ``roots`` (IRIs) and of what derives from
        them, with what their steps point at, each once: the triples ``fetch.session_triples``
        reads from the store these were written to, as quads in the default graph (what
        ``model.triple_index.TripleIndex`` reads as well, without a triple made of each). Raises
        ValueError for a root that is not an IRI."""
        return parsed_text(self.session_text(roots))

    def session_text(self, roots: Sequence[str]) -> bytes:
        """``session_quads`` as N-Triples text, unparsed (to hand to another process)."""
        seen: dict[ox.NamedNode | ox.BlankNode, None] = {}
        todo = [ox.NamedNode(r) for r in roots]
        while todo:
            node = todo.pop()
            if node in seen:
                continue
            seen[node] = None
            todo += self._derived.get(node, ())
        lines = self._lines(seen)
        pointing = [line for line in lines if any(p in line for p in _POINTER_TEXTS)]  # the few worth parsing
        pointed = {q.object: None for q in parsed_text(b"\n".join(pointing) + b"\n" if pointing else b"")
                   if q.predicate.value in POINTERS and isinstance(q.object, _SUBJECTS) and q.object not in seen}
        if pointed:
            lines.update(dict.fromkeys(line for line in self._lines(pointed) if line not in lines))
        return b"\n".join(lines) + b"\n" if lines else b""

    def _lines(self, subjects: Iterable[ox.NamedNode | ox.BlankNode]) -> dict[bytes, None]:
        """The N-Triples lines of ``subjects``, each once (a triple written twice, or in two
        graphs, is one line)."""
        return dict.fromkeys(line for subject in subjects for text in self._by_subject.get(subject, ())
                             for line in text.split(b"\n") if line)


def parsed_text(text: bytes) -> list[ox.Quad]:
    """N-Triples ``text`` (``WrittenTriples.session_text``) parsed, as quads of the default graph."""
    return list(ox.parse(text, format=ox.RdfFormat.N_TRIPLES)) if text else []
