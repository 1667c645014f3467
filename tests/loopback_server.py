"""The running part of the tests' stand-in HTTP servers: a threaded ``http.server`` on
127.0.0.1 (a free port), started and stopped as a context manager."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LoopbackServer:
    """Serves ``handler`` (a ``BaseHTTPRequestHandler`` class) on 127.0.0.1 between ``with``'s
    start and end; ``stopping`` is set when it ends (for handlers that stream until then)."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]):
        self.stopping = threading.Event()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._http.daemon_threads = True

    @property
    def port(self) -> int:
        return self._http.server_address[1]

    @property
    def base(self) -> str:
        """``http://127.0.0.1:PORT/``."""
        return f"http://127.0.0.1:{self.port}/"

    def __enter__(self):
        threading.Thread(target=self._http.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        self._http.shutdown()
        self._http.server_close()
