"""The session list and single sessions, answered by queries on a source (never by reading
every session): list pages with ORDER BY / LIMIT / OFFSET, counts, and a session fetched by a
few queries, then read with the same rules as a whole collection (``sessions.SessionReader``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pyoxigraph as ox

from .model import AGENT, DOCRAG, GRAPHRAG, Session
from .session_report import session_summary
from .sessions import SessionReader, step_owner
from .sources import TraceSource
from .sparql_text import PREFIXES, iri, literal, term, values_clause
from .triple_index import TripleIndex

DERIVED = "(prov:wasDerivedFrom|prov:wasGeneratedBy)"
ROOT_PREFIXES = {GRAPHRAG: "urn:trustgraph:question:", DOCRAG: "urn:trustgraph:docrag:", AGENT: "urn:trustgraph:agent:"}
SUBTYPES = {GRAPHRAG: "tg:GraphRagQuestion", DOCRAG: "tg:DocRagQuestion", AGENT: "tg:AgentQuestion"}

# A session root: typed tg:Question (or a subtype), or a tg:query on an IRI of TrustGraph's
# root shapes (TRACE-MODEL.md, "Sessions").
_ROOTS = """
  { ?root a tg:Question } UNION { ?root a tg:GraphRagQuestion } UNION { ?root a tg:DocRagQuestion }
  UNION { ?root a tg:AgentQuestion }
  UNION { ?root tg:query ?anyQuery FILTER(STRSTARTS(STR(?root), "urn:trustgraph:question:")
          || STRSTARTS(STR(?root), "urn:trustgraph:docrag:") || STRSTARTS(STR(?root), "urn:trustgraph:agent:")) }"""

# The mechanism, as sessions.SessionReader decides it: the subtype, then the IRI, then the
# first steps. (Property paths are kept out of EXISTS: not every server evaluates them there.)
_NEAR_ROOT = """{{ {{ ?{v} prov:wasDerivedFrom ?root }} UNION {{ ?{v} prov:wasGeneratedBy ?root }}
                   UNION {{ ?{v} prov:wasDerivedFrom ?{v}Up . ?{v}Up prov:wasDerivedFrom ?root }} }}"""
_MECHANISM = """
  BIND(IF(EXISTS { ?root a tg:GraphRagQuestion }, "GraphRAG",
       IF(EXISTS { ?root a tg:DocRagQuestion }, "DocRAG",
       IF(EXISTS { ?root a tg:AgentQuestion }, "Agent",
       IF(STRSTARTS(STR(?root), "urn:trustgraph:question:"), "GraphRAG",
       IF(STRSTARTS(STR(?root), "urn:trustgraph:docrag:"), "DocRAG",
       IF(STRSTARTS(STR(?root), "urn:trustgraph:agent:"), "Agent",
       IF(EXISTS { ?m1 prov:wasDerivedFrom ?root . { ?m1 a tg:Analysis } UNION { ?m1 a tg:PatternDecision }
                   UNION { ?m1 a tg:Plan } UNION { ?m1 a tg:Decomposition } }, "Agent",
       IF(EXISTS { """ + _NEAR_ROOT.format(v="m2") + """ ?m2 tg:edgeCount ?m3 }, "GraphRAG",
       IF(EXISTS { """ + _NEAR_ROOT.format(v="m4") + """ ?m4 tg:chunkCount ?m5 }, "DocRAG",
       "Unknown"))))))))) AS ?mechanism)"""

# An agent's pattern: its PatternDecision, else the kind of the steps that follow the root.
_PATTERN_KINDS = {"react": ("tg:Analysis", "tg:Conclusion"), "plan-then-execute": ("tg:Plan",),
                  "supervisor": ("tg:Decomposition",)}


def _pattern_clause(pattern: str) -> str:
    kinds = " UNION ".join(f"{{ ?first a {k} }}" for k in _PATTERN_KINDS.get(pattern, ()))
    declared = f"{{ ?decision prov:wasDerivedFrom ?root ; a tg:PatternDecision ; tg:pattern ?declared FILTER(STR(?declared) = {literal(pattern)}) }}"
    if not kinds:
        return "  " + declared
    return (f"  {{ {declared} UNION {{ ?first prov:wasDerivedFrom ?root . {kinds}\n"
            f"    MINUS {{ ?undecided prov:wasDerivedFrom ?root ; a tg:PatternDecision }} }} }}")


# Answered sessions: those whose answer entity exists where TrustGraph writes it (TRACE-MODEL.md):
# {root}/final (an agent's Conclusion), {root}/synthesis (plan, supervisor, DocRAG), or
# urn:trustgraph:prov:synthesis:{id} for the GraphRAG Question urn:trustgraph:question:{id}.
# One pass over the answers, joined on the root; portable (no paths or computed IRIs in EXISTS).
_ANSWERED = """{ SELECT DISTINCT ?root WHERE {
    { ?answer a tg:Conclusion } UNION { ?answer a tg:Synthesis }
    BIND(IRI(IF(STRSTARTS(STR(?answer), "urn:trustgraph:prov:synthesis:"),
                CONCAT("urn:trustgraph:question:", STRAFTER(STR(?answer), "urn:trustgraph:prov:synthesis:")),
                REPLACE(STR(?answer), "/(final|synthesis)$", ""))) AS ?root) } }"""


@dataclass
class SessionFilter:
    """What the session list shows. ``mechanism``: one of "Agent", "GraphRAG", "DocRAG", or a
    tuple of them (any of); ``pattern``: "react", "plan-then-execute", "supervisor", or a tuple;
    ``status``: "answered" | "unfinished"; ``text``: case-insensitive, in the question or the
    session IRI; ``include_sub``: sub-sessions too. Empty values filter nothing."""

    mechanism: str | tuple[str, ...] | None = None
    pattern: str | tuple[str, ...] | None = None
    status: str | None = None
    text: str | None = None
    include_sub: bool = False


@dataclass
class SessionPage:
    """One page of the list: ``rows`` (``session_summary`` dicts, newest first), ``total``
    matching sessions, and the ``sessions`` read for the rows (by IRI)."""

    rows: list[dict]
    total: int
    offset: int
    limit: int
    sessions: dict[str, Session] = field(default_factory=dict)


def _choices(value: str | tuple[str, ...] | None) -> tuple[str, ...]:
    if not value:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def _where(filters: SessionFilter) -> str:
    parts = [_ROOTS]
    if not filters.include_sub:
        parts.append("  FILTER NOT EXISTS { ?root prov:wasDerivedFrom ?parentStep }")
    if filters.text and filters.text.strip():
        needle = literal(filters.text.strip())
        # a required pattern joined on ?root (an OPTIONAL here is evaluated before the roots
        # are bound by some engines: a cross product of every question with every root)
        parts.append(f"  ?root tg:query ?searched\n"
                     f"  FILTER(CONTAINS(LCASE(STR(?searched)), LCASE({needle})) || CONTAINS(LCASE(STR(?root)), LCASE({needle})))")
    mechanisms, patterns = _choices(filters.mechanism), _choices(filters.pattern)
    if mechanisms or patterns:
        parts.append(_MECHANISM)
        allowed = mechanisms if mechanisms else (AGENT,)
        if patterns and mechanisms and AGENT not in mechanisms:
            allowed = ("-",)  # patterns are an agent's: no other mechanism has one
        parts.append(f"  FILTER(?mechanism IN ({', '.join(literal(m) for m in allowed)}))")
    if patterns:
        parts.append(" UNION ".join(f"{{ {_pattern_clause(p).strip()} }}" for p in patterns))
    if filters.status == "answered":
        parts.append("  " + _ANSWERED)
    elif filters.status:
        parts.append("  OPTIONAL " + _ANSWERED.replace("SELECT DISTINCT ?root WHERE", "SELECT DISTINCT ?root (1 AS ?answered) WHERE")
                     + "\n  FILTER(!BOUND(?answered))")
    return "\n".join(parts)


def count_sessions(source: TraceSource, filters: SessionFilter | None = None) -> int:
    """How many sessions match ``filters`` (one query)."""
    rows = source.select(PREFIXES + f"SELECT (COUNT(DISTINCT ?root) AS ?n) WHERE {{ {_where(filters or SessionFilter())} }}")
    return int(rows[0]["n"].value) if rows and "n" in rows[0] else 0


def list_sessions(source: TraceSource, filters: SessionFilter | None = None, limit: int = 50,
                  offset: int = 0) -> SessionPage:
    """A page of the session list, newest first (undated last, then by IRI).

    ``limit`` 0 means all. Costs three queries for the page plus the few that read its sessions.
    Raises SourceError when the source fails.
    """
    filters = filters or SessionFilter()
    page = f"LIMIT {int(limit)} " if limit else ""
    page += f"OFFSET {int(offset)}" if offset else ""
    query = (PREFIXES + f"SELECT ?root ?time WHERE {{ {{ SELECT ?root (SAMPLE(?t) AS ?time) WHERE {{ "
             f"{_where(filters)}\n  OPTIONAL {{ ?root prov:startedAtTime ?t }} }} GROUP BY ?root }} }} "
             f"ORDER BY DESC(BOUND(?time)) DESC(STR(?time)) ?root {page}")
    roots = [r["root"].value for r in source.select(query) if isinstance(r.get("root"), ox.NamedNode)]
    sessions = fetch_sessions(source, roots)
    rows = [session_summary(sessions[r]) for r in roots if r in sessions]
    total = count_sessions(source, filters) if (limit and (len(roots) == limit or offset)) else offset + len(roots)
    return SessionPage(rows, total, offset, limit, sessions)


def fetch_session(source: TraceSource, session_id: str) -> Session | None:
    """One session read from ``source`` by a few queries, or None when there is no such root.
    An IRI that is not a valid IRI (``>``, spaces, quotes...) is simply not found."""
    try:
        iri(session_id)
    except ValueError:
        return None
    return fetch_sessions(source, [session_id]).get(session_id)


def fetch_sessions(source: TraceSource, roots: list[str]) -> dict[str, Session]:
    """Read several sessions at once: their entities (and their sub-sessions'), the labels and
    extraction provenance of their chosen edges, and the texts of their documents."""
    if not roots:
        return {}
    anchors = values_clause("root", [iri(r) for r in roots])
    # two queries, not one UNION: joined with ``?s ?p ?o`` a union is evaluated triple by triple
    # by some engines (pyoxigraph among them), which is quadratic in the store's size
    triples = source.construct(PREFIXES + f"""CONSTRUCT {{ ?s ?p ?o }} WHERE {{ {anchors}
  ?s {DERIVED}* ?root . ?s ?p ?o }}""")
    triples += source.construct(PREFIXES + f"""CONSTRUCT {{ ?s ?p ?o }} WHERE {{ {anchors}
  ?x {DERIVED}* ?root . ?x tg:selectedEdge|tg:selectedChunk|tg:thought ?s . ?s ?p ?o }}""")
    triples += _edge_context(source, triples)
    index = TripleIndex(triples)
    documents = [o.value for t in triples if t.predicate.value == "https://trustgraph.ai/ns/document"
                 for o in [t.object] if isinstance(o, ox.NamedNode)]
    reader = SessionReader(index, source.document_texts(documents))
    found = {r: reader.read(r) for r in roots if r in reader.roots}
    for session in found.values():
        if session.parent is not None:
            session.parent_session = _parent_session(source, session.parent)
    return found


def _edge_context(source: TraceSource, triples: list[ox.Triple]) -> list[ox.Triple]:
    """Labels of the terms of chosen edges, and the Subgraph -> Chunk -> Page -> Document chain
    of each edge (TRACE-MODEL.md, "Extraction provenance")."""
    edges = [t.object for t in triples if t.predicate.value == "https://trustgraph.ai/ns/edge"
             and isinstance(t.object, ox.Triple)]
    if not edges:
        return []
    named = sorted({x.value for e in edges for x in (e.subject, e.predicate, e.object) if isinstance(x, ox.NamedNode)})
    out = source.construct(PREFIXES + f"CONSTRUCT {{ ?x rdfs:label ?l }} WHERE {{ "
                           f"{values_clause('x', [iri(n) for n in named])} ?x rdfs:label ?l }}")
    if source.triple_terms:
        edge_terms = sorted({term(e) for e in edges})
        out += source.construct(PREFIXES + f"""CONSTRUCT {{ ?up ?p ?o }} WHERE {{ {values_clause('t', edge_terms)}
  ?subgraph tg:contains ?t . ?subgraph prov:wasDerivedFrom* ?up . ?up ?p ?o }}""")
    return out


def _parent_session(source: TraceSource, parent: str) -> str | None:
    """The session owning step ``parent``: named by the step's IRI when it extends an agent or
    DocRAG root (no query), else found by walking its derivations up to a Question."""
    owner = step_owner(parent)
    if owner is not None:
        return owner
    rows = source.select(PREFIXES + f"""SELECT ?root WHERE {{ {iri(parent)} {DERIVED}* ?root .
  {{ ?root a tg:Question }} UNION {{ ?root tg:query ?q }} }} LIMIT 1""")
    return rows[0]["root"].value if rows else None


def count_steps(source: TraceSource) -> int:
    """How many steps the source holds, as the session view counts them: entities derived from
    another (or, in the seed shape, generated by a Question), without Questions, Thoughts and
    extraction provenance (documents, pages, sections, images, chunks, subgraphs). One query."""
    rows = source.select(PREFIXES + """SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {
  { ?s prov:wasDerivedFrom ?from } UNION { ?s prov:wasGeneratedBy ?from . ?from a tg:Question }
  FILTER NOT EXISTS { ?s a ?kind . VALUES ?kind { tg:Question tg:Thought tg:Document tg:Page tg:Section
                                                  tg:Image tg:Chunk tg:Subgraph } } }""")
    return int(rows[0]["n"].value) if rows and "n" in rows[0] else 0
