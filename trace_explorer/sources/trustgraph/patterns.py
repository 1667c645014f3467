"""Rounds of triple patterns asked of a TrustGraph gateway at once (its API: ``trustgraph.gateway``).

A round is any number of patterns, each with one term bound (a subject, or an object) or none,
a predicate or none, and a graph. They are answered together, concurrently, in as few
requests as the deployment allows:

- more than ``SCAN_ABOVE`` patterns of one predicate and graph are answered by reading that
  predicate whole once (one request instead of hundreds), asking for at most ``SCAN_FACTOR``
  triples a pattern: a predicate used more often than that comes back cut, and its patterns
  are then looked up as below, in a second round (so a large collection costs at most that
  many triples more than the patterns alone);
- the patterns on one term in one graph are one lookup, whatever predicates they name;
- with the flow's SPARQL service, the lookups bound to an IRI go as one query per predicate
  (or none), position and 500 terms: ``SELECT ?s ?o WHERE { ?s <p> ?o VALUES ?s { ... } }``, a
  basic graph pattern joined to ``VALUES``, which TrustGraph's service evaluates by one lookup a
  term inside the deployment (``trustgraph-flow/.../query/sparql/algebra.py``: a bind join);
  it applies no graph, so such an answer is the union of every graph;
- a lookup whose answer holds quoted triples we need (``quoted``), or one bound to a quoted
  triple, goes through the triples service: quoted triples do not travel through TrustGraph's
  SPARQL (its parser, rdflib's, has no triple terms);
- every other lookup is one request of the triples service.

Nothing sleeps and nothing is asked twice within a round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import pyoxigraph as ox

from .gateway import MAX_LIMIT, Gateway

SCAN_ABOVE = 100  # patterns of one predicate and graph above which the predicate is read whole
SCAN_FACTOR = 20  # triples asked for a pattern when its predicate is read whole
SPARQL_BATCH = 500  # terms in one VALUES list
Term = ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple


@dataclass(frozen=True)
class Pattern:
    """A triple pattern: ``s`` (an IRI) or ``o`` (any term) bound, or neither; ``p`` an IRI or
    None (any); ``g`` TrustGraph's graph (None: the default graph). ``quoted``: its answer's
    quoted triples are wanted (so it is never asked through SPARQL)."""

    s: ox.NamedNode | None = None
    p: ox.NamedNode | None = None
    o: Term | None = None
    g: str | None = None
    quoted: bool = False

    @property
    def at(self) -> str | None:
        """Which position is bound: "s", "o" or None."""
        return "s" if self.s is not None else "o" if self.o is not None else None

    @property
    def key(self) -> Term | None:
        """The bound term."""
        return self.s if self.s is not None else self.o


def named(value: str) -> ox.NamedNode | None:
    """``value`` as an IRI term, None when it is not a valid IRI (no such entity can be stored)."""
    try:
        return ox.NamedNode(value)
    except ValueError:
        return None


def about(entity: str, g: str | None, p: str | None = None, quoted: bool = False) -> Pattern | None:
    """``<entity> <p> ?o`` (``p`` None: any predicate) in graph ``g``; None for a bad IRI."""
    node = named(entity)
    return Pattern(s=node, p=ox.NamedNode(p) if p else None, g=g, quoted=quoted) if node else None


def into(p: str, value: str | Term, g: str | None, quoted: bool = False) -> Pattern | None:
    """``?s <p> value`` in graph ``g`` (``value`` an IRI string or a term); None for a bad IRI."""
    term = named(value) if isinstance(value, str) else value
    return Pattern(p=ox.NamedNode(p), o=term, g=g, quoted=quoted) if term is not None else None


class PatternRounds:
    """Answers rounds of ``Pattern`` from ``gateway``; ``sparql()`` says whether the flow's
    SPARQL service is used (asked only when a round could use it). ``asked`` counts the
    rounds."""

    def __init__(self, gateway: Gateway, sparql: Callable[[], bool]):
        self.gateway = gateway
        self._sparql = sparql
        self.asked = 0

    def ask(self, patterns: Iterable[Pattern | None]) -> dict[Pattern, list[ox.Quad]]:
        """``{pattern: its quads}`` for every pattern given (None left out), in one round (two
        when a predicate read whole came back cut). The patterns on one term in one graph are
        one lookup, whatever predicates they name (its triples sorted out here), unless their
        predicate is read whole. Raises GatewayError."""
        patterns = list(dict.fromkeys(p for p in patterns if p is not None))
        if not patterns:
            return {}
        self.asked += 1
        rest: list[Pattern] = []
        jobs: list[tuple] = []
        predicates: dict[tuple, list[Pattern]] = {}
        for pattern in patterns:
            if pattern.at and pattern.p is not None:
                predicates.setdefault((pattern.at, pattern.p, pattern.g), []).append(pattern)
            else:
                rest.append(pattern)
        for (at, p, _), members in predicates.items():
            if len(members) > SCAN_ABOVE:  # many of one predicate: read it whole
                jobs.append(("scan", at, p, members))
            else:
                rest += members
        lookups = _lookups(rest)
        found, cut = self._answer(jobs + self._lookup_jobs(lookups))
        if cut:  # a predicate read whole came back cut: its patterns as lookups, in a second round
            again = _lookups(cut)
            lookups.update(again)
            found.update(self._answer(self._lookup_jobs(again))[0])
        answers = {p: found.get(p, []) for p in patterns}
        for lookup, members in lookups.items():
            for member in members:
                answers[member] = [q for q in found[lookup] if member.p is None or q.predicate == member.p]
        return answers

    def _lookup_jobs(self, lookups: dict[Pattern, list[Pattern]]) -> list[tuple]:
        """The requests for ``lookups``: with the SPARQL service, those it may answer as one
        query per position, predicate and ``SPARQL_BATCH`` terms; every other one alone."""
        by_sparql = any(_sparql_able(lookup) for lookup in lookups) and self._sparql()
        jobs: list[tuple] = []
        queries: dict[tuple, list[Pattern]] = {}
        for lookup in lookups:
            if by_sparql and _sparql_able(lookup):
                queries.setdefault((lookup.at, lookup.p), []).append(lookup)
            else:
                jobs.append(("one", lookup))
        for (at, p), group in queries.items():
            jobs += [("sparql", at, p, group[i:i + SPARQL_BATCH]) for i in range(0, len(group), SPARQL_BATCH)]
        return jobs

    def _answer(self, jobs: list[tuple]) -> tuple[dict[Pattern, list[ox.Quad]], list[Pattern]]:
        """Send ``jobs`` at once: ``({pattern or lookup: its quads}, the patterns of the
        predicates read whole that came back cut)``."""
        found: dict[Pattern, list[ox.Quad]] = {}
        cut: list[Pattern] = []
        for job, quads in zip(jobs, self.gateway.map(self._run, jobs)):
            if job[0] == "one":
                found[job[1]] = quads
            elif quads is None:
                cut += job[3]
            else:
                by_key: dict[Term, list[ox.Quad]] = {}
                for quad in quads:
                    by_key.setdefault(quad.subject if job[1] == "s" else quad.object, []).append(quad)
                found.update((m, [_in_graph(q, m.g) for q in by_key.get(m.key, [])]) for m in job[3])
        return found, cut

    def _run(self, job: tuple) -> list[ox.Quad] | None:
        kind = job[0]
        if kind == "one":
            return self._one(job[1])
        if kind == "scan":
            members: list[Pattern] = job[3]
            limit = max(1, min(MAX_LIMIT, int(SCAN_FACTOR * len(members))))
            quads, cut = self.gateway.triples(p=job[2], g=members[0].g, limit=limit)
            return None if cut else quads
        return self._select(job[1], job[2], job[3])

    def _one(self, pattern: Pattern) -> list[ox.Quad]:
        return self.gateway.triples(s=pattern.s, p=pattern.p, o=pattern.o, g=pattern.g)[0]

    def _select(self, at: str, p: ox.NamedNode | None, members: list[Pattern]) -> list[ox.Quad]:
        """One SPARQL query for ``members`` (bound at ``at`` to IRIs, predicate ``p``)."""
        predicate = str(p) if p is not None else "?p"
        variables = "?s ?o" + ("" if p is not None else " ?p")
        values = " ".join(str(m.key) for m in members)
        rows = self.gateway.sparql_select(f"SELECT {variables} WHERE {{ ?s {predicate} ?o VALUES ?{at} {{ {values} }} }}")
        out = []
        for row in rows:
            s, o, pred = row.get("s"), row.get("o"), p if p is not None else row.get("p")
            if isinstance(s, (ox.NamedNode, ox.BlankNode)) and isinstance(pred, ox.NamedNode) and o is not None:
                out.append(ox.Quad(s, pred, o, ox.DefaultGraph()))
        return out


def _sparql_able(pattern: Pattern) -> bool:
    """Whether a SPARQL query may answer ``pattern``: bound to an IRI, its quoted triples not
    wanted."""
    return isinstance(pattern.key, ox.NamedNode) and not pattern.quoted


def _lookups(patterns: list[Pattern]) -> dict[Pattern, list[Pattern]]:
    """``{lookup: the patterns it answers}``: the patterns on one term in one graph as one
    lookup, with their predicate when they share one, else any predicate; quoted when any of
    them is. A pattern bound to nothing is its own lookup."""
    groups: dict[tuple, list[Pattern]] = {}
    for pattern in patterns:
        groups.setdefault((pattern.at, pattern.key, pattern.g) if pattern.at else (pattern,), []).append(pattern)
    out: dict[Pattern, list[Pattern]] = {}
    for members in groups.values():
        first = members[0]
        if len(members) > 1:
            shared = {m.p for m in members}
            p = shared.pop() if len(shared) == 1 else None
            first = Pattern(s=first.s, p=p, o=first.o, g=first.g, quoted=any(m.quoted for m in members))
        out.setdefault(first, []).extend(members)
    return out


def _in_graph(quad: ox.Quad, graph: str | None) -> ox.Quad:
    """``quad`` in the pattern's graph (a SPARQL answer carries none)."""
    if not isinstance(quad.graph_name, ox.DefaultGraph) or graph is None:
        return quad
    return ox.Quad(quad.subject, quad.predicate, quad.object, ox.NamedNode(graph))
