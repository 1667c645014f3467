"""A SPARQL 1.1 endpoint as a source, read through the SPARQL 1.1 Protocol (queries only).

Every answer is read with ``bounded_http``'s limits (a byte cap, one deadline for the whole
exchange); with ``pins`` (from ``EndpointPolicy.pin``) connections go only to the addresses the
policy checked. Text quoted from the server in a message is scrubbed of the password or token
first, then cut (``secret_scrub``)."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pyoxigraph as ox

from ..read.errors import TraceLoadError
from ..read.prescan import check_before_parsing
from ..network.bounded_http import DEFAULT_TIMEOUT_S, HttpFailure, bounded_post
from ..network.pinned_http import Pins, pinned_session
from ..network.secret_scrub import SecretScrub
from .source import SourceError, Term, TraceSource, check_read_only, solution_rows


@dataclass
class EndpointSource(TraceSource):
    """A SPARQL 1.1 endpoint, read through the SPARQL 1.1 Protocol (queries only).

    ``graphs``: graph IRIs sent as ``default-graph-uri`` (their merge is the default graph);
    empty means the server's default graph, which Virtuoso, GraphDB and Oxigraph server
    (``--union-default-graph``) make the union of all graphs. Authentication: ``user`` and
    ``password`` (HTTP basic) or ``token`` (bearer). ``timeout`` in seconds for each request in
    all (connect, wait, read the whole answer); ``max_bytes`` the cap on one answer (None:
    ``bounded_http.max_response_bytes()``); ``pins`` the addresses to connect to (``{(host,
    port): (address, ...)}``, as ``EndpointPolicy.pin`` checked them; None: resolve the name).
    ``triple_terms`` False skips the queries that name quoted triples (for servers without
    RDF 1.2 / RDF-star support); edges then show as not stored. ``documents`` adds texts held
    outside the server (a loaded ``*.documents.json``).
    """

    url: str
    graphs: tuple[str, ...] = ()
    user: str | None = None
    password: str | None = None
    token: str | None = None
    timeout: float = DEFAULT_TIMEOUT_S
    triple_terms: bool = True
    documents: Mapping[str, str] = field(default_factory=dict)
    pins: Pins | None = None
    max_bytes: int | None = None
    _local: Any = field(default_factory=threading.local, repr=False, compare=False)
    # Virtuoso joins ``?s path* ?root`` to VALUES of 5 roots in over 35 s at 1,000 sessions, and
    # to a UNION of one branch per root in 0.06 s (50 roots: 0.3 s), the same triples
    anchors_as_union = True
    # each thread has its own connection (``_local``); the server does the work
    concurrent_queries = True

    def __repr__(self) -> str:  # the password and token stay out of every representation
        return f"EndpointSource({self.url!r}, graphs={self.graphs!r})"

    @property
    def scrub(self) -> SecretScrub:
        """The secrets of this connection, for scrubbing text quoted from the server."""
        return SecretScrub(self.token, self.password,
                           basic=(self.user, self.password) if self.user is not None and self.password else None)

    @property
    def label(self) -> str:  # type: ignore[override]
        return f"endpoint {self.url}"

    def _post(self, query: str, accept: str) -> tuple[bytearray, str]:
        """The body and content type of the answer to ``query``. Raises SourceError (HTTP
        status with the server's words, scrubbed; no connection; the deadline; the byte cap)."""
        data = [("query", check_read_only(query))] + [("default-graph-uri", g) for g in self.graphs]
        headers = {"Accept": accept}
        auth = None
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        elif self.user is not None:
            auth = (self.user, self.password or "")
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = pinned_session(self.pins)
        try:  # no redirects are followed: a redirect must not lead past the endpoint policy
            answer = bounded_post(session, self.url, data=data, headers=headers, auth=auth, timeout=self.timeout,
                                  max_bytes=self.max_bytes)
        except HttpFailure as failure:
            raise SourceError(f"{self.label}: {self.scrub.clean(failure)}") from None
        if answer.status != 200:
            words = self.scrub.clean(answer.body.decode("utf-8", errors="replace"), 300, cut_short=answer.cut_short)
            raise SourceError(f"{self.label}: HTTP {answer.status}: {words}")
        return answer.body, answer.content_type

    def select(self, query: str) -> list[dict[str, Term]]:
        body, _ = self._post(query, "application/sparql-results+json")
        self._check_nesting(body, "results")
        try:  # the solutions are parsed as they are read: a malformed term fails in the loop
            return solution_rows(ox.parse_query_results(body, format=ox.QueryResultsFormat.JSON))
        except (SyntaxError, ValueError) as error:
            raise SourceError(f"{self.label}: unreadable results ({self.scrub.clean(error, 300)})") from None

    def construct(self, query: str) -> list[ox.Triple]:
        body, content_type = self._post(query, "application/n-triples, text/turtle;q=0.9, text/plain;q=0.5")
        fmt = ox.RdfFormat.TURTLE if content_type == "text/turtle" else ox.RdfFormat.N_TRIPLES
        self._check_nesting(body, fmt)
        try:
            return [ox.Triple(q.subject, q.predicate, q.object) for q in ox.parse(body, format=fmt)]
        except (SyntaxError, ValueError) as error:
            raise SourceError(f"{self.label}: unreadable triples ({self.scrub.clean(error, 300)})") from None

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
