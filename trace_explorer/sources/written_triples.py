"""The triples an ingest wrote into a store that was empty when it began, kept in memory by
subject, so that the health check that follows reads each session's triples from here rather
than asking the store again.

Why: after an ingest, ``analysis.health`` reads every new session's triples
(``fetch.session_triples``: two SPARQL CONSTRUCTs a batch of 200 sessions). On a store on disk
that is about 2 ms a session (20 s of CPU at 10,000 sessions, a fifth of the whole ingest),
while the same triples are in memory a moment before, as the file's quads. When the store was
empty, what it holds afterwards is exactly what was written, so ``session_triples`` here gives
the same triples as the store would (the same walk: every entity that derives from a root
through ``prov:wasDerivedFrom``/``prov:wasGeneratedBy``, zero or more steps, then what their
steps point at with ``tg:selectedEdge``, ``tg:selectedChunk`` and ``tg:thought``). On a store
that already held something, nothing is kept (``WrittenTriples.for_store`` returns None) and the
store is asked, as before.

It holds every written triple, about 400 bytes each (300 MB at 747,526 quads, measured as the
RSS left after the write), the price of not reading them back; so it keeps at most ``LIMIT``
triples, and past that lets them all go (``kept`` False) and the store is asked, as before.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pyoxigraph as ox

from ..model.vocabulary import RDF_TYPE, WAS_DERIVED_FROM, WAS_GENERATED_BY
from .fetch import POINTERS
from .session_index import SessionIndex

_DERIVED = frozenset({WAS_DERIVED_FROM, WAS_GENERATED_BY})
LIMIT = 1_000_000  # triples kept at most (about 400 MB)
_SUBJECTS = (ox.NamedNode, ox.BlankNode)


class WrittenTriples:
    """Triples by subject (each once, in the order written), and the entities deriving from each
    entity. ``add(quads)`` as each file is written; ``session_triples(roots)`` for the health check."""

    def __init__(self, limit: int = LIMIT) -> None:
        self._by_subject: dict[ox.NamedNode | ox.BlankNode, dict[ox.Triple, None]] = {}
        self._derived: dict[ox.NamedNode | ox.BlankNode, list[ox.NamedNode | ox.BlankNode]] = {}
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
        by_subject, derived = self._by_subject, self._derived
        for quad in quads:
            triple = quad.triple
            kept = by_subject.get(triple.subject)
            if kept is None:
                kept = by_subject[triple.subject] = {}
            if triple in kept:
                continue
            kept[triple] = None
            self.triples += 1
            if triple.predicate.value in _DERIVED and isinstance(triple.object, _SUBJECTS):
                derived.setdefault(triple.object, []).append(triple.subject)

    def let_go(self) -> None:
        """Let every triple go, as past ``limit`` (``kept`` False): for a write these were not
        given (a file written a batch at a time), after which only the store knows it all."""
        self.kept, self.triples = False, 0
        self._by_subject, self._derived = {}, {}

    def typed_iris(self) -> Iterator[str]:
        """Every IRI with an ``rdf:type`` that holds a "/": what ``analysis.health.checks.entities_under``
        scans the store for."""
        for subject, triples in self._by_subject.items():
            if isinstance(subject, ox.NamedNode) and "/" in subject.value \
                    and any(t.predicate.value == RDF_TYPE for t in triples):
                yield subject.value

    def session_triples(self, roots: Sequence[str]) -> list[ox.Triple]:
        """Every triple of the entities of sessions ``roots`` (IRIs) and of what derives from
        them, with what their steps point at: the triples ``fetch.session_triples`` reads from
        the store these were written to. Raises ValueError for a root that is not an IRI."""
        seen: set[ox.NamedNode | ox.BlankNode] = set()
        todo = [ox.NamedNode(r) for r in roots]
        while todo:
            node = todo.pop()
            if node in seen:
                continue
            seen.add(node)
            todo += self._derived.get(node, ())
        out: list[ox.Triple] = []
        pointed: dict[ox.NamedNode | ox.BlankNode, None] = {}
        for node in seen:
            for triple in self._by_subject.get(node, ()):
                out.append(triple)
                if triple.predicate.value in POINTERS and isinstance(triple.object, _SUBJECTS):
                    pointed[triple.object] = None
        for node in pointed:
            if node not in seen:
                out += self._by_subject.get(node, ())
        return out
