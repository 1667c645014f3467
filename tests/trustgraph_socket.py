"""The stand-in gateway's websocket, ``/api/v1/socket``, as TrustGraph 2.11.1's gateway speaks it
(``trustgraph-flow``: ``gateway/endpoint/socket.py``, ``gateway/dispatch/mux.py``).

- The first frame must be ``{"type": "auth", "token": ...}``: the answer is
  ``{"type": "auth-ok", "default_workspace": "default"}`` or ``{"type": "auth-failed", "error":
  "auth failure"}`` (the socket stays open, as the gateway's does). Any other frame before
  ``auth-ok`` is answered ``{"id", "error": {"message": "auth failure", "type":
  "auth-required"}, "complete": true}``.
- A request is ``{"id", "workspace", "service", "flow", "request"}``; each answer is ``{"id",
  "response": {...}, "complete": bool}`` (the Mux's responder), an error ``{"id", "error":
  {"message", "type"}, "complete": true}``.
- The answers are replayed from ``tests/data/socket_runs.json``: the frames TrustGraph's own
  services sent through the gateway's own requestors for the same question
  (``scripts/trustgraph_services/socket_runs.py``). As each ``explain`` frame goes out, its
  ``explain_triples`` are written to the stand-in's store, as the services write the same
  triples to the collection: the REST side then serves what arrived live.

Faults: ``pace`` (seconds before each frame), ``drop_after`` (frames sent before the socket is
closed with no more, as a gateway that goes away part way).
"""

from __future__ import annotations

import functools
import json
import logging
import tempfile
import socket
import threading
import time
from pathlib import Path

import pyoxigraph as ox
from websockets.exceptions import ConnectionClosed
from websockets.server import ServerProtocol
from websockets.sync.server import ServerConnection

from trace_explorer.read.collection import load_collection
from trace_explorer.read.wire import decode_quad

RUNS_FILE = Path(__file__).parent / "data" / "socket_runs.json"
SOCKET_PATH = b"/api/v1/socket"
RETRIEVAL = ox.NamedNode("urn:graph:retrieval")


def recorded() -> dict:
    """The recording: ``{"runs": [{"name", "service", "request", "frames"}], "trig": the store
    as TriG, "documents": {id: text}}``."""
    return json.loads(RUNS_FILE.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=1)
def recorded_quads() -> tuple[ox.Quad, ...]:
    """Every quad the services stored, read as the explorer reads a TriG file (its RDF-star
    quoted triples as triple terms)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "stored.trig"
        path.write_text(recorded()["trig"], encoding="utf-8")
        collection, errors = load_collection([path])
    assert not errors, errors
    return tuple(collection.store)


def recorded_deployment() -> tuple[list[ox.Quad], dict[str, str], list[dict]]:
    """The recording as a deployment holds it before any question runs: (the knowledge and
    extraction provenance quads, with no session's; the librarian's texts; the runs)."""
    data = recorded()
    quads = [q for q in recorded_quads() if q.graph_name != RETRIEVAL]
    return quads, data["documents"], data["runs"]


def run_question(run: dict) -> str:
    """The question a recorded run asked (``question`` for an agent, ``query`` for RAG)."""
    return run["request"].get("question") or run["request"].get("query")


def run_steps(run: dict) -> list[str]:
    """The ``explain_id`` of each explain frame of ``run``, in order."""
    return [f["response"]["explain_id"] for f in run["frames"] if f["response"].get("message_type") == "explain"]


class _Shim:
    """What ``ServerConnection`` reads of its server: its logger, and whether it was closed."""

    logger = logging.getLogger("stand-in-socket")
    socket_closed = threading.Event()


class GatewaySocket:
    """The websocket side of a ``FakeGateway`` (``gateway``: its token, flow and store)."""

    def __init__(self, gateway, runs: list[dict]):
        self.gateway = gateway
        self.runs = runs
        self.pace = 0.0
        self.drop_after: int | None = None
        self.frames_sent = 0
        self.sent_at: dict[str, float] = {}  # explain_id -> time.monotonic() it went out
        self.sent_wall: dict[str, float] = {}  # explain_id -> time.time() it went out (a browser's clock is this one)
        self.requests: list[dict] = []

    @staticmethod
    def wants(request: socket.socket) -> bool:
        """Whether the connection ``request`` opens with ``GET /api/v1/socket`` (peeked, not read)."""
        request.settimeout(5)
        try:
            head = request.recv(64, socket.MSG_PEEK)
        except OSError:
            return False
        finally:
            request.settimeout(None)
        return head.startswith(b"GET " + SOCKET_PATH)

    def serve(self, request: socket.socket) -> None:
        """Speak the protocol on ``request`` until the client goes (run in a thread of its own)."""
        connection = ServerConnection(request, ServerProtocol(), _Shim(), ping_interval=None)
        try:
            connection.handshake(timeout=5)
            authed = False
            while True:
                data = json.loads(connection.recv())
                if isinstance(data, dict) and data.get("type") == "auth":
                    authed = not self.gateway.token or data.get("token") == self.gateway.token
                    connection.send(json.dumps({"type": "auth-ok", "default_workspace": "default"} if authed
                                               else {"type": "auth-failed", "error": "auth failure"}))
                    continue
                if not authed:
                    connection.send(json.dumps({"id": data.get("id"), "complete": True,
                                                "error": {"message": "auth failure", "type": "auth-required"}}))
                    continue
                self.requests.append(data)
                if not self._answer(connection, data):
                    return
        except (ConnectionClosed, OSError, ValueError, TimeoutError):
            pass
        finally:
            connection.close()

    def _answer(self, connection: ServerConnection, data: dict) -> bool:
        """Answer one request (in the caller's thread: one at a time, enough for one client);
        False when the socket was closed on purpose (``drop_after``)."""
        request_id, inner = data.get("id"), data.get("request") or {}
        if data.get("flow") != self.gateway.flow:
            connection.send(json.dumps({"id": request_id, "complete": True, "error": {
                "message": f"Flow {data.get('flow')} not found", "type": "error"}}))
            return True
        question = inner.get("question") or inner.get("query")
        run = next((r for r in self.runs if r["service"] == data.get("service") and run_question(r) == question), None)
        if run is None:
            connection.send(json.dumps({"id": request_id, "complete": True,
                                        "error": {"message": "unknown service", "type": "unknown-service"}}))
            return True
        for frame in run["frames"]:
            if self.drop_after is not None and self.frames_sent >= self.drop_after:
                connection.socket.shutdown(socket.SHUT_RDWR)
                return False
            if self.pace:
                time.sleep(self.pace)
            response = frame["response"]
            if response.get("message_type") == "explain":
                self._store(response)
            connection.send(json.dumps({"id": request_id, "response": response, "complete": frame["complete"]}))
            self.frames_sent += 1
        return True

    def _store(self, response: dict) -> None:
        """Write an explain frame's triples to the collection, as the services do."""
        quads = [decode_quad(t) for t in response.get("explain_triples", [])]
        with self.gateway._lock:
            self.gateway.store.extend(quads)
            self.sent_at[response["explain_id"]] = time.monotonic()
            self.sent_wall[response["explain_id"]] = time.time()


def socket_thread(target, request) -> threading.Thread:
    """Serve one websocket in a daemon thread (started)."""
    thread = threading.Thread(target=target, args=(request,), daemon=True)
    thread.start()
    return thread
