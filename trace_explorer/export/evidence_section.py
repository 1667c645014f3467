"""The evidence of a session as a section of the exported page: each chosen edge and chunk with
its document, page, chunk and extraction, and the chunk's words with the edge's words marked.

Every value is trace or document text: it is escaped (``html.escape``) after its control
characters are made visible; the marks are ``views.marked_text.marked_html``, which escapes
each piece on its own and writes no markup but ``<mark>``.
"""

from __future__ import annotations

import html

from ..analysis.evidence.evidence import EdgeEvidence, Lineage, SessionEvidence
from ..model.docrag import PLAIN_CHUNK_ID, is_plain_chunk_id
from ..views.marked_text import find_marks, marked_html
from ..views.visible_text import visible_controls

TEXT_CHARS = 4000  # of one chunk's words in the page

CSS = """
#evidence mark { background: #fde68a; padding: 0 1px; border-radius: 2px; }
#evidence .chunk-text { white-space: pre-wrap; background: #fffbeb; border-left: 3px solid #b45309; padding: 4px 8px; }
#evidence .missing { color: #64748b; font-style: italic; }
"""


def evidence_section(evidence: SessionEvidence) -> str:
    """``<section id="evidence">``: a summary of the roll-up, then the session's own edges and
    chunks, then each sub-session's under the step it ran from."""
    edges, chunks, documents = evidence.all_edges(), evidence.all_chunks(), evidence.documents()
    out = ['<section id="evidence"><h2>Evidence</h2>\n',
           f'<p class="hint">{len(edges)} edge(s) chosen, {sum(1 for e in edges if e.sources)} held by a loaded '
           f"extraction; {len(chunks)} chunk(s); {len(documents)} document(s)</p>\n"]
    out.append(_rows(evidence))
    out.append("</section>\n")
    return "".join(out)


def _rows(evidence: SessionEvidence) -> str:
    out = []
    if evidence.edges or evidence.chunks:
        out.append("<table><tr><th>chosen</th><th>document</th><th>page</th><th>chunk</th>"
                   "<th>extracted by</th><th>text</th></tr>")
        for edge in evidence.edges:
            facts = _t(" → ".join(edge.names)) if edge.s else _t(edge.raw or "(not stored as a triple)")
            if not edge.sources:
                out.append(f'<tr><td>{facts}</td><td colspan="5" class="missing">'
                           "no loaded extraction holds this edge</td></tr>")
            for lineage in edge.sources:
                out.append(f"<tr><td>{facts}</td>{_cells(lineage, edge)}</tr>")
        for chunk in evidence.chunks:
            score = f" (score {chunk.score:g})" if chunk.score is not None else ""
            out.append(f"<tr><td>chunk{_t(score)}</td>{_cells(chunk.lineage, None)}</tr>")
        out.append("</table>\n")
    for step, child in evidence.children:
        out.append(f"<h3>Sub-session {_t(child.session.question or child.session.id)}</h3>\n"
                   f'<p class="hint"><code>{_t(child.session.id)}</code> · {_t(child.session.mechanism)}'
                   f" · from step <code>{_t(step or '')}</code></p>\n")
        out.append(_rows(child))
    return "".join(out)


def _cells(lineage: Lineage, edge: EdgeEvidence | None) -> str:
    mime = f" ({lineage.mime_type})" if lineage.mime_type else ""
    document = f"{_t((lineage.title or '(untitled)') + mime)}<br><code>{_t(lineage.document)}</code>" \
        if lineage.document else '<span class="missing">unknown</span>'
    page = _t("" if lineage.page_number is None else lineage.page_number)
    page += f"<br><code>{_t(lineage.page)}</code>" if lineage.page else ""
    chunk = _t(lineage.chunk_label or "") + (f"<br><code>{_t(lineage.chunk)}</code>" if lineage.chunk else "")
    made = lineage.extraction
    extracted = _t(made.summary()) if made else ""
    if lineage.chunk_text is None and lineage.chunk and is_plain_chunk_id(lineage.chunk):
        text = f'<span class="missing">none: {_t(PLAIN_CHUNK_ID)}</span>'
    elif lineage.chunk_text is None:
        text = '<span class="missing">not loaded</span>'
    else:
        words = lineage.chunk_text[:TEXT_CHARS]
        text = f'<div class="chunk-text">{marked_html(words, find_marks(words, edge.words if edge else []))}</div>'
    return f"<td>{document}</td><td>{page}</td><td>{chunk}</td><td>{extracted}</td><td>{text}</td>"


def _t(value: object) -> str:
    return html.escape(visible_controls(str(value)), quote=True)
