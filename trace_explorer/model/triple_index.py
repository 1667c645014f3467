"""An in-memory index of a collection's quads by subject, for reading sessions.

Graph names are folded: a session may be spread over named graphs, or merged into one Turtle
file (TRACE-MODEL.md, "Named graphs"), so sessions are found by types and shapes, never by graph.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import pyoxigraph as ox

from .vocabulary import RDF_TYPE, RDFS_LABEL, WAS_DERIVED_FROM, WAS_GENERATED_BY

Term = ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple
# Relations along which a session grows: child -> parent (TRACE-MODEL.md, chains; the seed
# DocRAG Exploration hangs off its Question with prov:wasGeneratedBy).
DERIVATION_RELATIONS = {WAS_DERIVED_FROM: "wasDerivedFrom", WAS_GENERATED_BY: "wasGeneratedBy"}


def term_key(term: Term) -> str:
    """A subject's key: the IRI, ``_:id`` for a blank node, the N-Triples form for a triple term."""
    if isinstance(term, ox.NamedNode):
        return term.value
    if isinstance(term, ox.BlankNode):
        return "_:" + term.value
    return str(term)


class TripleIndex:
    """``properties[subject][predicate]`` -> objects (duplicates across graphs folded, order kept),
    ``children[parent]`` -> ``[(child, relation)]``."""

    def __init__(self, quads: Iterable[ox.Quad | ox.Triple]):
        self.properties: dict[str, dict[str, list[Term]]] = defaultdict(lambda: defaultdict(list))
        self.children: dict[str, list[tuple[str, str]]] = defaultdict(list)
        self._types: dict[str, set[str]] = {}
        self._parents: dict[str, list[tuple[str, str]]] = {}
        properties, children = self.properties, self.children
        named = ox.NamedNode
        for quad in quads:
            subject = quad.subject
            subject = subject.value if type(subject) is named else term_key(subject)
            predicate = quad.predicate.value
            obj = quad.object
            values = properties[subject][predicate]
            if obj in values:  # the same triple in another graph (lists are short: a scan)
                continue
            values.append(obj)
            relation = DERIVATION_RELATIONS.get(predicate)
            if relation and isinstance(obj, (named, ox.BlankNode)):
                children[term_key(obj)].append((subject, relation))

    def __contains__(self, subject: str) -> bool:
        return subject in self.properties

    def _objects(self, subject: str, predicate: str) -> list[Term] | tuple:
        props = self.properties.get(subject)
        return props.get(predicate, ()) if props else ()

    def objects(self, subject: str, predicate: str) -> list[Term]:
        """Every object of ``subject predicate``; [] when there is none."""
        return list(self._objects(subject, predicate))

    def literals(self, subject: str, predicate: str) -> list[str]:
        """The lexical values of the literal objects of ``subject predicate``."""
        return [o.value for o in self._objects(subject, predicate) if isinstance(o, ox.Literal)]

    def literal(self, subject: str, predicate: str) -> str | None:
        """The first literal value of ``subject predicate``, or None."""
        for obj in self._objects(subject, predicate):
            if isinstance(obj, ox.Literal):
                return obj.value
        return None

    def iris(self, subject: str, predicate: str) -> list[str]:
        """The IRIs (and blank node keys) among the objects of ``subject predicate``."""
        props = self.properties.get(subject)
        found = props.get(predicate) if props else None
        if not found:  # most asks find nothing: no list to build
            return []
        return [o.value if type(o) is ox.NamedNode else term_key(o)
                for o in found if isinstance(o, (ox.NamedNode, ox.BlankNode))]

    def types(self, subject: str) -> set[str]:
        """The rdf:type IRIs of ``subject`` (a set shared between calls: do not change it)."""
        found = self._types.get(subject)
        if found is None:
            found = self._types[subject] = set(self.iris(subject, RDF_TYPE))
        return found

    def label(self, iri: str) -> str | None:
        """The rdfs:label of ``iri`` when the collection has one."""
        return self.literal(iri, RDFS_LABEL)

    def parents(self, subject: str) -> list[tuple[str, str]]:
        """``[(parent, relation)]``: what ``subject`` derives from (wasDerivedFrom / wasGeneratedBy).
        The list is shared between calls (a session's reading asks each step several times):
        do not change it."""
        found = self._parents.get(subject)
        if found is None:
            found = self._parents[subject] = [(p, relation) for predicate, relation in DERIVATION_RELATIONS.items()
                                              for p in self.iris(subject, predicate)]
        return found
