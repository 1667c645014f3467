"""A local stand-in for a TrustGraph deployment's API gateway, for the tests and benchmarks.

It speaks the REST paths of TrustGraph's OpenAPI spec (``specs/api/``) as the gateway does:
``POST /api/v1/flow/{flow}/service/triples``, ``.../service/sparql-query`` and
``/api/v1/librarian``, with a bearer token. Requests are decoded and answers encoded by
TrustGraph's own translators (``trustgraph-base``: ``TriplesQueryRequestTranslator``,
``TriplesQueryResponseTranslator``, ``SparqlQueryResponseTranslator``,
``LibraryRequestTranslator``, ``LibraryResponseTranslator``), so terms are on the wire exactly
as TrustGraph writes them (quoted triples ``{"t": "t", "tr": ...}``; with ``quoted="r"`` the
spec's ``{"t": "r", "r": ...}`` instead).

What it serves: the reference corpus (``trace_explorer/demo_data``) in one collection, as a
deployment holds it: every session's entities in ``urn:graph:retrieval``, extraction
provenance in ``urn:graph:source``, labels in the default graph; the ``*.documents.json``
texts as the librarian's documents. Another collection is empty. Like TrustGraph's SPARQL
service (which parses with rdflib and evaluates basic graph patterns by lookups), the SPARQL
service here refuses what rdflib cannot parse (quoted triples) and property paths.

Faults, for the tests: ``hang`` (no answer for that many seconds), ``malformed`` (answers that
are not what the spec says), ``lost`` (documents the librarian no longer has), ``fail_after``
(requests answered before every further one fails with HTTP 500), ``latency`` (seconds added
to every request, for the benchmarks), ``sparql`` False (a flow without the SPARQL service),
``stream`` False (a librarian without ``stream-document``), ``drop_sparql_after`` (SPARQL
requests answered before every further one has its connection closed with no answer, as a
SPARQL service that drops its connections), ``busy_over`` (connections beyond that many at once
are reset as soon as they are accepted, as a gateway with a short queue of connections resets
them; ``resets`` counts them). ``log`` records every request
(path and body; the Authorization header as received, for the token tests).

``socket_runs`` (runs recorded from TrustGraph's services: ``tests/trustgraph_socket.py``) opens
the websocket ``/api/v1/socket``, which replays them as the questions they answer are asked.

``completion`` (a function of the system text and the prompt, returning the model's reply) makes
the flow run a text-completion service (``.../service/text-completion``, decoded and encoded by
``TextCompletionRequestTranslator`` and ``TextCompletionResponseTranslator``), as a judge asks
it; without one the flow has no such service (HTTP 404). A reply that is an ``Exception``
instance is answered as the service's ``error`` object.
"""

from __future__ import annotations

import base64
import json
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pyoxigraph as ox
import pytest
from trustgraph.messaging.translators.library import LibraryRequestTranslator, LibraryResponseTranslator
from trustgraph.messaging.translators.sparql_query import SparqlQueryRequestTranslator, SparqlQueryResponseTranslator
from trustgraph.messaging.translators.text_completion import (TextCompletionRequestTranslator,
                                                              TextCompletionResponseTranslator)
from trustgraph.messaging.translators.triples import TriplesQueryRequestTranslator, TriplesQueryResponseTranslator
from trustgraph.schema import (BLANK, IRI, LITERAL, TRIPLE, Error, LibrarianResponse, SparqlBinding,
                               SparqlQueryResponse, Term, TextCompletionResponse, Triple, TriplesQueryResponse)

from tests.loopback_server import post_handler, send_json_bytes, serve_in_thread
from tests.trustgraph_socket import GatewaySocket, socket_thread
from trace_explorer.model.reader import SessionReader
from trace_explorer.model.triple_index import TripleIndex
from trace_explorer.read.collection import load_collection
from trace_explorer.sources.demo import DEMO_DIR

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
RETRIEVAL = ox.NamedNode("urn:graph:retrieval")
SOURCE = ox.NamedNode("urn:graph:source")
TOKEN = "tg-test-token-7f3a9c"
COLLECTION = "research"
_PARSER_LOCK = threading.Lock()
FLOW = "explain-flow"


def corpus_deployment(paths: Iterable = (DEMO_DIR,)) -> tuple[list[ox.Quad], dict[str, str]]:
    """The reference corpus (or the files ``paths``) as a deployment holds it: (quads,
    librarian texts). Sessions' entities (read by the reader) go to ``urn:graph:retrieval``;
    the rest keep their graph, and so does the extraction provenance in ``urn:graph:source``
    (a chunk a DocRAG session chose, and what derives from it, stay there)."""
    collection, errors = load_collection(list(paths))
    assert not errors, errors
    reader = SessionReader(TripleIndex(collection.store))
    members = {m for root in reader.roots for m in reader.members(root)}
    quads = [ox.Quad(q.subject, q.predicate, q.object, RETRIEVAL)
             if isinstance(q.subject, ox.NamedNode) and q.subject.value in members and q.graph_name != SOURCE else q
             for q in collection.store]
    return quads, dict(collection.documents)


