"""The session list in a real browser (headless Debian Chromium): a click on a row opens the
session, the id's link and the parent's link, tick boxes that select without opening, copy,
headers that sort every page of a store, word search, the list's state in the URL, short session
links, Back twice from a session opened on a filtered page, the empty state of a source not
connected, the notice of an upload that switches the demo off, hostile text, and the table at
1400 and 1000 px wide. Screenshots go to tests/artifacts/."""

from __future__ import annotations

import urllib.parse

import pytest
from playwright.sync_api import expect

from tests.browser_support import (
    REPO_ROOT,
    chromium_page,
    open_source_panel,
    screenshot,
    streamlit_server,
    wait_for_streamlit_idle,
)
from tests.conftest import MANIFEST, demo_sessions, newest_first
from tests.list_support import LIST_ROW, expect_rows, open_row, row_ids
from trace_explorer.index.catalog import SessionFilter, SessionOrder, list_sessions
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import local_source, open_local_store

pytestmark = pytest.mark.browser

SESSIONS = demo_sessions()
TOP = [s for s in SESSIONS if s["parent"] is None]
BY_ID = {s["session"]: s for s in SESSIONS}
REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
TOOL_PARENT = "urn:trustgraph:agent:fa7f0eab-4c4f-4b06-8732-2e25c215a82a"
SUB_GRAPHRAG = "urn:trustgraph:question:332dd331-3a0b-4965-8da6-c6fdbd685167"
SEARCH = "any words, or answer:, tool:, error:, question:"


def query(page) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)


def search(page, text: str) -> None:
    box = page.get_by_placeholder(SEARCH)
    box.fill(text)
    box.press("Enter")
    wait_for_streamlit_idle(page)


def list_page(page, url: str) -> None:
    page.goto(url)
    wait_for_streamlit_idle(page)
    page.locator(LIST_ROW).first.wait_for()


@pytest.fixture(scope="module")
def store_url(tmp_path_factory, app_store_root):
    """The app on a local store of 130 synthetic sessions (three pages of the list), made in the
    shared server's store root too (as ``list-store``)."""
    from tests.test_timeline import _synthetic

    synthetic = _synthetic()
    work = tmp_path_factory.mktemp("list-store")
    made = synthetic.generate(work / "data", 130, long_steps=(60, 20))
    store = open_local_store(app_store_root / "list-store")
    ingest_file(store, str(made.nquads))
    ingest_file(store, str(made.documents))
    del store
    with streamlit_server(env={"TRACE_EXPLORER_STORE": str(app_store_root / "list-store")}) as url:
        yield url, app_store_root / "list-store"


def test_a_click_on_a_row_opens_it_and_ticks_select_without_opening(app_url):
    with chromium_page(viewport=(1400, 1100)) as page:
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        list_page(page, app_url + "/")
        expect_rows(page, newest_first(TOP))
        # the id: its first characters, the full IRI in the tooltip, a button that copies it
        row = page.locator(f'{LIST_ROW}[data-session="{REACT_12}"]')
        link = row.locator("td.c-session a")
        assert link.inner_text() == "62c33a4f" and link.get_attribute("title") == REACT_12
        assert link.get_attribute("href") == "session?session=" + urllib.parse.quote(REACT_12, safe="")
        row.locator("button.te-copy").click()
        row.get_by_text("copied").wait_for()
        assert page.evaluate("() => navigator.clipboard.readText()") == REACT_12
        # tick boxes select (several sessions, e.g. to compare) and open nothing
        page.locator(LIST_ROW).nth(0).locator("input[type=checkbox]").click()
        wait_for_streamlit_idle(page)
        page.locator(LIST_ROW).nth(1).locator("input[type=checkbox]").click()
        wait_for_streamlit_idle(page)
        page.get_by_text("2 sessions ticked").wait_for()
        assert urllib.parse.urlparse(page.url).path == "/"
        assert page.locator(f"{LIST_ROW}.te-ticked").count() == 2
        screenshot(page, "list-ticked")
        # a click anywhere else on the row opens the session
        row.locator("td.c-type").click()
        page.wait_for_url("**/session?session=*", timeout=30000)
        wait_for_streamlit_idle(page)
        assert query(page)["session"] == [REACT_12]
        expect(page.locator('[data-testid="stMain"]').get_by_text(BY_ID[REACT_12]["question"]).first).to_be_visible()


