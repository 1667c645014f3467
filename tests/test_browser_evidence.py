"""The evidence panel and the documents page in a real browser (headless Debian Chromium through
Playwright's driver): marks where the edge's words occur, the link from an evidence row to the
documents page and on to a session, and hostile chunk text shown as text. Screenshots go to
tests/artifacts/ (gitignored)."""

from __future__ import annotations

import time
import urllib.parse

import pytest

from tests.browser_session_support import session_url
from tests.browser_support import chromium_page, open_source_panel, screenshot, wait_for_streamlit_idle
from tests.evidence_traces import (
    AGENT,
    EVIDENCE,
    GRAPHRAG_TRAPPIST,
    HOSTILE_LABEL,
    HOSTILE_TEXT,
    SUB_GRAPHRAG,
    TRAPPIST,
    hostile_labels,
    hostile_texts,
)
from tests.list_support import open_row, row_ids

pytestmark = pytest.mark.browser
pytest.importorskip("playwright")


def test_agent_evidence_marks_and_the_way_to_the_documents_page(app_url):
    with chromium_page(viewport=(1400, 1100)) as page:
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        started = time.monotonic()
        page.goto(session_url(app_url, AGENT))
        texts = page.locator(".te-chunk-text")
        texts.first.wait_for(timeout=60000)
        print(f"agent session page to its evidence panel: {time.monotonic() - started:.2f} s")
        wait_for_streamlit_idle(page)
        assert texts.count() == 2
        marks = page.locator(".te-chunk-text mark").all_inner_texts()
        assert marks == ["http://trustgraph.ai/e/westmalle-abbey", "westmalle-abbey", "order", "Trappists",
                         "http://trustgraph.ai/e/orval-abbey", "orval-abbey", "located-in", "Florenville"]
        assert texts.first.inner_text() == ("Trappist breweries of Belgium, part 1: westmalle brewed-by "
                                            "http://trustgraph.ai/e/westmalle-abbey. westmalle-abbey order Trappists.")
        # a mark is visibly marked: a background colour of its own
        colour = page.locator(".te-chunk-text mark").first.evaluate("e => getComputedStyle(e).backgroundColor")
        assert colour == "rgb(253, 230, 138)"
        main = page.locator('[data-testid="stMain"]')
        assert main.get_by_text("No loaded extraction holds this edge").count() == 0
        texts.first.scroll_into_view_if_needed()
        screenshot(page, "evidence-agent")
        links = follow_to_the_trappist_documents(page)
        screenshot(page, "documents-trappist")
        # and a session link leads back to a session page
        links.nth(1).click()
        page.wait_for_url("**/session?session=*", timeout=30000)
        wait_for_streamlit_idle(page)
        assert urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["session"] == [AGENT]
        assert dialogs == []


def follow_to_the_trappist_documents(page):
    """Click the agent's roll-up link to its document: the documents page opens on it, with the
    three sessions that used it, newest first. Returns their links."""
    main = page.locator('[data-testid="stMain"]')
    main.get_by_role("link", name="Trappist breweries of Belgium (application/pdf) — 2 edges, 0 chunks").click()
    page.wait_for_url("**/documents?document=*", timeout=30000)
    wait_for_streamlit_idle(page)
    assert urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["document"] == [TRAPPIST]
    main.get_by_text("Used by 3 sessions (directly, or through a sub-session)").wait_for()
    links = main.get_by_role("link", name="Which Belgian beers are brewed by Trappist monks?")
    assert [t.split("\n")[-1] for t in links.all_inner_texts()] == [  # after the icon's name
        f"{kind} · Which Belgian beers are brewed by Trappist monks?" for kind in ("GraphRAG", "Agent", "GraphRAG")]
    return links


def test_an_edge_no_document_holds_says_so(app_url):
    with chromium_page(viewport=(1400, 1100)) as page:
        page.goto(session_url(app_url, "urn:trustgraph:question:6ea330a1-a66d-48b5-91a4-c01ea887ae22"))
        page.locator(".te-chunk-text").first.wait_for(timeout=60000)
        wait_for_streamlit_idle(page)
        note = page.locator('[data-testid="stMain"]').get_by_text("No loaded extraction holds this edge.")
        assert note.count() == 1
        note.scroll_into_view_if_needed()
        screenshot(page, "evidence-graphrag-unheld-edge")


def test_hostile_chunk_text_and_label_are_shown_as_text(app_url, tmp_path):
    """Evidence whose chunk text and edge label are HTML payloads, uploaded without the demo:
    the panel shows them as text, marks the edge's words (the payload label among them) and
    runs nothing."""
    texts, labels = tmp_path / "hostile.documents.json", tmp_path / "labels.ttl"
    texts.write_text(hostile_texts(), encoding="utf-8")
    labels.write_text(hostile_labels(), encoding="utf-8")
    with chromium_page(viewport=(1440, 1300)) as page:
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(app_url + "/")
        wait_for_streamlit_idle(page)
        open_source_panel(page)
        page.get_by_text("Include the demo traces").click()
        wait_for_streamlit_idle(page)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files([str(EVIDENCE), str(texts), str(labels)])
        wait_for_streamlit_idle(page)
        page.get_by_text("of 3 matching · 3 top-level sessions").wait_for()
        open_row(page, row_ids(page).index(GRAPHRAG_TRAPPIST))
        page.wait_for_url("**/session?session=*", timeout=30000)
        wait_for_streamlit_idle(page)
        assert urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["session"] == [GRAPHRAG_TRAPPIST]
        first = page.locator(".te-chunk-text").first
        first.wait_for(timeout=60000)
        assert first.inner_text() == HOSTILE_TEXT
        assert first.locator("mark").all_inner_texts() == ["westmalle", "brewed-by", HOSTILE_LABEL]
        assert first.evaluate("e => Array.from(e.querySelectorAll('*')).every(n => n.tagName === 'MARK')")
        main = page.locator('[data-testid="stMain"]')
        assert main.get_by_text(f"Edge 1: westmalle → brewed-by → {HOSTILE_LABEL}").count() == 1
        assert page.evaluate("() => document.querySelectorAll('img[src=\"x\"], img[src=\"y\"], [onmouseover]').length") == 0
        first.scroll_into_view_if_needed()
        screenshot(page, "evidence-hostile")
        assert dialogs == []
        assert SUB_GRAPHRAG not in page.url
