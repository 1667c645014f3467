"""The step walk and the waterfall (the app's timeline), checked against the reference corpus:
the manifest's sub-sessions and the durations read straight from the trace files."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timedelta

import pyoxigraph as ox
import pytest

from tests.conftest import CORPUS, MANIFEST
from trace_explorer.views.palette import kind_colour
from trace_explorer.views.step_walk import moved, step_walk, walk_positions
from trace_explorer.views.waterfall import HEADER_KIND, front_coded, idle_gaps, waterfall, waterfall_data

TG = "https://trustgraph.ai/ns/"
SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
TOOL_PARENT = "urn:trustgraph:agent:4ecadea2-81b6-4bb5-b866-64ae64a149f5"  # a tool call ran GraphRAG
REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
PLAN = "urn:trustgraph:agent:1a4f44f9-a651-4445-b9f3-635cf88c422b"
SERVICE_PLAN = "urn:trustgraph:agent:6c0ca6c0-5385-44ab-b2bd-8d408d09f648"  # the services demo: a plan that ran a GraphRAG


def file_of(session: str) -> str:
    """The corpus file that holds ``session`` (from the manifest)."""
    return next(name for name, f in MANIFEST.items() if any(s["session"] == session for s in f["sessions"]))


def children_of(parent: str) -> list[dict]:
    """The manifest's sub-sessions of ``parent`` (derived from one of its steps)."""
    return [s for f in MANIFEST.values() for s in f["sessions"] if (s["parent"] or "").startswith(parent + "/")]


def raw(session: str, predicates: tuple[str, ...]) -> dict[str, str]:
    """Subject IRI -> value of one of ``predicates`` (tg: names), for the steps of ``session``,
    read directly from its trace file."""
    file = file_of(session)
    store = ox.Store()
    store.bulk_load(path=str(CORPUS / file), format=ox.RdfFormat.from_extension(file.rsplit(".", 1)[1]))
    return {q.subject.value: q.object.value for predicate in predicates
            for q in store.quads_for_pattern(None, ox.NamedNode(TG + predicate), None)
            if q.subject.value.startswith(session + "/")}


def durations(session: str) -> dict[str, int]:
    """Step IRI -> its recorded duration (``tg:llmDurationMs`` or ``tg:toolDurationMs``)."""
    return {k: int(v) for k, v in raw(session, ("llmDurationMs", "toolDurationMs")).items()}


def test_the_walk_puts_each_sub_session_after_the_step_it_derives_from(sessions):
    walk = step_walk(sessions[SUPERVISOR], sessions)
    subs = children_of(SUPERVISOR)
    assert len(subs) == 2
    ids = [e.id for e in walk]
    decompose = ids.index(SUPERVISOR + "/decompose")
    first = sessions[subs[0]["session"]]
    # the Decomposition, then each sub-agent: its Question (a header) and its steps, one level deeper
    assert ids[decompose + 1] == first.id and walk[decompose + 1].header and walk[decompose + 1].depth == 1
    assert ids[decompose + 2:decompose + 2 + len(first.steps)] == [s.id for s in first.steps]
    assert {e.depth for e in walk[decompose + 1:decompose + 2 + len(first.steps)]} == {1}
    assert len(walk) == len(sessions[SUPERVISOR].steps) + sum(1 + len(sessions[s["session"]].steps) for s in subs)
    assert ids[-3:] == [SUPERVISOR + "/finding/0", SUPERVISOR + "/finding/1", SUPERVISOR + "/synthesis"]
    assert len(set(ids)) == len(ids)
    # without its sub-sessions at hand, the walk is the session's own steps
    assert [e.id for e in step_walk(sessions[SUPERVISOR])] == [s.id for s in sessions[SUPERVISOR].steps]


def test_moving_through_the_walk(sessions):
    walk = step_walk(sessions[REACT_12], sessions)
    ids = [e.id for e in walk]
    assert moved(walk, ids[3], 1) == ids[4] and moved(walk, ids[3], -1) == ids[2]
    assert moved(walk, ids[0], -1) == ids[0] and moved(walk, ids[-1], 1) == ids[-1]  # kept within
    assert moved(walk, "urn:nowhere", 1) == ids[0] and moved([], None, 1) is None
    assert walk_positions(walk)[ids[7]] == 7


def started_ms(later: str, earlier: str) -> float:
    """Ms between two manifest sessions' ``started`` (their Questions' ``prov:startedAtTime``)."""
    by_id = {s["session"]: s for f in MANIFEST.values() for s in f["sessions"]}
    times = [datetime.fromisoformat(by_id[i]["started"].replace("Z", "+00:00")) for i in (later, earlier)]
    return (times[0] - times[1]) / timedelta(milliseconds=1)


