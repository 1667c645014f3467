"""TrustGraph's API gateway, spoken over its REST API (``POST {url}api/v1/{path}`` with a JSON
body and ``Authorization: Bearer {token}``; TrustGraph's OpenAPI spec, ``specs/api/``).

Three services are used, all read-only:

- ``flow/{flow}/service/triples``: a triple pattern (``s``, ``p``, ``o`` wire terms, ``g`` a
  graph IRI, ``limit`` 1-100,000, ``collection``) -> ``{"response": [wire triples]}``
  (``paths/flow/triples.yaml``, ``TriplesQueryRequest.yaml``);
- ``flow/{flow}/service/sparql-query``: ``{"query", "collection", "limit"}`` ->
  ``{"query-type", "variables", "bindings": [{"values": [term | null]}], "triples", "error"}``
  (``paths/flow/sparql-query.yaml``); a deployment may not run it;
- ``librarian``: ``stream-document`` (``document-id``, ``chunk-index``, ``chunk-size``; each
  answer one chunk, ``content`` base64, ``total-chunks``) and the older ``get-document-content``
  (``content`` base64), with the ``workspace`` field as TrustGraph's Python client sends it
  (``paths/librarian.yaml``, ``schemas/librarian/*``).

Terms are TrustGraph's wire form, decoded by ``read.wire`` (quoted triples as the code sends
them, ``{"t": "t", "tr": ...}``, and as the spec writes them, ``{"t": "r", "r": ...}``).

The token is sent in the header and nowhere else: it is kept out of ``repr``, labels and every
error message (``secret_scrub``: scrubbed before any cut, in every text quoted from the gateway).
Every answer is read with ``bounded_http``'s limits: a byte cap, one deadline for the whole
exchange, and a JSON answer of at most ``MAX_JSON_ITEMS`` values. With ``pins`` (from
``EndpointPolicy.pin``) connections go only to the addresses the policy checked. Requests are
concurrent (``map``: a pool of ``workers`` threads), and no more than ``workers`` are in flight
at once whoever sends them, fewer while the gateway resets connections or answers "busy"
(``read_retry.InFlightLimit``), so a gateway with a short queue of connections is not flooded. A
request whose connection is refused, reset or closed before an answer, or that is answered
"busy" (HTTP 503, 429), is sent again after a growing pause (``read_retry``: every request here
is a read); a failure that stays names its cause and the tries made.
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
import weakref
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any, TypeVar
from urllib.parse import urlsplit

import pyoxigraph as ox

from ...read.wire import WireFormatError, decode_term, encode_term
from ...network.bounded_http import DEFAULT_TIMEOUT_S, HttpFailure, bounded_post, max_response_bytes
from ...network.pinned_http import Pins, pinned_session
from ...network.read_retry import InFlightLimit, retried
from ...network.secret_scrub import SecretScrub
from ..source import SourceError
from .ids import checked_id, flow_service

# concurrent requests to one gateway: enough to hide a round trip's latency, few enough for a
# gateway whose queue of connections is short (16 at once had some reset)
WORKERS = 6
MAX_LIMIT = 100_000  # the largest ``limit`` a triples query takes (TriplesQueryRequest.yaml)
STREAM_CHUNK = 4 * 1024 * 1024  # bytes asked for per stream-document answer
# The most values (objects, arrays, strings, numbers) one JSON answer may hold, counted before it
# is parsed: a full triples answer (100,000 triples) holds about 1.3 million.
MAX_JSON_ITEMS = 4_000_000
MAX_CHUNKS = 4096  # the most stream-document answers one document may take
T = TypeVar("T")
R = TypeVar("R")


SPARQL_PATH = "sparql-query"  # the last part of the SPARQL service's path


class GatewayError(SourceError):
    """The gateway refused or failed a request; the message names the service and why (never
    the token). ``status``: the HTTP status, when there was one; ``path``: the service's path
    (``flow/{flow}/service/triples`` ...), when the failure was a request's."""

    def __init__(self, message: str, status: int | None = None, path: str | None = None):
        super().__init__(message)
        self.status = status
        self.path = path

    @property
    def sparql_dropped(self) -> bool:
        """Whether the SPARQL service failed as a service that drops its connections does: no
        answer (connection closed or reset, no complete answer in time) or HTTP 5xx. A refusal
        (an ``error`` object, 4xx) is an answer, not a drop."""
        return (self.path or "").endswith(SPARQL_PATH) and not isinstance(self, ServiceRefusal) \
            and (self.status is None or self.status >= 500)


class ServiceRefusal(GatewayError):
    """The service answered with an ``error`` object (``detail``: its type and message)."""

    def __init__(self, message: str, detail: str):
        super().__init__(message, 200)
        self.detail = detail


