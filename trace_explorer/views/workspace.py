"""A session as the one JSON shape the session workspace draws (``components/session/workspace/``): its
waterfall, its provenance graph and every step's inspector, built once, as Jaeger UI turns a
trace into its model once. Everything a person does many times a minute (select, search,
filter, fold, the Evidence switch) then runs in the browser on this data.

``workspace_data`` returns (every value plain JSON; every text is trace text with its invisible
controls shown, which the component writes with ``textContent`` only)::

    {
      "version": 1,
      "session": {"id", "question", "mechanism", "pattern", "started" (ISO-8601 or None),
                  "parent_session" (IRI or None), "problems": [str]},
      "axis": "ms" | "order",          # "order": no durations anywhere, rows are counted
      "idle_gaps": [[start, end]],     # idle stretches of the axis drawn compressed (views.waterfall.idle_gaps)
      "axis_pieces": [[drawn, real, rate]],   # the compressed axis (views.waterfall.compressed_axis)
      "kinds": [{"name", "colour"}],   # the step kinds, indexed by each step's "kind"
      "palette": {kind: colour}, "other_colour": colour,   # every kind's colour (graph nodes; an
                                                             # Iteration is its Analysis's)
      "steps": [                       # one per stop of the step walk (views.step_walk), in order
        {"id", "label", "kind": int, "depth": int, "header": bool (a sub-session's band),
         "band": int (the row of the header whose band holds it, -1 at depth 0),
         "session": int (the session it belongs to: an index of "sessions"),
         "start", "end": ms from the session's start (row numbers on the "order" axis),
         "duration": ms or None (None: an instant, drawn as a marker),
         "error": bool (a failed tool call), "tool": str or None (an Observation's is its Analysis's), "node": drawn graph node or None,
         "pending": bool (its texts are still in a TrustGraph librarian: the page fetches them),
         "sections": [...]}            # the inspector: views.step_sections
      ],
      "sessions": [IRI],               # the session and its sub-sessions, as the steps name them
      "critical": [int],               # rows of the critical path, first to last (``critical_path``)
      "slow_ms": float or None,        # the slow-step threshold: the 90th percentile of durations
      "graph": {"nodes": [...], "edges": [...], "legend": [...], "folded": bool,
                "fold_edges": [...], "open_window": int, "max_open": int},
      "evidence": None | {"nodes", "edges", "legend"},   # the Evidence branch, drawn on demand
    }

A graph node is ``{"id", "label" (lines joined by "\\n"), "kind", "shape" ("ellipse", "box",
"image": PROV's Entity, Activity, Agent), "level", "slot" (``views.dag.layout``), "hover",
"role" ("step", "session", "folded", "evidence"), "error", "members" (graph nodes it stands for),
"step" (the stop a click selects, or None)}``; an edge ``{"from", "to", "relation"}`` in PROV's
direction. The legend is ``views.dag.legend.legend_entries``.

A long session's graph (``dag.network.is_long``) is drawn folded with no fold open; the browser
opens folds. Each fold node then also has ``"parts"`` (the nodes it stands for, in reading order,
each ``{"id", "label", "tag"}`` (a short name such as "i3", or "") with, only where they differ
from the usual, ``"kind"`` (else "Iteration"), ``"shape"`` (else "ellipse"), ``"role"`` (else
"step"), ``"error"`` (else False) and ``"step"`` (else its own id; None: it selects nothing)),
``"row"`` (True: its parts derive one from another and open left to right; False: they hang side
by side and open one under another) and ``"chain"`` (True: each part derives from the one before
it, "wasDerivedFrom", and from no other part: those edges are left out of ``fold_edges``).
``fold_edges`` are the other edges of the unfolded graph that touch a part, to be drawn through
whichever node shows each end. A step inside a fold names its part as ``unit``. ``open_window``
parts are shown when a fold opens, and at most ``max_open`` folds stay opened by hand
(``dag.network.OPEN_WINDOW``, ``MAX_OPEN``).
"""

from __future__ import annotations

import bisect

from collections.abc import Collection, Mapping
from typing import Any

