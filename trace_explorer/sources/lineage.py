"""Extraction provenance read from a source (TRACE-MODEL.md, "Extraction provenance"), both
ways: from a chosen fact or chunk up to its document, and from a document down to everything
derived from it and the selections that chose what it holds.

A fact is found in the entity that holds it: a Subgraph that ``tg:contains`` it (TrustGraph's
extractors and its CLI, ``tg-show-explain-trace --show-provenance``) or a statement that
``tg:reifies`` it (older extractors, and what TrustGraph's workbench matches on); both are read.

Every query is a basic graph pattern over a ``VALUES`` list of at most ``BATCH`` terms, and a
chain is walked a level at a time (no property paths), so any SPARQL 1.1 server answers them
and a source that can only look triples up can serve them too. Values reach the query text
only through ``sparql_text`` (validated IRIs, escaped literals, triple terms).

Damaged literals (TRACE-MODEL.md, "Quoted triples", spelling 4): files and local stores recover
them when they are read; on any other source a fact not found as a triple term is looked for
among the literal objects of ``tg:contains`` / ``tg:reifies`` / ``tg:edge`` that mention its
subject's IRI, and recovered here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import pyoxigraph as ox

from ..model.roots import step_owner
from ..model.vocabulary import (CONTAINS, DOCUMENT, EDGE, REIFIES, SELECTED_CHUNK, WAS_ASSOCIATED_WITH,
                                WAS_DERIVED_FROM, WAS_GENERATED_BY)
from ..read.quoted_triples import triple_from_literal
from .source import TraceSource
from .sparql_text import PREFIXES, iri_batches, literal, term, values_clause
from .store import StoreSource

BATCH = 500  # terms in one VALUES list
MAX_LEVELS = 8  # fact holder -> chunk -> page -> document, each with its activity and agent
MAX_WALK = 64  # derivation steps walked from a selection up to its session (and its parents)
HOW = {CONTAINS: "contains", REIFIES: "reifies"}
HOLDING = (CONTAINS, REIFIES)
_UP = (WAS_DERIVED_FROM, WAS_GENERATED_BY, WAS_ASSOCIATED_WITH)


def _either(subject: str, predicates: tuple[str, ...], obj: str) -> str:
    """``subject ?p obj`` for each of ``predicates`` (IRIs), ``?p`` bound to the one that
    matched: a UNION of explicit patterns, which every engine answers from its indexes (two
    ``VALUES`` joined, or ``?p`` left open, are evaluated as scans by some)."""
    return " UNION ".join(f"{{ {subject} <{p}> {obj} BIND(<{p}> AS ?p) }}" for p in predicates)


def as_triple(value: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple | None) -> ox.Triple | None:
    """``value`` when it is a triple term; a damaged literal's triple when it parses; else None."""
    if isinstance(value, ox.Triple):
        return value
    if isinstance(value, ox.Literal):
        return triple_from_literal(value.value)
    return None


def may_hold_damaged(source: TraceSource) -> bool:
    """Whether quoted triples may sit in ``source`` as damaged literals: files and local stores
    recovered them when they were read; any other source keeps what it was given, unless it
    says it recovers them itself (an attribute ``recovers_damaged_literals`` set to True)."""
    return not isinstance(source, StoreSource) and not getattr(source, "recovers_damaged_literals", False)


def _batches(values: Iterable[str], size: int = BATCH) -> Iterator[list[str]]:
    values = list(values)
    for start in range(0, len(values), size):
        yield values[start:start + size]


def _iris(values: Iterable[str]) -> list[list[str]]:
    return list(iri_batches(sorted(set(values)), BATCH))


def chosen_edges(source: TraceSource, selections: Iterable[str]) -> dict[str, ox.Triple | ox.Literal]:
    """``{EdgeSelection IRI: its tg:edge}``: the triple term, or a damaged literal recovered
    (``as_triple``), or, when it does not parse, the literal as stored. Selections without a
    stored edge are left out."""
    out: dict[str, ox.Triple | ox.Literal] = {}
    for batch in _iris(selections):
        query = f"SELECT ?sel ?t WHERE {{ {values_clause('sel', batch)} ?sel tg:edge ?t }}"
        for row in source.select(PREFIXES + query):
            value = row.get("t")
            triple = as_triple(value)
            if triple is not None:
                out[row["sel"].value] = triple
            elif isinstance(value, ox.Literal):
                out.setdefault(row["sel"].value, value)
    return out


