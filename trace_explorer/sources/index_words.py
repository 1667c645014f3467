"""The session index's words (``session_index``): where their texts come from when rows are
written, and where a search found them when a page is read.

Texts behind a ``tg:document`` come from the texts loaded beside the traces (a
``*.documents.json``: ``GraphTexts``' ``loaded``) or from a store's documents graph (written
there at ingest and by ``sync``). A file of texts alone, ingested after its traces, changes the
words of the sessions whose steps point at them (``documents_named``, ``owners_of_documents``).

A match is shown with FTS5's ``snippet()``: the words found between ``MARKS`` (control
characters that ``session_index.index_row`` takes out of the texts, so every mark is ours).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence

import pyoxigraph as ox

from ..model.roots import step_owner
from ..model.vocabulary import DOCUMENT
from ..model.words import WORD_FIELDS
from .source import CONTENT, DOCUMENTS_GRAPH

MARKS = ("\x02", "\x03")  # before and after each word found, in a snippet
SNIPPET_TOKENS = 16  # words of text around a match in a snippet
# the fields a snippet is taken from first (the row shows the question and the id already)
_SNIPPET_ORDER = [f for f in WORD_FIELDS if f not in ("question", "iri")] + ["question", "iri"]


class GraphTexts(Mapping):
    """Document IRI -> text: from ``loaded`` (texts loaded beside the traces) first, else from
    the ``tg:content`` of the document in ``store``'s documents graph (one lookup each, nothing
    read ahead). Iterating gives ``loaded`` only."""

    def __init__(self, store: ox.Store, loaded: Mapping[str, str] | None = None):
        self.store, self.loaded = store, loaded or {}
        self._graph, self._content = ox.NamedNode(DOCUMENTS_GRAPH), ox.NamedNode(CONTENT)
        self._has_graph: bool | None = None

    def __getitem__(self, document: str) -> str:
        if document in self.loaded:
            return self.loaded[document]
        if self._has_graph is None:
            self._has_graph = self.store.contains_named_graph(self._graph)
        if self._has_graph:
            try:
                subject = ox.NamedNode(document)
            except ValueError:
                raise KeyError(document) from None
            for quad in self.store.quads_for_pattern(subject, self._content, None, self._graph):
                if isinstance(quad.object, ox.Literal):
                    return quad.object.value
        raise KeyError(document)

    def __iter__(self) -> Iterator[str]:
        return iter(self.loaded)

    def __len__(self) -> int:
        return len(self.loaded)

    def __bool__(self) -> bool:  # a reader given no texts loaded still looks up the store's
        return True


def documents_named(store: ox.Store, texts: Mapping[str, str]) -> list[str]:
    """Those of the documents ``texts`` names that steps already in ``store`` point at
    (``tg:document``) and whose text the store does not hold yet: one lookup each."""
    if not texts:
        return []
    predicate, graph = ox.NamedNode(DOCUMENT), ox.NamedNode(DOCUMENTS_GRAPH)
    out = []
    for document in texts:
        try:
            node = ox.NamedNode(document)
        except ValueError:
            continue
        if next(store.quads_for_pattern(None, predicate, node, None), None) is not None and \
                next(store.quads_for_pattern(node, None, None, graph), None) is None:
            out.append(document)
    return out


def owners_of_documents(store: ox.Store, documents: Sequence[str]) -> tuple[set[str], list[str]]:
    """The sessions whose steps in ``store`` point at ``documents``: ``(roots, steps)``, the
    roots named by a step's IRI (``model.roots.step_owner``) and the steps whose owner only
    their derivations tell."""
    predicate = ox.NamedNode(DOCUMENT)
    roots: set[str] = set()
    steps: list[str] = []
    for document in documents:
        for quad in store.quads_for_pattern(None, predicate, ox.NamedNode(document), None):
            if isinstance(quad.subject, ox.NamedNode):
                owner = step_owner(quad.subject.value)
                if owner is not None:
                    roots.add(owner)
                else:
                    steps.append(quad.subject.value)
    return roots, sorted(set(steps))


def match_rows(db: sqlite3.Connection, query: str, ids: Sequence[int]) -> dict[int, dict[str, str]]:
    """Where the FTS5 MATCH expression ``query`` found its words in rows ``ids`` of the index's
    ``search`` table: ``{id: {"field": a WORD_FIELDS name, "snippet": its text around the words
    found, each between MARKS}}``: the first field in ``WORD_FIELDS`` order with a word found,
    the question and the IRI last. One query (the caller holds the index's lock)."""
    snippets = ", ".join(f"snippet(search, {WORD_FIELDS.index(f)}, char(2), char(3), '…', {SNIPPET_TOKENS})"
                         for f in _SNIPPET_ORDER)
    marks = ", ".join("?" * len(ids))
    found = db.execute(f"SELECT rowid, {snippets} FROM search WHERE search MATCH ? AND rowid IN ({marks})",
                       [query, *ids]).fetchall()
    out: dict[int, dict[str, str]] = {}
    for rowid, *texts in found:
        best = next((i for i, text in enumerate(texts) if text and MARKS[0] in text), None)
        if best is not None:
            out[rowid] = {"field": _SNIPPET_ORDER[best], "snippet": texts[best]}
    return out


def snippet_parts(snippet: str) -> list[tuple[str, bool]]:
    """A snippet (``match_rows``) as ``(text, found)`` pieces in order, for a view to draw the
    words found marked (each piece is trace text: the view escapes it)."""
    parts: list[tuple[str, bool]] = []
    rest = snippet
    while rest:
        start = rest.find(MARKS[0])
        if start < 0:
            parts.append((rest, False))
            break
        end = rest.find(MARKS[1], start)
        end = len(rest) if end < 0 else end
        if start:
            parts.append((rest[:start], False))
        parts.append((rest[start + 1:end], True))
        rest = rest[end + 1:]
    return [(t, found) for t, found in parts if t]
