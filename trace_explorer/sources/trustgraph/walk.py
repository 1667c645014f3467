"""The triples of sessions, fetched from a TrustGraph gateway in a few rounds of concurrent
requests (never one entity at a time, never waiting for quiescence).

A session is what derives from its Question (``prov:wasDerivedFrom``, ``prov:wasGeneratedBy``,
transitively; sub-sessions included) and the sub-entities its steps link to (``tg:thought``,
``tg:selectedEdge``, ``tg:selectedChunk``), as ``fetch.fetch_sessions`` reads it from a SPARQL
endpoint. TrustGraph's SPARQL service evaluates basic graph patterns only (no property paths),
so the closure is walked here, a round at a time: each round asks, for every entity found but
not yet asked about, for its properties and for what derives from it (with the SPARQL service,
one query a round: ``VALUES`` joined to a basic graph pattern, which the service turns into
lookups inside the deployment; without it, one triple pattern per entity, all at once).

A ReAct chain is as deep as it has steps, so the first rounds also ask for the entities
TrustGraph's own IRI shapes name (TRACE-MODEL.md: agent steps extend the root IRI:
``{root}/i{n}``, ``{root}/i{n}/observation``, ``{root}/final`` ...; GraphRAG steps are
``urn:trustgraph:prov:{kind}:{id}``), a growing block of iterations at a time. What comes back
is only what exists; the walk still checks what derives from every entity, so a session of any
other shape is read whole, just in more rounds. Which entities belong to which session is left
to the reader (``model.reader.SessionReader``), as for every other source.

Extraction provenance of chosen edges (``urn:graph:source``: the Subgraph that ``tg:contains``
the quoted triple, and what it derives from) and the labels of the edges' terms (the default
graph) are fetched with triple patterns: quoted triples cannot be named in TrustGraph's SPARQL.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import pyoxigraph as ox

from ...model.vocabulary import (CONTAINS, EDGE, RDFS_LABEL, RETRIEVAL_GRAPH, SOURCE_GRAPH, WAS_DERIVED_FROM,
                                 WAS_GENERATED_BY)
from ..fetch import POINTERS
from ..sparql_text import iri_batches, is_iri
from .gateway import Gateway

DERIVATIONS = frozenset({WAS_DERIVED_FROM, WAS_GENERATED_BY})
FIRST_BLOCK = 8  # iterations named in the first round; each later block is twice the size
_AGENT_ROOT = re.compile(r"^urn:trustgraph:(?:agent|docrag):[^/]+$")
_GRAPHRAG_ROOT = re.compile(r"^urn:trustgraph:question:([^/]+)$")
_FIXED_STEPS = ("pattern-decision", "grounding", "exploration", "focus", "synthesis", "final", "plan", "decompose")
NUMBERED = ("i", "step/", "finding/")


def named_steps(root: str, family: str, first: int, last: int) -> list[str]:
    """The IRIs TrustGraph's shapes give the steps of session ``root``: ``family`` "" for the
    unnumbered ones (``{root}/final`` ...; a GraphRAG Question's ``urn:trustgraph:prov:{kind}:{id}``),
    else "i" (an iteration with its Thought and Observation), "step/" or "finding/" numbered
    ``first`` to ``last``; [] for a root of no known shape."""
    if _AGENT_ROOT.match(root):
        if not family:
            return [f"{root}/{name}" for name in _FIXED_STEPS]
        parts = ("", "/thought", "/observation") if family == "i" else ("",)
        return [f"{root}/{family}{n}{part}" for n in range(first, last + 1) for part in parts]
    match = _GRAPHRAG_ROOT.match(root)
    if match and not family:
        return [f"urn:trustgraph:prov:{kind}:{match.group(1)}" for kind in ("grounding", "exploration", "focus", "synthesis")]
    return []


class Walk:
    """Fetches the closure of some session roots from ``gateway``, with its SPARQL service when
    ``sparql`` is True, else with triple patterns. ``quads`` collects what was fetched (graph
    names as the gateway gave them; the SPARQL service gives none, and the session graph
    ``urn:graph:retrieval`` is used for its answers); ``rounds`` counts the rounds."""

    def __init__(self, gateway: Gateway, sparql: bool):
        self.gateway, self.sparql = gateway, sparql
        self.properties: dict[str, list[ox.Quad]] = {}
        self.rounds = 0
        self._children_asked: set[str] = set()

    @property
    def quads(self) -> list[ox.Quad]:
        """Every quad fetched so far."""
        return [q for quads in self.properties.values() for q in quads]

    def closure(self, roots: Iterable[str], named: bool = True) -> list[ox.Quad]:
        """Fetch everything that derives from ``roots`` (and their steps' sub-entities); with
        ``named``, ask for the entities TrustGraph's IRI shapes name too. Returns the quads.
        Raises GatewayError (SourceError) when the gateway fails."""
        roots = [r for r in dict.fromkeys(roots) if is_iri(r)]
        blocks = {(r, f): (1, FIRST_BLOCK) for r in roots for f in NUMBERED} if named else {}
        fixed = {g for r in roots for g in named_steps(r, "", 0, 0)} if named else set()
        wanted = set(roots)  # entities whose properties are wanted
        while True:
            guesses = (fixed | {g for (r, f), (a, b) in blocks.items() for g in named_steps(r, f, a, b)}) \
                - self.properties.keys()
            fixed = set()
            ask_properties = (wanted | guesses) - self.properties.keys()
            ask_children = {e for e in self.properties if self.properties[e] and e not in self._children_asked}
            ask_children |= {r for r in roots if r not in self._children_asked}
            if not ask_properties and not ask_children:
                break
            self.rounds += 1
            derived = self._round(sorted(ask_properties), sorted(ask_children))
            self._children_asked |= ask_children
            wanted = set(derived)
            for subject in list(self.properties):
                for quad in self.properties[subject]:
                    if quad.predicate.value in POINTERS and isinstance(quad.object, ox.NamedNode):
                        wanted.add(quad.object.value)
            blocks = self._next_blocks(blocks)
        return self.quads

    def _next_blocks(self, blocks: dict[tuple[str, str], tuple[int, int]]) -> dict[tuple[str, str], tuple[int, int]]:
        """The next block of each numbered family whose last named step exists, twice as long."""
        return {(root, family): (last + 1, last + 2 * (last - first + 1))
                for (root, family), (first, last) in blocks.items() if self.properties.get(f"{root}/{family}{last}")}

    def _round(self, properties: list[str], children: list[str]) -> list[str]:
        """One round: the properties of ``properties`` and what derives from ``children``;
        returns the derived entities found."""
        if self.sparql:
            return self._sparql_round(properties, children)
        jobs = [("s", e) for e in properties if is_iri(e)] + [("o", e) for e in children if is_iri(e)]
        answers = self.gateway.map(self._pattern, jobs)
        derived: list[str] = []
        for (kind, entity), quads in zip(jobs, answers):
            if kind == "s":
                self.properties[entity] = quads
            else:
                derived += [q.subject.value for q in quads if q.predicate.value in DERIVATIONS
                            and isinstance(q.subject, ox.NamedNode) and q.subject.value not in self.properties]
        for entity in properties:
            self.properties.setdefault(entity, [])
        return derived

    def _pattern(self, job: tuple[str, str]) -> list[ox.Quad]:
        kind, entity = job
        node = ox.NamedNode(entity)
        if kind == "s":
            return self.gateway.triples(s=node, g=RETRIEVAL_GRAPH)[0]
        return self.gateway.triples(o=node, g=RETRIEVAL_GRAPH)[0]

    def _sparql_round(self, properties: list[str], children: list[str]) -> list[str]:
        """One SPARQL query per batch of entities: each branch a basic graph pattern joined to
        ``VALUES`` (the shape TrustGraph's service evaluates by lookups, binding as it goes)."""
        graph = ox.NamedNode(RETRIEVAL_GRAPH)
        derived: list[str] = []
        branches = [f"{{ ?s ?p ?o VALUES ?s {{ {' '.join(b)} }} }}" for b in iri_batches(properties)]
        branches += [f"{{ ?s ?rel ?x . ?s ?p ?o VALUES ?x {{ {' '.join(b)} }} }}" for b in iri_batches(children)]
        if not branches:
            return []
        rows = self.gateway.sparql_select("SELECT ?s ?p ?o ?rel ?x WHERE { " + " UNION ".join(branches) + " }")
        found: dict[str, list[ox.Quad]] = {e: [] for e in properties}
        for row in rows:
            subject, predicate, obj = row.get("s"), row.get("p"), row.get("o")
            if not isinstance(subject, ox.NamedNode) or not isinstance(predicate, ox.NamedNode) or obj is None:
                continue
            relation = row.get("rel")
            if relation is not None and relation.value not in DERIVATIONS:
                continue  # another link into the entity (a thought, a selection): not a derivation
            if relation is not None and subject.value not in self.properties and subject.value not in found:
                derived.append(subject.value)
            found.setdefault(subject.value, [])
            quad = ox.Quad(subject, predicate, obj, graph)
            if quad not in found[subject.value]:
                found[subject.value].append(quad)
        self.properties.update(found)
        # quoted triples do not travel through TrustGraph's SPARQL: edge selections by pattern
        selections = [e for e, quads in found.items() if any(q.predicate.value == EDGE for q in quads)]
        if selections:
            for entity, quads in zip(selections, self.gateway.map(lambda e: self._pattern(("s", e)), selections)):
                self.properties[entity] = quads
        return [d for d in dict.fromkeys(derived) if d not in properties]


def edge_context(gateway: Gateway, quads: list[ox.Quad]) -> list[ox.Quad]:
    """The labels of the terms of the chosen edges among ``quads`` (the default graph) and each
    edge's extraction provenance (``urn:graph:source``: the Subgraphs that ``tg:contains`` it and
    everything they derive from, walked up a round at a time). Raises GatewayError."""
    edges = list(dict.fromkeys(q.object for q in quads if q.predicate.value == EDGE and isinstance(q.object, ox.Triple)))
    if not edges:
        return []
    terms = sorted({t.value for e in edges for t in (e.subject, e.predicate, e.object) if isinstance(t, ox.NamedNode)})
    label = ox.NamedNode(RDFS_LABEL)
    contains = ox.NamedNode(CONTAINS)
    jobs = [("label", t) for t in terms] + [("contains", e) for e in edges]

    def ask(job):
        kind, value = job
        if kind == "label":
            return gateway.triples(s=ox.NamedNode(value), p=label, limit=16)[0]
        if kind == "contains":
            return gateway.triples(p=contains, o=value, g=SOURCE_GRAPH)[0]
        return gateway.triples(s=ox.NamedNode(value), g=SOURCE_GRAPH)[0]

    out: list[ox.Quad] = []
    seen: set[str] = set()
    while jobs:
        answers = gateway.map(ask, jobs)
        above: list[str] = []
        for (kind, _), found in zip(jobs, answers):
            out += found
            if kind == "contains":
                above += [q.subject.value for q in found if isinstance(q.subject, ox.NamedNode)]
            elif kind == "up":
                above += [q.object.value for q in found
                          if q.predicate.value == WAS_DERIVED_FROM and isinstance(q.object, ox.NamedNode)]
        jobs = [("up", e) for e in dict.fromkeys(above) if e not in seen and is_iri(e)]
        seen.update(e for _, e in jobs)
        if len(seen) > 10_000:
            break
    return out
