"""The compare page in a real browser (headless Debian Chromium through Playwright's driver):
the list's "Compare" action, a ``?compare=A,B`` link, picking on the page itself, the rows side
by side with their marks, the downloads (the HTML page opened offline), bad links, and hostile
trace text uploaded and compared. Screenshots at 1400 and 1000 px go to tests/artifacts/."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import pytest
from playwright.sync_api import expect

from components.sessions.session_table import short_id
from tests import hostile_traces as hostile
from tests.browser_support import chromium_page, open_source_panel, screenshot, wait_for_streamlit_idle
from tests.list_support import LIST_ROW, expect_rows
from tests.test_compare import FORTS, TRAPPIST_AGENT
from trace_explorer.analysis.compare.compare import compare_sessions

pytestmark = pytest.mark.browser  # fails, never skips, without Chromium (chromium_page raises)

REACT_OLD = "urn:trustgraph:agent:6b0a18e8-830e-47bc-9e39-8f1012bd4ace"
REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"


def compare_url(base: str, a: str, b: str) -> str:
    return f"{base}/compare?compare={urllib.parse.quote(a + ',' + b, safe='')}"


def wait_for_rows(page) -> None:
    page.locator('[data-testid="stMain"] table.rows').first.wait_for(timeout=60000)
    wait_for_streamlit_idle(page)


def row_classes(page) -> list[str]:
    return page.evaluate("() => Array.from(document.querySelectorAll('.steps table.rows tr[class]')).map(r => r.className)")


def choose_on_the_list(page, parts: tuple[str, str], shot: str | None = None) -> None:
    """On the session list: tick the sessions whose rows hold ``parts``, press Compare and wait
    for the compare page's URL."""
    wait_for_streamlit_idle(page)
    go = page.locator(".st-key-te_compare_go button:visible")
    assert go.is_disabled()  # two sessions are needed
    for part in parts:
        page.locator(LIST_ROW).filter(has_text=part).first.locator("td.c-tick input").check()
        wait_for_streamlit_idle(page)
    if shot:
        screenshot(page, shot)
    go.click()
    page.wait_for_url("**/compare?compare=*", timeout=30000)


def test_link_with_unique_parts_opens_the_pair_side_by_side(app_url, sessions):
    comparison = compare_sessions(sessions[FORTS], sessions[TRAPPIST_AGENT], sessions)
    with chromium_page(viewport=(1400, 2600)) as page:
        page.goto(compare_url(app_url, "fa7f0eab", "4ecadea2"))
        for width in (1400, 1000):  # loaded once, then narrowed as a person narrows the window
            if width != 1400:
                page.set_viewport_size({"width": width, "height": 2600})
                page.wait_for_timeout(300)
            wait_for_rows(page)
            query = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
            assert query["compare"] == [f"{FORTS},{TRAPPIST_AGENT}"]  # the link now names both in full
            assert row_classes(page) == [r.status for r in comparison.rows]
            main = page.locator('[data-testid="stMain"]')
            expect(main.get_by_text("Tokens (A → B)")).to_be_visible()
            expect(main.get_by_text("10,122 → 10,273")).to_be_visible()
            assert page.locator("table.rows del").count() > 0 and page.locator("table.rows ins").count() > 0
            thought = page.locator("table.rows tr.changed").nth(0).locator("td.side").nth(1)
            assert "Belgian beer." in thought.locator("ins").first.inner_text()
            expect(main.get_by_text("Sub-sessions (1)")).to_be_visible()
            # nothing is wider than the page
            assert page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollWidth"
                                 " <= document.querySelector('[data-testid=\"stMain\"]').clientWidth + 1")
            page.wait_for_timeout(500)
            screenshot(page, f"compare-link-{width}")


def test_list_compare_action_opens_the_compare_page(app_url, sessions):
    with chromium_page(viewport=(1400, 1600)) as page:
        page.goto(app_url + "/")
        wait_for_streamlit_idle(page)
        choose_on_the_list(page, (short_id(REACT_OLD), short_id(REACT_12)),
                           "compare-list-action")
        wait_for_rows(page)
        query = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["compare"][0]
        assert set(query.split(",")) == {REACT_OLD, REACT_12}
        a, b = query.split(",")
        expected = compare_sessions(sessions[a], sessions[b], sessions)
        assert row_classes(page) == [r.status for r in expected.rows]