def test_sub_sessions_are_marked_and_their_parent_opens(app_url):
    with chromium_page(viewport=(1400, 1100)) as page:
        list_page(page, app_url + "/?sub=true")
        expect_rows(page, sorted(s["session"] for s in SESSIONS), sorted)
        sub = page.locator(f'{LIST_ROW}[data-session="{SUB_GRAPHRAG}"]')
        assert "te-subrow" in sub.get_attribute("class") and sub.locator(".te-sub").inner_text() == "↳"
        assert sub.locator("td.c-parent a").inner_text() == "fa7f0eab"
        parent = page.locator(f'{LIST_ROW}[data-session="{TOOL_PARENT}"]')
        assert "1 sub-session" in parent.locator("td.c-session").inner_text()
        screenshot(page, "list-sub-sessions")
        sub.locator("td.c-parent a").click()
        page.wait_for_url("**/session?session=*", timeout=30000)
        assert query(page)["session"] == [TOOL_PARENT]


def test_search_finds_words_in_any_order_ignoring_case_and_accents(app_url):
    with chromium_page(viewport=(1400, 1100)) as page:
        list_page(page, app_url + "/")
        search(page, "france capital")
        expect_rows(page, newest_first([s for s in TOP if "capital of france" in s["question"].lower()]))
        assert query(page)["q"] == ["france capital"]
        search(page, "MONTANA")
        expect_rows(page, newest_first([s for s in TOP if "montaña" in s["question"]]))
        screenshot(page, "list-search-montana")
        search(page, "no such words anywhere")
        page.get_by_text("No session matches these filters.").wait_for()
        assert page.locator(LIST_ROW).count() == 0


def test_the_url_holds_the_view_and_a_link_reproduces_it(app_url):
    with chromium_page(viewport=(1400, 1100)) as page:
        list_page(page, app_url + "/")
        page.get_by_role("button", name="GraphRAG", exact=True).click()
        wait_for_streamlit_idle(page)
        page.locator('th button.te-sort[data-sort="question"]').click()
        wait_for_streamlit_idle(page)
        search(page, "trappist")
        link = page.url
        assert query(page) == {"type": ["GraphRAG"], "sort": ["question"], "q": ["trappist"]}
        expected = [s for s in TOP if s["mechanism"] == "graphrag" and "trappist" in s["question"].lower()]
        expect_rows(page, [s["session"] for s in expected], sorted)
        shown = row_ids(page)
        assert len(shown) >= 2
        # a new person opening the link sees the same view
    with chromium_page(viewport=(1400, 1100)) as other:
        list_page(other, link)
        expect_rows(other, shown)
        # the box is drawn before Streamlit gives it the address's value: waited for, not read at once
        expect(other.get_by_placeholder(SEARCH)).to_have_value("trappist", timeout=10000)
        header = other.locator('th[aria-sort="ascending"] button.te-sort')
        assert header.get_attribute("data-sort") == "question"
        # and coming back from a session keeps it
        open_row(other)
        other.wait_for_url("**/session?session=*", timeout=30000)
        wait_for_streamlit_idle(other)
        other.get_by_role("link", name="Sessions").first.click()
        wait_for_streamlit_idle(other)
        expect_rows(other, shown)
        assert query(other)["q"] == ["trappist"]


def test_a_short_session_link_opens_the_session(app_url):
    with chromium_page(viewport=(1400, 1100)) as page:
        page.goto(app_url + "/session?session=62c33a4f")
        wait_for_streamlit_idle(page)
        page.wait_for_function("() => decodeURIComponent(location.search).includes('session=urn:trustgraph:agent:62c33a4f-')")
        assert query(page)["session"] == [REACT_12]
        expect(page.locator('[data-testid="stMain"]').get_by_text(BY_ID[REACT_12]["question"]).first).to_be_visible()
        assert page.get_by_text("Unknown session").count() == 0
        page.goto(app_url + "/session?session=62c33a4f-b774-4b52-88db-40af72158370")
        wait_for_streamlit_idle(page)
        assert query(page)["session"] == [REACT_12]
        page.goto(app_url + "/?session=62c33a4f")  # the page's path left out: the list passes it on
        page.wait_for_url("**/session?*", timeout=30000)
        page.wait_for_function("() => decodeURIComponent(location.search).includes('session=urn:trustgraph:agent:62c33a4f-')")
        wait_for_streamlit_idle(page)
        expect(page.locator('[data-testid="stMain"]').get_by_text(BY_ID[REACT_12]["question"]).first).to_be_visible()


