"""The provenance DAG of a session: the pyvis page from ``trace_explorer.views.dag`` in an iframe.

The page runs scripts in an iframe that can reach the app (Streamlit's iframes are same-origin),
which is why ``dag_html`` escapes every trace value and loads nothing from the network.
``st.iframe`` replaces ``st.components.v1.html`` (deprecated in this Streamlit); the latter is
used on Streamlit versions without ``st.iframe``.

A long session (``views.dag.is_long``) is drawn grouped and folded: a caption says so, and a
select box lists the folded runs so a person can open one (the iframe cannot send a click back
to Streamlit). Up to ``views.dag.MAX_OPEN`` folds stay open at once, kept per session in
``st.session_state``; the fold holding the selected step always opens around it.
"""

from __future__ import annotations

import streamlit as st

from trace_explorer.model.session import Session
from trace_explorer.views.dag import (MAX_OPEN, OPEN_WINDOW, FoldBase, dag_html, fold_base, fold_title, folded_layout,
                                      folds, is_long, suggested_height)
from trace_explorer.views.dag_folding import ITERATION, DagLayout

from .collection import Collection

OPEN_KEY = "te_dag_open"  # {"session": IRI, "ids": [fold ids opened by hand], "last": the latest}
PICK_KEY = "te_dag_fold_pick"


@st.cache_data(show_spinner=False, max_entries=48)
def _page(collection_key: tuple, session_id: str, selected: str | None, height: int,
          expand: tuple[str, ...], _session: Session, _sessions: dict[str, Session],
          focus: str | None = None, _layout: DagLayout | None = None) -> str:
    """The DAG page, cached per collection content, session, selection, height, open folds and
    focus (``_layout``: a long session's folded layout, made from those)."""
    return dag_html(_session, selected, height, sessions=_sessions, layout=_layout, focus=focus)


@st.cache_resource(show_spinner=False, max_entries=4)
def _base(collection_key: tuple, session_id: str, _session: Session, _sessions: dict[str, Session]) -> FoldBase:
    """A long session's grouped graph and runs (the linear part of folding), once per session."""
    return fold_base(_session, _sessions)


@st.cache_resource(show_spinner=False, max_entries=16)
def _folded(collection_key: tuple, session_id: str, selected: str | None, expand: tuple[str, ...],
            _session: Session, _base: FoldBase) -> DagLayout:
    """A long session's folded layout for one selection and set of open folds (shared: not
    changed by its users)."""
    return folded_layout(_session, selected, expand, base=_base)


def dag(session: Session, collection: Collection, selected: str | None, height: int | None = None) -> None:
    """Draw the session's DAG with ``selected`` highlighted; ``height`` in CSS pixels (default:
    tall enough for the session's tallest column, 300 to 640). A long session is drawn folded,
    with a caption saying so and a control that opens a folded run."""
    layout = None
    expand: tuple[str, ...] = ()
    focus = None
    if is_long(session):
        base = _base(collection.key, session.id, session, collection.by_id)
        expand = tuple(_opened(session))
        layout = _folded(collection.key, session.id, selected, expand, session, base)
        height = height or suggested_height(session, layout=layout)
        focus = _focus(layout, selected)
        _fold_controls(session, layout, selected)
    else:
        height = height or suggested_height(session)
    html = _page(collection.key, session.id, selected, height, expand, session, collection.by_id, focus, layout)
    if hasattr(st, "iframe"):
        st.iframe(html, height=height + 2)
    else:  # Streamlit < 1.52
        import streamlit.components.v1 as components
        components.html(html, height=height + 2, scrolling=False)


def _opened(session: Session) -> list[str]:
    """The fold ids opened by hand for ``session`` (emptied when another session comes up)."""
    state = st.session_state.get(OPEN_KEY)
    if not isinstance(state, dict) or state.get("session") != session.id:
        state = {"session": session.id, "ids": []}
        st.session_state[OPEN_KEY] = state
    return list(state["ids"])


def _focus(layout: DagLayout, selected: str | None) -> str | None:
    """Where the view centres: the middle of the fold opened last, until another step is
    selected (then the selection, as ``dag_html`` does without a focus)."""
    state = st.session_state.get(OPEN_KEY) or {}
    last = state.get("last")
    if not last or state.get("selected") != selected:
        return None
    ids = [node.id for node in layout.nodes]
    if last not in ids:
        return None
    return ids[min(ids.index(last) + OPEN_WINDOW // 2, len(ids) - 1)]


def _open_picked(selected: str | None) -> None:
    """Callback of the fold picker: open the fold picked (the oldest of ``MAX_OPEN`` closes)
    and centre the view on it."""
    picked = st.session_state.get(PICK_KEY)
    state = st.session_state.get(OPEN_KEY)
    if picked and isinstance(state, dict):
        state["ids"] = [i for i in state["ids"] if i != picked][-(MAX_OPEN - 1):] + [picked]
        state["last"], state["selected"] = picked, selected
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
               f"{how}: {drawn:,} nodes drawn. The run holding the selected step opens around it "
               f"({OPEN_WINDOW} nodes).")
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
