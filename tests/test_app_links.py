"""What lasts past a reload (a fresh ``AppTest`` is a new browser session): uploaded files come
back from the address's ``?files=<digest>``; a TrustGraph connection from ``?trustgraph=URL
&flow=…&collection=…``, with the configured token or by asking for it again, naming the gateway;
a source in the config file or in ``TRUSTGRAPH_URL`` is picked by name and its secret is never in
the page or the address."""

from __future__ import annotations


import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import CORPUS, MANIFEST, demo_sessions, manifest_sessions
from tests.test_app import REPO, header_question, table_ids, unescape, walk
from tests.test_app_trustgraph import fill_and_connect
from tests.trustgraph_server import COLLECTION, FLOW, TOKEN, corpus_gateway  # noqa: F401 - a fixture
from trace_explorer.read.upload_cache import cache_from_settings

SEED = MANIFEST["seed-sessions.ttl"]["sessions"]
TOP = [s["session"] for s in manifest_sessions() if s["parent"] is None]  # the gateway's
DEMO_TOP = [s["session"] for s in demo_sessions() if s["parent"] is None]
REACT = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"


@pytest.fixture
def app_env(tmp_path, monkeypatch):
    for name in ("TRACE_EXPLORER_STORE", "TRACE_EXPLORER_ENDPOINT_ALLOW", "TRUSTGRAPH_URL", "TRUSTGRAPH_TOKEN",
                 "TRUSTGRAPH_FLOW", "TRUSTGRAPH_COLLECTION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TRACE_EXPLORER_UPLOAD_CACHE", str(tmp_path / "uploads"))
    monkeypatch.setenv("TRACE_EXPLORER_SOURCES", str(tmp_path / "sources.toml"))
    (tmp_path / "sources.toml").write_text("")
    return tmp_path


def fresh(page: str = "app_pages/sessions.py", **params) -> AppTest:
    """A new browser session (a reload, a new tab, a shared link) at ``page?params``."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    if page != "app_pages/sessions.py":
        at.switch_page(page)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, at.exception
    return at


def param(at: AppTest, name: str):
    value = at.query_params.get(name)
    return value[0] if isinstance(value, list) and len(value) == 1 else value


def everything_shown(at: AppTest) -> str:
    """Every value and label of the page, the sidebar's fields included."""
    parts = []
    for node in list(walk(at.main)) + list(walk(at.sidebar)):
        for attribute in ("value", "label", "body", "help", "placeholder"):
            parts.append(str(getattr(node, attribute, "") or ""))
    return "\n".join(parts)


def test_uploaded_files_come_back_from_the_address_in_a_new_browser_session(app_env):
    at = fresh()
    good = (CORPUS / "seed-sessions.ttl").read_bytes()
    at.sidebar.file_uploader[0].set_value(("seed-sessions.ttl", good, "text/turtle")).run()
    digest = param(at, "files")
    assert len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)
    assert cache_from_settings().open(digest) == [("seed-sessions.ttl", good)]
    notes = " ".join(unescape(c.value) for c in at.sidebar.caption)
    assert "nothing lists them" in notes and "kept for 7 days after their last use" in notes
    seed = sorted(s["session"] for s in SEED)
    again = fresh(files=digest)  # a reload
    assert sorted(table_ids(again)) == seed
    assert param(again, "files") == digest
    tab = fresh("app_pages/session.py", session=SEED[1]["session"], files=digest)  # a copied session link
    assert header_question(tab) == SEED[1]["question"]
    assert param(tab, "files") == digest and param(tab, "session") == SEED[1]["session"]
    # more files in that session: one new digest names them all
    name = "graph-dump.ttl"
    more = (CORPUS / name).read_bytes()
    again.sidebar.file_uploader[0].set_value((name, more, "text/turtle")).run()
    assert not again.sidebar.error, [e.value for e in again.sidebar.error]
    both = param(again, "files")
    assert both != digest
    assert sorted(n for n, _ in cache_from_settings().open(both)) == sorted(["seed-sessions.ttl", name])
    expected = seed + [s["session"] for s in MANIFEST[name]["sessions"] if s["parent"] is None]
    assert sorted(table_ids(fresh(files=both))) == sorted(expected)


