"""A hostile gateway or SPARQL endpoint costs one error line, bounded memory and bounded time:
a 2 GiB body, an endless chunked body and a body that drips a byte every 2 s each end in a
clear error, the connection closed; a server that echoes the Authorization header never gets
any start of the token into a message, wherever a cut falls. Each test runs against
``tests.hostile_server`` on 127.0.0.1 (the app reaches loopback here because these sources are
built directly, as the CLI builds them; the app's own policy check is tested in
``test_endpoint_policy``)."""

from __future__ import annotations

import gc
import json
import sys
import threading
import tracemalloc

import pytest

from tests.hostile_server import HostileServer, finishes_within
from trace_explorer.network.bounded_http import ERROR_BODY_BYTES, MAX_BYTES_VARIABLE
from trace_explorer.sources.endpoint import EndpointSource
from trace_explorer.sources.source import SourceError
from trace_explorer.sources.trustgraph.gateway import Gateway, GatewayError

TOKEN = "SECRETtok-5f1e9a7c2b3d4e6f8a9b0c1d"
BOUND_S = 30  # a hostile server may hold a test no longer than this
CAP_MB = 16


def gateway(server: HostileServer, timeout: float = 10.0) -> Gateway:
    return Gateway(server.url, TOKEN, flow="f", collection="c", timeout=timeout)


def endpoint(server: HostileServer, timeout: float = 10.0) -> EndpointSource:
    return EndpointSource(server.url + "sparql", token=TOKEN, timeout=timeout)


CLIENTS = {
    "gateway": (gateway, lambda client: client.triples(limit=10), GatewayError),
    "endpoint": (endpoint, lambda client: client.select("SELECT ?s WHERE { ?s ?p ?o }"), SourceError),
}


def leaked_prefix(message: str, secret: str = TOKEN) -> str | None:
    """The longest start of ``secret`` (4 characters or more) found in ``message``."""
    found = [secret[:k] for k in range(4, len(secret) + 1) if secret[:k] in message]
    return found[-1] if found else None


def run_bounded(call):
    """``call()`` under tracemalloc: (the exception it raised, peak bytes allocated)."""
    tracemalloc.start()
    try:
        finished, outcome = finishes_within(BOUND_S, call)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert finished, f"still reading after {BOUND_S} s"
    return outcome, peak


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("mode", ["huge", "chunked"])
def test_an_endless_body_stops_at_the_byte_cap(monkeypatch, client, mode):
    monkeypatch.setenv(MAX_BYTES_VARIABLE, str(CAP_MB))
    make, call, error_type = CLIENTS[client]
    with HostileServer(mode) as server:
        raised, peak = run_bounded(lambda: call(make(server)))
    assert isinstance(raised, error_type), raised
    assert f"the answer is larger than the {CAP_MB} MiB limit" in str(raised)
    assert str(raised).count("\n") == 0 and TOKEN not in str(raised)
    assert peak < 4 * CAP_MB * 1024 * 1024, f"{peak / 1e6:.0f} MB held for a {CAP_MB} MiB cap"
    assert server.bytes_sent < 2 * 1024 ** 3  # it hung up long before the 2 GiB were sent


@pytest.mark.parametrize("client", CLIENTS)
def test_a_declared_two_gib_body_is_refused_before_it_is_read(monkeypatch, client):
    monkeypatch.delenv(MAX_BYTES_VARIABLE, raising=False)  # the default cap
    make, call, error_type = CLIENTS[client]
    with HostileServer("declared") as server:
        raised, peak = run_bounded(lambda: call(make(server)))
    assert isinstance(raised, error_type)
    assert "the answer is larger than the 128 MiB limit" in str(raised)
    assert peak < 32 * 1024 * 1024


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("mode", ["drip", "drip_headers"])
def test_a_dripping_answer_ends_at_the_deadline_and_the_connection_is_closed(client, mode):
    make, call, error_type = CLIENTS[client]
    with HostileServer(mode, drip_s=0.2) as server:
        raised, _ = run_bounded(lambda: call(make(server, timeout=2.0)))
        assert isinstance(raised, error_type), raised
        assert str(raised).endswith("no complete answer within 2 s")
        finished, _ = finishes_within(5, lambda: _wait_closed(server))
        assert finished and server.open_connections == 0


def _wait_closed(server: HostileServer) -> None:
    import time

    while server.open_connections:
        time.sleep(0.05)


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("pad", [200 - 17 - 9, 300 - 17 - 5, ERROR_BODY_BYTES - 17 - 11])
def test_an_echoed_token_never_leaks_wherever_the_cut_falls(client, pad):
    make, call, error_type = CLIENTS[client]
    with HostileServer("echo", pad=pad) as server:
        raised, _ = run_bounded(lambda: call(make(server)))
    assert server.requests[0][1]["Authorization"] == f"Bearer {TOKEN}"  # it was sent, and echoed
    assert isinstance(raised, error_type) and "HTTP 500" in str(raised)
    assert leaked_prefix(str(raised)) is None, str(raised)[-80:]


