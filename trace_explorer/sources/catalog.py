"""The session list, answered by queries on a source (never by reading every session): pages
with ORDER BY / LIMIT / OFFSET, filters and counts.

A store with a session index (``session_index``: a row per session, written when traces are
added) is asked for its rows: a page costs one small query and reads no session. Any other
source (a SPARQL endpoint) is asked the same questions of the traces themselves, and the page's
sessions are then read by ``fetch.fetch_sessions``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pyoxigraph as ox

from ..model.session import AGENT, Session
from ..model.summary import session_summary
from .fetch import ROOTS as _ROOTS
from .fetch import fetch_session, fetch_sessions
from .filter import SessionFilter
from .session_insights import sparql_clauses
from .source import TraceSource
from .sparql_text import PREFIXES, literal
from .store import StoreSource

__all__ = ["SessionFilter", "SessionPage", "count_sessions", "count_steps", "fetch_session",
           "fetch_sessions", "indexed_summary", "list_sessions"]


# The mechanism, as model.reader.SessionReader decides it: the subtype, then the IRI, then the
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
class SessionPage:
    """One page of the list: ``rows`` (``session_summary`` dicts, newest first), ``total``
    matching sessions, and the ``sessions`` read for the rows (by IRI)."""

    rows: list[dict]
    total: int
    offset: int
    limit: int
    sessions: dict[str, Session] = field(default_factory=dict)


def _where(filters: SessionFilter) -> str:
    parts = [_ROOTS]
    if not filters.include_sub:
        parts.append("  FILTER NOT EXISTS { ?root prov:wasDerivedFrom ?parentStep }")
    if filters.needle:
        needle = literal(filters.needle)
        # a required pattern joined on ?root (an OPTIONAL here is evaluated before the roots
        # are bound by some engines: a cross product of every question with every root)
        parts.append(f"  ?root tg:query ?searched\n"
                     f"  FILTER(CONTAINS(LCASE(STR(?searched)), LCASE({needle})) || CONTAINS(LCASE(STR(?root)), LCASE({needle})))")
    mechanisms, patterns = filters.mechanisms, filters.patterns
    if mechanisms or patterns:
        parts.append(_MECHANISM)
        allowed = mechanisms if mechanisms else (AGENT,)
        if patterns and mechanisms and AGENT not in mechanisms:
            allowed = ("-",)  # patterns are an agent's: no other mechanism has one
        parts.append(f"  FILTER(?mechanism IN ({', '.join(literal(m) for m in allowed)}))")
    if patterns:
        parts.append(" UNION ".join(f"{{ {_pattern_clause(p).strip()} }}" for p in patterns))
    parts += sparql_clauses(filters)
    if filters.status == "answered":
        parts.append("  " + _ANSWERED)
    elif filters.status:
        parts.append("  OPTIONAL " + _ANSWERED.replace("SELECT DISTINCT ?root WHERE", "SELECT DISTINCT ?root (1 AS ?answered) WHERE")
                     + "\n  FILTER(!BOUND(?answered))")
    return "\n".join(parts)


def count_sessions(source: TraceSource, filters: SessionFilter | None = None) -> int:
    """How many sessions match ``filters`` (one query). Raises SourceError when the source fails."""
    filters = filters or SessionFilter()
    if source.lookup is not None:
        return source.lookup.count(filters)
    if _indexed(source):
        return source.index.count(filters)
    rows = source.select(PREFIXES + f"SELECT (COUNT(DISTINCT ?root) AS ?n) WHERE {{ {_where(filters)} }}")
    return int(rows[0]["n"].value) if rows and "n" in rows[0] else 0


def list_sessions(source: TraceSource, filters: SessionFilter | None = None, limit: int = 50,
                  offset: int = 0, *, read: bool = False) -> SessionPage:
    """A page of the session list, newest first (undated last, then by IRI).

    ``limit`` 0 means all. ``rows`` are ``session_summary`` dicts. On an indexed store a page is
    one query on the index (plus one count) and reads no session; elsewhere the page's sessions
    are read to summarise them. ``read``: fill ``sessions`` with the rows' sessions in any case.
    Raises SourceError when the source fails.
    """
    filters = filters or SessionFilter()
    sessions: dict[str, Session] = {}
    if source.lookup is not None:  # a source that lists its sessions itself
        rows, total, _ = source.lookup.page(filters, limit, offset)
        sessions = fetch_sessions(source, [r["id"] for r in rows]) if read else {}
        return SessionPage(rows, total, offset, limit, sessions)
    if _indexed(source):
        rows = source.index.page(filters, limit, offset)
        if read:
            sessions = fetch_sessions(source, [r["id"] for r in rows])
    else:
        page = (f"LIMIT {int(limit)} " if limit else "") + (f"OFFSET {int(offset)}" if offset else "")
        query = (PREFIXES + f"SELECT ?root ?time WHERE {{ {{ SELECT ?root (SAMPLE(?t) AS ?time) WHERE {{ "
                 f"{_where(filters)}\n  OPTIONAL {{ ?root prov:startedAtTime ?t }} }} GROUP BY ?root }} }} "
                 f"ORDER BY DESC(BOUND(?time)) DESC(STR(?time)) ?root {page}")
        roots = [r["root"].value for r in source.select(query) if isinstance(r.get("root"), ox.NamedNode)]
        sessions = fetch_sessions(source, roots)
        rows = [session_summary(sessions[r]) for r in roots if r in sessions]
    total = count_sessions(source, filters) if (limit and (len(rows) == limit or offset)) else offset + len(rows)
    return SessionPage(rows, total, offset, limit, sessions)


def indexed_summary(source: TraceSource, session_id: str) -> dict | None:
    """The summary of session ``session_id`` from the source's session index, without reading
    the session (its size before it is opened); None when the source has no index or no row."""
    if source.lookup is not None:
        return source.lookup.summary(session_id)
    return source.index.summary(session_id) if _indexed(source) else None


def _indexed(source: TraceSource) -> bool:
    return isinstance(source, StoreSource) and source.index is not None and source.index.usable


def count_steps(source: TraceSource) -> int:
    """How many steps the source holds, as the session view counts them. On an indexed store,
    the sum of every session's steps; elsewhere: entities derived from another (or, in the seed
    shape, generated by a Question), without Questions, Thoughts and extraction provenance
    (documents, pages, sections, images, chunks, subgraphs). One query."""
    if source.lookup is not None:
        return source.lookup.steps()
    if _indexed(source):
        return source.index.steps()
    rows = source.select(PREFIXES + """SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {
  { ?s prov:wasDerivedFrom ?from } UNION { ?s prov:wasGeneratedBy ?from . ?from a tg:Question }
  FILTER NOT EXISTS { ?s a ?kind . VALUES ?kind { tg:Question tg:Thought tg:Document tg:Page tg:Section
                                                  tg:Image tg:Chunk tg:Subgraph } } }""")
    return int(rows[0]["n"].value) if rows and "n" in rows[0] else 0
