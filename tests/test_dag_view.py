"""The DAG page: every graph node and edge drawn with PROV's conventions, hostile trace text
escaped, nothing loaded from the network, long sessions still fast."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from trace_explorer.dag_view import dag_html, node_levels, suggested_height
from trace_explorer.model import SESSION_NODE, Session
from trace_explorer.palette import ERROR_COLOUR, PROV_FILLS, kind_colour
from trace_explorer.sessions import read_sessions
from trace_explorer.store import load_collection

from .test_timeline import synthetic_react

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
ALL_SESSIONS = [s["session"] for f in MANIFEST.values() for s in f["sessions"]]
REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
SEED_DOCRAG = "urn:trustgraph:docrag:8d116ece-1738-47d9-bd9c-172411e20b8f"
SUB_GRAPHRAG = "urn:trustgraph:question:332dd331-3a0b-4965-8da6-c6fdbd685167"
HOSTILE = "<img src=x onerror=alert(1)><script>alert(2)</script>"


@pytest.fixture(scope="module")
def sessions() -> dict[str, Session]:
    collection, errors = load_collection([CORPUS])
    assert errors == []
    return {s.id: s for s in read_sessions(collection)}


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
    pairs = {(e["from"], e["to"], e["label"]) for e in edges}
    for source, target, data in session.graph.edges(data=True):
        assert (source, target, data["relation"]) in pairs  # PROV direction, relation as label
    assert all(e["arrows"] == "to" for e in edges)


def test_react_chain_reads_left_to_right_with_prov_shapes(sessions):
    session = sessions[REACT_12]
    nodes, _ = drawn(dag_html(session))
    by_id = {n["id"]: n for n in nodes}
    levels = [by_id[s.id]["level"] for s in session.steps]
    assert by_id[session.id]["level"] == 0
    assert levels == sorted(levels) and len(set(levels)) == len(levels)  # one column per step
    analysis = by_id[REACT_12 + "/i3"]
    assert analysis["label"] == "Analysis i3\nknowledge-query"
    assert analysis["shape"] == "ellipse" and analysis["color"]["background"] == PROV_FILLS["Entity"]
    assert analysis["color"]["border"] == kind_colour("Analysis")
    failed = by_id[REACT_12 + "/i2/observation"]
    assert failed["label"] == "Observation i2 ✗"
    assert failed["color"]["border"] == ERROR_COLOUR
    thought = by_id[REACT_12 + "/i3/thought"]
    assert thought["level"] == by_id[REACT_12 + "/i3/observation"]["level"]
    # the chain runs on one line, left to right; each thought sits under its observation
    assert [by_id[s.id]["y"] for s in session.steps] == [0] * len(session.steps)
    xs = [by_id[s.id]["x"] for s in session.steps]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)
    assert (thought["x"], thought["y"]) == (by_id[REACT_12 + "/i3/observation"]["x"], 72)
    assert "thought: Step 3: I should use knowledge-query" in thought["hover"]
    assert "LLM ms: 2543" in analysis["hover"] and "model: gpt-4o-mini" in analysis["hover"]


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
    assert len(results) == 11 and len({by_id[r]["x"] for r in results}) == 1
    ys = [by_id[r]["y"] for r in results]
    assert ys == sorted(ys) and ys[0] == -ys[-1]  # centred, /step/0 on top, /step/10 at the bottom
    assert [by_id[r]["label"] for r in results][:2] == ["Step #1", "Step #2"]


def test_levels_follow_derivation_and_parts(sessions):
    session = sessions["urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"]
    levels = node_levels(session)
    focus = "urn:trustgraph:prov:focus:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"
    assert levels[session.id] == 0 and levels[focus] == 3
    selections = [n for n in session.graph if session.graph.nodes[n]["kind"] == "EdgeSelection"]
    assert len(selections) == 4 and {levels[n] for n in selections} == {4}


def test_no_external_url_is_loaded(sessions):
    html = dag_html(sessions[REACT_12])
    assert not re.search(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*[\"']?(?:https?:)?//",
                         html, re.IGNORECASE)
    assert not re.search(r"https?://[^\s\"'<>]*\.(?:js|css)\b", html)  # no script or style URL at all
    assert "bootstrap" not in html.lower()
    assert "vis-network" in html and "new vis.Network" in html  # vis is inlined


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
    assert chosen["borderWidth"] == 4 and chosen["color"]["border"] == "#111827"
    assert f'var selected = "{selected}";' in first
    assert "height: 480px" in first


def test_a_200_step_session_builds_quickly():
    session = synthetic_react(100)
    started = time.perf_counter()
    html = dag_html(session, selected=session.steps[150].id)
    elapsed = time.perf_counter() - started
    nodes, edges = drawn(html)
    assert len(nodes) == 201 and len(edges) == 200
    assert elapsed < 1.5, f"{elapsed:.3f} s"  # the goal is 0.5 s; CI machines vary


def test_suggested_height_fits_the_tallest_column(sessions):
    assert suggested_height(sessions[REACT_12]) == 300  # a chain: one step per column
    assert suggested_height(sessions["urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"]) == 404
    assert suggested_height(sessions["urn:trustgraph:agent:1a4f44f9-a651-4445-b9f3-635cf88c422b"]) == 640


def test_an_agent_is_drawn_as_prov_orange_house():
    import base64
    import json as _json
    import re as _re

    import networkx as nx

    from trace_explorer.dag_view import dag_html
    from trace_explorer.model import Session, Step
    from trace_explorer.palette import prov_fill

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
