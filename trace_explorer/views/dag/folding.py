"""Grouping and folding a long session's graph so it can be drawn: one job, shared by the DAG
image (``export.images``) and the app's interactive DAG (``views.dag.network``).

*Grouping* (``group_of``): an Analysis with its Thought and Observation becomes one node (kind
``ITERATION``, labelled "Iteration i3" with its tool), a Focus with its edge or chunk selections
one node. *Folding* (``fold_layout``): a run of more than ``FOLD_RUN`` similar nodes (a chain of
iterations without errors, each deriving from the one before; or leaves of one kind hanging off
the same node) becomes one dashed node (kind ``FOLDED``) that names what it holds (count, tags,
commonest tools), keeping ``FOLD_KEEP`` at each end of a chain. If more than ``max_nodes`` are
left, chains with errors fold too and the fold counts the errors.

Beyond what the image needs, ``fold_runs`` can fold chains of any steps and, as a last resort
for graphs of any shape, stretches in reading order (so no session draws more than a bounded
number of nodes), ``fold_layout`` can cut very long folds into a few shorter ones (``pieces``)
and open folds around some nodes (``open_at``, ``open_from``: a window of
``window`` nodes is drawn, what is left of the fold on either side stays folded), which is how
the app keeps the selected step visible and lets a person open a fold.

Everything here is structural: nodes carry ``lines`` (a label, one string a line) and a plain
text ``tooltip`` that the caller's node factory fills; the renderers escape them. Linear in the
number of graph nodes and edges.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from ...model.session import Session
from ..step_labels import clip, has_error, short_kind, step_tag

FOLD_RUN = 8  # a run of more than this many similar nodes is folded
FOLD_KEEP = 2  # nodes kept at each end of a folded chain
MAX_DRAWN_NODES = 40  # above this, chains with errors fold too
LABEL_CHARS = 30
MIN_PIECE = 25  # ``pieces`` never cuts a fold into pieces shorter than this
FOLDED = "Folded"
ITERATION = "Iteration"
FOLD_TOOLTIP_PARTS = 200  # a fold's tooltip lists at most this many of its parts


@dataclass
class DagNode:
    """One node of a drawn DAG.

    ``id``: the IRI it stands for (of its first member when it groups several); ``members``:
    every session graph node it stands for; ``kind``: a TrustGraph kind, ``model.SESSION_NODE``,
    ``ITERATION`` or ``FOLDED``; ``lines``: its label; ``tooltip``: plain text; ``role``:
    "step", "session" (a sub- or parent session) or "folded"; ``folded_from``: a fold's parts
    (the nodes it replaced, in reading order).
    """

    id: str
    members: list[str]
    kind: str
    prov_class: str = "Entity"
    lines: list[str] = field(default_factory=list)
    tooltip: str = ""
    error: bool = False
    role: str = "step"
    folded_from: list["DagNode"] = field(default_factory=list)


@dataclass
class DagLayout:
    """What a DAG draws: ``nodes`` in reading order, ``edges`` as (source, target, relation)
    between node ids in PROV's direction, and whether it was ``grouped`` / ``folded``."""

    nodes: list[DagNode]
    edges: list[tuple[str, str, str]]
    grouped: bool = False
    folded: bool = False


NodeFactory = Callable[[Session, str, Mapping[str, Session]], DagNode]


def group_of(session: Session) -> dict[str, str]:
    """Member IRI -> group IRI (the Analysis's or Focus's own): an Analysis with its Thought and
    Observation, a Focus with its selections. Steps in no group are not keys."""
    groups: dict[str, str] = {}
    graph = session.graph
    for step in session.steps:
        members: list[str] = []
        if step.kind == "Analysis":
            members = [step.fields.get("thought_id"), step.fields.get("observation_id")]
        elif step.kind == "Focus":
            members = [e.get("id") for e in step.fields.get("edges", [])] + [c.get("id") for c in step.fields.get("chunks", [])]
        members = [m for m in members if m and m in graph and m not in groups]
        if members or step.kind == "Analysis":
            groups[step.id] = step.id
            for member in members:
                groups[member] = step.id
    return groups


def build_layout(session: Session, make_node: NodeFactory, *, grouped: bool,
                 sessions: Mapping[str, Session] | None = None,
                 parent_node: Callable[[str, Session | None], DagNode] | None = None) -> DagLayout:
    """Every node of ``session.graph`` as a ``DagNode`` made by ``make_node(session, iri,
    sessions)``, in reading order, grouped (``group_of``) when ``grouped``; a group takes the
    node of its first member, gets every member and is named by ``name_group``. Edges between
    groups keep the relation of the first edge between them. ``parent_node(iri, parent)`` draws
    the session's parent session, if it has one (with a "wasDerivedFrom" edge to it)."""
    sessions = sessions or {}
    graph = session.graph
    order = list(dict.fromkeys(list(session.order) + sorted(graph.nodes, key=str)))
    groups = group_of(session) if grouped else {}
    nodes: dict[str, DagNode] = {}
    for node in order:
        key = groups.get(node, node)
        if key in nodes:
            nodes[key].members.append(node)
            continue
        nodes[key] = make_node(session, node, sessions)
    for key in set(groups.values()):
        name_group(session, nodes[key])
    if parent_node and session.parent_session and session.parent_session not in nodes:
        nodes[session.parent_session] = parent_node(session.parent_session, sessions.get(session.parent_session))
    edges: dict[tuple[str, str], str] = {}
    rank = {n: i for i, n in enumerate(order)}
    for source, target, data in sorted(graph.edges(data=True), key=lambda e: (rank.get(e[0], 0), rank.get(e[1], 0), e[2].get("relation") or "")):
        pair = (groups.get(source, source), groups.get(target, target))
        if pair[0] != pair[1] and pair not in edges:
            edges[pair] = data.get("relation") or "related"
    if parent_node and session.parent_session and (session.id, session.parent_session) not in edges:
        edges[(session.id, session.parent_session)] = "wasDerivedFrom"
    return DagLayout(list(nodes.values()), [(s, t, r) for (s, t), r in edges.items()], grouped=grouped)


def name_group(session: Session, node: DagNode, label_chars: int = LABEL_CHARS) -> None:
    """Label a group in place: an Analysis with its Thought and Observation becomes "Iteration
    i3" (kind ``ITERATION``) with its tool and, when a member failed, its error (``error`` set);
    a Focus says how many selections it holds. Lines are cut to ``label_chars``."""
    step = session.nodes[node.id]
    if step.kind == "Focus":
        picked = len(node.members) - 1
        node.lines.append(f"{picked} selection{'s' if picked != 1 else ''}")
        return
    node.kind = ITERATION
    node.error = any(has_error(session.nodes[m]) for m in node.members if m in session.nodes)
    node.lines = [f"Iteration {step_tag(step.id)}".strip() + (" ✗" if node.error else "")]
    if step.fields.get("action"):
        node.lines.append(clip(step.fields["action"], label_chars))
    elif "parse_error" in step.fields:
        node.lines.append(clip("reply not parsed", label_chars))
    if node.error and step.fields.get("error"):
        node.lines.append(clip(step.fields["error"], label_chars))


def fold_layout(layout: DagLayout, *, max_nodes: int = MAX_DRAWN_NODES, pieces: int = 1,
                open_at: Iterable[str] = (), open_from: Iterable[str] = (), window: int = 12,
                label_chars: int = LABEL_CHARS, runs: list[list[str]] | None = None) -> DagLayout:
    """A new layout with ``layout``'s long runs folded (module docstring); ``layout`` is left as
    it was. ``runs``: what to fold, ``fold_runs(layout, max_nodes)`` unless given. ``pieces`` > 1
    cuts the folds into about that many in all (each run into consecutive folds of near-equal
    length, none shorter than ``MIN_PIECE``). Folds open around node ids: ``window`` nodes
    centred on each id of ``open_at``, and ``window`` nodes from each id of ``open_from`` on (a
    fold's id is its first node's, so passing it opens that fold from its start), are drawn;
    what is left of a fold on either side stays folded when it holds more than 2 nodes. Fold
    labels are cut to ``label_chars``."""
    runs = fold_runs(layout, max_nodes) if runs is None else runs
    centred, starting = set(open_at), set(open_from)
    size = max(MIN_PIECE, math.ceil(sum(len(run) for run in runs) / max(pieces, 1)))
    folded: list[list[str]] = []
    for run in runs:
        shown = _shown(run, centred, starting, window) if centred or starting else set()
        for piece in _split(run, size) if pieces > 1 else [run]:
            folded.extend(_without(piece, shown))
    return _apply(layout, folded, label_chars)


def fold_runs(layout: DagLayout, max_nodes: int = MAX_DRAWN_NODES, *, any_kind: bool = False,
              limit: int | None = None) -> list[list[str]]:
    """The runs ``fold_layout`` folds before it cuts or opens any, as lists of ``layout``'s node
    ids in reading order: chains of iterations without errors and fans first; while more than
    ``max_nodes`` are left, chains of iterations with errors, then (``any_kind``) chains of any
    steps; last, while more than ``limit`` are left, consecutive stretches of the remaining
    nodes in reading order (whatever the graph's shape, at most about ``limit`` nodes stay). A
    run of a later pass takes in the folds it spans. Linear in the layout's size per pass."""
    runs = _chains(layout, with_errors=False) + _fans(layout)
    current = _apply(layout, runs, LABEL_CHARS)
    passes = [(max_nodes, lambda now: _chains(now, with_errors=True))]
    if any_kind:
        passes.append((max_nodes, lambda now: _chains(now, with_errors=True, any_kind=True)))
    if limit is not None:
        passes.append((limit, lambda now: _stretches(now, limit)))
    for most, find in passes:
        if len(current.nodes) <= most:
            continue
        more = find(current)
        if more:
            runs = _merge(runs, more)
            current = _apply(layout, runs, LABEL_CHARS)
    return runs


def _merge(runs: list[list[str]], more: list[list[str]]) -> list[list[str]]:
    """``runs`` with the runs ``more`` (ids of a layout where ``runs`` are folded) added: a fold
    in ``more`` is unpacked into its run, and the runs it took in are dropped."""
    inside = {run[0]: run for run in runs}
    unpacked = [[i for node in run for i in inside.get(node, [node])] for run in more]
    taken = {i for run in unpacked for i in run}
    return [run for run in runs if run[0] not in taken] + unpacked


