"""The session page in headless Chromium: the DAG (fitted, wrapped in the flow's direction, a
legend of what is drawn, a click selects a step everywhere), the keys j / k and the arrows, links
with ``&step=``, the waterfall (nested sub-session bands that fold, a long run scrolled and
zoomed), and screenshots of each kind of session at 1400 and 1000 px wide (tests/artifacts/)."""

from __future__ import annotations

import pytest

from tests.browser_session_support import (DAG, TIMELINE, click_node, dag, hover_node, session_url, shown_rows,
                                           step_in_url, timeline, wait_drawn, wait_step)
from tests.browser_support import chromium_page, screenshot, streamlit_server, wait_for_streamlit_idle
from trace_explorer.sources.demo import demo_paths
from trace_explorer.views.dag.network import dag_data, drawn_layout
from trace_explorer.views.step_walk import step_walk

pytestmark = pytest.mark.browser
pytest.importorskip("playwright")

REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
PLAN = "urn:trustgraph:agent:1a4f44f9-a651-4445-b9f3-635cf88c422b"
SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
GRAPHRAG = "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"
DOCRAG = "urn:trustgraph:docrag:4a23d596-2217-4ead-9bc4-96cb8e81973e"
KINDS = {"react": REACT_12, "plan": PLAN, "supervisor": SUPERVISOR, "graphrag": GRAPHRAG, "docrag": DOCRAG}


def selected_everywhere(page, step: str, node: str | None = None, first: bool = False) -> None:
    """``step`` is selected in the URL (``first``: the session's first step, no ``step`` in
    it), the picker, the timeline and (as ``node``) the DAG."""
    wait_step(page, step, first=first)
    wait_for_streamlit_idle(page)
    page.locator(f'{DAG}[data-selected="{node or step}"]').wait_for(timeout=10000)
    assert page.locator(f"{TIMELINE} .te-wf-row.te-selected").get_attribute("data-step") == step
    assert page.locator(TIMELINE).get_attribute("data-selected") == step


def test_the_dag_opens_fitted_and_wrapped_in_reading_order_with_a_legend_of_what_is_drawn(app_url, sessions):
    session = sessions[REACT_12]
    with chromium_page(viewport=(1400, 1600)) as page:
        page.goto(session_url(app_url, REACT_12))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        assert set(dag(page, "v => v.nodes.getIds()")) == set(session.graph.nodes)
        assert dag(page, "v => v.edges.length") == session.graph.number_of_edges()
        # fitted: every node is inside the canvas, at a readable scale
        box = dag(page, "v => ({w: v.parts.canvas.clientWidth, h: v.parts.canvas.clientHeight, s: v.network.getScale()})")
        points = dag(page, "v => v.nodes.getIds().map(id => v.pointIn(id))")
        assert all(0 < p["x"] < box["w"] and 0 < p["y"] < box["h"] for p in points)
        assert box["s"] >= 0.55
        # it reads in the flow's direction: left to right, wrapped into rows like text
        places = dag(page, "v => v.network.getPositions()")
        steps = [places[s.id] for s in session.steps]
        rows = sorted({p["y"] for p in steps})
        assert len(rows) > 1 and int(page.locator(DAG).get_attribute("data-per-row")) > 1
        for before, after in zip(steps, steps[1:]):
            assert (after["y"] == before["y"] and after["x"] > before["x"]) or \
                   (after["y"] > before["y"] and after["x"] < before["x"])  # the next row starts left
        # the legend names what is drawn, nothing else; relations are not written on the edges
        legend = page.locator(f"{DAG} .te-legend-item").all_inner_texts()
        expected = [e["label"] for e in dag_data(session, drawn_layout(session))["legend"]]
        assert [t.strip() for t in legend] == expected and "Activity" not in legend and "Agent" not in legend
        assert dag(page, "v => v.edges.get().filter(e => e.label).length") == 0
        # an edge's relation shows when the mouse is on it (an Analysis and its Observation in one row)
        pair = next((f"{REACT_12}/i{n}", f"{REACT_12}/i{n}/observation") for n in range(1, 13)
                    if places[f"{REACT_12}/i{n}"]["y"] == places[f"{REACT_12}/i{n}/observation"]["y"])
        a, b = (dag(page, "(v, id) => v.pointOf(id)", n) for n in pair)
        page.mouse.move((a["x"] + b["x"]) / 2, (a["y"] + b["y"]) / 2 - 20)
        page.mouse.move((a["x"] + b["x"]) / 2, (a["y"] + b["y"]) / 2, steps=3)
        tip = page.locator(f"{DAG} div.vis-tooltip")
        tip.wait_for(state="visible", timeout=5000)
        assert tip.inner_text() == "wasDerivedFrom"
        screenshot(page, "session-dag-react-fitted")


