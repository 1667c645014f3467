"""A session's DAG and timeline as SVG, PNG or PDF, made without a browser or the network.

The DAG is drawn by Graphviz ``dot`` (Debian's ``graphviz`` package; the DOT source is built
with the ``graphviz`` PyPI package, which quotes every string) in PROV's drawing conventions, as
the PROV tools draw them: Entities yellow ellipses, Activities blue boxes, Agents orange houses,
arrows in PROV's direction (derived -> source, labelled with the relation), the Question at the
top. A node's border takes its kind's colour from ``palette``; a failed tool call has a red
border and a "✗". A legend names the PROV classes and the kinds in the picture. Labels are at
most ``LABEL_CHARS`` characters a line, cut with an ellipsis.

Long sessions stay readable (the grouping and folding are ``views.dag.folding``'s, shared with the
app's DAG): a session graph of more than ``GROUP_ABOVE_NODES`` nodes is drawn grouped (an
Analysis with its Thought and Observation is one "iteration" node; a Focus with its edge or
chunk selections is one node), and a run of more than ``FOLD_RUN`` similar nodes (a chain
of iterations without errors, or siblings of one kind hanging off the same step) is folded into
one dashed node that names what it holds (count, tags, commonest tools), keeping ``FOLD_KEEP`` at
each end of a chain. If more than ``MAX_DRAWN_NODES`` remain, chains with errors fold too and
the fold counts the errors in red. Siblings that stay (a plan's step results, a Focus's
selections) are stacked ``FAN_ROW`` to a row rather than in one very wide row.

The timeline is the session view's Altair chart (``views.timeline.timeline_chart``) rendered by
``vl-convert`` (Vega in an embedded JavaScript engine, no browser).

Same session, same bytes: Graphviz's layout has no random seed, node and edge order follow the
session's reading order, and the comments that carry Graphviz's version are removed from the
SVG; the DAG's PDF gets a fixed creation date. (The timeline's PDF has the same content every
time but not the same bytes: vl-convert's svg2pdf writes a resource dictionary in hash order.)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping

import graphviz
from graphviz.quoting import quote

from ..analysis.evidence.graph import EvidenceBranch, with_evidence
from ..model.session import SESSION_NODE, Session, Step
from ..model.vocabulary import local_name
from ..views.dag.folding import ITERATION, DagLayout, DagNode, build_layout, fold_layout
from ..views.palette import ERROR_COLOUR, PROV_FILLS, kind_colour, prov_fill
from ..views.step_labels import clip, has_error, short_kind, step_detail, step_tag
from ..views.visible_text import visible_controls
from .suffixes import IMAGE_FORMATS

GROUP_ABOVE_NODES = 60
FAN_ROW = 3
LABEL_CHARS = 30
TOOLTIP_CHARS = 300
DOT_TIMEOUT_S = 60
PNG_DPI = 144
FONT = "DejaVu Sans"
# Relations from a step to its parts (thought, selections): drawn below the step.
PART_RELATIONS = frozenset({"selectedEdge", "selectedChunk", "thought"})
SHAPES = {"Entity": "ellipse", "Activity": "box", "Agent": "house"}
_COMMENT = re.compile(r"<!--.*?-->\s*", re.S)
_DOCTYPE = re.compile(r"<!DOCTYPE[^>]*>\s*", re.S)
_PDF_DATE = re.compile(rb"(/(?:CreationDate|ModDate) \(D:)(\d+)")
_TEXT_FIELDS = ("thought", "observation", "error", "answer", "result", "finding", "text")


class ImageExportError(RuntimeError):
    """A renderer is missing or failed; the message says which and how to get it."""


def image_format(name: str) -> str:
    """The image format a file name's suffix says ("svg", "png" or "pdf"); raises ValueError."""
    suffix = os.path.splitext(name)[1].lower()
    if suffix not in IMAGE_FORMATS:
        raise ValueError(f"unknown image format {suffix or name!r}: use one of {', '.join(IMAGE_FORMATS)}")
    return IMAGE_FORMATS[suffix]


