"""The session workspace in headless Chromium: keys (quick presses too), clicks on the timeline
and the graph, the URL's ``step=``, the search within a session with its count, the quick
filters, the critical path, a folded sub-session band, the graph's look (layered, labels of
12 px at least, filled by kind, the wheel scrolling the page, tooltips that close), a 2,002-step
run, hostile text, and screenshots of each kind of session at 1400 and 1000 px
(tests/artifacts/). Each test shares one page load across its assertions."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout, expect

from tests.browser_session_support import (DAG, INSPECTOR, TIMELINE, WORKSPACE, click_node, dag, hover_node,
                                           scroll_to_timeline_end, selected, session_url, show, shown_rows,
                                           step_in_url, timeline, wait_drawn, wait_step, workspace)
from tests.browser_support import chromium_page, screenshot, wait_for_streamlit_idle
from trace_explorer.views.palette import KIND_COLOURS
from trace_explorer.views.step_walk import step_walk
from trace_explorer.views.workspace import workspace_data

pytestmark = pytest.mark.browser
pytest.importorskip("playwright")

REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
PLAN = "urn:trustgraph:agent:1a4f44f9-a651-4445-b9f3-635cf88c422b"
SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
GRAPHRAG = "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"
DOCRAG = "urn:trustgraph:docrag:4a23d596-2217-4ead-9bc4-96cb8e81973e"
KINDS = {"react": REACT_12, "plan": PLAN, "supervisor": SUPERVISOR, "graphrag": GRAPHRAG, "docrag": DOCRAG}


def inspector_text(page) -> str:
    return page.locator(INSPECTOR).inner_text()


def searched(data: dict, word: str) -> list[int]:
    """The rows whose words hold ``word``: label, IRI and every text of the inspector."""
    found = []
    for i, step in enumerate(data["steps"]):
        parts = [step["label"], step["id"]]
        for s in step["sections"]:
            parts += [s.get("text") or "", "\n".join(s["items"]) if s["t"] == "list" else ""]
            if s["t"] == "table":
                parts += [" ".join(c for c in row if isinstance(c, str)) for row in s["rows"]]
        if word in "\n".join(parts).lower():
            found.append(i)
    return found


def test_keys_clicks_the_url_search_and_filters_on_a_react_run(app_url, sessions):
    session = sessions[REACT_12]
    data = workspace_data(session, sessions)
    walk = [s["id"] for s in data["steps"]]
    with chromium_page(viewport=(1400, 1000)) as page:
        page.goto(session_url(app_url, REACT_12))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        assert selected(page) == walk[0] and step_in_url(page) is None
        # the first view shows the timeline: the graph's library (vis-network) is not sent with it
        assert page.evaluate("typeof globalThis.vis") == "undefined"
        assert shown_rows(page)[:5] == walk[:5]
        # two quick presses: neither is lost, the URL follows, the words are on screen at once
        page.locator('[data-testid="stMain"] h3').first.click()
        page.keyboard.press("j")
        page.keyboard.press("j")
        assert selected(page) == walk[2]
        wait_step(page, walk[2], timeout_ms=3000)
        observation = session.nodes[walk[2]].fields["observation"]
        assert observation in inspector_text(page)
        page.keyboard.press("k")
        assert selected(page) == walk[1] == REACT_12 + "/i1"
        # an Analysis: its thought, action with arguments and observation together
        fields = session.nodes[walk[1]].fields
        text = inspector_text(page)
        for piece in (fields["thought"], "calculator", json.dumps(fields["arguments"], indent=2, ensure_ascii=False),
                      fields["observation"]):
            assert piece in text, piece
        assert page.locator(INSPECTOR).bounding_box()["width"] > 0.9 * page.locator(WORKSPACE).bounding_box()["width"]
        # a click on a row selects its step; the failed call's error is said as recorded
        i2 = REACT_12 + "/i2"
        page.locator(f'{TIMELINE} .te-wf-row[data-step="{i2}"] .te-wf-label').click()
        assert selected(page) == i2
        wait_step(page, i2, timeout_ms=3000)
        assert f"Tool error: {session.nodes[i2].fields['error']}" in inspector_text(page)
        # the arrows work while the timeline has the focus; typing in the search box is typing
        page.locator(TIMELINE).focus()
        page.keyboard.press("ArrowDown")
        assert selected(page) == walk[walk.index(i2) + 1]
        # bars: the duration beside each, and at least 60 % of the width
        durations = page.locator(f"{TIMELINE} .te-wf-row .te-wf-dur").all_inner_texts()
        assert "7.86 s" in durations and "898 ms" in durations  # i1's LLM and tool time, as recorded
        label, track = (page.locator(f"{TIMELINE} .te-wf-{part}").first for part in ("label", "track"))
        label.wait_for(state="visible")  # the rows may be drawn again after a key, on a busy machine
        track.wait_for(state="visible")
        label, track = label.bounding_box()["width"], track.bounding_box()["width"]
        assert track / (label + track) >= 0.6
        # the search: its count, next / previous, the others dimmed
        search = page.locator(f"{WORKSPACE} .te-ws-search")
        search.fill("elbrus")
        hits = searched(data, "elbrus")
        assert hits and len(hits) < len(walk)
        assert page.locator(WORKSPACE).get_attribute("data-matches") == str(len(hits))
        assert selected(page) == walk[hits[0]] or selected(page) in [walk[i] for i in hits]
        search.press("Enter")
        count = page.locator(f"{WORKSPACE} .te-ws-count").inner_text()
        assert count.endswith(f"of {len(hits)} steps"), count
        page.keyboard.type("j")  # in the box: a letter, not a move
        assert search.input_value() == "elbrusj" and page.locator(WORKSPACE).get_attribute("data-matches") == "0"
        assert page.locator(f"{WORKSPACE} .te-ws-count").inner_text() == "no step matches"
        search.fill("")
        # quick filters: errors, a kind, a tool, the slowest
        page.locator(f"{WORKSPACE} .te-ws-errors").check()
        errors = [i for i, s in enumerate(data["steps"]) if s["error"]]
        assert page.locator(WORKSPACE).get_attribute("data-matches") == str(len(errors)) == "2"
        page.wait_for_timeout(50)
        dimmed = page.locator(f"{TIMELINE} .te-wf-row.te-dim").count()
        assert dimmed == len(page.locator(f"{TIMELINE} .te-wf-row").all()) - len(
            [r for r in shown_rows(page) if walk.index(r) in errors])
        page.locator(f"{WORKSPACE} .te-ws-errors").uncheck()
        page.locator(f"{WORKSPACE} .te-ws-kind").select_option("Analysis")
        assert page.locator(WORKSPACE).get_attribute("data-matches") == "12"
        page.locator(f"{WORKSPACE} .te-ws-kind").select_option("")
        page.locator(f"{WORKSPACE} .te-ws-tool").select_option("calculator")
        calls = [s["tool"] for s in data["steps"]].count("calculator")
        assert page.locator(WORKSPACE).get_attribute("data-matches") == str(calls) and calls >= 3
        page.locator(f"{WORKSPACE} .te-ws-tool").select_option("")
        page.locator(f"{WORKSPACE} .te-ws-slow").select_option("top5")
        slowest = sorted((s["duration"], -i) for i, s in enumerate(data["steps"]) if s["duration"] is not None)[-5:]
        assert workspace(page, "w => [...w.matching].sort((a, b) => a - b)") == sorted(-i for _, i in slowest)
        page.locator(f"{WORKSPACE} .te-ws-slow").select_option("")
        assert page.locator(WORKSPACE).get_attribute("data-matches") == ""
        screenshot(page, "session-react-workspace")
        # the graph: a click selects its step; a Thought its Analysis; the Question the first step
        target = REACT_12 + "/i3"
        click_node(page, target)  # shows the graph: its library comes then, and it draws every node
        assert page.evaluate("typeof globalThis.vis.Network") == "function"
        assert dag(page, "v => v.nodes.length") == len(data["graph"]["nodes"])
        assert selected(page) == target and page.locator(DAG).get_attribute("data-selected") == target
        wait_step(page, target, timeout_ms=3000)
        assert session.nodes[target].fields["thought"] in inspector_text(page)
        click_node(page, REACT_12 + "/i5/thought")
        assert selected(page) == REACT_12 + "/i5"
        click_node(page, REACT_12)
        assert selected(page) == walk[0]
        wait_step(page, walk[0], first=True, timeout_ms=3000)
        # layered, no wrapping: the chain runs left to right on one row; labels of 12 px at least
        places = dag(page, "v => v.network.getPositions()")
        chain = [places[s.id] for s in session.steps]
        assert all(b["x"] > a["x"] and b["y"] == a["y"] for a, b in zip(chain, chain[1:]))
        assert dag(page, "v => v.network.getScale()") * 14 >= 12
        fills = dag(page, "v => v.nodes.get().map(n => [n.kind, n.color.background])")
        by_kind = {}
        for kind, fill in fills:
            by_kind.setdefault(kind, set()).add(fill)
        assert len({next(iter(f)) for f in by_kind.values()}) == len(by_kind)  # one fill per kind, each its own
        # the wheel scrolls the page over the graph (no zoom) unless the graph has the focus or Ctrl is held
        page.locator('[data-testid="stMain"] h3').first.click()
        scale = dag(page, "v => v.network.getScale()")
        x, y = dag(page, "(v) => { const b = v.canvas.getBoundingClientRect(); return [b.x + b.width / 2, b.y + 60]; }")
        main = page.locator('[data-testid="stMain"]')
        before = main.evaluate("e => e.scrollTop")
        page.mouse.move(x, y)
        page.mouse.wheel(0, 200)
        page.wait_for_timeout(300)
        assert dag(page, "v => v.network.getScale()") == scale
        assert main.evaluate("e => e.scrollTop") > before
        page.keyboard.down("Control")
        page.mouse.wheel(0, -100)
        page.keyboard.up("Control")
        assert dag(page, "v => v.network.getScale()") > scale
        # a tooltip closes when the mouse leaves the graph
        assert hover_node(page, REACT_12 + "/i4")
        page.mouse.move(5, 5)
        page.wait_for_timeout(200)
        assert not page.locator(f"{DAG} div.vis-tooltip").is_visible()
    with chromium_page(viewport=(1000, 1000)) as page:  # a link opens the same step
        page.goto(session_url(app_url, REACT_12, step=REACT_12 + "/i7"))
        wait_drawn(page)
        assert selected(page) == REACT_12 + "/i7"
        assert REACT_12 + "/i7" in shown_rows(page)
        assert session.nodes[REACT_12 + "/i7"].fields["thought"] in inspector_text(page)


def test_the_graphs_overview_shows_the_whole_run_and_ctrl_wheel_zooms_out(app_url, sessions):
    # at a readable scale the graph shows about 7 of the run's 26 steps: the overview in its
    # corner draws every node, and a click at its end brings the Conclusion into view
    conclusion = sessions[REACT_12].steps_of("Conclusion")[0].id
    with chromium_page(viewport=(1400, 1000)) as page:
        page.goto(session_url(app_url, REACT_12))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        count = dag(page, "v => v.nodes.length")
        page.locator(f"{DAG} .te-dag-canvas").scroll_into_view_if_needed()
        overview = page.locator(f"{DAG} .te-dag-overview")
        assert page.locator(DAG).get_attribute("data-overview") == "shown"
        assert overview.get_attribute("data-nodes") == str(count) and count >= 26
        assert not dag(page, "(v, id) => v.visible(id)", conclusion)
        box = overview.bounding_box()
        page.mouse.click(box["x"] + box["width"] - 4, box["y"] + box["height"] / 2)
        assert dag(page, "(v, id) => v.visible(id)", conclusion)
        # Ctrl + wheel zooms out past the readable scale, as far as the whole graph
        scale, whole = dag(page, "v => [v.network.getScale(), v.wholeScale()]")
        canvas = page.locator(f"{DAG} .te-dag-canvas").bounding_box()
        page.mouse.move(canvas["x"] + canvas["width"] / 2, canvas["y"] + 60)
        page.keyboard.down("Control")
        for _ in range(30):
            page.mouse.wheel(0, 200)
        page.keyboard.up("Control")
        page.wait_for_timeout(200)
        assert whole < scale * 0.5 and dag(page, "v => v.network.getScale()") == pytest.approx(whole)


def test_a_supervisors_bands_fold_and_its_critical_path_shows(app_url, sessions):
    session = sessions[SUPERVISOR]
    data = workspace_data(session, sessions)
    walk = step_walk(session, sessions)
    headers = [i for i, e in enumerate(walk) if e.header]
    with chromium_page(viewport=(1400, 1000)) as page:
        page.goto(session_url(app_url, SUPERVISOR, step=walk[1].id))  # a link to the Decomposition
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        assert selected(page) == walk[1].id
        assert shown_rows(page) == [e.id for e in walk]
        # sub-agents start at their own time, each a band nested one level
        starts = timeline(page, "(w, rows) => rows.map((i) => w.steps[i].start)", headers)
        assert starts == [data["steps"][i]["start"] for i in headers] == [3_947_000, 6_581_000]
        indent = [page.locator(f'{TIMELINE} .te-wf-row[data-step="{walk[i].id}"] .te-wf-label').evaluate(
            "e => parseFloat(e.style.paddingLeft)") for i in (1, 2, 3)]
        assert indent[0] < indent[1] == indent[2]
        # the hour of idle time before each sub-agent is drawn compressed and said so: the bands
        # of 10 and 13 s of work are no slivers of a 110-minute axis, and the ticks keep real times
        assert data["idle_gaps"] == [[0.0, 3_947_000.0], [3_956_877.0, 6_581_000.0]]
        widths = [float(page.locator(f'{TIMELINE} .te-wf-row[data-step="{walk[i].id}"] .te-wf-band').evaluate(
            "e => e.style.width").rstrip("%")) for i in headers]
        assert all(w > 25 for w in widths), widths
        assert page.locator(f"{TIMELINE} .te-wf-axis-label").inner_text() == "Step · ⋯ idle time compressed"
        ticks = page.locator(f"{TIMELINE} .te-wf-tick").all_inner_texts()
        assert ticks.count("⋯") == 2 and "65 min 50 s" in ticks
        # keys step into the band: its Question, then its first step
        page.locator('[data-testid="stMain"] h3').first.click()
        page.keyboard.press("j")
        page.keyboard.press("j")
        assert selected(page) == walk[3].id
        wait_step(page, walk[3].id, timeout_ms=3000)
        # fold the first band, which holds the selected step: the band's header takes the
        # selection; its rows go, j steps over it, k comes back to its header
        inside = len(walk[headers[0]].session.steps)
        page.locator(f'{TIMELINE} .te-wf-row[data-step="{walk[headers[0]].id}"] .te-wf-toggle').click()
        assert page.locator(TIMELINE).get_attribute("data-rows-shown") == str(len(walk) - inside)
        assert walk[3].id not in shown_rows(page)
        assert selected(page) == walk[headers[0]].id
        assert page.locator(f'{TIMELINE} .te-wf-row.te-selected').get_attribute("data-step") == walk[headers[0]].id
        page.keyboard.press("j")
        assert selected(page) == walk[headers[0] + inside + 1].id
        page.keyboard.press("k")
        assert selected(page) == walk[headers[0]].id
        screenshot(page, "session-supervisor-band-folded")
        page.locator(f'{TIMELINE} .te-wf-row[data-step="{walk[headers[0]].id}"] .te-wf-toggle').click()
        assert page.locator(TIMELINE).get_attribute("data-rows-shown") == str(len(walk))
        # the critical path: its rows marked, its edges thick in the graph
        page.locator(f"{WORKSPACE} .te-ws-critical").check()
        page.wait_for_timeout(50)
        marked = page.locator(f"{TIMELINE} .te-wf-row.te-critical").evaluate_all("rs => rs.map(r => r.dataset.step)")
        assert sorted(marked) == sorted(data["steps"][i]["id"] for i in data["critical"])
        assert data["steps"][data["critical"][-1]]["id"] == SUPERVISOR + "/synthesis"
        thick = dag(page, "v => v.edges.get().filter(e => e.width === 4).map(e => [e.from, e.to])")
        nodes = {data["steps"][i]["node"] for i in data["critical"]}
        assert thick and all(a in nodes and b in nodes for a, b in thick)
        screenshot(page, "session-supervisor-critical-path")
        # the band's Question links to its sub-session, which opens
        show(page, "timeline")
        page.locator(f'{TIMELINE} .te-wf-row[data-step="{walk[headers[0]].id}"] .te-wf-label').click()
        page.locator(f"{INSPECTOR} .te-ins-link").first.click()
        sub = walk[headers[0]].session.id
        page.wait_for_function("(iri) => new URLSearchParams(location.search).get('session') === iri", arg=sub,
                               timeout=20000)
        page.locator(f'{WORKSPACE}[data-selected="{sub}/pattern-decision"], {WORKSPACE}').first.wait_for()
        wait_for_streamlit_idle(page)
        assert workspace(page, "w => w.data.session.id") == sub
        # the header's link back to the parent, a link from this page to this page: the address
        # follows it, so a reload opens the session shown (it once stayed on the sub-session)
        page.locator('[data-testid="stMain"] [data-testid="stPageLink"] a').filter(has_text="Parent:").first.click()
        page.wait_for_function("(iri) => new URLSearchParams(location.search).get('session') === iri",
                               arg=SUPERVISOR, timeout=20000)
        wait_for_streamlit_idle(page)
        assert workspace(page, "w => w.data.session.id") == SUPERVISOR


def test_the_evidence_switch_hangs_the_branch_beside_the_chain_and_tables_are_whole(app_url):
    from tests.conftest import MANIFEST
    from tests.evidence_traces import GRAPHRAG_TRAPPIST, TRAPPIST

    expected = {s["session"]: s for s in MANIFEST["evidence.trig"]["sessions"]}[GRAPHRAG_TRAPPIST]["evidence"]
    lineage = {e["chunk"] for e in expected} | {e["page"] for e in expected} | {e["document"] for e in expected}
    with chromium_page(viewport=(1400, 1000)) as page:
        page.goto(session_url(app_url, GRAPHRAG_TRAPPIST))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        before = dag(page, "v => v.network.getPositions()")
        assert not set(before) & lineage
        page.set_viewport_size({"width": 1000, "height": 1000})  # where the legend wraps
        page.wait_for_timeout(300)
        canvas = page.locator(f"{DAG} .te-dag-canvas")
        top = canvas.evaluate("e => e.getBoundingClientRect().top")
        assert page.locator(f"{DAG} .te-legend-off").count() == 3  # Chunk, Page, Document: listed, faded
        page.locator(f"{WORKSPACE} .te-ws-evidence input").check()
        assert canvas.evaluate("e => e.getBoundingClientRect().top") == top  # the graph has not moved down
        assert page.locator(f"{DAG} .te-legend-off").count() == 0
        page.set_viewport_size({"width": 1400, "height": 1000})
        page.wait_for_timeout(300)
        after = dag(page, "v => v.network.getPositions()")
        assert set(after) - set(before) == lineage  # the manifest's chunks, pages and document, at once
        assert {k: after[k] for k in before} == before  # the main chain has not moved
        lowest = max(p["y"] for p in before.values())
        assert all(after[n]["y"] > lowest for n in lineage)  # hung under it
        legend = page.locator(f"{DAG} .te-legend-item").all_inner_texts()
        assert {"Chunk", "Page", "Document"} <= {item.strip() for item in legend}
        screenshot(page, "session-graphrag-evidence-1400")
        page.set_viewport_size({"width": 1000, "height": 1000})
        page.wait_for_timeout(300)
        screenshot(page, "session-graphrag-evidence-1000")
        # the Focus's edges: a whole-width table, each triple as recorded
        focus = workspace(page, "w => w.steps.findIndex(s => s.id.includes(':prov:focus:'))")
        workspace(page, "(w, i) => w.select(i, 'test')", focus)
        table = page.locator(f"{INSPECTOR} table.te-ins-table").first
        assert table.bounding_box()["width"] > 0.9 * page.locator(WORKSPACE).bounding_box()["width"]
        assert page.locator(f"{INSPECTOR} .te-ins-caption").filter(has_text="Selected edges").count() == 1
        # a click on the document opens the documents page at it
        page.set_viewport_size({"width": 1400, "height": 1000})
        page.wait_for_timeout(300)  # the canvas is redrawn at the new width before a node is found on it
        for attempt in range(3):  # a click that lands while the graph is still being redrawn is tried again
            click_node(page, TRAPPIST)
            try:
                page.wait_for_url("**/documents?document=*", timeout=15000)
                break
            except PlaywrightTimeout:
                assert attempt < 2, "a click on the document never opened the documents page"
        wait_for_streamlit_idle(page)
        expect(page.get_by_text("Trappist breweries of Belgium").first).to_be_visible()


def test_session_pages_at_two_widths(app_url, sessions):
    # each page loaded once, at 1400 px; two of them then narrowed to 1000 px, as a person
    # narrows the window (a load costs the browser about 6 s of CPU on the two-core machine)
    with chromium_page(viewport=(1400, 1000)) as page:
        for name, iri in KINDS.items():
            page.set_viewport_size({"width": 1400, "height": 1000})
            page.goto(session_url(app_url, iri))
            for width in (1400, 1000) if name in ("react", "supervisor") else (1400,):
                if width != 1400:
                    page.set_viewport_size({"width": width, "height": 1000})
                    page.wait_for_timeout(300)  # the panes are laid out again at the new width
                wait_drawn(page)
                assert page.locator('[data-testid="stException"]').count() == 0
                walk = [e.id for e in step_walk(sessions[iri], sessions)]
                assert page.locator(TIMELINE).get_attribute("data-rows-shown") == str(len(walk))
                rows = shown_rows(page)
                assert rows == walk[:len(rows)] and len(rows) >= min(len(walk), 16)
                right = page.locator(f"{TIMELINE} .te-wf-ticks").evaluate("e => e.getBoundingClientRect().right")
                last = page.locator(f"{TIMELINE} .te-wf-tick").last.evaluate("e => e.getBoundingClientRect().right")
                assert last <= right + 70  # the last tick's label inside the pane
                page.locator(WORKSPACE).scroll_into_view_if_needed()
                screenshot(page, f"session-{name}-{width}")
                assert set(dag(page, "v => v.nodes.getIds()")) >= set(sessions[iri].graph.nodes)
                if name in ("react", "supervisor"):
                    for item in page.locator(f"{DAG} .te-legend-item").all():
                        assert item.evaluate("e => e.getBoundingClientRect().right") <= width
                    screenshot(page, f"session-{name}-graph-{width}")
        # a GraphRAG Focus's table of edges, in the narrow window: its headers are whole words
        # ("Predicate", never "Predica" over "te"; a cell's long IRI still wraps anywhere)
        focus = sessions[GRAPHRAG].steps_of("Focus")[0].id
        page.goto(session_url(app_url, GRAPHRAG, step=focus))
        wait_drawn(page)
        headers = page.locator(f"{INSPECTOR} .te-ins-table th")
        headers.first.wait_for()
        lines = headers.evaluate_all("hs => hs.map(h => [h.textContent, h.getBoundingClientRect().height])")
        assert [t for t, _ in lines][:5] == ["Subject", "Predicate", "Object", "Concept", "Score"]
        assert len({round(h) for _, h in lines}) == 1, lines  # one line each, all of a height


# -- a 1,000-iteration run (2,002 steps) from a local store ---------------------------------------
# Long enough to be drawn folded (6 folds) and windowed; benchmarks/browser_session.py times 4,002.
ITERATIONS = 1000
STEPS = 2 * ITERATIONS + 2
@pytest.fixture(scope="module")
def long_store_url(tmp_path_factory):
    from tests.test_timeline import long_react_files
    from tests.browser_support import streamlit_server
    from trace_explorer.analysis.health.index import refresh_health
    from trace_explorer.store.ingest import ingest_file
    from trace_explorer.store.local_store import open_local_store

    root, nquads, documents = long_react_files(ITERATIONS)
    folder = tmp_path_factory.mktemp("long-store")
    store = open_local_store(folder / "store")
    ingest_file(store, "long.nq", nquads)
    ingest_file(store, "long.documents.json", documents)
    refresh_health(store.writer_source(), after_ingest=True)  # as `trace-explorer ingest` does
    del store
    with streamlit_server(env={"TRACE_EXPLORER_STORE": str(folder / "store")}) as url:
        yield url, root


def test_a_2002_step_run_scrolls_moves_and_opens_its_folds(long_store_url):
    from tests.test_timeline import long_react

    url, root = long_store_url
    session = long_react(ITERATIONS)
    with chromium_page(viewport=(1400, 1000)) as page:
        frames = []  # every message the page sends the server (a rerun, a component's trigger)
        page.on("websocket", lambda socket: socket.on("framesent", lambda payload: frames.append(payload)))
        page.goto(session_url(url, root), timeout=120000)
        wait_drawn(page, timeout_ms=120000)
        wait_for_streamlit_idle(page, timeout_ms=120000)
        assert page.locator(TIMELINE).get_attribute("data-rows-shown") == str(STEPS)
        rows = page.locator(f"{TIMELINE} .te-wf-row")
        assert 10 < rows.count() < 80  # only the rows in view are in the page
        assert rows.first.inner_text().replace("\n", " ").strip().endswith("PatternDecision: react")
        # quick presses move at once
        page.locator('[data-testid="stMain"] h3').first.click()
        for _ in range(3):
            page.keyboard.press("j")
        assert selected(page) == session.steps[3].id
        assert session.steps[3].fields["thought"] in page.locator(INSPECTOR).inner_text()
        # one page scroll: the timeline is as tall as its rows and the inspector under the
        # selected row, nothing with a scroll of its own; j keeps the selected row and its words
        # in the window
        for _ in range(30):
            page.keyboard.press("j")
        assert selected(page) == session.steps[33].id
        assert session.steps[33].fields["thought"] in page.locator(INSPECTOR).inner_text()
        page.wait_for_timeout(200)
        place = page.locator(WORKSPACE).evaluate(
            "h => { const r = h.querySelector('.te-wf-row.te-selected').getBoundingClientRect();"
            " const i = h.querySelector('.te-ins').getBoundingClientRect();"
            " const b = h.querySelector('.te-wf-body'); const ins = h.querySelector('.te-ins');"
            " return [r.top, r.bottom, i.top, i.bottom, innerHeight, b.clientHeight - b.scrollHeight,"
            " ins.scrollHeight - ins.clientHeight, b.clientHeight - " + str(STEPS) + " * 26 - ins.offsetHeight]; }")
        row_top, row_bottom, ins_top, ins_bottom, window_height, body_scroll, ins_scroll, extra = place
        assert 60 < row_top and row_bottom <= ins_top < row_bottom + 10 and ins_top < window_height
        assert body_scroll == 0 and ins_scroll == 0 and 0 <= extra <= 10  # no box scrolls on its own
        below = page.locator(f'{TIMELINE} .te-wf-row[data-step="{session.steps[34].id}"]').bounding_box()
        assert below["y"] >= ins_bottom  # the next row comes after the words, not under them
        # the last row: scrolled to (the page, not a box), selected by a click
        scroll_to_timeline_end(page)
        assert 10 < rows.count() < 80  # still only the rows in view
        assert shown_rows(page)[-1] == session.steps[-1].id
        page.locator(f'{TIMELINE} .te-wf-row[data-step="{session.steps[-1].id}"] .te-wf-label').click()
        page.keyboard.press("j")
        assert selected(page) == session.steps[-1].id  # j from the last step stays there
        page.keyboard.press("k")
        assert selected(page) == session.steps[-2].id
        wait_step(page, session.steps[-2].id)
        screenshot(page, "session-long-1000-1400")
        # the graph is folded, and opens in the browser: no run of the page's script (the app's
        # run counter stays), the selection kept
        sent = len(frames)
        assert sent > 0  # the page did send its first run request: the count below can tell
        show(page, "graph")
        # its first showing asks for the graph's library, once (a rerun of the library's fragment,
        # not of the workspace: its 4,002 steps are not sent again); nothing after
        assert len(frames) == sent + 1
        sent = len(frames)
        drawn = dag(page, "v => v.shown.map(n => [n.id, n.role])")
        last = session.steps[-2].id.removesuffix("/observation")
        assert last in dict(drawn)  # the last iteration, drawn
        # an Iteration is painted as its Analysis, as the legend says
        assert dag(page, "(v, id) => v.nodes.get(id).color.border", last) == KIND_COLOURS["Analysis"]
        folds = [i for i, role in drawn if role == "folded"]
        assert 5 <= len(folds) <= 12
        before = len(drawn)
        click_node(page, folds[1])
        assert int(page.locator(DAG).get_attribute("data-node-count")) == before + 12  # 12 parts, the rest still folded
        shown = dict(dag(page, "v => v.shown.map(n => [n.id, n.role])"))
        assert shown.get(folds[1]) == "step" and sum(1 for r in shown.values() if r == "folded") == len(folds)  # what is left of it stays folded
        expect(page.locator(f"{DAG} .te-refold")).to_be_visible()
        assert selected(page) == session.steps[-2].id
        # j / k into a fold open it around the selected step; an iteration's node selects its step
        inside = next(i for i, s in enumerate(session.steps) if s.id.endswith("/i400"))
        workspace(page, "(w, i) => w.select(i, 'key')", inside)
        page.locator(f'{DAG}[data-selected$="/i400"]').wait_for(timeout=10000)
        page.keyboard.press("j")
        page.keyboard.press("j")
        assert selected(page) == session.steps[inside + 2].id
        page.locator(f'{DAG}[data-selected$="/i401"]').wait_for(timeout=10000)
        click_node(page, session.steps[inside].id)
        assert selected(page) == session.steps[inside].id
        # a step that is a fold's first part opens that fold too (a fold is named by its first part)
        page.locator(f"{DAG} .te-refold").click()
        first = folds[2]
        count = int(page.locator(DAG).get_attribute("data-node-count"))
        workspace(page, "(w, id) => w.select(w.index.get(id), 'key')", first)
        page.locator(f'{DAG}:not([data-node-count="{count}"])').wait_for(timeout=10000)
        assert dict(dag(page, "v => v.shown.map(n => [n.id, n.role])"))[first] == "step"
        assert page.locator(DAG).get_attribute("data-selected") == first
        # Ctrl + wheel zooms out as far as the whole graph, no further; Fit comes back to labels of
        # 12 px at least
        box = page.locator(f"{DAG} .te-dag-canvas").bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.keyboard.down("Control")
        for _ in range(25):
            page.mouse.wheel(0, 120)
        page.keyboard.up("Control")
        assert dag(page, "v => v.network.getScale()") == pytest.approx(dag(page, "v => v.wholeScale()"))
        page.locator(f"{DAG} .te-fit").click()
        assert dag(page, "v => v.network.getScale()") >= 12 / 14 - 1e-6
        # Fold again: back to what was sent, the selected step's run folded again too
        page.locator(f"{DAG} .te-refold").click()
        assert int(page.locator(DAG).get_attribute("data-node-count")) == before
        assert not page.locator(f"{DAG} .te-refold").is_visible()
        assert page.locator(DAG).get_attribute("data-selected") in folds
        assert len(frames) == sent  # nothing of it asked the server
        # a fold of leaves hanging off one node (not a chain) opens one under another, the node
        # under it moving down, each leaf's edge drawn to what it derives from
        fan = dag(page, """v => {
          const parts = Array.from({length: 20}, (_, k) => ({id: "leaf" + k, label: "Chunk " + k, tag: "", kind: "Chunk"}));
          const graph = {nodes: [{id: "q", label: "Q", level: 0, slot: 0, role: "step"},
                                 {id: "leaf0", label: "20 folded", level: 1, slot: 0, role: "folded", row: false, chain: false, parts: parts},
                                 {id: "other", label: "O", level: 1, slot: 1, role: "step"},
                                 {id: "next", label: "N", level: 2, slot: 0, role: "step"}],
                         edges: [{from: "leaf0", to: "q", relation: "wasDerivedFrom"}, {from: "other", to: "q", relation: "wasDerivedFrom"},
                                 {from: "next", to: "q", relation: "wasDerivedFrom"}],
                         fold_edges: parts.map(p => ({from: p.id, to: "q", relation: "wasDerivedFrom"})), open_window: 12, max_open: 3};
          const folds = new v.folds.constructor(graph, v.ws);  // folds.js, on a graph of its own
          folds.layout();
          folds.openAt("leaf0");
          const now = folds.layout();
          return {places: Object.fromEntries(now.nodes.map(n => [n.id, [n.level, n.slot, n.role]])),
                  edges: now.edges.map(e => e.from + ">" + e.to)};
        }""")
        places = fan["places"]
        assert [places[f"leaf{k}"][:2] for k in range(12)] == [[1, k] for k in range(12)]
        assert places["leaf0 ⋯12"] == [1, 12, "folded"]  # the 8 left stay folded, under the 12 opened
        assert places["other"][:2] == [1, 13] and places["next"][:2] == [2, 0] and places["q"][:2] == [0, 0]
        assert sorted(fan["edges"]) == sorted([f"leaf{k}>q" for k in range(12)] + ["leaf0 ⋯12>q", "other>q", "next>q"])
        page.set_viewport_size({"width": 1000, "height": 1000})
        page.wait_for_timeout(300)
        screenshot(page, "session-long-1000-graph-1000")
        show(page, "timeline")
        screenshot(page, "session-long-1000-1000")


# -- hostile text ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hostile_store_url(tmp_path_factory):
    from tests import hostile_traces as hostile
    from tests.browser_support import streamlit_server
    from trace_explorer.store.ingest import ingest_file
    from trace_explorer.store.local_store import open_local_store

    folder = tmp_path_factory.mktemp("hostile-store")
    store = open_local_store(folder / "store")
    for name, data in hostile.hostile_files().items():
        ingest_file(store, name, data)
    del store
    with streamlit_server(env={"TRACE_EXPLORER_STORE": str(folder / "store")}) as url:
        yield url


def test_hostile_corpus_shows_as_text_in_the_workspace(hostile_store_url):
    from tests import hostile_traces as hostile

    with chromium_page(viewport=(1440, 1200)) as page:
        dialogs: list[str] = []
        requests: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("request", lambda r: requests.append(r.url))
        for iri in (hostile.AGENT, hostile.GRAPHRAG, hostile.DOCRAG):
            page.goto(session_url(hostile_store_url, iri))
            wait_drawn(page)
            wait_for_streamlit_idle(page)
            # every step's inspector: text only (no element made of trace text)
            made = workspace(page, """(w, payload) => w.steps.map((s, i) => { w.select(i, 'test');
                return [w.inspector.querySelectorAll('img, script, a, svg, iframe, b, style').length,
                        w.inspector.textContent.includes(payload)]; })""", hostile.SCRIPT)
            assert [m[0] for m in made] == [0] * len(made) and len(made) >= 2
            assert any(m[1] for m in made)  # the payload is there, as text
            if iri == hostile.AGENT:  # the timeline's tooltips once: they are drawn alike for every session
                for row in page.locator(f"{TIMELINE} .te-wf-row").all()[:2]:
                    row.hover()
                    tip = page.locator(f"{TIMELINE} .te-wf-tip")
                    tip.wait_for(state="visible", timeout=5000)
                    assert tip.evaluate("e => e.children.length") == 0
            # every node's tooltip is a string (vis-network shows a string as text, an element as
            # HTML); those holding the payload, and the first, hovered: text broken into lines only
            titles = dag(page, "(v, p) => v.nodes.get().map(n => [n.id, typeof n.title, n.title.includes(p)])",
                         hostile.SCRIPT)
            assert {kind for _, kind, _ in titles} == {"string"}
            hovered = [titles[0][0]] + [node for node, _, payload in titles if payload][:2]
            assert len(hovered) >= 2  # the first, and at least one holding the payload
            for node in hovered:
                text = hover_node(page, node)
                assert text and "\n" in text, node
                assert page.locator(f"{DAG} div.vis-tooltip").evaluate(
                    "e => Array.from(e.querySelectorAll('*')).every(n => n.tagName === 'BR')")
            assert page.locator('img[src="x"], iframe[src^="javascript"], a[href^="javascript"]').count() == 0
            # trace text never becomes a link (escaped Markdown; URLs kept from autolinking)
            assert page.locator('[data-testid="stMain"] [data-testid="stMarkdownContainer"] a').count() == 0
            screenshot(page, f"hostile-workspace-{iri.rsplit(':', 2)[-2]}")
        assert page.evaluate("() => window.__pwned") is None
        assert dialogs == []
        assert not [u for u in requests if "127.0.0.1:9/" in u or u.startswith("javascript:")]
