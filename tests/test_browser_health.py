"""Trace health and insights in a real browser (headless Debian Chromium): the list's Health
filter, the session page's Health panel whose links select the step, hostile text in a problem's
message shown as text, and the Insights page: charts drawn, a click on a bar filtering the list,
PNG and CSV downloads. Screenshots go to tests/artifacts/ (gitignored)."""

from __future__ import annotations

import json
import urllib.parse

import pytest
from playwright.sync_api import expect

from tests.browser_session_support import INSPECTOR, WORKSPACE, wait_drawn, workspace
from tests.browser_support import chromium_page, open_source_panel, screenshot, wait_for_streamlit_idle
from tests.conftest import demo_sessions
from tests.health_traces import BROKEN_ID, HEALTHY, documents, healthy
from tests.list_support import LIST_ROW, expect_rows, open_row, row_ids

pytestmark = pytest.mark.browser  # fails, never skips, when Chromium is missing

HOSTILE_ARGS = '<img src=x onerror="window.__pwned=1">{not json'
TOP = [s for s in demo_sessions() if s["parent"] is None]
SESSIONS = demo_sessions()  # every sub-session of the demo sits under a top-level one


def upload_broken(page, tmp_path) -> None:
    """Upload a healthy agent session and one whose tg:arguments is hostile text and no JSON."""
    trace = tmp_path / "health.trig"
    trace.write_text(healthy(HEALTHY) + healthy(BROKEN_ID, arguments=HOSTILE_ARGS).split("\n", 3)[3], encoding="utf-8")
    texts = tmp_path / "health.documents.json"
    texts.write_text(json.dumps({**documents(HEALTHY), **documents(BROKEN_ID)}), encoding="utf-8")
    open_source_panel(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files([str(trace), str(texts)])
    wait_for_streamlit_idle(page)
    page.get_by_text("of 2 matching · 2 top-level sessions").wait_for()


def choose_health(page, label: str) -> None:
    page.get_by_role("combobox", name="Health").click()
    page.get_by_role("option", name=label, exact=True).click()
    wait_for_streamlit_idle(page)


def test_health_filter_and_panel_links_select_the_step(app_url, tmp_path):
    with chromium_page(viewport=(1440, 1500)) as page:
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(app_url + "/")
        wait_for_streamlit_idle(page)
        upload_broken(page, tmp_path)
        screenshot(page, "health-list")
        choose_health(page, "warnings")
        page.get_by_text("1–1 of 1 matching").wait_for()
        choose_health(page, "clean")
        page.get_by_text("1–1 of 1 matching").wait_for()
        choose_health(page, "warnings")
        page.get_by_text("1–1 of 1 matching").wait_for()
        open_row(page, 0)
        page.wait_for_url("**/session?session=*", timeout=30000)
        wait_for_streamlit_idle(page)
        assert urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["session"] == [BROKEN_ID]

        panel = page.locator('[data-testid="stExpander"]').filter(has_text="Health: 1 warning")
        panel.wait_for()
        panel.locator("summary").click()  # the panel opens on request
        wait_drawn(page)
        assert workspace(page, "w => w.selected") == 0  # the first step until the link is followed
        link = panel.get_by_role("link", name="arguments-not-json")
        assert HOSTILE_ARGS[:40] in link.inner_text()  # the message quotes the text, as text
        assert page.locator('[data-testid="stMain"] img[src="x"]').count() == 0
        screenshot(page, "health-panel")
        link.click()
        wait_for_streamlit_idle(page)
        page.wait_for_function(f"() => decodeURIComponent(location.search).includes('step={BROKEN_ID}/i1')",
                               timeout=20000)
        page.locator(f'{WORKSPACE}[data-selected="{BROKEN_ID}/i1"]').wait_for(timeout=20000)
        assert page.locator(f"{INSPECTOR} .te-ins-title").inner_text() == "i1 Analysis: calculator"
        assert page.evaluate("() => window.__pwned") is None and dialogs == []
        screenshot(page, "health-link-followed")


def test_every_health_choice_filters_and_its_address_reads_back(app_url):
    """Each Health choice (a severity, "infos", a rule's id) filters the list with no error, and
    the URL it writes (the widget writes its option there) opens the same list in a new
    browser session."""
    from tests.answer_support_truth import UNSUPPORTED

    infos = {s["session"] for s in TOP if not s["has_answer"] or s.get("parse_errors") or s["session"] in UNSUPPORTED}
    unfinished = {s["session"] for s in TOP if not s["has_answer"]}
    for choice, expected in (("infos", infos), ("unfinished", unfinished)):
        with chromium_page(viewport=(1440, 1200)) as page:
            page.goto(app_url + "/")
            wait_for_streamlit_idle(page)
            choose_health(page, choice)
            page.wait_for_function(f"() => location.search.includes('health={choice}')", timeout=30000)
            wait_for_streamlit_idle(page)
            assert page.locator('[data-testid="stException"]').count() == 0, choice
            expect_rows(page, expected, set)
            address = page.url
        with chromium_page(viewport=(1440, 1200)) as other:
            other.goto(address)
            wait_for_streamlit_idle(other)
            other.get_by_text(f"of {len(expected)} matching").wait_for()
            assert set(row_ids(other)) == expected and other.get_by_test_id("stAlertContentWarning").count() == 0


def test_insights_charts_filter_the_list_and_download(app_url):
    with chromium_page(viewport=(1440, 1800)) as page:
        page.goto(app_url + "/insights")
        wait_for_streamlit_idle(page)
        charts = page.locator('[data-testid="stVegaLiteChart"]')
        charts.nth(5).wait_for()
        assert charts.count() == 6
        # a chart still loading says so: Streamlit's grey skeleton in a chart's place carries words
        said = page.evaluate(
            "() => { const box = document.createElement('div'); box.className = 'stPrintGraphic';"
            " const skeleton = document.createElement('div'); skeleton.setAttribute('data-testid', 'stSkeleton');"
            " box.appendChild(skeleton); document.querySelector('[data-testid=\"stMain\"]').appendChild(box);"
            " const words = getComputedStyle(skeleton, '::after').content; box.remove(); return words; }")
        assert said == '"Drawing the chart…"'
        # once the charts are drawn no grey box is left to fill in later
        page.wait_for_function("() => !document.querySelector('[data-testid=\"stSkeleton\"]')", timeout=10000)
        metric = page.locator('[data-testid="stMain"] [data-testid="stMetric"]').filter(has_text="Sessions")
        assert metric.locator('[data-testid="stMetricValue"]').inner_text() == str(len(TOP))
        assert page.locator('[data-testid="stException"]').count() == 0
        page.wait_for_timeout(500)
        screenshot(page, "insights")

        with page.expect_download() as png:
            page.get_by_test_id("stDownloadButton").filter(has_text="PNG").first.locator("button").click()
        assert open(png.value.path(), "rb").read(8) == b"\x89PNG\r\n\x1a\n"
        with page.expect_download() as csv:
            page.get_by_test_id("stDownloadButton").filter(has_text="CSV").nth(1).locator("button").click()
        text = open(csv.value.path(), encoding="utf-8").read()
        assert text.splitlines()[0] == "tool,calls,errors,error_rate,p50_ms,p95_ms"
        # the top-level sessions' calls and their sub-sessions' (docs/reading-traces.md, "Totals"): all calls
        calls = {}
        for s in SESSIONS:
            for action in s.get("actions") or []:
                calls[action] = calls.get(action, 0) + 1
        assert {line.split(",")[0]: int(line.split(",")[1]) for line in text.splitlines()[1:]} == calls

        bar = charts.nth(5).locator('g.mark-rect path[aria-label*="max-iterations"]')
        box = bar.bounding_box()  # a click where the bar is drawn (the chart's SVG takes the events)
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_url(lambda url: "/insights" not in url, timeout=30000)
        wait_for_streamlit_idle(page)
        page.get_by_text(f"1–1 of 1 matching · {len(TOP)} top-level sessions").wait_for()
        chip = page.get_by_role("button", name="Termination: max-iterations")
        chip.wait_for(timeout=30000)  # drawn by the rerun that follows the list's first
        expect(chip).to_be_visible()
        screenshot(page, "insights-click-filters-list")
        chip.click()
        wait_for_streamlit_idle(page)
        page.get_by_text(f"1–{len(TOP)} of {len(TOP)} matching").wait_for()


def test_a_click_on_the_failed_part_of_a_tool_bar_lists_the_sessions_where_it_failed(app_url):
    failed = [s["session"] for s in TOP if s.get("tool_errors") and "mcp:weather" in (s.get("actions") or [])]
    used = [s for s in TOP if "mcp:weather" in (s.get("actions") or [])]
    assert len(failed) == 1 and len(used) > 1
    with chromium_page(viewport=(1440, 1800)) as page:
        page.goto(app_url + "/insights")
        wait_for_streamlit_idle(page)
        chart = page.locator('[data-testid="stVegaLiteChart"]').nth(1)
        red = chart.locator('g.mark-rect').nth(1).locator('path[aria-label*="mcp:weather"]')
        red.wait_for()
        box = red.bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_url(lambda url: "/insights" not in url, timeout=30000)
        wait_for_streamlit_idle(page)
        assert urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query) == {"failed_tool": ["mcp:weather"]}
        page.get_by_role("button", name="Failed tool: mcp:weather").wait_for()
        expect_rows(page, failed)