class MissingDocument(GatewayError):
    """The librarian has no such document (it answered with an error for it)."""


class Gateway:
    """One TrustGraph deployment's API gateway: ``url`` (its base, such as
    ``http://localhost:8888/``), ``token`` (bearer, may be None), ``flow``, ``collection`` and
    ``workspace`` ids, ``timeout`` in seconds for each request in all (connect, wait, read),
    ``workers`` requests in flight at once at most, ``pins`` the addresses to connect to (``{(host, port):
    (address, ...)}``, as ``EndpointPolicy.pin`` checked them; None: resolve the name),
    ``max_bytes`` the cap on one answer (None: ``bounded_http.max_response_bytes()``).
    ``requests`` counts the requests sent. Raises SourceError: ``api_base``, ``ids.checked_id``."""

    def __init__(self, url: str, token: str | None = None, *, flow: str = "default", collection: str = "default",
                 workspace: str = "default", timeout: float = DEFAULT_TIMEOUT_S, workers: int = WORKERS, pins: Pins | None = None,
                 max_bytes: int | None = None):
        self.url = api_base(url)
        self._token = token or None
        self._secrets = SecretScrub(self._token)  # every text quoted from the gateway passes through it
        self._pins, self.max_bytes, self._sessions = pins, max_bytes, []
        self.flow, self.collection, self.workspace = (checked_id(k, v) for k, v in zip(
            ("flow", "collection", "workspace"), (flow, collection, workspace)))
        self.timeout, self.workers = timeout, workers
        self.requests, self._count_lock = 0, threading.Lock()
        self._local, self._pool = threading.local(), None  # the pool: a ThreadPoolExecutor once needed
        self._in_flight = InFlightLimit(workers)  # requests sent at once, from any thread
        self._stream_documents = True  # False once the librarian has refused stream-document

    def __repr__(self) -> str:  # the token stays out of every representation
        return f"Gateway({self.url!r}, flow={self.flow!r}, collection={self.collection!r})"

    @property
    def label(self) -> str:
        """The deployment for people: URL, flow and collection."""
        return f"TrustGraph {self.url} (flow {self.flow}, collection {self.collection})"

    # -- transport ----------------------------------------------------------------------------
    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST ``body`` to ``{url}api/v1/{path}``; the answer's JSON object. Raises GatewayError
        naming the service for a refusal (401/403: the token), an unknown flow or path (404),
        another HTTP status, no complete answer within ``timeout``, an answer over the byte cap,
        a body that is not a JSON object (or holds more than ``MAX_JSON_ITEMS`` values), or an
        ``error`` object in the answer."""
        where = f"{self.label}: {path}"
        target = within_api(self.url, path)
        try:
            response = retried(lambda: self._send(target, body), self._in_flight)
        except HttpFailure as failure:
            raise GatewayError(f"{where}: {self._secrets.clean(failure)}", path=path) from None
        return _answer(response, where, path, self.flow, self._secrets)

    def _send(self, target: str, body: dict[str, Any]):
        """One try of ``post``'s request to ``target`` (a URL under the gateway's API), on this
        thread's connection."""
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = pinned_session(self._pins)
            with self._count_lock:
                self._sessions.append(session)
        headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {self._token}"}
                                                           if self._token else {})}
        with self._count_lock:
            self.requests += 1
        return bounded_post(session, target, json=body, headers=headers,
                            timeout=self.timeout, max_bytes=self.max_bytes)

    def map(self, function: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """``[function(item) for item in items]``, run concurrently on ``workers`` threads, in
        order; every call ends first (none is left sending its tries after a failure), then the
        first item's exception raised is raised here."""
        items = list(items)
        if len(items) <= 1:
            return [function(i) for i in items]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="trustgraph")
            weakref.finalize(self, self._pool.shutdown, wait=False)  # its threads go with the gateway
        futures = [self._pool.submit(function, item) for item in items]
        wait(futures)
        return [future.result() for future in futures]

    # -- the triples service ------------------------------------------------------------------
    def triples(self, s: ox.NamedNode | None = None, p: ox.NamedNode | None = None,
                o: ox.NamedNode | ox.Literal | ox.Triple | None = None, g: str | None = None,
                limit: int = MAX_LIMIT) -> tuple[list[ox.Quad], bool]:
        """The triples matching a pattern (None: any) in graph ``g`` (None: the default graph,
        "*": every graph), as quads, and whether the answer was cut at ``limit``. Raises
        GatewayError (a malformed triple names itself)."""
        body: dict[str, Any] = {"collection": self.collection, "limit": int(limit)}
        for key, value in (("s", s), ("p", p), ("o", o)):
            if value is not None:
                body[key] = encode_term(value)
        if g is not None:
            body["g"] = g
        answer = self.post(flow_service(self.flow, "triples"), body)
        found = answer.get("response")
        if not isinstance(found, list):
            raise GatewayError(f"{self.label}: triples: expected a \"response\" list of wire triples, "
                               f"got {type(found).__name__}")
        default = ox.NamedNode(g) if g and g != "*" else ox.DefaultGraph()
        return [self._quad(t, default, "triples") for t in found], len(found) >= limit

    def _quad(self, triple: Any, default_graph, service: str) -> ox.Quad:
        try:
            graph = triple.get("g") if isinstance(triple, dict) else None
            s, p, o = (decode_term(triple[k]) for k in "spo") if isinstance(triple, dict) else (None,) * 3
            if s is None or not isinstance(p, ox.NamedNode) or isinstance(s, ox.Literal):
                raise WireFormatError('a triple object with "s", "p" (an IRI) and "o"')
            return ox.Quad(s, p, o, ox.NamedNode(graph) if isinstance(graph, str) and graph else default_graph)
        except (WireFormatError, KeyError, ValueError, TypeError) as error:
            raise GatewayError(f"{self.label}: {service}: malformed triple in the answer: expected "
                               f"{self._secrets.clean(str(error), 300)}; "
                               f"got {self._secrets.clean(str(triple), 160)}") from None

    # -- the SPARQL service -------------------------------------------------------------------
    def sparql_select(self, query: str, limit: int = MAX_LIMIT) -> list[dict[str, Any]]:
        """Rows ``{variable: term}`` (unbound variables left out) of a SELECT run by the flow's
        SPARQL service. Raises GatewayError (404 when the flow runs no such service)."""
        answer = self.post(flow_service(self.flow, SPARQL_PATH),
                           {"query": query, "collection": self.collection, "limit": int(limit)})
        names, bindings = answer.get("variables"), answer.get("bindings")
        if not isinstance(names, list) or not isinstance(bindings, list):
            raise GatewayError(f"{self.label}: sparql-query: expected \"variables\" and \"bindings\" lists in the answer")
        rows = []
        for binding in bindings:
            values = binding.get("values") if isinstance(binding, dict) else None
            if not isinstance(values, list) or len(values) != len(names):
                raise GatewayError(f"{self.label}: sparql-query: malformed binding: "
                                   f"{self._secrets.clean(str(binding), 160)}")
            try:
                rows.append({n: decode_term(v) for n, v in zip(names, values) if v})
            except WireFormatError as error:
                raise GatewayError(f"{self.label}: sparql-query: malformed term: expected "
                                   f"{self._secrets.clean(str(error), 300)}") from None
        return rows

    # -- the librarian --------------------------------------------------------------------------
    def document_text(self, document: str) -> str:
        """The text of librarian document ``document`` (UTF-8; bytes that are not are shown as
        U+FFFD). ``stream-document`` chunk by chunk; ``get-document-content`` when the librarian
        does not stream. Raises MissingDocument when the librarian has no such document,
        GatewayError for anything else."""
        if self._stream_documents:
            try:
                return _utf8(self._stream(document))
            except MissingDocument as streamed:
                try:  # an older librarian: no stream-document, the same document whole
                    content = self._content(document)
                except MissingDocument:
                    raise streamed from None
                self._stream_documents = False
                return _utf8(content)
        return _utf8(self._content(document))

    def _librarian(self, body: dict[str, Any], document: str) -> dict[str, Any]:
        try:
            return self.post("librarian", dict(body, workspace=self.workspace, **{"document-id": document}))
        except ServiceRefusal as refusal:
            raise MissingDocument(f"the librarian has no text for {document} ({refusal.detail})") from None

    def _stream(self, document: str) -> bytes:
        parts, index, total, size = [], 0, 1, 0
        cap = self.max_bytes if self.max_bytes is not None else max_response_bytes()
        while index < total:
            if index >= MAX_CHUNKS or size > cap:
                raise GatewayError(f"{self.label}: librarian: {document} is larger than the "
                                   f"{cap / 1024 / 1024:g} MiB limit (or in more than {MAX_CHUNKS:,} chunks)")
            answer = self._librarian({"operation": "stream-document", "chunk-index": index,
                                      "chunk-size": STREAM_CHUNK}, document)
            parts.append(self._content(document, answer))
            size += len(parts[-1])
            total = answer.get("total-chunks", 1) if isinstance(answer.get("total-chunks", 1), int) else 1
            index += 1
            if not parts[-1]:
                break
        return b"".join(parts)

    def _content(self, document: str, answer: dict[str, Any] | None = None) -> bytes:  # the answer's, or asked whole
        answer = self._librarian({"operation": "get-document-content"}, document) if answer is None else answer
        return content_bytes(answer, f"{self.label}: librarian: the content of {document}")

    def close(self) -> None:
        """Let the worker threads go, and close every connection."""
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None
        with self._count_lock:
            sessions, self._sessions = self._sessions, []
        for session in sessions:
            session.close()


