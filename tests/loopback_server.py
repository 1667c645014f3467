"""The running part of the tests' stand-in HTTP servers: a threaded ``http.server`` on
127.0.0.1 (a free port), started and stopped as a context manager."""

from __future__ import annotations

import socketserver
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


# How often a serving thread looks for a stop request: ``shutdown()`` waits for the next look, so
# ``socketserver``'s default of 0.5 s made every stop of a stand-in server cost about half a second.
POLL_S = 0.05


def serve_in_thread(http: socketserver.BaseServer) -> threading.Thread:
    """Run ``http.serve_forever`` in a daemon thread (started, and returned), looking for a
    ``shutdown()`` every ``POLL_S`` seconds."""
    thread = threading.Thread(target=http.serve_forever, kwargs={"poll_interval": POLL_S}, daemon=True)
    thread.start()
    return thread


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
        serve_in_thread(self._http)
        return self

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        self._http.shutdown()
        self._http.server_close()


def post_handler(handle) -> type[BaseHTTPRequestHandler]:
    """A quiet handler class whose POSTs go to ``handle(request_handler)``."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            handle(self)

        def log_message(self, *args):  # quiet
            pass

    return Handler


def send_json_bytes(handler: BaseHTTPRequestHandler, status: int, data: bytes) -> None:
    """Answer ``status`` with the JSON body ``data``; a client that gave up waiting (the timeout
    tests) is let go."""
    try:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):
        pass