def to_term(term) -> Term:
    """A pyoxigraph term as TrustGraph's schema Term."""
    if isinstance(term, ox.NamedNode):
        return Term(type=IRI, iri=term.value)
    if isinstance(term, ox.BlankNode):
        return Term(type=BLANK, id=term.value)
    if isinstance(term, ox.Triple):
        return Term(type=TRIPLE, triple=Triple(s=to_term(term.subject), p=to_term(term.predicate), o=to_term(term.object)))
    return Term(type=LITERAL, value=term.value, language=term.language or "",
                datatype="" if term.language or term.datatype.value == XSD_STRING else term.datatype.value)


def from_term(term: Term):
    """TrustGraph's schema Term as a pyoxigraph term."""
    if term.type == IRI:
        return ox.NamedNode(term.iri)
    if term.type == BLANK:
        return ox.BlankNode(term.id)
    if term.type == TRIPLE:
        t = term.triple
        return ox.Triple(from_term(t.s), from_term(t.p), from_term(t.o))
    if term.language:
        return ox.Literal(term.value, language=term.language)
    return ox.Literal(term.value, datatype=ox.NamedNode(term.datatype)) if term.datatype else ox.Literal(term.value)


def _respell(value: Any) -> Any:
    """The spec's spelling of quoted triples: ``{"t": "r", "r": ...}`` for ``{"t": "t", "tr": ...}``."""
    if isinstance(value, dict):
        if value.get("t") == "t" and "tr" in value:
            return {"t": "r", "r": _respell(value["tr"])}
        return {k: _respell(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_respell(v) for v in value]
    return value


class FakeGateway:
    """The stand-in deployment. ``url`` once started; ``requests`` counts what it answered."""

    def __init__(self, quads: Iterable[ox.Quad] | None = None, documents: dict[str, str] | None = None, *,
                 token: str | None = TOKEN, collection: str = COLLECTION, flow: str = FLOW, sparql: bool = True,
                 stream: bool = True, quoted: str = "t", latency: float = 0.0, socket_runs: list[dict] | None = None):
        if quads is None:
            quads, documents = corpus_deployment()
        self.store = ox.Store()
        self.store.extend(quads)
        self.documents = dict(documents or {})
        self.token, self.collection, self.flow = token, collection, flow
        self.sparql, self.stream, self.quoted, self.latency = sparql, stream, quoted, latency
        self.hang = 0.0
        self.malformed: str | None = None
        self.lost: set[str] = set()
        self.fail_after: int | None = None
        self.drop_sparql_after: int | None = None
        self.completion: Callable[[str, str], str | Exception] | None = None
        self.sparql_requests = 0
        self.busy_over: int | None = None
        self.resets = 0
        self._in_flight = 0
        self.log: list[tuple[str, dict, str | None]] = []
        self.requests = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self.socket = GatewaySocket(self, socket_runs) if socket_runs is not None else None

    # -- lifecycle ----------------------------------------------------------------------------
    def start(self) -> str:
        """Serve on a free loopback port; returns the base URL (``http://127.0.0.1:PORT/``)."""
        gateway = self

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # many requests at once, as a client pool sends them

            def process_request(self, request, client_address):
                if gateway.socket is not None and gateway.socket.wants(request):
                    socket_thread(gateway.socket.serve, request)
                    return
                with gateway._lock:
                    busy = gateway.busy_over is not None and gateway._in_flight >= gateway.busy_over
                    gateway.resets += busy
                    gateway._in_flight += not busy
                if busy:  # closed with SO_LINGER 0: the client's connection is reset
                    request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    request.close()
                    return
                super().process_request(request, client_address)

            def shutdown_request(self, request):
                super().shutdown_request(request)
                with gateway._lock:
                    gateway._in_flight -= 1

        self._server = Server(("127.0.0.1", 0), post_handler(self._handle))
        self._server.daemon_threads = True
        serve_in_thread(self._server)
        return self.url

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # -- the protocol -------------------------------------------------------------------------
    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        with self._lock:
            self.requests += 1
            count = self.requests
            self.log.append((handler.path, body, handler.headers.get("Authorization")))
        if self.latency:
            time.sleep(self.latency)
        if self.hang:
            time.sleep(self.hang)
        if self.fail_after is not None and count > self.fail_after:
            return self._send(handler, 500, {"error": {"type": "internal", "message": "the deployment went away"}})
        if self.token and handler.headers.get("Authorization") != f"Bearer {self.token}":
            return self._send(handler, 401, {"error": {"type": "unauthorized", "message": "invalid token"}})
        parts = handler.path.strip("/").split("/")
        if parts[:2] != ["api", "v1"]:
            return self._send(handler, 404, {"error": {"type": "not-found", "message": handler.path}})
        if parts[2:] == ["librarian"]:
            return self._send(handler, 200, self._librarian(body))
        if len(parts) == 6 and parts[2] == "flow" and parts[4] == "service":
            if parts[3] != self.flow:
                return self._send(handler, 404, {"error": {"type": "not-found", "message": f"no flow {parts[3]}"}})
            if parts[5] == "triples":
                return self._send(handler, 200, self._triples(body))
            if parts[5] == "text-completion" and self.completion is not None:
                return self._send(handler, 200, self._text_completion(body))
            if parts[5] == "sparql-query" and self.sparql:
                with self._lock:
                    self.sparql_requests += 1
                    drop = self.drop_sparql_after is not None and self.sparql_requests > self.drop_sparql_after
                if drop:  # the connection is closed with no answer at all
                    handler.close_connection = True
                    return None
                return self._send(handler, 200, self._sparql(body))
        return self._send(handler, 404, {"error": {"type": "not-found", "message": handler.path}})

    def _send(self, handler, status: int, answer: dict) -> None:
        if self.malformed == "json":
            data = b"<html>gateway error</html>"
        elif self.malformed == "shape" and status == 200:
            data = json.dumps({"response": {"unexpected": True}, "bindings": "nope", "variables": 3}).encode()
        elif self.malformed == "term" and status == 200:
            data = json.dumps({"response": [{"s": {"t": "q", "x": 1}, "p": {"t": "i", "i": "p"}, "o": {}}],
                               "variables": ["s"], "bindings": [{"values": [{"t": "zz"}]}]}).encode()
        else:
            data = json.dumps(_respell(answer) if self.quoted == "r" else answer).encode()
        send_json_bytes(handler, status, data)

    def _triples(self, body: dict) -> dict:
        request = TriplesQueryRequestTranslator().decode(body)
        if request.collection != self.collection:
            return TriplesQueryResponseTranslator().encode(TriplesQueryResponse(triples=[]))
        if request.g is None or request.g == "":
            graph = ox.DefaultGraph()
        elif request.g == "*":
            graph = None
        else:
            graph = ox.NamedNode(request.g)
        pattern = [from_term(t) if t is not None and t.type else None for t in (request.s, request.p, request.o)]
        found = []
        for quad in self.store.quads_for_pattern(*pattern, graph):
            g = quad.graph_name.value if isinstance(quad.graph_name, ox.NamedNode) else None
            found.append(Triple(s=to_term(quad.subject), p=to_term(quad.predicate), o=to_term(quad.object), g=g))
            if len(found) >= request.limit:
                break
        return TriplesQueryResponseTranslator().encode(TriplesQueryResponse(triples=found))

    def _text_completion(self, body: dict) -> dict:
        request = TextCompletionRequestTranslator().decode(body)
        reply = self.completion(request.system, request.prompt)
        if isinstance(reply, Exception):
            return {"error": {"type": "text-completion-error", "message": str(reply)}}
        return TextCompletionResponseTranslator().encode(
            TextCompletionResponse(response=reply, in_token=len(request.prompt.split()), out_token=len(reply.split()),
                                   model="stand-in", end_of_stream=True))

    def _sparql(self, body: dict) -> dict:
        request = SparqlQueryRequestTranslator().decode(body)
        translator = SparqlQueryResponseTranslator()
        refused = _refusal(request.query)
        if refused is not None:
            return translator.encode(SparqlQueryResponse(error=Error(type=refused[0], message=refused[1])))
        if request.collection != self.collection:
            return translator.encode(SparqlQueryResponse(query_type="select", variables=[], bindings=[]))
        solutions = self.store.query(request.query, use_default_graph_as_union=True)
        names = [v.value for v in solutions.variables]
        rows = [[s[n] for n in names] for s in solutions]
        del solutions  # pyoxigraph's results must be let go on the thread that made them
        bindings = [SparqlBinding(values=[to_term(v) if v is not None else None for v in row])
                    for row in rows[:request.limit]]
        return translator.encode(SparqlQueryResponse(query_type="select", variables=names, bindings=bindings))

    def _librarian(self, body: dict) -> dict:
        request = LibraryRequestTranslator().decode(body)
        translator = LibraryResponseTranslator()
        operation = request.operation
        if operation == "stream-document" and not self.stream:
            operation = None
        if operation not in ("get-document-content", "stream-document"):
            return translator.encode(LibrarianResponse(error=Error(type="request-error",
                                                                   message=f"Invalid operation: {request.operation}")))
        text = self.documents.get(request.document_id)
        if text is None or request.document_id in self.lost:
            return translator.encode(LibrarianResponse(error=Error(type="request-error", message="Document not found")))
        data = text.encode("utf-8")
        if operation == "get-document-content":
            return translator.encode(LibrarianResponse(content=base64.b64encode(data)))
        size = request.chunk_size or 1024 * 1024
        chunks = max(1, -(-len(data) // size))
        part = data[request.chunk_index * size:(request.chunk_index + 1) * size]
        return translator.encode(LibrarianResponse(content=base64.b64encode(part), chunk_index=request.chunk_index,
                                                   total_chunks=chunks, total_bytes=len(data)))


# What rdflib made of each query text (``_refusal``): the same queries come again and again (the
# probe, the list of roots, each session's rounds, in test after test), and rdflib's parser takes
# about 10 ms of CPU a query.
_REFUSALS: dict[str, tuple[str, str] | None] = {}


def _refusal(query: str) -> tuple[str, str] | None:
    """The error (type, message) TrustGraph's SPARQL service gives ``query`` before evaluating
    it: what rdflib cannot parse, and property paths; None for a query it evaluates."""
    from rdflib.paths import Path
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    with _PARSER_LOCK:  # rdflib's parser is not thread-safe (TrustGraph's service runs one at a time)
        if len(_REFUSALS) >= 4096:  # bounded: a benchmark's server sees a new query for each batch of sessions
            _REFUSALS.clear()
        if query not in _REFUSALS:
            try:
                algebra = translateQuery(parseQuery(query)).algebra
            except Exception as error:  # noqa: BLE001 - rdflib raises many kinds; the service answers them all
                _REFUSALS[query] = ("sparql-parse-error", str(error)[:200])
            else:
                _REFUSALS[query] = ("sparql-evaluation-error", "property paths are not supported") \
                    if _has_path(algebra, Path) else None
        return _REFUSALS[query]


def _has_path(node: Any, path_type: type, depth: int = 0) -> bool:
    """Whether an rdflib algebra tree has a property path in a triple pattern."""
    if depth > 200:
        return False
    if isinstance(node, path_type):
        return True
    if isinstance(node, dict):
        return any(_has_path(v, path_type, depth + 1) for v in node.values())
    if isinstance(node, (list, tuple)):
        return any(_has_path(v, path_type, depth + 1) for v in node)
    return False


@pytest.fixture(scope="module")
def corpus_gateway():
    """The whole corpus in one stand-in deployment, started for a test module."""
    server = FakeGateway()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def corpus_gateways():
    """One stand-in deployment per corpus file (its traces and texts, in collection
    ``COLLECTION`` of flow ``FLOW``, behind ``TOKEN``): ``{file name: base URL}``."""
    from tests.conftest import TRACE_FILES, corpus_paths

    servers = {name: FakeGateway(*corpus_deployment(corpus_paths(name))) for name in TRACE_FILES}
    urls = {name: server.start() for name, server in servers.items()}
    yield urls
    for server in servers.values():
        server.stop()


def gateway_args(url: str) -> list[str]:
    """The CLI arguments that read the stand-in deployment at ``url`` (the token goes in the
    environment: ``TRUSTGRAPH_TOKEN``)."""
    return ["--trustgraph", url, "--flow", FLOW, "--collection", COLLECTION]


def main(argv: list[str] | None = None) -> int:
    """Serve a deployment from files in a process of its own (for the benchmarks: the server's
    work then takes nothing from the client's interpreter); prints its URL, then serves until
    killed. ``--quads`` N-Quads as the deployment holds them, ``--documents`` the librarian's
    texts as JSON ``{id: text}``."""
    import argparse
    import sys

    parser = argparse.ArgumentParser()
    parser.add_argument("--quads", required=True)
    parser.add_argument("--documents", required=True)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--no-sparql", action="store_true")
    args = parser.parse_args(argv)
    with open(args.quads, "rb") as handle:
        quads = list(ox.parse(handle, format=ox.RdfFormat.N_QUADS))
    with open(args.documents, encoding="utf-8") as handle:
        documents = json.load(handle)
    server = FakeGateway(quads, documents, sparql=not args.no_sparql, latency=args.latency)
    print(server.start(), flush=True)
    sys.stdin.read()  # until the parent closes our stdin (or kills us)
    server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
