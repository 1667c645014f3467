"""The documents page's widgets: the documents of the extraction provenance with how many
sessions used each, and, for one document, every session whose answer used it (directly, or
through a sub-session) with how many edges and chunks each took.

Titles, questions and IRIs are untrusted: they go to ``st.dataframe`` (shown as text) or
through ``md_escape``."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from trace_explorer.analysis.evidence.used_by import Use, describe_document, used_by_documents
from trace_explorer.views.visible_text import visible_controls

from .collection import Collection
from .navigation import page_params
from .text import SESSION_PAGE, clip, md_escape

CACHE_KEY = "te_documents"
DOCUMENTS_SHOWN = 500  # documents listed (by title); a larger source says how many more there are
COLUMNS = ["Title", "MIME type", "Pages", "Sessions", "Document IRI"]
ROW_PX = 33


def documents_overview(collection: Collection) -> tuple[list[dict], dict[str, list[Use]]]:
    """The documents (the source's ``lineage().list_documents``, at most ``DOCUMENTS_SHOWN + 1``) and
    the uses of each, read once per person and collection. Raises SourceError."""
    cache = st.session_state.setdefault(CACHE_KEY, {})
    key = ("overview", collection.key)
    if key not in cache:
        documents = collection.source.lineage().list_documents(limit=DOCUMENTS_SHOWN + 1)
        cache[key] = (documents, used_by_documents(collection.source, [d["id"] for d in documents[:DOCUMENTS_SHOWN]]))
    return cache[key]


def document_uses(collection: Collection, document: str) -> tuple[dict | None, list[Use]]:
    """What the source says about ``document`` and the sessions that used it. Raises SourceError."""
    cache = st.session_state.setdefault(CACHE_KEY, {})
    key = ("document", collection.key, document)
    if key not in cache:
        if len(cache) > 32:
            cache.clear()
        uses = used_by_documents(collection.source, [document]).get(document, [])
        cache[key] = (describe_document(collection.source, document), uses)
    return cache[key]


def documents_table(documents: list[dict], uses: dict[str, list[Use]], key: str) -> str | None:
    """The documents as a table with single-row selection; the IRI picked in this run, or None."""
    frame = pd.DataFrame([{
        "Title": visible_controls(clip(d["title"] or "(untitled)", 200)),
        "MIME type": visible_controls(d["mime_type"] or ""),
        "Pages": d["page_count"] or "",
        "Sessions": len({u.id for u in uses.get(d["id"], [])}),
        "Document IRI": visible_controls(d["id"]),
    } for d in documents], columns=COLUMNS)
    event = st.dataframe(frame, key=key, on_select="rerun", selection_mode="single-row", hide_index=True,
                         width="stretch", row_height=ROW_PX, height=min(ROW_PX * (len(frame) + 1) + 3, 600),
                         column_config={
                             "Title": st.column_config.TextColumn("Title"),
                             "MIME type": st.column_config.TextColumn("MIME type", width=120),
                             "Pages": st.column_config.TextColumn("Pages", width=60),
                             "Sessions": st.column_config.NumberColumn(
                                 "Sessions", width=80, format="%d",
                                 help="Sessions whose answer used the document, directly or through a sub-session"),
                             "Document IRI": st.column_config.TextColumn("Document IRI"),  # titles and IRIs sized to fit: a narrow page scrolls the table, never cuts a column
                         })
    rows = event.selection.rows if event is not None else []
    if rows and 0 <= rows[0] < len(documents):
        return documents[rows[0]]["id"]
    return None


def uses_list(uses: list[Use]) -> None:
    """One link per session that used the document, newest first, with what it took and how."""
    for use in uses:
        took = f"{use.edges} edge{'' if use.edges == 1 else 's'}, {use.chunks} chunk{'' if use.chunks == 1 else 's'}"
        how = "directly" if use.direct else f"through sub-session {use.via}"
        with st.container(border=True):
            kind = f"{use.mechanism} · " if use.mechanism else ""
            st.page_link(SESSION_PAGE, label=md_escape(kind + clip(use.question or use.id, 110), one_line=True),
                         query_params=page_params({"session": use.id}), icon=":material/forum:",
                         help=md_escape(use.id))
            st.caption(md_escape(f"{took} · {how} · {use.time or 'time unknown'}"),
                       help=md_escape(f"session: {use.id}\nvia: {use.via}"))