def test_headers_sort_every_page_of_a_store(store_url):
    url, store_dir = store_url
    source = local_source(store_dir)


    def by(descending: bool, count: int) -> list[str]:
        order = SessionOrder("steps", descending)
        return [r["id"] for r in list_sessions(source, SessionFilter(), limit=count, order=order).rows]

    by_steps, fewest = by(True, 100), by(False, 50)
    with chromium_page(viewport=(1400, 1100)) as page:
        list_page(page, url + "/")
        page.locator('th button.te-sort[data-sort="steps"]').click()
        wait_for_streamlit_idle(page)
        assert query(page)["sort"] == ["-steps"]
        expect_rows(page, by_steps[:50])  # the store's longest sessions, not this page's 50 re-sorted
        page.get_by_role("button", name="Next").click()
        wait_for_streamlit_idle(page)
        assert query(page)["page"] == ["2"]
        expect_rows(page, by_steps[50:100])
        steps = page.locator(f"{LIST_ROW} td.c-steps").all_inner_texts()
        assert [int(s.replace(",", "")) for s in steps] == sorted((int(s.replace(",", "")) for s in steps), reverse=True)
        screenshot(page, "list-store-sorted-page-2")
        page.locator('th button.te-sort[data-sort="steps"]').click()  # again: the other way, from page 1
        wait_for_streamlit_idle(page)
        # the address is written by the run's end, which a busy machine may show a moment after idle
        page.wait_for_function("() => !new URLSearchParams(location.search).has('page')", timeout=10000)
        assert query(page)["sort"] == ["steps"] and "page" not in query(page)
        expect_rows(page, fewest)
    with chromium_page(viewport=(1400, 1100)) as other:  # the link of page 2 is page 2
        list_page(other, url + "/?sort=-steps&page=2")
        expect_rows(other, by_steps[50:100])


def open_from_agents_page_two(page, store_url) -> tuple[list[str], list[str]]:
    """Open the first session of page 2 of the list's Agent sessions (on the store of
    ``store_url``); the 17 rows of that page, and the list that records every address the tab
    takes (for a failure's message)."""
    url, store_dir = store_url
    agents = [r["id"] for r in list_sessions(local_source(store_dir), SessionFilter(mechanism=("Agent",)),
                                             limit=50, offset=50).rows]
    assert len(agents) == 17  # 67 Agent sessions of the 130: a second page of 17
    moves = []
    page.on("framenavigated", lambda frame: moves.append(frame.url) if frame == page.main_frame else None)
    list_page(page, url + "/?type=Agent&page=2")
    expect_rows(page, agents)
    open_row(page)
    page.wait_for_url("**/session?session=*", timeout=30000)
    wait_for_streamlit_idle(page)
    return agents, moves


def test_back_twice_from_a_session_opened_on_a_filtered_page_comes_back_to_that_page(store_url):
    """Opening a session from page 2 of a filtered list leaves two history entries before the
    session's: the list, and the list's address with the session's parameters (Streamlit writes
    them before the path). Back to either shows page 2 of the filtered list, with no error
    (the filters' parameters are bound to them, and may not be written directly). The session
    has no second entry of its own: the switch carries the source's parameters, which the
    sidebar wrote back in an entry of its own when a switch left them out, so that one Back
    showed the same session again."""
    with chromium_page(viewport=(1400, 1100)) as page:
        agents, moves = open_from_agents_page_two(page, store_url)
        for back in range(2):
            page.go_back()
            page.wait_for_function("() => document.readyState === 'complete'")
            assert not urllib.parse.urlparse(page.url).path.endswith("/session"), (back, moves)
            wait_for_streamlit_idle(page)
            assert page.locator('[data-testid="stException"]').count() == 0, back
            page.wait_for_function("() => !location.search.includes('session=')", timeout=30000)
            wait_for_streamlit_idle(page)
            # the list writes its own parameters back in a run of its own (restore_list_url)
            page.wait_for_function("() => new URLSearchParams(location.search).get('type') === 'Agent'", timeout=30000)
            assert query(page)["type"] == ["Agent"] and query(page)["page"] == ["2"], (back, moves)
            expect_rows(page, agents)