def test_insights_opened_from_the_sidebar_names_the_lists_filters_in_its_address(app_url):
    """The list filtered, then Insights from the sidebar: its address names the filters, so
    the address opened in a new browser session counts the same sessions, and "Change the
    filters" comes back to them."""
    unfinished = {s["session"] for s in TOP if s["mechanism"] == "agent" and not s["has_answer"]}
    with chromium_page(viewport=(1440, 1400)) as page:
        page.goto(app_url + "/?type=Agent&status=unfinished")
        wait_for_streamlit_idle(page)
        expect_rows(page, unfinished, set)
        page.get_by_test_id("stSidebarNav").get_by_role("link", name="Insights").click()
        page.wait_for_url("**/insights*", timeout=30000)
        page.wait_for_function("() => location.search.includes('status=unfinished')", timeout=30000)
        wait_for_streamlit_idle(page)
        address = page.url
        assert urllib.parse.parse_qs(urllib.parse.urlparse(address).query) == {"type": ["Agent"],
                                                                                "status": ["unfinished"]}
        assert page.locator('[data-testid="stException"]').count() == 0
    with chromium_page(viewport=(1440, 1400)) as other:
        other.goto(address)
        wait_for_streamlit_idle(other)
        sessions = other.get_by_test_id("stMain").get_by_test_id("stMetric").filter(has_text="Sessions").first
        sessions.wait_for()
        assert sessions.get_by_test_id("stMetricValue").inner_text() == str(len(unfinished))
        other.get_by_role("link", name="Change the filters").click()
        other.wait_for_url("**/?*status=unfinished*", timeout=30000)
        wait_for_streamlit_idle(other)
        other.locator(LIST_ROW).first.wait_for()
        expect_rows(other, unfinished, set)
