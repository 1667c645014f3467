"""The session workspace's one data shape (``views.workspace``), checked against the reference
corpus (manifest.json and raw trace values read straight from the files with pyoxigraph)."""

from __future__ import annotations

import json

from tests.test_app import raw_literal
from tests.test_timeline import manifest_session
from trace_explorer.analysis.evidence.graph import evidence_branch, with_evidence
from trace_explorer.views.dag.network import drawn_layout, is_long
from trace_explorer.views.step_walk import step_walk
from trace_explorer.views.workspace import critical_path, slow_threshold, workspace_data
from trace_explorer.views.waterfall import waterfall

REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
PLAN = "urn:trustgraph:agent:1a4f44f9-a651-4445-b9f3-635cf88c422b"
SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
GRAPHRAG = "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"
DOCRAG = "urn:trustgraph:docrag:4a23d596-2217-4ead-9bc4-96cb8e81973e"


def sections(step: dict, kind: str) -> list[dict]:
    return [s for s in step["sections"] if s["t"] == kind]


def titled(step: dict, title: str) -> dict:
    return next(s for s in step["sections"] if s.get("title") == title)


def test_a_react_session_is_one_json_shape_with_a_row_per_stop(sessions):
    session = sessions[REACT_12]
    data = workspace_data(session, sessions)
    assert json.loads(json.dumps(data)) == data  # plain JSON, nothing lost on the way
    expected = manifest_session(REACT_12)
    assert data["session"]["question"] == expected["question"] and data["session"]["started"] == expected["started"]
    assert [s["id"] for s in data["steps"]] == [e.id for e in step_walk(session, sessions)] \
        == [s.id for s in session.steps]
    assert len(data["steps"]) == 26 and data["axis"] == "ms"
    kinds = [data["kinds"][s["kind"]]["name"] for s in data["steps"]]
    assert [s["tool"] for s, k in zip(data["steps"], kinds) if k == "Analysis"] == expected["actions"]
    # an Observation is found by its Analysis's tool too (the tool filter keeps a call's answer)
    assert [s["tool"] for s, k in zip(data["steps"], kinds) if k == "Observation"] == expected["actions"]
    assert kinds.count("Analysis") == expected["analysis_steps"] == 12
    # durations as recorded, laid end to end from 0
    i2 = next(s for s in data["steps"] if s["id"] == REACT_12 + "/i2")
    assert i2["duration"] == float(raw_literal("collection.trig", REACT_12 + "/i2", "llmDurationMs"))
    assert all(b["start"] == a["end"] for a, b in zip(data["steps"], data["steps"][1:]))
    assert [s["duration"] for s in data["steps"]][0] is None and data["steps"][-1]["duration"] is None
    # graph: every node of the session graph once, each step held by its own node
    assert {n["id"] for n in data["graph"]["nodes"]} == set(session.graph.nodes)
    assert len(data["graph"]["edges"]) == session.graph.number_of_edges()
    assert all(s["node"] == s["id"] for s in data["steps"])
    thought = next(n for n in data["graph"]["nodes"] if n["id"] == REACT_12 + "/i5/thought")
    assert thought["step"] == REACT_12 + "/i5"  # a click on a Thought selects its Analysis
    question = next(n for n in data["graph"]["nodes"] if n["id"] == REACT_12)
    assert question["step"] == REACT_12 + "/pattern-decision"


def test_an_analysis_shows_its_thought_action_arguments_and_observation_together(sessions):
    data = workspace_data(sessions[REACT_12], sessions)
    step = REACT_12 + "/i2"
    i2 = next(s for s in data["steps"] if s["id"] == step)
    titles = [s.get("title") for s in i2["sections"] if s.get("title")]
    assert titles[:3] == ["Thought", "Action", "Arguments"]
    assert titled(i2, "Thought")["iri"] == step + "/thought"  # its own entity: a review of its words targets it
    assert "iri" not in titled(i2, "Action")
    assert titled(i2, "Action")["text"] == raw_literal("collection.trig", step, "action") == "mcp:weather"
    arguments = json.loads(raw_literal("collection.trig", step, "arguments").replace("'", '"'))
    assert json.loads(titled(i2, "Arguments")["text"]) == arguments
    error = raw_literal("collection.trig", step + "/observation", "toolError")
    assert [s["text"] for s in sections(i2, "error")] == [f"Tool error: {error}"]
    metrics = dict(map(tuple, sections(i2, "metrics")[0]["items"]))
    llm_ms = int(raw_literal("collection.trig", step, "llmDurationMs"))
    tool_ms = int(raw_literal("collection.trig", step + "/observation", "toolDurationMs"))
    assert metrics["LLM"] == f"{llm_ms / 1000:,.1f} s" and metrics["Tool"] == f"{tool_ms:,} ms"
    assert metrics["Tokens in"] == f"{int(raw_literal('collection.trig', step, 'inToken')):,}"
    assert metrics["Model"] == raw_literal("collection.trig", step, "llmModel")
    i1 = next(s for s in data["steps"] if s["id"] == REACT_12 + "/i1")
    assert titled(i1, "Observation")["text"] == sessions[REACT_12].nodes[REACT_12 + "/i1/observation"].fields["observation"]
    assert titled(i1, "Observation")["iri"] == REACT_12 + "/i1/observation"
    assert [s["error"] for s in data["steps"]].count(True) == manifest_session(REACT_12)["tool_errors"] + 1  # + its Analysis