def test_a_digest_that_is_gone_says_so_and_how_to_keep_files(app_env):
    at = fresh("app_pages/session.py", session=SEED[0]["session"], files="0" * 64)
    gone = [unescape(w.value) for w in at.sidebar.warning]
    assert gone and gone[0].startswith("The files of this link are gone")
    assert "trace-explorer ingest" in gone[0]
    shown = " ".join(unescape(i.value) for i in at.main.info)
    assert "The files of this link are gone" in shown and not at.main.error  # not an "unknown session"
    assert param(at, "files") is None
    for bad in ("../../etc/passwd", "ABC", "0" * 65):
        assert any("gone" in w.value for w in fresh(files=bad).sidebar.warning)
    assert not (app_env / "uploads" / "sets").exists()


def test_a_typed_gateway_is_in_the_address_and_a_reload_asks_for_its_token_naming_it(app_env, monkeypatch,
                                                                                     corpus_gateway):
    monkeypatch.setenv("TRACE_EXPLORER_ENDPOINT_ALLOW", "127.0.0.1")
    at = fresh()
    at.sidebar.segmented_control(key="te_source_kind").set_value("TrustGraph").run()
    fill_and_connect(at, corpus_gateway.url, TOKEN)
    assert sorted(table_ids(at)) == sorted(TOP)
    params = {k: param(at, k) for k in ("trustgraph", "flow", "collection")}
    assert params == {"trustgraph": corpus_gateway.url, "flow": FLOW, "collection": COLLECTION}
    assert TOKEN not in str(at.query_params.to_dict() if hasattr(at.query_params, "to_dict") else dict(at.query_params))

    before = len(corpus_gateway.log)
    reload = fresh("app_pages/session.py", session=REACT, **params)
    assert len(corpus_gateway.log) == before  # nothing sent without the token
    assert reload.sidebar.segmented_control(key="te_source_kind").value == "TrustGraph"
    assert [reload.sidebar.text_input(key=k).value for k in ("te_tg_url", "te_tg_token", "te_tg_flow", "te_tg_collection")] \
        == [corpus_gateway.url, "", FLOW, COLLECTION]
    asked = [unescape(i.value) for i in reload.sidebar.info]
    assert asked == [f"To reopen TrustGraph gateway {corpus_gateway.url} (flow {FLOW}, collection {COLLECTION}), "
                     "enter its token in the sidebar if it needs one, and press Connect. Tokens are never kept in "
                     "the address."]
    page = " ".join(unescape(i.value) for i in reload.main.info)
    assert page.startswith(f"Session {REACT} cannot be shown yet. To reopen TrustGraph gateway")
    assert "upload" not in page.lower() and not reload.main.error
    reload.sidebar.text_input(key="te_tg_token").set_value(TOKEN)
    reload.sidebar.button(key="te_tg_connect").click().run()
    assert header_question(reload) == "¿Cuál es la montaña más alta de Europa? — 最高峰は？"


def configure(app_env, url: str, token_line: str = 'token_env = "LAPTOP_TOKEN"') -> None:
    (app_env / "sources.toml").write_text(
        f'[[trustgraph]]\nname = "Laptop"\nurl = "{url}"\n{token_line}\nflow = "{FLOW}"\n'
        f'collection = "{COLLECTION}"\n')


def test_a_configured_gateway_is_picked_by_name_and_a_reload_uses_its_token(app_env, monkeypatch, corpus_gateway,
                                                                           served_at):
    # no allowlist, served to other machines: a configured loopback gateway is allowed, a typed one is not
    served_at("0.0.0.0")
    monkeypatch.setenv("LAPTOP_TOKEN", TOKEN)
    configure(app_env, corpus_gateway.url)
    at = fresh()
    at.sidebar.segmented_control(key="te_source_kind").set_value("TrustGraph").run()
    assert at.sidebar.selectbox(key="te_tg_choice").value == "Laptop"
    assert sorted(table_ids(at)) == sorted(TOP)
    assert corpus_gateway.log[-1][2] == f"Bearer {TOKEN}"
    shown = everything_shown(at)
    assert TOKEN not in shown and TOKEN not in str(dict(at.query_params))
    reload = fresh("app_pages/session.py", session=REACT, trustgraph=param(at, "trustgraph"), flow=FLOW,
                   collection=COLLECTION)
    assert header_question(reload) == "¿Cuál es la montaña más alta de Europa? — 最高峰は？"
    assert TOKEN not in everything_shown(reload)
    # a typed loopback URL keeps today's policy
    at.sidebar.selectbox(key="te_tg_choice").set_value("Another (enter it)").run()
    fill_and_connect(at, corpus_gateway.url.replace("127.0.0.1", "localhost"), TOKEN)
    assert any("non-public address" in unescape(e.value) for e in at.sidebar.error)