def test_the_sessions_link_comes_back_in_one_step_and_back_after_a_reload_leaves_the_session(store_url):
    """The session page's Sessions link goes to the list as it was left (page 2 of a filter) in
    one history entry, so Back from the list shows the session again (the link once came through
    three addresses, and Back showed the filter on page 1). After a reload of the session's page,
    Back leaves the session for the list of the same store (it once went straight back to the
    session: the list took the address for a session link opened in a new tab)."""
    with chromium_page(viewport=(1400, 1100)) as page:
        agents, moves = open_from_agents_page_two(page, store_url)
        link = page.get_by_test_id("stMain").get_by_role("link", name="Sessions")
        assert urllib.parse.parse_qs(urllib.parse.urlparse(link.get_attribute("href")).query) == {
            "store": ["list-store"], "type": ["Agent"], "page": ["2"]}
        link.click()
        page.wait_for_function("() => !location.pathname.endsWith('/session')", timeout=30000)
        wait_for_streamlit_idle(page)
        expect_rows(page, agents)
        page.wait_for_timeout(1500)  # a run that wrote the address again would have by now
        assert query(page) == {"store": ["list-store"], "type": ["Agent"], "page": ["2"]}, moves
        page.go_back()
        page.wait_for_function("() => location.pathname.endsWith('/session')", timeout=30000)
        wait_for_streamlit_idle(page)
        page.reload()
        wait_for_streamlit_idle(page)
        page.get_by_test_id("stMain").get_by_role("link", name="Sessions").wait_for()
        page.go_back()
        page.wait_for_function("() => !location.pathname.endsWith('/session') && !location.search.includes('session=')",
                               timeout=30000)
        wait_for_streamlit_idle(page)
        page.wait_for_timeout(1500)  # a switch back to the session would have come by now
        assert not urllib.parse.urlparse(page.url).path.endswith("/session"), moves
        assert query(page)["store"] == ["list-store"], moves
        page.locator(LIST_ROW).first.wait_for()
        assert page.locator('[data-testid="stException"]').count() == 0


def test_a_session_link_opened_in_a_new_tab_shows_the_same_source(app_url, store_url):
    """A session id's link carries the source's parameters: opened in a new tab (a new browser
    session, which remembers nothing), it shows the session from the store the list showed,
    not from the demo the server starts on."""
    _, store_dir = store_url
    row = list_sessions(local_source(store_dir), SessionFilter(), limit=1).rows[0]
    newest = row["id"]
    assert newest not in BY_ID
    with chromium_page(viewport=(1400, 1100)) as page:
        list_page(page, app_url + "/?store=list-store")  # a store of the server's root, by its name
        assert row_ids(page)[0] == newest
        href = page.locator(f'{LIST_ROW}[data-session="{newest}"] td.c-session a').get_attribute("href")
        assert urllib.parse.parse_qsl(urllib.parse.urlparse(href).query) == [("store", "list-store"),
                                                                              ("session", newest)]
    with chromium_page(viewport=(1400, 1100)) as tab:
        tab.goto(app_url + "/" + href)
        wait_for_streamlit_idle(tab)
        main = tab.get_by_test_id("stMain")
        main.get_by_text(row["question"][:40]).first.wait_for()
        assert tab.locator('[data-testid="stException"]').count() == 0
        assert "Unknown session" not in main.inner_text()
        # the way back to the list names the store too (without it a new tab's list was the demo)
        back = main.get_by_role("link", name="Sessions")
        assert urllib.parse.urlparse(back.get_attribute("href")).query == "store=list-store"