def test_plan_goals_edges_and_chunks_are_lists_and_tables(sessions):
    plan = workspace_data(sessions[PLAN], sessions)
    step = next(s for s in plan["steps"] if s["id"] == PLAN + "/plan")
    assert titled(step, "Plan")["items"] == manifest_session(PLAN)["plan_steps"]
    sup = workspace_data(sessions[SUPERVISOR], sessions)
    step = next(s for s in sup["steps"] if s["id"] == SUPERVISOR + "/decompose")
    assert titled(step, "Sub-agent goals")["items"] == manifest_session(SUPERVISOR)["goals"]
    graphrag = workspace_data(sessions[GRAPHRAG], sessions)
    focus = next(s for s in graphrag["steps"] if s["id"] == GRAPHRAG.replace("question:", "prov:focus:"))
    table = sections(focus, "table")[0]
    triples = [row[table["columns"].index("Triple")] for row in table["rows"]]
    assert triples == [" ".join(e) for e in manifest_session(GRAPHRAG)["selected_edges"]]
    docrag = workspace_data(sessions[DOCRAG], sessions)
    focus = next(s for s in docrag["steps"] if s["id"] == DOCRAG + "/focus")
    table = sections(focus, "table")[0]
    assert [row[table["columns"].index("Score")] for row in table["rows"]] == [0.9, 0.8, 0.7]


