"""The DAG page: every graph node and edge drawn with PROV's conventions, hostile trace text
escaped, nothing loaded from the network, long sessions still fast."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import MANIFEST
from trace_explorer.model.session import SESSION_NODE, Session
from trace_explorer.views.dag.network import (FOLD_ABOVE_NODES, MAX_PIECES, OPEN_WINDOW, dag_data, dag_html,
                                              drawn_layout, fold_base, fold_title, folded_layout, folds, holder,
                                              is_long, suggested_height, whole_layout)
from trace_explorer.views.dag.layout import layout_levels, layout_slots
from trace_explorer.views.dag.folding import FOLDED, ITERATION
from trace_explorer.views.palette import ERROR_COLOUR, PROV_FILLS, kind_colour

from .test_timeline import long_react, synthetic_react

ALL_SESSIONS = [s["session"] for f in MANIFEST.values() for s in f["sessions"]]
REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
SEED_DOCRAG = "urn:trustgraph:docrag:8d116ece-1738-47d9-bd9c-172411e20b8f"
SUB_GRAPHRAG = "urn:trustgraph:question:332dd331-3a0b-4965-8da6-c6fdbd685167"
HOSTILE = "<img src=x onerror=alert(1)><script>alert(2)</script>"
GRAPHRAG = "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"


def drawn(html: str) -> tuple[list[dict], list[dict]]:
    """The vis DataSets the page draws (nodes, edges), decoded from the page."""
    nodes = re.search(r"nodes = new vis\.DataSet\((.*)\);\n", html)
    edges = re.search(r"edges = new vis\.DataSet\((.*)\);\n", html)
    assert nodes and edges
    return json.loads(nodes.group(1)), json.loads(edges.group(1))


@pytest.mark.parametrize("iri", ALL_SESSIONS)
def test_every_graph_node_and_edge_is_drawn(sessions, iri):
    session = sessions[iri]
    nodes, edges = drawn(dag_html(session, sessions=sessions))
    ids = {n["id"] for n in nodes}
    expected = set(session.graph.nodes) | ({session.parent_session} if session.parent_session else set())
    assert ids == expected
    pairs = {(e["from"], e["to"], e["title"]) for e in edges}
    for source, target, data in session.graph.edges(data=True):
        assert (source, target, data["relation"]) in pairs  # PROV direction, relation on hover
    assert all(e["arrows"]["to"]["enabled"] for e in edges)
    assert all("label" not in e for e in edges)  # no relation name written on the canvas


def test_react_chain_reads_in_the_flow_direction_with_prov_shapes(sessions):
    session = sessions[REACT_12]
    nodes, _ = drawn(dag_html(session))
    by_id = {n["id"]: n for n in nodes}
    levels = [by_id[s.id]["level"] for s in session.steps]
    assert by_id[session.id]["level"] == 0
    assert levels == list(range(1, len(session.steps) + 1))  # one level per step, in reading order
    analysis = by_id[REACT_12 + "/i3"]
    assert analysis["label"] == "Analysis i3\nknowledge-query"
    assert analysis["shape"] == "ellipse" and analysis["color"]["background"] == PROV_FILLS["Entity"]
    assert analysis["color"]["border"] == kind_colour("Analysis")
    failed = by_id[REACT_12 + "/i2/observation"]
    assert failed["label"] == "Observation i2 ✗"
    assert failed["color"]["border"] == ERROR_COLOUR
    # the chain runs on slot 0 (a straight line the browser wraps into rows); each Thought sits
    # right under its Analysis, at the same level
    assert [by_id[s.id]["slot"] for s in session.steps] == [0] * len(session.steps)
    thought = by_id[REACT_12 + "/i3/thought"]
    assert (thought["level"], thought["slot"]) == (analysis["level"], 1)
    assert "thought: Step 3: I should use knowledge-query" in thought["hover"]
    assert "LLM ms: 2543" in analysis["hover"] and "model: gpt-4o-mini" in analysis["hover"]
    assert all("x" not in n and "y" not in n for n in nodes)  # the browser places them


def test_seed_activity_root_is_a_blue_box(sessions):
    nodes, _ = drawn(dag_html(sessions[SEED_DOCRAG]))
    root = next(n for n in nodes if n["id"] == SEED_DOCRAG)
    assert root["shape"] == "box" and root["color"]["background"] == PROV_FILLS["Activity"]
    assert root["label"] == "Question\nWhich trade routes link…"  # cut to 24 characters


def test_sub_sessions_are_dashed_and_show_their_question(sessions):
    session = sessions[SUPERVISOR]
    nodes, _ = drawn(dag_html(session, sessions=sessions))
    subs = [n for n in nodes if n["kind"] == SESSION_NODE]
    goals = next(s for s in MANIFEST["orchestrated.nq"]["sessions"] if s["session"] == SUPERVISOR)["goals"]
    assert len(subs) == 2
    assert all(n["shapeProperties"]["borderDashes"] for n in subs)
    assert sorted(n["hover"].split("question: ")[1].split("\n")[0] for n in subs) == sorted(goals)
    assert all(n["label"].startswith("Sub-session (Agent)\n") for n in subs)


def test_a_sub_trace_shows_its_parent_session(sessions):
    nodes, edges = drawn(dag_html(sessions[SUB_GRAPHRAG], sessions=sessions))
    parent = "urn:trustgraph:agent:fa7f0eab-4c4f-4b06-8732-2e25c215a82a"
    node = next(n for n in nodes if n["id"] == parent)
    assert node["label"].startswith("Parent session (Agent)")
    assert {"from": SUB_GRAPHRAG, "to": parent} in [{"from": e["from"], "to": e["to"]} for e in edges]


def test_plan_steps_are_stacked_in_plan_order(sessions):
    session = sessions["urn:trustgraph:agent:1a4f44f9-a651-4445-b9f3-635cf88c422b"]
    nodes, _ = drawn(dag_html(session))
    by_id = {n["id"]: n for n in nodes}
    results = [s.id for s in session.steps if s.kind == "StepResult"]
    assert len(results) == 11 and len({by_id[r]["level"] for r in results}) == 1
    assert [by_id[r]["slot"] for r in results] == list(range(11))  # /step/0 on top, /step/10 at the bottom
    assert [by_id[r]["label"] for r in results][:2] == ["Step #1", "Step #2"]
    synthesis = by_id[session.id + "/synthesis"]  # beside the last step it derives from
    assert (synthesis["level"], synthesis["slot"]) == (by_id[results[-1]]["level"] + 1, 10)


def test_levels_follow_derivation_and_parts_sit_under_their_step(sessions):
    session = sessions["urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"]
    layout = whole_layout(session)
    levels, slots = layout_levels(layout), layout_slots(layout)
    focus = "urn:trustgraph:prov:focus:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"
    assert levels[session.id] == 0 and levels[focus] == 3
    selections = [n for n in session.graph if session.graph.nodes[n]["kind"] == "EdgeSelection"]
    assert len(selections) == 4 and {levels[n] for n in selections} == {3}  # at the Focus's level
    assert sorted(slots[n][1] for n in selections) == [1, 2, 3, 4] and slots[focus] == (3, 0)


def test_the_supervisor_fans_out_and_in(sessions):
    layout = whole_layout(sessions[SUPERVISOR], sessions)
    slots = layout_slots(layout)
    subs = [n.id for n in layout.nodes if n.kind == SESSION_NODE]
    findings = [n.id for n in layout.nodes if n.kind == "Finding"]
    assert [slots[s] for s in subs] == [(3, 0), (3, 1)]  # the two sub-agents side by side
    assert [slots[f] for f in findings] == [(4, 0), (4, 1)]  # each Finding beside its sub-agent
    assert slots[SUPERVISOR + "/synthesis"][0] == 5


def test_no_external_url_is_loaded(sessions):
    html = dag_html(sessions[REACT_12])
    assert not re.search(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*[\"']?(?:https?:)?//",
                         html, re.IGNORECASE)
    assert not re.search(r"https?://[^\s\"'<>]*\.(?:js|css)\b", html)  # no script or style URL at all
    assert "bootstrap" not in html.lower()
    assert "vis-network" in html and "new vis.Network" in html  # vis is inlined
    assert "TraceExplorerDag.adopt(network" in html  # our layout, legend and selection on top


def hostile_session(sessions) -> Session:
    """A copy of the 12-step session whose question, thought, tool and observation are hostile."""
    import copy
    session = copy.deepcopy(sessions[REACT_12])
    session.question = HOSTILE
    step = session.nodes[REACT_12 + "/i1"]
    step.fields.update(thought=HOSTILE + " href", action=HOSTILE, observation="</script><script>alert(3)</script>")
    step.label = HOSTILE
    session.nodes[REACT_12].fields["query"] = HOSTILE
    return session


def test_hostile_text_is_escaped_and_kept_as_literal_text(sessions):
    html = dag_html(hostile_session(sessions), selected=REACT_12 + "/i1")
    assert "<img" not in html
    assert "<script>alert(2)" not in html and "<script>alert(3)" not in html
    assert "onerror=alert(1)>" not in html
    assert "\\u003cimg src=x onerror=alert(1)\\u003e" in html  # escaped by tojson, still there
    nodes, _ = drawn(html)
    analysis = next(n for n in nodes if n["id"] == REACT_12 + "/i1")
    assert "thought: " + HOSTILE + " href" in analysis["hover"]  # decodes to the literal text
    assert "tool: " + HOSTILE in analysis["hover"]
    root = next(n for n in nodes if n["id"] == REACT_12)
    assert "question: " + HOSTILE in root["hover"]
    # no pyvis "title": its template would then switch to a popup that uses innerHTML
    assert all("title" not in n for n in nodes)
    assert "popup.innerHTML" not in html
    assert '"multi": false' in html or '"multi":false' in html


def test_selected_node_is_outlined_and_the_page_is_deterministic(sessions):
    session = sessions[REACT_12]
    selected = REACT_12 + "/i4"
    first = dag_html(session, selected=selected, height_px=480)
    assert first == dag_html(session, selected=selected, height_px=480)
    nodes, _ = drawn(first)
    chosen = next(n for n in nodes if n["id"] == selected)
    assert chosen["borderWidthSelected"] == 4 and chosen["color"]["highlight"]["border"] == "#111827"
    assert f'var selected = "{selected}";' in first  # the page selects it once drawn
    assert "height: 480px" in first


def test_a_200_step_session_draws_every_step_and_derivation():
    # (its speed: benchmarks/long_sessions.py)
    session = synthetic_react(100)
    selected = session.steps[150].id
    html = dag_html(session, selected=selected)
    nodes, edges = drawn(html)
    assert len(nodes) == 201 and len(edges) == 200
    assert {n["id"] for n in nodes} == set(session.graph.nodes)
    assert {(e["from"], e["to"]) for e in edges} == set(session.graph.edges)
    chosen = next(n for n in nodes if n["id"] == selected)
    assert chosen["borderWidthSelected"] == 4 and f'var selected = "{selected}";' in html


def test_suggested_height_fits_the_tallest_level(sessions):
    def height(iri):
        return suggested_height(whole_layout(sessions[iri]))

    assert height(REACT_12) == 300  # a chain: a step and its thought per level
    assert height("urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6") == 424  # Focus and 4 edges
    assert height("urn:trustgraph:agent:1a4f44f9-a651-4445-b9f3-635cf88c422b") == 640  # 11 plan steps


def test_an_agent_is_drawn_as_prov_orange_house():
    import base64
    import re as _re

    import networkx as nx

    from trace_explorer.model.session import Session, Step
    from trace_explorer.views.dag.network import dag_html
    from trace_explorer.views.palette import prov_fill

    root = Step(id="urn:trustgraph:agent:x", kind="Question")
    agent = Step(id="https://trustgraph.ai/agent/chunker", kind="Agent", prov_class="Agent", label="chunker")
    graph = nx.DiGraph()
    graph.add_edge(root.id, agent.id, relation="wasAssociatedWith")
    session = Session(id=root.id, mechanism="Agent", question="q", root=root, steps=[agent],
                      nodes={root.id: root, agent.id: agent}, graph=graph, order=[root.id, agent.id])
    html = dag_html(session)
    images = _re.findall(r'"image": "data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', html)
    assert len(images) == 1
    svg = base64.b64decode(images[0]).decode()
    assert "<path" in svg and prov_fill("Agent") in svg  # the house, in PROV's agent colour
    assert '"shape": "image"' in html


# -- long sessions: grouped and folded ---------------------------------------------------------------
def test_corpus_sessions_are_drawn_whole(sessions):
    assert all(not is_long(s) for s in sessions.values())  # the tests above: every node drawn
    assert synthetic_react(100).graph.number_of_nodes() <= FOLD_ABOVE_NODES  # the 200-step test too


def members_of(layout) -> list[str]:
    return [m for node in layout.nodes for m in node.members]


def test_a_2000_iteration_session_draws_a_few_dozen_nodes():
    session = long_react(2000)
    assert len(session.steps) == 4002 and session.graph.number_of_nodes() == 6003 and is_long(session)
    layout = folded_layout(session)
    nodes, edges = drawn(dag_html(session, sessions={}, layout=layout))
    assert 10 <= len(nodes) <= 40 and len(nodes) == len(layout.nodes)
    assert [n["id"] for n in nodes] == [n.id for n in layout.nodes]
    assert {(e["from"], e["to"]) for e in edges} == {(s, t) for s, t, _ in layout.edges}
    # every graph node is in exactly one drawn node: shown, grouped into an Iteration, or folded
    assert sorted(members_of(layout)) == sorted(session.graph.nodes)
    kinds = [n.kind for n in layout.nodes]
    assert kinds[:2] == ["Question", "PatternDecision"] and kinds[-1] == "Conclusion"
    assert kinds.count(FOLDED) <= MAX_PIECES and kinds.count(FOLDED) >= 5
    first = next(n for n in layout.nodes if n.kind == ITERATION)
    assert first.id == session.id + "/i1"
    assert sorted(first.members) == sorted([session.id + "/i1", session.id + "/i1/thought",
                                            session.id + "/i1/observation"])
    # a fold is a dashed box that names its run; a group's hover holds its three members' fields
    by_id = {n["id"]: n for n in nodes}
    fold = folds(layout)[0]
    drawn_fold = by_id[fold.id]
    assert drawn_fold["shape"] == "box" and drawn_fold["shapeProperties"]["borderDashes"]
    assert drawn_fold["label"].startswith(f"⋯ {len(fold.folded_from)} iterations folded ⋯\ni3 – i")
    assert drawn_fold["memberCount"] == len(fold.members) == 3 * len(fold.folded_from)
    assert fold_title(fold).startswith("i3 – i") and f"{len(fold.folded_from):,} iterations" in fold_title(fold)
    group = by_id[first.id]
    assert group["label"].startswith("Iteration i1\n") and group["memberCount"] == 3
    assert "thought: Step 1: I should use" in group["hover"] and "\nObservation\n" in group["hover"]
    analysis = session.nodes[session.id + "/i1"]
    assert group["label"].split("\n")[1] == analysis.fields["action"]
    assert "folded run" in dag_html(session, layout=layout)  # the legend names the mark


def test_the_selected_step_is_always_drawn_and_selected():
    session = long_react(2000)
    base = fold_base(session)
    for index in (0, 1, 1300, 2001, 2002, 3999, 4001):
        step = session.steps[index]
        layout = folded_layout(session, step.id, base=base)
        assert sorted(members_of(layout)) == sorted(session.graph.nodes)
        node = holder(layout, step.id)
        chosen = next(n for n in layout.nodes if n.id == node)
        assert chosen.role != "folded", (index, chosen.lines)  # a fold opens around it
        html = dag_html(session, step.id, layout=layout)
        assert f'var selected = "{node}";' in html
        assert node in {n["id"] for n in drawn(html)[0]}
        assert len(layout.nodes) <= 40 + OPEN_WINDOW
    # in the middle of a run, the window is centred on it: iterations on both sides are drawn
    layout = folded_layout(session, session.id + "/i1000/thought", base=base)
    ids = [n.id for n in layout.nodes]
    at = ids.index(session.id + "/i1000")
    assert ids[at - 5:at + 6] == [f"{session.id}/i{i}" for i in range(995, 1006)]
    # a thought selected directly is found in its Iteration too
    assert holder(layout, session.id + "/i1000/thought") == session.id + "/i1000"


def test_expanding_a_fold_draws_its_first_iterations_and_keeps_the_rest_folded():
    session = long_react(2000)
    base = fold_base(session)
    layout = folded_layout(session, base=base)
    fold = folds(layout)[2]
    run = [part.id for part in fold.folded_from]
    opened = folded_layout(session, None, [fold.id], base=base)
    ids = [n.id for n in opened.nodes]
    assert run[:OPEN_WINDOW] == ids[ids.index(run[0]):ids.index(run[0]) + OPEN_WINDOW]
    rest = next(n for n in opened.nodes if n.id == run[OPEN_WINDOW])
    assert rest.kind == FOLDED and [p.id for p in rest.folded_from] == run[OPEN_WINDOW:]
    assert len(opened.nodes) == len(layout.nodes) + OPEN_WINDOW
    assert sorted(members_of(opened)) == sorted(session.graph.nodes)
    # the same with the fold's first step IRI (its Observation), and both opened together
    assert [n.id for n in folded_layout(session, None, [run[0] + "/observation"], base=base).nodes] == ids
    both = folded_layout(session, None, [fold.id, folds(layout)[5].id], base=base)
    assert len(both.nodes) == len(layout.nodes) + 2 * OPEN_WINDOW


def test_group_and_fold_nodes_keep_hostile_text_escaped():
    import copy
    session = copy.deepcopy(long_react(300))
    for step in session.steps_of("Analysis"):
        step.fields.update(action=HOSTILE, thought=HOSTILE + " href")
    html = dag_html(session, session.steps[3].id)
    assert "<img" not in html and "<script>alert(2)" not in html and "onerror=alert(1)>" not in html
    nodes, _ = drawn(html)
    fold = next(n for n in nodes if n["kind"] == FOLDED)
    group = next(n for n in nodes if n["kind"] == ITERATION)
    # tool names (cut short) name the fold's run, as literal text: labels are canvas text and
    # the hover is shown with innerText
    assert "i3: <img src=x onerror=alert(1)>" in fold["hover"] and "<img src=x" in fold["label"]
    assert "thought: " + HOSTILE + " href" in group["hover"]  # decodes to the literal text
    assert all("title" not in n for n in nodes) and "popup.innerHTML" not in html


def test_a_20000_step_session_folds_to_a_few_dozen_nodes():
    """A 20,000-step session (10,000 iterations of Analysis and Observation, in memory):
    grouped, folded and drawn as a few dozen nodes (100,000 steps and their speed:
    benchmarks/long_sessions.py)."""
    session = synthetic_react(10_000)
    base = fold_base(session)
    selected = session.steps[17_777].id
    html = dag_html(session, selected, layout=folded_layout(session, selected, base=base))
    nodes, _ = drawn(html)
    assert len(nodes) <= 40 + OPEN_WINDOW and selected in {n["id"] for n in nodes}
    assert sum(n["memberCount"] for n in nodes) == session.graph.number_of_nodes()


def test_a_long_graph_of_any_shape_is_folded_to_a_bounded_size():
    """No chain and no fan to fold (each step derives from the two before it): stretches in
    reading order are folded, so the page stays small; every node is still in one drawn node."""
    import networkx as nx

    from trace_explorer.model.session import Step
    from trace_explorer.views.dag.network import DRAWN_LIMIT

    root = Step("urn:trustgraph:agent:lattice", "Question")
    session = Session(id=root.id, mechanism="Agent", question="q", root=root, nodes={root.id: root})
    graph = nx.DiGraph()
    graph.add_node(root.id)
    before = [root.id]
    for i in range(3000):
        step = Step(f"{root.id}/step/{i}", "StepResult", fields={"plan_step": f"check {i % 5}"})
        session.steps.append(step)
        session.nodes[step.id] = step
        for parent in before[-2:]:
            graph.add_edge(step.id, parent, relation="wasDerivedFrom")
        before.append(step.id)
    session.graph, session.order = graph, [root.id] + [s.id for s in session.steps]
    selected = session.steps[1500].id
    layout = folded_layout(session, selected)
    assert len(layout.nodes) <= DRAWN_LIMIT
    assert sorted(members_of(layout)) == sorted(graph.nodes)
    assert holder(layout, selected) == selected
    nodes, _ = drawn(dag_html(session, selected, layout=layout))
    assert len(nodes) == len(layout.nodes) and fold_title(folds(layout)[0]).endswith(" StepResult steps")


# -- the app's DAG component: the same pyvis graph as data, and a legend of what is drawn -----------
ARROW = "derived → source (PROV); hover an arrow for its relation"


def legend_of(session, sessions=None, layout=None) -> list[str]:
    layout = layout if layout is not None else whole_layout(session, sessions)
    return [entry["label"] for entry in dag_data(session, layout, sessions)["legend"]]


def test_component_data_is_the_pages_graph(sessions):
    session = sessions[REACT_12]
    data = dag_data(session, whole_layout(session))
    page_nodes, page_edges = drawn(dag_html(session))
    assert data["nodes"] == page_nodes and data["edges"] == page_edges  # one graph for app and export
    assert data["options"]["physics"] == {"enabled": False}
    assert data["options"]["interaction"]["keyboard"] is False  # j / k belong to the page
    assert json.loads(json.dumps(data)) == data  # plain JSON for the component
    assert data["key"] == dag_data(session, whole_layout(session))["key"]  # same drawing, same key
    long = long_react(300)
    first, other = (dag_data(long, folded_layout(long, long.steps[i].id)) for i in (3, 500))
    assert first["key"] != other["key"]  # another fold opened: another drawing


def test_the_legend_lists_only_what_is_drawn(sessions):
    assert legend_of(sessions[REACT_12]) == ["Entity", "Question", "PatternDecision", "Analysis", "Observation",
                                             "Thought", "Conclusion", "✗ tool error", ARROW]
    # a seed DocRAG has an Activity root and no tool error; a supervisor its sub-sessions; a
    # sub-trace its parent
    assert legend_of(sessions[SEED_DOCRAG]) == ["Entity", "Activity", "Question", "Exploration", "Synthesis", ARROW]
    assert legend_of(sessions[SUPERVISOR], sessions) == ["Entity", "Question", "PatternDecision", "Decomposition",
                                                         "Finding", "Synthesis", "Sub-session", ARROW]
    assert legend_of(sessions[SUB_GRAPHRAG], sessions)[-2:] == ["Parent session", ARROW]
    long = long_react(2000)
    folded = legend_of(long, layout=folded_layout(long))
    assert "Iteration (Analysis, Thought, Observation)" in folded and "⋯ folded run (click to open)" in folded
    assert "Analysis" not in folded and "Thought" not in folded  # grouped into Iterations
    assert "Agent" not in legend_of(sessions[REACT_12]) and "Activity" not in legend_of(sessions[REACT_12])


def test_a_long_session_is_drawn_folded_and_a_short_one_whole(sessions):
    assert drawn_layout(sessions[REACT_12]).nodes == whole_layout(sessions[REACT_12]).nodes
    long = long_react(2000)
    assert len(drawn_layout(long, long.steps[9].id).nodes) == len(folded_layout(long, long.steps[9].id).nodes) <= 52


def test_a_branch_of_other_nodes_hangs_from_its_node(sessions):
    """Another group of nodes (here: the chunk, page and document an edge was extracted from)
    joins a drawing as a branch: laid out from the node it hangs on, drawn as its nodes say,
    named in the legend, its text escaped like any other."""
    from trace_explorer.views.dag.folding import DagNode
    from trace_explorer.views.dag.layout import with_branch

    session = sessions[GRAPHRAG]
    edge = next(n for n in session.graph if session.graph.nodes[n]["kind"] == "EdgeSelection")
    chain = [DagNode(f"urn:evidence:{kind}", [f"urn:evidence:{kind}"], kind, "Entity", [kind, HOSTILE],
                     f"{kind}\n{HOSTILE}", role="evidence") for kind in ("Chunk", "Page", "Document")]
    edges = [(chain[0].id, edge, "extractedFrom"), (chain[1].id, chain[0].id, "wasDerivedFrom"),
             (chain[2].id, chain[1].id, "wasDerivedFrom")]
    layout = with_branch(whole_layout(session), chain, edges)
    slots = layout_slots(layout)
    level, slot = slots[edge]
    assert [slots[n.id] for n in chain] == [(level + 1, slot), (level + 2, slot), (level + 3, slot)]
    data = dag_data(session, layout)
    drawn_nodes = {n["id"]: n for n in data["nodes"]}
    document = drawn_nodes["urn:evidence:Document"]
    assert document["label"] == "Document\n" + HOSTILE[:27] + "…" and document["hover"] == "Document\n" + HOSTILE
    assert document["role"] == "evidence" and document["shape"] == "ellipse"
    assert [e["label"] for e in data["legend"]][-4:-1] == ["Chunk", "Page", "Document"]
    assert ("urn:evidence:Chunk", edge, "extractedFrom") in {(e["from"], e["to"], e["title"]) for e in data["edges"]}
    assert "<img" not in dag_html(session, layout=layout)


def test_a_nodes_tooltip_names_its_step_once(sessions):
    from trace_explorer.views.dag.nodes import hover_text

    steps = sessions[REACT_12].steps
    firsts = [hover_text(step).splitlines()[0] for step in steps[:3]]
    # the kind is said once: the label already starts with it, else it comes before the label
    assert firsts == ["PatternDecision — Pattern: react", "Analysis: calculator", "Observation"]
    assert [hover_text(step).splitlines()[1] for step in steps[:3]] == [step.id for step in steps[:3]]
