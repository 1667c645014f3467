"""The app's TrustGraph source (a stand-in deployment, ``tests/trustgraph_server.py``): the
endpoint allowlist governs it as it does SPARQL endpoints (nothing is sent to a refused URL);
connected, the list holds the deployment's sessions; a session opens without its texts, which
the librarian gives when a step is shown, and they are kept; a wrong token is a clear error
that never shows the token."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.workspace_support import step_of, titled
from tests.conftest import manifest_sessions
from tests.test_app import REPO, table_ids, unescape, walk
from tests.trustgraph_server import COLLECTION, FLOW, TOKEN, FakeGateway, corpus_gateway  # noqa: F401 - a fixture

TOP = [s["session"] for s in manifest_sessions() if s["parent"] is None]
REACT = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"


@pytest.fixture
def app_env(tmp_path, monkeypatch):
    monkeypatch.delenv("TRACE_EXPLORER_STORE", raising=False)
    monkeypatch.delenv("TRACE_EXPLORER_ENDPOINT_ALLOW", raising=False)
    monkeypatch.delenv("TRUSTGRAPH_URL", raising=False)
    return tmp_path


def connect(server: FakeGateway, token: str = TOKEN) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()
    at.sidebar.segmented_control(key="te_source_kind").set_value("TrustGraph").run()
    return fill_and_connect(at, server.url, token)


def fill_and_connect(at: AppTest, url: str, token: str) -> AppTest:
    """Type the gateway ``url``, ``token``, the stand-in's flow and collection; press Connect."""
    at.sidebar.text_input(key="te_tg_url").set_value(url)
    at.sidebar.text_input(key="te_tg_token").set_value(token)
    at.sidebar.text_input(key="te_tg_flow").set_value(FLOW)
    at.sidebar.text_input(key="te_tg_collection").set_value(COLLECTION)
    at.sidebar.button(key="te_tg_connect").click().run()
    assert not at.exception, at.exception
    return at


def shown_text(at: AppTest) -> str:
    return "\n".join(str(getattr(e, "value", "")) for e in walk(at.main))


def librarian_asks(server: FakeGateway, since: int) -> list[str]:
    return [body["document-id"] for path, body, _ in server.log[since:] if path.endswith("/librarian")]


def test_the_allowlist_opens_the_deployment_and_texts_come_when_shown(app_env, monkeypatch, corpus_gateway):
    monkeypatch.setenv("TRACE_EXPLORER_ENDPOINT_ALLOW", "127.0.0.1")
    before = len(corpus_gateway.log)
    at = connect(corpus_gateway)
    assert sorted(table_ids(at)) == sorted(TOP)
    assert librarian_asks(corpus_gateway, before) == []  # the list needs no text
    at.switch_page("app_pages/session.py")
    at.query_params["session"] = REACT
    mark = len(corpus_gateway.log)
    at.run()
    assert not at.exception, at.exception
    source = at.session_state["te_collection"].source
    session = at.session_state["te_collection"].fetched[REACT]
    first = session.steps[0]
    # the answer and the first step's texts, and no other
    asked = librarian_asks(corpus_gateway, mark)
    assert set(asked) <= {session.nodes[session.answer_id].fields["document"]} | \
        {d for d in [first.fields.get("document")] if d}
    assert session.answer and session.answer in unescape(shown_text(at))
    analysis = next(s for s in session.steps if s.kind == "Analysis")
    thought_doc = session.nodes[analysis.fields["thought_id"]].fields["document"]
    assert thought_doc not in source.documents
    assert step_of(at, analysis.id)["pending"] and not step_of(at, first.id)["pending"]
    at.session_state["te_texts_wanted"] = analysis.id  # the workspace's "texts" trigger: the step shown
    at.run()
    assert not at.exception, at.exception
    assert source.documents[thought_doc] == titled(step_of(at, analysis.id), "Thought")["text"]  # fetched for it
    assert not step_of(at, analysis.id)["pending"]
    mark = len(corpus_gateway.log)
    at.session_state["te_texts_wanted"] = analysis.id
    at.run()
    assert librarian_asks(corpus_gateway, mark) == []  # kept for the session


