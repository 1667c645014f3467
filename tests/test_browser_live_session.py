"""The open session grows, in headless Chromium: a running session on a local store gets its
steps as ``ingest`` writes them (the steps TrustGraph's own services emitted for one question,
``tests/data/socket_runs.json``, a few at a time). Each appears in the timeline within 3 s with
the page left as it was (the selected step, the zoom), marked as the newest; with "Follow the
newest step" on, it is selected; when the Conclusion lands, the page says the session answered."""

from __future__ import annotations

import json
import time

import pyoxigraph as ox
import pytest

from tests.browser_session_support import DAG, TIMELINE, WORKSPACE, dag, session_url, show, wait_drawn
from tests.browser_support import chromium_page, poll, screenshot
from tests.trustgraph_socket import recorded, run_steps
from trace_explorer.read.wire import decode_quad
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import open_local_store

pytestmark = pytest.mark.browser
RUN = next(r for r in recorded()["runs"] if r["name"] == "agent")
ROOT, ANALYSIS, OBSERVATION, CONCLUSION = run_steps(RUN)
ARRIVES_WITHIN_S = 3.0


def write_steps(store_dir, steps: list[str], tmp_path, name: str) -> float:
    """Ingest the triples of the explain events of ``steps`` into the store; the time it was done."""
    quads = [decode_quad(t) for f in RUN["frames"] if f["response"].get("explain_id") in steps
             for t in f["response"]["explain_triples"]]
    path = tmp_path / f"{name}.nq"
    path.write_bytes(ox.serialize(quads, format=ox.RdfFormat.N_QUADS))
    store = open_local_store(store_dir)
    ingest_file(store, str(path))
    del store
    return time.monotonic()


def _same_view(now, before) -> bool:
    """The graph's scale and centre as they were (to a hundredth of a unit)."""
    return abs(now[0] - before[0]) < 0.01 and all(abs(now[1][k] - before[1][k]) < 0.01 for k in ("x", "y"))


def step_row(page, step: str):
    return page.locator(f'{TIMELINE} .te-wf-row[data-step="{step}"]')


def test_the_open_session_grows_and_keeps_the_selection(tmp_path, app_url, app_store_root):
    store_dir = app_store_root / "live-session"
    texts = tmp_path / "run.documents.json"
    texts.write_text(json.dumps(recorded()["documents"]), encoding="utf-8")
    store = open_local_store(store_dir)
    ingest_file(store, str(texts))
    del store
    write_steps(store_dir, [ROOT, ANALYSIS], tmp_path, "first")
    with chromium_page() as page:
        page.goto(session_url(app_url, ROOT, ANALYSIS) + "&store=live-session")
        # (never idle while it follows: the open session is asked for its news every second)
        page.get_by_text("Running: new steps appear as they are written.").wait_for(timeout=60000)
        wait_drawn(page)
        page.locator('[data-testid="stMain"]').get_by_text("unfinished").first.wait_for()
        follow = page.locator(f"{WORKSPACE} .te-ws-follow input")
        assert follow.is_visible() and follow.is_checked()
        follow.uncheck()
        workspace = page.locator(WORKSPACE)
        assert workspace.get_attribute("data-selected") == ANALYSIS
        # a zoom of the timeline, and a view of the graph of one's own: both stay as the session grows
        page.locator(f'{TIMELINE} [data-zoom="in"]').click()
        view = page.locator(TIMELINE).evaluate("(el) => el.__teWaterfall.view.slice()")
        graph_view = dag(page, "(g) => { g.network.moveTo({scale: 0.7, position: {x: 60, y: 20}, animation: false}); "
                               "return [g.network.getScale(), g.network.getViewPosition()]; }")
        nodes = int(page.locator(DAG).get_attribute("data-node-count"))

        written = write_steps(store_dir, [OBSERVATION], tmp_path, "second")
        poll(page, lambda: int(page.locator(DAG).get_attribute("data-node-count")), lambda n: n > nodes,
             timeout_ms=10000)
        assert time.monotonic() - written < ARRIVES_WITHIN_S
        assert _same_view(page.locator(DAG).evaluate("(h) => [h.__teDag.network.getScale(), "
                                                     "h.__teDag.network.getViewPosition()]"), graph_view)
        # the selection and the zoom stay; the new step is marked the newest
        assert workspace.get_attribute("data-selected") == ANALYSIS
        assert workspace.get_attribute("data-newest") == OBSERVATION
        show(page, "timeline")
        assert page.locator(TIMELINE).evaluate("(el) => el.__teWaterfall.view.slice()") == view
        assert step_row(page, OBSERVATION).get_attribute("data-newest") == "true"
        screenshot(page, "live-session-grown")

        # following the newest step: the Conclusion is selected as it lands, and the page then
        # says the session answered
        follow.check()
        written = write_steps(store_dir, [CONCLUSION], tmp_path, "third")
        step_row(page, CONCLUSION).wait_for(timeout=10000)
        assert time.monotonic() - written < ARRIVES_WITHIN_S
        poll(page, lambda: workspace.get_attribute("data-selected"), lambda step: step == CONCLUSION, timeout_ms=5000)
        # then the page runs again for the answer: the status and the answer's words
        page.get_by_text("Lake Baikal is 1642 metres deep at its deepest point").first.wait_for(timeout=30000)
        poll(page, lambda: page.locator('[data-testid="stMain"]').inner_text(), lambda text: "Running:" not in text)
        page.locator('[data-testid="stMain"]').get_by_text("answered").first.wait_for()
