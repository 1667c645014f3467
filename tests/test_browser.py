"""The app in a real browser (headless Debian Chromium through Playwright's driver): the list,
a click on a row, the DAG and the timeline components, a click on a timeline row, and hostile text in
the DAG's hover tooltip. Screenshots go to tests/artifacts/ (gitignored)."""

from __future__ import annotations

import urllib.parse

import pytest
from playwright.sync_api import expect

from tests.browser_session_support import (
    DAG,
    INSPECTOR,
    TIMELINE,
    dag,
    hover_node,
    selected,
    session_url,
    shown_rows,
    wait_drawn,
    wait_step,
)
from tests.browser_support import chromium_page, open_source_panel, screenshot, wait_for_streamlit_idle
from tests.list_support import LIST_ROW, open_row
from trace_explorer.views.dag.network import dag_html

pytestmark = pytest.mark.browser  # fails (never skips) without Chromium: see tests/conftest.py

from tests.conftest import demo_sessions  # noqa: E402

TOP = [s for s in demo_sessions() if s["parent"] is None]
REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
GRAPHRAG = "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"
HOSTILE = "<img src=x onerror=alert(1)><script>alert(2)</script>"


def test_list_row_opens_the_session_with_dag_and_timeline(app_url, sessions):
    with chromium_page(viewport=(1440, 1300)) as page:
        page.goto(app_url + "/")
        wait_for_streamlit_idle(page)
        page.locator(LIST_ROW).first.wait_for()
        page.wait_for_timeout(500)
        screenshot(page, "list")
        # narrow the list to one row with the search box (it matches IRIs too), then click it
        search = page.get_by_placeholder("any words, or answer:, tool:, error:, question:")
        search.fill("62c33a4f")
        search.press("Enter")
        wait_for_streamlit_idle(page)
        page.get_by_text(f"1–1 of 1 matching · {len(TOP)} top-level sessions").wait_for()
        open_row(page)
        page.wait_for_url("**/session?session=*", timeout=30000)
        wait_for_streamlit_idle(page)
        assert urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["session"] == [REACT_12]

        wait_drawn(page)
        session = sessions[REACT_12]
        drawn = dag(page, "v => v.nodes.getIds()")
        assert set(drawn) == set(session.graph.nodes)
        assert dag(page, "v => v.edges.length") == session.graph.number_of_edges()
        assert page.locator(DAG).get_attribute("data-node-count") == str(len(drawn))
        assert page.locator(TIMELINE).get_attribute("data-rows-shown") == str(len(session.steps))  # a row per step
        rows = shown_rows(page)
        assert rows == [s.id for s in session.steps][:len(rows)] and len(rows) >= 16
        page.wait_for_timeout(500)
        screenshot(page, "session-after-row-click")


def test_timeline_click_selects_the_step_everywhere(app_url):
    focus = GRAPHRAG.replace("question:", "prov:focus:")
    with chromium_page(viewport=(1440, 1300)) as page:
        page.goto(session_url(app_url, GRAPHRAG))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        page.locator(f'{TIMELINE} .te-wf-row[data-step="{focus}"] .te-wf-label').click()
        assert selected(page) == focus
        wait_step(page, focus)
        assert page.locator(f"{INSPECTOR} .te-ins-n").inner_text() == "3 / 4"
        expect(page.locator(f"{INSPECTOR} .te-ins-caption").filter(has_text="Selected edges (4)")).to_be_visible()
        assert dag(page, "v => v.network.getSelectedNodes()") == [focus]
        assert page.locator(DAG).get_attribute("data-selected") == focus
        screenshot(page, "graphrag-focus-picked-on-timeline")


def node_position(frame, node_id: str) -> tuple[float, float]:
    """Where a node is drawn, in page coordinates of the frame's document."""
    point = frame.evaluate(
        "(id) => { const p = network.canvasToDOM(network.getPositions([id])[id]);"
        " const box = network.body.container.getBoundingClientRect();"
        " return {x: box.left + p.x, y: box.top + p.y}; }", node_id)
    return point["x"], point["y"]


def test_hostile_trace_text_shows_as_text_in_the_dag_tooltip(sessions, tmp_path):
    import copy
    session = copy.deepcopy(sessions[REACT_12])
    session.question = HOSTILE
    session.nodes[REACT_12].fields["query"] = HOSTILE
    step = session.nodes[REACT_12 + "/i1"]
    step.fields["thought"] = HOSTILE + ' <a href="javascript:alert(3)">x</a>'
    page_file = tmp_path / "hostile-dag.html"
    page_file.write_text(dag_html(session, selected=step.id, height_px=600), encoding="utf-8")
    with chromium_page(viewport=(1200, 700)) as page:
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(page_file.as_uri())
        page.wait_for_selector("#mynetwork canvas")
        frame = page.main_frame
        frame.evaluate("() => network.fit()")
        page.wait_for_timeout(200)
        for node, expected in ((step.id, "thought: " + HOSTILE), (REACT_12, "question: " + HOSTILE)):
            x, y = node_position(frame, node)
            page.mouse.move(x - 30, y - 30)
            page.mouse.move(x, y, steps=4)
            tooltip = page.locator("div.vis-tooltip")
            tooltip.wait_for(state="visible", timeout=5000)
            text = tooltip.inner_text()
            assert expected in text
            # innerText turns each newline into a <br>; nothing else may appear
            assert tooltip.evaluate("e => Array.from(e.querySelectorAll('*')).every(n => n.tagName === 'BR')")
        screenshot(page, "dag-hostile-tooltip")
        assert page.evaluate("() => document.querySelectorAll('img, a[href^=javascript]').length") == 0
        assert dialogs == []