def test_sub_sessions_are_bands_with_links_and_the_critical_path_runs_through_time(sessions):
    session = sessions[SUPERVISOR]
    data = workspace_data(session, sessions)
    walk = step_walk(session, sessions)
    headers = [i for i, s in enumerate(data["steps"]) if s["header"]]
    assert [data["steps"][i]["id"] for i in headers] == [e.id for e in walk if e.header]
    assert len(headers) == 2 == len(session.children)
    for header in headers:
        inside = [s for s in data["steps"] if s["band"] == header]
        sub = sessions[data["steps"][header]["id"]]
        assert [s["id"] for s in inside] == [s.id for s in sub.steps]
        assert {data["sessions"][s["session"]] for s in inside} == {sub.id}
        assert data["steps"][header]["sections"][0] == {"t": "link", "text": "Open this sub-session", "session": sub.id,
                                                       "label": f"Agent · {sub.question}"}
        # a sub-agent's step is drawn as the sub-session's node of the parent's graph
        assert {s["node"] for s in inside} == {sub.id}
    rows = waterfall(session, walk=walk)
    path = data["critical"]
    assert path == critical_path(rows) and path[-1] == len(rows) - 1  # the Synthesis ends the run
    assert all(rows.ends[a] <= rows.starts[b] + 1e-6 for a, b in zip(path, path[1:]))
    assert not any(rows.headers[i] for i in path)
    durations = sorted(d for d in rows.durations if d is not None)
    assert data["slow_ms"] == slow_threshold(rows) == durations[-(-len(durations) * 9 // 10) - 1]


def test_a_session_without_durations_counts_steps_and_has_no_critical_path(sessions):
    seed = sessions["urn:trustgraph:agent:6f03675a-1600-435a-8999-50d836f675cc"]
    assert seed.shape == "seed"
    data = workspace_data(seed, sessions)
    assert data["axis"] == "order"
    assert [s["start"] for s in data["steps"]] == list(range(len(data["steps"]))) and len(data["steps"]) == 2
    assert {s["duration"] for s in data["steps"]} == {None}
    assert data["critical"] == [] and data["slow_ms"] is None


def test_the_evidence_branch_is_sent_apart_from_the_main_graph():
    from tests.evidence_traces import EVIDENCE, EVIDENCE_TEXTS, GRAPHRAG_TRAPPIST, TRAPPIST
    from tests.test_evidence import files_source
    from trace_explorer.analysis.evidence.evidence import session_evidence
    from trace_explorer.index.catalog import fetch_session

    source = files_source(EVIDENCE, EVIDENCE_TEXTS)
    session = fetch_session(source, GRAPHRAG_TRAPPIST)
    branch = evidence_branch(session_evidence(source, session))
    layout = drawn_layout(session)
    data = workspace_data(session, layout=layout, evidence_layout=with_evidence(layout, branch))
    evidence = data["evidence"]
    assert [n["id"] for n in evidence["nodes"]] == [n.id for n in branch.nodes] and TRAPPIST in \
        {n["id"] for n in evidence["nodes"]}
    assert {n["role"] for n in evidence["nodes"]} == {"evidence"}
    assert {(e["from"], e["to"], e["relation"]) for e in evidence["edges"]} == set(branch.edges)
    assert {n["id"] for n in data["graph"]["nodes"]} == set(session.graph.nodes)  # the main chain untouched
    assert workspace_data(session)["evidence"] is None


def test_a_4002_step_session_is_one_shape_with_a_folded_graph():
    from tests.test_timeline import long_react

    session = long_react(2000)
    data = workspace_data(session)
    assert len(data["steps"]) == 4002 and is_long(session)
    assert data["graph"]["folded"] and len(data["graph"]["nodes"]) < 200
    held = {n["id"] for n in data["graph"]["nodes"]}
    assert all(s["node"] in held for s in data["steps"])  # every step has a node standing for it
    assert len(data["critical"]) == 4002 - 0  # one chain: every step decided the duration
    errors = sum(1 for s in session.steps if s.kind == "Observation" and s.fields.get("error") is not None)
    assert sum(1 for s in data["steps"] if s["error"] and s["id"].endswith("/observation")) == errors > 0
    # what each fold holds, for the browser to open: its parts in reading order, a chain of
    # iterations (their edges implied), the edges that join it to the rest in fold_edges
    folds = {n["id"]: n for n in data["graph"]["nodes"] if n["role"] == "folded"}
    parts = {p["id"]: (fold, k) for fold, n in folds.items() for k, p in enumerate(n["parts"])}
    assert all(n["chain"] and n["row"] and n["parts"][0]["id"] == n["id"] for n in folds.values())
    assert sum(len(n["parts"]) for n in folds.values()) == len(parts) > 1900
    first = next(iter(folds.values()))["parts"][0]
    assert first == {"id": first["id"], "label": "Iteration i3\n" + session.nodes[first["id"]].fields["action"],
                     "tag": "i3"}
    errors = [p for n in folds.values() for p in n["parts"] if p.get("error")]
    assert errors and all(p["label"].startswith("Iteration i") and "✗" in p["label"] for p in errors)
    for step in data["steps"]:
        if step["node"] in folds:
            assert parts[step["unit"]][0] == step["node"] and step["id"].startswith(step["unit"])
        else:
            assert step["unit"] is None
    joins = {(e["from"], e["to"]) for e in data["graph"]["fold_edges"]}
    assert all(a in parts or b in parts for a, b in joins)
    for fold in folds.values():  # a chain's first part derives from what is before it, the next from its last
        assert sum(1 for a, b in joins if a == fold["parts"][0]["id"]) == 1
        assert sum(1 for a, b in joins if b == fold["parts"][-1]["id"]) == 1


def test_trace_text_keeps_its_invisible_controls_visible():
    from tests import hostile_traces as hostile
    from trace_explorer.model.reader import read_sessions
    from trace_explorer.read.collection import TraceStore

    store = TraceStore()
    for name, data in hostile.hostile_files().items():
        store.add_file(name, data)
    found = {s.id: s for s in read_sessions(store)}
    text = json.dumps([workspace_data(s, found) for s in found.values()], ensure_ascii=False)
    assert "\x1b" not in text and "\u202e" not in text


def test_a_long_single_line_field_is_bounded_in_the_data(sessions):
    # the adversary's 200 KB tg:action: the Action line carries at most TEXT_LIMIT characters
    # (saying how long the whole was), the tool filter's name 200, every tooltip line 400
    import copy

    from trace_explorer.views.dag.nodes import HOVER_VALUE_CHARS
    from trace_explorer.views.step_sections import TEXT_LIMIT

    session = copy.deepcopy(sessions[REACT_12])
    step = REACT_12 + "/i2"
    action = "mcp:weather " + "λόγος " * 40_000
    session.nodes[step].fields["action"] = action
    session.nodes[step].label = "Analysis: " + action
    data = workspace_data(session, sessions)
    i2 = next(s for s in data["steps"] if s["id"] == step)
    line = titled(i2, "Action")["text"]
    assert line == action[:TEXT_LIMIT] + f" … ({len(action):,} characters in all)"
    assert i2["tool"] == "mcp:weather " + " ".join(["λόγος"] * 31) + " λ…" and len(i2["tool"]) == 200
    hovers = [n["hover"] for n in data["graph"]["nodes"] if step in n["hover"] or "λόγος" in n["hover"]]
    assert hovers and max(len(line) for hover in hovers for line in hover.split("\n")) <= HOVER_VALUE_CHARS + 20
