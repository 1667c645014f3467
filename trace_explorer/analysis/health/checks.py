"""Trace health: every problem a session's trace has, named by a stable rule id (``rules``), on
the step (or the session) and the triple behind it.

A batch of sessions is checked from any source (files, a local store, a SPARQL endpoint) by a few
queries: their triples (``sources.fetch.session_triples``), the texts their ``tg:document`` IRIs
point at, and a description of what they derive from outside themselves. Then:

- the reader's problems (``model.problems``: values that do not parse, a cycle, a root without
  types, a shared step) are taken as the reader found them;
- the SHACL shapes (``shapes/``, checked in code by ``analysis.health.shape_checks``, exactly as
  pyshacl runs them through ``analysis.health.shacl``) check types, quoted triples, derivation
  targets and texts;
- code checks what needs a session as a whole: steps no derivation reaches, a child session
  that starts before its parent, a session without an answer, sentences of the answer nothing
  in the trace supports (``analysis.support``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pyoxigraph as ox

from ...index.catalog import indexed
from ...model.problems import SHARED_STEP, triple_text
from ...model.reader import SessionReader
from ...model.session import Session
from ...model.triple_index import TripleIndex
from ...model.vocabulary import DOCUMENT, PROV, QUERY, RDF_TYPE, STARTED_AT_TIME, WAS_DERIVED_FROM, WAS_GENERATED_BY
from ...read.diagnosis import clip
from ...sources.fetch import queried_roots, session_triples
from ...sources.source import TraceSource
from ...sources.sparql_text import PREFIXES, iri_batches, is_iri, literal, values_clause
from ...sources.store_source import StoreSource
from ..support.bounded import Supports, supports_here
from ..support.evidence import members, unread_chunks
from . import shacl, shape_checks
from .finding import Finding
from .mending import finding_wants, session_wants
from .rules import DANGLING_DERIVATION, SEVERITIES, UNFINISHED, UNKNOWN_TYPE, severity_rank
from .session_rules import (
    _finding,
    _reader_findings,
    _time_before_parent,
    _unparsed_replies,
    _unreachable,
    _unsupported_sentences,
)

BATCH = 200  # sessions checked together (one fetch, one run of the shapes)
_DESCRIBING = frozenset({RDF_TYPE, QUERY, WAS_DERIVED_FROM, WAS_GENERATED_BY, STARTED_AT_TIME})


def check_sessions(source: TraceSource, roots: list[str], extending: dict[str, list[str]] | None = None,
                   triples_of: Callable[[list[str]], list[ox.Triple | ox.Quad]] | None = None,
                   supports: Supports = supports_here) -> list[Finding]:
    """The findings of the sessions ``roots`` (root IRIs; those the source does not have are
    left out), sorted by session, then severity, then step. ``extending``: the typed entities
    whose IRI extends each root (``entities_under``; found here when not given).
    ``triples_of(roots)``: the sessions' own triples, as ``fetch.session_triples`` reads them
    from ``source``, or as quads (graph names are not read) (by default it is asked;
    ``store.written_triples`` has them in memory after an ingest into an empty store).
    ``supports``: what checks the answers' support (``analysis.support.bounded``: in this process
    by default; the app sends a visitor's traces to a worker process under a deadline). Raises
    SourceError when the source fails."""
    return read_and_check(source, roots, extending, triples_of, supports)[1]


def read_and_check(source: TraceSource, roots: list[str], extending: dict[str, list[str]] | None = None,
                   triples_of: Callable[[list[str]], list[ox.Triple | ox.Quad]] | None = None,
                   supports: Supports = supports_here) -> tuple[dict[str, Session], list[Finding]]:
    """``check_sessions``, with the sessions it read to check them: ``(sessions, findings)``,
    ``sessions`` by root in the order of ``roots`` (each with its graph as ``model.reader.Links``,
    the texts behind its ``tg:document`` IRIs and every entity its IRI owns, reached or not), so
    one read serves the session index as well (``index.HealthInPass``)."""
    roots = [r for r in roots if is_iri(r)]
    if not roots:
        return {}, []
    index = TripleIndex(triples_of(roots) if triples_of is not None else session_triples(source, roots))
    extending = extending if extending is not None else entities_under(source, roots)
    unreached = sorted({e for r in roots for e in extending.get(r, ()) if e not in index})
    for chunk in iri_batches(unreached):  # steps no derivation reaches: fetched by their IRI
        index.add(source.construct(PREFIXES + f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ {values_clause('s', chunk)} ?s ?p ?o }}"))
    documents = source.document_texts(o.value for properties in index.properties.values()
                                      for o in properties.get(DOCUMENT, ()) if isinstance(o, ox.NamedNode))
    reader = SessionReader(index, documents, graphs=False, links=True)
    wanted = [r for r in roots if r in reader.roots]
    sessions = {r: reader.read(r) for r in wanted}
    context = _describe_outside(source, index)
    family = _with_sub_sessions(reader, sessions)
    chunks = source.document_texts({c for s in sessions.values() if s.answer for c in unread_chunks(s, family)})
    answered = [s for s in sessions.values() if s.answer]
    checked = dict(zip((s.id for s in answered), supports([
        (s, {c: chunks[c] for c in unread_chunks(s, family) if c in chunks},
         {m.id: m for m in members(s, family)}) for s in answered])))
    found: list[Finding] = []
    for session in sessions.values():
        found += _reader_findings(session)
        found += _unreachable(session)
        if not session.has_answer:
            found.append(_finding(UNFINISHED, session.id, None, "no Conclusion or final Synthesis: the session "
                                                                "did not reach an answer"))
        found += _unparsed_replies(session)
        found += _unsupported_sentences(session, chunks, checked.get(session.id), family)
    found += _shape_findings(context, documents, index, reader, set(wanted))
    found += _time_before_parent(source, sessions, reader)
    # the reader says a step "also derives from" what nothing describes: that is the dangling derivation
    dangling = {f.triple for f in found if f.rule == DANGLING_DERIVATION}
    found = [f for f in found if not (f.rule == SHARED_STEP and f.triple in dangling)]
    return sessions, sorted(set(found), key=_order(sessions))


def check_source(source: TraceSource, roots: Iterable[str] | None = None, *, batch: int = BATCH,
                 progress: Callable[[int], None] | None = None) -> Iterator[Finding]:
    """The findings of every session of ``source`` (sub-sessions included), or of ``roots``,
    ``batch`` sessions at a time; ``progress(n)`` after each batch of ``n`` sessions."""
    roots = sorted(roots) if roots is not None else all_roots(source)
    extending = entities_under(source, roots, scan=len(roots) > batch)
    for start in range(0, len(roots), batch):
        chunk = roots[start:start + batch]
        yield from check_sessions(source, chunk, extending)
        if progress is not None:
            progress(len(chunk))


def all_roots(source: TraceSource) -> list[str]:
    """Every session root of ``source`` in IRI order: from its session index when it has one,
    else one query."""
    if indexed(source):
        return sorted(source.index.roots())
    return queried_roots(source)


def entities_under(source: TraceSource, roots: list[str], *, scan: bool = False,
                   typed: Iterable[str] | None = None, from_index: bool = True) -> dict[str, list[str]]:
    """The typed entities whose IRI extends a root of ``roots`` (``{root}/...``: TRACE-MODEL.md,
    "Agent patterns"), by root: what no derivation may reach. A few roots are looked up by
    their prefix on an endpoint; on a pyoxigraph store whose session index keeps every typed
    IRI of the store (``index.typed``; ``from_index`` False: not used), by one indexed
    range a root (a few milliseconds for a few roots, whatever the store's size); else, with
    ``scan``, or on a pyoxigraph store (where a prefix filter reads every typed IRI anyway),
    every typed IRI holding a "/" is read once: about 5 s at 10,000 sessions (13 s at 100,000),
    so one scan serves a whole lint or index refresh. ``typed``: every typed IRI of the source
    holding a "/", known already (``store.written_triples``): no query then. The same entities
    either way; each root's in the order found."""
    if typed is None and from_index and isinstance(source, StoreSource) and _keeps_typed(source.index):
        typed = dict.fromkeys(source.index.typed_under(roots))  # an IRI under two roots is read twice
    scan = scan or isinstance(source, StoreSource)
    wanted = set(roots)
    out: dict[str, list[str]] = {}

    def add(subject: str) -> None:
        owner = owning_root(subject, wanted)
        if owner is not None:
            out.setdefault(owner, []).append(subject)

    if typed is not None:
        for subject in typed:
            add(subject)
        return out
    if scan:
        queries = [PREFIXES + 'SELECT DISTINCT ?s WHERE { ?s a ?t FILTER(isIRI(?s) && CONTAINS(STR(?s), "/")) }']
    else:
        queries = [PREFIXES + "SELECT DISTINCT ?s WHERE { ?s a ?t FILTER(isIRI(?s) && ("
                   + " || ".join(f"STRSTARTS(STR(?s), {literal(r + '/')})" for r in roots[i:i + 50]) + ")) }"
                   for i in range(0, len(roots), 50)]
    for query in queries:
        for row in source.select(query):
            if isinstance(row.get("s"), ox.NamedNode):
                add(row["s"].value)
    return out


def _keeps_typed(index) -> bool:
    """True when ``index`` (a source's session index, or None) keeps every typed IRI of its
    store: marked so, and no write pending (``write_journal``: a write that failed after its
    quads went in, whose rows never came; its quads are in the store, not in the table, until the
    next writer undoes it, after which the table is the store's again)."""
    return index is not None and index.usable and index.typed_complete() and index.pending_write() is None


def owning_root(subject: str, roots: set[str]) -> str | None:
    """The root of ``roots`` whose IRI ``subject`` extends (``{root}/...``), the longest one, or None."""
    cut = subject.rfind("/")
    while cut > 0:
        if subject[:cut] in roots:
            return subject[:cut]
        cut = subject.rfind("/", 0, cut)
    return None


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    """``{"error": n, "warning": n, "info": n}``."""
    out = dict.fromkeys(SEVERITIES, 0)
    for finding in findings:
        out[finding.severity] += 1
    return out


def summaries(roots: Iterable[str], findings: Iterable[Finding]) -> dict[str, dict[str, Any]]:
    """Per session of ``roots``: ``{"error", "warning", "info": counts, "rules": sorted rule ids,
    "wants": what another file could add to mend its findings}`` (``mending.session_wants``: a
    clean session has zeros, no rules and wants "")."""
    out = {r: {**dict.fromkeys(SEVERITIES, 0), "rules": set(), "wants": []} for r in roots}
    for finding in findings:
        row = out.setdefault(finding.session, {**dict.fromkeys(SEVERITIES, 0), "rules": set(), "wants": []})
        row[finding.severity] += 1
        row["rules"].add(finding.rule)
        row["wants"].append(finding_wants(finding.rule, finding.triple, finding.wants))
    return {r: {**row, "rules": sorted(row["rules"]), "wants": session_wants(row["wants"])} for r, row in out.items()}


def _with_sub_sessions(reader: SessionReader, sessions: dict[str, Session]) -> dict[str, Session]:
    """``sessions`` and every sub-session of theirs at any depth, read from ``reader`` (whose
    triples hold them: ``fetch.session_triples`` follows derivations into sub-sessions), by IRI:
    the texts of a sub-session back its parent's answer (``support.evidence.session_sources``)."""
    family = dict(sessions)
    queue = [c for s in sessions.values() for c in s.children]
    while queue:
        child = queue.pop()
        if child in family or child not in reader.roots:
            continue
        family[child] = reader.read(child)
        queue.extend(family[child].children)
    return family


def _describe_outside(source: TraceSource, index: TripleIndex) -> list[ox.Triple]:
    """What the entities the sessions derive from, outside the sessions' own triples (``index``),
    are: their types, questions, derivations and start times (so a derivation to another
    session's step is not taken for a dangling one)."""
    outside = sorted(target for target in index.derived_targets() if target not in index)
    out: list[ox.Triple] = []
    for chunk in iri_batches(outside):
        found = source.construct(PREFIXES + f"CONSTRUCT {{ ?x ?p ?o }} WHERE {{ {values_clause('x', chunk)} ?x ?p ?o }}")
        out += [t for t in found if t.predicate.value in _DESCRIBING]
    return out


def _shape_findings(context: list[ox.Triple], documents: dict[str, str], index: TripleIndex,
                    reader: SessionReader, checked: set[str]) -> list[Finding]:
    """Run the shapes over the sessions' triples (``index``), what they derive from
    (``context``) and the texts they point at (``documents``); each violation on the entity of
    a checked session it concerns."""
    out = []
    for result in shape_checks.check_indexed(index, context, documents):
        for entity, message, triple in _located(result, index):
            owner = reader.membership.owner_of(entity)
            if owner in checked:
                out.append(Finding(result.rule, result.severity, owner, entity, message, triple))
    return out


def _located(result: shacl.ShapeResult, index: TripleIndex) -> list[tuple[str, str, str | None]]:
    """``(entity, message, triple)`` for each entity a shape result is about: the focus node
    itself, the entities typed with an unknown class, or those deriving from a dangling target."""
    if result.rule == UNKNOWN_TYPE:
        typed = [s for s in index.properties if result.focus in index.types(s)]
        return [(s, f"typed {result.focus}, {result.message}", triple_text(s, RDF_TYPE, result.focus)) for s in typed]
    if result.rule == DANGLING_DERIVATION:
        return [(child, f"derives from {result.focus}, which nothing loaded describes",
                 triple_text(child, PROV + relation, result.focus))
                for child, relation in index.children.get(result.focus, ()) if relation == "wasDerivedFrom"]
    shown = "" if result.value is None else (result.value.value if isinstance(result.value, (ox.Literal, ox.NamedNode)) else str(result.value))
    triple = triple_text(result.focus, result.path, result.value) if result.path and result.value is not None else None
    return [(result.focus, f"{result.message}: {clip(shown, 120)}" if shown else result.message, triple)]


# -- helpers ---------------------------------------------------------------------------------------
def _order(sessions: dict[str, Session]):
    places = {s.id: {n: i for i, n in enumerate(s.order)} for s in sessions.values()}

    def key(finding: Finding):
        place = places.get(finding.session, {}).get(finding.step, -1 if finding.step is None else 10**9)
        return (finding.session, severity_rank(finding.severity), place, finding.step or "", finding.rule, finding.message)
    return key