# -- the DAG ------------------------------------------------------------------------------------
def dag_layout(session: Session, sessions: Mapping[str, Session] | None = None) -> DagLayout:
    """The nodes and edges the DAG image draws: every node of ``session.graph`` (plus the parent
    session, if any), grouped and folded when the session is long (module docstring).
    ``sessions`` (IRI -> Session) gives sub-session nodes their question."""
    grouped = session.graph.number_of_nodes() > GROUP_ABOVE_NODES
    layout = build_layout(session, _node, grouped=grouped, sessions=sessions,
                          parent_node=lambda iri, parent: _session_node(iri, parent, "Parent session"))
    if grouped:
        for node in layout.nodes:
            if len(node.members) > 1 or node.kind == ITERATION:
                node.tooltip = "\n\n".join(_tooltip(session.nodes[m]) for m in node.members if m in session.nodes)
        layout = fold_layout(layout)
    return layout


def dag_dot(session: Session, sessions: Mapping[str, Session] | None = None,
            branch: EvidenceBranch | None = None) -> str:
    """The DOT source of the DAG image (module docstring); deterministic for a given session.
    ``branch`` (``analysis.evidence.graph.evidence_branch``) adds the evidence behind the chosen
    edges and chunks, hung below the node that holds each selection."""
    layout = dag_layout(session, sessions)
    branch_edges: set[tuple[str, str, str]] = set()
    if branch:
        plain = len(layout.edges)
        layout = with_evidence(layout, branch)
        branch_edges = set(layout.edges[plain:])
    title = clip(session.question or "(no question)", 90)
    dot = graphviz.Digraph("session", graph_attr={
        "rankdir": "BT", "bgcolor": "white", "pad": "0.25", "nodesep": "0.3", "ranksep": "0.42",
        "fontname": FONT, "fontsize": "13", "labelloc": "t", "labeljust": "l",
        "label": graphviz.nohtml(_escape(f"{session.mechanism}{' · ' + session.pattern if session.pattern else ''}: {title}") + r"\l" + _escape(session.id) + r"\l"),
        "newrank": "true",
    }, node_attr={"fontname": FONT, "fontsize": "11", "style": "filled", "penwidth": "1.8",
                  "margin": "0.14,0.06", "color": "#475569"},
       edge_attr={"fontname": FONT, "fontsize": "8", "color": "#64748b", "fontcolor": "#64748b",
                  "arrowsize": "0.7", "penwidth": "1.1"})
    main = {s.id for s in session.steps} | {session.id}
    for node in layout.nodes:
        attributes = _node_attributes(node)
        if node.id in main:
            attributes["group"] = "steps"  # Graphviz keeps the edges within a group straight
        dot.node(node.id, **attributes)
    drawn = {node.id for node in layout.nodes}
    for step in session.steps_of("Analysis"):  # a Thought sits beside its Analysis
        thought = step.fields.get("thought_id")
        if step.id in drawn and thought in drawn:
            with dot.subgraph() as row:
                row.attr(rank="same")
                row.node(step.id)
                row.node(thought)
    for source, target, relation in layout.edges:
        # Digraph.edge() reads "a:b" as node a, port b; IRIs have colons, so the edge statement
        # is written with the package's own quoting instead.
        label = quote(graphviz.nohtml(_escape(relation)))
        # a step's part, and the evidence branch, are drawn below it, the arrow still at the source
        if relation in PART_RELATIONS or (source, target, relation) in branch_edges:
            dot.body.append(f"\t{quote(target)} -> {quote(source)} [label={label} dir=back]\n")
        else:
            dot.body.append(f"\t{quote(source)} -> {quote(target)} [label={label}]\n")
    _stack_fans(dot, layout)
    _legend(dot, layout)
    return dot.source


def render_dot(source: str, fmt: str) -> bytes:
    """Run Graphviz ``dot`` on ``source``; ``fmt`` is "svg", "png" (at ``PNG_DPI``) or "pdf".

    An SVG comes back without comments or DOCTYPE (so no version string and no external DTD
    URL). Raises ValueError for another format, ImageExportError when ``dot`` is missing, fails
    or takes more than ``DOT_TIMEOUT_S`` seconds.
    """
    if fmt not in IMAGE_FORMATS.values():
        raise ValueError(f"unknown image format {fmt!r}: use svg, png or pdf")
    exe = shutil.which("dot")
    if exe is None:
        raise ImageExportError("Graphviz 'dot' is not installed (Debian: apt-get install graphviz; "
                               "bash scripts/setup.sh does it)")
    command = [exe, f"-T{fmt}" if fmt != "pdf" else "-Tpdf:cairo"]
    if fmt == "png":
        command.append(f"-Gdpi={PNG_DPI}")
    env = dict(os.environ, SOURCE_DATE_EPOCH="0")
    try:
        done = subprocess.run(command, input=source.encode("utf-8"), capture_output=True,
                              timeout=DOT_TIMEOUT_S, env=env, check=False)
    except subprocess.TimeoutExpired:
        raise ImageExportError(f"Graphviz took more than {DOT_TIMEOUT_S} s") from None
    if done.returncode != 0 or not done.stdout:
        raise ImageExportError("Graphviz failed: " + done.stderr.decode("utf-8", "replace").strip()[:500])
    if fmt == "svg":
        return clean_svg(done.stdout)
    if fmt == "pdf":
        return _fixed_pdf_date(done.stdout)
    return done.stdout


def _fixed_pdf_date(data: bytes) -> bytes:
    """Debian's cairo (1.16) ignores ``SOURCE_DATE_EPOCH``: its PDF ``/CreationDate`` digits are
    replaced by 1970-01-01 00:00:00, the same number of bytes, so the file's offsets hold."""
    return _PDF_DATE.sub(lambda m: m.group(1) + b"19700101000000"[: len(m.group(2))].ljust(len(m.group(2)), b"0"), data)


def clean_svg(data: bytes) -> bytes:
    """An SVG without comments and DOCTYPE (Graphviz writes its version in a comment)."""
    text = data.decode("utf-8")
    return _DOCTYPE.sub("", _COMMENT.sub("", text)).encode("utf-8")


def dag_image(session: Session, fmt: str, sessions: Mapping[str, Session] | None = None,
              branch: EvidenceBranch | None = None) -> bytes:
    """The session's DAG as ``fmt`` ("svg", "png" or "pdf") bytes, with the evidence ``branch``
    when given; errors as ``render_dot``."""
    return render_dot(dag_dot(session, sessions, branch), fmt)


# -- helpers ------------------------------------------------------------------------------------
def _node(session: Session, node: str, sessions: Mapping[str, Session]) -> DagNode:
    step = session.nodes.get(node)
    if step is None:
        return _session_node(node, sessions.get(node), "Sub-session")
    if node == session.id:
        lines = ["Question"] + _wrap(session.question or "(no question)", 2)
    else:
        lines = [_title(step)] + _summary(session, step)
    return DagNode(node, [node], step.kind, step.prov_class, lines, _tooltip(step), has_error(step))


def _session_node(node: str, other: Session | None, role: str) -> DagNode:
    lines = [role + (f" · {other.mechanism}" if other else "")]
    if other is not None:
        lines += _wrap(other.question or "(no question)", 2)
    tooltip = f"{role}\n{node}"
    if other is not None:
        tooltip += f"\nquestion: {clip(other.question or '', TOOLTIP_CHARS)}\nsteps: {len(other.steps)}"
    return DagNode(node, [node], SESSION_NODE, "Entity", lines, tooltip, role="session")


def _title(step: Step) -> str:
    text = f"{short_kind(step.kind)} {step_tag(step.id)}".strip()
    return text + (" ✗" if has_error(step) else "")


def _summary(session: Session, step: Step) -> list[str]:
    """At most three short lines that tell this step apart: its tool, goal or plan step; a
    selection's edge and score; the start of its words."""
    lines = []
    detail = step_detail(step)
    if detail:
        lines.append(clip(detail, LABEL_CHARS))
    if step.kind == "EdgeSelection":
        edge = _edge_terms(session, step.id)
        if edge:
            lines.extend(_wrap(" → ".join(edge), 2))
    if step.kind in ("EdgeSelection", "ChunkSelection") and isinstance(step.fields.get("score"), (int, float)):
        lines.append(f"score {step.fields['score']:g}")
    for name in _TEXT_FIELDS:
        value = step.fields.get(name)
        if isinstance(value, str) and value.strip() and step.kind != "Analysis":
            lines.append(clip(value, LABEL_CHARS))
            break
    return lines[:3]


def _edge_terms(session: Session, selection: str) -> list[str] | None:
    """The chosen edge of an EdgeSelection as short names [s, p, o] (labels, else local names)."""
    for focus in session.steps_of("Focus"):
        for edge in focus.fields.get("edges", []):
            if edge.get("id") == selection and edge.get("stored"):
                return [str(edge.get(k + "_label") or (edge[k] if k == "o" and edge.get("o_is_literal") else local_name(edge[k] or "?")))
                        for k in ("s", "p", "o")]
    return None


def _wrap(text: str, lines: int) -> list[str]:
    """``text`` over at most ``lines`` lines of ``LABEL_CHARS``, the last cut with an ellipsis."""
    words = " ".join(str(text).split()).split(" ")
    out: list[str] = []
    current = ""
    for index, word in enumerate(words):
        candidate = f"{current} {word}".strip()
        if len(candidate) <= LABEL_CHARS or not current:
            current = candidate
            continue
        out.append(current)
        current = word
        if len(out) == lines - 1:
            current = " ".join(words[index:])
            break
    out.append(current)
    return [clip(line, LABEL_CHARS) for line in out[:lines]]


def _tooltip(step: Step) -> str:
    lines = [f"{step.kind}" + (f" — {step.label}" if step.label and step.label != step.kind else ""), step.id]
    for name in ("query", "action", "arguments", "thought", "observation", "error", "goal", "plan_step",
                 "concepts", "result", "finding", "answer", "score", "llm_duration_ms", "tool_duration_ms"):
        value = step.fields.get(name)
        if value is None or value == "" or value == []:
            continue
        if not isinstance(value, str):
            value = json.dumps(value, ensure_ascii=False, default=str)
        lines.append(f"{name.replace('_', ' ')}: {clip(value, TOOLTIP_CHARS)}")
    return "\n".join(lines)


def _node_attributes(node: DagNode) -> dict[str, str]:
    shape = SHAPES.get(node.prov_class, "ellipse")
    fill = prov_fill(node.prov_class)
    border = ERROR_COLOUR if node.error else kind_colour("Analysis" if node.kind == ITERATION else node.kind)
    attributes = {
        "label": graphviz.nohtml(r"\n".join(_escape(clip(visible_controls(line), LABEL_CHARS)) for line in node.lines)),
        "shape": shape, "fillcolor": fill, "color": border,
        "tooltip": graphviz.nohtml(_escape(node.tooltip, lines=True)),
    }
    if node.error:
        attributes["penwidth"] = "2.8"
    if node.role == "session":
        attributes.update(style="filled,dashed", fillcolor="#fefce8", color=kind_colour(SESSION_NODE))
    elif node.role == "folded":
        attributes.update(style="filled,dashed", fillcolor="#fffde0",
                          color=ERROR_COLOUR if node.error else "#64748b")
    if node.kind == "Question":
        attributes["fontsize"] = "12"
    return attributes