def holders(source: TraceSource, triples: Iterable[ox.Triple]) -> dict[ox.Triple, list[tuple[str, str]]]:
    """``{fact: [(holder IRI, "contains" | "reifies")]}`` for the facts some loaded extraction
    holds (a fact no extraction holds is left out), holders in IRI order."""
    wanted = sorted(set(triples), key=str)
    found: dict[ox.Triple, set[tuple[str, str]]] = {}
    if source.triple_terms:
        for batch in _batches([_term(t) for t in wanted if _term(t)]):
            rows = source.select(PREFIXES + f"SELECT ?h ?p ?t WHERE {{ {values_clause('t', batch)} "
                                            f"{_either('?h', HOLDING, '?t')} }}")
            for row in rows:
                if isinstance(row.get("h"), ox.NamedNode) and isinstance(row.get("t"), ox.Triple):
                    found.setdefault(row["t"], set()).add((row["h"].value, HOW[row["p"].value]))
    missing = [t for t in wanted if t not in found]
    if missing and may_hold_damaged(source):
        for holder, predicate, triple in _damaged(source, HOLDING, missing):
            found.setdefault(triple, set()).add((holder, HOW[predicate]))
    return {t: sorted(found[t]) for t in wanted if t in found}


def _term(triple: ox.Triple) -> str | None:
    try:
        return term(triple)
    except ValueError:  # a blank node cannot be named in a query
        return None


def _damaged(source: TraceSource, predicates: tuple[str, ...],
             wanted: list[ox.Triple]) -> Iterator[tuple[str, str, ox.Triple]]:
    """``(subject, predicate, triple)`` for the literal objects of ``predicates`` that name a
    wanted fact's subject and recover to one of the ``wanted`` facts. One query first: a source
    without such literals is not searched."""
    wanted_set = set(wanted)
    pattern = _either("?h", predicates, "?lit")
    if not source.select(PREFIXES + f"SELECT ?h WHERE {{ {pattern} FILTER(isLiteral(?lit)) }} LIMIT 1"):
        return
    needles = sorted({t.subject.value for t in wanted if isinstance(t.subject, ox.NamedNode)})
    for batch in _batches([literal(n) for n in needles]):
        rows = source.select(PREFIXES + f"SELECT ?h ?p ?lit WHERE {{ {values_clause('needle', batch)} "
                                        f"{pattern} FILTER(isLiteral(?lit) && CONTAINS(STR(?lit), ?needle)) }}")
        for row in rows:
            triple = as_triple(row.get("lit"))
            if triple in wanted_set and isinstance(row.get("h"), ox.NamedNode):
                yield row["h"].value, row["p"].value, triple


def describe_up(source: TraceSource, iris: Iterable[str]) -> list[ox.Triple]:
    """The triples about ``iris`` and about everything they derive from, were generated by or
    were associated with (``prov:wasDerivedFrom``, ``prov:wasGeneratedBy``,
    ``prov:wasAssociatedWith``), up to ``MAX_LEVELS`` levels: fact holder, chunk, page, document,
    each entity's activity and that activity's agent. The facts a holder holds are left out."""
    out: list[ox.Triple] = []
    seen: set[str] = set()
    frontier = set(iris)
    for _ in range(MAX_LEVELS):
        frontier -= seen
        if not frontier:
            break
        seen |= frontier
        found = []
        for batch in _iris(frontier):
            found += source.construct(PREFIXES + f"CONSTRUCT {{ ?x ?p ?o }} WHERE {{ {values_clause('x', batch)} "
                                                 f"?x ?p ?o FILTER(?p NOT IN (tg:contains, tg:reifies)) }}")
        out += found
        frontier = {t.object.value for t in found if t.predicate.value in _UP and isinstance(t.object, ox.NamedNode)}
    return out