def test_a_supervisors_sub_agents_run_side_by_side_and_its_findings_wait_for_them(sessions):
    rows = waterfall(sessions[SUPERVISOR], sessions)
    assert rows.axis == "ms"  # the supervisor records no duration, its sub-agents do
    subs = [sessions[s["session"]] for s in children_of(SUPERVISOR)]
    ends = []
    for sub in subs:
        recorded = durations(sub.id)
        header = rows.ids.index(sub.id)
        assert rows.headers[header] and rows.kinds[header] == HEADER_KIND and rows.depths[header] == 1
        # each sub-agent starts at its own start: its Question's time less the supervisor's
        start = started_ms(sub.id, SUPERVISOR)
        assert rows.starts[header] == start > 0
        assert rows.ends[header] == start + sum(recorded.values())  # the band spans the whole sub-session
        inside = [i for i, band in enumerate(rows.bands) if band == header]
        assert [rows.ids[i] for i in inside] == [s.id for s in sub.steps]
        assert rows.starts[inside[0]] == start  # its steps laid end to end from its own start
        timed = [i for i in inside if not rows.markers[i]]
        assert {rows.ids[i]: rows.ends[i] - rows.starts[i] for i in timed} == recorded
        ends.append(rows.ends[header])
    assert ends == [3_947_000.0 + 9877.0, 6_581_000.0 + 12661.0]  # 18:00:47 and 18:44:41 after 16:55:00
    # a Finding derives from its sub-agent's Conclusion: it starts when that one ends
    findings = [rows.ids.index(SUPERVISOR + f"/finding/{i}") for i in (0, 1)]
    assert [rows.starts[i] for i in findings] == ends
    assert all(rows.markers[i] for i in findings)  # no duration recorded: instants
    assert rows.starts[rows.ids.index(SUPERVISOR + "/synthesis")] == max(ends)


def test_long_idle_stretches_are_drawn_compressed(sessions):
    # a minute or more, and a fifth of the axis or more, with no step and no band running
    assert idle_gaps(waterfall(sessions[SUPERVISOR], sessions)) == [(0.0, 3_947_000.0), (3_956_877.0, 6_581_000.0)]
    assert idle_gaps(waterfall(sessions[REACT_12], sessions)) == []  # busy from start to end
    assert idle_gaps(waterfall(sessions[PLAN], sessions)) == []  # the "order" axis has no time


def test_a_sub_session_without_a_start_time_starts_when_its_step_ends(sessions):
    # the rule for sub-sessions whose start is not recorded: end to end after the step they derive from
    undated = dict(sessions)
    for child in sessions[SUPERVISOR].children:
        undated[child] = replace(sessions[child], time=None)
    rows = waterfall(sessions[SUPERVISOR], undated)
    headers = [rows.ids.index(c) for c in sessions[SUPERVISOR].children]
    assert [rows.starts[h] for h in headers] == [0.0, 0.0]  # both when the Decomposition (an instant at 0) ends
    assert [rows.ends[h] for h in headers] == [9877.0, 12661.0]


def test_a_tool_calls_graphrag_runs_at_its_own_start(sessions):
    rows = waterfall(sessions[TOOL_PARENT], sessions)
    sub = children_of(TOOL_PARENT)[0]
    assert sub["parent"] == TOOL_PARENT + "/i1"
    analysis, header = rows.ids.index(TOOL_PARENT + "/i1"), rows.ids.index(sub["session"])
    assert header == analysis + 1  # right under the step it derives from
    recorded = durations(TOOL_PARENT)
    assert rows.ends[analysis] == recorded[TOOL_PARENT + "/i1"]
    assert rows.starts[header] == started_ms(sub["session"], TOOL_PARENT) > rows.ends[analysis]
    observation = rows.ids.index(TOOL_PARENT + "/i1/observation")
    # the agent's own timed steps stay end to end from its start; its Conclusion, which records
    # no time, comes after the tool's GraphRAG as well
    assert rows.depths[observation] == 0 and rows.starts[observation] == rows.ends[analysis]
    own = [i for i in range(len(rows)) if rows.depths[i] == 0]
    assert rows.ends[own[-2]] == sum(recorded.values()) < rows.ends[header]
    assert rows.kinds[own[-1]] == "Conclusion" and rows.starts[own[-1]] == rows.ends[header]


