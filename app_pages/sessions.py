"""Session list page: top-level sessions (sub-sessions on request), filtered, searched, sorted
and paged by queries on the source; a click on a row opens the session page at
``?session=<IRI>``. The list's state lives in the URL (``components/sessions/list_state.py``), so a link
reproduces the view. A session link that lands here (``/?session=<IRI or unique part>``, as
the session page takes it) is passed on to the session page. On a source that can be written
while it is shown, the list follows it (``components/sessions/live_list.py``)."""

from __future__ import annotations

import streamlit as st

from components.collection import current_collection
from components.sessions.list_state import list_filters, list_view, restore_list_url
from components.sessions.live_list import RERUN_S, follow_switch, live_list, paused_list
from components.navigation import ensure_entry_run, is_history_navigation, open_page
from components.reviews.queue import next_to_review
from components.sessions.session_list import session_list
from components.text import SESSION_PAGE, SESSIONS_PAGE

LIST_SHOWN = "te_list_shown"

ensure_entry_run(SESSIONS_PAGE)
# a session link with the page's path left out, opened in a new tab (later runs of this page keep
# whatever parameters the app left behind, and show the list)
# (not on Back or Forward: after a reload of the session's page, Back comes here with the
# session's parameters and this browser session's first run, and must show the list)
if st.query_params.get("session") and not st.session_state.get(LIST_SHOWN) and not is_history_navigation():
    open_page(SESSION_PAGE, {k: st.query_params[k] for k in ("session", "step") if k in st.query_params})
st.session_state[LIST_SHOWN] = True
restore_list_url()  # Back from a session lands on the session's parameters: the list's own again


def sessions_fragment(following: bool) -> None:
    """The filters, the table and its pages: a click in them reruns only this part, and so does
    following the source (every ``RERUN_S`` seconds while the Follow switch is on)."""
    collection = current_collection()
    live = live_list(collection) if following else paused_list(collection)  # paused: the marks stay
    filters = list_filters(collection)
    order, page = list_view(filters, collection)
    next_to_review(collection)
    session_list(collection, filters, order, page, live)


heading = st.container(horizontal=True, vertical_alignment="center")
heading.markdown("## Sessions", anchors=False)
with heading:
    following = follow_switch(current_collection())
st.fragment(sessions_fragment, run_every=RERUN_S if following else None)(following)