def api_base(url: str) -> str:
    """A gateway's base URL with a final ``/``. Raises SourceError for one that is not
    ``http(s)://host[:port]/path``: a query, a fragment or a user in it would move where the API's
    paths (and the token) go."""
    base = url.strip() if url.strip().endswith("/") else url.strip() + "/"
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment or "@" in parts.netloc:
        raise SourceError(f"expected a gateway URL of the form http(s)://host[:port]/path/, got {base!r:.100}")
    return base


def _answer(response, where: str, path: str, flow: str, secrets: SecretScrub) -> dict[str, Any]:
    """The JSON object of a gateway's ``response`` to ``path`` (``where`` names it in messages,
    ``flow`` the flow asked for; every quoted text passes through ``secrets``). Raises
    GatewayError for a refused token (401/403), an unknown flow or path (404), another status,
    a body that is not a JSON object; ServiceRefusal for an ``error`` object in the answer."""
    status = response.status
    if status in (401, 403):
        raise GatewayError(f"{where}: the gateway refused the token (HTTP {status}): give a token this "
                           f"deployment accepts (the command line reads it from TRUSTGRAPH_TOKEN)", status, path)
    if status == 404:
        raise GatewayError(f"{where}: not found (HTTP 404): is there a flow {flow!r} on this gateway?", status, path)
    if status != 200:
        words = secrets.clean(response.body, 200, cut_short=response.cut_short)
        raise GatewayError(f"{where}: HTTP {status}: {words}", status, path)
    answer = json_answer(response.body, where, secrets.clean)
    if not isinstance(answer, dict):
        raise GatewayError(f"{where}: expected a JSON object, got {type(answer).__name__}")
    error = answer.get("error")
    if error:
        if isinstance(error, dict):
            error = f"{error.get('type', 'error')}: {error.get('message', '')}"
        detail = secrets.clean(error, 300)
        raise ServiceRefusal(f"{where}: the service answered with an error: {detail}", detail)
    return answer