def _stretches(layout: DagLayout, limit: int) -> list[list[str]]:
    """The nodes of ``layout`` in reading order, but the first and last ``FOLD_KEEP``, cut into
    consecutive stretches so that about ``limit`` // 2 remain."""
    middle = [node.id for node in layout.nodes[FOLD_KEEP:len(layout.nodes) - FOLD_KEEP]]
    size = max(2, math.ceil(len(middle) / max(1, limit // 2)))
    return [middle[i:i + size] for i in range(0, len(middle), size) if len(middle[i:i + size]) > 1]


def _adjacency(layout: DagLayout) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    out_edges: dict[str, list[str]] = {}
    in_edges: dict[str, list[str]] = {}
    for source, target, _ in layout.edges:
        out_edges.setdefault(source, []).append(target)
        in_edges.setdefault(target, []).append(source)
    return out_edges, in_edges


def _chains(layout: DagLayout, with_errors: bool, any_kind: bool = False) -> list[list[str]]:
    """Runs of more than ``FOLD_RUN`` iterations (``any_kind``: steps of any kind) where each
    derives from the one before and nothing else hangs on them; the middle of each run
    (``FOLD_KEEP`` kept at each end)."""
    out_edges, in_edges = _adjacency(layout)
    folds: list[list[str]] = []
    run: list[str] = []
    for node in layout.nodes + [None]:
        plain = node is not None and (
            (node.kind in (ITERATION, FOLDED) or (any_kind and node.role == "step"))
            and (with_errors or not node.error)
            and len(out_edges.get(node.id, [])) == 1 and len(in_edges.get(node.id, [])) <= 1)
        if plain and run and out_edges[node.id] == [run[-1]]:
            run.append(node.id)
            continue
        if len(run) > FOLD_RUN:
            folds.append(run[FOLD_KEEP:-FOLD_KEEP])
        run = [node.id] if plain else []
    return folds


def _fans(layout: DagLayout) -> list[list[str]]:
    """Leaves of one kind without errors that all derive from the same single node, when there
    are more than ``FOLD_RUN``: all but the first ``FOLD_KEEP - 1``."""
    out_edges, in_edges = _adjacency(layout)
    fans: dict[tuple[str, str], list[str]] = {}
    for node in layout.nodes:
        targets = out_edges.get(node.id, [])
        if node.role == "step" and not node.error and len(targets) == 1 and not in_edges.get(node.id):
            fans.setdefault((node.kind, targets[0]), []).append(node.id)
    return [ids[FOLD_KEEP - 1:] for ids in fans.values() if len(ids) > FOLD_RUN]


def _split(run: list[str], size: int) -> list[list[str]]:
    """``run`` cut into consecutive runs of near-equal length, about ``size`` each (no cut
    when it is not longer than ``size``)."""
    count = math.ceil(len(run) / max(size, 1))
    if count <= 1:
        return [run]
    bounds = [round(i * len(run) / count) for i in range(count + 1)]
    return [run[a:b] for a, b in zip(bounds, bounds[1:])]


def _shown(run: list[str], centred: set[str], starting: set[str], window: int) -> set[str]:
    """The ids of ``run`` drawn when it opens: ``window`` ids centred on each id of ``centred``
    and ``window`` ids from each id of ``starting`` on (each window kept inside the run)."""
    shown: set[str] = set()
    size = max(window, 1)
    for index, node in enumerate(run):
        if node in centred or node in starting:
            start = index - size // 2 if node in centred else index
            start = max(0, min(start, len(run) - size))
            shown.update(run[start:start + size])
    return shown


def _without(run: list[str], shown: set[str]) -> list[list[str]]:
    """The stretches of ``run`` outside ``shown`` that stay folded: those of more than 2 ids
    (shorter ones are drawn as they are)."""
    if not shown:
        return [run]
    pieces: list[list[str]] = []
    current: list[str] = []
    for node in run + [None]:
        if node is None or node in shown:
            if len(current) > 2:
                pieces.append(current)
            current = []
        else:
            current.append(node)
    return pieces


def _apply(layout: DagLayout, runs: list[list[str]], label_chars: int) -> DagLayout:
    """A new layout with each run (disjoint lists of node ids, in reading order) replaced by one
    folded node at the place of its first; edges are redirected to it (the first relation of
    each pair kept, self loops dropped). One pass over nodes and edges."""
    if not runs:
        return DagLayout(list(layout.nodes), list(layout.edges), layout.grouped, layout.folded)
    by_id = {n.id: n for n in layout.nodes}
    fold_of = {i: run[0] for run in runs for i in run}
    folded = {run[0]: _folded_node([by_id[i] for i in run], label_chars) for run in runs}
    nodes = [folded[n.id] if n.id in folded else n for n in layout.nodes if n.id not in fold_of or n.id in folded]
    edges: dict[tuple[str, str], str] = {}
    for source, target, relation in layout.edges:
        pair = (fold_of.get(source, source), fold_of.get(target, target))
        if pair[0] != pair[1]:
            edges.setdefault(pair, relation)
    return DagLayout(nodes, [(s, t, r) for (s, t), r in edges.items()], layout.grouped, True)


def _folded_node(nodes: list[DagNode], label_chars: int) -> DagNode:
    """One folded node standing for ``nodes`` (a run, in order; folds among them are unpacked):
    label "⋯ 95 iterations folded ⋯", the first and last tags, the commonest tools (a part's
    second label line), the errors; its tooltip lists the parts."""
    parts = [p for node in nodes for p in (node.folded_from or [node])]
    first = nodes[0]
    members = [m for node in nodes for m in node.members]
    tools: dict[str, int] = {}
    for part in parts:
        label = part.lines[1] if len(part.lines) > 1 else part.kind
        tools[label] = tools.get(label, 0) + 1
    errors = sum(1 for part in parts if part.error)
    kinds = {part.kind for part in parts}
    kind_name = ("iterations" if kinds == {ITERATION} else
                 f"{short_kind(parts[0].kind)} steps" if len(kinds) == 1 else "steps")
    tags = [t for t in (step_tag(parts[0].id), step_tag(parts[-1].id)) if t]
    lines = [f"⋯ {len(parts)} {kind_name} folded ⋯"]
    if len(tags) == 2:
        lines.append(f"{tags[0]} – {tags[1]}")
    common = sorted(tools.items(), key=lambda kv: (-kv[1], kv[0]))
    summary = ", ".join(f"{name} ×{count}" for name, count in common[:2]) + (", …" if len(common) > 2 else "")
    lines.append(clip(summary, label_chars))
    if errors:
        lines.append(f"✗ {errors} with a tool error")
    tooltip = f"{len(parts)} {kind_name} folded:\n" + "\n".join(
        f"{step_tag(p.id) or p.id}: {' / '.join(p.lines[1:]) or p.kind}" for p in parts[:FOLD_TOOLTIP_PARTS])
    if len(parts) > FOLD_TOOLTIP_PARTS:
        tooltip += f"\n… and {len(parts) - FOLD_TOOLTIP_PARTS:,} more"
    return DagNode(first.id, members, FOLDED, first.prov_class, lines, tooltip, error=bool(errors),
                   role="folded", folded_from=parts)