def test_a_click_on_a_node_selects_its_step_everywhere(app_url, sessions):
    with chromium_page(viewport=(1400, 1600)) as page:
        page.goto(session_url(app_url, REACT_12))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        target = REACT_12 + "/i3"
        click_node(page, target)
        selected_everywhere(page, target)
        walk = step_walk(sessions[REACT_12], sessions)
        number = [e.id for e in walk].index(target) + 1
        assert page.get_by_role("combobox", name="Step").input_value() == f"{number}. i3 Analysis: knowledge-query"
        assert page.locator('[data-testid="stMain"]').get_by_text(target, exact=True).first.is_visible()  # inspector
        # a Thought selects its Analysis; the Question the first step
        click_node(page, REACT_12 + "/i5/thought")
        selected_everywhere(page, REACT_12 + "/i5")
        click_node(page, REACT_12)
        selected_everywhere(page, REACT_12 + "/pattern-decision", first=True)
        screenshot(page, "session-dag-click")


def test_keys_move_through_the_steps_and_a_link_opens_a_step(app_url, sessions):
    walk = [e.id for e in step_walk(sessions[SUPERVISOR], sessions)]
    with chromium_page(viewport=(1400, 1600)) as page:
        page.goto(session_url(app_url, SUPERVISOR, step=walk[1]))  # a link to the Decomposition
        wait_drawn(page)
        selected_everywhere(page, walk[1])
        page.locator('[data-testid="stMain"] h3').first.click()  # the page has the focus, no field
        page.keyboard.press("j")  # into the first sub-agent's band: its Question
        selected_everywhere(page, walk[2], node=walk[2])
        page.keyboard.press("j")
        selected_everywhere(page, walk[3], node=walk[2])  # a sub-agent's step: its node in the graph
        page.keyboard.press("k")
        selected_everywhere(page, walk[2], node=walk[2])
        page.keyboard.press("k")
        selected_everywhere(page, walk[1])
        # the arrows work while the timeline (or the graph) has the focus
        page.locator(TIMELINE).focus()
        page.keyboard.press("ArrowDown")
        selected_everywhere(page, walk[2], node=walk[2])
        page.locator(DAG).focus()
        page.keyboard.press("ArrowUp")
        selected_everywhere(page, walk[1])
        # typing in a field is typing, not moving
        picker = page.get_by_role("combobox", name="Step")
        picker.click()
        page.keyboard.type("j")
        page.keyboard.press("Escape")
        wait_for_streamlit_idle(page)
        assert step_in_url(page) == walk[1]
    with chromium_page(viewport=(1000, 1600)) as page:  # the link reproduces the view
        page.goto(session_url(app_url, REACT_12, step=REACT_12 + "/i7"))
        wait_drawn(page)
        selected_everywhere(page, REACT_12 + "/i7")
        assert REACT_12 + "/i7" in shown_rows(page)


