"""The evidence panel of a session page: the documents behind the answer.

For a GraphRAG session, each chosen edge with its document (title, MIME type), page, chunk,
the extraction that made it (component, model, time) and the chunk's words with the edge's
words marked; an edge no loaded extraction holds says so. For DocRAG, each chosen chunk leads
to its page and document the same way. For an agent, each sub-session's evidence sits under the
step it ran from, after a roll-up of the documents its answer used. Every document links to the
documents page, which lists the sessions that used it.

Safety: the chunk's words (and the edge's) are untrusted. They reach the page either as
Markdown through ``md_escape`` or as HTML from ``views.marked_text.marked_html``, which escapes
each piece and writes only ``<mark>`` around the marked ones (``st.html``, no script).
"""

from __future__ import annotations

import streamlit as st

from trace_explorer.analysis.evidence.evidence import (ChunkEvidence, EdgeEvidence, Lineage, SessionEvidence,
                                                       chosen_chunks, session_evidence)
from trace_explorer.model.docrag import PLAIN_CHUNK_ID, is_plain_chunk_id
from trace_explorer.model.session import Session
from trace_explorer.model.vocabulary import local_name
from trace_explorer.sources.source import SourceError
from trace_explorer.views.marked_text import find_marks, marked_html

from ..collection import Collection
from ..navigation import page_params
from ..reviews.on_page import page_reviews, review_here
from ..reviews.targets import chunk_target, edge_target
from ..text import DOCUMENTS_PAGE, SESSION_PAGE, clip, counted, md_escape

CACHE_KEY = "te_evidence"
CACHE_LIMIT = 16  # sessions' evidence kept per person
TEXT_CHARS = 3000  # of a chunk's words shown on the page
_TEXT_STYLE = ("white-space:pre-wrap;overflow-wrap:anywhere;background:#fffbeb;border-left:3px solid #b45309;"
               "padding:6px 10px;border-radius:4px;font-size:0.9rem;line-height:1.45")
_MARK_STYLE = "<style>.te-chunk-text mark{background:#fde68a;padding:0 1px;border-radius:2px}</style>"


def has_evidence(session: Session) -> bool:
    """Whether ``session`` chose anything a document could lie behind: edges, chunks, or
    sub-sessions (an agent's tool calls) that might have."""
    return bool(session.children or chosen_chunks(session)
                or any(focus.fields.get("edges") for focus in session.steps_of("Focus")))


def evidence_panel(session: Session, collection: Collection) -> None:
    """Draw the evidence of ``session`` (nothing for a session that chose nothing)."""
    if not has_evidence(session):
        return
    st.markdown("##### :material/plagiarism: Evidence", anchors=False)
    try:
        evidence = cached_evidence(session, collection)
    except SourceError as error:
        st.error(md_escape(f"The evidence could not be read: {error}"), icon=":material/error:")
        return
    edges, chunks, documents = evidence.all_edges(), evidence.all_chunks(), evidence.documents()
    if not edges and not chunks:
        st.caption("No edge or chunk was chosen in this session or its sub-sessions.")
        return
    held = sum(1 for e in edges if e.sources)
    st.caption(md_escape(f"{counted(len(edges), 'edge')} chosen ({held:,} held by a loaded extraction) · "
                         f"{counted(len(chunks), 'chunk')} · {counted(len(documents), 'document')}"))
    st.html(_MARK_STYLE)
    if evidence.children:
        _roll_up(evidence)
    _session_part(evidence, top=True, reviewed=(session, page_reviews(session, collection)))


def cached_evidence(session: Session, collection: Collection) -> SessionEvidence:
    """``analysis.evidence.session_evidence`` of ``session``, kept for this person (the panel
    and the DAG's evidence branch share it). Raises SourceError when the source fails."""
    cache: dict = st.session_state.setdefault(CACHE_KEY, {})
    key = (collection.key, session.id)
    if key not in cache:
        if len(cache) >= CACHE_LIMIT:
            cache.clear()
        cache[key] = session_evidence(collection.source, session, collection.by_id)
    return cache[key]


def _roll_up(evidence: SessionEvidence) -> None:
    """The documents the whole answer used, with how many edges and chunks came from each."""
    with st.container(border=True):
        st.markdown("**For the whole answer**", anchors=False)
        if not evidence.documents():
            st.caption("No chosen edge or chunk leads to a loaded document.")
        counts: dict[str, list] = {}
        for edge in evidence.all_edges():
            for lineage in edge.sources:
                counts.setdefault(lineage.document, [lineage, 0, 0])[1] += 1
        for chunk in evidence.all_chunks():
            counts.setdefault(chunk.lineage.document, [chunk.lineage, 0, 0])[2] += 1
        for document in evidence.documents():
            lineage, edges, chunks = counts[document]
            _document_link(lineage, f" — {edges} edge{_s(edges)}, {chunks} chunk{_s(chunks)}")