def test_trustgraph_url_in_the_environment_opens_the_gateway_with_no_form(app_env, monkeypatch, corpus_gateway):
    monkeypatch.setenv("TRUSTGRAPH_URL", corpus_gateway.url)
    monkeypatch.setenv("TRUSTGRAPH_TOKEN", TOKEN)
    monkeypatch.setenv("TRUSTGRAPH_FLOW", FLOW)
    monkeypatch.setenv("TRUSTGRAPH_COLLECTION", COLLECTION)
    at = fresh()
    assert at.sidebar.segmented_control(key="te_source_kind").value == "TrustGraph"
    assert sorted(table_ids(at)) == sorted(TOP)
    assert not [t for t in at.sidebar.text_input if t.key in ("te_tg_url", "te_tg_token")]  # no form to fill
    assert TOKEN not in everything_shown(at)
    assert param(at, "trustgraph") == corpus_gateway.url


def test_a_bad_config_file_is_an_error_in_the_sidebar_without_its_secrets(app_env):
    (app_env / "sources.toml").write_text('[[trustgraph]]\nname = "A"\nurl = "gopher://x/"\ntoken = "cfg-secret-51"\n')
    at = fresh()
    errors = [unescape(e.value) for e in at.sidebar.error]
    assert len(errors) == 1 and "expected an http:// or https:// url" in errors[0]
    assert "cfg-secret-51" not in everything_shown(at)
    assert sorted(table_ids(at)) == sorted(DEMO_TOP)  # the demo, as without a file


def test_a_configured_gateway_that_fails_is_tried_again_only_when_asked(app_env, monkeypatch, corpus_gateway, caplog):
    caplog.set_level("DEBUG")
    monkeypatch.setenv("LAPTOP_TOKEN", "stale-token-6e2a")
    configure(app_env, corpus_gateway.url)
    at = fresh(trustgraph=corpus_gateway.url, flow=FLOW, collection=COLLECTION)
    errors = [unescape(e.value) for e in at.sidebar.error]
    assert len(errors) == 1 and "refused the token (HTTP 401)" in errors[0]
    assert "stale-token-6e2a" not in everything_shown(at)
    # this page's requests are those with the stale token: the module's gateway may still be
    # answering fetches a page of an earlier test left running
    def stale() -> list:
        return [entry for entry in corpus_gateway.log if entry[2] == "Bearer stale-token-6e2a"]

    tried = len(stale())
    assert tried > 0
    at.run()  # another run of the page (any click): nothing sent again, the error stays
    assert len(stale()) == tried and [unescape(e.value) for e in at.sidebar.error] == errors
    monkeypatch.setenv("LAPTOP_TOKEN", TOKEN)  # the operator fixes the token
    sent = len(corpus_gateway.log)
    at.sidebar.button(key="te_tg_retry").click().run()
    assert len(stale()) == tried and sorted(table_ids(at)) == sorted(TOP)
    # the server's token, sent to the gateway only
    assert f"Bearer {TOKEN}" in [entry[2] for entry in corpus_gateway.log[sent:]]
    assert "stale-token-6e2a" not in caplog.text and TOKEN not in caplog.text  # and never logged