def test_sub_session_bands_nest_and_fold(app_url, sessions):
    walk = step_walk(sessions[SUPERVISOR], sessions)
    headers = [e for e in walk if e.header]
    with chromium_page(viewport=(1400, 1600)) as page:
        page.goto(session_url(app_url, SUPERVISOR))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        assert shown_rows(page) == [e.id for e in walk]  # every row, each sub-agent under the Decomposition
        band = page.locator(f'{TIMELINE} .te-wf-row[data-step="{headers[0].id}"]')
        assert band.locator(".te-wf-band").count() == 1  # a band spanning the sub-agent's run
        indent = [page.locator(f'{TIMELINE} .te-wf-row[data-step="{e.id}"] .te-wf-label').evaluate(
            "e => parseFloat(e.style.paddingLeft)") for e in (walk[1], walk[2], walk[3])]
        assert indent[0] < indent[1] == indent[2]  # nested one level
        for entry in walk[:4]:  # a label the column cuts is whole on hover
            label = page.locator(f'{TIMELINE} .te-wf-row[data-step="{entry.id}"] .te-wf-label')
            assert label.get_attribute("title") == label.locator(".te-wf-text").inner_text() != ""
        band.locator(".te-wf-toggle").click()
        inside = len(headers[0].session.steps)
        assert page.locator(TIMELINE).get_attribute("data-rows-shown") == str(len(walk) - inside)
        assert [e.id for e in walk if e.session is headers[0].session and not e.header][0] not in shown_rows(page)
        screenshot(page, "session-supervisor-band-folded")
        band.locator(".te-wf-toggle").click()
        assert page.locator(TIMELINE).get_attribute("data-rows-shown") == str(len(walk))
        # the label column widens when its edge is dragged, and a double click puts it back
        label = page.locator(f"{TIMELINE} .te-wf-axis-label")
        before = label.bounding_box()["width"]
        handle = page.locator(f"{TIMELINE} .te-wf-resize").bounding_box()
        page.mouse.move(handle["x"] + 4, handle["y"] + 8)
        page.mouse.down()
        page.mouse.move(handle["x"] + 84, handle["y"] + 8, steps=4)
        page.mouse.up()
        assert label.bounding_box()["width"] == pytest.approx(before + 80, abs=2)
        page.locator(f"{TIMELINE} .te-wf-resize").dblclick()
        assert label.bounding_box()["width"] == pytest.approx(before, abs=1)
        # a click on the band's row selects the sub-agent's Question; the inspector links to it
        band.locator(".te-wf-label").click()
        selected_everywhere(page, headers[0].id)
        link = page.locator('[data-testid="stMain"] [data-testid="stPageLink"]').filter(
            has_text="This sub-session's question")
        assert link.count() == 1


def test_sub_agents_start_at_their_own_time_and_the_header_counts_them(app_url, sessions):
    # fault of laying every step end to end: each sub-agent's band starts at its own Question's
    # time less the supervisor's; the header gives the supervisor's own tokens and those with them
    from tests.test_waterfall import started_ms

    walk = step_walk(sessions[SUPERVISOR], sessions)
    headers = [e.id for e in walk if e.header]
    with chromium_page(viewport=(1400, 1600)) as page:
        page.goto(session_url(app_url, SUPERVISOR))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        metric = page.locator('[data-testid="stMetric"]').filter(has_text="Tokens")
        assert "780 own · 13,333 with sub-sessions" in metric.inner_text()
        starts = timeline(page, "(w, ids) => ids.map((id) => w.rows.starts[w.index.get(id)])", headers)
        assert starts == [started_ms(h, SUPERVISOR) for h in headers] == [3_947_000, 6_581_000]
        lane = page.locator(f'{TIMELINE} .te-wf-row[data-step="{walk[0].id}"] .te-wf-lane').bounding_box()
        lefts = [page.locator(f'{TIMELINE} .te-wf-row[data-step="{h}"] .te-wf-band').bounding_box()["x"] - lane["x"]
                 for h in headers]
        full = timeline(page, "w => w.full")
        # drawn where they started on the axis, the second well after the first, not both at 0
        for left, start in zip(lefts, starts):
            assert left == pytest.approx((start - full[0]) / (full[1] - full[0]) * lane["width"], abs=3)
        assert 0 < lefts[0] < lefts[1]
        screenshot(page, "session-supervisor-sub-agents-at-their-start")


def test_a_session_without_durations_is_markers_in_order(app_url, sessions):
    # a GraphRAG run records no duration: no bar pretends to one, each step is a marker at its
    # place, and the axis names the steps there are (no "step 5" after the fourth)
    session = sessions[GRAPHRAG]
    with chromium_page(viewport=(1400, 1600)) as page:
        page.goto(session_url(app_url, GRAPHRAG))
        wait_drawn(page)
        assert shown_rows(page) == [s.id for s in session.steps]
        assert page.locator(f"{TIMELINE} .te-wf-marker").count() == len(session.steps)
        assert page.locator(f"{TIMELINE} .te-wf-span").count() == 0
        ticks = page.locator(f"{TIMELINE} .te-wf-tick").all_inner_texts()
        assert ticks and set(ticks) <= {f"step {i}" for i in range(1, len(session.steps) + 1)}, ticks
        assert "step 1" in ticks  # the first step named; none beyond the last (above)