def test_back_and_forward_between_pages_show_the_page_each_address_names(store_url):
    """Next, then Back, Forward and Back: each address shows its own page, and the list's
    first address (no ``page``) shows the first page, not the last page seen."""
    url, store_dir = store_url
    pages = [[r["id"] for r in list_sessions(local_source(store_dir), SessionFilter(), limit=50, offset=o).rows]
             for o in (0, 50)]

    def shows(second: bool) -> None:
        page.wait_for_function(f"() => {'' if second else '!'}location.search.includes('page=2')", timeout=30000)
        wait_for_streamlit_idle(page)
        expect_rows(page, pages[second])
        assert second or "page" not in query(page)

    with chromium_page(viewport=(1400, 1100)) as page:
        list_page(page, url + "/")
        expect_rows(page, pages[0])
        page.locator(".st-key-te_list_next button").click()
        shows(True)
        page.go_back()
        shows(False)
        page.go_forward()
        shows(True)
        page.go_back()
        shows(False)


def test_a_source_not_connected_shows_an_empty_state(app_url):
    with chromium_page(viewport=(1400, 1000)) as page:
        list_page(page, app_url + "/")
        open_source_panel(page)
        page.locator(".st-key-te_source_kind").get_by_text("SPARQL endpoint", exact=True).click()
        wait_for_streamlit_idle(page)
        page.get_by_text("No SPARQL endpoint is connected").wait_for()
        assert page.locator(LIST_ROW).count() == 0
        screenshot(page, "list-not-connected")
        page.locator(".st-key-te_source_kind").get_by_text("Files", exact=True).click()
        wait_for_streamlit_idle(page)
        expect_rows(page, newest_first(TOP))


def test_an_upload_that_switches_the_demo_off_says_so(app_url, tmp_path):
    seed = REPO_ROOT / "trace_explorer" / "demo_data" / "seed-sessions.ttl"
    with chromium_page(viewport=(1400, 1000)) as page:
        list_page(page, app_url + "/")
        open_source_panel(page)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(seed))
        # the toast goes after a few seconds: it is looked for first, while it is up
        page.get_by_test_id("stToast").get_by_text("Showing your files only").wait_for(timeout=30000)
        wait_for_streamlit_idle(page)
        page.get_by_text(f"of {len(MANIFEST['seed-sessions.ttl']['sessions'])} matching").wait_for()
        page.get_by_test_id("stAlertContentInfo").get_by_text("The demo traces were switched off").wait_for()
        expect_rows(page, sorted(s["session"] for s in MANIFEST["seed-sessions.ttl"]["sessions"]), sorted)
        screenshot(page, "list-demo-switched-off")


HOSTILE = "<img src=x onerror=alert(1)><script>alert(2)</script> **bold**"
HOSTILE_TTL = f"""@prefix tg: <https://trustgraph.ai/ns/> . @prefix prov: <http://www.w3.org/ns/prov#> .
<urn:trustgraph:agent:0bad0bad-1111-4000-8000-000000000001> a tg:Question, tg:AgentQuestion, prov:Entity ;
  tg:query "{HOSTILE}" ; prov:startedAtTime "2026-01-01T00:00:00Z" .
<urn:trustgraph:agent:0bad0bad-1111-4000-8000-000000000001/final> a tg:Conclusion, tg:Answer, prov:Entity ;
  prov:wasDerivedFrom <urn:trustgraph:agent:0bad0bad-1111-4000-8000-000000000001> ; tg:answer "<svg onload=alert(3)>" .
"""


def test_hostile_text_in_a_row_is_text(app_url, tmp_path):
    evil = tmp_path / "evil.ttl"
    evil.write_text(HOSTILE_TTL, encoding="utf-8")
    with chromium_page(viewport=(1400, 1000)) as page:
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        list_page(page, app_url + "/")
        open_source_panel(page)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(evil))
        wait_for_streamlit_idle(page)
        page.get_by_text("1–1 of 1 matching").wait_for()
        row = page.locator(LIST_ROW).first
        assert row.locator(".te-question").inner_text() == HOSTILE
        assert row.locator("td.c-question .te-muted").first.inner_text() == "<svg onload=alert(3)>"
        assert row.locator("img, script, svg[onload], b").count() == 0
        assert dialogs == []


