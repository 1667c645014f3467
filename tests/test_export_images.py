"""Image export: the DAG (Graphviz) and the timeline (vl-convert) as SVG, PNG and PDF.

Checked: each format's magic bytes, PNG size, SVG parses as XML with a node (``g.node`` whose
``<title>`` is the IRI) for every step, the legend, labels cut with an ellipsis, hostile text
drawn literally, the same SVG bytes twice, and a 200-step session grouped and folded into a
small readable picture, rendered in well under 5 s.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET

import pyoxigraph as ox
import pytest
from PIL import Image

from trace_explorer.export.images import IMAGE_FORMATS, LABEL_CHARS, dag_dot, dag_image, dag_layout, image_format
from trace_explorer.export.timeline_image import timeline_image, timeline_spec
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import TraceStore
from trace_explorer.views.dag.folding import FOLDED, ITERATION, MAX_DRAWN_NODES

SVG = "{http://www.w3.org/2000/svg}"
AGENT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
GRAPHRAG = "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"
PLAN = "urn:trustgraph:agent:1a4f44f9-a651-4445-b9f3-635cf88c422b"
LOOKED_AT = [AGENT_12, SUPERVISOR, GRAPHRAG, PLAN]
MAGIC = {"svg": b"<?xml", "png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-"}
TG = "https://trustgraph.ai/ns/"
PROV = "http://www.w3.org/ns/prov#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


# -- synthetic sessions (also used by the page and Markdown tests) -------------------------------
def react_session(iterations: int, *, error_every: int = 0, question: str = "A long question",
                  thought: str = "Thinking {i}", action: str = "tool-{k}", observation: str = "Result {i}",
                  arguments: str = '{{"q": {i}}}', answer: str = "Done"):
    """A current-shape ReAct session of ``iterations`` Analysis/Thought/Observation triples
    (``2 * iterations + 2`` steps), texts in the document store; returns (collection, session).
    ``{i}`` in a text is the iteration number, ``{k}`` the tool number (i % 3)."""
    root = f"urn:trustgraph:agent:00000000-0000-4000-8000-{iterations:012d}"
    graph = ox.NamedNode("urn:graph:retrieval")
    quads: list[ox.Quad] = []
    documents: dict[str, str] = {}

    def add(s, p, o):
        obj = o if isinstance(o, (ox.NamedNode, ox.Literal)) else ox.Literal(str(o))
        quads.append(ox.Quad(ox.NamedNode(s), ox.NamedNode(p), obj, graph))

    def types(s, *names):
        for name in names:
            add(s, RDF_TYPE, ox.NamedNode(name if name.startswith("http") else TG + name))

    def text(s, value):
        doc = f"urn:trustgraph:doc:{len(documents):08d}"
        documents[doc] = value
        add(s, TG + "document", ox.NamedNode(doc))

    types(root, "Question", "AgentQuestion", PROV + "Entity")
    add(root, TG + "query", question)
    add(root, PROV + "startedAtTime", "2026-03-09T10:00:00Z")
    previous = f"{root}/pattern-decision"
    types(previous, "PatternDecision", PROV + "Entity")
    add(previous, TG + "pattern", "react")
    add(previous, PROV + "wasDerivedFrom", ox.NamedNode(root))
    for i in range(1, iterations + 1):
        step = f"{root}/i{i}"
        types(step, "Analysis", "ToolUse", PROV + "Entity")
        add(step, TG + "action", action.format(i=i, k=i % 3))
        add(step, TG + "arguments", arguments.format(i=i))
        add(step, TG + "llmDurationMs", str(100 + i))
        add(step, TG + "thought", ox.NamedNode(step + "/thought"))
        add(step, PROV + "wasDerivedFrom", ox.NamedNode(previous))
        types(step + "/thought", "Thought")
        text(step + "/thought", thought.format(i=i))
        add(step + "/thought", PROV + "wasDerivedFrom", ox.NamedNode(step))
        obs = step + "/observation"
        types(obs, "Observation", PROV + "Entity")
        add(obs, TG + "toolDurationMs", "50")
        text(obs, observation.format(i=i))
        if error_every and i % error_every == 0:
            types(obs, "Error")
            add(obs, TG + "toolError", f"tool failed at {i}")
        add(obs, PROV + "wasDerivedFrom", ox.NamedNode(step))
        previous = obs
    final = f"{root}/final"
    types(final, "Conclusion", "Answer", PROV + "Entity")
    text(final, answer)
    add(final, PROV + "wasDerivedFrom", ox.NamedNode(previous))
    collection = TraceStore(documents=documents)
    collection.store.extend(quads)
    return collection, {s.id: s for s in read_sessions(collection)}[root]


def plan_session(steps: int):
    """A plan-then-execute session with ``steps`` StepResults fanning out of its Plan."""
    root = f"urn:trustgraph:agent:00000000-0000-4000-9000-{steps:012d}"
    lines = ["@prefix tg: <https://trustgraph.ai/ns/> .", "@prefix prov: <http://www.w3.org/ns/prov#> .",
             f'<{root}> a tg:Question, tg:AgentQuestion, prov:Entity ; tg:query "Plan {steps}" .',
             f"<{root}/plan> a tg:Plan, prov:Entity ; prov:wasDerivedFrom <{root}> ."]
    for i in range(steps):
        lines.append(f'<{root}/step/{i}> a tg:StepResult, prov:Entity ; tg:planStep "Step {i + 1}: check {i}" ; '
                     f"prov:wasDerivedFrom <{root}/plan> .")
    lines.append(f"<{root}/synthesis> a tg:Synthesis, tg:Answer, prov:Entity ; prov:wasDerivedFrom <{root}/step/{steps - 1}> .")
    collection = TraceStore()
    collection.add_file("plan.ttl", "\n".join(lines).encode("utf-8"))
    return collection, {s.id: s for s in read_sessions(collection)}[root]


# -- helpers ------------------------------------------------------------------------------------
def svg_nodes(svg: bytes) -> dict[str, list[str]]:
    """Node title -> the lines of text drawn in it."""
    root = ET.fromstring(svg)
    out = {}
    for group in root.iter(SVG + "g"):
        if group.get("class") == "node":
            title = group.find(SVG + "title").text
            out[title] = [t.text or "" for t in group.iter(SVG + "text")]
    return out


# -- the DAG ------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", sorted(IMAGE_FORMATS.values()))
@pytest.mark.parametrize("iri", LOOKED_AT, ids=lambda i: i[-12:])
def test_dag_image_formats_are_valid(sessions, iri, fmt):
    data = dag_image(sessions[iri], fmt, sessions)
    assert data.startswith(MAGIC[fmt])
    if fmt == "png":
        width, height = Image.open(io.BytesIO(data)).size
        assert width >= 600 and height >= 600
    if fmt == "pdf":
        assert data.rstrip().endswith(b"%%EOF")


@pytest.mark.parametrize("iri", LOOKED_AT, ids=lambda i: i[-12:])
def test_dag_svg_has_a_node_for_every_step_and_a_legend(sessions, iri):
    session = sessions[iri]
    svg = dag_image(session, "svg", sessions)
    nodes = svg_nodes(svg)
    assert {s.id for s in session.steps} | {session.id} | set(session.children) <= set(nodes)
    assert set(session.graph.nodes) <= set(nodes)  # thoughts and edge selections too
    legend = {" ".join(lines) for title, lines in nodes.items() if title.startswith("legend:")}
    assert {"Entity", "Activity", "Agent", "Sub-session", "✗ tool error"} <= legend
    kinds = " ".join(nodes["legend:kinds"])
    assert all(step.kind in kinds for step in session.steps)
    text = svg.decode("utf-8")
    assert "<!--" not in text and "DOCTYPE" not in text and "graphviz version" not in text.lower()


def test_dag_labels_are_cut_with_an_ellipsis(sessions):
    long_words = "An extremely long thought that goes on and on about Mont Blanc and Elbrus " * 4
    collection, session = react_session(3, question=long_words, thought=long_words, action="x" * 80)
    nodes = svg_nodes(dag_image(session, "svg"))
    for title, lines in nodes.items():
        if title.startswith("legend:"):
            continue
        assert all(len(line) <= LABEL_CHARS for line in lines), (title, lines)
    assert any(line.endswith("…") for line in nodes[session.id])
    assert any(line.endswith("…") for line in nodes[session.steps[1].id])  # the Analysis' tool


def test_hostile_text_is_drawn_literally():
    hostile = 'say \\N and \\G <b>bold</b> & "quoted" ]; evil -> x'
    collection, session = react_session(2, question=hostile, thought=hostile, action="<i>\\L")
    dot = dag_dot(session)
    svg = dag_image(session, "svg")
    nodes = svg_nodes(svg)
    drawn = " ".join(nodes[session.id])
    assert "\\N" in drawn and "\\G" in drawn and "<b>bold</b>" in drawn and '"quoted"' in drawn
    assert "<i>\\L" in " ".join(nodes[session.steps[1].id])
    assert "evil -> x" in dot  # inside a quoted label, not DOT syntax: no extra node or edge
    assert {t for t in nodes if not t.startswith("legend:")} == set(session.graph.nodes)


def test_same_session_same_svg_bytes(sessions):
    for iri in LOOKED_AT:
        assert dag_image(sessions[iri], "svg", sessions) == dag_image(sessions[iri], "svg", sessions)
    assert dag_image(sessions[SUPERVISOR], "pdf", sessions) == dag_image(sessions[SUPERVISOR], "pdf", sessions)


def test_a_200_step_session_is_grouped_and_folded():
    # (its speed: benchmarks/long_sessions.py)
    collection, session = react_session(99)
    assert len(session.steps) == 200
    layout = dag_layout(session)
    svg = dag_image(session, "svg")
    png = dag_image(session, "png")
    timeline = timeline_image(session, "svg")
    assert layout.grouped and layout.folded
    assert len(layout.nodes) <= MAX_DRAWN_NODES
    members = {m for node in layout.nodes for m in node.members}
    assert {s.id for s in session.steps} <= members  # every step is in some drawn node
    nodes = svg_nodes(svg)
    assert session.id in nodes and session.steps[-1].id in nodes  # question and conclusion
    folded = [n for n in layout.nodes if n.kind == FOLDED]
    assert len(folded) == 1 and "95 iterations folded" in folded[0].lines[0]
    assert any("folded" in " ".join(lines) for lines in nodes.values())
    assert Image.open(io.BytesIO(png)).size[1] < 4000  # readable: a few screens, not a roll
    assert ET.fromstring(timeline) is not None


def test_errors_stay_visible_when_a_long_session_is_folded():
    collection, session = react_session(30, error_every=10)
    layout = dag_layout(session)
    shown = [n for n in layout.nodes if n.kind == ITERATION and n.error]
    folded = [n for n in layout.nodes if n.kind == FOLDED]
    assert len(shown) == 3 and folded  # i10, i20, i30 drawn; the runs between them folded
    assert all(not n.error for n in folded)


def test_a_wide_plan_is_folded_into_a_readable_fan():
    collection, session = plan_session(60)
    layout = dag_layout(session)
    assert layout.folded and len(layout.nodes) < 15
    png = dag_image(session, "png")
    width, _ = Image.open(io.BytesIO(png)).size
    assert width < 4000


def test_unknown_image_suffix():
    assert image_format("a/b/dag.SVG") == "svg"
    with pytest.raises(ValueError, match="unknown image format"):
        image_format("dag.gif")


# -- the timeline -------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", sorted(IMAGE_FORMATS.values()))
def test_timeline_image_formats(sessions, fmt):
    data = timeline_image(sessions[AGENT_12], fmt)
    assert data.startswith(MAGIC[fmt] if fmt != "svg" else b"<svg")
    if fmt == "png":
        width, height = Image.open(io.BytesIO(data)).size
        assert width >= 1000 and height >= 600
    if fmt == "svg":
        texts = [t.text for t in ET.fromstring(data).iter(SVG + "text")]
        assert "i2 Analysis: mcp:weather ✗" in texts and "Conclusion" in texts
        assert sessions[AGENT_12].question in texts  # the title


def test_timeline_same_svg_bytes_and_every_row_labelled_in_a_long_session(sessions):
    assert timeline_image(sessions[PLAN], "svg") == timeline_image(sessions[PLAN], "svg")
    collection, session = react_session(99)
    texts = {t.text for t in ET.fromstring(timeline_image(session, "svg")).iter(SVG + "text")}
    assert "i57 Analysis: tool-0" in texts and "i99 Observation" in texts


def test_the_shared_hostile_corpus_draws_literally_as_valid_svg():
    from tests import hostile_traces as hostile

    _, sessions = hostile.hostile_collection()
    for iri in (hostile.AGENT, hostile.GRAPHRAG, hostile.DOCRAG):
        session = sessions[iri]
        svg = dag_image(session, "svg", sessions)  # control characters would make invalid XML
        nodes = svg_nodes(svg)
        assert set(session.graph.nodes) <= set(nodes)
        for title, lines in nodes.items():
            assert all(len(line) <= LABEL_CHARS for line in lines if not title.startswith("legend:")), lines
        assert ET.fromstring(timeline_image(session, "svg")) is not None
        assert dag_image(session, "png", sessions).startswith(MAGIC["png"])
    drawn = " ".join(nodes_line for lines in svg_nodes(dag_image(sessions[hostile.AGENT], "svg", sessions)).values()
                     for nodes_line in lines)
    assert "<img src=x onerror=" in drawn and "<script>window." in drawn


# -- the timeline's time axis --------------------------------------------------------------------
def time_axis(svg: str) -> tuple[list[str], list[float], float]:
    """The x axis's tick labels, the x (px) of every point of every bar, and the plot's width
    (px), read from a timeline SVG drawn by vl-convert."""
    root = ET.fromstring(svg)
    groups = [g for g in root.iter(SVG + "g") if "role-axis-label" in (g.get("class") or "")]
    # the x axis's labels are the ones placed along a row (same y), the row labels down a column
    ticks = next([t.text for t in g.iter(SVG + "text")] for g in groups
                 if len({t.get("transform").split(",")[1] for t in g.iter(SVG + "text")}) == 1)
    xs: list[float] = []
    for group in root.iter(SVG + "g"):
        if (group.get("class") or "").startswith("mark-rect role-mark"):
            for path in group.iter(SVG + "path"):
                xs += [float(x) for x in re.findall(r"[MLC ]?(-?[\d.]+),-?[\d.]+", path.get("d"))]
    frame = next(p for p in root.iter(SVG + "path") if p.get("class") == "background")  # the plot's
    return ticks, xs, float(re.match(r"M[\d.]+,[\d.]+h([\d.]+)", frame.get("d")).group(1))


@pytest.mark.long
def test_the_timeline_image_axis_starts_at_0_and_draws_every_bar_whole(sessions):
    """No negative time on the axis ("−10 s −5 s" came from the scale's pixel padding, widened
    further by "nice"), its first tick "0 s" (or "step 1" on the order axis), and every bar
    inside the plot, for every session of the demo."""
    import vl_convert as vlc

    by_ms = 0
    for session in sessions.values():
        spec = timeline_spec(session, sessions)
        ticks, xs, width = time_axis(vlc.vegalite_to_svg(spec))
        assert ticks[0] in ("0 s", "step 1"), (session.id, ticks)
        assert not [t for t in ticks if t.startswith(("-", "−")) or t == "step 0"], (session.id, ticks)
        assert min(xs, default=0) >= 0 and max(xs, default=0) <= width + 0.01, (session.id, xs, width)
        assert spec["encoding"]["x"]["scale"].get("domainMin") == 0, session.id
        by_ms += ticks[0] == "0 s" and bool(xs)
    assert by_ms >= 9  # the demo's sessions drawn in time with bars (nine were drawn from below 0)
