"""The session list of a TrustGraph deployment: every session root with its question, time,
types and parent, fetched in one round of bulk requests; the list's order, filters and pages
worked out from them; and the rows of a page read by the reader like any other session.

Roots (TRACE-MODEL.md, "Sessions"): subjects typed ``tg:Question`` or a subtype, or with a
``tg:query`` on an IRI of TrustGraph's root shapes (``model.roots.is_root``). One triple
pattern per predicate gives them (``tg:query``, ``prov:startedAtTime``, each Question type),
all at once. Which of them are sub-sessions (a derivation from a step): with the SPARQL
service, a join it does inside the deployment (``?root tg:query ?q . ?root
prov:wasDerivedFrom ?o``); without it, every derivation in one answer, or, when there are more
than one answer holds (100,000), each root asked for its own properties.

Order: newest first, undated last, then by IRI (as ``session_index``). Filters on the
question, the IRI (and the other words of the sessions read so far), the parent and the
mechanism named by the root's type or IRI are decided from the roots; a pattern or status filter (or a mechanism only the steps tell) reads the
candidate sessions first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone

import pyoxigraph as ox

from ...model.literals import parse_time
from ...model.roots import ROOT_PREFIXES, SUBTYPES, is_root
from ...model.session import AGENT
from ...model.vocabulary import (AGENT_QUESTION, DOC_RAG_QUESTION, GRAPH_RAG_QUESTION, QUERY, QUESTION, RDF_TYPE,
                                 RETRIEVAL_GRAPH, STARTED_AT_TIME, WAS_DERIVED_FROM, WAS_GENERATED_BY)
from ..filter import SessionFilter
from ..search import matches
from ..source import SourceError
from ..sparql_text import PREFIXES
from .gateway import MAX_LIMIT, Gateway

QUESTION_TYPES = (QUESTION, GRAPH_RAG_QUESTION, DOC_RAG_QUESTION, AGENT_QUESTION)
SPARQL = "sparql"  # a job for the SPARQL service
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass
class RootInfo:
    """What the list knows of a session before reading it: its ``question``, ``time``, rdf
    ``types`` and ``parent`` (the step it derives from, or None)."""

    root: str
    question: str | None = None
    time: datetime | None = None
    types: set[str] = field(default_factory=set)
    parent: str | None = None

    @property
    def mechanism(self) -> str | None:
        """The mechanism the root's subtype or IRI names (``model.roots.mechanism_of``'s first
        two rules), or None when only the steps can tell."""
        for subtype, mechanism in SUBTYPES.items():
            if subtype in self.types:
                return mechanism
        for prefix, mechanism in ROOT_PREFIXES:
            if self.root.startswith(prefix):
                return mechanism
        return None

    def words(self) -> dict[str, str]:
        """What a search finds in a session not read yet (``model.words.session_words``'s
        fields): its question and its IRI."""
        return {"question": self.question or "", "iri": self.root}

    def order_key(self) -> tuple:
        """Newest first, undated last, then by IRI."""
        seconds = (self.time - _EPOCH).total_seconds() if self.time else 0.0
        return (self.time is None, -seconds, self.root)


def fetch_roots(gateway: Gateway, sparql: bool) -> dict[str, RootInfo]:
    """Every session root of the deployment's collection, by IRI. Raises SourceError."""
    patterns: list[tuple[str, str | None]] = [(QUERY, None), (STARTED_AT_TIME, None)]
    patterns += [(RDF_TYPE, t) for t in QUESTION_TYPES]
    # which roots derive from a step: with SPARQL a join the service does inside the deployment
    jobs = patterns + [(relation, SPARQL if sparql else None) for relation in (WAS_DERIVED_FROM, WAS_GENERATED_BY)]

    def ask(job):
        predicate, obj = job
        if obj is SPARQL:
            rows = gateway.sparql_select(PREFIXES + f"SELECT ?root ?o WHERE {{ ?root tg:query ?q . ?root <{predicate}> ?o }}")
            return [(r["root"].value, predicate, r["o"]) for r in rows
                    if isinstance(r.get("root"), ox.NamedNode) and "o" in r], False
        quads, cut = gateway.triples(p=ox.NamedNode(predicate), o=ox.NamedNode(obj) if obj else None,
                                     g=RETRIEVAL_GRAPH)
        return [(q.subject.value, predicate, q.object) for q in quads if isinstance(q.subject, ox.NamedNode)], cut

    answers = gateway.map(ask, jobs)
    cut = {job[0] for job, (_, truncated) in zip(jobs, answers) if truncated}
    if cut - {WAS_DERIVED_FROM, WAS_GENERATED_BY}:
        raise SourceError(f"{gateway.label}: more than {MAX_LIMIT:,} sessions answer one triple pattern; "
                          f"use a flow that runs the SPARQL service, or `trace-explorer sync` into a local store")
    properties: dict[str, list[tuple[str, object]]] = {}
    for found, _ in answers:
        for subject, predicate, obj in found:
            properties.setdefault(subject, []).append((predicate, obj))
    if cut:  # too many derivations to read at once: each root says whether it has a parent
        roots = [r for r, props in properties.items() if _is_root(r, props)]
        for root, (quads, _) in zip(roots, gateway.map(lambda r: gateway.triples(s=ox.NamedNode(r), g=RETRIEVAL_GRAPH),
                                                       roots)):
            properties[root] = [(q.predicate.value, q.object) for q in quads]
    return _infos(properties)


