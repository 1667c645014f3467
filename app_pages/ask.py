"""Ask page (``/ask``), on a TrustGraph source: a question sent through the gateway's websocket
with TrustGraph's own client, and its trace drawn as it builds from the ``explain`` events, in
the workspace every session has, with the streamed thoughts and the answer. When the run ends,
the session is read back from the deployment: the one the store holds, the same IRI and steps.
A failed or stopped run says so and keeps what came."""

from __future__ import annotations

from datetime import timedelta

import streamlit as st

from components.ask.ask_run import AskRun, RunView
from components.collection import Collection, current_collection
from components.navigation import ensure_entry_run, page_params
from components.sidebar.configured_sources import endpoint_policy
from components.session.session_cache import shared_session
from components.text import ASK_PAGE, SESSION_PAGE, md_escape
from components.session.workspace import workspace
from components.session.workspace.graph_library import graph_library
from trace_explorer.ask.client import Question
from trace_explorer.sources.source import SourceError

RUN_KEY = "te_ask_run"  # this person's run (AskRun)
MECHANISMS = {"agent": "Agent", "graph-rag": "GraphRAG", "document-rag": "DocumentRAG"}
REFRESH_S = 0.5

ensure_entry_run(ASK_PAGE)
collection = current_collection()
gateway = getattr(collection.source, "gateway", None)
st.markdown("### :material/forum: Ask and watch", anchors=False)
if gateway is None:
    st.info("Asking needs a TrustGraph source: connect a deployment in the sidebar (Source and files: TrustGraph).",
            icon=":material/info:")
    st.stop()

with st.form("te_ask_form", border=False):
    question = st.text_area("Question", key="te_ask_question", height=80,
                            placeholder="What would you like the deployment to answer?")
    mechanism = st.segmented_control("Answered by", list(MECHANISMS), format_func=MECHANISMS.get, default="agent",
                                     key="te_ask_mechanism")
    asked = st.form_submit_button("Ask", icon=":material/send:", type="primary")
st.caption(md_escape(f"Sent to {gateway.url} (flow {gateway.flow}, collection {gateway.collection}) through its "
                     "websocket; each step is drawn as the deployment writes it."))
if asked and not question.strip():
    st.warning("Write a question to ask.", icon=":material/edit:")
if asked and question.strip():
    running = st.session_state.get(RUN_KEY)
    if running is not None:
        running.stop()
    st.session_state[RUN_KEY] = AskRun(Question(
        gateway.url, question.strip(), token=getattr(gateway, "_token", None), flow=gateway.flow,
        collection=gateway.collection, workspace=gateway.workspace, mechanism=mechanism or "agent"),
        endpoint_policy())  # the websocket passes the check the gateway's REST requests pass


def _words(view: RunView) -> None:
    """The status line, what the agent is on, and the answer so far."""
    came = f"{view.steps} step{'s' if view.steps != 1 else ''} came"
    if view.status == "running":
        st.markdown(":material/progress_activity: " + md_escape(f"Running: {came}."), anchors=False)
        if view.thinking:
            st.caption(md_escape(f"Now: {view.thinking[-600:]}"))
    elif view.status == "done":
        st.success(md_escape(f"Done: {came}."), icon=":material/check_circle:")
    else:
        st.error(md_escape(f"The run {view.status}: {view.reason or view.status}. What came is kept ({came})."),
                 icon=":material/error:")
    if view.answer:
        st.markdown("**Answer**")
        st.text(view.answer)


def _draw(view: RunView, session, collection: Collection) -> None:
    if session is None:
        st.caption("Waiting for the first step…")
        return
    collection.fetched[session.id] = session  # the workspace reads the session's family here
    running = view.status == "running"
    newest = session.steps[-1].id if running and session.steps else None
    workspace(session, collection, newest=newest, live=running)


@st.fragment(run_every=timedelta(seconds=REFRESH_S))
def _running(run: AskRun, collection: Collection) -> None:
    view = run.view()
    if view.status != "running":
        st.rerun(scope="app")  # ended: the page draws the session as the deployment holds it
    _words(view)
    st.button("Stop", icon=":material/stop_circle:", key="te_ask_stop", on_click=run.stop)
    _draw(view, view.session, collection)


run: AskRun | None = st.session_state.get(RUN_KEY)
if run is not None:
    view = run.view()
    if view.status == "running":
        _running(run, collection)
        graph_library()  # vis-network, sent once the graph is first shown
    else:
        _words(view)
        session = view.session
        if session is not None and run.stored is None:  # read back once, when the run has ended
            collection.fetched.pop(session.id, None)
            try:  # the session as the deployment holds it now: what `show` reads
                run.stored = shared_session(collection, session.id) or False
            except SourceError as error:
                run.stored = False
                st.caption(md_escape(f"The deployment could not be read back ({error}): the steps as they came."))
        if run.stored:
            session = run.stored
            st.page_link(SESSION_PAGE, label="Open it as a session", icon=":material/open_in_new:",
                         query_params=page_params({"session": session.id}))
        _draw(view, session, collection)
        graph_library()
