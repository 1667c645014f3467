"""The session list following a local store in a real browser (headless Debian Chromium) while
``ingest`` writes into it (issue 41): a new session shows within 3 s, marked new and running
with the steps written so far, then answered with all of them; the filter, the sort and a
ticked row stay; the Follow switch pauses and says so in the URL."""

from __future__ import annotations

import time
import urllib.parse

import pyoxigraph as ox
import pytest

from tests.browser_support import chromium_page, poll, screenshot, wait_for_streamlit_idle
from tests.conftest import CORPUS, MANIFEST
from tests.list_support import LIST_ROW, expect_rows, row_ids
from tests.live_support import copy_session
from tests.trustgraph_server import corpus_deployment
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import open_local_store

pytestmark = pytest.mark.browser

FILE = "seed-sessions.ttl"
AGENT = "urn:trustgraph:agent:4ecadea2-81b6-4bb5-b866-64ae64a149f5"  # a ReAct session: 6 steps
GRAPHRAG = "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"
WITHIN_MS = 3000
# how far the page is scrolled: Streamlit scrolls its main area, not the window
SCROLLED = "() => Math.max(window.scrollY, document.querySelector('[data-testid=\"stMain\"]').scrollTop)"


def _cell(page, root: str, column: str) -> str:
    return page.locator(f'{LIST_ROW}[data-session="{root}"] td.c-{column}').inner_text()


def test_the_list_shows_a_new_session_within_3_s_and_keeps_filter_sort_and_ticks(app_url, app_store_root, tmp_path):
    quads, documents = corpus_deployment()
    agent, graphrag = copy_session(quads, documents, AGENT), copy_session(quads, documents, GRAPHRAG)
    store = app_store_root / "live-store"  # a store of the shared server's root, picked by its name
    with open_local_store(store) as local:
        ingest_file(local, str(CORPUS / FILE))
    agents = sorted((s for s in MANIFEST[FILE]["sessions"] if s["mechanism"] == "agent" and s["parent"] is None),
                    key=lambda s: s["question"].lower())
    written = iter(range(10))

    def ingest(*stages):
        path = tmp_path / f"written-{next(written)}.nq"
        path.write_bytes(ox.serialize([q for stage in stages for q in stage], format=ox.RdfFormat.N_QUADS))
        with open_local_store(store, wait_s=10) as writer:
            ingest_file(writer, str(path))

    with chromium_page(viewport=(1400, 700)) as page:
        # the list reruns every second while it follows: rows and marks are waited for, not an idle app
        page.goto(app_url + "/?store=live-store&type=Agent&sort=question")
        page.locator(LIST_ROW).first.wait_for(timeout=90000)  # the shared server's first page may be its first run
        expect_rows(page, [s["session"] for s in agents])
        ticked = agents[0]["session"]
        page.locator(f'{LIST_ROW}[data-session="{ticked}"] input[type=checkbox]').click()
        page.get_by_text("1 session ticked").wait_for()
        page.mouse.move(700, 400)
        page.mouse.wheel(0, 250)
        scrolled = poll(page, lambda: page.evaluate(SCROLLED), lambda top: top > 0)
        # a session of each kind is written, the agent's first three stages only (no Conclusion yet)
        started = time.monotonic()
        ingest(*agent.stages[:3], graphrag.quads)
        poll(page, lambda: row_ids(page), lambda ids: agent.root in ids, WITHIN_MS + 2000)
        shown_after = time.monotonic() - started
        assert shown_after < WITHIN_MS / 1000 + 1.0, shown_after  # the write itself takes up to a second
        # by question, a tie newest first: the new session before the seed's own on the same question
        want = sorted([*agents, {"session": agent.root, "question": agent.question, "new": True}],
                      key=lambda s: (s["question"].lower(), not s.get("new")))
        expect_rows(page, [s["session"] for s in want])  # the filter (Agent) and the sort (question) kept
        row = page.locator(f'{LIST_ROW}[data-session="{agent.root}"]')
        assert "te-new" in row.get_attribute("class") and row.locator(".te-new-mark").inner_text() == "new"
        assert _cell(page, agent.root, "status") == "running" and _cell(page, agent.root, "steps") == "2"
        assert page.locator(f"{LIST_ROW}.te-ticked").evaluate_all("rows => rows.map(r => r.dataset.session)") == [ticked]
        assert page.evaluate(SCROLLED) == scrolled  # the page did not move
        screenshot(page, "list-live-running")
        # the rest lands: answered, with all its steps, still marked new
        ingest(*agent.stages[3:])
        poll(page, lambda: _cell(page, agent.root, "status"), lambda status: status == "answered", WITHIN_MS + 2000)
        assert _cell(page, agent.root, "steps") == str(len(agent.steps))
        assert "te-new" in page.locator(f'{LIST_ROW}[data-session="{agent.root}"]').get_attribute("class")
        query = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
        assert query["type"] == ["Agent"] and query["sort"] == ["question"]
        # the switch pauses following, and the URL keeps it
        page.get_by_text("Follow", exact=True).click()
        wait_for_streamlit_idle(page)  # not following: the app goes idle
        assert urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query).get("follow") == ["false"]
        assert page.locator(f"{LIST_ROW}.te-ticked").count() == 1
        # paused, the list stays as it was: the new session still marked new
        assert "te-new" in page.locator(f'{LIST_ROW}[data-session="{agent.root}"]').get_attribute("class")
