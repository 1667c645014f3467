"""The sidebar's Source panel (the source, its forms, the uploader and the files loaded): closed on
a first visit to the demo, so that a first view draws none of its widgets, and open whenever
there is something to fill in or to read: a link to files, a store, an endpoint or a gateway, a
source not connected yet, files that could not be read. What the panel holds goes on while it is
closed: the same sessions, the same counts."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from components.collection import demo_files
from components.sidebar.source_picker import KIND_KEY, SOURCE_PANEL_KEY
from tests.conftest import CORPUS, demo_sessions
from tests.store_copies import TOP_PER_COPY, copies
from tests.test_app import table_ids
from tests.test_app_list_search import app
from tests.test_app_sources import SEED, _caption_total, app_env  # noqa: F401 - app_env: a fixture
from trace_explorer.cli.main import main

pytestmark = pytest.mark.source_panel_closed
DEMO = demo_sessions()
DEMO_TOP = sorted(s["session"] for s in DEMO if s["parent"] is None)


def _sidebar_counts(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.sidebar.metric}


def test_a_first_visit_to_the_demo_lists_it_with_the_panel_closed_and_none_of_its_widgets():
    at = app()
    assert not at.exception
    assert [e.label for e in at.sidebar.expander] == ["Source and files"]
    assert at.session_state[SOURCE_PANEL_KEY] is False
    assert not at.sidebar.segmented_control and not at.sidebar.toggle
    assert len(at.get("file_uploader")) == 0
    assert sorted(table_ids(at)) == DEMO_TOP
    assert _sidebar_counts(at)["Sessions"] == str(len(DEMO))


def test_opening_the_panel_draws_the_source_the_uploader_and_the_files_and_closing_keeps_the_demo():
    at = app()
    at.session_state[SOURCE_PANEL_KEY] = True
    at.run()
    assert not at.exception
    assert at.sidebar.segmented_control(key=KIND_KEY).value == "Files"
    assert len(at.get("file_uploader")) == 1
    assert [t.label for t in at.sidebar.toggle] == ["Include the demo traces"]
    assert [e.label for e in at.sidebar.expander] == ["Source and files", f"Files ({len(demo_files())})"]
    at.session_state[SOURCE_PANEL_KEY] = False
    at.run()
    assert not at.exception and not at.sidebar.segmented_control
    assert sorted(table_ids(at)) == DEMO_TOP and _sidebar_counts(at)["Sessions"] == str(len(DEMO))


@pytest.mark.parametrize("param, kind", [("endpoint", "SPARQL endpoint"), ("trustgraph", "TrustGraph")])
def test_a_link_to_another_source_opens_the_panel_on_its_form(monkeypatch, param, kind):
    monkeypatch.delenv("TRUSTGRAPH_URL", raising=False)
    at = app(**{param: "https://traces.example.org/sparql" if param == "endpoint" else "https://tg.example.org/"})
    assert not at.exception
    assert at.session_state[SOURCE_PANEL_KEY] is True
    assert at.sidebar.segmented_control(key=KIND_KEY).value == kind


def test_a_source_not_connected_keeps_the_panel_open_though_it_was_closed():
    at = app()
    at.session_state[SOURCE_PANEL_KEY] = True
    at.run()
    at.sidebar.segmented_control(key=KIND_KEY).set_value("TrustGraph").run()
    at.session_state[SOURCE_PANEL_KEY] = False  # closed before a gateway is connected
    at.run()
    assert not at.exception
    assert at.session_state[SOURCE_PANEL_KEY] is True
    assert at.sidebar.text_input(key="te_tg_url") is not None
    assert not table_ids(at)  # the form, never the demo's sessions


def test_a_store_shown_with_the_panel_closed_still_opens_what_an_ingest_added(app_env):  # noqa: F811
    store = app_env / "store"
    assert main(["ingest", str(CORPUS / "seed-sessions.ttl"), "--store", str(store), "--quiet"]) == 0
    at = app(store=store.name)  # a link to a store: the panel opens on it
    assert at.session_state[SOURCE_PANEL_KEY] is True and _caption_total(at) == len(SEED)
    at.session_state[SOURCE_PANEL_KEY] = False
    at.run()
    assert at.session_state[SOURCE_PANEL_KEY] is False
    file = app_env / "copies.nq"
    file.write_bytes(copies(0, 1))
    assert main(["ingest", str(file), "--store", str(store), "--quiet"]) == 0
    at.run()
    assert not at.exception and _caption_total(at) == len(SEED) + TOP_PER_COPY
