"""A hostile HTTP server on 127.0.0.1 (a free port), for the tests of the app's HTTP limits: it
answers every POST, whatever the path (a SPARQL endpoint's, a gateway's), the way ``mode`` says:

- ``huge``: HTTP 200 and 2 GiB of JSON-ish bytes with no Content-Length, written lazily (never
  held in memory) until the client hangs up;
- ``declared``: HTTP 200 announcing a 2 GiB Content-Length, then the same stream;
- ``chunked``: HTTP 200 with an endless chunked body;
- ``drip``: HTTP 200, then one byte of body every ``drip_s`` seconds, for ever;
- ``drip_headers``: a status line, then one byte of a header every ``drip_s`` seconds, for ever
  (the answer never starts);
- ``echo``: HTTP 500 whose body echoes the request's Authorization header after ``pad``
  characters (so a cut at some length falls inside the token);
- ``json``: HTTP 200 with ``body`` (bytes) as given.

``requests`` records each request's path and headers; ``bytes_sent`` counts the body bytes
written, ``open_connections`` the connections still being served.
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler

from tests.loopback_server import LoopbackServer

GIB = 1024 ** 3
BLOCK = b"[" + b"1," * 32767 + b"1]"  # 64 KiB of a JSON array, written again and again


class HostileServer(LoopbackServer):
    """Start with ``with HostileServer("drip") as server: server.url``."""

    def __init__(self, mode: str, *, drip_s: float = 2.0, pad: int = 0, body: bytes = b""):
        self.mode, self.drip_s, self.pad, self.body = mode, drip_s, pad, body
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.bytes_sent = 0
        self.open_connections = 0
        self._lock = threading.Lock()
        super().__init__(self._handler())
        self._stop = self.stopping

    @property
    def url(self) -> str:
        return self.base

    def _count(self, sent: int = 0, connections: int = 0) -> None:
        with self._lock:
            self.bytes_sent += sent
            self.open_connections += connections

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                server.requests.append((self.path, dict(self.headers)))
                server._count(connections=1)
                try:
                    getattr(self, "_" + server.mode)()
                except (BrokenPipeError, ConnectionResetError, OSError):
                    pass  # the client hung up: what it should do
                finally:
                    server._count(connections=-1)
                    self.close_connection = True

            def _start(self, status=200, length=None, chunked=False):
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if length is not None:
                    self.send_header("Content-Length", str(length))
                if chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                if length is None and not chunked:
                    self.send_header("Connection", "close")
                self.end_headers()

            def _stream(self, limit=2 * GIB):
                sent = 0
                while sent < limit and not server._stop.is_set():
                    self.wfile.write(BLOCK)
                    sent += len(BLOCK)
                    server._count(len(BLOCK))

            def _huge(self):
                self._start()
                self._stream()

            def _declared(self):
                self._start(length=2 * GIB)
                self._stream()

            def _chunked(self):
                self._start(chunked=True)
                while not server._stop.is_set():
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(BLOCK), BLOCK))
                    server._count(len(BLOCK))

            def _drip(self):
                self._start()
                self._trickle(b"[", b"1")

            def _drip_headers(self):
                self._trickle(b"HTTP/1.1 200 OK\r\nX-Slow: ", b"a")

            def _trickle(self, first: bytes, each: bytes):
                """``first`` at once, then ``each`` every ``drip_s`` seconds until stopped."""
                self.wfile.write(first)
                self.wfile.flush()
                while not server._stop.wait(server.drip_s):
                    self.wfile.write(each)
                    self.wfile.flush()
                    server._count(len(each))

            def _echo(self):
                words = ("x" * server.pad + "you sent: " + self.headers.get("Authorization", "")
                         + " and more words after it").encode()
                self._start(500, length=len(words))
                self.wfile.write(words)

            def _json(self):
                self._start(length=len(server.body))
                self.wfile.write(server.body)

        return Handler


def finishes_within(seconds: float, call):
    """Run ``call()`` in a thread; (finished in time, its result or the exception it raised).
    Bounds a test against a server that would otherwise hold it for ever."""
    outcome: dict[str, object] = {}

    def run():
        try:
            outcome["value"] = call()
        except BaseException as error:  # noqa: BLE001 - handed to the test
            outcome["value"] = error

    thread = threading.Thread(target=run, daemon=True)
    started = time.monotonic()
    thread.start()
    thread.join(seconds)
    outcome["seconds"] = time.monotonic() - started
    return not thread.is_alive(), outcome.get("value")