def _is_root(subject: str, props: list[tuple[str, object]]) -> bool:
    types = {o.value for p, o in props if p == RDF_TYPE and isinstance(o, ox.NamedNode)}
    return is_root(subject, types, any(p == QUERY for p, _ in props))


def _infos(properties: dict[str, list[tuple[str, object]]]) -> dict[str, RootInfo]:
    out: dict[str, RootInfo] = {}
    for subject, props in properties.items():
        if not _is_root(subject, props):
            continue
        info = RootInfo(subject, types={o.value for p, o in props if p == RDF_TYPE and isinstance(o, ox.NamedNode)})
        for predicate, obj in props:
            if predicate == QUERY and isinstance(obj, ox.Literal) and info.question is None:
                info.question = obj.value
            elif predicate == STARTED_AT_TIME and isinstance(obj, ox.Literal) and info.time is None:
                info.time = parse_time(obj.value)
        parents = [o.value for rel in (WAS_DERIVED_FROM, WAS_GENERATED_BY) for p, o in props
                   if p == rel and isinstance(o, (ox.NamedNode, ox.BlankNode))]
        info.parent = parents[0] if parents else None
        out[subject] = info
    return out


def candidates(roots: dict[str, RootInfo], filters: SessionFilter,
               words: Mapping[str, dict[str, str]] | None = None) -> tuple[list[RootInfo], bool]:
    """The roots ``filters`` may keep, in the list's order, and whether the sessions must be read
    to decide (a pattern or status filter, or a mechanism filter on a root whose type and IRI do
    not name its mechanism). A search looks in ``words`` (``model.words.session_words`` of the
    sessions read so far, by root), else in the root's question and IRI (``search.matches``)."""
    terms = filters.terms if filters.needle else None
    words = words or {}
    mechanisms = filters.mechanisms
    if filters.patterns and not mechanisms:
        mechanisms = (AGENT,)
    out, undecided = [], False
    for info in roots.values():
        if not filters.include_sub and info.parent is not None:
            continue
        if terms is not None and not (terms and matches(words.get(info.root) or info.words(), terms)):
            continue
        if mechanisms:
            mechanism = info.mechanism
            if mechanism is None:
                undecided = True
            elif mechanism not in mechanisms:
                continue
        out.append(info)
    out.sort(key=RootInfo.order_key)
    return out, undecided or bool(filters.patterns or filters.status)


def row_matches(row: dict, filters: SessionFilter) -> bool:
    """Whether a ``session_summary`` row passes the filters read from sessions (mechanism,
    pattern, status), as ``session_index`` filters its rows."""
    if filters.mechanisms and row["type"] not in filters.mechanisms:
        return False
    if filters.patterns and row["pattern"] not in filters.patterns:
        return False
    return not (filters.status and row["status"] != filters.status)
