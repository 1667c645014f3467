"""Documents page, reachable as ``?document=<IRI>`` (a link on any evidence row): the documents
of the extraction provenance and how many sessions used each; a document's sessions, each with
how many edges and chunks it took, directly or through a sub-session."""

from __future__ import annotations

import streamlit as st

from components.collection import current_collection
from components.documents import DOCUMENTS_SHOWN, document_uses, documents_overview, documents_table, uses_list
from components.navigation import ensure_entry_run, list_address
from components.text import DOCUMENTS_PAGE, SESSIONS_PAGE, md_escape
from trace_explorer.sources.source import SourceError
from trace_explorer.sources.sparql_text import iri

ensure_entry_run(DOCUMENTS_PAGE)
collection = current_collection()
wanted = st.query_params.get("document")

st.page_link(SESSIONS_PAGE, label="Sessions", icon=":material/arrow_back:", query_params=list_address())
st.markdown("## Documents", anchors=False)

if wanted:
    try:
        iri(wanted)
    except ValueError:
        st.error(md_escape(f"Not a document IRI: {wanted}"), icon=":material/error:")
        wanted = None
if wanted:
    try:
        described, uses = document_uses(collection, wanted)
    except SourceError as error:
        st.error(md_escape(str(error)), icon=":material/error:")
        st.stop()
    with st.container(border=True):
        title = (described or {}).get("title") or "Untitled document"
        st.markdown("#### " + md_escape(title, one_line=True), anchors=False)
        facts = [wanted] + [f"{v}" for v in ((described or {}).get("mime_type"),) if v]
        if described and described.get("page_count"):
            facts.append(f"{described['page_count']} pages")
        st.caption(md_escape(" · ".join(facts)))
        if described is None and not uses:
            st.warning(md_escape(f"Nothing in {collection.label} describes this document or derives from it."),
                       icon=":material/search_off:")
        sessions = len({u.id for u in uses})
        st.markdown(md_escape(f"Used by {sessions} session{'' if sessions == 1 else 's'}"
                              + (" (directly, or through a sub-session)" if uses else "")), anchors=False)
        uses_list(uses)
        if st.button("All documents", icon=":material/list:"):
            del st.query_params["document"]
            st.rerun()

try:
    documents, uses_by_document = documents_overview(collection)
except SourceError as error:
    st.error(md_escape(str(error)), icon=":material/error:")
    st.stop()
more = len(documents) > DOCUMENTS_SHOWN
documents = documents[:DOCUMENTS_SHOWN]
st.caption(f"{len(documents):,}{'+' if more else ''} document{'' if len(documents) == 1 else 's'} in "
           f"the extraction provenance of {md_escape(collection.label)}, by title · "
           "tick a row's box to see the sessions that used it")
if not documents:
    st.info("No extraction provenance (tg:Document) in this source.", icon=":material/info:")
else:
    picked = documents_table(documents, uses_by_document, key=f"documents_table:{wanted}")
    if picked and picked != wanted:
        st.query_params["document"] = picked
        st.rerun()