def test_untimed_steps_after_a_sub_session_come_after_it(sessions):
    # a plan's StepResult after the one that ran a GraphRAG, and its Synthesis, record no time:
    # they sat at 0 s, before the sub-session they follow
    from trace_explorer.model.reader import read_sessions
    from trace_explorer.read.collection import load_collection
    from trace_explorer.sources.demo import DEMO_DIR

    collection, errors = load_collection([DEMO_DIR / "services" / "services.trig"])
    assert errors == []
    services = {s.id: s for s in read_sessions(collection)}
    plan = services[SERVICE_PLAN]
    rows = waterfall(plan, services)
    header = next(i for i in range(len(rows)) if rows.headers[i])
    after = [i for i in range(header + 1, len(rows)) if rows.depths[i] == 0]
    assert [rows.kinds[i] for i in after] == ["StepResult", "Synthesis"]
    sub = services[rows.ids[header]]
    assert rows.ends[header] == (sub.time - plan.time) / timedelta(milliseconds=1) > 0
    assert [rows.starts[i] for i in after] == [rows.ends[header]] * 2
    assert all(rows.starts[i] == 0.0 for i in range(header) if rows.depths[i] == 0)  # those before stay at 0


def test_steps_without_a_duration_are_markers_never_bars(sessions):
    rows = waterfall(sessions[REACT_12], sessions)
    markers = [rows.kinds[i] for i in range(len(rows)) if rows.markers[i]]
    assert markers == ["PatternDecision", "Conclusion"]
    for i in range(len(rows)):
        if rows.markers[i]:
            assert rows.starts[i] == rows.ends[i] and rows.durations[i] is None
    assert rows.starts[0] == 0.0 and rows.ends[-1] == sum(durations(REACT_12).values())
    # a plan records no duration at all: every step is a marker at its place on the order axis
    plan = waterfall(sessions[PLAN], sessions)
    assert plan.axis == "order" and plan.markers == [not h for h in plan.headers] and all(plan.markers)
    assert plan.starts == [float(i) for i in range(len(plan))] and plan.ends == plan.starts


def decoded_ids(data: dict) -> list[str]:
    """The step IRIs of the component's data, front-coded as ``front_coded`` writes them."""
    ids: list[str] = []
    for shared, rest in zip(data["id_shared"], data["id_rest"]):
        ids.append((ids[-1][:shared] if ids else "") + rest)
    return ids


def test_the_components_data_is_plain_json_with_indexed_kinds(sessions):
    rows = waterfall(sessions[SUPERVISOR], sessions)
    data = waterfall_data(rows)
    assert json.loads(json.dumps(data)) == data
    assert decoded_ids(data) == rows.ids
    assert data["id_rest"][1] == "decompose" and data["id_shared"][1] == len(SUPERVISOR) + 1
    assert [data["kind_names"][k] for k in data["kinds"]] == rows.kinds
    assert data["colours"] == [kind_colour(k) for k in data["kind_names"]]
    assert data["headers"].count(1) == 2 and data["bands"] == rows.bands
    models = set(raw(SUPERVISOR, ("llmModel",)).values())
    for sub in children_of(SUPERVISOR):
        models |= set(raw(sub["session"], ("llmModel",)).values())
    assert sorted(data["model_names"]) == sorted(models) and len(models) == 2
    assert [data["model_names"][m] if m >= 0 else None for m in data["models"]] == rows.models
    assert data["tokens_in"] == rows.tokens_in


def test_front_coding_keeps_every_text():
    texts = ["urn:a/i1", "urn:a/i1/observation", "urn:a/i2", "urn:b", "", "urn:b", "ü/é"]
    shared, rest = front_coded(texts)
    assert shared == [0, 8, 7, 4, 0, 0, 0] and rest[1] == "/observation"
    assert decoded_ids({"id_shared": shared, "id_rest": rest}) == texts


@pytest.mark.parametrize("iri", [s["session"] for f in MANIFEST.values() for s in f["sessions"] if s["parent"] is None])
def test_every_top_level_session_walks_its_steps_once(sessions, iri):
    session = sessions[iri]
    walk = step_walk(session, sessions)
    own = [e.id for e in walk if e.session is session]
    assert own == [s.id for s in session.steps]
    headers = [e.id for e in walk if e.header]
    assert sorted(headers) == sorted(c for c in session.children if c in sessions)
    rows = waterfall(session, sessions, walk)
    assert rows.ids == [e.id for e in walk]
    assert all(rows.ends[i] >= rows.starts[i] for i in range(len(rows)))
