"""The session list, answered by queries on a source (never by reading every session): pages
with ORDER BY / LIMIT / OFFSET, filters and counts.

A store with a session index (``session_index``: a row per session, written when traces are
added) is asked for its rows: a page costs one small query and reads no session, sorted on any
of ``filter.SORT_KEYS`` and searched with its full-text index. Any other source (a SPARQL
endpoint) is asked the same questions of the traces themselves (sorted on ``SPARQL_SORT_KEYS``,
searched as the source's ``text_search`` says: ``search``), and the page's sessions are then
read by ``fetch.fetch_sessions``.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import pyoxigraph as ox

from ..model.roots import named_by
from ..model.session import AGENT, Session
from ..model.summary import answer_preview, session_summary
from ..sources.fetch import ROOTS as _ROOTS
from ..sources.fetch import fetch_session, fetch_sessions
from ..sources.filter import DEFAULT_ORDER, SORT_KEYS, SessionFilter, SessionOrder
from . import reach as index_reach
from . import review_rows as index_reviews
from ..sources.search import INDEX_SEARCH, TextSearch
from .insights import sparql_clauses
from ..sources.source import SourceError, TraceSource
from ..sources.sparql_text import PREFIXES, literal
from ..sources.store_source import StoreSource

__all__ = ["SessionFilter", "SessionOrder", "SessionPage", "count_sessions", "count_steps", "fetch_session",
           "fetch_sessions", "find_session_ids", "indexed_summary", "list_sessions", "sort_keys", "text_search"]

# The sort keys a source without a session index is asked to sort on (ORDER BY on the traces);
# the others need every step of every session.
SPARQL_SORT_KEYS = frozenset({"time", "id", "question", "type", "status"})


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
# urn:trustgraph:prov:synthesis:{id} for the GraphRAG Question urn:trustgraph:question:{id},
# typed tg:Conclusion or tg:Synthesis. The three IRIs are computed from the root and looked up
# (``?answered`` bound when one is there): a lookup per root, where a join of every answer to an
# IRI computed from it took Virtuoso over a minute at 1,000 sessions. Portable: a BIND, then
# OPTIONAL patterns on the bound IRIs (no paths or computed IRIs in EXISTS).
_ANSWER_KINDS = "FILTER(?{v}Kind IN (tg:Conclusion, tg:Synthesis))"
_ANSWERED = """BIND(IRI(CONCAT(STR(?root), "/final")) AS ?answerFinal)
  BIND(IRI(CONCAT(STR(?root), "/synthesis")) AS ?answerSynthesis)
  BIND(IRI(CONCAT("urn:trustgraph:prov:synthesis:", STRAFTER(STR(?root), "urn:trustgraph:question:"))) AS ?answerGraphRag)
  OPTIONAL { ?answerFinal a ?answerFinalKind """ + _ANSWER_KINDS.format(v="answerFinal") + """ }
  OPTIONAL { ?answerSynthesis a ?answerSynthesisKind """ + _ANSWER_KINDS.format(v="answerSynthesis") + """ }
  OPTIONAL { ?answerGraphRag a ?answerGraphRagKind """ + _ANSWER_KINDS.format(v="answerGraphRag") + """
             FILTER(STRSTARTS(STR(?root), "urn:trustgraph:question:")) }
  BIND(COALESCE(?answerFinalKind, ?answerSynthesisKind, ?answerGraphRagKind) AS ?answered)"""


@dataclass
class SessionPage:
    """One page of the list: ``rows`` (``session_summary`` dicts, newest first), ``total``
    matching sessions, and the ``sessions`` read for the rows and their sub-sessions (by IRI)."""

    rows: list[dict]
    total: int
    offset: int
    limit: int
    sessions: dict[str, Session] = field(default_factory=dict)


def _where(filters: SessionFilter, search: TextSearch, order: SessionOrder = DEFAULT_ORDER) -> str:
    # each root once (a root typed tg:Question and a subtype matches twice), before what is
    # looked up or computed per root
    parts = [f"  {{ SELECT DISTINCT ?root WHERE {{ {_ROOTS.strip()} }} }}"]
    if not filters.include_sub:
        parts.append("  FILTER NOT EXISTS { ?root prov:wasDerivedFrom ?parentStep }")
    if filters.needle:
        # a required pattern joined on ?root (an OPTIONAL here is evaluated before the roots
        # are bound by some engines: a cross product of every question with every root)
        try:
            parts.append("  ?root tg:query ?searched\n  " + search.sparql_filter(filters.needle))
        except ValueError as error:
            raise SourceError(str(error)) from None
    mechanisms, patterns = filters.mechanisms, filters.patterns
    if mechanisms or patterns or order.key == "type":
        parts.append(_MECHANISM)
    if mechanisms or patterns:
        allowed = mechanisms if mechanisms else (AGENT,)
        if patterns and mechanisms and AGENT not in mechanisms:
            allowed = ("-",)  # patterns are an agent's: no other mechanism has one
        parts.append(f"  FILTER(?mechanism IN ({', '.join(literal(m) for m in allowed)}))")
    if patterns:
        parts.append(" UNION ".join(f"{{ {_pattern_clause(p).strip()} }}" for p in patterns))
    parts += sparql_clauses(filters)
    if filters.reviews and filters.reviews.active:  # the reviewed sessions named (a source without an index)
        roots = ", ".join(f"<{r}>" for r in sorted(index_reviews.reviewed_roots(filters.reviews)))
        parts.append(f"  FILTER(?root {'NOT IN' if filters.reviews.not_reviewed else 'IN'} ({roots}))")
    if filters.status or order.key == "status":
        parts.append("  " + _ANSWERED)
        if filters.status:
            parts.append(f"  FILTER({'' if filters.status == 'answered' else '!'}BOUND(?answered))")
    return "\n".join(parts)


# The value each sort key orders on, per matching row, named as the query projects it; a row
# per session has it once, a session with several (two start times, two questions) is grouped
# and sorted on one of them (``SAMPLE``; for status, answered if any row is)
_SORT_VALUES = {"question": ("?asked", "?question", "SAMPLE"), "type": ("?mechanism", "?kind", "SAMPLE"),
                "status": ("IF(BOUND(?answered), 1, 0)", "?done", "MAX")}


def _sparql_order(order: SessionOrder, grouped: bool = True) -> tuple[str, str]:
    """The projection the inner query makes for ``order`` (``grouped``: aggregates over the
    rows of each session, for a GROUP BY ?root; else each row's own values) and the ORDER BY
    clause (values missing last, ties newest first, then by IRI)."""
    direction = "DESC" if order.descending else "ASC"
    projected = "(SAMPLE(?t) AS ?time)" if grouped else "(?t AS ?time)"
    if order.key in _SORT_VALUES:
        value, name, aggregate = _SORT_VALUES[order.key]
        projected += f" ({aggregate}({value}) AS {name})" if grouped else f" ({value} AS {name})"
    newest = "DESC(BOUND(?time)) DESC(STR(?time)) ?root"
    if order.key == "id":
        return projected, f"ORDER BY {direction}(?root)"
    if order.key == "question":
        return projected, f"ORDER BY DESC(BOUND(?question)) {direction}(LCASE(STR(?question))) {newest}"
    if order.key == "type":
        return projected, f"ORDER BY {direction}(?kind) {newest}"
    if order.key == "status":  # "answered" before "unfinished" in ascending order
        return projected, f"ORDER BY {'ASC' if order.descending else 'DESC'}(?done) {newest}"
    return projected, f"ORDER BY DESC(BOUND(?time)) {direction}(STR(?time)) ?root"


def count_sessions(source: TraceSource, filters: SessionFilter | None = None) -> int:
    """How many sessions match ``filters`` (one query). Raises SourceError when the source fails
    (or cannot search, for a search)."""
    filters = filters or SessionFilter()
    if source.lookup is not None:
        return source.lookup.count(filters)
    if indexed(source):
        return source.index.count(filters)
    rows = source.select(PREFIXES + f"SELECT (COUNT(DISTINCT ?root) AS ?n) WHERE {{ {_where(filters, source.text_search)} }}")
    return int(rows[0]["n"].value) if rows and "n" in rows[0] else 0


def list_sessions(source: TraceSource, filters: SessionFilter | None = None, limit: int = 50,
                  offset: int = 0, *, read: bool = False, order: SessionOrder = DEFAULT_ORDER) -> SessionPage:
    """A page of the session list in ``order`` (by default newest first; sessions without a
    value for the sort key last, ties newest first, then by IRI), sorted on the source over
    every matching session.

    ``limit`` 0 means all. ``rows`` are ``session_summary`` dicts, with ``answer_preview`` filled
    from the source's texts where the answer is a ``tg:document``. On an indexed store a page is
    one query on the index (plus one count) and reads no session; elsewhere the page's sessions
    are read to summarise them. ``read``: fill ``sessions`` with the rows' sessions in any case.
    ``sessions`` (when read) also holds the rows' sub-sessions, recursively: what their totals
    count (docs/reading-traces.md, "Totals").
    Raises SourceError when the source fails, cannot search, or cannot sort on ``order``'s key
    (``sort_keys``).
    """
    filters = filters or SessionFilter()
    if order.key not in sort_keys(source):
        raise SourceError(f"{source.label} cannot sort the list by {order.key}; it sorts by "
                          f"{', '.join(k for k in SORT_KEYS if k in sort_keys(source))}")
    sessions: dict[str, Session] = {}
    counted = None
    if source.lookup is not None:  # a source that lists its sessions itself
        rows, total = source.lookup.page(filters, limit, offset)
        sessions = fetch_sessions(source, [r["id"] for r in rows], family=True) if read else {}
        return SessionPage(rows, total, offset, limit, sessions)
    if indexed(source):
        rows = source.index.page(filters, limit, offset, order)
        if read:
            sessions = fetch_sessions(source, [r["id"] for r in rows], family=True)
        _fill_previews(source, rows)
    else:
        counted = _count_aside(source, filters) if limit and source.concurrent_queries else None
        roots = _page_roots(source, filters, order, limit, offset)
        sessions = fetch_sessions(source, roots, family=True)
        rows = [session_summary(sessions[r], sessions) for r in roots if r in sessions]
    if not (limit and (len(rows) == limit or offset)):
        total = offset + len(rows)
        if counted:
            # waited for all the same, so that no query is still going once the page is given
            _settle(counted)
    else:
        total = counted() if counted else count_sessions(source, filters)
    return SessionPage(rows, total, offset, limit, sessions)


def _settle(counted: Callable[[], int]) -> None:
    """Wait for a count that the page's own rows made needless; its error is not the page's."""
    try:
        counted()
    except SourceError:
        pass


# Pages up to this row are first asked for without grouping the rows by session (a row per
# session is the rule): Virtuoso sorts 86,365 top-level sessions without a GROUP BY in half the
# time (0.24 s of its CPU at 100,000 sessions against 0.51 s)
UNGROUPED_ROWS = 1000


def _page_roots(source: TraceSource, filters: SessionFilter, order: SessionOrder, limit: int, offset: int) -> list[str]:
    """The IRIs of the page's sessions, in ``order`` (one query, two where a session matches
    in more than one row). First the rows up to the page's last, ungrouped, when that is at
    most ``UNGROUPED_ROWS``: kept when no session comes twice; else the rows grouped by session
    (``_sparql_order``), which sorts a session with two values on one of them."""
    where = _where(filters, source.text_search, order)
    asked = "\n  OPTIONAL { ?root tg:query ?asked }" if order.key == "question" else ""

    def query(grouped: bool, page: str) -> list[str]:
        projected, order_by = _sparql_order(order, grouped)
        text = (PREFIXES + f"SELECT ?root WHERE {{ {{ SELECT ?root {projected} WHERE {{ "
                f"{where}\n  OPTIONAL {{ ?root prov:startedAtTime ?t }}{asked} }} "
                f"{'GROUP BY ?root ' if grouped else ''}}} }} {order_by} {page}")
        return [r["root"].value for r in source.select(text) if isinstance(r.get("root"), ox.NamedNode)]

    if limit and offset + limit <= UNGROUPED_ROWS:
        roots = query(False, f"LIMIT {int(offset + limit)}")
        if len(set(roots)) == len(roots):
            return roots[offset:]
    page = (f"LIMIT {int(limit)} " if limit else "") + (f"OFFSET {int(offset)}" if offset else "")
    return query(True, page)


def _count_aside(source: TraceSource, filters: SessionFilter) -> Callable[[], int]:
    """``count_sessions`` asked in a thread of its own, for a source that answers queries at
    once (``concurrent_queries``), while the page is read: the returned function waits for the
    count (and raises its SourceError)."""
    executor = ThreadPoolExecutor(max_workers=1)
    future = executor.submit(count_sessions, source, filters)
    executor.shutdown(wait=False)
    return future.result


def sort_keys(source: TraceSource) -> frozenset[str]:
    """The ``filter.SORT_KEYS`` the list can be sorted on at ``source``: every one on a store
    with a session index, "time" (newest first) on a source that lists its sessions itself (a
    TrustGraph gateway), ``SPARQL_SORT_KEYS`` elsewhere."""
    if source.lookup is not None:
        return frozenset({"time"})
    return frozenset(SORT_KEYS) if indexed(source) else SPARQL_SORT_KEYS


def text_search(source: TraceSource) -> TextSearch:
    """How the list's search box is answered at ``source`` (``search``): the full-text index of
    a store with a session index, else what the source says of itself (``text_search``)."""
    return INDEX_SEARCH if indexed(source) else source.text_search


def _fill_previews(source: TraceSource, rows: list[dict]) -> None:
    """Give the rows whose answer's text the summary was not read with its preview, from the
    source's texts (``entity_texts``: an inline answer, a content file, the documents graph),
    unless its index says its rows have every preview the store has a text for
    (``index_previews``: then the rest have none, and asking costs four look-ups a row) and the
    source holds no texts beside its store (``documents``, which the index may not have read)."""
    if not source.documents and source.index.previews_complete():
        return
    wanted = {r["answer_id"]: r for r in rows if r.get("answer_preview") is None and r.get("answer_id")}
    if wanted:
        for answer, text in source.entity_texts(wanted).items():
            wanted[answer]["answer_preview"] = answer_preview(text)


def find_session_ids(source: TraceSource, key: str, limit: int = 6) -> list[str]:
    """The IRIs of the sessions ``key`` may name, at most ``limit``: ``[key]`` when it is a
    session's IRI; else the sessions whose id (the part after ``urn:trustgraph:agent:`` and the
    like) starts with it, a UUID or its first characters; else those whose IRI contains it;
    each as typed, then ignoring case (``model.roots.named_by``). ``<IRI>`` is taken as the
    IRI. One query (on the session index where there is one). Raises SourceError when the
    source fails."""
    key = key.strip()
    if key.startswith("<") and key.endswith(">"):
        key = key[1:-1]
    if not key:
        return []
    if source.lookup is not None:
        return source.lookup.find(key)[:limit]
    if indexed(source):
        return source.index.find(key, limit)
    rows = source.select(PREFIXES + f"""SELECT DISTINCT ?root WHERE {{
  {{ ?root a tg:Question }} UNION {{ ?root tg:query ?q }}
  FILTER(CONTAINS(LCASE(STR(?root)), LCASE({literal(key)}))) }} ORDER BY ?root LIMIT 200""")
    return named_by(key, (r["root"].value for r in rows if "root" in r))[:limit]


def indexed_summary(source: TraceSource, session_id: str) -> dict | None:
    """The summary of session ``session_id`` from the source's session index, without reading
    the session (its size before it is opened); None when the source has no index or no row."""
    if source.lookup is not None:
        return source.lookup.summary(session_id)
    return source.index.summary(session_id) if indexed(source) else None


def unreached_sessions(source: TraceSource) -> int:
    """How many sub-sessions no top-level session of ``source`` reaches (a step of a session
    not in this source started them, or one of their parents): the list of top-level sessions
    does not show them; the list with sub-sessions does. As the index's last write counted them
    (``index_reach``); 0 for a source without a session index."""
    return (index_reach.unreached(source.index._query) or 0) if indexed(source) else 0


def indexed(source: TraceSource) -> bool:
    """Whether ``source`` answers from a session index it can use (a store with its index):
    the list, the counts, the stats and the health column then read the index, not the traces."""
    return isinstance(source, StoreSource) and source.index is not None and source.index.usable


def count_steps(source: TraceSource) -> int:
    """How many steps the source holds, as the session view counts them. On an indexed store,
    the sum of every session's steps; elsewhere: entities derived from another (or, in the seed
    shape, generated by a Question), without Questions, Thoughts and extraction provenance
    (documents, pages, sections, images, chunks, subgraphs). One query."""
    if source.lookup is not None:
        return source.lookup.steps()
    if indexed(source):
        return source.index.steps()
    rows = source.select(PREFIXES + """SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {
  { ?s prov:wasDerivedFrom ?from } UNION { ?s prov:wasGeneratedBy ?from . ?from a tg:Question }
  FILTER NOT EXISTS { ?s a ?kind . VALUES ?kind { tg:Question tg:Thought tg:Document tg:Page tg:Section
                                                  tg:Image tg:Chunk tg:Subgraph } } }""")
    return int(rows[0]["n"].value) if rows and "n" in rows[0] else 0
