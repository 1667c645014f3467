"""Answer support in headless Chromium: a click on a sentence of the answer selects the step
that backs it best, in the URL, the timeline and the DAG, and shows its words marked, in the
panel and in the workspace's inspector; a chosen unsupported sentence stays readable."""

from __future__ import annotations

import pytest

from tests.browser_session_support import (DAG, INSPECTOR, TIMELINE, WORKSPACE, selected, session_url, show,
                                           wait_drawn, wait_step)
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
        # the Finding, and the Observation of the sub-agent it repeats (drawn nested in the waterfall)
        assert page.locator(f"{TIMELINE} .te-wf-row.te-supporting").evaluate_all(
            "rows => rows.map(r => r.dataset.step)") == [
                "urn:trustgraph:agent:45971f13-3fa7-4f99-bbdb-8f85c459281e/i1/observation", finding]
        show(page, "graph")
        page.locator(f'{DAG}[data-supporting="2"]').wait_for(timeout=10000)  # both drawn in the graph
        show(page, "timeline")
        shown = page.locator(f'.te-support-text[data-step="{finding}"]')
        assert shown.locator("mark").all_inner_texts()[:3] == ["Baikal", "reached", "Trans"]
        # and in the workspace's inspector of the step: the same words, in its Finding, not its Goal
        inspector = page.locator(f'{INSPECTOR}[data-step="{finding}"][data-support-marks="1"]')
        inspector.wait_for(timeout=10000)
        marks = inspector.locator("mark.te-ins-support").all_inner_texts()
        assert marks == ["Baikal", "reached", "Trans", "Siberian Railway", "Irkutsk", "Fuji", "bus", "Tokyo"]
        inspector.scroll_into_view_if_needed()
        screenshot(page, "answer-support-sentence")
        # the person moves on in the workspace; the same sentence selects its step again
        page.evaluate("() => document.activeElement && document.activeElement.blur()")  # off the button
        page.keyboard.press("k")
        page.locator(f'{WORKSPACE}[data-selected="{finding[:-1]}1"]').wait_for(timeout=10000)
        assert page.locator(f"{INSPECTOR} mark.te-ins-support").count() == 0  # another step: nothing of it
        moved = selected(page)
        sentence.click()
        page.locator(f'{WORKSPACE}[data-selected="{finding}"]').wait_for(timeout=20000)
        assert moved != finding and selected(page) == finding


FDA = "urn:trustgraph:agent:fda01076-05c7-49ae-b2c8-e06e75031b24"  # sentences 2 and 3 unsupported
_CONTRAST = """(node) => {
  const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = (c) => { const v = rgb(c).map((x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; });
                       return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  const words = node.querySelector("p") || node;
  const fg = lum(getComputedStyle(words).color), bg = lum(getComputedStyle(node).backgroundColor);
  return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
}"""


# The app's theme is light (.streamlit/config.toml; its toolbar offers no theme menu): a dark one
# is an operator's, set as Streamlit reads settings from the environment.
DARK = {"STREAMLIT_THEME_BASE": "dark", "STREAMLIT_THEME_BACKGROUND_COLOR": "#0e1117",
        "STREAMLIT_THEME_SECONDARY_BACKGROUND_COLOR": "#262730", "STREAMLIT_THEME_TEXT_COLOR": "#fafafa",
        "STREAMLIT_THEME_BORDER_COLOR": "#3d3f4a", "STREAMLIT_THEME_DATAFRAME_HEADER_BACKGROUND_COLOR": "#262730"}


@pytest.fixture(scope="module")
def dark_url():
    from tests.browser_support import streamlit_server

    with streamlit_server(env=DARK) as url:
        yield url


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_chosen_unsupported_sentence_stays_readable(request, theme):
    """WCAG's contrast ratio of the chosen sentence's words on its button: at least 4.5 (it was
    dark red on the theme's blue); the backing text's panel keeps its own colours."""
    base = request.getfixturevalue("app_url" if theme == "light" else "dark_url")
    with chromium_page(viewport=(1400, 1200)) as page:
        page.goto(session_url(base, FDA))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        page.locator(".st-key-te_support_1 button").first.click()
        wait_for_streamlit_idle(page)
        chosen = page.locator('.st-key-te_support_1 [data-testid="stBaseButton-primary"]').first
        chosen.wait_for(timeout=10000)
        assert chosen.evaluate(_CONTRAST) >= 4.5
        assert chosen.evaluate("b => getComputedStyle(b).backgroundColor") == "rgb(185, 28, 28)"  # red, not blue
        other = page.locator('.st-key-te_support_0 button').first  # an unchosen one keeps its look
        assert other.evaluate("b => getComputedStyle(b).backgroundColor") == "rgba(0, 0, 0, 0)"
        dark = page.locator('[data-testid="stApp"]').evaluate("a => getComputedStyle(a).backgroundColor")
        assert (dark == "rgb(255, 255, 255)") == (theme == "light")
        screenshot(page, f"answer-support-unsupported-{theme}")
        page.locator(".st-key-te_support_0 button").first.click()  # a backed sentence: its step's text
        wait_for_streamlit_idle(page)
        backing = page.locator(".te-support-text").first
        backing.wait_for(timeout=10000)
        assert backing.evaluate(_CONTRAST) >= 4.5



def test_an_edges_matching_words_are_marked_in_its_row_of_the_inspector(app_url):
    """A GraphRAG sentence backed by selected edges: the Focus's inspector shows the edges as a
    table, a label a column; the words are marked in the rows of the edges that back it only."""
    answer = "urn:trustgraph:question:4b265ce1-6dda-4a8d-ae8e-4124f8728de6"
    focus = "urn:trustgraph:prov:focus:4b265ce1-6dda-4a8d-ae8e-4124f8728de6"
    with chromium_page(viewport=(1400, 1400)) as page:
        page.goto(session_url(app_url, answer))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        page.locator(".st-key-te_support_0 button").first.click()
        wait_step(page, focus)
        inspector = page.locator(f'{INSPECTOR}[data-step="{focus}"][data-support-marks="2"]')
        inspector.wait_for(timeout=10000)
        rows = {name: inspector.locator("tr", has_text=name).first.locator("mark.te-ins-support").all_inner_texts()
                for name in ("Mount Fuji", "omul")}
        baikal = inspector.locator("tr", has_text="about 25 million years").first
        assert baikal.locator("td").first.locator("mark").all_inner_texts() == ["Lake", "Baikal"]
        assert rows["Mount Fuji"] == [] and rows["omul"][:3] == ["omul", "endemic", "Lake Baikal"]
        inspector.scroll_into_view_if_needed()
        screenshot(page, "answer-support-edges-inspector")
