"""The app on each source: a local store (reopened on the next start, uploads saved into it all
or nothing) and a SPARQL endpoint (a real Virtuoso), with the list paged by queries."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import CORPUS, file_graph, manifest_sessions
from tests.test_app import REPO, table_ids, unescape
from trace_explorer.cli.main import main

TOP = [s["session"] for s in manifest_sessions() if s["parent"] is None]
SEED = [s["session"] for s in manifest_sessions("seed-sessions.ttl")]


@pytest.fixture
def app_env(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("TRACE_EXPLORER_STORE", raising=False)
    monkeypatch.delenv("TRACE_EXPLORER_ENDPOINT_ALLOW", raising=False)
    return tmp_path


def start() -> AppTest:
    return AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()


def test_local_store_is_browsed_and_reopened(app_env):
    store = app_env / "store"
    assert main(["ingest", str(CORPUS), "--store", str(store), "--quiet"]) == 0
    at = start()
    at.sidebar.segmented_control(key="te_source_kind").set_value("Local store").run()
    at.sidebar.text_input(key="te_store_path").set_value(str(store)).run()
    assert not at.exception
    assert sorted(table_ids(at)) == sorted(TOP)
    metrics = {m.label: m.value for m in at.sidebar.metric}
    assert metrics["Sessions"] == str(len(manifest_sessions()))
    again = start()  # a new browser session: the last store is opened again
    assert again.sidebar.segmented_control(key="te_source_kind").value == "Local store"
    assert again.sidebar.text_input(key="te_store_path").value == str(store.resolve())
    assert sorted(table_ids(again)) == sorted(TOP)


def test_uploads_are_saved_into_the_store_all_or_nothing(app_env):
    at = start()
    at.sidebar.segmented_control(key="te_source_kind").set_value("Local store").run()
    at.sidebar.text_input(key="te_store_path").set_value(str(app_env / "fresh")).run()
    assert "No sessions in this source" in at.main.info[0].value
    bad = ("bad.ttl", b"<urn:a> <urn:b> .\n", "text/turtle")
    at.sidebar.file_uploader[0].set_value([("seed-sessions.ttl", (CORPUS / "seed-sessions.ttl").read_bytes(), "text/turtle"),
                                           bad]).run()
    assert not at.exception
    errors = [unescape(e.value) for e in at.sidebar.error]
    assert len(errors) == 1 and re.match(r"bad\.ttl:1:\d+: ", errors[0])
    assert sorted(table_ids(at)) == sorted(SEED)


def test_sparql_endpoint_source(app_env, monkeypatch, virtuoso_url):
    monkeypatch.setenv("TRACE_EXPLORER_ENDPOINT_ALLOW", "127.0.0.1")
    at = start()
    at.sidebar.segmented_control(key="te_source_kind").set_value("SPARQL endpoint").run()
    at.sidebar.text_input(key="te_endpoint_url").set_value(virtuoso_url)
    at.sidebar.text_input(key="te_endpoint_graphs").set_value(file_graph("seed-sessions.ttl"))
    at.sidebar.checkbox(key="te_endpoint_quoted").uncheck()
    at.sidebar.button(key="te_endpoint_connect").click().run()
    assert not at.exception, at.exception
    assert sorted(table_ids(at)) == sorted(SEED)
    at.switch_page("pages/session.py")
    at.query_params["session"] = SEED[0]
    at.run()
    assert not at.exception


def test_loopback_endpoint_refused_without_an_allowlist(app_env, virtuoso_url):
    at = start()
    at.sidebar.segmented_control(key="te_source_kind").set_value("SPARQL endpoint").run()
    at.sidebar.text_input(key="te_endpoint_url").set_value(virtuoso_url)
    at.sidebar.button(key="te_endpoint_connect").click().run()
    assert any("non-public address" in unescape(e.value) for e in at.sidebar.error)
    # not connected: the list says so, and never shows the sessions of the source chosen before
    assert table_ids(at) == []
    assert any("Not connected" in unescape(i.value) and "non-public address" in unescape(i.value) for i in at.main.info)


def test_a_source_not_connected_shows_an_empty_state_never_the_last_sources_sessions(app_env):
    at = start()
    assert sorted(table_ids(at)) == sorted(TOP)  # the demo, first
    at.sidebar.segmented_control(key="te_source_kind").set_value("SPARQL endpoint").run()
    assert table_ids(at) == [] and not at.exception
    assert any("No SPARQL endpoint is connected" in unescape(i.value) for i in at.main.info)
    assert not at.sidebar.metric  # no counts of a source that is not there
    at.sidebar.segmented_control(key="te_source_kind").set_value("Local store").run()
    assert table_ids(at) == []
    assert any("No local store is open" in unescape(i.value) for i in at.main.info)
    at.sidebar.segmented_control(key="te_source_kind").set_value("Files").run()
    assert sorted(table_ids(at)) == sorted(TOP)  # and back


def test_large_counts_fit_the_sidebar_metrics():
    from components.source_picker import _compact

    assert [_compact(n) for n in (0, 60_298, 99_999, 768_266, 1_000_000, 1_254_000)] == \
        ["0", "60,298", "99,999", "768k", "1M", "1.25M"]


def test_a_deployment_keeps_stores_inside_its_store_root(app_env, monkeypatch):
    root = app_env / "stores"
    root.mkdir()
    monkeypatch.setenv("TRACE_EXPLORER_STORE_ROOT", str(root))
    at = start()
    at.sidebar.segmented_control(key="te_source_kind").set_value("Local store").run()
    outside = app_env / "elsewhere"
    at.sidebar.text_input(key="te_store_path").set_value(str(outside)).run()
    assert [unescape(e.value) for e in at.sidebar.error] == [
        f"{outside}: this server opens local stores only inside {root} (set by TRACE_EXPLORER_STORE_ROOT)"]
    assert not outside.exists()  # nothing was created
    at.sidebar.text_input(key="te_store_path").set_value(str(root / "team")).run()
    assert not at.sidebar.error and (root / "team").is_dir()
    assert "No sessions in this source" in at.main.info[0].value