def derived_from(source: TraceSource, documents: Iterable[str]) -> dict[str, str]:
    """``{entity: what it derives from}`` for everything that derives, through
    ``prov:wasDerivedFrom`` and up to ``MAX_LEVELS`` levels, from ``documents`` (their pages,
    sections, chunks and fact holders); each entity with the first parent met."""
    parent: dict[str, str] = {}
    frontier = set(documents)
    seen = set(frontier)
    for _ in range(MAX_LEVELS):
        found: set[str] = set()
        for batch in _iris(frontier):
            for row in source.select(PREFIXES + f"SELECT ?x ?up WHERE {{ {values_clause('up', batch)} "
                                                f"?x prov:wasDerivedFrom ?up }} ORDER BY ?x ?up"):
                x = row.get("x")
                if isinstance(x, ox.NamedNode) and x.value not in seen:
                    parent.setdefault(x.value, row["up"].value)
                    found.add(x.value)
        seen |= found
        frontier = found
        if not frontier:
            break
    return parent


def held_facts(source: TraceSource, entities: Iterable[str]) -> dict[ox.Triple, list[tuple[str, str]]]:
    """``{fact: [(holder, "contains" | "reifies")]}`` for the facts the ``entities`` hold
    (damaged literals recovered; one that does not parse is left out)."""
    found: dict[ox.Triple, set[tuple[str, str]]] = {}
    for batch in _iris(entities):
        for row in source.select(PREFIXES + f"SELECT ?h ?p ?t WHERE {{ {values_clause('h', batch)} "
                                            f"{_either('?h', HOLDING, '?t')} }}"):
            triple = as_triple(row.get("t"))
            if triple is not None:
                found.setdefault(triple, set()).add((row["h"].value, HOW[row["p"].value]))
    return {t: sorted(h) for t, h in found.items()}


def edge_selections(source: TraceSource, triples: Iterable[ox.Triple]) -> dict[str, ox.Triple]:
    """``{EdgeSelection IRI: fact}`` for every selection whose ``tg:edge`` is one of ``triples``."""
    wanted = sorted(set(triples), key=str)
    out: dict[str, ox.Triple] = {}
    if source.triple_terms:
        for batch in _batches([_term(t) for t in wanted if _term(t)]):
            query = f"SELECT ?sel ?t WHERE {{ {values_clause('t', batch)} ?sel tg:edge ?t }}"
            for row in source.select(PREFIXES + query):
                if isinstance(row.get("sel"), ox.NamedNode) and isinstance(row.get("t"), ox.Triple):
                    out[row["sel"].value] = row["t"]
    if wanted and may_hold_damaged(source):
        for selection, _, triple in _damaged(source, (EDGE,), wanted):
            out.setdefault(selection, triple)
    return out


def chunk_choosers(source: TraceSource, chunks: Iterable[str]) -> list[tuple[str, str, str]]:
    """``(chooser, "document" | "selectedChunk", chunk)`` for every entity that points at one of
    ``chunks``: a DocRAG ChunkSelection (``tg:document``) or an Exploration (``tg:selectedChunk``)."""
    out = []
    for batch in _iris(chunks):
        rows = source.select(PREFIXES + f"SELECT ?u ?p ?c WHERE {{ {values_clause('c', batch)} "
                                        f"{_either('?u', (DOCUMENT, SELECTED_CHUNK), '?c')} }}")
        out += [(r["u"].value, "document" if r["p"].value == DOCUMENT else "selectedChunk", r["c"].value)
                for r in rows if isinstance(r.get("u"), ox.NamedNode)]
    return sorted(set(out))


@dataclass(frozen=True)
class Chain:
    """Where an entity sits: ``step``, the first entity above it (the step that chose a
    selection), and ``roots``, the session roots met on the way up, nearest first."""

    step: str | None
    roots: tuple[str, ...]


