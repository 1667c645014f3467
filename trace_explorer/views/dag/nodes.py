"""How a DAG node and edge look in vis-network: PROV-O's drawing conventions, our palette, and
the plain-text hover.

Entities are yellow ellipses, Activities blue boxes, Agents orange houses (vis-network has no
house shape: an Agent is an inline SVG image, a data URI, with its label under it). The border
takes the kind's colour from ``palette``; a failed tool call has a red border and a "✗". A
sub-session (or the parent session) is a dashed ellipse, a fold a dashed box on a pale fill.
Edges point in PROV's direction (``u wasDerivedFrom v`` is an arrow from u to v); the relation's
name is the edge's hover, not a label on the canvas.

Safety: trace text is untrusted. Labels are drawn on the canvas (``font.multi`` off: no markup);
the hover travels as the node field ``hover`` and the page copies it into vis-network's
``title``, which vis-network 9 shows with ``innerText`` (``Popup.setText``): literal text.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from ...model.literals import format_time
from ...model.session import SESSION_NODE, Session, Step
from .folding import FOLDED, ITERATION, DagNode
from ..palette import ERROR_COLOUR, kind_colour, prov_fill
from ..step_labels import clip, has_error, node_label
from ..visible_text import visible_controls

SHAPES = {"Entity": "ellipse", "Activity": "box", "Agent": "image"}
HOVER_FIELDS = (
    ("query", "question"), ("pattern", "pattern"), ("task_type", "task type"),
    ("action", "tool"), ("arguments", "arguments"), ("thought", "thought"),
    ("observation", "observation"), ("error", "tool error"),
    ("parse_error", "the model's reply could not be parsed"), ("goals", "goals"),
    ("goal", "goal"), ("plan_steps", "plan"), ("plan_step", "plan step"),
    ("concepts", "concepts"), ("edge_count", "edges explored"), ("entities", "seed entities"),
    ("chunk_count", "chunks"), ("score", "score"), ("reasoning", "reasoning"),
    ("result", "result"), ("finding", "finding"), ("answer", "answer"),
    ("termination_reason", "termination"), ("llm_duration_ms", "LLM ms"),
    ("tool_duration_ms", "tool ms"), ("in_tokens", "tokens in"), ("out_tokens", "tokens out"),
    ("model", "model"), ("started", "started"),
)
HOVER_VALUE_CHARS = 400
GROUP_HOVER_MEMBERS = 24  # a group's hover shows at most this many members' fields
SESSION_FILL = "#fefce8"
FOLD_FILL = "#fffde0"
FOLD_BORDER = "#64748b"
SELECTED_BORDER = "#111827"
EDGE_COLOUR = "#94a3b8"
FONT = "Inter, 'Source Sans Pro', system-ui, sans-serif"
# PROV's Agent shape: an orange house, as an inline SVG (a data URI: nothing is fetched).
_HOUSE_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="44" height="40" viewBox="0 0 44 40">'
              '<path d="M3 18 L22 3 L41 18 L41 37 L3 37 Z" fill="{fill}" stroke="{stroke}" stroke-width="2.5"/></svg>')


def house_image(fill: str, stroke: str) -> str:
    """A data URI of PROV's orange house for an Agent node (colours are our palette's hex values)."""
    svg = _HOUSE_SVG.format(fill=fill, stroke=stroke)
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def hover_text(step: Step, extra: list[tuple[str, str]] | None = None) -> str:
    """The tooltip of a step as plain text, one "name: value" line per key field (its title,
    IRI and values cut to ``HOVER_VALUE_CHARS``). It is shown with ``innerText``: never HTML."""
    label = step.label or ""
    title = label if label.startswith(step.kind) else step.kind + (f" — {label}" if label else "")
    lines = [clip(title, HOVER_VALUE_CHARS), clip(step.id, HOVER_VALUE_CHARS)]  # "Analysis: calculator", not "Analysis — Analysis: calculator"
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


def node_options(session: Session, node: DagNode, sessions: Mapping[str, Session]) -> dict[str, Any]:
    """The vis-network options of one node of a ``DagLayout``: a single step or a sub-session as
    itself, a group (Iteration, a Focus with its selections) or a fold as below, a node of a
    branch (another role) from its own lines, tooltip, kind and PROV class. ``kind`` names what
    it is, ``memberCount`` how many graph nodes it stands for; level and slot are added by the
    caller."""
    if node.role == "folded":
        return _fold_options(node)
    if node.role not in ("step", "session"):  # a branch (layout.with_branch): drawn as it says
        return dict(_look(node.prov_class, ERROR_COLOUR if node.error else kind_colour(node.kind),
                          "\n".join(clip(line, 28) for line in node.lines) or node.kind,
                          visible_controls(node.tooltip or node.id), node.kind, node.error),
                    memberCount=len(node.members), role=node.role)
    if node.role == "session":
        role = "Parent session" if node.id == session.parent_session else "Sub-session"
        return dict(_session_options(node.id, sessions.get(node.id), role), memberCount=1)
    if node.members == [node.id] and node.kind != ITERATION:
        return dict(_step_options(session, node.id), memberCount=1)
    return _group_options(session, node)


def edge_options(relation: str) -> dict[str, Any]:
    """An edge in PROV's direction; its relation is its hover (``title``: plain text)."""
    return {"title": visible_controls(relation), "relation": relation, "arrows": {"to": {"enabled": True, "scaleFactor": 0.8}},
            "color": {"color": EDGE_COLOUR, "highlight": SELECTED_BORDER, "hover": "#475569"},
            "width": 1.3, "hoverWidth": 0.8, "selectionWidth": 1.2}


