"""Answer support in headless Chromium: a click on a sentence of the answer selects the step
that backs it best, in the URL, the timeline and the DAG, and shows its words marked."""

from __future__ import annotations

import pytest

from tests.browser_session_support import DAG, TIMELINE, WORKSPACE, selected, session_url, show, wait_drawn, wait_step
from tests.browser_support import chromium_page, screenshot, wait_for_streamlit_idle

pytestmark = pytest.mark.browser

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
        page.locator(f'{WORKSPACE}[data-selected="{finding}"]').wait_for(timeout=10000)
        assert page.locator(TIMELINE).get_attribute("data-selected") == finding
        # the steps backing the sentence are marked: its row in the timeline, its node in the graph
        assert page.locator(f"{TIMELINE} .te-wf-row.te-supporting").evaluate_all(
            "rows => rows.map(r => r.dataset.step)") == [finding]
        show(page, "graph")
        page.locator(f'{DAG}[data-supporting="1"]').wait_for(timeout=10000)
        show(page, "timeline")
        shown = page.locator(f'.te-support-text[data-step="{finding}"]')
        assert shown.locator("mark").all_inner_texts()[:3] == ["Baikal", "reached", "Trans"]
        screenshot(page, "answer-support-sentence")
        # the person moves on in the workspace; the same sentence selects its step again
        page.evaluate("() => document.activeElement && document.activeElement.blur()")  # off the button
        page.keyboard.press("k")
        page.locator(f'{WORKSPACE}[data-selected="{finding[:-1]}1"]').wait_for(timeout=10000)
        moved = selected(page)
        sentence.click()
        page.locator(f'{WORKSPACE}[data-selected="{finding}"]').wait_for(timeout=20000)
        assert moved != finding and selected(page) == finding
