"""A SPARQL 1.1 Protocol stand-in on 127.0.0.1 whose answers depend on who asks: each
``Authorization`` header sees its own dataset (``datasets``: header value, or None for a
request without one, -> a pyoxigraph Store), as an endpoint with per-user graphs does. Queries
are evaluated by pyoxigraph over the union of the store's graphs; SELECT answers in SPARQL JSON
results, CONSTRUCT in N-Triples. ``seen`` records each request's Authorization header."""

from __future__ import annotations

from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs

import pyoxigraph as ox

from tests.loopback_server import LoopbackServer


class SparqlServer(LoopbackServer):
    """Use as ``with SparqlServer({"Bearer t": store, None: ox.Store()}) as server: server.url``."""

    def __init__(self, datasets: Mapping[str | None, ox.Store]):
        self.datasets = dict(datasets)
        self.seen: list[str | None] = []
        super().__init__(self._handler())

    @property
    def url(self) -> str:
        return self.base + "sparql"

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                form = parse_qs(self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode())
                who = self.headers.get("Authorization")
                server.seen.append(who)
                store = server.datasets.get(who)
                if store is None:
                    return self._send(401, "text/plain", b"unknown credentials")
                results = store.query(form["query"][0], use_default_graph_as_union=True)
                if isinstance(results, ox.QueryTriples):
                    answer = ("application/n-triples", results.serialize(format=ox.RdfFormat.N_TRIPLES))
                else:
                    answer = ("application/sparql-results+json", results.serialize(format=ox.QueryResultsFormat.JSON))
                # pyoxigraph's results must be let go on the thread that made them: not kept by the
                # traceback of a client that hung up while they were sent, for a collection elsewhere
                del results
                self._send(200, *answer)

            def _send(self, status, content_type, body):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler
