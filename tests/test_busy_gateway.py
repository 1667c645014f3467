"""A busy gateway: one whose short queue of connections makes it reset those beyond a few at
once (the stand-in's ``busy_over``). The client keeps at most ``WORKERS`` requests in flight,
sends a read whose connection was reset again after a pause, and when the resets do not stop,
says that the server reset the connection, and how many tries were made."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from tests.conftest import manifest_sessions
from tests.trustgraph_server import COLLECTION, FLOW, TOKEN, FakeGateway, corpus_deployment, gateway_args
from trace_explorer.cli.main import main
from trace_explorer.sources.source import SourceError
from trace_explorer.sources.trustgraph.gateway import WORKERS, Gateway

@pytest.fixture(scope="module")
def busy():
    """The corpus behind a gateway whose tests set ``busy_over``."""
    server = FakeGateway(*corpus_deployment())
    server.start()
    yield server
    server.stop()


def cli(capsys, monkeypatch, *argv):
    monkeypatch.setenv("TRUSTGRAPH_TOKEN", TOKEN)
    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_a_busy_gateway_lists_every_session(capsys, monkeypatch, busy):
    busy.busy_over, busy.resets = 2, 0  # two connections at once, the rest reset
    status, out, err = cli(capsys, monkeypatch, "list", *gateway_args(busy.url), "--all", "--limit", "0",
                           "--format", "json")
    assert status == 0, err
    assert sorted(r["id"] for r in json.loads(out)) == sorted(s["session"] for s in manifest_sessions())
    assert busy.resets > 0  # the gateway did reset connections: they were sent again


def test_a_gateway_gets_no_more_requests_at_once_than_the_workers(busy, monkeypatch):
    import trace_explorer.sources.trustgraph.gateway as module

    busy.busy_over = None
    at_once, most, lock = [0], [0], threading.Lock()
    sent = module.bounded_post

    def counted(*args, **kwargs):  # the requests in flight, counted where they are sent
        with lock:
            at_once[0] += 1
            most[0] = max(most[0], at_once[0])
        try:
            return sent(*args, **kwargs)
        finally:
            with lock:
                at_once[0] -= 1

    monkeypatch.setattr(module, "bounded_post", counted)
    gateway = Gateway(busy.url, TOKEN, flow=FLOW, collection=COLLECTION, workers=2)
    ask = lambda _: gateway.sparql_select("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1")  # noqa: E731
    threads = [threading.Thread(target=gateway.map, args=(ask, range(6))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert gateway.requests == 18 and most[0] == 2  # three threads, and the gateway's two at once
    assert WORKERS < 16


def test_a_gateway_that_keeps_resetting_is_named_as_the_cause(busy):
    busy.busy_over, busy.resets = 0, 0  # every connection reset
    gateway = Gateway(busy.url, TOKEN, flow=FLOW, collection=COLLECTION)
    with pytest.raises(SourceError) as raised:
        gateway.sparql_select("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1")
    message = str(raised.value)
    # a connection closed at once is a reset or, when the close wins the race with the request, no answer
    assert ("the server reset the connection, as a busy server does when its queue of connections is full" in message
            or "the server closed the connection without an answer (RemoteDisconnected)" in message)
    assert "4 tries over" in message and busy.resets == 4 and gateway.requests == 4


def test_a_port_nobody_listens_on_is_named_as_refused():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    gateway = Gateway(f"http://127.0.0.1:{port}/", TOKEN, flow=FLOW, collection=COLLECTION)
    with pytest.raises(SourceError, match=r"the server refused the connection: is it running, at this address and "
                                          r"port\? \(ConnectionRefusedError\); 4 tries over"):
        gateway.triples(limit=1)
