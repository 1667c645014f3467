"""What every source of traces offers: read-only SPARQL and the texts behind ``tg:document``.
A pyoxigraph store (``store``: in memory, or on disk as the embedded default) and any SPARQL
1.1 endpoint (``endpoint``: Virtuoso, GraphDB, Fuseki, Neptune, Oxigraph server, QLever) answer
the same queries; nothing else reaches them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import pyoxigraph as ox

from ..read.errors import SourceError  # raised by every source, and below them by the network's guard rails
from .search import REGEX_SEARCH, TextSearch
from .sparql_text import PREFIXES, iri_batches, values_clause

Term = ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple
# Named graph where a local store keeps the document store's texts (``<doc> tg:content "text"``).
DOCUMENTS_GRAPH = "urn:trace-explorer:documents"
CONTENT = "https://trustgraph.ai/ns/content"

_PROLOGUE = re.compile(r"\A(?:\s+|#[^\n]*\n|(?:PREFIX\s+[^\s:]*:\s*<[^>]*>)|(?:BASE\s+<[^>]*>))*", re.I)
_QUERY_FORMS = ("SELECT", "CONSTRUCT", "ASK", "DESCRIBE")


def check_read_only(query: str) -> str:
    """Return ``query`` if it is a SPARQL query form (SELECT, CONSTRUCT, ASK, DESCRIBE);
    raise SourceError for anything else (an update: INSERT, DELETE, LOAD, CLEAR, DROP, ...)."""
    rest = query[_PROLOGUE.match(query).end():]
    if not rest.lstrip().upper().startswith(_QUERY_FORMS):
        raise SourceError(f"refused: only SPARQL queries are sent, not {rest.strip()[:40]!r}")
    return query


def solution_rows(solutions: ox.QuerySolutions) -> list[dict[str, Term]]:
    """The rows of a SELECT's ``solutions``, each ``{variable: term}`` without the unbound ones.
    Raises what reading them raises (a malformed term in parsed results: SyntaxError or
    ValueError; a store's evaluation: OSError). ``solutions`` is let go here whatever happens:
    pyoxigraph's results may only be freed on the thread that made them, and a traceback kept
    for its message (``pytest.raises``, a page's error) would otherwise keep them until a
    garbage collection on another thread, which fails with "unsendable"."""
    try:
        names = [v.value for v in solutions.variables]
        return [{n: s[n] for n in names if s[n] is not None} for s in solutions]
    except (SyntaxError, ValueError, OSError) as error:
        raise error.with_traceback(None)  # without the frames that iterated over them
    finally:
        del solutions


class TraceSource:
    """The read interface every source offers.

    ``select(query)`` -> list of ``{variable: term}`` rows; ``construct(query)`` -> triples;
    ``document_texts(iris)`` -> ``{document IRI: text}`` for those it has; ``label`` names the
    source for people; ``triple_terms`` is False when the source cannot hold quoted triples;
    ``text_search`` says how the session list's search box is answered on it (``search``: SPARQL
    ``REGEX`` by default; a source whose SPARQL is limited sets ``CONTAINS_SEARCH``,
    ``NO_SEARCH`` or a ``TextSearch`` of its own). A store with a session index is searched with
    the index's full-text table instead.
    ``lookup``: None, or an object that lists and reads the source's sessions itself, for a
    source that cannot answer the catalog's SPARQL (a TrustGraph gateway:
    ``trustgraph.source.TrustGraphSource``): ``page(filters, limit, offset) -> (rows,
    total)``, ``count(filters)``, ``steps()`` (-1: unknown), ``summary(root)``,
    ``read(roots, context) -> {root: Session}`` and ``find(key) -> [root]``; it answers the
    search and sorts newest first.
    ``lineage()``: the lookups of extraction provenance (``lineage.LineageLookups``): SPARQL
    queries here; a source that cannot answer them gives its own.
    ``anchors_as_union``: True when the server walks a property path far faster from a constant
    than from a VALUES block of several roots (``fetch.session_triples``).
    ``concurrent_queries``: True when queries sent at once from several threads are answered
    side by side by the server (``catalog.list_sessions`` then counts while it reads the page).
    ``recovers_damaged_literals``: True when quoted triples that arrived damaged into literals
    were recovered as they were read (files and local stores); the lineage lookups then need not
    look for them.
    """

    label = "source"
    triple_terms = True
    recovers_damaged_literals = False
    # True when the server walks a property path from a constant far faster than from a VALUES
    # block of several: a page's sessions are then read with one UNION branch per root
    # (``fetch.session_triples``)
    anchors_as_union = False
    # True when queries may be sent at once from several threads and the server answers them
    # side by side (a SPARQL endpoint): the list's count is then asked while its page is read
    concurrent_queries = False
    lookup = None
    text_search: TextSearch = REGEX_SEARCH

    def select(self, query: str) -> list[dict[str, Term]]:
        raise NotImplementedError

    def construct(self, query: str) -> list[ox.Triple]:
        raise NotImplementedError

    def lineage(self):
        """The lineage lookups of this source (``lineage.LineageLookups``): SPARQL queries."""
        from .lineage_sparql import SparqlLineage  # it builds on this module: imported when asked

        return SparqlLineage(self)

    def entity_texts(self, iris: Iterable[str]) -> dict[str, str]:
        """The words of entities (answers, findings, chunks' selections), by IRI: an inline
        ``tg:answer`` or ``tg:content`` (the seed shape), else the text behind the entity's
        ``tg:document`` (``document_texts``); those with neither are left out. Two queries."""
        out: dict[str, str] = {}
        documents: dict[str, str] = {}
        for chunk in iri_batches(sorted({i for i in iris if i})):
            rows = self.select(PREFIXES + f"""SELECT ?e ?p ?o WHERE {{ {values_clause('e', chunk)}
  VALUES ?p {{ tg:answer tg:content tg:document }} ?e ?p ?o }}""")
            for row in rows:
                entity, value = row["e"].value, row["o"]
                if isinstance(value, ox.Literal):
                    out.setdefault(entity, value.value)
                elif isinstance(value, ox.NamedNode):
                    documents.setdefault(value.value, entity)
        return self.with_document_texts(out, documents)

    def with_document_texts(self, texts: dict[str, str], documents: dict[str, str]) -> dict[str, str]:
        """``texts`` (entity IRI -> its words) with, for each entity not in it yet, the text
        behind its document (``documents``: document IRI -> entity IRI), where there is one."""
        found = self.document_texts(documents) if documents else {}
        for document, entity in documents.items():
            if document in found:
                texts.setdefault(entity, found[document])
        return texts

    def document_texts(self, iris: Iterable[str]) -> dict[str, str]:
        """Texts behind ``tg:document`` IRIs, from the source's documents graph."""
        out: dict[str, str] = {}
        for chunk in iri_batches(sorted({i for i in iris if i})):
            rows = self.select(PREFIXES + f"SELECT ?d ?text WHERE {{ {values_clause('d', chunk)} "
                               f"GRAPH <{DOCUMENTS_GRAPH}> {{ ?d tg:content ?text }} }}")
            out.update((r["d"].value, r["text"].value) for r in rows if "text" in r)
        return out
