"""Texts from a TrustGraph librarian, fetched when they are shown: the answer when a session
opens, a step's own words (and its Thought's, Observation's and chunks') when the step is
picked, all of a step's at once; each is kept for the rest of the session (the source keeps
what it fetched). Sources that read texts with the session (files, stores) need nothing here.
"""

from __future__ import annotations

import streamlit as st

from trace_explorer.model.session import Session
from trace_explorer.model.texts import apply_texts, note_missing_texts, step_documents
from trace_explorer.sources.source import SourceError
from trace_explorer.sources.trustgraph.source import TrustGraphSource

from ..collection import Collection
from ..text import md_escape


def show_texts(session: Session, step_ids: list[str | None], collection: Collection) -> None:
    """Fetch (once) and put in the texts of ``step_ids`` of ``session`` and of its answer; a text
    the librarian has lost becomes a warning on its step. A failing gateway is an error on the
    page; the session stays as it is."""
    source = collection.source
    if not isinstance(source, TrustGraphSource):
        return
    wanted = [d for step in [session.answer_id, *step_ids] if step for d in step_documents(session, step)]
    try:
        if any(d not in source.documents and d not in source.missing_texts for d in wanted):
            with st.spinner("Fetching texts from the librarian…"):
                source.fetch_texts(wanted)
    except SourceError as error:
        st.error(md_escape(str(error)), icon=":material/error:")
        return
    apply_texts(session, source.documents)
    note_missing_texts(session, source.missing_texts)
