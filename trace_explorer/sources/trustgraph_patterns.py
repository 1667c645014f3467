"""Rounds of triple patterns asked of a TrustGraph gateway at once (its API: ``trustgraph_gateway``).

A round is any number of patterns, each with one term bound (a subject, or an object) or none,
a predicate or none, and a graph. They are answered together, concurrently, in as few
requests as the deployment allows:

- with the flow's SPARQL service, the patterns bound to an IRI go as one query per predicate
  (or none), position and 500 terms: ``SELECT ?s ?o WHERE { ?s <p> ?o VALUES ?s { ... } }``, a
  basic graph pattern joined to ``VALUES``, which TrustGraph's service evaluates by one lookup a
  term inside the deployment (``trustgraph-flow/.../query/sparql/algebra.py``: a bind join);
  it applies no graph, so such an answer is the union of every graph;
- a pattern whose answer holds quoted triples we need (``quoted``), or one bound to a quoted
  triple, goes through the triples service: quoted triples do not travel through TrustGraph's
  SPARQL (its parser, rdflib's, has no triple terms);
- more than ``SCAN_ABOVE`` patterns of one predicate and graph that the SPARQL service does not
  take are answered by reading that predicate whole once (one request instead of hundreds),
  asking for at most ``SCAN_FACTOR`` triples a pattern: a predicate used more often than that
  comes back cut, and its patterns are then sent one request each, in a second round (so a
  large collection costs at most that many triples more than the patterns alone);
- every other pattern is one request of the triples service.

Nothing sleeps and nothing is asked twice within a round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import pyoxigraph as ox

from .trustgraph_gateway import MAX_LIMIT, Gateway

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
    SPARQL service is used (asked only when a round could use it)."""

    def __init__(self, gateway: Gateway, sparql: Callable[[], bool]):
        self.gateway = gateway
        self._sparql = sparql

    def ask(self, patterns: Iterable[Pattern | None]) -> dict[Pattern, list[ox.Quad]]:
        """``{pattern: its quads}`` for every pattern given (None left out), in one round (two
        when a predicate read whole came back cut). Raises GatewayError."""
        patterns = list(dict.fromkeys(p for p in patterns if p is not None))
        answers: dict[Pattern, list[ox.Quad]] = {p: [] for p in patterns}
        groups: dict[tuple, list[Pattern]] = {}
        for pattern in patterns:
            groups.setdefault((pattern.at, pattern.p, pattern.g, pattern.quoted or not _iri_key(pattern)), []).append(pattern)
        by_sparql = any(not alone and at for (at, _, _, alone) in groups) and self._sparql()
        jobs: list[tuple] = []
        for (at, p, g, alone), members in groups.items():
            if by_sparql and at and not alone:
                jobs += [("sparql", at, p, members[i:i + SPARQL_BATCH]) for i in range(0, len(members), SPARQL_BATCH)]
            elif p is not None and at and len(members) > SCAN_ABOVE:
                jobs.append(("scan", at, p, members))
            else:
                jobs += [("one", m) for m in members]
        again: list[Pattern] = []
        for job, found in zip(jobs, self.gateway.map(self._run, jobs)):
            if job[0] == "one":
                answers[job[1]] = found
                continue
            if found is None:  # a predicate read whole was cut at the limit
                again += job[3]
                continue
            at, members = job[1], job[3]
            by_key: dict[Term, list[ox.Quad]] = {}
            for quad in found:
                by_key.setdefault(quad.subject if at == "s" else quad.object, []).append(quad)
            for member in members:
                answers[member] = [_in_graph(q, member.g) for q in by_key.get(member.key, [])]
        if again:
            answers.update(zip(again, self.gateway.map(self._one, again)))
        return answers

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


def _iri_key(pattern: Pattern) -> bool:
    return isinstance(pattern.key, ox.NamedNode)


def _in_graph(quad: ox.Quad, graph: str | None) -> ox.Quad:
    """``quad`` in the pattern's graph (a SPARQL answer carries none)."""
    if not isinstance(quad.graph_name, ox.DefaultGraph) or graph is None:
        return quad
    return ox.Quad(quad.subject, quad.predicate, quad.object, ox.NamedNode(graph))