def _legend(dot: graphviz.Digraph, layout: DagLayout) -> None:
    """A "Legend" box in two rows: the PROV classes by shape and fill, then the marks (sub-session,
    tool error, folded run, arrow direction); beside them the kinds drawn, by border colour."""
    kinds = list(dict.fromkeys("Analysis" if n.kind == ITERATION else n.kind for n in layout.nodes
                               if n.role in ("step", "evidence")))
    classes = [("legend:entity", "Entity", "ellipse", PROV_FILLS["Entity"], "#475569", "filled"),
               ("legend:activity", "Activity", "box", PROV_FILLS["Activity"], "#475569", "filled"),
               ("legend:agent", "Agent", "house", PROV_FILLS["Agent"], "#475569", "filled")]
    marks = [("legend:session", "Sub-session", "ellipse", "#fefce8", kind_colour(SESSION_NODE), "filled,dashed"),
             ("legend:error", "✗ tool error", "ellipse", PROV_FILLS["Entity"], ERROR_COLOUR, "filled")]
    if layout.folded:
        marks.append(("legend:folded", "⋯ folded run", "ellipse", "#fffde0", "#64748b", "filled,dashed"))
    rows = "".join(
        f'<TR><TD WIDTH="14" HEIGHT="10" BGCOLOR="#ffffff" COLOR="{kind_colour(k)}" BORDER="2"> </TD>'
        f'<TD ALIGN="LEFT">{_html(k if k != SESSION_NODE else "Sub-session")}</TD></TR>'
        for k in kinds)
    with dot.subgraph(name="cluster_legend") as legend:
        legend.attr(label="Legend", style="rounded", color="#cbd5e1", fontsize="10", fontname=FONT,
                    labelloc="b", labeljust="l")
        legend.node("legend:kinds", label=f'<<TABLE BORDER="0" CELLSPACING="2" CELLPADDING="1">'
                    f'<TR><TD COLSPAN="2" ALIGN="LEFT">border colour = kind</TD></TR>{rows}</TABLE>>',
                    shape="plaintext", style="", fontsize="9", tooltip="kinds")
        for name, label, shape, fill, border, style in classes + marks:
            legend.node(name, label=label, shape=shape, fillcolor=fill, color=border, style=style,
                        fontsize="9", tooltip=label, penwidth="2.4" if name == "legend:error" else "1.4")
        legend.node("legend:arrow", label="arrow: derived → source\n(PROV direction)", shape="plaintext",
                    style="", fontsize="9", tooltip="arrows")
        top = [c[0] for c in classes]
        bottom = [m[0] for m in marks] + ["legend:arrow"]
        for row in (["legend:kinds"] + top, bottom):
            with legend.subgraph() as same:
                same.attr(rank="same")
                for left, right in zip(row, row[1:]):
                    same.body.append(f"\t{quote(left)} -> {quote(right)} [style=invis]\n")
        for upper, lower in zip(top, bottom):  # rankdir BT: the edge's head is drawn above its tail
            legend.body.append(f"\t{quote(lower)} -> {quote(upper)} [style=invis]\n")
    last = next((n.id for n in reversed(layout.nodes) if n.role != "session"), None)
    if last is not None:  # the legend goes below the whole graph
        dot.body.append(f"\t\"legend:kinds\" -> {quote(last)} [style=invis weight=0]\n")


def _stack_fans(dot: graphviz.Digraph, layout: DagLayout) -> None:
    """Siblings of one kind deriving from the same node (a plan's step results, a Focus's
    selections) are stacked in rows of ``FAN_ROW`` instead of one very wide row."""
    out_edges: dict[str, list[str]] = {}
    for source, target, _ in layout.edges:
        out_edges.setdefault(source, []).append(target)
    fans: dict[tuple[str, str], list[str]] = {}
    for node in layout.nodes:
        targets = out_edges.get(node.id, [])
        if len(targets) == 1 and node.role != "session":
            fans.setdefault((node.kind, targets[0]), []).append(node.id)
    for source, target, relation in layout.edges:  # parts hang below their step
        if relation in PART_RELATIONS:
            fans.setdefault(("part", source), []).append(target)
    for ids in fans.values():
        for upper, lower in zip(ids, ids[FAN_ROW:]):
            dot.body.append(f"\t{quote(lower)} -> {quote(upper)} [style=invis]\n")


def _escape(text: str, lines: bool = False) -> str:
    """Text for a DOT string (not HTML): ``graphviz.escape`` doubles backslashes so Graphviz's
    ``\\N``, ``\\G``, ``\\l`` escapes cannot come from trace text; control characters are
    made visible (they are not allowed in SVG's XML); line breaks become spaces, or DOT's ``\\n``
    when ``lines``."""
    parts = [graphviz.escape(part) for part in visible_controls(str(text)).splitlines()] or [""]
    return "\\n".join(parts) if lines else " ".join(parts)


def _html(text: str) -> str:
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))
