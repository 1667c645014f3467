"""A session's provenance graph as a self-contained HTML page (pyvis / vis-network 9).

PROV-O's drawing conventions: Entities are yellow ellipses, Activities blue boxes, Agents orange
houses (vis-network has no house shape: an Agent is drawn as an inline SVG house image, with its
label under it). The
border takes the kind's colour from ``palette``; a failed tool call has a red border and a "✗".
Edges point in PROV's direction (``u wasDerivedFrom v`` is an arrow from u to v) and carry the
relation's name. The layout is layered left to right in reading order (Question first), so the
chain reads like the timeline: a node's column is its longest derivation path from the start,
and within a column the steps sit on the centre line in reading order with their parts (thought,
edge and chunk selections) below them. Positions are computed here (no physics, no randomness),
so the same session always draws the same way.

Long sessions (more than ``FOLD_ABOVE_NODES`` graph nodes) are drawn grouped and folded with
``dag_folding`` (the rules of the DAG image): each Analysis with its Thought and Observation is
one "Iteration" node whose hover holds all three, a Focus holds its selections, and long runs of
similar iterations are folded into dashed "⋯ n iterations folded ⋯" nodes (cut into about
``MAX_PIECES`` folds), so a 2,000-iteration session draws a few dozen nodes; a graph of another
shape is folded too (chains of any steps, else stretches in reading order), to at most about
``DRAWN_LIMIT`` nodes. A fold opens around the selected step (``OPEN_WINDOW`` iterations drawn,
the rest stays folded) and from the fold ids passed as ``expand``; ``folded_layout`` says what
is drawn (every step stays in some node's ``members``). Shorter sessions are drawn whole, node
by node.

Safety: trace text is untrusted (LLM and tool output).
- Labels are drawn on the canvas by vis-network (no HTML), ``font.multi`` is off; group and
  fold nodes are labelled and hovered the same way (their text is the members' plain text).
- Hover text is *not* given to pyvis as ``title``: pyvis 0.3.2 switches to a popup that sets
  ``innerHTML`` when any title contains "href". It travels as the node field ``hover`` and a
  small script copies it into vis-network's ``title`` after drawing; vis-network 9 puts a string
  title into the tooltip with ``innerText`` (``Popup.setText``), so it is shown as literal text.
- All node data reaches the page through Jinja's ``tojson`` filter, which escapes ``<``, ``>``,
  ``&`` and ``'`` as ``\\u003c`` etc., so nothing in it can close the ``<script>`` element.
- The page loads nothing from the network: vis-network is inlined (``cdn_resources="in_line"``)
  and the Bootstrap CDN tags pyvis's template always writes are removed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import networkx as nx
from pyvis.network import Network

from ..model.literals import format_time
from ..model.session import SESSION_NODE, SUB_ENTITY_KINDS, Session, Step
from ..read.collector import collector_paused
from .dag_folding import FOLDED, ITERATION, DagLayout, DagNode, build_layout, fold_layout, fold_runs
from .palette import ERROR_COLOUR, PROV_FILLS, kind_colour, prov_fill
from .step_labels import clip, has_error, node_label, step_detail, step_tag
from .visible_text import visible_controls

# Relations whose *target* comes after the source in reading order (a step points at its parts).
PART_RELATIONS = frozenset({"selectedEdge", "selectedChunk", "thought"})
SHAPES = {"Entity": "ellipse", "Activity": "box", "Agent": "image"}
# PROV's Agent shape: an orange house, as an inline SVG (a data URI: nothing is fetched).
_HOUSE_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="44" height="40" viewBox="0 0 44 40">'
              '<path d="M3 18 L22 3 L41 18 L41 37 L3 37 Z" fill="{fill}" stroke="{stroke}" stroke-width="2.5"/></svg>')


def house_image(fill: str, stroke: str) -> str:
    """A data URI of PROV's orange house for an Agent node (colours are our palette's hex values)."""
    import base64

    svg = _HOUSE_SVG.format(fill=fill, stroke=stroke)
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
HOVER_FIELDS = (
    ("query", "question"), ("pattern", "pattern"), ("task_type", "task type"),
    ("action", "tool"), ("arguments", "arguments"), ("thought", "thought"),
    ("observation", "observation"), ("error", "tool error"), ("goals", "goals"),
    ("goal", "goal"), ("plan_steps", "plan"), ("plan_step", "plan step"),
    ("concepts", "concepts"), ("edge_count", "edges explored"), ("entities", "seed entities"),
    ("chunk_count", "chunks"), ("score", "score"), ("reasoning", "reasoning"),
    ("result", "result"), ("finding", "finding"), ("answer", "answer"),
    ("termination_reason", "termination"), ("llm_duration_ms", "LLM ms"),
    ("tool_duration_ms", "tool ms"), ("in_tokens", "tokens in"), ("out_tokens", "tokens out"),
    ("model", "model"), ("started", "started"),
)
HOVER_VALUE_CHARS = 400
COLUMN_PX = 250  # distance between columns (levels)
ROW_PX = 72  # distance between nodes of one column
FOLD_ABOVE_NODES = 240  # a session graph with more nodes is drawn grouped and folded
OPEN_WINDOW = 12  # iterations drawn when a fold opens around a step
MAX_PIECES = 10  # a long run is folded into at most this many folds
PIECE_NODES = 600  # about one fold per this many graph nodes, up to MAX_PIECES
MAX_OPEN = 3  # folds opened by hand at once (besides the one around the selected step)
DRAWN_LIMIT = 120  # whatever its shape, a long session's graph is folded down to about this many
GROUP_HOVER_MEMBERS = 24  # a group's hover shows at most this many members' fields
FOLD_FILL = "#fffde0"
FOLD_BORDER = "#64748b"
_EXTERNAL_TAG = re.compile(
    r"<link\b[^>]*\bhref\s*=\s*[\"']?(?:https?:)?//[^>]*>"
    r"|<script\b[^>]*\bsrc\s*=\s*[\"']?(?:https?:)?//[^>]*>\s*</script>",
    re.IGNORECASE,
)
_EMPTY_HEADING = re.compile(r"<center>\s*<h1>\s*</h1>\s*</center>", re.IGNORECASE)
_FONT = "Inter, 'Source Sans Pro', system-ui, sans-serif"


def dag_html(session: Session, selected: str | None = None, height_px: int = 600, *,
             sessions: Mapping[str, Session] | None = None, expand: Iterable[str] = (),
             layout: DagLayout | None = None, focus: str | None = None) -> str:
    """The session graph as one HTML page (vis-network inlined, no external URL).

    ``session.graph`` gives the nodes and edges: every node is drawn when the graph has at most
    ``FOLD_ABOVE_NODES`` nodes, else the grouped and folded ``folded_layout(session, selected,
    expand)`` (or the ``layout`` given, made by it). ``selected`` (a node IRI) is highlighted,
    selected and centred (in a long session: the group or fold node holding it); ``height_px``
    is the canvas height in CSS pixels (the page is that tall); ``sessions`` (IRI -> Session)
    lets a sub-session node show its question; ``focus`` (a drawn node id, e.g. a fold just
    opened) is where the view centres, instead of the selection, when the graph is too wide to
    show whole. Never raises on odd graphs: a cycle falls back to reading order for the levels.
    """
    sessions = sessions or {}
    if layout is None and is_long(session):
        layout = folded_layout(session, selected, expand, sessions=sessions)
    if layout is not None:
        return _folded_html(session, layout, selected, height_px, sessions, focus)
    net = _network(height_px)
    levels = node_levels(session)
    nodes = list(dict.fromkeys(list(session.order) + list(session.graph.nodes)))
    places = node_positions(session, levels, nodes)
    for node in nodes:
        options = _node_options(session, node, levels.get(node, 0), node == selected, sessions.get(node))
        options["x"], options["y"] = places[node]
        net.add_node(node, **options)
    if session.parent_session and session.parent_session not in session.graph:
        parent = sessions.get(session.parent_session)
        level = min(levels.values(), default=0) - 1
        options = _session_node_options(session.parent_session, parent, level,
                                        session.parent_session == selected, "Parent session")
        options["x"], options["y"] = level * COLUMN_PX, 0
        net.add_node(session.parent_session, **options)
        net.add_edge(session.id, session.parent_session, **_edge_options("wasDerivedFrom"))
    for source, target, data in session.graph.edges(data=True):
        net.add_edge(source, target, **_edge_options(data.get("relation") or "related"))
    net.options = _options()
    html = net.generate_html()
    return _finish(html, selected if selected in set(nodes) | {session.parent_session} else None,
                   session.id, focus=focus)


def _network(height_px: int) -> Network:
    return Network(height=f"{int(height_px)}px", width="100%", directed=True,
                   cdn_resources="in_line", bgcolor="#ffffff")


def is_long(session: Session) -> bool:
    """True when the app draws ``session`` grouped and folded (more than ``FOLD_ABOVE_NODES``
    graph nodes)."""
    return session.graph.number_of_nodes() > FOLD_ABOVE_NODES


def grouped_layout(session: Session, sessions: Mapping[str, Session] | None = None) -> DagLayout:
    """Every node of ``session.graph`` with each Analysis grouped with its Thought and
    Observation and each Focus with its selections (``dag_folding.build_layout``), the parent
    session added. Nodes carry short labels only (the hover is made for drawn nodes), so this is
    cheap enough for 150,000 nodes. Linear in the graph's size."""
    return build_layout(session, _plain_node, grouped=True, sessions=sessions,
                        parent_node=lambda iri, parent: _plain_session_node(iri, parent, "Parent session"))


