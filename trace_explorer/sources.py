"""Where traces are read from: a pyoxigraph store (in memory, or on disk as the embedded
default) or any SPARQL 1.1 endpoint (Virtuoso, GraphDB, Fuseki, Neptune, Oxigraph server,
QLever). Every source answers the same read-only SPARQL; nothing else reaches it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pyoxigraph as ox

from .sparql_text import PREFIXES, iri_batches, values_clause

Term = ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple
# Named graph where a local store keeps the document store's texts (``<doc> tg:content "text"``).
DOCUMENTS_GRAPH = "urn:trace-explorer:documents"
CONTENT = "https://trustgraph.ai/ns/content"

_PROLOGUE = re.compile(r"\A(?:\s+|#[^\n]*\n|(?:PREFIX\s+[^\s:]*:\s*<[^>]*>)|(?:BASE\s+<[^>]*>))*", re.I)
_QUERY_FORMS = ("SELECT", "CONSTRUCT", "ASK", "DESCRIBE")


class SourceError(RuntimeError):
    """A source could not answer: the store is unavailable, the endpoint failed or timed out,
    or the query was refused (an update). The message says which and where."""


def check_read_only(query: str) -> str:
    """Return ``query`` if it is a SPARQL query form (SELECT, CONSTRUCT, ASK, DESCRIBE);
    raise SourceError for anything else (an update: INSERT, DELETE, LOAD, CLEAR, DROP, ...)."""
    rest = query[_PROLOGUE.match(query).end():]
    if not rest.lstrip().upper().startswith(_QUERY_FORMS):
        raise SourceError(f"refused: only SPARQL queries are sent, not {rest.strip()[:40]!r}")
    return query


class TraceSource:
    """The read interface every source offers.

    ``select(query)`` -> list of ``{variable: term}`` rows; ``construct(query)`` -> triples;
    ``document_texts(iris)`` -> ``{document IRI: text}`` for those it has; ``label`` names the
    source for people; ``triple_terms`` is False when the source cannot hold quoted triples.
    """

    label = "source"
    triple_terms = True

    def select(self, query: str) -> list[dict[str, Term]]:
        raise NotImplementedError

    def construct(self, query: str) -> list[ox.Triple]:
        raise NotImplementedError

    def document_texts(self, iris: Iterable[str]) -> dict[str, str]:
        """Texts behind ``tg:document`` IRIs, from the source's documents graph."""
        out: dict[str, str] = {}
        for chunk in iri_batches(sorted({i for i in iris if i})):
            rows = self.select(PREFIXES + f"SELECT ?d ?text WHERE {{ {values_clause('d', chunk)} "
                               f"GRAPH <{DOCUMENTS_GRAPH}> {{ ?d tg:content ?text }} }}")
            out.update((r["d"].value, r["text"].value) for r in rows if "text" in r)
        return out


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


@dataclass
class EndpointSource(TraceSource):
    """A SPARQL 1.1 endpoint, read through the SPARQL 1.1 Protocol (queries only).

    ``graphs``: graph IRIs sent as ``default-graph-uri`` (their merge is the default graph);
    empty means the server's default graph, which Virtuoso, GraphDB and Oxigraph server
    (``--union-default-graph``) make the union of all graphs. Authentication: ``user`` and
    ``password`` (HTTP basic) or ``token`` (bearer). ``timeout`` in seconds per request.
    ``triple_terms`` False skips the queries that name quoted triples (for servers without
    RDF 1.2 / RDF-star support); edges then show as not stored. ``documents`` adds texts held
    outside the server (a loaded ``*.documents.json``).
    """

    url: str
    graphs: tuple[str, ...] = ()
    user: str | None = None
    password: str | None = None
    token: str | None = None
    timeout: float = 30.0
    triple_terms: bool = True
    documents: Mapping[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:  # type: ignore[override]
        return f"endpoint {self.url}"

    def _post(self, query: str, accept: str) -> tuple[bytes, str]:
        import requests  # imported here: only endpoint users pay for it

        data = [("query", check_read_only(query))] + [("default-graph-uri", g) for g in self.graphs]
        headers = {"Accept": accept}
        auth = None
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        elif self.user is not None:
            auth = (self.user, self.password or "")
        try:
            response = requests.post(self.url, data=data, headers=headers, auth=auth, timeout=self.timeout,
                                     allow_redirects=False)  # a redirect must not lead past the endpoint policy
        except requests.Timeout:
            raise SourceError(f"{self.label}: no answer within {self.timeout:g} s") from None
        except requests.RequestException as error:
            raise SourceError(f"{self.label}: {error}") from None
        if response.status_code != 200:
            raise SourceError(f"{self.label}: HTTP {response.status_code}: {response.text[:300]}")
        return response.content, response.headers.get("Content-Type", "").split(";")[0].strip()

    def select(self, query: str) -> list[dict[str, Term]]:
        body, _ = self._post(query, "application/sparql-results+json")
        try:
            solutions = ox.parse_query_results(body, format=ox.QueryResultsFormat.JSON)
        except (SyntaxError, ValueError) as error:
            raise SourceError(f"{self.label}: unreadable results ({error})") from None
        names = [v.value for v in solutions.variables]
        return [{n: s[n] for n in names if s[n] is not None} for s in solutions]

    def construct(self, query: str) -> list[ox.Triple]:
        body, content_type = self._post(query, "application/n-triples, text/turtle;q=0.9, text/plain;q=0.5")
        fmt = ox.RdfFormat.TURTLE if content_type == "text/turtle" else ox.RdfFormat.N_TRIPLES
        try:
            return [ox.Triple(q.subject, q.predicate, q.object) for q in ox.parse(body, format=fmt)]
        except SyntaxError as error:
            raise SourceError(f"{self.label}: unreadable triples ({error})") from None

    def document_texts(self, iris: Iterable[str]) -> dict[str, str]:
        iris = list(iris)
        out = {i: self.documents[i] for i in iris if i in self.documents}
        missing = [i for i in iris if i not in out]
        if missing:
            try:
                out.update(super().document_texts(missing))
            except SourceError:
                pass  # a server without our documents graph simply has no texts
        return out
