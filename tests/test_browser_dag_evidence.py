"""The session graph's evidence branch in a real browser (headless Debian Chromium through
Playwright's driver): the Evidence toggle hangs each chosen edge's chunk, page and document on
the graph (as the corpus manifest gives them), turning it off takes them away, and a click on a
document opens the documents page at it."""

from __future__ import annotations

import urllib.parse

import pytest

from tests.browser_session_support import click_node, dag, session_url, wait_drawn
from tests.browser_support import chromium_page, screenshot, wait_for_streamlit_idle
from tests.conftest import MANIFEST
from tests.evidence_traces import GRAPHRAG_TRAPPIST, TRAPPIST

pytestmark = pytest.mark.browser

EVIDENCE = {s["session"]: s for s in MANIFEST["evidence.trig"]["sessions"]}


def drawn_ids(page) -> set[str]:
    return set(dag(page, "v => v.network.body.data.nodes.getIds()"))


def test_the_evidence_toggle_hangs_chunks_pages_and_documents_on_the_graph(app_url):
    expected = EVIDENCE[GRAPHRAG_TRAPPIST]["evidence"]
    lineage = {e["chunk"] for e in expected} | {e["page"] for e in expected} | {e["document"] for e in expected}
    with chromium_page(viewport=(1400, 1200)) as page:
        page.goto(session_url(app_url, GRAPHRAG_TRAPPIST))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        before = drawn_ids(page)
        assert not before & lineage  # the branch is folded away at first
        page.get_by_label("Evidence", exact=True).check(force=True)  # the toggle
        for _ in range(100):  # the component redraws once the fragment has rerun
            if lineage <= drawn_ids(page):
                break
            page.wait_for_timeout(300)
        after = drawn_ids(page)
        assert after - before == lineage  # exactly the manifest's chunks, pages and document
        legend = page.locator(".te-legend-item").all_inner_texts()
        assert {"Chunk", "Page", "Document"} <= {item.strip() for item in legend}
        screenshot(page, "dag-evidence-branch")
        # a click on the document opens the documents page at it
        click_node(page, TRAPPIST)
        page.wait_for_url("**/documents?document=*", timeout=30000)
        wait_for_streamlit_idle(page)
        assert urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["document"] == [TRAPPIST]
        assert page.get_by_text("Trappist breweries of Belgium").first.is_visible()
