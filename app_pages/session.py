"""Session page, reachable as ``?session=<IRI>`` (a shareable link; ``&step=<IRI>`` opens a step):
header, exports, and the views of one selected step (``components/session/session_views.py``)."""

from __future__ import annotations

import streamlit as st

from components.session.answer_support import answer_support_panel
from components.collection import current_collection, large_session_steps
from components.session.downloads import session_exports
from components.session.evidence import evidence_panel
from components.health import health_panel
from components.navigation import ensure_entry_run, list_address
from components.reviews.on_page import forget_reviews, page_reviews, review_here
from components.reviews.panel import reviews_panel
from components.reviews.queue import next_to_review
from components.reviews.targets import session_target
from components.session.live_session import grows, live_session_views
from components.session.session_cache import shared_session
from components.session.session_header import session_header
from components.session.step_texts import show_texts
from components.text import SESSION_PAGE, SESSIONS_PAGE, counted, md_escape
from trace_explorer.sources.source import SourceError

LAST_KEY = "te_last_session"
CONFIRM_KEY = "te_open_large"
LARGE_SESSION = large_session_steps()

ensure_entry_run(SESSION_PAGE)
collection = current_collection()
session_id = st.query_params.get("session") or st.session_state.get(LAST_KEY)

if not session_id:
    st.info("No session chosen yet. Pick one from the session list.", icon=":material/info:")
    st.page_link(SESSIONS_PAGE, label="Open the session list", icon=":material/list:", query_params=list_address())
    st.stop()

steps = collection.size(session_id)
if steps is not None and steps > LARGE_SESSION and session_id not in collection.fetched \
        and st.session_state.get(CONFIRM_KEY) != session_id:
    st.warning(md_escape(f"This session has {steps:,} steps. Reading it takes a while (about a minute "
                         f"for 100,000 steps on a small machine); the page then draws its graph folded."), icon=":material/hourglass:")
    st.button("Open it", icon=":material/open_in_full:", type="primary",
              on_click=st.session_state.__setitem__, args=(CONFIRM_KEY, session_id))
    st.page_link(SESSIONS_PAGE, label="Back to the session list", icon=":material/arrow_back:",
                 query_params=list_address())
    st.stop()

try:
    with st.spinner(f"Reading {steps:,} steps…" if steps else "Reading the session…", show_time=bool(steps and steps > LARGE_SESSION)):
        session = shared_session(collection, session_id)
except SourceError as error:
    st.error(md_escape(str(error)), icon=":material/error:")
    st.stop()
if session is None and collection.empty_state:  # a source named but not connected (yet): say what to do
    st.info(md_escape(f"Session {session_id} cannot be shown yet. {collection.empty_state}"), icon=":material/link_off:")
    st.page_link(SESSIONS_PAGE, label="Back to the session list", icon=":material/arrow_back:",
                 query_params=list_address())
    st.stop()
if session is None and len(named := collection.resolve(session_id)) > 1:
    more = ", …" if len(named) > 5 else ""
    st.error(md_escape(f"{session_id!r} matches several sessions ({', '.join(named[:5])}{more}): give more of its "
                       "IRI, or pick one from the session list."), icon=":material/search_off:")
    st.page_link(SESSIONS_PAGE, label="Back to the session list", icon=":material/arrow_back:",
                 query_params=list_address())
    st.stop()
if session is None:
    st.error(md_escape(f"Unknown session: {session_id}. It is not in the loaded traces "
                       f"({counted(collection.count('sessions'), 'session')} from {collection.label})."),
             icon=":material/search_off:")
    st.page_link(SESSIONS_PAGE, label="Back to the session list", icon=":material/arrow_back:",
                 query_params=list_address())
    st.stop()

st.session_state[LAST_KEY] = session.id
# written even when it holds this session already: a link to this page from this page (a
# sub-session's, the parent's) runs it with the new session but leaves the browser's address on
# the old one, and writing the parameter puts the address right, so a reload or a copied link
# opens the session shown
st.query_params["session"] = session.id

show_texts(session, [], collection)  # the answer's, from a TrustGraph librarian (steps': as they are shown)
forget_reviews()  # read again in this run: another reviewer's, or this one's from a dialog
reviews = page_reviews(session, collection)


def header_actions() -> None:
    session_exports(session, collection)
    review_here(session_target(session), reviews, "session", label="Review session")
    next_to_review(collection, session.id)


session_header(session, collection, actions=header_actions, running=grows(session, collection))
reviews_panel(session, reviews)
answer_support_panel(session, collection)
health_panel(session, collection)
live_session_views(session, collection)
evidence_panel(session, collection)
