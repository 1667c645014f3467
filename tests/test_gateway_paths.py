"""A configured gateway's token goes only to paths under its API: flow, collection and workspace
ids are TrustGraph's (``trustgraph/ids.py``) and escaped, a configured entry pins them, and the
adversary's link (``?trustgraph=<configured URL>&flow=..%2F..%2F..%2Fadmin%2Fdelete-everything%23``,
which made the server POST /admin/delete-everything with the operator's token) sends nothing."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import manifest_sessions
from tests.test_app import REPO, table_ids, unescape
from tests.trustgraph_server import COLLECTION, FLOW, TOKEN, corpus_gateway  # noqa: F401 - a fixture
from trace_explorer.sources.configured import load_sources
from trace_explorer.sources.trustgraph.gateway import Gateway, GatewayError, within_api
from trace_explorer.sources.trustgraph.ids import InvalidId, checked_id

TOP = sorted(s["session"] for s in manifest_sessions() if s["parent"] is None)
ATTACK = "../../../admin/delete-everything#"  # the adversary's flow, as the address decodes it
ID_ERROR = ("expected a TrustGraph flow id (letters, digits, '-', '_' and '.', starting with a letter or a digit, "
            "at most 128 characters), got '../../../admin/delete-everything#'")


@pytest.fixture
def configured(monkeypatch, corpus_gateway):
    """The stand-in deployment as the operator's gateway (``TRUSTGRAPH_URL``, ``TRUSTGRAPH_TOKEN``),
    nothing else configured; its log from here on."""
    for name in ("TRACE_EXPLORER_STORE", "TRACE_EXPLORER_ENDPOINT_ALLOW", "TRUSTGRAPH_FLOW", "TRUSTGRAPH_COLLECTION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TRACE_EXPLORER_SOURCES", "")
    monkeypatch.setenv("TRUSTGRAPH_URL", corpus_gateway.url)
    monkeypatch.setenv("TRUSTGRAPH_TOKEN", TOKEN)
    corpus_gateway.log.clear()
    return corpus_gateway


def _linked(**params: str) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, at.exception
    return at


def _every_request_under_the_api(server) -> None:
    assert all(path.startswith("/api/v1/") and ".." not in path and "admin" not in path for path, _, _ in server.log)


def test_the_adversarys_flow_sends_nothing_with_the_configured_token(configured):
    at = _linked(trustgraph=configured.url, flow=ATTACK, collection=COLLECTION)
    assert [unescape(e.value) for e in at.sidebar.error] == [ID_ERROR]
    assert configured.log == [] and table_ids(at) == []


@pytest.mark.parametrize("collection", ["../other", "a/b", "x y", "%2e%2e", ".hidden", "-", "a" * 129, ""])
def test_a_collection_outside_trustgraphs_id_syntax_is_refused_before_a_request(configured, collection):
    with pytest.raises(InvalidId, match="expected a TrustGraph collection id"):
        Gateway(configured.url, TOKEN, flow=FLOW, collection=collection)
    assert configured.log == []


def test_trustgraphs_own_ids_pass():
    assert [checked_id("flow", i) for i in ("default", "my-flow", "explain_flow.2", "A" * 128)] == \
        ["default", "my-flow", "explain_flow.2", "A" * 128]


@pytest.mark.parametrize("path", ["flow/../../admin/service/triples", "flow/a%2F..%2Fadmin/service/triples",
                                  "flow/x/service/triples#", "flow/x/service/triples?x=1", "flow/./service/triples",
                                  "flow//service/triples", "flow/%2e%2e/service/triples"])
def test_no_path_leaves_the_api(path):
    with pytest.raises(GatewayError, match=r"expected a path under the gateway's API \(http://gw.example/tg/api/v1/\)"):
        within_api("http://gw.example/tg/", path)
    assert within_api("http://gw.example/tg/", "flow/my-flow/service/triples") == \
        "http://gw.example/tg/api/v1/flow/my-flow/service/triples"


def test_a_gateway_url_with_a_query_or_fragment_is_refused(configured):
    for url in (configured.url + "?next=", configured.url + "#x", "http://user@127.0.0.1:9/"):
        with pytest.raises(Exception, match="expected a gateway URL of the form"):
            Gateway(url, TOKEN, flow=FLOW, collection=COLLECTION)
    assert configured.log == []


def test_a_pinned_collection_is_the_only_one_the_token_reads(configured, monkeypatch):
    monkeypatch.setenv("TRUSTGRAPH_FLOW", FLOW)
    monkeypatch.setenv("TRUSTGRAPH_COLLECTION", COLLECTION)
    # the adversary's &collection= (and a flow of its own) against the operator's pins
    at = _linked(trustgraph=configured.url, flow="other-flow", collection="someone-elses")
    assert sorted(table_ids(at)) == TOP
    assert {body.get("collection") for path, body, _ in configured.log if "/flow/" in path} == {COLLECTION}
    assert {path.split("/")[4] for path, _, _ in configured.log if "/flow/" in path} == {FLOW}
    _every_request_under_the_api(configured)
    assert (at.query_params["collection"], at.query_params["flow"]) == (COLLECTION, FLOW)
    assert not [w for w in at.sidebar.text_input if w.key in ("te_tg_flow", "te_tg_collection")]  # nothing to change


def test_an_unpinned_collection_may_be_picked_within_the_syntax(configured):
    at = _linked(trustgraph=configured.url, flow=FLOW, collection=COLLECTION)
    assert sorted(table_ids(at)) == TOP
    _every_request_under_the_api(configured)
    assert {body.get("collection") for path, body, _ in configured.log if "/flow/" in path} == {COLLECTION}


def test_a_config_entry_with_an_id_outside_the_syntax_is_left_out(tmp_path):
    path = tmp_path / "sources.toml"
    path.write_text('[[trustgraph]]\nname = "Prod"\nurl = "http://gw.example/"\ncollection = "../all"\n'
                    '[[trustgraph]]\nname = "Team"\nurl = "http://gw.example/"\nflow = "f1"\nworkspace = "w"\n',
                    encoding="utf-8")
    config = load_sources({"TRACE_EXPLORER_SOURCES": str(path)})
    assert [s.name for s in config.sources] == ["Team"]
    team = config.sources[0]
    assert (team.flow, team.collection, team.workspace, team.pinned) == ("f1", "default", "w",
                                                                         frozenset({"flow", "workspace"}))
    assert config.problems == (f"{path}: trustgraph source 'Prod': expected a TrustGraph collection id (letters, "
                               "digits, '-', '_' and '.', starting with a letter or a digit, at most 128 characters), "
                               "got '../all'; the entry is left out",)


def test_the_address_query_is_parsed_as_the_adversary_sent_it():
    # the link's own encoding: what the tests above give the app is what a browser's address holds
    assert parse_qs("flow=..%2F..%2F..%2Fadmin%2Fdelete-everything%23")["flow"] == [ATTACK]


def test_an_environments_gateway_with_a_bad_id_is_left_out_and_named():
    config = load_sources({"TRACE_EXPLORER_SOURCES": "", "TRUSTGRAPH_URL": "http://gw.example/",
                           "TRUSTGRAPH_COLLECTION": "x#y"}, cwd=Path("/nonexistent-config-dir"))
    assert config.sources == () and config.problems == (
        "TRUSTGRAPH_COLLECTION (with TRUSTGRAPH_URL): expected a TrustGraph collection id (letters, digits, '-', '_' "
        "and '.', starting with a letter or a digit, at most 128 characters), got 'x#y'; the entry is left out",)
