"""How a poll asks a TrustGraph flow that runs no SPARQL service: with the triples service's
patterns (``Gateway.triples``), which take no filter. A poll is one request for every root's
start (``prov:startedAtTime``: one triple a session, its answer growing with the collection)
and, while sessions run, one request per entity of theirs for what derives from it, sent at
once (``Gateway.map``); a new step's types are asked once. Costlier than the one query of
``sparql_probe``, and still one poller's cost whoever follows."""

from __future__ import annotations

from collections.abc import Iterable

import pyoxigraph as ox

from ..model.vocabulary import (ANSWER, CONTENT, DOCUMENT, OBSERVATION, RDF_TYPE, RETRIEVAL_GRAPH, STARTED_AT_TIME,
                                THOUGHT, WAS_DERIVED_FROM)
from .sparql_probe import Edge, Found, RootFacts, SparqlProbe, root_facts

_TEXT_PREDICATES = (ANSWER, CONTENT, DOCUMENT, THOUGHT, OBSERVATION)


class PatternProbe(SparqlProbe):
    """Polls ``source`` (a ``TrustGraphSource``) through its gateway's triples service; its texts
    from the librarian (``source.fetch_texts``). Raises what the gateway raises
    (``GatewayError``)."""

    def __init__(self, source):
        super().__init__(self._no_sparql, source.fetch_texts)
        self.gateway = source.gateway
        self._types: dict[str, set[str]] = {}  # step -> its rdf:type IRIs, asked once

    def _no_sparql(self, query: str):
        raise AssertionError("a PatternProbe asks no SPARQL")

    def _about(self, subject: str, predicate: str | None = None) -> list[ox.Quad]:
        return self.gateway.triples(s=ox.NamedNode(subject), p=ox.NamedNode(predicate) if predicate else None,
                                    g=RETRIEVAL_GRAPH)[0]

    def _starts(self) -> dict[str, str | None]:
        quads = self.gateway.triples(p=ox.NamedNode(STARTED_AT_TIME), g=RETRIEVAL_GRAPH)[0]
        return {q.subject.value: q.object.value for q in quads if isinstance(q.subject, ox.NamedNode)}

    def baseline(self) -> dict[str, str | None]:
        found = self._starts()
        self.note_times(found.values())
        return found

    def poll(self, frontier: list[str]) -> Found:
        """Every root started since ``since()`` (one request) and the children of ``frontier``."""
        since = self.since()
        roots = {r: t for r, t in self._starts().items() if t is not None and t >= since}
        self.note_times(roots.values())
        return Found(roots=roots, edges=self.children(frontier) if frontier else [])

    def children(self, parents: Iterable[str]) -> list[Edge]:
        parents = list(dict.fromkeys(parents))
        derived = self.gateway.map(
            lambda parent: self.gateway.triples(p=ox.NamedNode(WAS_DERIVED_FROM), o=ox.NamedNode(parent),
                                                g=RETRIEVAL_GRAPH)[0], parents)
        pairs = [(q.subject.value, parent) for parent, quads in zip(parents, derived) for q in quads
                 if isinstance(q.subject, ox.NamedNode)]
        unknown = list(dict.fromkeys(step for step, _ in pairs if step not in self._types))
        for step, quads in zip(unknown, self.gateway.map(lambda s: self._about(s, RDF_TYPE), unknown)):
            self._types[step] = {q.object.value for q in quads if isinstance(q.object, ox.NamedNode)}
        return [(step, parent, kind) for step, parent in pairs for kind in sorted(self._types.get(step, ()))]

    def details(self, roots: Iterable[str]) -> dict[str, RootFacts]:
        roots = list(roots)
        facts: dict[str, RootFacts] = {}
        for root, quads in zip(roots, self.gateway.map(self._about, roots)):
            fact = facts[root] = RootFacts(root)
            for quad in quads:
                fact.take(quad.predicate.value, quad.object)
        return root_facts(facts)

    def _text_rows(self, entities: Iterable[str]) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
        inline: dict[str, str] = {}
        documents: dict[str, str] = {}
        thoughts: dict[str, str] = {}
        entities = list(entities)
        for entity, quads in zip(entities, self.gateway.map(self._about, entities)):
            for quad in sorted((q for q in quads if q.predicate.value in _TEXT_PREDICATES),
                               key=lambda q: _TEXT_PREDICATES.index(q.predicate.value)):
                if isinstance(quad.object, ox.Literal):
                    inline.setdefault(entity, quad.object.value)
                elif isinstance(quad.object, ox.NamedNode):
                    (thoughts if quad.predicate.value == THOUGHT else documents).setdefault(quad.object.value, entity)
        return inline, documents, thoughts
