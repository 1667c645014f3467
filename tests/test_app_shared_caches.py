"""Caches shared between visitors are keyed on everything that decides what a visitor may see,
credentials included (as a digest): two visitors of one SPARQL endpoint with different
credentials never share an entry, however the pages are opened."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from components.collection import credential_digest
from tests.conftest import CORPUS, manifest_sessions
from tests.sparql_server import SparqlServer
from tests.test_app import REPO, table_ids, unescape
from trace_explorer.read.collection import load_collection

import pyoxigraph as ox

SEED_TOP = sorted(s["session"] for s in manifest_sessions("seed-sessions.ttl") if s["parent"] is None)
OWNER = "owner-token-93c1a7"
OTHER = "other-token-5b27e0"


@pytest.fixture
def private_endpoint(monkeypatch):
    """An endpoint where the owner's token sees the seed sessions and another token (or none)
    sees nothing."""
    monkeypatch.delenv("TRACE_EXPLORER_STORE", raising=False)
    monkeypatch.setenv("TRACE_EXPLORER_ENDPOINT_ALLOW", "127.0.0.1")
    private, errors = load_collection([CORPUS / "seed-sessions.ttl"])
    assert not errors
    with SparqlServer({f"Bearer {OWNER}": private.store, f"Bearer {OTHER}": ox.Store(), None: ox.Store()}) as server:
        yield server


def connect(url: str, token: str | None) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()
    at.sidebar.segmented_control(key="te_source_kind").set_value("SPARQL endpoint").run()
    at.sidebar.text_input(key="te_endpoint_url").set_value(url)
    if token:
        at.sidebar.text_input(key="te_endpoint_secret").set_value(token)
        at.sidebar.checkbox(key="te_endpoint_bearer").check()
    at.sidebar.button(key="te_endpoint_connect").click().run()
    assert not at.exception, at.exception
    return at


def insights(at: AppTest) -> AppTest:
    at.switch_page("app_pages/insights.py").run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("token", [OTHER, None])
def test_a_visitor_without_the_token_never_sees_the_owners_cached_numbers(private_endpoint, token):
    owner = connect(private_endpoint.url, OWNER)
    assert sorted(table_ids(owner)) == SEED_TOP
    shown = {m.label: m.value for m in insights(owner).main.metric}
    assert shown["Sessions"] == str(len(SEED_TOP))  # now in the shared insights cache

    stranger = connect(private_endpoint.url, token)
    assert table_ids(stranger) == []
    insights(stranger)
    assert not stranger.main.metric  # no counts, no tool names: nothing of the owner's
    assert any("No session matches" in unescape(i.value) for i in stranger.main.info)
    assert private_endpoint.seen[-1] == (f"Bearer {token}" if token else None)  # asked with their own


def test_credential_digests_differ_by_secret_and_never_hold_it():
    keys = {credential_digest("ana", "pw-1"), credential_digest("ana", "pw-2"), credential_digest("ana", None),
            credential_digest(None, "pw-1"), credential_digest("ana", "")}
    assert len(keys) == 4  # no secret and an empty one see the same
    assert credential_digest("ana", "pw-1") == credential_digest("ana", "pw-1")
    assert all("pw" not in key for key in keys)