def test_back_from_the_compare_page_comes_back_to_the_filtered_list(app_url):
    """Compare opened from a filtered list: Back (as many times as the compare page has
    history entries) comes to that list with its filters, not to the whole list."""
    from tests.conftest import demo_sessions, newest_first

    agents = newest_first([s for s in demo_sessions() if s["parent"] is None and s["mechanism"] == "agent"])
    with chromium_page(viewport=(1400, 1600)) as page:
        page.goto(app_url + "/?type=Agent")
        wait_for_streamlit_idle(page)
        page.locator(LIST_ROW).first.wait_for()
        expect_rows(page, agents)
        choose_on_the_list(page, (short_id(REACT_OLD), short_id(REACT_12)))
        wait_for_rows(page)
        for back in range(4):
            page.go_back()
            page.wait_for_function("() => document.readyState === 'complete'")
            if urllib.parse.urlparse(page.url).path.endswith("/compare"):
                continue
            wait_for_streamlit_idle(page)
            assert page.locator('[data-testid="stException"]').count() == 0, back
            page.wait_for_function("() => !location.search.includes('compare=')", timeout=30000)
            wait_for_streamlit_idle(page)
            assert urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["type"] == ["Agent"], back
            expect_rows(page, agents)
            break
        else:
            raise AssertionError("Back never left the compare page")


def test_pick_on_the_page_and_filter_the_differences(app_url, sessions):
    with chromium_page(viewport=(1000, 2200)) as page:
        page.goto(app_url + "/compare")
        wait_for_streamlit_idle(page)
        expect(page.get_by_text("Pick two sessions above")).to_be_visible()
        for key, part in (("te_compare_a", "6b0a18e8"), ("te_compare_b", "62c33a4f")):
            box = page.locator(f".st-key-{key} input")
            box.click()
            box.fill(part)
            box.press("Enter")
            wait_for_streamlit_idle(page)
        page.locator(".st-key-te_compare_submit button").click()
        wait_for_rows(page)
        expected = compare_sessions(sessions[REACT_OLD], sessions[REACT_12], sessions)
        assert row_classes(page) == [r.status for r in expected.rows]
        page.get_by_text("Differences only", exact=True).click()
        wait_for_streamlit_idle(page)
        assert row_classes(page) == [r.status for r in expected.rows if r.status != "same"]
        screenshot(page, "compare-picked-differences-1000")


def test_downloads_and_the_offline_page(app_url, tmp_path):
    with chromium_page(viewport=(1400, 1400)) as page:
        page.goto(compare_url(app_url, FORTS, TRAPPIST_AGENT))
        wait_for_rows(page)
        arrived = {}
        for key in ("te_compare_dl_markdown", "te_compare_dl_html"):
            with page.expect_download(timeout=60000) as info:
                page.locator(f".st-key-{key} button").click()
            path = tmp_path / info.value.suggested_filename
            info.value.save_as(path)
            arrived[key] = path
        assert arrived["te_compare_dl_markdown"].name == "compare-fa7f0eab-4ecadea2.md"
        assert arrived["te_compare_dl_markdown"].read_text(encoding="utf-8").startswith("# Comparison: ")
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.goto(Path(arrived["te_compare_dl_html"]).as_uri())
        assert page.locator("table.rows tr.changed").count() == 5 + 4  # the agents, then their GraphRAG runs
        assert [r for r in requests if not r.startswith("file:")] == []
        screenshot(page, "compare-exported-page")


def test_bad_links_say_what_is_wrong(app_url):
    with chromium_page(viewport=(1400, 1000)) as page:
        page.goto(compare_url(app_url, "no-such-session", "urn:trustgraph"))
        wait_for_streamlit_idle(page)
        main = page.locator('[data-testid="stMain"]')
        expect(main.get_by_text("Session A: No session matches 'no-such-session'.")).to_be_visible()
        expect(main.get_by_text("matches several sessions").first).to_be_visible()
        assert page.locator('[data-testid="stException"]').count() == 0
        screenshot(page, "compare-bad-link")


def test_hostile_trace_compared_runs_nothing(app_url, tmp_path):
    files = hostile.hostile_files()
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    with chromium_page(viewport=(1400, 2400)) as page:
        seen: dict[str, list[str]] = {"dialog": [], "request": []}
        page.on("dialog", lambda d: (seen["dialog"].append(d.message), d.dismiss()))
        page.on("request", lambda r: seen["request"].append(r.url))
        page.goto(app_url + "/")
        wait_for_streamlit_idle(page)
        open_source_panel(page)
        uploader = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
        uploader.set_input_files([str(tmp_path / name) for name in files])
        wait_for_streamlit_idle(page)
        page.get_by_text("of 3 matching").wait_for()
        # uploads live in this browser session: the pair is chosen in the app, not by a new page load
        choose_on_the_list(page, ("Agent <script>", "GraphRAG <script>"))
        wait_for_rows(page)
        assert urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["compare"] == [f"{hostile.AGENT},{hostile.GRAPHRAG}"]
        rows = page.locator("table.rows")
        assert hostile.IMG in rows.inner_text() and "<script>window.__pwned = 1" in rows.inner_text()
        assert page.evaluate("() => window.__pwned") is None
        assert page.locator('img[src="x"], iframe[src^="javascript"], a[href^="javascript"]').count() == 0
        assert page.locator("table.rows script, table.rows img, table.rows a").count() == 0
        screenshot(page, "compare-hostile")
        assert seen["dialog"] == []
        assert not [u for u in seen["request"] if "127.0.0.1:9/" in u or u.startswith("javascript:")]
