"""The timeline rows and chart, checked against the reference corpus (manifest.json and the raw
trace values read straight from the files with pyoxigraph)."""

from __future__ import annotations

import functools
import importlib.util
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

import networkx as nx
import pyoxigraph as ox
import pytest

from tests.conftest import CORPUS, MANIFEST
from trace_explorer.model.reader import read_sessions
from trace_explorer.model.session import Session, Step
from trace_explorer.views.palette import KIND_COLOURS, kind_colour
from trace_explorer.views.timeline import (COLUMNS, SELECTION, WINDOW_ROWS, timeline_chart,
                                           timeline_rows, window_bounds, window_caption, window_count, window_of)

TG = "https://trustgraph.ai/ns/"
REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
PLAN = "urn:trustgraph:agent:1a4f44f9-a651-4445-b9f3-635cf88c422b"
GRAPHRAG = "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"


def manifest_session(iri: str) -> dict:
    return next(s for f in MANIFEST.values() for s in f["sessions"] if s["session"] == iri)


def raw_values(file: str, predicate: str, prefix: str) -> dict[str, int]:
    """subject -> integer value of ``predicate`` for subjects under ``prefix``, read directly."""
    store = ox.Store()
    store.bulk_load(path=str(CORPUS / file), format=ox.RdfFormat.TRIG)
    return {q.subject.value: int(q.object.value)
            for q in store.quads_for_pattern(None, ox.NamedNode(TG + predicate), None)
            if isinstance(q.subject, ox.NamedNode) and q.subject.value.startswith(prefix)}


def test_react_session_has_a_row_per_step_with_the_traced_durations(sessions):
    session = sessions[REACT_12]
    rows = timeline_rows(session)
    assert list(rows.columns) == list(COLUMNS)
    assert rows["step"].tolist() == [s.id for s in session.steps]
    assert rows["index"].tolist() == list(range(len(session.steps)))
    assert set(rows["axis"]) == {"ms"}

    analysis = rows[rows["kind"] == "Analysis"]
    expected = manifest_session(REACT_12)
    assert len(analysis) == expected["analysis_steps"] == 12
    assert analysis["detail"].tolist() == expected["actions"]
    llm = raw_values("collection.trig", "llmDurationMs", REACT_12 + "/")
    assert len(llm) == 12
    assert dict(zip(analysis["step"], analysis["duration_ms"])) == {k: float(v) for k, v in llm.items()}

    observations = rows[rows["kind"] == "Observation"]
    tool = raw_values("collection.trig", "toolDurationMs", REACT_12 + "/")
    assert dict(zip(observations["step"], observations["duration_ms"])) == {k: float(v) for k, v in tool.items()}
    # the one failed tool call (manifest tool_errors) is flagged on its Observation
    assert observations["error"].sum() == expected["tool_errors"] == 1
    assert observations[observations["error"]]["label"].tolist() == ["i2 Observation ✗"]


def test_steps_are_laid_end_to_end_and_untimed_steps_are_instants(sessions):
    rows = timeline_rows(sessions[REACT_12])
    assert rows["start_ms"].iloc[0] == 0.0
    assert (rows["start_ms"].iloc[1:].to_numpy() == rows["end_ms"].iloc[:-1].to_numpy()).all()
    measured = rows["duration_ms"].sum()
    untimed = rows[rows["duration_ms"].isna()]
    assert untimed["kind"].tolist() == ["PatternDecision", "Conclusion"]
    assert (untimed["end_ms"] - untimed["start_ms"]).tolist() == [0.0, 0.0]  # no width: a marker
    assert untimed["start_ms"].tolist() == [0.0, pytest.approx(measured)]  # at the start, at the end
    timed = rows[rows["duration_ms"].notna()]
    assert (timed["end_ms"] - timed["start_ms"]).tolist() == pytest.approx(timed["duration_ms"].tolist())
    assert rows["end_ms"].iloc[-1] == pytest.approx(measured)  # 77.4 s recorded, nothing added


