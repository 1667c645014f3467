"""A session's provenance DAG as the vis-network graph pyvis builds: data for the app's DAG
component (``dag_data``) and a self-contained page for the export (``dag_html``).

What is drawn is a ``folding.DagLayout`` (``drawn_layout``): every node of the session graph
for a short session, with the parent session when it has one; a long session (more than
``FOLD_ABOVE_NODES`` graph nodes) grouped and folded as the DAG image folds it (each Analysis
with its Thought and Observation is one "Iteration" node whose hover holds all three, a Focus
holds its selections, long runs of similar nodes are folded into dashed "⋯ n iterations folded
⋯" nodes, cut into at most ``MAX_PIECES`` folds), so a 2,000-iteration session draws a few dozen
nodes. A fold opens around the selected step (``OPEN_WINDOW`` iterations drawn) and from the
fold ids passed as ``expand``. Every step stays in some node's ``members``.

How nodes look is ``nodes``; where they go is ``layout`` (a level in the flow's
direction and a slot within it; the browser wraps levels into rows, ``view.js``); the
legend lists what is drawn (``legend``). Other node groups (say, the documents an edge was
extracted from) can join a drawing as more ``DagNode``s and edges of the layout: each node's
look comes from its ``role`` and ``kind``.

Safety: trace text is untrusted. Node data reaches the page as JSON: in the component as data
(never HTML), in the page through Jinja's ``tojson`` (``<``, ``>``, ``&``, ``'`` escaped), so
nothing can close the ``<script>`` element; labels are canvas text and hovers are shown with
``innerText``. The page loads nothing from the network: vis-network is inlined from the pyvis
package and pyvis's CDN tags are removed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from pyvis.network import Network

from ...model.session import SESSION_NODE, Session
from ...read.collector import collector_paused
from .folding import ITERATION, DagLayout, DagNode, build_layout, fold_layout, fold_runs
from .layout import layout_slots, tallest_level
from .legend import legend_entries
from .nodes import FONT, edge_options, node_options
from ..external_resources import external_resources
from ..step_labels import clip, has_error, node_label, step_detail, step_tag

FOLD_ABOVE_NODES = 240  # a session graph with more nodes is drawn grouped and folded
OPEN_WINDOW = 12  # iterations drawn when a fold opens around a step
MAX_PIECES = 10  # a long run is folded into at most this many folds
PIECE_NODES = 600  # about one fold per this many graph nodes, up to MAX_PIECES
MAX_OPEN = 3  # folds opened by hand at once (besides the one around the selected step)
DRAWN_LIMIT = 120  # whatever its shape, a long session's graph is folded down to about this many
_EXTERNAL_TAG = re.compile(
    r"<link\b[^>]*\bhref\s*=\s*[\"']?(?:https?:)?//[^>]*>"
    r"|<script\b[^>]*\bsrc\s*=\s*[\"']?(?:https?:)?//[^>]*>\s*</script>",
    re.IGNORECASE,
)
_EMPTY_HEADING = re.compile(r"<center>\s*<h1>\s*</h1>\s*</center>", re.IGNORECASE)


def is_long(session: Session) -> bool:
    """True when the app draws ``session`` grouped and folded (more than ``FOLD_ABOVE_NODES``
    graph nodes)."""
    return session.graph.number_of_nodes() > FOLD_ABOVE_NODES


def whole_layout(session: Session, sessions: Mapping[str, Session] | None = None) -> DagLayout:
    """Every node of ``session.graph`` in reading order, one ``DagNode`` each, with the parent
    session (and a "wasDerivedFrom" edge to it) when the session is a sub-session."""
    return build_layout(session, _plain_node, grouped=False, sessions=sessions,
                        parent_node=lambda iri, parent: _plain_session_node(iri, parent, "Parent session"))


def grouped_layout(session: Session, sessions: Mapping[str, Session] | None = None) -> DagLayout:
    """Every node of ``session.graph`` with each Analysis grouped with its Thought and
    Observation and each Focus with its selections (``folding.build_layout``), the parent
    session added. Nodes carry short labels only (the hover is made for drawn nodes), so this is
    cheap enough for 150,000 nodes. Linear in the graph's size."""
    return build_layout(session, _plain_node, grouped=True, sessions=sessions,
                        parent_node=lambda iri, parent: _plain_session_node(iri, parent, "Parent session"))


@dataclass(frozen=True)
class FoldBase:
    """What every folded drawing of one long session shares, whatever is selected (worth
    keeping between drawings: it is the linear part of the work). ``grouped``: the
    ``grouped_layout``; ``owner``: graph node IRI -> id of the grouped node holding it;
    ``runs``: ``folding.fold_runs`` of ``grouped`` (chains of any steps too, and at most
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


def drawn_layout(session: Session, selected: str | None = None, expand: Iterable[str] = (), *,
                 sessions: Mapping[str, Session] | None = None, base: FoldBase | None = None) -> DagLayout:
    """What a drawing of ``session`` shows: ``folded_layout`` for a long session (``is_long``),
    else ``whole_layout``."""
    if is_long(session):
        return folded_layout(session, selected, expand, sessions=sessions, base=base)
    return whole_layout(session, sessions)


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


def suggested_height(layout: DagLayout, min_px: int = 300, max_px: int = 640) -> int:
    """A canvas height (CSS pixels) for the exported page: enough for the layout's fullest level
    at a readable scale, between ``min_px`` and ``max_px``."""
    return int(min(max_px, max(min_px, (tallest_level(layout) - 1) * 66 * 0.85 + 200)))


def dag_data(session: Session, layout: DagLayout, sessions: Mapping[str, Session] | None = None) -> dict[str, Any]:
    """The drawing of ``layout`` (a layout of ``session``) as plain data for the DAG component:
    ``nodes`` and ``edges`` as pyvis builds them for vis-network (each node with ``level`` and
    ``slot``, ``hover`` text, ``kind``, ``memberCount``; each edge with its ``relation`` as
    ``title``), ``options`` (vis-network's), ``legend`` (``legend.legend_entries``) and
    ``key`` (a digest of the nodes and edges: the same drawing has the same key)."""
    net = _network(600, sessions or {}, session, layout)
    nodes = [dict(node) for node in net.nodes]
    edges = [dict(edge) for edge in net.edges]
    digest = hashlib.sha256(json.dumps([[n["id"] for n in nodes], [(e["from"], e["to"]) for e in edges],
                                        [n["label"] for n in nodes]], ensure_ascii=False).encode()).hexdigest()
    return {"nodes": nodes, "edges": edges, "options": vis_options(), "legend": legend_entries(layout),
            "key": digest[:16]}


def dag_html(session: Session, selected: str | None = None, height_px: int | None = None, *,
             sessions: Mapping[str, Session] | None = None, expand: Iterable[str] = (),
             layout: DagLayout | None = None) -> str:
    """The session graph as one HTML page (vis-network inlined, no external URL), as the
    exported page shows it: ``drawn_layout(session, selected, expand)`` unless ``layout`` is
    given, ``selected`` (a step IRI) selected, ``height_px`` tall (CSS pixels; default
    ``suggested_height``). Never raises on odd graphs: a cycle falls back to reading order."""
    sessions = sessions or {}
    layout = layout if layout is not None else drawn_layout(session, selected, expand, sessions=sessions)
    height = height_px or suggested_height(layout)
    net = _network(height, sessions, session, layout)
    net.options = vis_options()
    html = net.generate_html()
    return _finish(html, holder(layout, selected), legend_entries(layout))


def _network(height_px: int, sessions: Mapping[str, Session], session: Session, layout: DagLayout) -> Network:
    net = Network(height=f"{int(height_px)}px", width="100%", directed=True, cdn_resources="in_line",
                  bgcolor="#ffffff")
    places = layout_slots(layout)
    for node in layout.nodes:
        options = node_options(session, node, sessions)
        options["level"], options["slot"] = places[node.id]
        net.add_node(node.id, **options)
    for source, target, relation in layout.edges:
        net.add_edge(source, target, **edge_options(relation))
    return net


def vis_options() -> dict[str, Any]:
    """vis-network's options: no physics (the page places every node), hover tooltips, straight
    edges, no keyboard navigation of its own (the page's keys move through steps)."""
    return {
        "layout": {"randomSeed": 7, "improvedLayout": False, "hierarchical": {"enabled": False}},
        "physics": {"enabled": False},
        "interaction": {"hover": True, "tooltipDelay": 120, "navigationButtons": False, "keyboard": False,
                        "multiselect": False, "dragNodes": True, "selectConnectedEdges": False,
                        "hoverConnectedEdges": False},
        "edges": {"smooth": {"enabled": False}},
        "nodes": {"font": {"multi": False, "face": FONT}, "labelHighlightBold": False},
    }


@functools.lru_cache(maxsize=1)
def vis_network_js() -> str:
    """vis-network 9's script as the pyvis package ships it (inlined, never from a CDN)."""
    import pyvis

    return (Path(pyvis.__file__).parent / "templates" / "lib" / "vis-9.1.2" / "vis-network.min.js").read_text(
        encoding="utf-8")


@functools.lru_cache(maxsize=2)
def dag_view_asset(suffix: str) -> str:
    """The shared drawing code (``"js"``) or its styles (``"css"``): ``view.js`` /
    ``view.css`` beside this module."""
    return resources.files(__package__).joinpath(f"view.{suffix}").read_text(encoding="utf-8")


_ADOPT = """
<script type="text/javascript">
(function () {
  var view = TraceExplorerDag.adopt(network, nodes, edges, document.getElementById("mynetwork"),
                                    {legend: %(legend)s}, {});
  var selected = %(selected)s;
  if (selected !== null) { view.select(selected, true); }
})();
</script>
"""


def _finish(html: str, selected: str | None, legend: list[dict[str, Any]]) -> str:
    """pyvis's page without its CDN tags, with our styles, drawing code and legend."""
    html = _EXTERNAL_TAG.sub("", html)
    html = _EMPTY_HEADING.sub("", html)
    loaded = external_resources(html)  # the page's elements: trace text in its data is not one
    if loaded:
        raise RuntimeError(f"pyvis page still loads an external resource: {loaded[0]}")
    style = ("<style>html, body { margin: 0; padding: 0; background: #ffffff; } .card { border: 0 !important; "
             "padding: 0 4px; box-sizing: border-box; } #mynetwork { float: none !important; border: 1px solid #e5e7eb !important; "
             "border-radius: 8px; }\n" + dag_view_asset("css") + "</style>")
    html = html.replace("</head>", style + "</head>", 1)
    script = ("<script type=\"text/javascript\">" + script_safe(dag_view_asset("js")) + "</script>"
              + _ADOPT % {"legend": script_json(legend), "selected": script_json(selected)})
    head, sep, tail = html.rpartition("</body>")
    return head + script + sep + tail if sep else html + script


def script_json(value: Any) -> str:
    """JSON that is safe inside a <script> element (no "<", ">", "&" or line separators)."""
    text = json.dumps(value, ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def script_safe(code: str) -> str:
    """Our own script text made safe to inline in a <script> element."""
    return code.replace("</script", "<\\/script").replace("<!--", "<\\!--")


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
