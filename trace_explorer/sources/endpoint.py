"""A SPARQL 1.1 endpoint as a source, read through the SPARQL 1.1 Protocol (queries only)."""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import pyoxigraph as ox

from ..read.errors import TraceLoadError
from ..read.prescan import check_before_parsing
from .source import SourceError, Term, TraceSource, check_read_only


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
        self._check_nesting(body, "results")
        try:
            solutions = ox.parse_query_results(body, format=ox.QueryResultsFormat.JSON)
        except (SyntaxError, ValueError) as error:
            raise SourceError(f"{self.label}: unreadable results ({error})") from None
        names = [v.value for v in solutions.variables]
        return [{n: s[n] for n in names if s[n] is not None} for s in solutions]

    def construct(self, query: str) -> list[ox.Triple]:
        body, content_type = self._post(query, "application/n-triples, text/turtle;q=0.9, text/plain;q=0.5")
        fmt = ox.RdfFormat.TURTLE if content_type == "text/turtle" else ox.RdfFormat.N_TRIPLES
        self._check_nesting(body, fmt)
        try:
            return [ox.Triple(q.subject, q.predicate, q.object) for q in ox.parse(body, format=fmt)]
        except SyntaxError as error:
            raise SourceError(f"{self.label}: unreadable triples ({error})") from None

    def _check_nesting(self, body: bytes, fmt: ox.RdfFormat | str) -> None:
        """Raise SourceError when the answer ``body`` (in ``fmt``, or JSON results) nests triple
        terms or JSON deeper than a trace does (``read.prescan``): the parser recurses on them."""
        try:
            check_before_parsing(self.label, lambda: io.BytesIO(body), fmt)
        except TraceLoadError as error:
            raise SourceError(f"{self.label}: unreadable answer ({error.expected}; {error.found})") from None

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
