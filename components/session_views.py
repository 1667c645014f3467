"""The views of one session on its page: the timeline (a waterfall), the step picker with the
step inspector beside it (its tables of many columns under both, as wide as the page), and the
provenance graph below, all on one selected step.

They run as one ``st.fragment``: a click on the timeline or the graph, a key (j / k), or a pick
in the step picker reruns only these views, never the page's header, exports or sidebar.
"""

from __future__ import annotations

import streamlit as st

from trace_explorer.model.session import Session
from trace_explorer.views.step_walk import WalkEntry, step_walk

from .collection import Collection
from .dag import dag
from .step_inspector import step_inspector
from .step_picker import selected_step, step_picker
from .step_texts import show_texts
from .timeline import timeline

INSPECTOR_PX = 640  # the inspector's height; longer details scroll inside it


@st.cache_resource(show_spinner=False, max_entries=8)
def _walk(collection_key: tuple, session_id: str, children: tuple[str, ...], _session: Session,
          _sessions: dict) -> list[WalkEntry]:
    """The step walk of a session with the sub-sessions at hand (shared, never changed)."""
    return step_walk(_session, _sessions)


@st.fragment
def session_views(session: Session, collection: Collection) -> None:
    """Draw the timeline, the picker and inspector, and the graph of ``session``."""
    children = tuple(c for c in session.children if c in collection.by_id)
    walk = _walk(collection.key, session.id, children, session, collection.by_id)
    chosen = selected_step(session, walk)
    entry = next((e for e in walk if e.id == chosen), None)
    if entry is not None:
        show_texts(entry.session, [chosen], collection)  # a TrustGraph librarian's, as a step is shown
    left, right = st.columns([3, 2], gap="medium")
    wide = st.container()  # the selected step's tables of many columns, as wide as the page
    graph = st.container()
    # the graph is filled first, though drawn last: its script (vis-network) is the largest to
    # load, so the browser starts on it while the rest of the page arrives
    with graph:
        st.markdown("##### :material/account_tree: Provenance graph", anchors=False)
        st.caption("Click a node to select its step (j / k move through the steps); hover a node for its fields "
                   "and an arrow for its relation; drag to pan, scroll to zoom.")
        dag(session, collection, chosen, walk)
    with left:
        st.markdown("##### :material/view_timeline: Timeline", anchors=False)
        timeline(session, collection.key, walk, chosen, children)
    with right:
        with st.container(border=True, height=INSPECTOR_PX):
            step_picker(walk)
            step_inspector(session, chosen, collection, owner=entry.session if entry else None, wide=wide)
