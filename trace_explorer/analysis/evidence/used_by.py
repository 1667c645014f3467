"""The other way round from ``evidence``: a document -> every session whose answer used it.

A session used a document directly when its Focus chose an edge that an extraction of the
document holds (``tg:contains`` / ``tg:reifies``, TRACE-MODEL.md "Extraction provenance"), or
when it chose one of the document's chunks (DocRAG: a reranker Focus's ChunkSelections, else
the Exploration's chunks). A session whose sub-session used it used it too, through that
sub-session: an agent whose tool call ran GraphRAG, a supervisor whose sub-agent did, and so on
up. Everything is asked of the source's lineage lookups (``TraceSource.lineage()``), a batch
of terms a lookup, a level of a walk at a time; the sessions
that used the document directly are read (without their texts) to count what they chose by the
same rules as the evidence panel.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ...model.literals import parse_time
from ...model.roots import ROOT_PREFIXES
from ...model.triple_index import TripleIndex
from ...model.vocabulary import DC_TITLE, MIME_TYPE, TG
from ...index.catalog import fetch_sessions
from ...sources.source import TraceSource
from .evidence import chosen_chunks


@dataclass
class Use:
    """One session that used a document. ``via``: for a direct use, the step that chose from it
    (the Focus, or the Exploration of a DocRAG run without reranker); else the sub-session it
    was used through. ``edges``: edges chosen that the document's extraction holds; ``chunks``:
    the document's chunks chosen (a session above counts what its sub-session took).
    ``question``, ``time`` (ISO-8601, as stored) and ``mechanism`` (read for a direct use, else
    from the root IRI's shape) when known."""

    id: str
    via: str | None
    edges: int
    chunks: int
    direct: bool
    question: str | None = None
    time: str | None = None
    mechanism: str | None = None

    def record(self) -> dict:
        """The CLI's JSON contract: ``{"id", "via", "edges", "chunks"}``."""
        return {"id": self.id, "via": self.via, "edges": self.edges, "chunks": self.chunks}


def describe_document(source: TraceSource, document: str) -> dict[str, str | None] | None:
    """``{"id", "title", "mime_type", "page_count"}`` of ``document`` (values as stored, None when
    absent; the title is ``dc:title``, else ``rdfs:label``), or None when the source holds
    nothing about it. Raises SourceError when the source fails."""
    triples = [t for t in source.lineage().describe_up([document]) if t.subject.value == document]
    if not triples:
        return None
    index = TripleIndex(triples)
    return {"id": document, "title": index.literal(document, DC_TITLE) or index.label(document),
            "mime_type": index.literal(document, MIME_TYPE), "page_count": index.literal(document, TG + "pageCount")}


def used_by(source: TraceSource, document: str) -> list[Use]:
    """Every session that used ``document`` (an IRI), newest first (see ``used_by_documents``)."""
    return used_by_documents(source, [document]).get(document, [])


def used_by_documents(source: TraceSource, documents: Iterable[str]) -> dict[str, list[Use]]:
    """``{document: [Use]}`` for each of ``documents`` (a document nothing used maps to []).
    Per document the rows are newest first (undated last), then by IRI and ``via``; an
    ancestor reached through two sub-sessions has a row for each. Raises SourceError when the
    source fails."""
    documents = list(dict.fromkeys(documents))
    lookups = source.lineage()
    parent = lookups.derived_from(documents)
    doc_of = {e: _top(e, parent) for e in parent}
    facts = lookups.held_facts(parent)
    fact_docs = {fact: sorted({doc_of[h] for h, _ in found}) for fact, found in facts.items()}
    selections = lookups.edge_selections(facts)
    choosers = lookups.chunk_choosers(parent)
    chains = lookups.session_chains(sorted(set(selections) | {u for u, _, _ in choosers}))
    # what each session took directly: {root: {document: [step, edges, chunks]}}
    took: dict[str, dict[str, list]] = {}
    for selection, fact in selections.items():
        chain = chains.get(selection)
        if chain and chain.roots:
            for doc in fact_docs.get(fact, ()):
                took.setdefault(chain.roots[0], {}).setdefault(doc, [chain.step, 0, set()])[1] += 1
    # chunks by the model's rules (a reranker's choice, else the Exploration's): read those sessions
    docrag = sorted({chains[u].roots[0] for u, _, _ in choosers if chains.get(u) and chains[u].roots})
    sessions = fetch_sessions(source, docrag, context=False)
    for root, session in sessions.items():
        for _, step, chunk, _ in chosen_chunks(session):
            if chunk in doc_of:
                took.setdefault(root, {}).setdefault(doc_of[chunk], [step, 0, set()])[2].add(chunk)
    above = {chain.roots[0]: chain.roots for chain in chains.values() if chain.roots}
    mechanism = {root: session.mechanism for root, session in sessions.items()}
    uses: dict[str, dict[tuple[str, str | None], Use]] = {d: {} for d in documents}
    for root in sorted(took):
        for doc, (step, edges, chunks) in took[root].items():
            _add(uses[doc], Use(root, step, edges, len(chunks), True, mechanism=mechanism.get(root)))
            chain = above.get(root, (root,))
            for below, over in zip(chain, chain[1:]):
                _add(uses[doc], Use(over, below, edges, len(chunks), False))
    facts_of = lookups.session_facts({u.id for rows in uses.values() for u in rows.values()})
    out = {}
    for doc, rows in uses.items():
        for use in rows.values():
            use.mechanism = use.mechanism or next((m for prefix, m in ROOT_PREFIXES if use.id.startswith(prefix)), None)
            use.question = facts_of.get(use.id, {}).get("question")
            use.time = facts_of.get(use.id, {}).get("time")
        out[doc] = sorted(rows.values(), key=_newest_first)
    return out


def _top(entity: str, parent: dict[str, str]) -> str:
    seen = set()
    while entity in parent and entity not in seen:
        seen.add(entity)
        entity = parent[entity]
    return entity


def _add(rows: dict[tuple[str, str | None], Use], use: Use) -> None:
    key = (use.id, use.via)
    if key in rows:
        rows[key].edges += use.edges
        rows[key].chunks += use.chunks
    else:
        rows[key] = use


def _newest_first(use: Use) -> tuple:
    time = parse_time(use.time) if use.time else None
    return (time is None, -(time.timestamp()) if time else 0.0, use.id, use.via or "")