def session_chains(source: TraceSource, starts: Iterable[str]) -> dict[str, Chain]:
    """For each entity of ``starts`` (a selection, a Focus, an Exploration), its ``Chain``: the
    session that holds it first, then the session whose step that session derives from, and so
    on to the top. A selection goes up to the step that chose it (``tg:selectedEdge`` /
    ``tg:selectedChunk``), a step to what it derives from; an agent or DocRAG step jumps to the
    root its IRI extends (``model.roots.step_owner``), so a long agent run is not walked step by
    step. At most ``MAX_WALK`` levels, one query per level (and per ``BATCH`` entities)."""
    starts = list(starts)
    ups: dict[str, list[str]] = {}
    roots: set[str] = set()
    frontier = set(starts)
    for _ in range(MAX_WALK):
        frontier = {n for n in frontier if n not in ups}
        if not frontier:
            break
        for batch in _iris(frontier):
            rows = source.select(PREFIXES + f"""SELECT ?x ?up ?q WHERE {{ {values_clause('x', batch)}
  {{ ?x prov:wasDerivedFrom ?up }} UNION {{ ?x prov:wasGeneratedBy ?up }} UNION {{ ?up tg:selectedEdge ?x }}
  UNION {{ ?up tg:selectedChunk ?x }} UNION {{ ?x tg:query ?q }} }}""")
            for row in rows:
                node = row["x"].value
                if "q" in row:
                    roots.add(node)
                elif isinstance(row.get("up"), ox.NamedNode):
                    ups.setdefault(node, []).append(row["up"].value)
        for node in frontier:
            ups[node] = sorted(set(ups.get(node, [])))
        frontier = {nxt for node in frontier for nxt in [_next(node, ups, roots)] if nxt}
    chains = {}
    for start in starts:
        found, node, seen = [], start, set()
        while node and node not in seen:
            seen.add(node)
            if node in roots:
                found.append(node)
            node = _next(node, ups, roots)
        chains[start] = Chain((ups.get(start) or [None])[0], tuple(found))
    return chains


def _next(node: str, ups: dict[str, list[str]], roots: set[str]) -> str | None:
    owner = step_owner(node)
    if node not in roots and owner and owner != node:
        return owner
    parents = ups.get(node) or []
    return parents[0] if parents else None


def session_facts(source: TraceSource, roots: Iterable[str]) -> dict[str, dict[str, str]]:
    """``{root: {"question", "time"}}`` (values as stored, or absent) for session roots."""
    out: dict[str, dict[str, str]] = {}
    for batch in _iris(roots):
        rows = source.select(PREFIXES + f"""SELECT ?x ?q ?t WHERE {{ {values_clause('x', batch)}
  OPTIONAL {{ ?x tg:query ?q }} OPTIONAL {{ ?x prov:startedAtTime ?t }} }}""")
        for row in rows:
            facts = out.setdefault(row["x"].value, {})
            if "q" in row:
                facts.setdefault("question", row["q"].value)
            if "t" in row:
                facts.setdefault("time", row["t"].value)
    return out


def list_documents(source: TraceSource, limit: int = 0, offset: int = 0) -> list[dict[str, str | None]]:
    """The documents of the extraction provenance (``tg:Document``), by title then IRI: each
    ``{"id", "title", "mime_type", "page_count"}`` (values as stored; None when absent).
    ``limit`` 0 means all."""
    page = (f" LIMIT {int(limit)}" if limit else "") + (f" OFFSET {int(offset)}" if offset else "")
    rows = source.select(PREFIXES + f"""SELECT ?doc ?t ?l ?m ?n WHERE {{
  {{ SELECT ?doc (SAMPLE(?title) AS ?t) (SAMPLE(?label) AS ?l) (SAMPLE(?mime) AS ?m) (SAMPLE(?pages) AS ?n)
    WHERE {{ ?doc a tg:Document OPTIONAL {{ ?doc dc:title ?title }} OPTIONAL {{ ?doc rdfs:label ?label }}
             OPTIONAL {{ ?doc tg:mimeType ?mime }} OPTIONAL {{ ?doc tg:pageCount ?pages }} }} GROUP BY ?doc }}
}} ORDER BY LCASE(STR(COALESCE(?t, ?l, STR(?doc)))) ?doc{page}""")
    return [{"id": r["doc"].value,
             "title": (r.get("t") or r.get("l")).value if (r.get("t") or r.get("l")) else None,
             "mime_type": r["m"].value if "m" in r else None,
             "page_count": r["n"].value if "n" in r else None}
            for r in rows if isinstance(r.get("doc"), ox.NamedNode)]

