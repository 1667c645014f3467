"""The session list following a SPARQL endpoint, run in Streamlit's AppTest (issue 41): a session
written into the endpoint shows marked new and running with the steps seen, then answered; an
endpoint that stops answering is said in one note while the list keeps its rows, and the note
goes once the endpoint answers again."""

from __future__ import annotations

import time

import pyoxigraph as ox
from streamlit.testing.v1 import AppTest

from tests.list_support import list_rows
from tests.live_support import copy_session
from tests.sparql_server import SparqlServer
from tests.trustgraph_server import corpus_deployment

FOLLOWED = "urn:trustgraph:agent:4ecadea2-81b6-4bb5-b866-64ae64a149f5"


def list_app(url: str) -> None:
    """The list's part of the sessions page on an endpoint, following it."""
    from components.collection import Collection
    from components.live_list import live_list
    from components.session_list import session_list
    from trace_explorer.sources.catalog import SessionFilter, SessionOrder
    from trace_explorer.sources.endpoint import EndpointSource

    import streamlit as st

    collection = st.session_state.get("collection")
    if collection is None:
        collection = st.session_state["collection"] = Collection(EndpointSource(url), ("endpoint", url), "endpoint")
    session_list(collection, SessionFilter(), SessionOrder(), 1, live_list(collection))


def test_the_list_follows_an_endpoint_and_says_once_when_it_stops_answering(monkeypatch):
    monkeypatch.setattr("components.live_list.POLL_S", 0.1)
    quads, documents = corpus_deployment()
    store = ox.Store()
    store.extend(quads)
    live = copy_session(quads, documents, FOLLOWED)
    with SparqlServer({None: store}) as server:
        at = AppTest.from_function(list_app, args=(server.url,), default_timeout=60).run()
        shown = [r["id"] for r in list_rows(at)]
        assert live.root not in shown and not at.warning
        store.extend(live.stages[0] + live.stages[1] + live.stages[2])  # the Question, two steps, no answer
        time.sleep(0.15)
        at.run()
        row = next(r for r in list_rows(at) if r["id"] == live.root)
        assert (row["new"], row["status"], row["steps"]) == (True, "running", "2")
        store.extend([q for stage in live.stages[3:] for q in stage])
        time.sleep(0.15)
        at.run()
        row = next(r for r in list_rows(at) if r["id"] == live.root)
        assert (row["new"], row["status"], row["steps"]) == (True, "answered", str(len(live.steps)))
        rows = list_rows(at)
        server.datasets.clear()  # it stops answering (every request refused)
        for _ in range(2):
            time.sleep(0.15)
            at.run()
            assert len(at.warning) == 1 and "stopped answering" in at.warning[0].value
            assert list_rows(at) == rows  # what was shown stays
        server.datasets[None] = store
        time.sleep(0.15)
        at.run()
        assert not at.warning and list_rows(at) == rows
