"""The evidence panel and the documents page on a TrustGraph source (the stand-in deployment of
``tests/trustgraph_server.py`` serving ``evidence.trig`` and its texts, with the flow's SPARQL
service and without it), run headless with AppTest: each shows what the demo shows from files,
element for element (edges, documents and their links, pages, chunks, extractions, the
chunks' marked words, the sessions that used a document)."""

from __future__ import annotations

import urllib.parse

import pytest

from tests.evidence_traces import AGENT, BRONZE, EVIDENCE, EVIDENCE_TEXTS, GRAPHRAG_BRONZE, SUB_GRAPHRAG, TRAPPIST
from tests.test_app import open_session, unescape, walk
from tests.test_app_evidence import documents_table, open_documents
from tests.test_app_trustgraph import app_env, connect  # noqa: F401 - a fixture
from components.sidebar.trustgraph_form import PARAMS as GATEWAY_PARAMS  # what names the gateway in an address
from tests.trustgraph_server import FakeGateway, corpus_deployment

GRAPHRAG_TRAPPIST = "urn:trustgraph:question:83a4e629-3080-4889-ba61-97748d118e37"


@pytest.fixture(scope="module", params=("sparql", "patterns"))
def evidence_gateway(request):
    server = FakeGateway(*corpus_deployment([EVIDENCE, EVIDENCE_TEXTS]), sparql=request.param == "sparql")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def connected(app_env, monkeypatch, evidence_gateway):  # noqa: F811 - the fixture imported above
    monkeypatch.setenv("TRACE_EXPLORER_ENDPOINT_ALLOW", "127.0.0.1")
    return connect(evidence_gateway)




def own_query(query: str) -> str:
    """A page link's query without the parameters that name the source (the gateway's)."""
    return urllib.parse.urlencode([(k, v) for k, v in urllib.parse.parse_qsl(query) if k not in GATEWAY_PARAMS])


def shown(at, first: str, last: str | None, links: list | None = None) -> list[tuple]:
    """What the page shows from the markdown holding ``first`` to the markdown or caption
    holding ``last``, as
    ``(kind, text)``: markdown and captions by their words, page links by label, target and
    their own parameters (each link's whole query is added to ``links``), HTML by its body,
    expanders by their label."""
    items, on = [], False
    for element in walk(at.main):
        kind = getattr(element, "type", None)
        if kind == "markdown" and first in element.value:
            on = True
        elif kind in ("markdown", "caption") and on and last and last in element.value:
            break
        if not on:
            continue
        if kind in ("markdown", "caption"):
            items.append((kind, unescape(element.value)))
        elif kind == "page_link":
            items.append((kind, unescape(element.proto.label), element.proto.page, own_query(element.proto.query_string)))
            if links is not None:
                links.append(element.proto.query_string)
        elif kind == "html":
            items.append((kind, element.proto.body))
        elif kind == "expander":
            items.append((kind, unescape(element.label)))
    return items


def evidence_panel(at, links: list | None = None) -> list[tuple]:
    return shown(at, "plagiarism: Evidence", "Provenance graph", links)


def assert_links_name_the_gateway(links: list[str], gateway) -> None:
    """Each link of a page of the gateway names the gateway too: opened in a new tab (a new
    browser session, which knows the source by its address alone), it shows the same source."""
    assert links
    for query in links:
        params = dict(urllib.parse.parse_qsl(query))
        assert params["trustgraph"] == gateway.url and params["flow"] == "explain-flow", query
        assert params["collection"] == "research", query


def on_gateway(at, page: str, **params):
    at.switch_page(page)
    at.query_params.clear()
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("session", [GRAPHRAG_BRONZE, GRAPHRAG_TRAPPIST, AGENT], ids=lambda s: s[-8:])
def test_the_evidence_panel_shows_what_files_show(connected, evidence_gateway, session):
    from_files = evidence_panel(open_session(session))
    at = on_gateway(connected, "app_pages/session.py", session=session)
    links = []
    panel = evidence_panel(at, links)
    assert panel == from_files
    assert_links_name_the_gateway(links, evidence_gateway)
    assert panel[0] == ("markdown", "##### :material/plagiarism: Evidence")
    markdown = [item[1] for item in panel if item[0] == "markdown"]
    captions = [item[1] for item in panel if item[0] == "caption"]
    if session == GRAPHRAG_BRONZE:
        assert [m for m in markdown if m.startswith("Edge ")] == [
            "Edge 1: sea-peoples → raided → ugarit", "Edge 2: drought → struck → eastern-mediterranean",
            "Edge 3: tin → traded-via → cyprus"]
        assert "3 edges chosen (2 held by a loaded extraction) · 0 chunks · 1 document" in captions
        assert ":material/link_off: No loaded extraction holds this edge." in captions
        assert sum(1 for item in panel if item[0] == "html" and "te-chunk-text" in item[1]) == 2
    if session == GRAPHRAG_TRAPPIST:
        documents = [item[3] for item in panel if item[0] == "page_link"]
        assert documents == [urllib.parse.urlencode({"document": TRAPPIST})] * 3
    if session == AGENT:
        assert ("expander", "GraphRAG sub-session from step i1: Which Belgian beers are brewed by Trappist monks? "
                            "(2 chosen)") in panel
        links = [urllib.parse.parse_qs(item[3]) for item in panel if item[0] == "page_link"]
        assert {"session": [SUB_GRAPHRAG]} in links and {"document": [TRAPPIST]} in links


def test_the_documents_page_lists_the_deployments_documents_with_their_sessions(connected):
    at = on_gateway(connected, "app_pages/documents.py")
    frame = documents_table(at).value
    assert list(frame["Title"]) == ["The Late Bronze Age collapse", "Trappist breweries of Belgium"]
    assert list(frame["Sessions"]) == [1, 3]
    assert list(frame["MIME type"]) == ["application/pdf"] * 2
    assert list(frame["Document IRI"]) == [BRONZE, TRAPPIST]


@pytest.mark.parametrize("document", [TRAPPIST, BRONZE], ids=("trappist", "bronze"))
def test_a_documents_sessions_are_what_files_show(connected, evidence_gateway, document):
    from_files = shown(open_documents(document), "#### ", "documents in")
    at = on_gateway(connected, "app_pages/documents.py", document=document)
    links = []
    page = shown(at, "#### ", "documents in", links)
    assert page == from_files
    assert_links_name_the_gateway(links, evidence_gateway)
    assert page[0] == ("markdown", "#### " + ("Trappist breweries of Belgium" if document == TRAPPIST
                                             else "The Late Bronze Age collapse"))
    sessions = [urllib.parse.parse_qs(item[3])["session"][0] for item in page
                if item[0] == "page_link" and item[2] == "session"]
    assert sessions == ([SUB_GRAPHRAG, AGENT, GRAPHRAG_TRAPPIST] if document == TRAPPIST else [GRAPHRAG_BRONZE])