from ..model.literals import format_time
from ..model.session import Session
from .dag.folding import ITERATION, DagLayout, DagNode
from .dag.layout import part_owners
from .dag.network import MAX_OPEN, OPEN_WINDOW, dag_data, fold_base, folded_layout, is_long, whole_layout
from .dag.nodes import SHAPES
from .palette import KIND_COLOURS, OTHER_KIND_COLOUR, kind_colour
from .step_labels import clip, step_tag
from .step_sections import step_sections
from .step_walk import WalkEntry, step_walk
from .visible_text import visible_controls
from .waterfall import Waterfall, compressed_axis, idle_gaps, waterfall

VERSION = 1


def workspace_data(session: Session, sessions: Mapping[str, Session] | None = None, *,
                   walk: list[WalkEntry] | None = None, layout: DagLayout | None = None,
                   evidence_layout: DagLayout | None = None, texts: Mapping[str, str] | None = None,
                   pending: Collection[str] = (), unfolded: DagLayout | None = None) -> dict[str, Any]:
    """The workspace shape (module docstring) of ``session`` with the sub-sessions found in
    ``sessions`` (IRI -> Session). ``walk``: its step walk when already made; ``layout``: the
    graph drawn (default: ``dag.network.whole_layout``, or for a long session
    ``dag.network.folded_layout`` with no fold open); ``unfolded``: the layout ``layout`` folds
    (``FoldBase.grouped``: its edges join the folds' parts; made here with the default layout);
    ``evidence_layout``: ``layout`` with the Evidence branch hung on it, or None; ``texts``:
    chunk IRI -> text as the source holds them; ``pending``: the step IRIs whose texts a
    librarian has not sent yet. Linear in the steps."""
    sessions = sessions or {}
    walk = step_walk(session, sessions) if walk is None else walk
    if layout is None and is_long(session):
        base = fold_base(session, sessions)
        layout, unfolded = folded_layout(session, sessions=sessions, base=base), base.grouped
    elif layout is None:
        layout = whole_layout(session, sessions)
    rows = waterfall(session, walk=walk)
    gaps = idle_gaps(rows)
    graph = graph_data(session, layout, sessions, walk, unfolded)
    holders = {member: node.id for node in layout.nodes for member in node.members}
    folds = {node.id for node in layout.nodes if node.role == "folded"}
    units = {member: node.id for node in unfolded.nodes for member in node.members} if unfolded and folds else {}
    kinds = list(dict.fromkeys(rows.kinds))
    kind_index = {k: i for i, k in enumerate(kinds)}
    steps = []
    session_number: dict[str, int] = {}  # the steps name their session by number: 4,000 IRIs fewer
    called = _observed_tools(walk)
    for index, entry in enumerate(walk):
        sections = step_sections(entry.step, entry.session, texts)
        if entry.header:
            sections.insert(0, {"t": "link", "text": "Open this sub-session", "session": entry.session.id})
        elif entry.session.id != session.id:
            sections.insert(0, {"t": "link", "text": "A step of the sub-session", "session": entry.session.id})
        for section in sections:
            if section["t"] == "link":
                section["label"] = _session_label(sessions.get(section["session"]), section["session"])
        node = _graph_node(holders, walk, entry)
        steps.append({
            "id": entry.id, "label": rows.labels[index], "kind": kind_index[rows.kinds[index]],
            "depth": entry.depth, "header": entry.header, "band": rows.bands[index],
            "session": session_number.setdefault(entry.session.id, len(session_number)), "start": round(rows.starts[index], 3), "end": round(rows.ends[index], 3),
            "duration": None if rows.markers[index] or rows.headers[index] else rows.durations[index],
            "error": rows.errors[index], "tool": _tool(entry, called),
            "node": node, "unit": units.get(entry.id) if node in folds else None,
            "pending": entry.id in pending, "sections": sections,
        })
    return {
        "version": VERSION,
        "session": {"id": session.id, "question": visible_controls(session.question or ""),
                    "mechanism": session.mechanism, "pattern": session.pattern, "started": format_time(session.time),
                    "parent_session": session.parent_session,
                    "problems": [visible_controls(w) for w in session.warnings]},
        "axis": rows.axis,
        "idle_gaps": [[round(a, 3), round(b, 3)] for a, b in gaps],
        "axis_pieces": [list(piece) for piece in compressed_axis(gaps, max(rows.ends))] if gaps else [],
        "kinds": [{"name": k, "colour": kind_colour(k)} for k in kinds],
        "palette": {**KIND_COLOURS, ITERATION: kind_colour("Analysis")}, "other_colour": OTHER_KIND_COLOUR,
        "steps": steps,
        "sessions": list(session_number),
        "critical": critical_path(rows),
        "slow_ms": slow_threshold(rows),
        "graph": graph,
        "evidence": evidence_data(session, evidence_layout, sessions, walk) if evidence_layout is not None else None,
    }