@dataclass(frozen=True)
class FoldBase:
    """What every folded drawing of one long session shares, whatever is selected (worth
    keeping between drawings: it is the linear part of the work). ``grouped``: the
    ``grouped_layout``; ``owner``: graph node IRI -> id of the grouped node holding it;
    ``runs``: ``dag_folding.fold_runs`` of ``grouped`` (chains of any steps too, and at most
    about ``DRAWN_LIMIT`` nodes left whatever the graph's shape); ``pieces``: about how many
    folds the runs are cut into (one per ``PIECE_NODES`` graph nodes, at most ``MAX_PIECES``)."""

    grouped: DagLayout
    owner: dict[str, str]
    runs: list[list[str]]
    pieces: int


def fold_base(session: Session, sessions: Mapping[str, Session] | None = None) -> FoldBase:
    """The ``FoldBase`` of ``session`` (its graph grouped, its runs found). Never mutated
    afterwards, so it may be shared."""
    with collector_paused():
        grouped = grouped_layout(session, sessions)
        owner = {member: node.id for node in grouped.nodes for member in node.members}
        pieces = max(1, min(MAX_PIECES, -(-session.graph.number_of_nodes() // PIECE_NODES)))
        return FoldBase(grouped, owner, fold_runs(grouped, any_kind=True, limit=DRAWN_LIMIT), pieces)


def folded_layout(session: Session, selected: str | None = None, expand: Iterable[str] = (), *,
                  sessions: Mapping[str, Session] | None = None,
                  base: FoldBase | None = None) -> DagLayout:
    """What the app draws for a long session: its ``FoldBase`` (``base``, else made here) with
    each long run folded into at most ``MAX_PIECES`` folds, opened around ``selected`` (a step
    IRI: the node holding it is always drawn, centred in ``OPEN_WINDOW`` iterations) and from
    each id in ``expand`` on (fold ids, i.e. the first node of a fold, or step IRIs;
    ``OPEN_WINDOW`` iterations each). Every graph node is in exactly one node's ``members``."""
    base = base if base is not None else fold_base(session, sessions)
    owner = base.owner
    with collector_paused():
        return fold_layout(base.grouped, runs=base.runs, pieces=base.pieces,
                           open_at=[owner[selected]] if selected in owner else [],
                           open_from=[owner.get(a, a) for a in expand], window=OPEN_WINDOW, label_chars=24)


def folds(layout: DagLayout) -> list[DagNode]:
    """The folded nodes of ``layout``, in reading order."""
    return [node for node in layout.nodes if node.role == "folded"]


def fold_title(node: DagNode) -> str:
    """One line naming a fold: "i3 – i202: 200 iterations, 16 with a tool error"."""
    parts = node.folded_from or [node]
    kinds = {part.kind for part in parts}
    kind_name = ("iterations" if kinds == {ITERATION} else
                 f"{parts[0].kind} steps" if len(kinds) == 1 else "steps")
    tags = [t for t in (step_tag(parts[0].id), step_tag(parts[-1].id)) if t]
    errors = sum(1 for p in parts if p.error)
    text = (f"{tags[0]} – {tags[1]}: " if len(tags) == 2 else "") + f"{len(parts):,} {kind_name}"
    return text + (f", {errors:,} with a tool error" if errors else "")


def holder(layout: DagLayout, iri: str | None) -> str | None:
    """The id of the node of ``layout`` whose members hold ``iri`` (None when none does)."""
    if iri is None:
        return None
    return next((node.id for node in layout.nodes if iri in node.members), None)


def _folded_html(session: Session, layout: DagLayout, selected: str | None, height_px: int,
                 sessions: Mapping[str, Session], focus: str | None = None) -> str:
    """The page of a grouped and folded layout (``dag_html`` for a long session)."""
    net = _network(height_px)
    chosen = holder(layout, selected)
    levels = layout_levels(layout)
    places = _place(levels, [n.id for n in layout.nodes],
                    {n.id for n in layout.nodes if n.kind in SUB_ENTITY_KINDS})
    for node in layout.nodes:
        options = _layout_node_options(session, node, levels[node.id], node.id == chosen, sessions)
        options["x"], options["y"] = places[node.id]
        net.add_node(node.id, **options)
    for source, target, relation in layout.edges:
        net.add_edge(source, target, **_edge_options(relation))
    net.options = _options()
    return _finish(net.generate_html(), chosen, session.id, folded=bool(folds(layout)), focus=focus)


def _plain_node(session: Session, node: str, sessions: Mapping[str, Session]) -> DagNode:
    """A graph node as a ``DagNode`` with a short label ([title, detail]) and no hover yet."""
    step = session.nodes.get(node)
    if step is None:
        return _plain_session_node(node, sessions.get(node), "Sub-session")
    detail = step_detail(step)
    lines = [node_label(step).split("\n")[0]] + ([clip(detail, 24)] if detail else [])
    return DagNode(node, [node], step.kind, step.prov_class, lines, "", has_error(step))


def _plain_session_node(node: str, other: Session | None, role: str) -> DagNode:
    return DagNode(node, [node], SESSION_NODE, "Entity", [role], "", role="session")


def layout_levels(layout: DagLayout) -> dict[str, int]:
    """Column of each node of ``layout``, as ``node_levels`` does it for a session graph: the
    longest path from a start node, a derived node after its source, a part after its step.
    A cycle falls back to reading order."""
    ids = [n.id for n in layout.nodes]
    later: dict[str, list[str]] = {i: [] for i in ids}
    waiting = dict.fromkeys(ids, 0)
    for source, target, relation in layout.edges:
        first, then = (source, target) if relation in PART_RELATIONS else (target, source)
        if first in later and then in waiting:
            later[first].append(then)
            waiting[then] += 1
    levels = dict.fromkeys(ids, 0)
    ready = [i for i in ids if waiting[i] == 0]
    done = 0
    while ready:
        node = ready.pop()
        done += 1
        for after in later[node]:
            levels[after] = max(levels[after], levels[node] + 1)
            waiting[after] -= 1
            if waiting[after] == 0:
                ready.append(after)
    if done < len(ids):
        return {i: n for n, i in enumerate(ids)}
    return levels


def suggested_height(session: Session, min_px: int = 300, max_px: int = 640, *,
                     layout: DagLayout | None = None) -> int:
    """A canvas height (CSS pixels) that shows the session's tallest column at a readable
    scale, between ``min_px`` and ``max_px``; of ``layout``'s columns when given (a long
    session's folded layout)."""
    per_level: dict[int, int] = {}
    levels = layout_levels(layout) if layout is not None else node_levels(session)
    for level in levels.values():
        per_level[level] = per_level.get(level, 0) + 1
    tallest = max(per_level.values(), default=1)
    return int(min(max_px, max(min_px, (tallest - 1) * ROW_PX * 0.85 + 160)))


def node_levels(session: Session) -> dict[str, int]:
    """Column of each graph node, left to right: the longest path from a start node, where a
    derived entity comes after its source and a step's parts (thought, selections) after it."""
    later = nx.DiGraph()
    later.add_nodes_from(session.graph.nodes)
    for source, target, data in session.graph.edges(data=True):
        if data.get("relation") in PART_RELATIONS:
            later.add_edge(source, target)
        else:
            later.add_edge(target, source)
    try:
        ordered = list(nx.topological_sort(later))
    except nx.NetworkXUnfeasible:
        position = {n: i for i, n in enumerate(session.order)}
        return {n: position.get(n, 0) for n in session.graph.nodes}
    levels: dict[str, int] = {}
    for node in ordered:
        levels[node] = max((levels[p] + 1 for p in later.predecessors(node)), default=0)
    return levels


def node_positions(session: Session, levels: dict[str, int], nodes: list[str]) -> dict[str, tuple[int, int]]:
    """(x, y) in canvas pixels for every node: column ``level * COLUMN_PX``; in a column, the
    steps (and sub-sessions) centred on y = 0 in reading order, then the parts (Thought,
    EdgeSelection, ChunkSelection) below them."""
    parts = {n for n in nodes if n in session.nodes and session.nodes[n].kind in SUB_ENTITY_KINDS}
    return _place(levels, nodes, parts)


def _place(levels: dict[str, int], nodes: list[str], parts: set[str]) -> dict[str, tuple[int, int]]:
    """``node_positions`` for any nodes: ``nodes`` in reading order, ``parts`` go below."""
    columns: dict[int, tuple[list[str], list[str]]] = {}
    for node in nodes:  # ``nodes`` is in reading order
        columns.setdefault(levels.get(node, 0), ([], []))[1 if node in parts else 0].append(node)
    places: dict[str, tuple[int, int]] = {}
    for level, (main, parts) in columns.items():
        top = -(len(main) - 1) * ROW_PX // 2 if main else 0
        for row, node in enumerate(main + parts):
            places[node] = (level * COLUMN_PX, top + row * ROW_PX)
    return places


def hover_text(step: Step, extra: list[tuple[str, str]] | None = None) -> str:
    """The tooltip of a step as plain text, one "name: value" line per key field (values cut to
    ``HOVER_VALUE_CHARS``). It is shown with ``innerText``: never HTML."""
    lines = [f"{step.kind}" + (f" — {step.label}" if step.label and step.label != step.kind else ""),
             step.id]
    for name, title in HOVER_FIELDS:
        value = step.fields.get(name)
        if value is None or value == [] or value == "":
            continue
        lines.append(f"{title}: {_plain(value)}")
    for name, value in extra or ():
        lines.append(f"{name}: {value}")
    for warning in step.warnings[:3]:
        lines.append(f"warning: {clip(warning, 200)}")
    return visible_controls("\n".join(lines))


def _plain(value: Any) -> str:
    if hasattr(value, "isoformat"):
        text = format_time(value) or ""
    elif isinstance(value, (dict, list, tuple)) and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, list):
        text = ", ".join(value)
    else:
        text = str(value)
    return text if len(text) <= HOVER_VALUE_CHARS else text[: HOVER_VALUE_CHARS - 1] + "…"


def _node_options(session: Session, node: str, level: int, selected: bool,
                  child: Session | None) -> dict[str, Any]:
    step = session.nodes.get(node)
    if step is None:  # a sub-session
        return _session_node_options(node, child, level, selected, "Sub-session")
    error = has_error(step)
    accent = ERROR_COLOUR if error else kind_colour(step.kind)
    fill = prov_fill(step.prov_class)
    label = node_label(step)
    extra: list[tuple[str, str]] = []
    if node == session.id:
        label = "Question\n" + clip(session.question or "(no question)", 24)
    if step.kind == "EdgeSelection":
        edge = _edge_of(session, node)
        if edge:
            extra.append(("edge", " — ".join(str(edge.get(k + "_label") or edge.get(k) or edge.get("raw") or "?")
                                             for k in ("s", "p", "o"))))
    if step.kind == "ChunkSelection" and step.fields.get("document"):
        extra.append(("chunk", step.fields["document"]))
    options = {
        "label": label,
        "shape": SHAPES.get(step.prov_class, "ellipse"),
        "color": _colour(fill, accent, selected),
        "borderWidth": 4 if selected else (3 if error else 2),
        "borderWidthSelected": 4,
        "level": level,
        "hover": hover_text(step, extra),
        "kind": step.kind,
        "font": {"face": _FONT, "size": 13, "color": "#111827"},
        "margin": 8,
    }
    if step.prov_class == "Agent":
        options.update(image=house_image(fill, accent if not selected else "#111827"), size=20)
    return options


def _layout_node_options(session: Session, node: DagNode, level: int, selected: bool,
                         sessions: Mapping[str, Session]) -> dict[str, Any]:
    """The vis options of a node of a folded layout: a single step or a sub-session as in the
    whole drawing, a group (Iteration, Focus) or a fold as below; ``memberCount`` says how many
    graph nodes each stands for."""
    if node.role == "folded":
        return _fold_options(node, level, selected)
    if node.role == "session":
        role = "Parent session" if node.id == session.parent_session else "Sub-session"
        return dict(_session_node_options(node.id, sessions.get(node.id), level, selected, role), memberCount=1)
    if node.members == [node.id] and node.kind != ITERATION:
        return dict(_node_options(session, node.id, level, selected, sessions.get(node.id)), memberCount=1)
    step = session.nodes[node.id]
    accent = ERROR_COLOUR if node.error else kind_colour(step.kind)
    fill = prov_fill(step.prov_class)
    names = list(dict.fromkeys(session.nodes[m].kind for m in node.members if m in session.nodes))
    together = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
    header = f"{' '.join(node.lines[:1])}: {together} in one node"
    hovers = [hover_text(session.nodes[m]) for m in node.members[:GROUP_HOVER_MEMBERS] if m in session.nodes]
    if len(node.members) > GROUP_HOVER_MEMBERS:
        hovers.append(f"… and {len(node.members) - GROUP_HOVER_MEMBERS:,} more")
    options = {
        "label": "\n".join(clip(line, 28) for line in node.lines),
        "shape": SHAPES.get(step.prov_class, "ellipse"),
        "color": _colour(fill, accent, selected),
        "borderWidth": 4 if selected else (3 if node.error else 2),
        "borderWidthSelected": 4,
        "level": level,
        "hover": "\n\n".join([header] + hovers),
        "kind": node.kind,
        "memberCount": len(node.members),
        "font": {"face": _FONT, "size": 13, "color": "#111827"},
        "margin": 8,
    }
    if step.prov_class == "Agent":
        options.update(image=house_image(fill, accent if not selected else "#111827"), size=20)
    return options


def _fold_options(node: DagNode, level: int, selected: bool) -> dict[str, Any]:
    """A fold: a dashed box on a pale fill naming what it holds; red border when it holds a
    failed tool call. Its hover lists its parts (plain text)."""
    return {
        "label": "\n".join(clip(line, 32) for line in node.lines),
        "shape": "box",
        "color": _colour(FOLD_FILL, ERROR_COLOUR if node.error else FOLD_BORDER, selected),
        "borderWidth": 4 if selected else 2,
        "borderWidthSelected": 4,
        "shapeProperties": {"borderDashes": [6, 4]},
        "level": level,
        "hover": node.tooltip,
        "kind": FOLDED,
        "memberCount": len(node.members),
        "font": {"face": _FONT, "size": 13, "color": "#334155"},
        "margin": 10,
    }


def _session_node_options(node: str, other: Session | None, level: int, selected: bool,
                          role: str) -> dict[str, Any]:
    mechanism = other.mechanism if other else ""
    question = other.question if other else None
    label = f"{role}" + (f" ({mechanism})" if mechanism else "")
    if question:
        label += "\n" + clip(question, 24)
    lines = [f"{role}" + (f": {mechanism}" + (f" {other.pattern}" if other and other.pattern else "") if mechanism else ""),
             node]
    if question:
        lines.append(f"question: {_plain(question)}")
    if other is not None:
        lines.append(f"steps: {len(other.steps)}")
        lines.append("status: " + ("answered" if other.has_answer else "unfinished"))
    return {
        "label": label,
        "shape": "ellipse",
        "color": _colour("#fefce8", kind_colour(SESSION_NODE), selected),
        "borderWidth": 4 if selected else 2,
        "shapeProperties": {"borderDashes": [6, 4]},
        "level": level,
        "hover": "\n".join(lines),
        "kind": SESSION_NODE,
        "font": {"face": _FONT, "size": 13, "color": "#334155"},
        "margin": 8,
    }


def _colour(fill: str, accent: str, selected: bool) -> dict[str, Any]:
    border = "#111827" if selected else accent
    return {"background": fill, "border": border,
            "highlight": {"background": fill, "border": "#111827"},
            "hover": {"background": fill, "border": accent}}


def _edge_options(relation: str) -> dict[str, Any]:
    return {"label": relation, "arrows": "to", "color": {"color": "#94a3b8", "highlight": "#111827"},
            "font": {"face": _FONT, "size": 10, "color": "#64748b", "strokeWidth": 3,
                     "strokeColor": "#ffffff", "align": "middle"},
            "width": 1.2}


def _edge_of(session: Session, selection: str) -> dict[str, Any] | None:
    for focus in session.steps_of("Focus"):
        for edge in focus.fields.get("edges", []):
            if edge.get("id") == selection:
                return edge
    return None


def _options() -> dict[str, Any]:
    return {
        # positions come from node_positions; the seed only matters if vis ever places a node
        "layout": {"randomSeed": 7, "improvedLayout": False, "hierarchical": {"enabled": False}},
        "physics": {"enabled": False},
        "interaction": {"hover": True, "tooltipDelay": 120, "navigationButtons": False,
                        "keyboard": False, "multiselect": False, "dragNodes": True},
        "edges": {"smooth": {"enabled": True, "type": "cubicBezier",
                             "forceDirection": "horizontal", "roundness": 0.45}},
        "nodes": {"font": {"multi": False}},
    }


_LEGEND_CSS = """
<style>
  html, body { margin: 0; padding: 0; background: #ffffff; font-family: %(font)s; }
  .card { border: 0 !important; }
  #mynetwork { border: 1px solid #e5e7eb !important; border-radius: 8px; box-sizing: border-box; float: none !important; }
  div.vis-tooltip { white-space: pre-wrap; overflow-wrap: anywhere; max-width: 460px; font: 12px/1.4 %(font)s; color: #111827;
                    background: #ffffff; border: 1px solid #cbd5e1; border-radius: 6px; padding: 8px 10px;
                    box-shadow: 0 4px 14px rgba(15, 23, 42, .12); }
  #te-legend { position: absolute; top: 8px; left: 10px; z-index: 5; display: flex; gap: 12px; flex-wrap: wrap;
               align-items: center; font-size: 11px; color: #475569; background: rgba(255,255,255,.88);
               padding: 4px 8px; border-radius: 6px; border: 1px solid #e5e7eb; pointer-events: none; }
  #te-legend span.sw { display: inline-block; width: 16px; height: 10px; margin-right: 4px; vertical-align: -1px;
                       border: 2px solid #64748b; }
  #te-fit { position: absolute; top: 8px; right: 10px; z-index: 5; font: 12px %(font)s; padding: 3px 10px;
            border: 1px solid #cbd5e1; border-radius: 6px; background: #ffffff; color: #334155; cursor: pointer; }
  #te-fit:hover { background: #f1f5f9; }
</style>
""" % {"font": _FONT}

_LEGEND_HTML = """
<div id="te-legend">
  <span><span class="sw" style="background:%(entity)s;border-radius:50%%"></span>Entity</span>
  <span><span class="sw" style="background:%(activity)s"></span>Activity</span>
  <span><svg class="sw" width="14" height="13" viewBox="0 0 44 40" style="border:0"><path d="M3 18 L22 3 L41 18 L41 37 L3 37 Z" fill="%(agent)s" stroke="#9a3412" stroke-width="3"/></svg>Agent</span>
  <span><span class="sw" style="background:#fefce8;border-style:dashed"></span>Sub-session</span>
  <span><span class="sw" style="background:#ffffff;border-color:%(error)s"></span>Tool error ✗</span>
  <span>→ PROV direction: derived → source</span>%(folded)s
</div>
<button id="te-fit" type="button">Fit</button>
"""
_FOLDED_LEGEND = ('\n  <span><span class="sw" style="background:%s;border-style:dashed"></span>'
                  '⋯ folded run</span>' % FOLD_FILL)

_AFTER_DRAW = """
<script type="text/javascript">
(function () {
  // Hover text travels as the node field "hover"; vis-network shows a string title with innerText.
  var updates = [];
  nodes.forEach(function (n) { if (typeof n.hover === "string") { updates.push({id: n.id, title: n.hover}); } });
  nodes.update(updates);
  var selected = %(selected)s;
  var start = %(start)s;
  function place() {
    // the whole graph when it is readable that way, else a readable view around the selection
    var known = selected !== null && nodes.get(selected);
    if (known) { network.selectNodes([selected]); }
    network.fit({animation: false});
    var scale = network.getScale();
    if (scale > 1.1) { network.moveTo({scale: 1.1, animation: false}); }
    else if (scale < 0.55) { network.focus(%(centre)s, {scale: 0.85, animation: false}); }
  }
  place();
  document.getElementById("te-fit").addEventListener("click", function () { network.fit({animation: {duration: 300}}); });
  var host = document.getElementById("mynetwork");
  host.setAttribute("data-node-count", String(nodes.length));
  host.setAttribute("data-edge-count", String(edges.length));
})();
</script>
"""


def _finish(html: str, selected: str | None, start: str, folded: bool = False,
            focus: str | None = None) -> str:
    html = _EXTERNAL_TAG.sub("", html)
    html = _EMPTY_HEADING.sub("", html)
    if re.search(r"(?:src|href)\s*=\s*[\"']?(?:https?:)?//", html, re.IGNORECASE):
        raise RuntimeError("pyvis page still loads an external resource")
    html = html.replace("</head>", _LEGEND_CSS + "</head>", 1)
    legend = _LEGEND_HTML % {"entity": PROV_FILLS["Entity"], "activity": PROV_FILLS["Activity"],
                             "agent": PROV_FILLS["Agent"], "error": ERROR_COLOUR,
                             "folded": _FOLDED_LEGEND if folded else ""}
    html = html.replace('<div id="mynetwork"', legend + '<div id="mynetwork"', 1)
    html = html.replace('<div class="card" style="width: 100%">',
                        '<div class="card" style="width: 100%; position: relative">', 1)
    centre = "known ? selected : start"  # when the whole graph is too wide to read
    if focus is not None:
        centre = f"(nodes.get({_script_json(focus)}) ? {_script_json(focus)} : {centre})"
    script = _AFTER_DRAW % {"selected": _script_json(selected), "start": _script_json(start), "centre": centre}
    head, sep, tail = html.rpartition("</body>")
    return head + script + sep + tail if sep else html + script


def _script_json(value: Any) -> str:
    """JSON that is safe inside a <script> element (no "<", ">", "&" or line separators)."""
    text = json.dumps(value, ensure_ascii=True)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
