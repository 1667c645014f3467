"""A pyoxigraph Store as a source: in memory (uploads, files, the demo) or on disk (a local
store)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pyoxigraph as ox

from ..model.vocabulary import ANSWER, DOCUMENT
from .source import CONTENT, DOCUMENTS_GRAPH, SourceError, Term, TraceSource, check_read_only, solution_rows

# Where an entity's words are: inline (the seed shape), or behind a tg:document.
_ENTITY_TEXT = tuple(ox.NamedNode(p) for p in (ANSWER, CONTENT, DOCUMENT))


@dataclass
class StoreSource(TraceSource):
    """A pyoxigraph Store: in memory (uploads, the demo) or on disk (a local store).

    Queries see the union of all graphs as their default graph, so sessions are found wherever
    they sit. ``documents`` adds texts held outside the store (a loaded ``*.documents.json``);
    ``index``, when given, answers the session list (``catalog``) without reading the traces.
    """

    store: ox.Store
    label: str = "in memory"
    documents: Mapping[str, str] = field(default_factory=dict)
    index: Any = None  # a session_index.SessionIndex of the store's sessions, or None
    recovers_damaged_literals = True  # files are read, and stores written, with them recovered

    def select(self, query: str) -> list[dict[str, Term]]:
        try:
            return solution_rows(self.store.query(check_read_only(query), use_default_graph_as_union=True))
        except (SyntaxError, OSError) as error:
            raise SourceError(f"{self.label}: {error}") from None

    def construct(self, query: str) -> list[ox.Triple]:
        try:
            return list(self.store.query(check_read_only(query), use_default_graph_as_union=True))
        except (SyntaxError, OSError) as error:
            raise SourceError(f"{self.label}: {error}") from None

    def entity_texts(self, iris: Iterable[str]) -> dict[str, str]:
        """As ``TraceSource.entity_texts``, by direct lookups in the store (a page of the list
        asks for fifty: a few milliseconds, where two SPARQL queries on a large store on disk
        take tens)."""
        out: dict[str, str] = {}
        documents: dict[str, str] = {}
        for entity in {i for i in iris if i}:
            try:
                subject = ox.NamedNode(entity)
            except ValueError:
                continue
            for predicate in _ENTITY_TEXT:
                for quad in self.store.quads_for_pattern(subject, predicate, None, None):
                    if isinstance(quad.object, ox.Literal):
                        out.setdefault(entity, quad.object.value)
                    elif isinstance(quad.object, ox.NamedNode):
                        documents.setdefault(quad.object.value, entity)
        return self.with_document_texts(out, documents)

    def document_texts(self, iris: Iterable[str]) -> dict[str, str]:
        iris = list(iris)
        out = {i: self.documents[i] for i in iris if i in self.documents}
        missing = [i for i in iris if i not in out]
        if missing and self._has_documents_graph():
            out.update(stored_texts(self.store, missing))
        return out

    def _has_documents_graph(self) -> bool:
        return self.store.contains_named_graph(ox.NamedNode(DOCUMENTS_GRAPH))

    def __len__(self) -> int:
        return len(self.store)


def stored_texts(store: ox.Store, iris: Iterable[str]) -> dict[str, str]:
    """The texts ``store`` holds in its documents graph (``DOCUMENTS_GRAPH``, where a local store
    keeps its content files' texts) for the document IRIs ``iris``, those it has: one lookup an
    IRI. A string that is no IRI has none."""
    graph, content, out = ox.NamedNode(DOCUMENTS_GRAPH), ox.NamedNode(CONTENT), {}
    for iri in iris:
        try:
            subject = ox.NamedNode(iri)
        except ValueError:
            continue
        for quad in store.quads_for_pattern(subject, content, None, graph):
            if isinstance(quad.object, ox.Literal):
                out[iri] = quad.object.value
                break
    return out
