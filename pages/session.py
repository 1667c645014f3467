"""Session page, reachable as ``?session=<IRI>`` (a shareable link; ``&step=<IRI>`` opens a step):
header, interactive timeline, provenance DAG, step picker and step inspector."""

from __future__ import annotations

import streamlit as st

from components.collection import current_collection, large_session_steps
from components.dag import dag
from components.downloads import session_exports
from components.evidence import evidence_panel
from components.health import health_panel
from components.navigation import ensure_entry_run
from components.session_header import session_header
from components.step_inspector import step_inspector
from components.step_picker import selected_step, step_picker
from components.step_texts import show_texts
from components.text import SESSION_PAGE, SESSIONS_PAGE, md_escape
from components.timeline import timeline
from trace_explorer.sources.source import SourceError
from trace_explorer.views.timeline import WINDOW_ROWS as TIMELINE_WINDOW

LAST_KEY = "te_last_session"
CONFIRM_KEY = "te_open_large"
LARGE_SESSION = large_session_steps()

ensure_entry_run(SESSION_PAGE)
collection = current_collection()
session_id = st.query_params.get("session") or st.session_state.get(LAST_KEY)

if not session_id:
    st.info("No session chosen yet. Pick one from the session list.", icon=":material/info:")
    st.page_link(SESSIONS_PAGE, label="Open the session list", icon=":material/list:")
    st.stop()

steps = collection.size(session_id)
if steps is not None and steps > LARGE_SESSION and session_id not in collection.fetched \
        and st.session_state.get(CONFIRM_KEY) != session_id:
    st.warning(md_escape(f"This session has {steps:,} steps. Reading it takes a while (about a minute "
                         f"for 100,000 steps on a small machine); the page then draws it folded, "
                         f"{TIMELINE_WINDOW} steps of the timeline at a time."), icon=":material/hourglass:")
    st.button("Open it", icon=":material/open_in_full:", type="primary",
              on_click=st.session_state.__setitem__, args=(CONFIRM_KEY, session_id))
    st.page_link(SESSIONS_PAGE, label="Back to the session list", icon=":material/arrow_back:")
    st.stop()

try:
    with st.spinner(f"Reading {steps:,} steps…" if steps else "Reading the session…", show_time=bool(steps and steps > LARGE_SESSION)):
        session = collection.get(session_id)
except SourceError as error:
    st.error(md_escape(str(error)), icon=":material/error:")
    st.stop()
if session is None:
    st.error(md_escape(f"Unknown session: {session_id}. It is not in the loaded traces "
                       f"({collection.count('sessions'):,} sessions)."), icon=":material/search_off:")
    st.page_link(SESSIONS_PAGE, label="Back to the session list", icon=":material/arrow_back:")
    st.stop()

st.session_state[LAST_KEY] = session.id
if st.query_params.get("session") != session.id:
    st.query_params["session"] = session.id

show_texts(session, [selected_step(session)], collection)  # a TrustGraph librarian's, when shown
session_header(session, collection)
health_panel(session, collection)
session_exports(session, collection)
chosen = selected_step(session)

left, right = st.columns([1, 1], gap="medium")
with left:
    st.markdown("##### :material/timeline: Timeline", anchors=False)
    timeline(session, chosen, collection.key)
with right:
    with st.container(border=True):
        chosen = step_picker(session)
        show_texts(session, [chosen], collection)
        step_inspector(session, chosen, collection)

evidence_panel(session, collection)

st.markdown("##### :material/account_tree: Provenance graph", anchors=False)
st.caption("Hover a node for its fields; drag to pan, scroll to zoom. The selected step is outlined in black.")
dag(session, collection, chosen)
