"""Evidence and its reverse as plain data (the CLI's JSON contract) and as readable text.

``trace-explorer evidence --format json`` prints ``evidence_record``: ``{"session", "edges":
[{"s", "p", "o", "subgraph", "chunk", "page", "document", "title", "chunk_text"}], "chunks":
[{"chunk", "page", "document", "title", "chunk_text"}], "documents": [IRI...]}``; an unknown
link is null. ``used-by --format json`` prints ``[{"id", "via", "edges", "chunks"}]``.
"""

from __future__ import annotations

from typing import Any

from ...views.marked_text import find_marks, marked_plain
from ...views.visible_text import visible_controls
from ...model.docrag import PLAIN_CHUNK_ID, is_plain_chunk_id
from .evidence import ChunkEvidence, EdgeEvidence, Lineage, SessionEvidence
from .used_by import Use

EDGE_KEYS = ("s", "p", "o", "subgraph", "chunk", "page", "document", "title", "chunk_text")
CHUNK_KEYS = ("chunk", "page", "document", "title", "chunk_text")
TEXT_CHARS = 600  # of a chunk's text in the text report


def edge_records(edge: EdgeEvidence) -> list[dict[str, Any]]:
    """One record per extraction that holds the edge (``EDGE_KEYS``); an edge no loaded
    extraction holds gives one record with every link null."""
    facts = {"s": edge.s, "p": edge.p, "o": edge.o}
    return [dict(facts, **_links(source), subgraph=source.holder) for source in edge.sources] or \
        [dict(facts, subgraph=None, chunk=None, page=None, document=None, title=None, chunk_text=None)]


def chunk_record(chunk: ChunkEvidence) -> dict[str, Any]:
    """A chosen chunk as ``CHUNK_KEYS``."""
    return dict(_links(chunk.lineage), chunk=chunk.chunk)


def _links(lineage: Lineage) -> dict[str, Any]:
    return {"chunk": lineage.chunk, "page": lineage.page, "document": lineage.document,
            "title": lineage.title, "chunk_text": lineage.chunk_text}


def evidence_record(evidence: SessionEvidence) -> dict[str, Any]:
    """The whole roll-up (the session's own edges and chunks, then its sub-sessions') as the
    CLI's JSON object (module docstring), keys in the contract's order."""
    return {
        "session": evidence.session.id,
        "edges": [{k: r[k] for k in EDGE_KEYS} for e in evidence.all_edges() for r in edge_records(e)],
        "chunks": [{k: r[k] for k in CHUNK_KEYS} for r in map(chunk_record, evidence.all_chunks())],
        "documents": evidence.documents(),
    }


def evidence_text(evidence: SessionEvidence) -> str:
    """The evidence as text: a summary of the roll-up and the documents, then each edge and
    chunk with its chain and its chunk's words (the edge's words between « and »), grouped by
    the sub-session and the step it ran under."""
    session = evidence.session
    edges, chunks, lineages = evidence.all_edges(), evidence.all_chunks(), evidence.document_lineages()
    documents = list(lineages)
    held = sum(1 for e in edges if e.sources)
    lines = [f"Evidence for {session.id} ({session.mechanism})",
             f"Question: {session.question or '(none)'}",
             f"{len(edges)} edge{_s(edges)} chosen ({held} held by a loaded extraction), "
             f"{len(chunks)} chunk{_s(chunks)}, {len(documents)} document{_s(documents)}"]
    for document, lineage in lineages.items():
        title, mime = lineage.title, lineage.mime_type
        lines.append(f"  document  {title or '(untitled)'}{f' ({mime})' if mime else ''}  <{document}>")
    _session_lines(evidence, lines, "")
    return visible_controls("\n".join(lines)) + "\n"


def _session_lines(evidence: SessionEvidence, lines: list[str], indent: str) -> None:
    for number, edge in enumerate(evidence.edges, 1):
        lines.append("")
        lines.append(f"{indent}Edge {number}: {_edge_words(edge)}")
        if not edge.sources:
            lines.append(f"{indent}  no loaded extraction holds this edge" if edge.s else
                         f"{indent}  the edge is not stored as a triple{f': {edge.raw}' if edge.raw else ''}")
        for source in edge.sources:
            _lineage_lines(source, edge.words, lines, indent + "  ")
    for number, chunk in enumerate(evidence.chunks, 1):
        lines.append("")
        score = f" (score {chunk.score:g})" if chunk.score is not None else ""
        lines.append(f"{indent}Chunk {number}{score}")
        _lineage_lines(chunk.lineage, [], lines, indent + "  ")
    for step, child in evidence.children:
        lines.append("")
        lines.append(f"{indent}Sub-session {child.session.id} ({child.session.mechanism}), from step {step}")
        _session_lines(child, lines, indent + "  ")


def _lineage_lines(lineage: Lineage, words: list[str], lines: list[str], indent: str) -> None:
    def row(name: str, value: str | None, iri: str | None = None) -> None:
        if value is not None or iri is not None:
            lines.append(f"{indent}{name:<10} {value or ''}{'  ' if value and iri else ''}{f'<{iri}>' if iri else ''}")

    mime = f" ({lineage.mime_type})" if lineage.mime_type else ""
    row("document", (lineage.title or "(untitled)") + mime if lineage.document else "unknown", lineage.document)
    row("page", str(lineage.page_number) if lineage.page_number is not None else None, lineage.page)
    plain = bool(lineage.chunk) and is_plain_chunk_id(lineage.chunk)
    row("chunk", lineage.chunk if plain else lineage.chunk_label, None if plain else lineage.chunk)
    if lineage.holder:
        row("subgraph", f"(tg:{lineage.held_by})", lineage.holder)
    made = lineage.extraction
    if made:
        row("extracted", made.summary())
    if lineage.chunk_text is not None:
        text = lineage.chunk_text[:TEXT_CHARS] + (" …" if len(lineage.chunk_text) > TEXT_CHARS else "")
        row("text", " ".join(marked_plain(text, find_marks(text, words)).split()))
    elif plain:
        row("text", f"(none: {PLAIN_CHUNK_ID})")
    elif lineage.chunk:
        row("text", "(not loaded: give the documents file, or a source with the librarian)")


def _edge_words(edge: EdgeEvidence) -> str:
    if not edge.s:
        return "(not stored as a triple)"
    return f"{'  '.join(edge.names)}  ({edge.s}  {edge.p}  {edge.o})"


def used_by_records(uses: list[Use]) -> list[dict[str, Any]]:
    """The CLI's JSON array: ``{"id", "via", "edges", "chunks"}`` per use."""
    return [use.record() for use in uses]


def used_by_text(document: str, uses: list[Use], title: str | None = None) -> str:
    """The sessions that used ``document`` as text: a line each, newest first."""
    lines = [f"Sessions that used {title + '  ' if title else ''}<{document}>: {len(uses)}"]
    for use in uses:
        how = "directly" if use.direct else "through"
        lines += ["", f"{use.id}  {use.mechanism or ''}  {use.time or ''}".rstrip(),
                  f"  {use.question or '(no question)'}",
                  f"  {use.edges} edge{_s(use.edges)}, {use.chunks} chunk{_s(use.chunks)}, {how} {use.via}"]
    return visible_controls("\n".join(lines)) + "\n"


def _s(items: list | int) -> str:
    return "" if (items if isinstance(items, int) else len(items)) == 1 else "s"
