"""A SPARQL 1.1 Protocol stand-in on 127.0.0.1 whose answers depend on who asks: each
``Authorization`` header sees its own dataset (``datasets``: header value, or None for a
request without one, -> a pyoxigraph Store), as an endpoint with per-user graphs does. Queries
are evaluated by pyoxigraph over the union of the store's graphs; SELECT answers in SPARQL JSON
results, CONSTRUCT in N-Triples. ``seen`` records each request's Authorization header."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pyoxigraph as ox


class SparqlServer:
    """Use as ``with SparqlServer({"Bearer t": store, None: ox.Store()}) as server: server.url``."""

    def __init__(self, datasets: Mapping[str | None, ox.Store]):
        self.datasets = dict(datasets)
        self.seen: list[str | None] = []
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._http.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/sparql"

    def __enter__(self) -> SparqlServer:
        threading.Thread(target=self._http.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._http.shutdown()
        self._http.server_close()

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
                    return self._send(200, "application/n-triples", results.serialize(format=ox.RdfFormat.N_TRIPLES))
                self._send(200, "application/sparql-results+json",
                           results.serialize(format=ox.QueryResultsFormat.JSON))

            def _send(self, status, content_type, body):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler
