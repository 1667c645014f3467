"""The provenance DAG of a session: the vis-network graph pyvis builds (``views.dag.network.dag_data``),
drawn by a custom component (``st.components.v2``: no iframe, and a click comes back to Python).

The component's script is vis-network as the pyvis package ships it, then the shared drawing
code (``views/dag/view.js``), then a few lines that hand clicks back as the trigger ``click``
(the node id). A click on a step's node selects that step (a Thought or a selection selects its
step, the Question the first step, a sub-session node its Question in the walk); a click on a
folded run opens it; a click on the parent session's node opens that session. The drawing is
rebuilt only when what is drawn changes (its ``key``); a new selection only moves the highlight.

A session whose answer chose edges or chunks (or ran sub-sessions that may have) gets an
"Evidence" toggle: on, the graph gains the evidence branch (``analysis.evidence.graph``): each
chosen edge's and chunk's chunk, page and document, hung below the selection; a click on a
Document opens the documents page at it.

A long session (``views.dag.network.is_long``) is drawn grouped and folded: a caption says so, and a
select box lists the folded runs (for the keyboard). Up to ``views.dag.network.MAX_OPEN`` folds stay
open at once, kept per session in ``st.session_state``; the fold holding the selected step
always opens around it.
"""

from __future__ import annotations

import functools
from typing import Any

import streamlit as st

from trace_explorer.analysis.evidence.graph import EvidenceBranch, evidence_branch, with_evidence
from trace_explorer.model.session import Session
from trace_explorer.sources.source import SourceError
from trace_explorer.views.dag.network import (MAX_OPEN, OPEN_WINDOW, FoldBase, dag_data, dag_view_asset, drawn_layout,
                                              fold_base, fold_title, folds, holder, is_long, script_safe,
                                              vis_network_js)
from trace_explorer.views.dag.folding import ITERATION, DagLayout
from trace_explorer.views.dag.layout import part_owners
from trace_explorer.views.step_walk import WalkEntry

from .collection import Collection
from .evidence import cached_evidence, has_evidence
from .step_picker import select_step
from .text import DOCUMENTS_PAGE, SESSION_PAGE, md_escape

COMPONENT_KEY = "te_dag"
OPEN_KEY = "te_dag_open"  # {"session": IRI, "ids": [fold ids opened by hand], "last": the latest}
PICK_KEY = "te_dag_fold_pick"
GOTO_KEY = "te_dag_goto"  # a session IRI to open (the parent session's node was clicked)
EVIDENCE_KEY = "te_dag_evidence"  # the Evidence toggle
DOCUMENT_KEY = "te_dag_document"  # a document IRI to open (a Document of the evidence branch was clicked)

_GLUE = """
export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const host = parentElement.querySelector(".te-dag");
  if (!host || !data || !data.graph) { return; }
  const hooks = { click: (id) => setTriggerValue("click", id) };
  let view = host.__teDag;
  let fresh = !view;
  if (fresh) {
    view = globalThis.TraceExplorerDag.draw(host, data.graph, hooks);
  } else {
    view.hooks = hooks;
    if (view.key !== data.graph.key) { view.update(data.graph); fresh = true; }
  }
  view.select(data.selected, fresh || view.selected !== data.selected);
  if (data.focus && data.focus !== host.__teFocus) {
    host.__teFocus = data.focus;
    view.network.focus(data.focus, {scale: Math.max(view.network.getScale(), 0.7), animation: false});
  }
}
"""


@functools.lru_cache(maxsize=1)
def _component() -> Any:
    """The registered component (made once: its script holds vis-network, about 470 KB)."""
    script = vis_network_js().split("//# sourceMappingURL=")[0]
    return st.components.v2.component(
        "trace_explorer_dag",
        html='<div class="te-dag" tabindex="0" data-te-steps="dag" role="group" '
             'aria-label="Provenance graph: click a node to select its step; j / k or arrows move"></div>',
        css=dag_view_asset("css"),
        js=script + "\n;\n" + script_safe(dag_view_asset("js")) + "\n" + _GLUE,
    )


@st.cache_resource(show_spinner=False, max_entries=4)
def _base(collection_key: tuple, session_id: str, _session: Session, _sessions: Any) -> FoldBase:
    """A long session's grouped graph and runs (the linear part of folding), once per session."""
    return fold_base(_session, _sessions)


@st.cache_resource(show_spinner=False, max_entries=32)
def _drawing(collection_key: tuple, session_id: str, target: str | None, expand: tuple[str, ...],
             children: tuple[str, ...], evidence: bool, _session: Session, _sessions: Any,
             _base: FoldBase | None, _branch: EvidenceBranch | None) -> tuple[DagLayout, dict[str, Any]]:
    """What is drawn for one session, selection (it decides which fold opens), set of open
    folds and evidence branch (``evidence``: drawn or not), and its data for the component;
    shared, never changed by its users."""
    layout = drawn_layout(_session, target, expand, sessions=_sessions, base=_base)
    if _branch is not None:
        layout = with_evidence(layout, _branch)
    return layout, dag_data(_session, layout, _sessions)


def dag(session: Session, collection: Collection, selected: str | None, walk: list[WalkEntry]) -> None:
    """Draw the session's DAG with ``selected`` (a stop of ``walk``) highlighted. A long session is
    drawn folded, with a caption saying so and a control that opens a folded run."""
    if st.session_state.get(GOTO_KEY):
        st.switch_page(SESSION_PAGE, query_params={"session": st.session_state.pop(GOTO_KEY)})
    if st.session_state.get(DOCUMENT_KEY):
        st.switch_page(DOCUMENTS_PAGE, query_params={"document": st.session_state.pop(DOCUMENT_KEY)})
    target = graph_node(session, walk, selected)
    expand: tuple[str, ...] = ()
    base = None
    long = is_long(session)
    if long:
        base = _base(collection.key, session.id, session, collection.by_id)
        expand = tuple(_opened(session))
    children = tuple(c for c in session.children if c in collection.by_id)
    branch = _evidence(session, collection)
    layout, graph = _drawing(collection.key, session.id, target if long else None, expand, children,
                             branch is not None, session, collection.by_id, base, branch)
    if long:
        _fold_controls(session, layout, selected)
    _component()(key=COMPONENT_KEY, data={"graph": graph, "selected": holder(layout, target),
                                          "focus": _focus(layout, selected)},
                 on_click_change=functools.partial(_clicked, session, layout, walk))


def _evidence(session: Session, collection: Collection) -> EvidenceBranch | None:
    """The evidence branch when the session has evidence and the toggle is on, else None (and
    a caption when the source cannot say where the evidence came from)."""
    if not has_evidence(session):
        return None
    if not st.toggle("Evidence", key=EVIDENCE_KEY,
                     help="Hang each chosen edge's and chunk's chunk, page and document on the graph "
                          "(click a document to see every answer it fed)"):
        return None
    try:
        branch = evidence_branch(cached_evidence(session, collection))
    except SourceError as error:
        st.caption(md_escape(f"Evidence not shown: {error}"))
        return None
    if not branch.nodes:
        st.caption("No loaded extraction holds what this session chose: there is no evidence to draw.")
        return None
    return branch


def graph_node(session: Session, walk: list[WalkEntry], selected: str | None) -> str | None:
    """The node of ``session.graph`` that stands for the stop ``selected``: itself, or for a
    stop of a sub-session the node of the sub-session (of the outermost one drawn)."""
    if selected is None or selected in session.graph:
        return selected
    owner = next((e.session for e in walk if e.id == selected), None)
    for _ in range(len(walk)):
        if owner is None or owner.id in session.graph:
            break
        owner = _parent_in_walk(walk, owner)
    return owner.id if owner is not None and owner.id in session.graph else None


def _parent_in_walk(walk: list[WalkEntry], child: Session) -> Session | None:
    return next((e.session for e in walk if e.session.id == child.parent_session), None)


def node_step(session: Session, layout: DagLayout, walk: list[WalkEntry], node: str) -> str | None:
    """The stop of ``walk`` a click on ``node`` selects: the node itself when it is a stop (a
    step, a group's first member, a sub-session's Question), a part's step, the first stop for
    the Question; None for anything else."""
    stops = {entry.id for entry in walk}
    if node in stops:
        return node
    owner = part_owners(layout).get(node)
    if owner in stops:
        return owner
    if node == session.id and walk:
        return walk[0].id
    return None


def _clicked(session: Session, layout: DagLayout, walk: list[WalkEntry]) -> None:
    """Callback of a click on the graph: select the step, open the fold or the parent session."""
    state = st.session_state.get(COMPONENT_KEY)
    node = getattr(state, "click", None) if state is not None else None
    if node is None and isinstance(state, dict):
        node = state.get("click")
    if not isinstance(node, str):
        return
    drawn = next((n for n in layout.nodes if n.id == node), None)
    if drawn is not None and drawn.role == "folded":
        _open(node, st.session_state.get("te_step"))
    elif drawn is not None and drawn.role == "evidence":
        if drawn.kind == "Document":
            st.session_state[DOCUMENT_KEY] = node
    elif node == session.parent_session:
        st.session_state[GOTO_KEY] = node
    else:
        select_step(walk, node_step(session, layout, walk, node))


def _opened(session: Session) -> list[str]:
    """The fold ids opened by hand for ``session`` (emptied when another session comes up)."""
    state = st.session_state.get(OPEN_KEY)
    if not isinstance(state, dict) or state.get("session") != session.id:
        state = {"session": session.id, "ids": []}
        st.session_state[OPEN_KEY] = state
    return list(state["ids"])


def _focus(layout: DagLayout, selected: str | None) -> str | None:
    """Where the view centres: the middle of the fold opened last, until another step is
    selected (then the selection)."""
    state = st.session_state.get(OPEN_KEY) or {}
    last = state.get("last")
    if not last or state.get("selected") != selected:
        return None
    ids = [node.id for node in layout.nodes]
    if last not in ids:
        return None
    return ids[min(ids.index(last) + OPEN_WINDOW // 2, len(ids) - 1)]


def _open(fold: str, selected: str | None) -> None:
    """Open the fold ``fold`` (the oldest of ``MAX_OPEN`` closes) and centre the view on it."""
    state = st.session_state.get(OPEN_KEY)
    if isinstance(state, dict):
        state["ids"] = [i for i in state["ids"] if i != fold][-(MAX_OPEN - 1):] + [fold]
        state["last"], state["selected"] = fold, selected


def _open_picked(selected: str | None) -> None:
    """Callback of the fold picker: open the fold picked."""
    picked = st.session_state.get(PICK_KEY)
    if picked:
        _open(picked, selected)
    st.session_state[PICK_KEY] = None


def _close_all() -> None:
    state = st.session_state.get(OPEN_KEY)
    if isinstance(state, dict):
        state["ids"], state["last"] = [], None


def _fold_controls(session: Session, layout: DagLayout, selected: str | None) -> None:
    """The caption that says the graph is folded, the fold picker and "Fold again"."""
    drawn = len(layout.nodes)
    runs = folds(layout)
    agent = any(node.kind == ITERATION for node in layout.nodes) or any(
        part.kind == ITERATION for node in runs for part in node.folded_from[:1])
    how = ("Each Analysis is drawn with its Thought and Observation as one Iteration node (hover it for all "
           "three) and long runs are folded into dashed nodes" if agent else
           "Long runs of steps are folded into dashed nodes (hover one for what it holds)")
    st.caption(f"Long session: {len(session.steps):,} steps, {session.graph.number_of_nodes():,} graph nodes. "
               f"{how}: {drawn:,} nodes drawn. A click on a folded run opens it; the run holding the selected "
               f"step opens around it ({OPEN_WINDOW} nodes).")
    if not runs:
        return
    titles = {node.id: fold_title(node) for node in runs}
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    with left:
        st.selectbox(f"Open a folded run ({len(runs):,} folded)", list(titles), index=None, key=PICK_KEY,
                     format_func=titles.__getitem__, on_change=_open_picked, args=(selected,),
                     placeholder="Choose a folded run to draw its first steps…",
                     help=f"Draws the first {OPEN_WINDOW} nodes of the run; what is left of it "
                          f"stays folded and can be opened next. Up to {MAX_OPEN} stay open.")
    with right:
        st.button("Fold again", key="te_dag_fold_all", on_click=_close_all,
                  disabled=not _opened(session), width="stretch")