def _session_part(evidence: SessionEvidence, top: bool, reviewed: tuple) -> None:
    """``evidence``'s edges and chunks, then its sub-sessions'; ``reviewed``: the page's session
    and its reviews (each edge and chunk has a Review button counting its own, its target in the
    session that chose it)."""
    reviews, owner = reviewed[1], evidence.session
    for number, edge in enumerate(evidence.edges, 1):
        _edge(number, edge)
        review_here(edge_target(owner, number, edge), reviews, f"edge_{owner.id}_{number}")
    for number, chunk in enumerate(evidence.chunks, 1):
        _chunk(number, chunk)
        review_here(chunk_target(owner, number, chunk), reviews, f"chunk_{owner.id}_{number}")
    for step, child in evidence.children:
        title = f"{child.session.mechanism} sub-session from step {local_name(step or '') or step}: " \
                f"{clip(child.session.question or child.session.id, 90)}"
        count = len(child.all_edges()) + len(child.all_chunks())
        with st.expander(md_escape(f"{title} ({count} chosen)", one_line=True), expanded=top,
                         icon=":material/subdirectory_arrow_right:"):
            st.page_link(SESSION_PAGE, label="Open the sub-session",
                         query_params=page_params({"session": child.session.id}),
                         icon=":material/open_in_new:", help=md_escape(child.session.id))
            if not (child.all_edges() or child.all_chunks()):
                st.caption("This sub-session chose no edge or chunk.")
            _session_part(child, top=False, reviewed=reviewed)


def _edge(number: int, edge: EdgeEvidence) -> None:
    with st.container(border=True):
        if edge.s:
            st.markdown(md_escape(f"Edge {number}: {' → '.join(edge.names)}", one_line=True), anchors=False,
                        help=md_escape(f"{edge.s}\n{edge.p}\n{edge.o}\n\nselection: {edge.selection}"))
        else:
            st.markdown(md_escape(f"Edge {number}: (not stored as a triple)"), anchors=False,
                        help=md_escape(edge.raw or edge.selection))
        if not edge.sources:
            st.caption(":material/link_off: " + md_escape(
                "No loaded extraction holds this edge." if edge.s else "The edge is not stored as a readable triple."))
        for lineage in edge.sources:
            _lineage(lineage, edge.words)


def _chunk(number: int, chunk: ChunkEvidence) -> None:
    with st.container(border=True):
        score = f" (score {chunk.score:g})" if chunk.score is not None else ""
        st.markdown(md_escape(f"Chunk {number}{score}", one_line=True), anchors=False,
                    help=md_escape(chunk.chunk))
        _lineage(chunk.lineage, [])


def _lineage(lineage: Lineage, words: list[str]) -> None:
    if lineage.document:
        _document_link(lineage)
    else:
        st.caption(":material/help: " + md_escape("The document is unknown (no loaded extraction leads to one)."))
    parts = []
    if lineage.page:
        parts.append(f"page {lineage.page_number}" if lineage.page_number is not None else "page")
    if lineage.chunk:
        parts.append(lineage.chunk_label or "chunk")
    made = lineage.extraction
    if made:
        parts.append("extracted by " + made.summary())
    if parts:
        st.caption(md_escape(" · ".join(parts)),
                   help=md_escape("\n".join(f"{name}: {value}" for name, value in (
                       ("page", lineage.page), ("chunk", lineage.chunk),
                       (f"holder (tg:{lineage.held_by})", lineage.holder),
                       ("activity", made.activity if made else None)) if value)))
    if lineage.chunk_text is not None:
        text = lineage.chunk_text[:TEXT_CHARS] + (" …" if len(lineage.chunk_text) > TEXT_CHARS else "")
        st.html(f'<div class="te-chunk-text" style="{_TEXT_STYLE}">{marked_html(text, find_marks(text, words))}</div>')
    elif lineage.chunk and is_plain_chunk_id(lineage.chunk):
        st.caption(md_escape(f"No text: {lineage.chunk} is {PLAIN_CHUNK_ID}."))
    elif lineage.chunk:
        st.caption("The chunk's text is not loaded (add its documents file, or use a source that reaches "
                   "the librarian).")


def _document_link(lineage: Lineage, suffix: str = "") -> None:
    mime = f" ({lineage.mime_type})" if lineage.mime_type else ""
    label = f"{lineage.title or 'Untitled document'}{mime}{suffix}"
    st.page_link(DOCUMENTS_PAGE, label=md_escape(label, one_line=True),
                 query_params=page_params({"document": lineage.document}), icon=":material/description:",
                 help=md_escape(f"{lineage.document}\nEvery session that used this document"))


def _s(count: int) -> str:
    return "" if count == 1 else "s"