def _session_label(other: Session | None, iri: str) -> str:
    """"Agent · What did the law change?" (the IRI for a session not at hand)."""
    if other is None:
        return iri
    return f"{other.mechanism} · {clip(other.question or '(no question recorded)', 70)}"


TOOL_CHARS = 200  # characters of a tool's name in a step (the tool filter's choices)


def _tool(entry: WalkEntry, called: Mapping[str, str]) -> str | None:
    """The tool an Analysis called, or that an Observation answers for (``called``: Observation
    IRI -> the tool of its Analysis), cut to ``TOOL_CHARS``; None for a reply that was not
    parsed and other steps."""
    if entry.id in called:
        return called[entry.id]
    action = entry.step.fields.get("action")
    return clip(action, TOOL_CHARS) if action and "parse_error" not in entry.step.fields else None


def _observed_tools(walk: list[WalkEntry]) -> dict[str, str]:
    """Observation IRI -> the tool its Analysis called (``model.agent`` links the two), cut to
    ``TOOL_CHARS``."""
    out: dict[str, str] = {}
    for entry in walk:
        fields = entry.step.fields
        if fields.get("observation_id") and fields.get("action") and "parse_error" not in fields:
            out[fields["observation_id"]] = clip(fields["action"], TOOL_CHARS)
    return out


def _graph_node(holders: Mapping[str, str], walk: list[WalkEntry], entry: WalkEntry) -> str | None:
    """The drawn node that stands for ``entry``: the one holding it, or for a stop of a
    sub-session not drawn the node of the sub-session (of the outermost one drawn)."""
    if entry.id in holders:
        return holders[entry.id]
    owner: Session | None = entry.session
    for _ in range(len(walk)):
        if owner is None or owner.id in holders:
            break
        owner = next((e.session for e in walk if e.session.id == owner.parent_session), None)
    return holders.get(owner.id) if owner is not None else None


def graph_data(session: Session, layout: DagLayout, sessions: Mapping[str, Session],
               walk: list[WalkEntry], unfolded: DagLayout | None = None) -> dict[str, Any]:
    """The ``graph`` of the workspace shape: ``layout`` as nodes and edges, and with
    ``unfolded`` (the layout ``layout`` folds) each fold's parts and the edges that join them
    (module docstring)."""
    data = dag_data(session, layout, sessions)
    nodes = _nodes(session, layout, data["nodes"], walk)
    fold_edges: list[dict[str, str]] = []
    if unfolded is not None and layout.folded:
        folds = {node.id: node for node in layout.nodes if node.role == "folded"}
        stops = {entry.id for entry in walk}
        owners = part_owners(unfolded)
        place: dict[str, tuple[str, int]] = {}  # part id -> (fold id, its place in the fold)
        for fold in folds.values():
            place.update((part.id, (fold.id, k)) for k, part in enumerate(fold.folded_from))
        internal: dict[str, list[tuple[str, str, str]]] = {}
        outer: list[tuple[str, str, str]] = []
        for edge in unfolded.edges:
            ends = place.get(edge[0]), place.get(edge[1])
            if ends[0] and ends[1] and ends[0][0] == ends[1][0]:
                internal.setdefault(ends[0][0], []).append(edge)
            elif ends[0] or ends[1]:
                outer.append(edge)
        for node in nodes:
            fold = folds.get(node["id"])
            if fold is None:
                continue
            own = internal.get(fold.id, [])
            chain = len(own) == len(fold.folded_from) - 1 and all(
                r == "wasDerivedFrom" and place[s][1] == place[t][1] + 1 for s, t, r in own)
            node["parts"] = [_part(session, part, stops, owners, walk) for part in fold.folded_from]
            node["row"], node["chain"] = bool(own), chain
            if not chain:
                outer.extend(own)
        fold_edges = [{"from": s, "to": t, "relation": r} for s, t, r in outer]
    return {"nodes": nodes, "edges": _edges(data["edges"]), "legend": data["legend"], "folded": bool(layout.folded),
            "fold_edges": fold_edges, "open_window": OPEN_WINDOW, "max_open": MAX_OPEN}


