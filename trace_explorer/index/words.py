"""The session index's words (``session_index``): where their texts come from when rows are
written, and where a search found them when a page is read.

Texts behind a ``tg:document`` come from the texts loaded beside the traces (a
``*.documents.json``: ``GraphTexts``' ``loaded``) or from a store's documents graph (written
there at ingest and by ``sync``). A file of texts alone, ingested after its traces, changes the
words of the sessions whose steps point at them (``documents_named``, ``words_of_documents``):
they are added to those sessions' words, without reading the sessions again.

A match is shown as a snippet of the field where the words were found, the words between
``MARKS`` (control characters that ``session_index.index_row`` takes out of the texts, so every
mark is ours): ``search.text_match``, the same for every source.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence

import pyoxigraph as ox

from ..model.fields import kind_of
from ..model.roots import step_owner
from ..model.vocabulary import DOCUMENT, RDF_TYPE
from ..model.words import DOCUMENT_FIELDS, WORD_FIELDS
from ..sources.search import MARKS, text_match
from ..sources.source import CONTENT, DOCUMENTS_GRAPH



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


PROGRESS_EVERY = 1000  # documents between two calls of ``words_of_documents``'s progress


def words_of_documents(store: ox.Store, texts: Mapping[str, str], documents: Sequence[str],
                       progress: Callable[[int], None] | None = None,
                       ) -> tuple[dict[str, dict[str, list[str]]], dict[str, dict[str, list[str]]]]:
    """The words that ``texts`` of ``documents`` add to the sessions whose steps in ``store``
    point at them, by the field the step's kind puts them in (``model.words``: a Thought's in
    "thought", an Observation's in "observation", an answer's in "answer", …): ``(by_root,
    by_step)``, ``{root or step IRI: {field: [text, …]}}``; ``by_root`` for steps whose IRI
    names their session (``model.roots.step_owner``), ``by_step`` for the others (their
    session is found from their derivations). A few lookups a document (about 0.2 ms);
    ``progress(n)`` hears of every ``PROGRESS_EVERY`` documents looked up, and of the last."""
    predicate, rdf_type = ox.NamedNode(DOCUMENT), ox.NamedNode(RDF_TYPE)
    by_root: dict[str, dict[str, list[str]]] = {}
    by_step: dict[str, dict[str, list[str]]] = {}
    for done, document in enumerate(documents, 1):
        for quad in store.quads_for_pattern(None, predicate, ox.NamedNode(document), None):
            if not isinstance(quad.subject, ox.NamedNode):
                continue
            step = quad.subject.value
            types = {t.object.value for t in store.quads_for_pattern(quad.subject, rdf_type, None, None)}
            field = DOCUMENT_FIELDS.get(kind_of(step, types), "result")
            owner = step_owner(step)
            target = by_root.setdefault(owner, {}) if owner is not None else by_step.setdefault(step, {})
            target.setdefault(field, []).append(texts[document])
        if progress is not None and (done % PROGRESS_EVERY == 0 or done == len(documents)):
            progress(done % PROGRESS_EVERY or PROGRESS_EVERY)
    return by_root, by_step


def match_rows(db: sqlite3.Connection, terms: Sequence[tuple[str | None, str]],
               ids: Sequence[int]) -> dict[int, dict[str, str]]:
    """Where the search ``terms`` (``search.search_terms``) were found in rows ``ids`` of the
    index's ``search`` table: ``{id: {"field": a WORD_FIELDS name, "snippet": its text around
    the words found, each between MARKS}}`` (``search.text_match``, on the texts the rows
    hold). One lookup by rowid (the caller holds the index's lock). (FTS5's own ``snippet()``
    evaluates the MATCH again for each row: a prefix query over every text costs about a
    millisecond a row at 86,000 sessions, where this takes 2 ms a page.)"""
    marks = ", ".join("?" * len(ids))
    found = db.execute(f"SELECT rowid, {', '.join(WORD_FIELDS)} FROM search WHERE rowid IN ({marks})", list(ids))
    out: dict[int, dict[str, str]] = {}
    for rowid, *texts in found.fetchall():
        match = text_match(dict(zip(WORD_FIELDS, texts)), terms)
        if match is not None:
            out[rowid] = match
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
