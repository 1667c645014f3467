"""Session list page: top-level sessions (sub-sessions on request), filtered and paged by
queries on the source, newest first; picking a row opens the session page at ``?session=<IRI>``."""

from __future__ import annotations

import streamlit as st

from components.collection import current_collection
from components.compare_picker import compare_action
from components.downloads import matching_sessions, session_list_downloads
from components.health import health_filter, with_health
from components.insights import insight_filters
from components.navigation import ensure_entry_run
from components.session_table import session_table
from components.text import SESSION_PAGE, SESSIONS_PAGE, md_escape
from trace_explorer.model.session import MECHANISMS, PATTERNS
from trace_explorer.sources.catalog import SessionFilter
from trace_explorer.sources.source import SourceError

PAGE_SIZE = 50

ensure_entry_run(SESSIONS_PAGE)
collection = current_collection()

st.markdown("## Sessions", anchors=False)

# filters keep their values for the whole session, so coming back from a session finds them as left
filters = st.container(horizontal=True, vertical_alignment="bottom", gap="medium")
with filters:
    mechanisms = st.pills("Type", list(MECHANISMS), selection_mode="multi", key="f_type",
                         persist_state="session")
    patterns = st.pills("Pattern", list(PATTERNS), selection_mode="multi", key="f_pattern",
                       persist_state="session")
    status = st.segmented_control("Status", ["answered", "unfinished"], key="f_status",
                                  persist_state="session")
    search = st.text_input("Search questions", key="f_search", placeholder="words in the question or IRI",
                           icon=":material/search:", width=280,
                           persist_state="session")
    health = health_filter(collection)
    sub_sessions = st.toggle("Show sub-sessions", key="f_sub", persist_state="session",
                             help="Sessions that a step of another session started (a tool "
                                  "call's GraphRAG, a supervisor's sub-agents).")

chosen = SessionFilter(mechanism=tuple(mechanisms or ()), pattern=tuple(patterns or ()), status=status,
                       text=(search or "").strip() or None, include_sub=bool(sub_sessions), health=health,
                       **insight_filters())
# a new filter starts again at the first page
if st.session_state.get("te_list_filter") != (repr(chosen), collection.key):
    st.session_state["te_list_filter"] = (repr(chosen), collection.key)
    st.session_state["te_list_page"] = 0
page_number = st.session_state.get("te_list_page", 0)

try:
    page = collection.page(chosen, PAGE_SIZE, page_number * PAGE_SIZE)
    everything = collection.count("sessions" if sub_sessions else "top")
except SourceError as error:
    st.error(md_escape(str(error)), icon=":material/error:")
    st.stop()

scope = "sessions" if sub_sessions else "top-level sessions"
first, last = page.offset + 1, page.offset + len(page.rows)
shown = f"{first:,}–{last:,} of {page.total:,}" if page.rows else f"0 of {page.total:,}"
st.caption(f"{shown} matching · {everything:,} {scope} in all · newest first · "
           "click a column to sort this page; tick a row's box to open it")
session_list_downloads(matching_sessions(collection, chosen), page.total)
compare_action(page.rows)

if not everything:
    st.info("No sessions in this source. Add trace files in the sidebar, switch the demo traces "
            "back on, or choose another source.", icon=":material/info:")
elif not page.rows:
    st.info("No session matches these filters.", icon=":material/filter_alt_off:")
else:
    picked = session_table(with_health(collection, page.rows), key="session_table")
    if picked:
        st.switch_page(SESSION_PAGE, query_params={"session": picked})
    pages = (page.total + PAGE_SIZE - 1) // PAGE_SIZE
    if pages > 1:
        nav = st.container(horizontal=True, vertical_alignment="center", gap="small")
        with nav:
            if st.button("Previous", icon=":material/chevron_left:", disabled=page_number == 0):
                st.session_state["te_list_page"] = page_number - 1
                st.rerun()
            st.caption(f"page {page_number + 1} of {pages}")
            if st.button("Next", icon=":material/chevron_right:", disabled=page_number + 1 >= pages):
                st.session_state["te_list_page"] = page_number + 1
                st.rerun()