def test_a_loopback_gateway_is_refused_when_the_app_is_served_to_others(app_env, corpus_gateway, served_at):
    served_at("0.0.0.0")
    before = len(corpus_gateway.log)
    at = connect(corpus_gateway)
    assert [unescape(e.value) for e in at.sidebar.error] == [
        "127.0.0.1 resolves to a non-public address (127.0.0.1); this app is served to other machines, so its own "
        "machine's services are closed to them; a deployment opens such hosts by listing them in "
        "TRACE_EXPLORER_ENDPOINT_ALLOW"]
    assert any("start the app with TRUSTGRAPH_URL=http://localhost:8888/" in unescape(c.value) for c in at.sidebar.caption)
    assert len(corpus_gateway.log) == before  # nothing was sent
    assert table_ids(at) == []  # the list shows no other source's sessions, and says why
    assert any("Not connected" in unescape(i.value) for i in at.main.info)


def test_a_loopback_gateway_opens_when_the_app_is_served_on_loopback_only(app_env, corpus_gateway, served_at):
    served_at("127.0.0.1")  # no one else reaches the app: the gateway beside it is the person's own
    at = connect(corpus_gateway)
    assert not at.sidebar.error, [e.value for e in at.sidebar.error]
    assert sorted(table_ids(at)) == sorted(TOP)


def test_a_gateway_the_allowlist_does_not_name_is_refused(app_env, monkeypatch, corpus_gateway, served_at):
    served_at("0.0.0.0")  # served to other machines: this machine's gateway is not theirs to reach
    monkeypatch.setenv("TRACE_EXPLORER_ENDPOINT_ALLOW", "trustgraph.example.org")
    before = len(corpus_gateway.log)
    at = connect(corpus_gateway)
    assert any("not in this deployment's endpoint allowlist" in unescape(e.value) for e in at.sidebar.error)
    assert len(corpus_gateway.log) == before


def test_a_wrong_token_is_a_clear_error_that_never_shows_a_token(app_env, monkeypatch, corpus_gateway):
    monkeypatch.setenv("TRACE_EXPLORER_ENDPOINT_ALLOW", "127.0.0.1")
    at = connect(corpus_gateway, token="wrong-token-5d1e")
    errors = [unescape(e.value) for e in at.sidebar.error]
    assert any("refused the token (HTTP 401)" in e for e in errors)
    everything = shown_text(at) + "\n".join(str(getattr(e, "value", "")) for e in walk(at.sidebar)
                                            if getattr(e, "type", "") != "text_input")
    assert "wrong-token-5d1e" not in everything and TOKEN not in everything


def test_a_sessions_health_on_a_gateway_is_checked_when_asked_with_every_text(app_env, monkeypatch, corpus_gateway):
    # texts come lazily on a gateway: the check (which needs them all) waits for the button, then
    # finds what a check of the same session read from files finds
    from trace_explorer.analysis.health.checks import check_sessions
    from trace_explorer.read.collection import load_collection
    from trace_explorer.sources.store_source import StoreSource
    from tests.conftest import CORPUS

    monkeypatch.setenv("TRACE_EXPLORER_ENDPOINT_ALLOW", "127.0.0.1")
    at = connect(corpus_gateway)
    at.switch_page("app_pages/session.py")
    at.query_params["session"] = REACT
    at.run()
    assert [e.label for e in at.main.expander if e.label.startswith("Health")] == ["Health: not checked yet"]
    asked = len(librarian_asks(corpus_gateway, 0))
    at.button(key=f"te_health_check_{REACT}").click().run()
    assert not at.exception, at.exception
    collection, _ = load_collection([CORPUS])
    expected = check_sessions(StoreSource(collection.store, documents=collection.documents), [REACT])
    assert at.session_state[f"te_health_checked_{REACT}"] == expected
    titles = [e.label for e in at.main.expander if e.label.startswith("Health")]
    levels = {f.severity for f in expected}
    assert titles == ["Health: clean"] if not expected else titles[0].startswith("Health: ") and levels
    assert len(librarian_asks(corpus_gateway, 0)) > asked  # every text, once
