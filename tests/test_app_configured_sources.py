"""The operator's configured sources in the app, end to end: a SPARQL endpoint (a real Virtuoso)
and a local store, each picked by its name from ``TRACE_EXPLORER_SOURCES``, reach the list and a
session page although the endpoint policy and the store root would refuse them typed in."""

from __future__ import annotations

import pytest

from tests.conftest import CORPUS, file_graph, manifest_sessions
from streamlit.testing.v1 import AppTest

from tests.test_app import REPO, header_question, table_ids, unescape
from tests.test_app_sources import _param, start
from components.sidebar.store_source import cannot_open
from trace_explorer.cli.main import main

SEED = {s["session"]: s for s in manifest_sessions("seed-sessions.ttl")}


@pytest.fixture
def configured(tmp_path, monkeypatch):
    """Write ``sources.toml`` in ``tmp_path`` and point the app at it; returns a function taking
    the file's text."""
    monkeypatch.delenv("TRACE_EXPLORER_STORE", raising=False)
    monkeypatch.delenv("TRACE_EXPLORER_ENDPOINT_ALLOW", raising=False)
    monkeypatch.delenv("TRUSTGRAPH_URL", raising=False)
    path = tmp_path / "sources.toml"
    monkeypatch.setenv("TRACE_EXPLORER_SOURCES", str(path))

    def write(text: str):
        path.write_text(text, encoding="utf-8")
        return path
    return write


def test_a_configured_endpoint_is_picked_by_name_and_lists_its_sessions(configured, virtuoso_url):
    configured(f'[[sparql]]\nname = "Archive"\nurl = "{virtuoso_url}"\n'
               f'graphs = ["{file_graph("seed-sessions.ttl")}"]\nquoted_triples = false\n')
    at = start()
    at.sidebar.segmented_control(key="te_source_kind").set_value("SPARQL endpoint").run()
    assert not at.exception, at.exception
    # connected at once, with no form: loopback is refused when typed, allowed when configured
    assert at.sidebar.selectbox(key="te_endpoint_choice").value == "Archive"
    assert not at.sidebar.error, [e.value for e in at.sidebar.error]
    assert sorted(table_ids(at)) == sorted(SEED)
    assert _param(at, "endpoint") == virtuoso_url
    iri = sorted(SEED)[0]
    at.switch_page("app_pages/session.py")
    at.query_params["session"] = iri
    at.run()
    assert not at.exception and header_question(at) == SEED[iri]["question"]


def test_another_loopback_url_typed_in_is_refused(configured, virtuoso_url, served_at):
    served_at("0.0.0.0")  # served to other machines: this machine's services are not theirs to reach
    configured(f'[[sparql]]\nname = "Archive"\nurl = "{virtuoso_url}"\nquoted_triples = false\n')
    at = start()
    at.sidebar.segmented_control(key="te_source_kind").set_value("SPARQL endpoint").run()
    at.sidebar.selectbox(key="te_endpoint_choice").set_value("Another (enter it)").run()
    at.sidebar.text_input(key="te_endpoint_url").set_value(virtuoso_url.replace("127.0.0.1", "localhost"))
    at.sidebar.button(key="te_endpoint_connect").click().run()
    errors = [unescape(e.value) for e in at.sidebar.error]
    assert errors == ["localhost resolves to a non-public address (127.0.0.1); this app is served to other "
                      "machines, so its own machine's services are closed to them; a deployment opens such hosts "
                      "by listing them in TRACE_EXPLORER_ENDPOINT_ALLOW"]
    assert table_ids(at) == []


def test_a_configured_store_opens_by_name_outside_the_store_root(configured, tmp_path, monkeypatch):
    store = tmp_path / "team-store"
    assert main(["ingest", str(CORPUS / "seed-sessions.ttl"), "--store", str(store), "--quiet"]) == 0
    root = tmp_path / "visitors"
    root.mkdir()
    monkeypatch.setenv("TRACE_EXPLORER_STORE_ROOT", str(root))
    configured(f'[[store]]\nname = "Team traces"\npath = "{store}"\n')
    at = start()
    at.sidebar.segmented_control(key="te_source_kind").set_value("Local store").run()
    at.sidebar.selectbox(key="te_store_choice").set_value("Team traces").run()
    assert not at.exception, at.exception
    assert sorted(table_ids(at)) == sorted(SEED)
    assert _param(at, "store") == "Team traces"  # its name, never its path
    assert str(tmp_path) not in " ".join(str(getattr(e, "value", "")) for e in at.sidebar)
    # a link naming a directory, outside the root and not configured, opens nothing and makes nothing
    linked = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    linked.query_params["store"] = str(tmp_path / "elsewhere")
    linked.run()
    assert [unescape(e.value) for e in linked.sidebar.error] == [cannot_open(str(tmp_path / "elsewhere"))]
    assert table_ids(linked) == [] and not (tmp_path / "elsewhere").exists()


def test_a_bad_entry_is_named_in_the_sidebar_and_the_good_ones_stay(configured, tmp_path):
    store = tmp_path / "team-store"
    assert main(["ingest", str(CORPUS / "seed-sessions.ttl"), "--store", str(store), "--quiet"]) == 0
    path = configured(f'[[trustgraph]]\nname = "Broken"\nurl = "http://127.0.0.1:9/"\ntoken_env = "NOT_SET_ANYWHERE"\n'
                      f'[[store]]\nname = "Team traces"\npath = "{store}"\n')
    at = start()
    assert str(path) not in " ".join(unescape(str(getattr(e, "value", ""))) for e in at.sidebar)  # a server path
    assert [unescape(e.value) for e in at.sidebar.error] == [
        "Configured sources: the sources file: trustgraph source 'Broken': expected the environment variable "
        "NOT_SET_ANYWHERE (token_env) to be set"]
    at.sidebar.segmented_control(key="te_source_kind").set_value("Local store").run()
    at.sidebar.selectbox(key="te_store_choice").set_value("Team traces").run()
    assert sorted(table_ids(at)) == sorted(SEED)
