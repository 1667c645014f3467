"""Session list page: every top-level session (sub-sessions on request), filtered and sortable;
picking a row opens the session page at ``?session=<IRI>``."""

from __future__ import annotations

import streamlit as st

from components.collection import current_collection
from components.navigation import ensure_entry_run
from components.session_table import filter_sessions, session_table
from components.text import SESSION_PAGE, SESSIONS_PAGE
from trace_explorer.model import MECHANISMS, PATTERNS

ensure_entry_run(SESSIONS_PAGE)
collection = current_collection()
sessions = collection.sessions

st.markdown("## Sessions", anchors=False)

# filters keep their values for the whole session, so coming back from a session finds them as left
filters = st.container(horizontal=True, vertical_alignment="bottom", gap="medium")
with filters:
    mechanisms = st.pills("Type", list(MECHANISMS), selection_mode="multi", key="f_type",
                         persist_state="session")
    known = list(PATTERNS) + sorted({s.pattern for s in sessions if s.pattern} - set(PATTERNS))
    patterns = st.pills("Pattern", known, selection_mode="multi", key="f_pattern",
                       persist_state="session")
    status = st.segmented_control("Status", ["answered", "unfinished"], key="f_status",
                                  persist_state="session")
    search = st.text_input("Search questions", key="f_search", placeholder="words in the question or IRI",
                           icon=":material/search:", width=280,
                           persist_state="session")
    sub_sessions = st.toggle("Show sub-sessions", key="f_sub", persist_state="session",
                             help="Sessions that a step of another session started (a tool "
                                  "call's GraphRAG, a supervisor's sub-agents).")

shown = filter_sessions(sessions, mechanisms=mechanisms or (), patterns=patterns or (),
                        status=status, search=search or "", include_sub_sessions=sub_sessions)
total = len(collection.sessions) if sub_sessions else len(collection.top_level)
scope = "sessions" if sub_sessions else "top-level sessions"
st.caption(f"{len(shown)} of {total} {scope} · newest first · click a column to sort, a row to open it")

if not sessions:
    st.info("No sessions in the loaded files. Add trace files in the sidebar, or switch the demo "
            "traces back on.", icon=":material/info:")
elif not shown:
    st.info("No session matches these filters.", icon=":material/filter_alt_off:")
else:
    picked = session_table(shown, key="session_table")
    if picked:
        st.switch_page(SESSION_PAGE, query_params={"session": picked})
