"""The app's TrustGraph source in headless Chromium, against the stand-in deployment: connect
with the sidebar form, see the deployment's sessions listed, open the 26-step ReAct session and
read a Thought the librarian gives when its step is picked; a wrong token is an error in the
sidebar that never shows the token."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser_session_support import INSPECTOR, wait_drawn
from tests.browser_support import (
    chromium_page,
    open_source_panel,
    screenshot,
    streamlit_server,
    wait_for_streamlit_idle,
)
from tests.conftest import manifest_sessions
from tests.list_support import open_row
from tests.trustgraph_server import COLLECTION, FLOW, TOKEN, corpus_gateway  # noqa: F401 - a fixture

pytestmark = pytest.mark.browser
TOP = [s for s in manifest_sessions() if s["parent"] is None]
REACT = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"


def choose_trustgraph(page) -> None:
    page.mouse.move(1, 1)
    open_source_panel(page)
    page.locator(".st-key-te_source_kind").get_by_text("TrustGraph", exact=True).click()
    wait_for_streamlit_idle(page)


def connect(page, url: str, token: str) -> None:
    for key, value in (("te_tg_url", url), ("te_tg_token", token), ("te_tg_flow", FLOW), ("te_tg_collection", COLLECTION)):
        field = page.locator(f".st-key-{key} input")
        field.fill(value)
        field.press("Enter")
        wait_for_streamlit_idle(page)
    page.locator(".st-key-te_tg_connect button").click()
    wait_for_streamlit_idle(page, timeout_ms=60000)


def open_from_the_list(page, words: str) -> None:
    """Search the session list for ``words`` and open the first row's session."""
    search = page.get_by_placeholder("any words, or answer:, tool:, error:, question:")
    search.fill(words)
    search.press("Enter")
    wait_for_streamlit_idle(page)
    open_row(page, 0)
    page.wait_for_url("**/session?session=*", timeout=30000)


def test_trustgraph_source_in_the_browser(corpus_gateway):
    # no allowlist: the app is served on 127.0.0.1 alone, so the gateway beside it is open from the form
    with streamlit_server(env={"TRACE_EXPLORER_ENDPOINT_ALLOW": ""}) as url, chromium_page() as page:
        page.goto(url)
        wait_for_streamlit_idle(page)
        choose_trustgraph(page)
        connect(page, corpus_gateway.url, "wrong-token-0c41")
        error = page.locator('[data-testid="stSidebar"] [data-testid="stAlert"]').first
        assert "refused the token (HTTP 401)" in error.inner_text()
        assert "wrong-token-0c41" not in page.locator("body").inner_text()
        screenshot(page, "trustgraph-wrong-token")

        # as a person fills it: the URL typed, Tab, the token typed, Tab, then a click on Connect
        # (a label's help icon once took the first Tab, and the token went nowhere: HTTP 401)
        page.locator(".st-key-te_tg_url input").click()
        page.keyboard.press("Control+a")
        page.keyboard.type(corpus_gateway.url)
        page.keyboard.press("Tab")  # Tab into a filled field selects its text: typing replaces it
        page.keyboard.type(TOKEN)
        page.keyboard.press("Tab")
        page.locator(".st-key-te_tg_connect button").click()
        wait_for_streamlit_idle(page, timeout_ms=60000)
        assert corpus_gateway.log[-1][2] == f"Bearer {TOKEN}"
        body = page.locator("body").inner_text()
        assert page.locator('[data-testid="stSidebar"] [data-testid="stAlert"]').count() == 0
        assert f"{len(TOP)} top-level sessions · from TrustGraph {corpus_gateway.url}" in body.replace("\u2060", "")
        assert TOKEN not in body
        screenshot(page, "trustgraph-session-list")

        # open it from the list, in this browser session (a new page load would start a new one)
        open_from_the_list(page, "62c33a4f")
        wait_for_streamlit_idle(page, timeout_ms=60000)
        assert "from TrustGraph" in page.locator('[data-testid="stSidebar"]').inner_text()
        expect(page.get_by_text("¿Cuál es la montaña más alta de Europa?").first).to_be_visible()
        wait_drawn(page)
        page.locator('[data-testid="stMain"] h3').first.click()
        page.keyboard.press("j")  # the first Analysis: its texts come from the librarian, asked for by the page
        page.locator(f"{INSPECTOR} .te-ins-loading").wait_for(state="detached", timeout=30000)
        page.locator(f"{INSPECTOR} .te-ins-caption").filter(has_text="Thought").wait_for(timeout=30000)
        inspector = page.locator(INSPECTOR).inner_text()
        assert "Thought" in inspector and "Thought text not loaded" not in inspector
        assert "Step 1: I should use calculator to learn about Elbrus." in inspector  # the librarian's words
        assert any(path.endswith("/librarian") for path, _, _ in corpus_gateway.log)
        screenshot(page, "trustgraph-session-thought-from-librarian")
