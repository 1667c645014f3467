"""Evidence lineage: from an answer to the documents behind it (TRACE-MODEL.md, "Extraction
provenance", joined with the query-time trace).

A GraphRAG session's Focus chose edges; each edge is a fact some extraction holds (a Subgraph's
``tg:contains``, or a statement's ``tg:reifies``), and that holder derives from a chunk, the
chunk from a page (or section), the page from a document. A DocRAG session chose chunks, which
lead to their page and document the same way. An agent whose tool call ran GraphRAG or DocRAG
holds that sub-session's evidence under the step the sub-session derives from, and rolls up
the evidence of all its sub-sessions for its answer. ``used_by`` (module ``used_by``) is the
other way round.

Everything is read through the source's lineage lookups (``TraceSource.lineage()``,
``sources.lineage``), so files, a local store, a SPARQL endpoint and a TrustGraph gateway
answer the same way; the chunks' texts come from the source's ``document_texts`` (a
``*.documents.json`` file, the store's documents graph, or the librarian of a source that
reaches one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import pyoxigraph as ox

from ...model.fields import kind_of, show
from ...model.literals import parse_int
from ...model.session import Session
from ...model.triple_index import TripleIndex
from ...model.vocabulary import (CHUNK_INDEX, COMPONENT_VERSION, DC_TITLE, LLM_MODEL, MIME_TYPE, PAGE_NUMBER,
                                 STARTED_AT_TIME, WAS_ASSOCIATED_WITH, WAS_DERIVED_FROM, WAS_GENERATED_BY, local_name)
from ...index.catalog import fetch_sessions
from ...sources.source import TraceSource

PAGE_KINDS = ("Page", "Section", "Image")
# IRI shapes TrustGraph gives extraction entities, for data that lost their types.
_SHAPES = (("urn:chunk:", "Chunk"), ("urn:page:", "Page"), ("urn:section:", "Section"), ("urn:image:", "Image"))
MAX_CHAIN = 8


@dataclass(frozen=True)
class Extraction:
    """The activity that made an entity (``prov:wasGeneratedBy``): its IRI, the component
    (the agent it was associated with: ``https://trustgraph.ai/agent/{component}``), the
    component's version, the LLM model and the start time (as stored, ISO-8601)."""

    activity: str
    component: str | None = None
    version: str | None = None
    model: str | None = None
    time: str | None = None

    def summary(self) -> str:
        """"component version, model, time" (what is known of it)."""
        who = f"{self.component or '?'} {self.version or ''}".strip()
        return ", ".join(x for x in (who, self.model, self.time) if x)


@dataclass(frozen=True)
class Lineage:
    """Where one fact or chunk came from. ``holder``: the entity holding the fact (a Subgraph,
    ``held_by`` "contains"; or a statement, "reifies"), None for a chunk's own lineage. Unknown
    links are None. ``extraction``: the activity that made the holder (for a chunk, the chunk).
    ``chunk_text``: the chunk's words, when the source has them."""

    holder: str | None = None
    held_by: str | None = None
    chunk: str | None = None
    chunk_label: str | None = None
    chunk_index: int | None = None
    page: str | None = None
    page_number: int | None = None
    document: str | None = None
    title: str | None = None
    mime_type: str | None = None
    extraction: Extraction | None = None
    chunk_text: str | None = None


@dataclass
class EdgeEvidence:
    """One chosen edge (an EdgeSelection of ``session``'s Focus ``step``): its fact (``s``,
    ``p``, ``o`` as text, None when the edge is not stored as a readable triple; ``raw``: a
    stored value that did not parse), the terms' labels, and ``sources``: one Lineage per
    extraction that holds the fact ([] when no loaded extraction does)."""

    selection: str
    session: str
    step: str | None
    s: str | None = None
    p: str | None = None
    o: str | None = None
    o_is_literal: bool = False
    labels: dict[str, str | None] = field(default_factory=dict)
    raw: str | None = None
    sources: list[Lineage] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        """The edge for people: ``[s, p, o]``, each its label, else a literal's value, else its
        IRI's local name; [] when the edge is not stored as a triple."""
        if not self.s:
            return []
        return [self.labels.get(p) or (getattr(self, p) if p == "o" and self.o_is_literal
                                       else local_name(getattr(self, p))) for p in ("s", "p", "o")]

    @property
    def words(self) -> list[str]:
        """The words to look for in a chunk's text: each term's label, its IRI and the IRI's
        local name (with ``-`` and ``_`` also read as spaces), a literal's value."""
        words: list[str] = []
        for part in ("s", "p", "o"):
            value = getattr(self, part)
            if not value:
                continue
            words.append(value)
            if self.labels.get(part):
                words.append(self.labels[part])
            if not (part == "o" and self.o_is_literal):
                name = local_name(value)
                words += [name, name.replace("-", " ").replace("_", " ")]
        return list(dict.fromkeys(w for w in words if len(w.strip()) > 1))


@dataclass
class ChunkEvidence:
    """One chunk a DocRAG session chose: the ChunkSelection (None when the Exploration's chunks
    are the choice: no reranker ran), the step that chose it, its score and its Lineage."""

    selection: str | None
    session: str
    step: str | None
    chunk: str
    score: float | None
    lineage: Lineage


@dataclass
class SessionEvidence:
    """A session's evidence: its own chosen ``edges`` and ``chunks``, and ``children``: each
    sub-session's evidence with the step it derives from (an agent's tool call, a supervisor's
    Decomposition)."""

    session: Session
    edges: list[EdgeEvidence] = field(default_factory=list)
    chunks: list[ChunkEvidence] = field(default_factory=list)
    children: list[tuple[str | None, SessionEvidence]] = field(default_factory=list)

    def all_edges(self) -> list[EdgeEvidence]:
        """The roll-up: this session's edges, then each sub-session's (depth first)."""
        return self.edges + [e for _, child in self.children for e in child.all_edges()]

    def all_chunks(self) -> list[ChunkEvidence]:
        """The roll-up of chosen chunks, as ``all_edges``."""
        return self.chunks + [c for _, child in self.children for c in child.all_chunks()]

    def documents(self) -> list[str]:
        """The documents the answer used (roll-up), in order of first use."""
        return list(self.document_lineages())

    def document_lineages(self) -> dict[str, Lineage]:
        """``documents()`` in the same order, each with a Lineage that reaches it (the last met,
        the edges' sources read before the chunks'): what its title and MIME type are read from."""
        found: dict[str, Lineage] = {}
        for lineage in [s for e in self.all_edges() for s in e.sources] + [c.lineage for c in self.all_chunks()]:
            if lineage.document:
                found[lineage.document] = lineage
        return found


def session_family(source: TraceSource, session: Session,
                   known: Mapping[str, Session] | None = None) -> dict[str, Session]:
    """``session`` and every session below it, by IRI: those in ``known`` are used, the others
    fetched from ``source`` (a level at a time). Raises SourceError when the source fails."""
    family = {session.id: session}
    known = known or {}
    wanted = list(session.children)
    while wanted:
        family.update({w: known[w] for w in wanted if w in known})
        missing = [w for w in wanted if w not in family]
        if missing:
            family.update(fetch_sessions(source, missing))
        wanted = [c for w in wanted if w in family for c in family[w].children if c not in family]
    return family


def chosen_chunks(session: Session) -> list[tuple[str | None, str, str, float | None]]:
    """The chunks a DocRAG session chose, as ``(selection, step, chunk, score)``: a reranker
    Focus's ChunkSelections when there are any, else the Exploration's chunks (TRACE-MODEL.md,
    "DocRAG steps")."""
    chosen = [(c["id"], focus.id, c["chunk"], c.get("score")) for focus in session.steps_of("Focus")
              for c in focus.fields.get("chunks", []) if c.get("chunk")]
    if chosen:
        return chosen
    return [(None, step.id, chunk, None) for step in session.steps_of("Exploration")
            for chunk in step.fields.get("chunks", [])]


def session_evidence(source: TraceSource, session: Session,
                     known: Mapping[str, Session] | None = None) -> SessionEvidence:
    """The evidence of ``session`` and of its sub-sessions (``SessionEvidence``), read from
    ``source`` in a few batched queries whatever the number of edges. ``known``: sessions
    already read (IRI -> Session), spared a fetch. Raises SourceError when the source fails."""
    family = session_family(source, session, known)
    edges = {s: [(focus.id, e) for focus in family[s].steps_of("Focus") for e in focus.fields.get("edges", [])]
             for s in family}
    lookups = source.lineage()
    terms = lookups.chosen_edges([e["id"] for chosen in edges.values() for _, e in chosen])
    facts = [t for t in terms.values() if isinstance(t, ox.Triple)]
    held = lookups.holders(facts)
    chunks = {s: chosen_chunks(family[s]) for s in family}
    reader = _LineageReader(TripleIndex(lookups.describe_up({h for found in held.values() for h, _ in found}
                                                            | {c for chosen in chunks.values() for _, _, c, _ in chosen})))
    lineages = {(h, how): reader.lineage(h, how) for found in held.values() for h, how in found}
    lineages.update({(c, None): reader.lineage(c, None) for chosen in chunks.values() for _, _, c, _ in chosen})
    texts = source.document_texts(sorted({x.chunk for x in lineages.values() if x.chunk}))
    lineages = {k: replace(x, chunk_text=texts.get(x.chunk)) if x.chunk else x for k, x in lineages.items()}

    def build(current: Session, above: frozenset[str]) -> SessionEvidence:
        evidence = SessionEvidence(current)
        for step, edge in edges[current.id]:
            evidence.edges.append(_edge(current, step, edge, terms.get(edge["id"]), held, lineages))
        evidence.chunks = [ChunkEvidence(sel, current.id, step, chunk, score, lineages[(chunk, None)])
                           for sel, step, chunk, score in chunks[current.id]]
        for child in current.children:
            if child in family and child not in above:  # a cycle of sub-sessions is cut
                evidence.children.append((family[child].parent, build(family[child], above | {child})))
        return evidence

    return build(session, frozenset({session.id}))


def _edge(session: Session, step: str, edge: dict, stored, held: dict, lineages: dict) -> EdgeEvidence:
    evidence = EdgeEvidence(edge["id"], session.id, step,
                            labels={p: edge.get(p + "_label") for p in ("s", "p", "o")})
    if isinstance(stored, ox.Triple):
        evidence.s, evidence.p, evidence.o = show(stored.subject), show(stored.predicate), show(stored.object)
        evidence.o_is_literal = isinstance(stored.object, ox.Literal)
        evidence.sources = [lineages[(h, how)] for h, how in held.get(stored, [])]
    elif stored is not None:
        evidence.raw = show(stored)
    elif edge.get("raw"):
        evidence.raw = edge["raw"]
    return evidence


class _LineageReader:
    """Reads a Lineage (without the chunk's text) from the described extraction entities."""

    def __init__(self, index: TripleIndex):
        self.index = index

    def lineage(self, start: str, held_by: str | None) -> Lineage:
        """The Lineage of a fact holder (``held_by`` "contains" / "reifies") or, with ``held_by``
        None, of a chunk: the chain up ``prov:wasDerivedFrom`` read by kind (types, else IRI
        shape, else place: the first link above a holder is its chunk, the top its document)."""
        index = self.index
        chain, node = [], start
        while node and node not in chain and len(chain) < MAX_CHAIN:
            chain.append(node)
            parents = sorted(index.iris(node, WAS_DERIVED_FROM))
            node = parents[0] if parents else None
        above = chain[1:] if held_by else chain
        roles = {n: self._role(n) for n in above}
        chunk = next((n for n in above if roles[n] == "Chunk"), None) if held_by else start
        page = next((n for n in above if roles[n] in PAGE_KINDS), None)
        document = next((n for n in above if roles[n] == "Document"), None)
        if document is None and len(above) > (0 if held_by else 1) and roles[above[-1]] is None and above[-1] != chunk:
            document = above[-1]
        if chunk is None and held_by and above and roles[above[0]] is None and above[0] != document:
            chunk = above[0]
        if page is None and chunk and document:
            between = above[above.index(chunk) + 1:above.index(document)]
            page = next((n for n in between if roles[n] is None), None)
        return Lineage(
            holder=start if held_by else None, held_by=held_by, chunk=chunk,
            chunk_label=index.label(chunk) if chunk else None,
            chunk_index=parse_int(index.literal(chunk, CHUNK_INDEX)) if chunk else None,
            page=page, page_number=parse_int(index.literal(page, PAGE_NUMBER)) if page else None,
            document=document,
            title=(index.literal(document, DC_TITLE) or index.label(document)) if document else None,
            mime_type=index.literal(document, MIME_TYPE) if document else None,
            extraction=self.extraction(start),
        )

    def _role(self, node: str) -> str | None:
        kind = kind_of(node, self.index.types(node))
        if kind in ("Chunk", "Document") or kind in PAGE_KINDS:
            return kind
        return next((k for prefix, k in _SHAPES if node.startswith(prefix)), None)

    def extraction(self, entity: str) -> Extraction | None:
        """The activity that generated ``entity``, or None when none is recorded."""
        index = self.index
        activities = sorted(index.iris(entity, WAS_GENERATED_BY))
        if not activities:
            return None
        activity = activities[0]
        agents = sorted(index.iris(activity, WAS_ASSOCIATED_WITH))
        component = (index.label(agents[0]) or local_name(agents[0])) if agents else None
        return Extraction(activity, component, index.literal(activity, COMPONENT_VERSION),
                          index.literal(activity, LLM_MODEL), index.literal(activity, STARTED_AT_TIME))