def within_api(base: str, path: str) -> str:
    """The URL ``{base}api/v1/{path}``, checked to be under the base's API: the same scheme, host
    and port, the path below ``{base path}api/v1/`` with no ``.`` or ``..`` segment (which a client
    resolves), no ``%2F`` (a ``/`` a server may decode), no query or fragment. The token goes with
    every request, so no id may lead one elsewhere (TrustGraph's API: ``specs/api/openapi.yaml``).
    Raises GatewayError naming the path when it is not."""
    target = base + "api/v1/" + path
    parts, root = urlsplit(target), urlsplit(base)
    segments = parts.path[len(root.path):].split("/")
    if (parts.scheme, parts.netloc) != (root.scheme, root.netloc) or not parts.path.startswith(root.path + "api/v1/") \
            or parts.query or parts.fragment or "#" in target or "?" in target \
            or any(s in ("", ".", "..") or "%2f" in s.lower() or "%2e" in s.lower() for s in segments):
        raise GatewayError(f"{path!r:.100}: expected a path under the gateway's API ({base}api/v1/); nothing was sent",
                           path=path)
    return target


def json_answer(body: bytes | bytearray, where: str, quote: Callable[[bytearray, int], str]) -> Any:
    """The JSON value of an answer's ``body``, its values counted before it is parsed (at most
    ``MAX_JSON_ITEMS``). Raises GatewayError starting with ``where``, quoting the start of the
    body through ``quote`` (which scrubs the token)."""
    items = body.count(b",") + body.count(b"[") + body.count(b"{") + 1  # at least the values
    if items > MAX_JSON_ITEMS:
        raise GatewayError(f"{where}: the answer holds more than {MAX_JSON_ITEMS:,} JSON values; "
                           f"a query asks for at most {MAX_LIMIT:,} triples")
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise GatewayError(f"{where}: expected a JSON answer, got {quote(body, 80)!r}") from None


def content_bytes(answer: dict[str, Any], what: str) -> bytes:
    """The bytes of a librarian answer's base64 ``content`` ("" when absent). Raises
    GatewayError "{what} is not base64"."""
    content = answer.get("content") or ""
    try:
        if not isinstance(content, str):
            raise TypeError
        return base64.b64decode(content, validate=True)
    except (binascii.Error, TypeError, ValueError):
        raise GatewayError(f"{what} is not base64") from None


def _utf8(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")
