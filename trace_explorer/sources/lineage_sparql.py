"""The lineage lookups (``lineage.LineageLookups``) as SPARQL queries: files, the local store
and any SPARQL 1.1 endpoint.

Every query is a basic graph pattern over a ``VALUES`` list of at most ``BATCH`` terms (no
property paths), so any SPARQL 1.1 server answers them. Values reach the query text only
through ``sparql_text`` (validated IRIs, escaped literals, triple terms).

Damaged literals: files and local stores recovered them when they were read; on any other
source a fact not found as a triple term is looked for among the literal objects of
``tg:contains`` / ``tg:reifies`` / ``tg:edge`` that mention its subject's IRI, and recovered.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

import pyoxigraph as ox

from ..model.vocabulary import DOCUMENT, SELECTED_CHUNK
from .lineage import HOLDING, LineageLookups, Value, as_triple
from .sparql_text import PREFIXES, iri_batches, literal, term, values_clause


class SparqlAnswering(Protocol):
    """What these lookups ask of a source (``source.TraceSource`` gives it, and hands itself in
    from its ``lineage()``): SPARQL SELECT and CONSTRUCT, whether it holds triple terms, and
    whether damaged quoted triples were recovered as it was read."""

    triple_terms: bool
    recovers_damaged_literals: bool

    def select(self, query: str) -> list[dict]: ...

    def construct(self, query: str) -> list[ox.Triple]: ...

BATCH = 500  # terms in one VALUES list


def _either(subject: str, predicates: tuple[str, ...], obj: str) -> str:
    """``subject ?p obj`` for each of ``predicates`` (IRIs), ``?p`` bound to the one that
    matched: a UNION of explicit patterns, which every engine answers from its indexes (two
    ``VALUES`` joined, or ``?p`` left open, are evaluated as scans by some)."""
    return " UNION ".join(f"{{ {subject} <{p}> {obj} BIND(<{p}> AS ?p) }}" for p in predicates)


def may_hold_damaged(source: SparqlAnswering) -> bool:
    """Whether quoted triples may sit in ``source`` as damaged literals: files and local stores
    recovered them when they were read (``TraceSource.recovers_damaged_literals``); any other
    source keeps what it was given."""
    return not source.recovers_damaged_literals


def _batches(values: Iterable[str], size: int = BATCH) -> Iterator[list[str]]:
    values = list(values)
    for start in range(0, len(values), size):
        yield values[start:start + size]


def _iris(values: Iterable[str]) -> list[list[str]]:
    return list(iri_batches(sorted(set(values)), BATCH))


def _term(triple: ox.Triple) -> str | None:
    try:
        return term(triple)
    except ValueError:  # a blank node cannot be named in a query
        return None


class SparqlLineage(LineageLookups):
    """The lineage lookups of ``source`` (files, a store, an endpoint), each a SPARQL query per
    ``BATCH`` terms."""

    def __init__(self, source: SparqlAnswering):
        self.source = source

    def _select(self, query: str) -> list[dict[str, Value]]:
        return self.source.select(PREFIXES + query)

    def _edge_values(self, selections: list[str]) -> list[tuple[str, Value]]:
        out = []
        for batch in _iris(selections):
            rows = self._select(f"SELECT ?sel ?t WHERE {{ {values_clause('sel', batch)} ?sel tg:edge ?t }}")
            out += [(row["sel"].value, row["t"]) for row in rows if "t" in row]
        return out

    def _holding(self, facts: list[ox.Triple]) -> list[tuple[str, str, ox.Triple]]:
        if not self.source.triple_terms:
            return []
        out = []
        for batch in _batches([_term(t) for t in facts if _term(t)]):
            rows = self._select(f"SELECT ?h ?p ?t WHERE {{ {values_clause('t', batch)} {_either('?h', HOLDING, '?t')} }}")
            out += [(row["h"].value, row["p"].value, row["t"]) for row in rows
                    if isinstance(row.get("h"), ox.NamedNode) and isinstance(row.get("t"), ox.Triple)]
        return out

    def _damaged(self, predicates: tuple[str, ...], facts: list[ox.Triple]) -> Iterator[tuple[str, str, ox.Triple]]:
        """The literal objects of ``predicates`` that name a wanted fact's subject and recover to
        one of ``facts``. One query first: a source without such literals is not searched."""
        if not may_hold_damaged(self.source):
            return
        wanted = set(facts)
        pattern = _either("?h", predicates, "?lit")
        if not self._select(f"SELECT ?h WHERE {{ {pattern} FILTER(isLiteral(?lit)) }} LIMIT 1"):
            return
        needles = sorted({t.subject.value for t in wanted if isinstance(t.subject, ox.NamedNode)})
        for batch in _batches([literal(n) for n in needles]):
            rows = self._select(f"SELECT ?h ?p ?lit WHERE {{ {values_clause('needle', batch)} "
                                f"{pattern} FILTER(isLiteral(?lit) && CONTAINS(STR(?lit), ?needle)) }}")
            for row in rows:
                triple = as_triple(row.get("lit"))
                if triple in wanted and isinstance(row.get("h"), ox.NamedNode):
                    yield row["h"].value, row["p"].value, triple

    def _describe(self, iris: list[str]) -> list[ox.Triple]:
        found: list[ox.Triple] = []
        for batch in _iris(iris):
            found += self.source.construct(PREFIXES + f"CONSTRUCT {{ ?x ?p ?o }} WHERE {{ {values_clause('x', batch)} "
                                                      f"?x ?p ?o FILTER(?p NOT IN (tg:contains, tg:reifies)) }}")
        return found

    def _derived(self, iris: list[str]) -> list[tuple[str, str]]:
        out = []
        for batch in _iris(iris):
            rows = self._select(f"SELECT ?x ?up WHERE {{ {values_clause('up', batch)} ?x prov:wasDerivedFrom ?up }}")
            out += [(row["x"].value, row["up"].value) for row in rows if isinstance(row.get("x"), ox.NamedNode)]
        return out

    def _held(self, entities: list[str]) -> list[tuple[str, str, Value]]:
        out = []
        for batch in _iris(entities):
            rows = self._select(f"SELECT ?h ?p ?t WHERE {{ {values_clause('h', batch)} {_either('?h', HOLDING, '?t')} }}")
            out += [(row["h"].value, row["p"].value, row["t"]) for row in rows if "t" in row]
        return out

    def _selecting(self, facts: list[ox.Triple]) -> list[tuple[str, ox.Triple]]:
        if not self.source.triple_terms:
            return []
        out = []
        for batch in _batches([_term(t) for t in facts if _term(t)]):
            rows = self._select(f"SELECT ?sel ?t WHERE {{ {values_clause('t', batch)} ?sel tg:edge ?t }}")
            out += [(row["sel"].value, row["t"]) for row in rows
                    if isinstance(row.get("sel"), ox.NamedNode) and isinstance(row.get("t"), ox.Triple)]
        return out

    def _links_up(self, nodes: list[str], chosen: set[str]) -> tuple[list[tuple[str, str]], set[str]]:
        links, roots = [], set()
        for batch in _iris(nodes):
            rows = self._select(f"""SELECT ?x ?up ?q ?chose WHERE {{ {values_clause('x', batch)}
  {{ ?x prov:wasDerivedFrom ?up }} UNION {{ ?x prov:wasGeneratedBy ?up }}
  UNION {{ ?up tg:selectedEdge ?x BIND(true AS ?chose) }} UNION {{ ?up tg:selectedChunk ?x BIND(true AS ?chose) }}
  UNION {{ ?x tg:query ?q }} }}""")
            for row in rows:
                node = row["x"].value
                if "q" in row:
                    roots.add(node)
                elif isinstance(row.get("up"), ox.NamedNode) and ("chose" not in row or node in chosen):
                    links.append((node, row["up"].value))
        return links, roots

    def chunk_choosers(self, chunks: Iterable[str]) -> list[tuple[str, str, str]]:
        out = []
        for batch in _iris(chunks):
            rows = self._select(f"SELECT ?u ?p ?c WHERE {{ {values_clause('c', batch)} "
                                f"{_either('?u', (DOCUMENT, SELECTED_CHUNK), '?c')} }}")
            out += [(r["u"].value, "document" if r["p"].value == DOCUMENT else "selectedChunk", r["c"].value)
                    for r in rows if isinstance(r.get("u"), ox.NamedNode)]
        return sorted(set(out))

    def session_facts(self, roots: Iterable[str]) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {}
        for batch in _iris(roots):
            rows = self._select(f"""SELECT ?x ?q ?t WHERE {{ {values_clause('x', batch)}
  OPTIONAL {{ ?x tg:query ?q }} OPTIONAL {{ ?x prov:startedAtTime ?t }} }}""")
            for row in rows:
                facts = out.setdefault(row["x"].value, {})
                if "q" in row:
                    facts.setdefault("question", row["q"].value)
                if "t" in row:
                    facts.setdefault("time", row["t"].value)
        return out

    def list_documents(self, limit: int = 0, offset: int = 0) -> list[dict[str, str | None]]:
        page = (f" LIMIT {int(limit)}" if limit else "") + (f" OFFSET {int(offset)}" if offset else "")
        rows = self._select(f"""SELECT ?doc ?t ?l ?m ?n WHERE {{
  {{ SELECT ?doc (SAMPLE(?title) AS ?t) (SAMPLE(?label) AS ?l) (SAMPLE(?mime) AS ?m) (SAMPLE(?pages) AS ?n)
    WHERE {{ ?doc a tg:Document OPTIONAL {{ ?doc dc:title ?title }} OPTIONAL {{ ?doc rdfs:label ?label }}
             OPTIONAL {{ ?doc tg:mimeType ?mime }} OPTIONAL {{ ?doc tg:pageCount ?pages }} }} GROUP BY ?doc }}
}} ORDER BY LCASE(STR(COALESCE(?t, ?l, STR(?doc)))) ?doc{page}""")
        return [{"id": r["doc"].value,
                 "title": (r.get("t") or r.get("l")).value if (r.get("t") or r.get("l")) else None,
                 "mime_type": r["m"].value if "m" in r else None,
                 "page_count": r["n"].value if "n" in r else None}
                for r in rows if isinstance(r.get("doc"), ox.NamedNode)]