def test_labels_are_short_unique_and_name_the_tool(sessions):
    rows = timeline_rows(sessions[REACT_12])
    assert rows["label"].iloc[:4].tolist() == [
        "PatternDecision: react", "i1 Analysis: calculator", "i1 Observation",
        "i2 Analysis: mcp:weather ✗"]
    assert rows["label"].iloc[-1] == "Conclusion"
    assert rows["label"].is_unique


def test_a_session_without_durations_uses_the_order_axis(sessions):
    rows = timeline_rows(sessions[GRAPHRAG])
    assert rows["kind"].tolist() == ["Grounding", "Exploration", "Focus", "Synthesis"]
    assert set(rows["axis"]) == {"order"}
    assert rows["start_ms"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert rows["end_ms"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert rows["duration_ms"].isna().all()


def test_plan_steps_come_in_plan_order(sessions):
    rows = timeline_rows(sessions[PLAN])
    results = rows[rows["kind"] == "StepResult"]
    assert results["detail"].tolist() == manifest_session(PLAN)["plan_steps"]
    assert results["label"].iloc[9] == "#10 StepResult: Step 10: check source 10"


def test_chart_colours_by_kind_and_selects_the_step_field(sessions):
    rows = timeline_rows(sessions[REACT_12])
    selected = rows["step"].iloc[3]
    spec = timeline_chart(rows, selected=selected).to_dict()
    param = spec["params"][0]
    assert param["name"] == SELECTION and param["select"] == {
        "type": "point", "fields": ["step"], "on": "click", "toggle": False, "clear": False}
    colour = spec["encoding"]["color"]
    assert colour["field"] == "kind"
    assert colour["scale"]["domain"] == ["PatternDecision", "Analysis", "Observation", "Conclusion"]
    assert colour["scale"]["range"] == [KIND_COLOURS[k] for k in colour["scale"]["domain"]]
    assert colour["legend"]["labelLimit"] == 0  # legend labels are never cut
    assert spec["encoding"]["x"]["axis"]["labelFlush"] is True  # the last tick label stays inside
    tooltip = {t["field"]: t.get("title") for t in spec["encoding"]["tooltip"]}
    assert tooltip["label"] == "step" and "kind" in tooltip and tooltip["step"] == "IRI"
    assert tooltip["tip_duration"] == "duration"
    data = next(iter(spec["datasets"].values()))
    assert [r["step"] for r in data if r["selected"]] == [selected]
    first = data[1]  # i1 Analysis: calculator, as the tooltip shows it
    assert (first["tip_duration"], first["tip_detail"], first["tip_model"], first["tip_status"]) == (
        f"{int(rows['duration_ms'].iloc[1]):,} ms", "calculator", "gpt-4o-mini", "ok")
    assert data[4]["tip_status"] == "failed ✗" and data[0]["tip_duration"] == "not recorded"
    # a bar per timed step, a diamond per step without a duration (PatternDecision, Conclusion)
    bars, marks = spec["layer"]
    assert bars["mark"]["type"] == "bar" and bars["encoding"]["x2"]["field"] == "end_ms"
    assert bars["transform"] == [{"filter": "!datum.marker"}]
    assert marks["mark"]["type"] == "point" and marks["mark"]["shape"] == "diamond"
    assert marks["transform"] == [{"filter": "datum.marker"}]
    assert [r["label"] for r in data if r["marker"]] == ["PatternDecision: react", "Conclusion"]
    assert spec["encoding"]["x"]["field"] == "start_ms"
    assert spec["height"] == {"step": 22}


def test_a_session_without_durations_draws_markers_in_order(sessions):
    data = next(iter(timeline_chart(timeline_rows(sessions[GRAPHRAG])).to_dict()["datasets"].values()))
    assert [r["marker"] for r in data] == [True] * 4  # no duration recorded: no bar, a marker in order
    assert [r["tip_start"] for r in data] == ["step 1", "step 2", "step 3", "step 4"]


def test_palette_gives_every_kind_one_colour_and_unknown_kinds_grey():
    assert kind_colour("Analysis") == KIND_COLOURS["Analysis"]
    assert kind_colour("SomethingNew") == kind_colour(None)
    assert "#dc2626" not in KIND_COLOURS.values()  # red means a tool error only


def synthetic_react(iterations: int) -> Session:
    """A react session of 2 * iterations steps (Analysis + Observation each)."""
    root = Step("urn:trustgraph:agent:x", "Question")
    session = Session(id=root.id, mechanism="Agent", question="q", root=root, pattern="react",
                      time=datetime(2026, 1, 1, tzinfo=timezone.utc))
    graph = nx.DiGraph()
    graph.add_node(root.id, kind="Question")
    previous = root.id
    for n in range(1, iterations + 1):
        analysis = Step(f"{root.id}/i{n}", "Analysis", fields={"action": f"tool{n % 7}", "llm_duration_ms": 100 + n})
        observation = Step(f"{root.id}/i{n}/observation", "Observation", fields={"tool_duration_ms": 10})
        for step, parent in ((analysis, previous), (observation, analysis.id)):
            session.steps.append(step)
            session.nodes[step.id] = step
            graph.add_node(step.id, kind=step.kind)
            graph.add_edge(step.id, parent, relation="wasDerivedFrom")
        previous = observation.id
    session.nodes[root.id] = root
    session.graph = graph
    session.order = [root.id] + [s.id for s in session.steps]
    return session


def test_a_2000_step_session_has_a_row_per_step_in_a_capped_chart():
    # (its speed: benchmarks/long_sessions.py)
    session = synthetic_react(1000)
    rows = timeline_rows(session)
    spec = timeline_chart(rows, selected=rows["step"].iloc[1500]).to_dict()
    assert len(rows) == 2000 and rows["label"].is_unique
    assert rows["step"].tolist() == [s.id for s in session.steps]
    assert spec["height"] == 720  # capped: the rows share a fixed plot height
    assert spec["encoding"]["y"]["axis"] is None  # labels would be unreadable


# -- long sessions: benchmarks/synthetic.py's ReAct runs, read like any upload -------------------
REPO = Path(__file__).resolve().parents[1]


def _synthetic():
    name = "benchmark_synthetic"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / "synthetic.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
    return sys.modules[name]


@functools.lru_cache(maxsize=4)
def long_react_files(iterations: int) -> tuple[str, bytes, bytes]:
    """A current-shape ReAct run of ``iterations`` Analysis steps (each with a Thought and an
    Observation; about 8 % of tool calls fail) made by ``benchmarks/synthetic.py``: (root IRI,
    N-Quads bytes, ``.documents.json`` bytes). 2,000 iterations make 4,002 steps."""
    root, quads, documents = _synthetic().make_react_session(iterations)
    return root, ox.serialize(quads, format=ox.RdfFormat.N_QUADS), json.dumps(documents).encode()


@functools.lru_cache(maxsize=4)
def long_react(iterations: int) -> Session:
    """The session of ``long_react_files(iterations)``, read by the project's reader (shared by
    the tests: do not change it, copy it)."""
    from trace_explorer.read.collection import TraceStore

    root, nquads, documents = long_react_files(iterations)
    store = TraceStore()
    store.add_file("long.nq", nquads)
    store.add_file("long.documents.json", documents)
    return {s.id: s for s in read_sessions(store)}[root]


def test_windows_page_a_long_session_in_reading_order():
    assert WINDOW_ROWS == 200
    assert window_count(4002) == 21 and window_count(200) == 1 and window_count(0) == 1
    assert window_bounds(4002, 6) == (1200, 1400)
    assert window_caption(*window_bounds(4002, 6), 4002) == "steps 1,201–1,400 of 4,002"
    assert window_bounds(4002, 20) == (4000, 4002)  # the last window is short
    assert window_bounds(4002, 99) == (4000, 4002) and window_bounds(4002, -3) == (0, 200)  # clamped
    assert window_bounds(0, 0) == (0, 0)
    assert [window_of(i) for i in (0, 199, 200, 1300, 4001)] == [0, 0, 1, 6, 20]
    assert window_of(None) == 0
    covered = [i for w in range(window_count(4002)) for i in range(*window_bounds(4002, w))]
    assert covered == list(range(4002))  # every step in exactly one window
    assert window_caption(*window_bounds(100_002, 500), 100_002) == "steps 100,001–100,002 of 100,002"


def test_a_window_of_a_long_session_spans_its_own_time():
    session = long_react(2000)
    rows = timeline_rows(session)
    assert len(rows) == len(session.steps) == 4002
    start, end = window_bounds(len(rows), window_of(1300))
    window = rows.iloc[start:end]
    spec = timeline_chart(window, selected=rows["step"].iloc[1300]).to_dict()
    data = next(iter(spec["datasets"].values()))
    assert len(data) == 200 and data[0]["index"] == 1200 and data[-1]["index"] == 1399
    assert [r["step"] for r in data if r["selected"]] == [session.steps[1300].id]
    scale = spec["encoding"]["x"]["scale"]
    assert scale["domain"] == [rows["start_ms"].iloc[1200], rows["end_ms"].iloc[1399]]
    assert scale["zero"] is False and rows["start_ms"].iloc[1200] > 0  # not drawn from 0
    first = timeline_chart(rows.iloc[0:200]).to_dict()
    assert "domain" not in first["encoding"]["x"]["scale"]  # the first window, like a short session


def test_a_short_session_chart_has_no_window_scale(sessions):
    spec = timeline_chart(timeline_rows(sessions[REACT_12])).to_dict()
    assert spec["encoding"]["x"]["scale"] == {"domainMin": 0, "nice": True}  # from 0, room at the end


def test_a_20000_step_timeline_builds_its_rows_and_a_window():
    """A 20,000-step session: rows for every step, a chart of one window (the whole would raise
    Altair's MaxRowsError, past 5,000 rows). Made in memory: 10,000 iterations (100,000 steps and
    their speed: benchmarks/long_sessions.py)."""
    session = synthetic_react(10_000)
    rows = timeline_rows(session)
    start, end = window_bounds(len(rows), window_of(17_777))
    spec = timeline_chart(rows.iloc[start:end], selected=rows["step"].iloc[17_777]).to_dict()
    assert len(rows) == 20_000 and (start, end) == (17_600, 17_800)
    shown = next(iter(spec["datasets"].values()))
    assert [r["step"] for r in shown] == [s.id for s in session.steps[17_600:17_800]]


# -- the session page of a long session (AppTest) ---------------------------------------------------
def long_session_app(iterations: int, step_index: int):
    """The app with a ``long_react_files(iterations)`` upload, on that session's page with
    step ``step_index`` (0-based, reading order) named in the URL."""
    from streamlit.testing.v1 import AppTest

    root, nquads, documents = long_react_files(iterations)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180).run()
    at.sidebar.file_uploader[0].set_value([("long.nq", nquads, "application/n-quads"),
                                           ("long.documents.json", documents, "application/json")]).run()
    assert not at.exception and not at.sidebar.error
    at.switch_page("app_pages/session.py")
    at.query_params["session"] = root
    at.query_params["step"] = long_react(iterations).steps[step_index].id
    at.run()
    assert not at.exception, at.exception
    return at


def captions(at) -> list[str]:
    return [c.value.replace("\\", "") for c in at.main.caption]


@pytest.mark.long
def test_a_long_session_page_sends_every_row_and_folds_the_graph():
    from tests.workspace_support import sent

    session = long_react(2000)
    at = long_session_app(2000, 1300)
    data = sent(at)
    shape = data["shape"]
    # the workspace gets every row (the browser draws those in view), with the step in the URL selected
    assert [s["id"] for s in shape["steps"]] == [s.id for s in session.steps] and len(shape["steps"]) == 4002
    assert shape["steps"][1]["label"] == "i1 Analysis: " + session.steps[1].fields["action"]
    assert data["selected"] == session.steps[1300].id
    assert shape["axis"] == "ms" and shape["steps"][0]["duration"] is None and shape["steps"][-1]["duration"] is None
    group = session.steps[1300].id.removesuffix("/observation")  # i650/observation -> i650
    # the graph is sent folded, with what each fold holds: the browser opens the one holding the step
    fold = next(n for n in shape["graph"]["nodes"] if n["id"] == shape["steps"][1300]["node"])
    assert fold["role"] == "folded" and shape["steps"][1300]["unit"] == group
    assert group in [p["id"] for p in fold["parts"]] and fold["row"] and fold["chain"]
    # the graph says it is folded
    assert any(c.startswith("Long session: 4,002 steps, 6,003 graph nodes.") for c in captions(at))
    assert drawn_nodes(at) <= 40 and drawn_nodes(at) == len(shape["graph"]["nodes"]) and shape["graph"]["folded"]
    folds = [n for n in shape["graph"]["nodes"] if n["role"] == "folded"]
    assert 5 <= len(folds) <= 12
    # every iteration of the run is in exactly one fold or drawn; the folds' parts are in reading order
    iterations = [s.id for s in session.steps if s.kind == "Analysis"]
    held = [p["id"] for n in folds for p in n["parts"]]
    drawn = {n["id"] for n in shape["graph"]["nodes"]}
    assert len(held) == len(set(held)) and set(held) | (drawn & set(iterations)) == set(iterations)
    assert held == [i for i in iterations if i in set(held)]


def component_data(at, name: str) -> dict:
    """The data the page sends to the custom component ``name`` (its JSON)."""
    element = next(e for e in page_elements(at, "bidi_component") if e.proto.component_name == name)
    return json.loads(element.proto.json)


def page_elements(at, kind: str) -> list:
    """Every element of ``kind`` ("vega_lite_chart", "iframe", ...) on the page, nested ones too."""
    def walk(node):
        for child in getattr(node, "children", {}).values():
            yield child
            yield from walk(child)
    return [e for e in walk(at.main) if getattr(e, "type", None) == kind]


def drawn_nodes(at) -> int:
    """How many nodes the DAG caption of a long session says are drawn."""
    caption = next(c for c in captions(at) if c.startswith("Long session: ") and "nodes drawn" in c)
    return int(caption.split(" nodes drawn")[0].rsplit(" ", 1)[1].replace(",", ""))


def test_the_exported_timeline_places_each_sub_agent_at_its_own_start(sessions):
    # the export's chart holds the sub-sessions too, placed as the app's waterfall places them
    from tests.test_waterfall import SUPERVISOR, durations, started_ms

    rows = timeline_rows(sessions[SUPERVISOR], sessions)
    assert rows["axis"].iloc[0] == "ms"
    for child in sessions[SUPERVISOR].children:
        header = rows[rows["step"] == child].iloc[0]
        start = started_ms(child, SUPERVISOR)
        assert header["kind"] == "Sub-session" and header["label"].startswith("↳ Agent react: ")
        assert header["start_ms"] == start and header["duration_ms"] == sum(durations(child).values())
        first = rows[rows["step"] == sessions[child].steps[0].id].iloc[0]
        assert first["start_ms"] == start and first["label"].startswith("↳ ")
    # without the sub-sessions, the session's own steps alone
    assert list(timeline_rows(sessions[SUPERVISOR])["step"]) == [s.id for s in sessions[SUPERVISOR].steps]


def test_the_exported_timeline_draws_long_idle_stretches_compressed_and_says_so(sessions):
    # a supervisor whose sub-agents started 66 and 110 minutes in: their seconds of work were
    # slivers of the axis; the idle time is drawn compressed, and the axis names it
    supervisor = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
    rows = timeline_rows(sessions[supervisor], sessions)
    chart = timeline_chart(rows)
    spec = chart.to_dict()
    assert spec["encoding"]["x"]["title"].endswith("; idle time compressed: 65 min 47 s, 43 min 44 s")
    drawn = chart.data
    headers = drawn[drawn["kind"] == "Sub-session"]
    span = drawn["end_ms"].max()
    # each band as long as its work, on an axis of seconds, not 110 minutes
    assert [e - s for s, e in zip(headers["start_ms"], headers["end_ms"])] == pytest.approx([9877, 12661])
    assert span < 30_000 and 9877 / span > 0.3
    assert list(rows["end_ms"])[-1] == 6_593_661.0  # the rows keep their real times
    # a session without idle stretches keeps its axis as it was
    react = timeline_chart(timeline_rows(sessions[REACT_12], sessions)).to_dict()
    assert "compressed" not in react["encoding"]["x"]["title"]
