"""A pyoxigraph Store as a source: in memory (uploads, files, the demo) or on disk (a local
store)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pyoxigraph as ox

from .source import DOCUMENTS_GRAPH, SourceError, Term, TraceSource, check_read_only


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

    def select(self, query: str) -> list[dict[str, Term]]:
        try:
            solutions = self.store.query(check_read_only(query), use_default_graph_as_union=True)
        except (SyntaxError, OSError) as error:
            raise SourceError(f"{self.label}: {error}") from None
        names = [v.value for v in solutions.variables]
        return [{n: s[n] for n in names if s[n] is not None} for s in solutions]

    def construct(self, query: str) -> list[ox.Triple]:
        try:
            return list(self.store.query(check_read_only(query), use_default_graph_as_union=True))
        except (SyntaxError, OSError) as error:
            raise SourceError(f"{self.label}: {error}") from None

    def document_texts(self, iris: Iterable[str]) -> dict[str, str]:
        iris = list(iris)
        out = {i: self.documents[i] for i in iris if i in self.documents}
        missing = [i for i in iris if i not in out]
        if missing and self._has_documents_graph():
            out.update(super().document_texts(missing))
        return out

    def _has_documents_graph(self) -> bool:
        return self.store.contains_named_graph(ox.NamedNode(DOCUMENTS_GRAPH))

    def __len__(self) -> int:
        return len(self.store)