@pytest.mark.parametrize("width", [1400, 1000])
@pytest.mark.parametrize("name", sorted(KINDS))
def test_session_pages_at_two_widths(app_url, sessions, name, width):
    iri = KINDS[name]
    with chromium_page(viewport=(width, 2000)) as page:
        page.goto(session_url(app_url, iri))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        assert page.locator('[data-testid="stException"]').count() == 0
        assert set(dag(page, "v => v.nodes.getIds()")) >= set(sessions[iri].graph.nodes)
        assert len(shown_rows(page)) == len(step_walk(sessions[iri], sessions))
        # nothing clipped: the last tick's label ends inside the axis, the legend inside the page
        ticks = page.locator(f"{TIMELINE} .te-wf-ticks")
        right = ticks.evaluate("e => e.getBoundingClientRect().right")
        last = page.locator(f"{TIMELINE} .te-wf-tick").last.evaluate("e => e.getBoundingClientRect().right")
        assert last <= right + 0.5
        for item in page.locator(f"{DAG} .te-legend-item, {TIMELINE} .te-wf-key").all():
            assert item.evaluate("e => e.getBoundingClientRect().right") <= width
        page.wait_for_timeout(300)
        screenshot(page, f"session-{name}-{width}")


# -- a 2,000-iteration run (4,002 steps) from a local store ---------------------------------------
@pytest.fixture(scope="module")
def long_store_url(tmp_path_factory):
    from tests.test_timeline import long_react_files
    from trace_explorer.sources.local_store import ingest_file, open_local_store

    root, nquads, documents = long_react_files(2000)
    folder = tmp_path_factory.mktemp("long-store")
    store = open_local_store(folder / "store")
    ingest_file(store, "long.nq", nquads)
    ingest_file(store, "long.documents.json", documents)
    del store
    with streamlit_server(env={"TRACE_EXPLORER_STORE": str(folder / "store")}) as url:
        yield url, root


@pytest.mark.parametrize("width", [1400, 1000])
def test_a_long_run_scrolls_zooms_and_opens_its_folds(long_store_url, width):
    from tests.test_timeline import long_react

    url, root = long_store_url
    session = long_react(2000)
    with chromium_page(viewport=(width, 1800)) as page:
        page.goto(session_url(url, root), timeout=120000)
        wait_drawn(page, timeout_ms=120000)
        wait_for_streamlit_idle(page, timeout_ms=120000)
        assert page.locator(TIMELINE).get_attribute("data-rows-shown") == "4002"
        rows = page.locator(f"{TIMELINE} .te-wf-row")
        assert 10 < rows.count() < 80  # only the rows in view are in the page
        assert rows.first.inner_text().strip() == "PatternDecision: react"  # labelled rows, full height
        assert rows.first.evaluate("e => e.getBoundingClientRect().height") >= 20
        # scrolled to the end: the last rows, labelled
        page.locator(f"{TIMELINE} .te-wf-body").evaluate("e => { e.scrollTop = e.scrollHeight; }")
        page.wait_for_timeout(300)
        assert shown_rows(page)[-1] == session.steps[-1].id
        # zoom: + halves the time in view; the minimap drag picks a stretch; "Whole run" undoes it
        full = timeline(page, "v => v.view.slice()")
        page.locator(f'{TIMELINE} [data-zoom="in"]').click()
        half = timeline(page, "v => v.view.slice()")
        assert half[1] - half[0] == pytest.approx((full[1] - full[0]) / 2, rel=1e-6)
        mini = page.locator(f"{TIMELINE} .te-wf-mini").bounding_box()
        page.mouse.move(mini["x"] + mini["width"] * 0.2, mini["y"] + 10)
        page.mouse.down()
        page.mouse.move(mini["x"] + mini["width"] * 0.3, mini["y"] + 30, steps=4)
        page.mouse.up()
        picked = timeline(page, "v => v.view.slice()")
        assert picked[1] - picked[0] == pytest.approx((full[1] - full[0]) * 0.1, rel=0.05)
        assert picked[0] == pytest.approx(full[0] + (full[1] - full[0]) * 0.2, rel=0.05)
        page.locator(f'{TIMELINE} [data-zoom="reset"]').click()
        assert timeline(page, "v => v.view.slice()") == pytest.approx(full)
        screenshot(page, f"session-long-2000-{width}")
        # the graph is folded: a click on a fold opens it (more nodes drawn)
        before = int(page.locator(DAG).get_attribute("data-node-count"))
        fold = dag(page, "v => v.nodes.get().filter(n => n.kind === 'Folded').map(n => n.id)")[1]
        click_node(page, fold)
        page.locator(f'{DAG}:not([data-node-count="{before}"])').wait_for(timeout=30000)
        assert int(page.locator(DAG).get_attribute("data-node-count")) > before
        # j from the last step stays there; k goes back
        click_node(page, session.steps[-1].id)
        wait_step(page, session.steps[-1].id)
        wait_for_streamlit_idle(page)
        page.keyboard.press("k")
        wait_step(page, session.steps[-2].id)


