"""The open session, followed as it grows (issue 41, "The open session grows").

A session with no answer yet, from a source that can grow (a TrustGraph deployment, a SPARQL
endpoint, a local store that ``ingest`` or ``sync`` writes), is drawn by a fragment that runs
every ``LIVE_INTERVAL_S`` seconds: it asks the source's shared poller (``trace_explorer.live``)
for the steps of this session newer than the last it saw (one cheap query a poll, shared by
everyone watching), and only when some came reads the session again and sends it to the
workspace, which keeps the selection and the view and marks the newest step (``workspace``'s
``newest``; its "Follow the newest step" switch selects it). The page's header, answer support
and health are left alone until the answer lands: then the whole page runs once more, and the
session, answered, is drawn as any other.

A source that stops answering is said once above the workspace, what was drawn stays, and the
poller resumes by itself.
"""

from __future__ import annotations

from datetime import timedelta

import streamlit as st

from trace_explorer.live import ANSWER, STEP, new_steps
from trace_explorer.model.session import Session
from trace_explorer.sources.source import SourceError

from ..collection import Collection
from ..sessions.live_list import followable, refresh
from .session_cache import shared_session
from .session_views import session_views
from ..text import md_escape
from .workspace import workspace
from .workspace.graph_library import graph_library

LIVE_INTERVAL_S = 1.0  # the fragment's period; the poller's own is ``trace_explorer.live``'s
SINCE_KEY = "te_live_since"    # {session IRI: the last event seq read}
NEWEST_KEY = "te_live_newest"  # {session IRI: the step that arrived last}
ANSWERED_KEY = "te_live_answered"  # the sessions whose answer landed at the fragment's last run


def grows(session: Session, collection: Collection) -> bool:
    """Whether ``session`` is followed: it has no answer yet, and its source can be written to
    while it is read (not files, which do not change under the app)."""
    return not session.has_answer and followable(collection)


def live_session_views(session: Session, collection: Collection) -> None:
    """The session's workspace: followed (``grows``) or drawn once (``session_views``)."""
    if grows(session, collection):
        _followed(session.id, collection)
        graph_library()  # vis-network, sent once the graph is first shown
    else:
        session_views(session, collection)


@st.fragment(run_every=timedelta(seconds=LIVE_INTERVAL_S))
def _followed(session_id: str, collection: Collection) -> None:
    st.markdown("##### :material/view_timeline: Steps", anchors=False)
    since = st.session_state.setdefault(SINCE_KEY, {})
    newest = st.session_state.setdefault(NEWEST_KEY, {})
    try:
        # polls first when a poll is due: the first page run after the interval polls for everyone
        events = new_steps(collection.source, session_id, since.get(session_id, 0))
    except SourceError as error:
        events = []
        st.caption(md_escape(f"Following paused: {error}. What was drawn stays; it resumes by itself."))
    if events:
        since[session_id] = events[-1].seq
        arrived = [e.step for e in events if e.event == STEP and e.step]
        if arrived:
            newest[session_id] = arrived[-1]
        refresh(collection)  # a store's newest snapshot
        collection.fetched.pop(session_id, None)  # read again, with the steps that came
    session = shared_session(collection, session_id)
    if session is None:
        st.caption("The session is not readable yet.")
        return
    st.caption(":material/sync: Running: new steps appear as they are written.")
    workspace(session, collection, newest=newest.get(session_id), live=True)
    answered = st.session_state.setdefault(ANSWERED_KEY, set())
    if session_id in answered:
        answered.discard(session_id)
        # the status, the answer, answer support and health; the page drawn again selects the
        # step the address names, which the browser keeps as the selection moves (none for the
        # first step): the Conclusion when "Follow the newest step" selected it, else the
        # person's own step
        st.rerun(scope="app")
    if session.has_answer or any(e.event == ANSWER for e in events):
        answered.add(session_id)  # drawn with its Conclusion now; the whole page at the next run

