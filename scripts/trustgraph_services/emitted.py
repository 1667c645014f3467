"""The explain triples the services emitted during one run, read back by what they say (the
entities' ``rdf:type``, ``prov:wasDerivedFrom``, ``tg:document`` and the rest), never by the
shape of their IRIs: which session owns each entity, the steps of a session in the order they
were emitted, an Analysis's Observation.

Ownership follows the services' derivations: a Question is its own session; an Observation
belongs to the session of the Analysis it pairs with (it derives from that Analysis, or from the
last entity of the sub-session that Analysis's tool ran, whose Question derives from it); a
Finding belongs to the session whose Decomposition started the sub-agent it derives from; any
other entity belongs to the session of what it derives from.
"""

from __future__ import annotations

from trustgraph.schema import IRI, TRIPLE

TG = "https://trustgraph.ai/ns/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
DERIVED = "http://www.w3.org/ns/prov#wasDerivedFrom"
KINDS = ("Question", "PatternDecision", "Analysis", "Observation", "Conclusion", "Plan",
         "StepResult", "Synthesis", "Decomposition", "Finding", "Grounding", "Exploration",
         "Focus", "Thought", "EdgeSelection", "ChunkSelection")


def plain(term):
    """A term as a string (IRI or literal text), a quoted triple as a tuple of three."""
    if term.type == TRIPLE and term.triple is not None:
        t = term.triple
        return (plain(t.s), plain(t.p), plain(t.o))
    return term.iri if term.type == IRI else term.value


class Emitted:
    """The entities of one run's explainability messages (``runner.run_sessions``'s ``log``):
    ``props[iri][predicate]`` lists the objects (``plain``) in emission order; ``order`` holds
    the subjects in the order first emitted."""

    def __init__(self, log):
        self.props, self.order = {}, []
        for topic, value, _, _ in log:
            if not topic.startswith("flow:tg:explainability"):
                continue
            for t in value.triples:
                s = plain(t.s)
                if s not in self.props:
                    self.props[s] = {}
                    self.order.append(s)
                self.props[s].setdefault(t.p.iri, []).append(plain(t.o))
        self.owner = self._owners()

    def values(self, iri: str, predicate: str) -> list:
        return self.props.get(iri, {}).get(predicate, [])

    def value(self, iri: str, name: str):
        """The first ``tg:{name}`` of ``iri``, or None."""
        found = self.values(iri, TG + name)
        return found[0] if found else None

    def kind(self, iri: str) -> str | None:
        types = set(self.values(iri, RDF_TYPE))
        return next((k for k in KINDS if TG + k in types), None)

    def parent(self, iri: str) -> str | None:
        found = self.values(iri, DERIVED)
        return found[0] if found else None

    def of_kind(self, kind: str, session: str | None = None) -> list:
        """The entities of ``kind`` (of ``session`` when given), in emission order."""
        return [i for i in self.order if self.kind(i) == kind
                and (session is None or self.owner.get(i) == session)]

    def roots(self) -> list:
        return self.of_kind("Question")

    def sub_sessions(self, step: str) -> list:
        """The sessions whose Question derives from ``step`` (a tool's GraphRAG, a
        Decomposition's sub-agents), in emission order."""
        return [q for q in self.roots() if self.parent(q) == step]

    def _owners(self) -> dict:
        owner = {q: q for q in self.roots()}
        changed = True
        while changed:
            changed = False
            for iri in self.order:
                if iri in owner:
                    continue
                found = self._owner_of(iri, owner)
                if found is not None:
                    owner[iri] = found
                    changed = True
        return owner

    def _owner_of(self, iri: str, owner: dict) -> str | None:
        parent = self.parent(iri)
        if parent is None or parent not in owner:
            return None
        kind = self.kind(iri)
        if kind == "Observation" and self.kind(parent) != "Analysis":
            started_by = self.parent(owner[parent])  # the Analysis whose tool ran that session
            return owner.get(started_by)
        if kind == "Finding":
            started_by = self.parent(owner[parent])  # the supervisor's Decomposition
            return owner.get(started_by)
        return owner[parent]

    def observation_of(self, analysis: str) -> str | None:
        """The Observation paired with ``analysis``: the one deriving from it, or from an
        entity of a session its tool ran."""
        runs = set(self.sub_sessions(analysis))
        for obs in self.of_kind("Observation"):
            parent = self.parent(obs)
            if parent == analysis or self.owner.get(parent) in runs:
                return obs
        return None
