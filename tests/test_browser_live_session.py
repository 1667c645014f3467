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

from tests.browser_session_support import DAG, TIMELINE, WORKSPACE, click_node, dag, session_url, show, wait_drawn
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
        # the header's status says running, as the list's row does (the page's note says Running:)
        main_text = page.locator('[data-testid="stMain"]').inner_text()
        assert "running" in main_text and "unfinished" not in main_text
        follow = page.locator(f"{WORKSPACE} .te-ws-follow input")
        assert follow.is_visible() and follow.is_checked()
        follow.uncheck()
        workspace = page.locator(WORKSPACE)
        assert workspace.get_attribute("data-selected") == ANALYSIS
        # a zoom of the timeline, and a view of the graph of one's own: both stay as the session grows
        # (a scale a person can reach here: one under labels of 12 px is put back by the graph
        # at the page's next resize, which a growing page may bring at any time)
        page.locator(f'{TIMELINE} [data-zoom="in"]').click()
        view = page.locator(TIMELINE).evaluate("(el) => el.__teWaterfall.view.slice()")
        graph_view = dag(page, "(g) => { g.network.moveTo({scale: 0.95, position: {x: 60, y: 20}, animation: false}); "
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
        # the page drawn again as an answered session keeps the Conclusion selected
        drawn = page.locator('[data-te-workspace="drawn"]')
        poll(page, lambda: drawn.get_attribute("data-selected"), lambda step: step == CONCLUSION, timeout_ms=10000)


def test_a_step_chosen_while_the_session_runs_stays_chosen_when_the_answer_lands(tmp_path, app_url, app_store_root):
    """Choosing a step switches "Follow the newest step" off (as scrolling up stops a log's live
    tail): the Conclusion, when it lands and the page runs again for the answer, leaves the
    person's step selected, the first step too (the address names no step for it)."""
    store_dir = app_store_root / "live-chosen"
    write_steps(store_dir, [ROOT, ANALYSIS], tmp_path, "first")
    with chromium_page() as page:
        page.goto(session_url(app_url, ROOT) + "&store=live-chosen")
        page.get_by_text("Running: new steps appear as they are written.").wait_for(timeout=60000)
        wait_drawn(page)
        follow = page.locator(f"{WORKSPACE} .te-ws-follow input")
        workspace = page.locator(WORKSPACE)
        assert follow.is_checked() and workspace.get_attribute("data-selected") == ANALYSIS
        write_steps(store_dir, [OBSERVATION], tmp_path, "second")
        # followed: the step that came is selected, and the address names it
        poll(page, lambda: workspace.get_attribute("data-selected"), lambda step: step == OBSERVATION,
             timeout_ms=10000)
        poll(page, lambda: page.url, lambda url: "step=" in url, timeout_ms=5000)
        step_row(page, ANALYSIS).click()  # the first step: the address then names none
        assert workspace.get_attribute("data-selected") == ANALYSIS and not follow.is_checked()
        poll(page, lambda: page.url, lambda url: "step=" not in url, timeout_ms=5000)
        write_steps(store_dir, [CONCLUSION], tmp_path, "third")
        poll(page, lambda: page.locator('[data-testid="stMain"]').inner_text(), lambda text: "Running:" not in text,
             timeout_ms=30000)
        page.locator('[data-testid="stMain"]').get_by_text("answered").first.wait_for()
        drawn = page.locator('[data-te-workspace="drawn"]')
        drawn.wait_for()
        page.wait_for_timeout(1500)  # a run that moved the selection would have drawn by now
        assert drawn.get_attribute("data-selected") == ANALYSIS
        assert "step=" not in page.url


def workspace_steps(page) -> int:
    """How many steps the workspace has."""
    return page.locator(WORKSPACE).evaluate('h => h.__teWorkspace.steps.length')


def write_iterations(store_dir, quads, root: str, first: int, last: int) -> None:
    """Ingest the quads of iterations ``first`` to ``last`` of a synthetic ReAct run (iteration 0:
    its Question and PatternDecision); never its Conclusion: the session stays running."""
    def iteration(subject: str) -> int:
        """n for ``/i{n}`` and its Thought and Observation, 0 for the root and its
        PatternDecision, -1 for the Conclusion (``/final``)."""
        name = (subject.removeprefix(root).split("/") + ["", ""])[1]
        if name in ("", "pattern-decision"):
            return 0
        return int(name[1:]) if name[:1] == "i" and name[1:].isdigit() else -1

    chosen = [q for q in quads if first <= iteration(q.subject.value) <= last]
    store = open_local_store(store_dir)
    ingest_file(store, f"i{first}-{last}.nq", ox.serialize(chosen, format=ox.RdfFormat.N_QUADS))
    del store


def test_the_folds_opened_stay_open_as_the_session_grows(app_url, app_store_root):
    from tests.test_timeline import _synthetic

    # a run of 90 iterations without errors (272 graph nodes): its graph folds the middle of the chain
    root, quads, documents = _synthetic().make_react_session(94, error_rate=0.0)
    store_dir = app_store_root / "live-folds"
    store = open_local_store(store_dir)
    ingest_file(store, "run.documents.json", json.dumps(documents).encode())
    del store
    write_iterations(store_dir, quads, root, 0, 90)
    with chromium_page() as page:
        page.goto(session_url(app_url, root) + "&store=live-folds")
        page.get_by_text("Running: new steps appear as they are written.").wait_for(timeout=60000)
        wait_drawn(page)
        page.locator(f"{WORKSPACE} .te-ws-follow input").uncheck()
        folds = [i for i, role in dag(page, "v => v.shown.map(n => [n.id, n.role])") if role == "folded"]
        assert folds == [f"{root}/i3"]  # i3 to i88 folded, two kept at each end
        nodes = int(page.locator(DAG).get_attribute("data-node-count"))
        steps = workspace_steps(page)
        assert steps == 1 + 2 * 90  # the PatternDecision, then an Analysis and an Observation each
        click_node(page, folds[0])  # its first 12 parts open, the other 74 stay folded
        opened = [f"{root}/i{n}" for n in range(3, 15)]
        assert int(page.locator(DAG).get_attribute("data-node-count")) == nodes + 12

        write_iterations(store_dir, quads, root, 91, 92)
        poll(page, lambda: workspace_steps(page), lambda n: n == steps + 4, timeout_ms=10000)
        # the fold grew by two (i89 and i90 are now in it, i91 and i92 drawn after it): the 12
        # opened stay open, the rest folded
        shown = dict(dag(page, "v => v.shown.map(n => [n.id, n.role])"))
        assert [shown.get(i) for i in opened] == ["step"] * 12
        assert shown.get(f"{root}/i3 ⋯12") == "folded"
        assert int(page.locator(DAG).get_attribute("data-node-count")) == nodes + 12
        assert page.locator(WORKSPACE).get_attribute("data-selected") == f"{root}/pattern-decision"  # the first stop

        # folded again by the person, it stays folded as more steps come
        page.locator(f"{DAG} .te-refold").click()
        write_iterations(store_dir, quads, root, 93, 94)
        poll(page, lambda: workspace_steps(page), lambda n: n == steps + 8, timeout_ms=10000)
        shown = dict(dag(page, "v => v.shown.map(n => [n.id, n.role])"))
        assert shown.get(folds[0]) == "folded" and not any(shown.get(i) for i in opened[1:])
        assert int(page.locator(DAG).get_attribute("data-node-count")) == nodes
