"""Every change of a review, kept: each version whole in a named graph of its own, described in
the graph ``HISTORY`` with PROV-O (W3C PROV-O: ``prov:specializationOf`` the review,
``prov:generatedAtTime``, ``prov:wasAttributedTo`` the reviewer)::

    GRAPH <urn:trace-explorer:reviews:history> {
        <urn:uuid:A#v2> a prov:Entity ; prov:specializationOf <urn:uuid:A> ;
            prov:generatedAtTime "..."^^xsd:dateTime ; prov:wasAttributedTo <reviewer IRI> ;
            rv:change "edit" ; rv:version 2 .
    }
    GRAPH <urn:uuid:A#v2> { the review's triples as the edit left them (for a delete: as it was) }

(``rv:`` is ``urn:trace-explorer:review:``.) The graph also holds the store's generation (one
more at every change), by which the filter rows know they are up to date (``filter_rows``).
"""

from __future__ import annotations

from collections.abc import Sequence

import pyoxigraph as ox

from .rdf import TYPE, XSD, parse_time, quads, reviewer_iri, reviewer_name, reviews_from, stamp
from .review import Review, Version, now

PROV = "http://www.w3.org/ns/prov#"
RV = "urn:trace-explorer:review:"
HISTORY = ox.NamedNode("urn:trace-explorer:reviews:history")
STORE_NODE = ox.NamedNode("urn:trace-explorer:reviews")
ENTITY = ox.NamedNode(PROV + "Entity")
SPECIALIZATION_OF, GENERATED_AT, ATTRIBUTED_TO = (ox.NamedNode(PROV + n) for n in
                                                  ("specializationOf", "generatedAtTime", "wasAttributedTo"))
CHANGE, VERSION, GENERATION = ox.NamedNode(RV + "change"), ox.NamedNode(RV + "version"), ox.NamedNode(RV + "generation")
INTEGER = ox.NamedNode(XSD + "integer")
CHANGES = ("add", "edit", "delete")


def versions(store: ox.Store, review_id: str) -> int:
    """How many versions of ``review_id`` the store keeps (0: never saved here)."""
    return sum(1 for _ in store.quads_for_pattern(None, SPECIALIZATION_OF, ox.NamedNode(review_id), HISTORY))


def version_quads(store: ox.Store, review: Review, change: str, by: str) -> list[ox.Quad]:
    """The quads that keep ``review`` as its next version, made by ``change`` (one of
    ``CHANGES``) of ``by``."""
    number = versions(store, review.id) + 1
    graph = ox.NamedNode(f"{review.id}#v{number}")
    return quads(review, graph) + [
        ox.Quad(graph, TYPE, ENTITY, HISTORY), ox.Quad(graph, SPECIALIZATION_OF, ox.NamedNode(review.id), HISTORY),
        ox.Quad(graph, GENERATED_AT, stamp(review.modified if change != "delete" else now()), HISTORY),
        ox.Quad(graph, ATTRIBUTED_TO, ox.NamedNode(reviewer_iri(by)), HISTORY),
        ox.Quad(graph, CHANGE, ox.Literal(change), HISTORY),
        ox.Quad(graph, VERSION, ox.Literal(str(number), datatype=INTEGER), HISTORY)]


def read(store: ox.Store, review_id: str) -> list[Version]:
    """The versions of ``review_id``, the first first."""
    out = []
    for q in store.quads_for_pattern(None, SPECIALIZATION_OF, ox.NamedNode(review_id), HISTORY):
        graph = q.subject
        about = {p.predicate: p.object for p in store.quads_for_pattern(graph, None, None, HISTORY)}
        state = reviews_from(store.quads_for_pattern(None, None, None, graph))
        by = reviewer_name(about[ATTRIBUTED_TO].value)
        out.append(Version(review_id, int(about[VERSION].value), about[CHANGE].value, by,
                           parse_time(about[GENERATED_AT]), state[0]))
    return sorted(out, key=lambda v: v.number)


def generation(store: ox.Store) -> int:
    """The store's generation: how many changes it has had (0: none)."""
    found = list(store.quads_for_pattern(STORE_NODE, GENERATION, None, HISTORY))
    return int(found[0].object.value) if found else 0


def update_text(removed: Sequence[ox.Quad], added: Sequence[ox.Quad], new_generation: int) -> str:
    """One SPARQL update (applied all or nothing) that deletes ``removed``, inserts ``added`` and
    sets the generation to ``new_generation``."""
    old = ox.Quad(STORE_NODE, GENERATION, ox.Literal(str(new_generation - 1), datatype=INTEGER), HISTORY)
    new = ox.Quad(STORE_NODE, GENERATION, ox.Literal(str(new_generation), datatype=INTEGER), HISTORY)
    return f"DELETE DATA {{ {_data(list(removed) + [old])} }} ;\nINSERT DATA {{ {_data(list(added) + [new])} }}"


def _data(statements: Sequence[ox.Quad]) -> str:
    return " ".join(f"GRAPH {q.graph_name} {{ {q.subject} {q.predicate} {q.object} }}" for q in statements)