def _part(session: Session, part: DagNode, stops: Collection[str], owners: Mapping[str, str],
          walk: list[WalkEntry]) -> dict[str, Any]:
    """One part of a fold, as the browser draws it once the fold opens (its hover is made there
    from its step's sections)."""
    out: dict[str, Any] = {"id": part.id, "label": visible_controls("\n".join(clip(line, 28) for line in part.lines)
                                                                     or part.kind), "tag": step_tag(part.id)}
    shape, step = SHAPES.get(part.prov_class, "ellipse"), node_step(session, part.id, stops, owners, walk)
    for key, value, usual in (("kind", part.kind, ITERATION), ("shape", shape, "ellipse"), ("role", part.role, "step"),
                              ("error", bool(part.error), False), ("step", step, part.id)):
        if value != usual:
            out[key] = value
    return out


def evidence_data(session: Session, layout: DagLayout, sessions: Mapping[str, Session],
                  walk: list[WalkEntry]) -> dict[str, Any]:
    """The Evidence branch of ``layout`` (a layout with ``analysis.evidence.graph.with_evidence``
    applied): its nodes (role "evidence", with their level and slot in that layout) and the
    edges that touch them."""
    data = dag_data(session, layout, sessions)
    branch = {node.id for node in layout.nodes if node.role == "evidence"}
    nodes = [n for n in _nodes(session, layout, data["nodes"], walk) if n["id"] in branch]
    edges = [e for e in _edges(data["edges"]) if e["from"] in branch or e["to"] in branch]
    return {"nodes": nodes, "edges": edges, "legend": data["legend"]}


def _nodes(session: Session, layout: DagLayout, drawn: list[dict[str, Any]], walk: list[WalkEntry]) -> list[dict[str, Any]]:
    roles = {node.id: node for node in layout.nodes}
    stops = {entry.id for entry in walk}
    owners = part_owners(layout)
    out = []
    for node in drawn:
        own = roles.get(node["id"])
        out.append({"id": node["id"], "label": node.get("label") or "", "kind": node.get("kind") or "",
                    "shape": node.get("shape") or "ellipse", "level": node["level"], "slot": node["slot"],
                    "hover": node.get("hover") or "", "role": own.role if own else "step",
                    "error": bool(node.get("error")), "members": node.get("memberCount", 1),
                    "step": node_step(session, node["id"], stops, owners, walk)})
    return out


def _edges(drawn: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [{"from": e["from"], "to": e["to"], "relation": e.get("relation") or e.get("title") or ""} for e in drawn]


def node_step(session: Session, node: str, stops: Collection[str], owners: Mapping[str, str],
              walk: list[WalkEntry]) -> str | None:
    """The stop of the walk a click on ``node`` selects: the node itself when it is a stop (a
    step, a group's first member, a sub-session's Question), a part's step (a Thought's
    Analysis, a selection's Focus), the first stop for the Question; None for anything else."""
    if node in stops:
        return node
    if owners.get(node) in stops:
        return owners[node]
    if node == session.id and walk:
        return walk[0].id
    return None


def critical_path(rows: Waterfall) -> list[int]:
    """The rows of the chain of steps that decided the session's duration, first to last, as
    Jaeger finds a trace's critical path: from the step that ends last, back through the step
    that ended last before it started, to the start. Headers (sub-session bands) are never on
    it; on the "order" axis (no durations) nothing is."""
    if rows.axis != "ms":
        return []
    candidates = [i for i in range(len(rows)) if not rows.headers[i]]
    if not candidates:
        return []
    order = sorted(candidates, key=lambda i: (rows.ends[i], i))
    ends = [rows.ends[i] for i in order]
    current = order[-1]
    path = [current]
    while True:
        key = (rows.ends[current], current)
        place = bisect.bisect_right(ends, rows.starts[current] + 1e-6) - 1
        while place >= 0 and (rows.ends[order[place]], order[place]) >= key:
            place -= 1  # ties at an instant: only an earlier row
        if place < 0:
            break
        current = order[place]
        path.append(current)
    return path[::-1]


def slow_threshold(rows: Waterfall) -> float | None:
    """The slow-step threshold (ms): the 90th percentile of the recorded step durations (nearest
    rank), None when fewer than two steps have one."""
    values = sorted(d for d, h in zip(rows.durations, rows.headers) if d is not None and not h)
    if len(values) < 2:
        return None
    rank = max(0, -(-len(values) * 9 // 10) - 1)
    return float(values[rank])