def _step_options(session: Session, node: str) -> dict[str, Any]:
    step = session.nodes[node]
    error = has_error(step)
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
    return _look(step.prov_class, ERROR_COLOUR if error else kind_colour(step.kind), label,
                 hover_text(step, extra), step.kind, error)


def _group_options(session: Session, node: DagNode) -> dict[str, Any]:
    """An Analysis with its Thought and Observation ("Iteration i3"), or a Focus with its
    selections: one node whose hover holds every member's fields."""
    step = session.nodes[node.id]
    names = list(dict.fromkeys(session.nodes[m].kind for m in node.members if m in session.nodes))
    together = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
    header = f"{' '.join(node.lines[:1])}: {together} in one node"
    hovers = [hover_text(session.nodes[m]) for m in node.members[:GROUP_HOVER_MEMBERS] if m in session.nodes]
    if len(node.members) > GROUP_HOVER_MEMBERS:
        hovers.append(f"… and {len(node.members) - GROUP_HOVER_MEMBERS:,} more")
    options = _look(step.prov_class, ERROR_COLOUR if node.error else kind_colour(step.kind),
                    "\n".join(clip(line, 28) for line in node.lines), "\n\n".join([header] + hovers),
                    node.kind, node.error)
    options["memberCount"] = len(node.members)
    return options


def _look(prov_class: str, accent: str, label: str, hover: str, kind: str, error: bool) -> dict[str, Any]:
    fill = prov_fill(prov_class)
    options = {
        "label": visible_controls(label), "shape": SHAPES.get(prov_class, "ellipse"),
        "color": _colour(fill, accent), "borderWidth": 3 if error else 2, "borderWidthSelected": 4,
        "hover": hover, "kind": kind, "error": error,
        "font": {"face": FONT, "size": 14, "color": "#111827"}, "margin": 9,
    }
    if prov_class == "Agent":
        options.update(image=house_image(fill, accent), size=20)
    return options


def _fold_options(node: DagNode) -> dict[str, Any]:
    """A fold: a dashed box on a pale fill naming what it holds; red border when it holds a
    failed tool call. Its hover lists its parts (plain text); a click opens it."""
    return {
        "label": visible_controls("\n".join(clip(line, 32) for line in node.lines)), "shape": "box",
        "color": _colour(FOLD_FILL, ERROR_COLOUR if node.error else FOLD_BORDER),
        "borderWidth": 2, "borderWidthSelected": 4, "shapeProperties": {"borderDashes": [6, 4]},
        "hover": visible_controls(node.tooltip + "\n\nClick to open this run."), "kind": FOLDED,
        "error": node.error, "memberCount": len(node.members),
        "font": {"face": FONT, "size": 14, "color": "#334155"}, "margin": 10,
    }


def _session_options(node: str, other: Session | None, role: str) -> dict[str, Any]:
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
        "label": visible_controls(label), "shape": "ellipse",
        "color": _colour(SESSION_FILL, kind_colour(SESSION_NODE)),
        "borderWidth": 2, "borderWidthSelected": 4, "shapeProperties": {"borderDashes": [6, 4]},
        "hover": visible_controls("\n".join(lines)), "kind": SESSION_NODE, "error": False,
        "font": {"face": FONT, "size": 14, "color": "#334155"}, "margin": 9,
    }


def _colour(fill: str, accent: str) -> dict[str, Any]:
    return {"background": fill, "border": accent,
            "highlight": {"background": fill, "border": SELECTED_BORDER},
            "hover": {"background": fill, "border": accent}}


def _edge_of(session: Session, selection: str) -> dict[str, Any] | None:
    for focus in session.steps_of("Focus"):
        for edge in focus.fields.get("edges", []):
            if edge.get("id") == selection:
                return edge
    return None


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
