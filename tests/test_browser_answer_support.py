"""Answer support in headless Chromium: a click on a sentence of the answer selects the step
that backs it best, in the URL, the timeline and the DAG, and shows its words marked."""

from __future__ import annotations

import pytest

from tests.browser_session_support import DAG, TIMELINE, session_url, wait_drawn, wait_step
from tests.browser_support import chromium_page, screenshot, wait_for_streamlit_idle

pytestmark = pytest.mark.browser
pytest.importorskip("playwright")

SUPERVISOR = "urn:trustgraph:agent:5ed00065-aae1-42a4-98cb-1f5634d607b4"


def test_a_click_on_a_sentence_selects_its_best_supporting_step(app_url):
    finding = f"{SUPERVISOR}/finding/2"
    with chromium_page(viewport=(1400, 1400)) as page:
        page.goto(session_url(app_url, SUPERVISOR))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        sentence = page.locator(".st-key-te_support_1 button").first
        assert sentence.inner_text().strip().endswith("and Fuji by bus from Tokyo.")
        sentence.click()
        wait_step(page, finding)
        wait_for_streamlit_idle(page)
        page.locator(f'{DAG}[data-selected="{finding}"]').wait_for(timeout=10000)
        assert page.locator(TIMELINE).get_attribute("data-selected") == finding
        shown = page.locator(f'.te-support-text[data-step="{finding}"]')
        assert shown.locator("mark").all_inner_texts()[:3] == ["Baikal", "reached", "Trans"]
        screenshot(page, "answer-support-sentence")