EVIL_TTL = """@prefix tg: <https://trustgraph.ai/ns/> .
@prefix prov: <http://www.w3.org/ns/prov#> .
<urn:trustgraph:agent:evil> a tg:Question, tg:AgentQuestion, prov:Entity ;
  tg:query "<img src=x onerror=alert(1)><script>alert(2)</script> **bold** [link](javascript:alert(3))" ;
  prov:startedAtTime "2026-01-01T00:00:00Z" .
<urn:trustgraph:agent:evil/i1> a tg:Analysis, prov:Entity ; prov:wasDerivedFrom <urn:trustgraph:agent:evil> ;
  tg:action "<img src=x onerror=alert(4)>" ; tg:thought "<script>alert(5)</script>" ;
  tg:observation "<b onmouseover=alert(6)>obs</b>" ; tg:llmDurationMs "1200" ;
  tg:arguments "{\\"q\\": \\"<img src=x onerror=alert(7)>\\"}" .
<urn:trustgraph:agent:evil/final> a tg:Conclusion, tg:Answer, prov:Entity ;
  prov:wasDerivedFrom <urn:trustgraph:agent:evil/i1> ; tg:answer "<svg onload=alert(8)>" .
"""


def test_uploaded_hostile_trace_is_shown_as_text_everywhere(app_url, tmp_path):
    """Upload a trace whose texts are HTML/Markdown payloads; open it; nothing runs or renders."""
    question = "<img src=x onerror=alert(1)><script>alert(2)</script> **bold** [link](javascript:alert(3))"
    evil = tmp_path / "evil.ttl"
    evil.write_text(EVIL_TTL, encoding="utf-8")
    with chromium_page(viewport=(1440, 1400)) as page:
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(app_url + "/")
        wait_for_streamlit_idle(page)
        open_source_panel(page)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(evil))
        wait_for_streamlit_idle(page)
        page.get_by_text("of 1 matching · 1 top-level session in all").wait_for()
        open_row(page)
        page.wait_for_url("**/session?session=*", timeout=30000)
        wait_for_streamlit_idle(page)
        # the question heading shows the payload as text (Markdown escaped, no element created)
        heading = page.locator('[data-testid="stMain"]').get_by_role("heading", level=3).first
        assert heading.inner_text().strip() == question
        assert page.locator('[data-testid="stMain"] img[src="x"], [data-testid="stMain"] svg[onload], '
                            '[data-testid="stMain"] a[href^="javascript"]').count() == 0
        # the inspector (the Analysis, selected first): thought, observation, tool, arguments as text
        wait_drawn(page)
        assert selected(page) == "urn:trustgraph:agent:evil/i1"
        inspector = page.locator(INSPECTOR)
        for text in ("<script>alert(5)</script>", "<b onmouseover=alert(6)>obs</b>", "<img src=x onerror=alert(4)>"):
            assert text in inspector.inner_text(), text
        assert "<img src=x onerror=alert(7)>" in inspector.locator(".te-ins-code").inner_text()
        assert inspector.locator("img, script, b, svg").count() == 0
        # the timeline's row and its tooltip
        row = page.locator(f'{TIMELINE} .te-wf-row[data-step="urn:trustgraph:agent:evil/i1"]')
        assert row.locator(".te-wf-text").inner_text().strip() == "i1 Analysis: <img src=x onerror=alert(4)>"
        row.hover()
        tip = page.locator(f"{TIMELINE} .te-wf-tip")
        tip.wait_for(state="visible", timeout=5000)
        assert "<img src=x onerror=alert(4)>" in tip.inner_text()
        assert tip.locator("img, script, b").count() == 0
        # the DAG's tooltip
        text = hover_node(page, "urn:trustgraph:agent:evil")
        assert text and "question: " + question in text
        assert page.locator(f"{DAG} div.vis-tooltip").evaluate(
            "e => Array.from(e.querySelectorAll('*')).every(n => n.tagName === 'BR')")
        screenshot(page, "hostile-upload")
        assert dialogs == []
        assert page.evaluate("() => document.querySelectorAll('img[src=\"x\"]').length") == 0
