"""The evidence panel and the documents page on a TrustGraph source in headless Chromium: connect
to the stand-in deployment serving ``evidence.trig`` and its texts, open the agent session from
the list, see its sub-session's edges with the chunks' words (from the librarian) marked, follow
the document link to the documents page and see the three sessions that used the document."""

from __future__ import annotations

import urllib.parse

import pytest
from playwright.sync_api import expect

from tests.browser_support import chromium_page, screenshot, streamlit_server, wait_for_streamlit_idle
from tests.evidence_traces import AGENT, EVIDENCE, EVIDENCE_TEXTS
from tests.test_browser_evidence import follow_to_the_trappist_documents
from tests.test_browser_trustgraph import choose_trustgraph, connect, open_from_the_list
from tests.trustgraph_server import TOKEN, FakeGateway, corpus_deployment

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def evidence_gateway():
    server = FakeGateway(*corpus_deployment([EVIDENCE, EVIDENCE_TEXTS]))
    server.start()
    yield server
    server.stop()


def test_evidence_and_documents_from_a_trustgraph_gateway(evidence_gateway):
    env = {"TRACE_EXPLORER_ENDPOINT_ALLOW": "127.0.0.1"}
    with streamlit_server(env=env) as url, chromium_page(viewport=(1400, 1100)) as page:
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(url)
        wait_for_streamlit_idle(page)
        choose_trustgraph(page)
        connect(page, evidence_gateway.url, TOKEN)
        open_from_the_list(page, "4ecadea2")
        texts = page.locator(".te-chunk-text")
        texts.first.wait_for(timeout=60000)
        wait_for_streamlit_idle(page)
        assert urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["session"] == [AGENT]
        expect(texts).to_have_count(2)  # the panel may be drawn again once more as the page settles
        assert page.locator(".te-chunk-text mark").all_inner_texts() == [
            "http://trustgraph.ai/e/westmalle-abbey", "westmalle-abbey", "order", "Trappists",
            "http://trustgraph.ai/e/orval-abbey", "orval-abbey", "located-in", "Florenville"]
        assert texts.first.inner_text() == ("Trappist breweries of Belgium, part 1: westmalle brewed-by "
                                            "http://trustgraph.ai/e/westmalle-abbey. westmalle-abbey order Trappists.")
        main = page.locator('[data-testid="stMain"]')
        assert "from TrustGraph" in page.locator('[data-testid="stSidebar"]').inner_text()
        assert "not a SPARQL endpoint" not in main.inner_text()
        texts.first.scroll_into_view_if_needed()
        screenshot(page, "trustgraph-evidence-agent")
        follow_to_the_trappist_documents(page)
        assert "2 documents in the extraction provenance of TrustGraph" in main.inner_text().replace("\u2060", "")
        screenshot(page, "trustgraph-documents-trappist")
        assert dialogs == []
