"""The timeline rows and chart, checked against the reference corpus (manifest.json and the raw
trace values read straight from the files with pyoxigraph)."""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from pathlib import Path

import networkx as nx
import pyoxigraph as ox
import pytest

from trace_explorer.model import Session, Step
from trace_explorer.palette import KIND_COLOURS, kind_colour
from trace_explorer.sessions import read_sessions
from trace_explorer.store import load_collection
from trace_explorer.timeline import (COLUMNS, SELECTION, UNTIMED_FRACTION, timeline_chart,
                                     timeline_rows)

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
TG = "https://trustgraph.ai/ns/"
REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
PLAN = "urn:trustgraph:agent:1a4f44f9-a651-4445-b9f3-635cf88c422b"
GRAPHRAG = "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"


def manifest_session(iri: str) -> dict:
    return next(s for f in MANIFEST.values() for s in f["sessions"] if s["session"] == iri)


@pytest.fixture(scope="module")
def sessions() -> dict[str, Session]:
    collection, errors = load_collection([CORPUS])
    assert errors == []
    return {s.id: s for s in read_sessions(collection)}


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


def test_steps_are_laid_end_to_end_and_untimed_steps_get_a_fixed_width(sessions):
    rows = timeline_rows(sessions[REACT_12])
    assert rows["start_ms"].iloc[0] == 0.0
    assert (rows["start_ms"].iloc[1:].to_numpy() == rows["end_ms"].iloc[:-1].to_numpy()).all()
    measured = rows["duration_ms"].sum()
    untimed = rows[rows["duration_ms"].isna()]
    assert untimed["kind"].tolist() == ["PatternDecision", "Conclusion"]
    widths = (untimed["end_ms"] - untimed["start_ms"]).tolist()
    assert widths == pytest.approx([measured * UNTIMED_FRACTION] * 2)
    timed = rows[rows["duration_ms"].notna()]
    assert (timed["end_ms"] - timed["start_ms"]).tolist() == pytest.approx(timed["duration_ms"].tolist())
    assert rows["end_ms"].iloc[-1] == pytest.approx(measured * (1 + 2 * UNTIMED_FRACTION))


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
    assert rows["end_ms"].tolist() == [1.0, 2.0, 3.0, 4.0]
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
    assert spec["params"] == [{"name": SELECTION, "select": {
        "type": "point", "fields": ["step"], "on": "click", "toggle": False, "clear": False}}]
    colour = spec["encoding"]["color"]
    assert colour["field"] == "kind"
    assert colour["scale"]["domain"] == ["PatternDecision", "Analysis", "Observation", "Conclusion"]
    assert colour["scale"]["range"] == [KIND_COLOURS[k] for k in colour["scale"]["domain"]]
    tooltip = {t["field"]: t.get("title") for t in spec["encoding"]["tooltip"]}
    assert tooltip["label"] == "step" and "kind" in tooltip and tooltip["step"] == "IRI"
    assert tooltip["tip_duration"] == "duration"
    data = next(iter(spec["datasets"].values()))
    assert [r["step"] for r in data if r["selected"]] == [selected]
    first = data[1]  # i1 Analysis: calculator, as the tooltip shows it
    assert (first["tip_duration"], first["tip_detail"], first["tip_model"], first["tip_status"]) == (
        f"{int(rows['duration_ms'].iloc[1]):,} ms", "calculator", "gpt-4o-mini", "ok")
    assert data[4]["tip_status"] == "failed ✗" and data[0]["tip_duration"] == "not recorded"
    assert spec["encoding"]["x"]["field"] == "start_ms" and spec["encoding"]["x2"]["field"] == "end_ms"
    assert spec["height"] == {"step": 22}


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


def test_a_2000_step_session_still_builds():
    session = synthetic_react(1000)
    started = time.perf_counter()
    rows = timeline_rows(session)
    spec = timeline_chart(rows, selected=rows["step"].iloc[1500]).to_dict()
    elapsed = time.perf_counter() - started
    assert len(rows) == 2000 and rows["label"].is_unique
    assert spec["height"] == 720  # capped: the rows share a fixed plot height
    assert spec["encoding"]["y"]["axis"] is None  # labels would be unreadable
    assert elapsed < 5.0