def test_a_typed_endpoint_in_the_address_fills_the_form_and_asks_for_its_credentials(app_env):
    at = fresh(endpoint="https://sparql.example.org/sparql", graph="urn:graph:retrieval")
    assert at.sidebar.segmented_control(key="te_source_kind").value == "SPARQL endpoint"
    assert at.sidebar.text_input(key="te_endpoint_url").value == "https://sparql.example.org/sparql"
    assert at.sidebar.text_input(key="te_endpoint_graphs").value == "urn:graph:retrieval"
    assert [unescape(i.value) for i in at.sidebar.info] == [
        "To reopen SPARQL endpoint https://sparql.example.org/sparql, enter its user and password (or token) in "
        "the sidebar if it needs them, and press Connect. Credentials are never kept in the address."]
    assert table_ids(at) == []


def test_a_configured_endpoints_password_is_never_in_the_page_or_the_address(app_env, monkeypatch):
    monkeypatch.setenv("ARCHIVE_PASSWORD", "pw-secret-77a0")
    (app_env / "sources.toml").write_text('[[sparql]]\nname = "Archive"\nurl = "http://sparql.invalid/sparql"\n'
                                          'user = "reader"\npassword_env = "ARCHIVE_PASSWORD"\ntimeout_s = 3\n')
    at = fresh(endpoint="http://sparql.invalid/sparql")
    assert at.sidebar.selectbox(key="te_endpoint_choice").value == "Archive"
    assert not [t for t in at.sidebar.text_input if t.key in ("te_endpoint_secret", "te_endpoint_user")]
    errors = [unescape(e.value) for e in at.sidebar.error]
    assert len(errors) == 1 and "sparql.invalid" in errors[0]  # tried (the policy let it through), and failed
    assert "non-public" not in errors[0] and "allowlist" not in errors[0]
    assert "pw-secret-77a0" not in everything_shown(at) and "pw-secret-77a0" not in str(dict(at.query_params))


def test_a_gateway_picked_by_name_brings_its_own_flow_collection_and_timeout(app_env, monkeypatch, corpus_gateway):
    monkeypatch.setenv("LAPTOP_TOKEN", TOKEN)
    (app_env / "sources.toml").write_text(
        f'[[trustgraph]]\nname = "Elsewhere"\nurl = "{corpus_gateway.url}"\ntoken_env = "LAPTOP_TOKEN"\n'
        f'flow = "no-such-flow"\ncollection = "no-such-collection"\ntimeout_s = 7\n'
        f'[[trustgraph]]\nname = "Laptop"\nurl = "{corpus_gateway.url}"\ntoken_env = "LAPTOP_TOKEN"\n'
        f'flow = "{FLOW}"\ncollection = "{COLLECTION}"\n')
    at = fresh()
    at.sidebar.segmented_control(key="te_source_kind").set_value("TrustGraph").run()
    assert at.sidebar.selectbox(key="te_tg_choice").value == "Elsewhere"
    # set in the file, so pinned: shown, not asked for
    assert "flow no-such-flow, collection no-such-collection · set by the operator" in [unescape(c.value) for c in at.sidebar.caption]
    assert not [w for w in at.sidebar.text_input if w.key in ("te_tg_flow", "te_tg_collection")]
    assert at.sidebar.number_input(key="te_tg_timeout_Elsewhere").value == 7.0
    assert table_ids(at) == []
    at.sidebar.selectbox(key="te_tg_choice").set_value("Laptop").run()
    assert not at.exception, at.exception
    assert f"flow {FLOW}, collection {COLLECTION} · set by the operator" in [unescape(c.value) for c in at.sidebar.caption]
    assert sorted(table_ids(at)) == sorted(TOP)
    assert (param(at, "flow"), param(at, "collection")) == (FLOW, COLLECTION)


def test_credentials_in_a_links_gateway_url_are_left_out_and_never_shown(app_env):
    at = fresh(trustgraph="http://reader:S3CRET-in-link@127.0.0.1:9/")
    assert "S3CRET-in-link" not in everything_shown(at) and "S3CRET-in-link" not in str(dict(at.query_params))
    assert param(at, "trustgraph") == "http://127.0.0.1:9/"
    assert at.sidebar.text_input(key="te_tg_url").value == "http://127.0.0.1:9/"
    assert [w.value for w in at.sidebar.warning] == [
        "The address named the gateway with a user or password in its URL: they were left out. "
        "Enter the gateway's token in the Token field."]