# -- hostile text in the components ----------------------------------------------------------------
@pytest.fixture(scope="module")
def hostile_store_url(tmp_path_factory):
    from tests import hostile_traces as hostile
    from trace_explorer.sources.local_store import ingest_file, open_local_store

    folder = tmp_path_factory.mktemp("hostile-store")
    store = open_local_store(folder / "store")
    for name, data in hostile.hostile_files().items():
        ingest_file(store, name, data)
    del store
    with streamlit_server(env={"TRACE_EXPLORER_STORE": str(folder / "store")}) as url:
        yield url


def test_hostile_corpus_shows_as_text_in_the_graph_and_the_timeline(hostile_store_url):
    from tests import hostile_traces as hostile

    with chromium_page(viewport=(1440, 1600)) as page:
        dialogs: list[str] = []
        requests: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("request", lambda r: requests.append(r.url))
        for iri in (hostile.AGENT, hostile.GRAPHRAG, hostile.DOCRAG):
            page.goto(session_url(hostile_store_url, iri))
            wait_drawn(page)
            wait_for_streamlit_idle(page)
            for node in dag(page, "v => v.nodes.getIds()"):
                text = hover_node(page, node)
                assert text and "\n" in text, node
                assert page.locator(f"{DAG} div.vis-tooltip").evaluate(
                    "e => Array.from(e.querySelectorAll('*')).every(n => n.tagName === 'BR')")
            # the timeline's labels and tooltips are text
            for row in page.locator(f"{TIMELINE} .te-wf-row").all()[:6]:
                row.hover()
                tip = page.locator(f"{TIMELINE} .te-wf-tip")
                tip.wait_for(state="visible", timeout=5000)
                assert tip.evaluate("e => e.children.length") == 0
            assert page.locator(f"{TIMELINE} img, {TIMELINE} script, {DAG} img, {DAG} a").count() == 0
            assert page.evaluate("() => window.__pwned") is None
            screenshot(page, f"hostile-components-{iri.rsplit(':', 2)[-2]}")
        assert dialogs == []
        assert not [u for u in requests if "127.0.0.1:9/" in u or u.startswith("javascript:")]


def test_the_sidebars_files_table_is_a_plain_table(app_url):
    with chromium_page(viewport=(1400, 1200)) as page:
        page.goto(session_url(app_url, REACT_12))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        sidebar = page.locator('[data-testid="stSidebar"]')
        sidebar.get_by_text(f"Files ({len(demo_paths())})").click()  # every file the demo loads
        sidebar.locator('[data-testid="stTable"]').wait_for(timeout=20000)
        assert sidebar.locator('[data-testid="stDataFrame"]').count() == 0  # no data grid to load
        assert page.locator(DAG).count() == 1  # the page is still whole


def test_a_click_on_the_parent_sessions_node_opens_it(app_url, sessions):
    sub = "urn:trustgraph:question:332dd331-3a0b-4965-8da6-c6fdbd685167"
    parent = sessions[sub].parent_session
    with chromium_page(viewport=(1400, 1600)) as page:
        page.goto(session_url(app_url, sub))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        click_node(page, parent)
        page.wait_for_function("(iri) => new URLSearchParams(location.search).get('session') === iri", arg=parent,
                               timeout=20000)
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        assert set(dag(page, "v => v.nodes.getIds()")) >= set(sessions[parent].graph.nodes)


@pytest.mark.parametrize("width", [1400, 1000])
def test_a_steps_wide_tables_take_the_pages_width(app_url, width):
    focus = GRAPHRAG.replace("question:", "prov:focus:")
    with chromium_page(viewport=(width, 1600)) as page:
        page.goto(session_url(app_url, GRAPHRAG, step=focus))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        page_width = page.locator(DAG).bounding_box()["width"]  # the graph spans the page's content
        table = page.locator('[data-testid="stMain"] [data-testid="stDataFrame"]').first.bounding_box()
        timeline_box = page.locator(TIMELINE).bounding_box()
        assert table["width"] >= 0.98 * page_width  # not the inspector's narrow column
        assert table["y"] > timeline_box["y"] + timeline_box["height"]  # under the timeline
        assert page.get_by_text("Selected edges (4): in the table under the timeline").is_visible()
        screenshot(page, f"session-graphrag-focus-{width}")