def test_a_malformed_triple_or_binding_is_quoted_without_the_token():
    triple = {"response": [{"s": {"t": "i", "i": "urn:x"}, "p": {"t": "l", "v": "x" * 150 + TOKEN}}]}
    binding = {"variables": ["a", "b"], "bindings": [{"values": [{"t": "i", "i": "x" * 150 + TOKEN}]}]}
    with HostileServer("json", body=json.dumps(triple).encode()) as server:
        with pytest.raises(GatewayError, match="malformed triple") as bad_triple:
            gateway(server).triples(limit=10)
    with HostileServer("json", body=json.dumps(binding).encode()) as server:
        with pytest.raises(GatewayError, match="malformed binding") as bad_binding:
            gateway(server).sparql_select("SELECT ?a ?b {}")
    for raised in (bad_triple, bad_binding):
        assert leaked_prefix(str(raised.value)) is None, str(raised.value)


@pytest.mark.parametrize("term", [{"type": "weird-" + TOKEN, "value": "x"}, {"type": "uri", "value": "bad iri " + TOKEN},
                                  {"type": "literal", "value": "x", "datatype": "not an iri " + TOKEN}],
                         ids=["term type", "IRI", "datatype"])
def test_a_malformed_sparql_result_term_is_one_line_without_the_token(term):
    """An endpoint's results whose terms are malformed (parsed as they are read) end in a
    SourceError that quotes nothing of the token, never in the parser's own exception."""
    results = {"head": {"vars": ["s"]}, "results": {"bindings": [{"s": term}]}}
    with HostileServer("json", body=json.dumps(results).encode()) as server:
        with pytest.raises(SourceError, match="unreadable results") as raised:
            endpoint(server).select("SELECT ?s WHERE { ?s ?p ?o }")
    assert leaked_prefix(str(raised.value)) is None, str(raised.value)
    # the results parsed so far are let go with the failure: the error kept here (as a page keeps
    # its message) leaves nothing for a collection on another thread, where pyoxigraph refuses it
    assert collected_on_another_thread() == []


def collected_on_another_thread() -> list[str]:
    """What a garbage collection run on a thread of its own reports as unraisable."""
    reported: list[str] = []
    hook, sys.unraisablehook = sys.unraisablehook, lambda u: reported.append(repr(u.exc_value))
    try:
        collector = threading.Thread(target=gc.collect)
        collector.start()
        collector.join()
    finally:
        sys.unraisablehook = hook
    return reported


def test_a_service_error_that_echoes_the_token_is_scrubbed_before_it_is_cut():
    refusal = {"error": {"type": "auth", "message": "x" * 270 + "header was Bearer " + TOKEN}}
    with HostileServer("json", body=json.dumps(refusal).encode()) as server:
        with pytest.raises(GatewayError, match="the service answered with an error") as raised:
            gateway(server).triples(limit=10)
    assert leaked_prefix(str(raised.value)) is None, str(raised.value)[-60:]


def test_a_json_answer_of_millions_of_values_is_refused_before_it_is_parsed():
    body = b"[" + b"[]," * 5_000_000 + b"[]]"
    with HostileServer("json", body=body) as server:
        raised, peak = run_bounded(lambda: gateway(server).triples(limit=10))
    assert isinstance(raised, GatewayError)
    assert "the answer holds more than 4,000,000 JSON values" in str(raised)
    assert peak < 4 * len(body)


EXITING = """
import threading, time
from tests.hostile_server import HostileServer
from trace_explorer.sources.trustgraph.gateway import Gateway

server = HostileServer("drip", drip_s=0.5).__enter__()
gateway = Gateway(server.url, "tok", timeout=60, workers=4)
threading.Thread(target=lambda: gateway.map(lambda i: gateway.triples(limit=1), range(12)), daemon=True).start()
while server.open_connections < 4:
    time.sleep(0.05)
print("leaving with", server.open_connections, "reads in flight and 8 queued", flush=True)
"""


def test_the_interpreter_exits_while_pool_workers_read_a_dripping_gateway():
    """The main thread ends while four pool workers are blocked on a drip (60 s deadline each)
    and eight more requests wait in the pool's queue: Python joins pool workers at exit, and
    the exit hook ends the reads in flight and refuses the queued ones at once."""
    import subprocess
    import sys

    from tests.browser_support import REPO_ROOT

    done = subprocess.run([sys.executable, "-c", EXITING], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=BOUND_S)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "leaving with 4 reads in flight and 8 queued"