def test_the_table_fits_its_width_and_narrows_with_the_window(app_url):
    with chromium_page(viewport=(1400, 1000)) as page:
        list_page(page, app_url + "/?sub=true")
        for width in (1400, 1000):  # loaded once, then narrowed as a person narrows the window
            page.set_viewport_size({"width": width, "height": 1000})
            page.wait_for_timeout(300)
            fits = page.locator(LIST_ROW).first.evaluate(
                "row => { const wrap = row.closest('.te-wrap'); return [wrap.scrollWidth, wrap.clientWidth]; }")
            assert fits[0] <= fits[1], f"the table overflows: {fits}"
            # every figure is on screen: in its column when wide, under the question when narrow
            row = page.locator(f'{LIST_ROW}[data-session="{REACT_12}"]')
            shown = row.inner_text()
            for text in ("62c33a4f", "Agent", "react", "2026-03-09", "26", "answered"):
                assert text in shown, (width, text, shown)
            if width == 1000:  # the figures under the question
                assert "77.4 s · 27,228 tokens · 26 steps · 1 tool error" in shown
            else:
                assert row.locator("td.c-errors").inner_text() == "1"
                assert row.locator("td.c-tokens").inner_text() == "27,228"
            # a supervisor's figures count its sub-agents' (docs/reading-traces.md, "Totals"), its own under them
            supervisor = page.locator(f'{LIST_ROW}[data-session="{SUPERVISOR}"]')
            if width == 1000:
                assert "22.5 s · 13,333 tokens · 5 steps" in supervisor.inner_text()
            else:
                assert supervisor.locator("td.c-tokens").inner_text().split() == ["13,333", "780", "own"]
                assert supervisor.locator("td.c-duration").inner_text().split() == ["22.5", "s", "—", "own"]
            screenshot(page, f"list-{width}")


def test_search_reaches_answers_and_observations_and_back_restores_the_filters(app_url):
    """"Elbrus" is only in answers and "upstream timed out" only in an Observation: each finds
    its sessions, with the words marked where they were found; Back from a session opened from
    a filtered list comes back to that list, without the session's parameters."""
    highest = sorted(s["session"] for s in TOP if s["question"].startswith("¿Cuál es la montaña más alta"))
    with chromium_page(viewport=(1400, 1100)) as page:
        list_page(page, app_url + "/")
        # the pages by their titles; the uploader says its true limit (not Streamlit's "1GB per file")
        nav = page.locator('[data-testid="stSidebarNav"] a').all_inner_texts()
        assert nav == ["Sessions", "Session", "Insights", "Documents", "Compare", "Ask"]
        open_source_panel(page)
        assert page.locator('[data-testid="stFileUploaderDropzoneInstructions"]').inner_text().strip() == ""
        expect(page.get_by_text("Up to 512 MiB a file")).to_be_visible()
        search(page, "Elbrus")
        expect_rows(page, highest, sorted)
        marks = page.locator(f"{LIST_ROW} .te-match mark")
        assert marks.count() == len(highest) and set(marks.all_inner_texts()) == {"Elbrus"}
        assert page.locator(f"{LIST_ROW} .te-match-field").all_inner_texts() == ["answer: "] * len(highest)
        search(page, "upstream timed out")
        expect_rows(page, [REACT_12])
        assert page.locator(f"{LIST_ROW} .te-match mark").all_inner_texts() == ["upstream", "timed", "out"]
        screenshot(page, "list-search-observation")
        search(page, "")
        page.get_by_role("button", name="GraphRAG", exact=True).click()
        wait_for_streamlit_idle(page)
        expect_rows(page, [s["session"] for s in TOP if s["mechanism"] == "graphrag"], sorted)
        graphrag = row_ids(page)
        open_row(page)
        page.wait_for_url("**/session?session=*", timeout=30000)
        wait_for_streamlit_idle(page)
        assert "step" not in query(page)
        page.go_back()
        page.wait_for_function("() => !location.search.includes('session=')")
        wait_for_streamlit_idle(page)
        assert query(page) == {"type": ["GraphRAG"]}
        expect_rows(page, graphrag)
        page.go_forward()
        page.wait_for_url("**/session?session=*", timeout=30000)
        wait_for_streamlit_idle(page)
        page.go_back()
        page.wait_for_function("() => !location.search.includes('session=')")
        wait_for_streamlit_idle(page)
        assert query(page) == {"type": ["GraphRAG"]} and row_ids(page) == graphrag
