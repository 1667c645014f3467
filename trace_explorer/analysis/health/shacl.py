"""Run the trace shapes (``shapes/trustgraph-trace.shacl.ttl``, SHACL Core) over triples with
pyshacl, and read its report back as ``ShapeResult`` records, one per violation.

pyshacl reads rdflib graphs; the triples are converted, with every RDF 1.2 triple term put as a
fresh blank node (rdflib has no triple terms, and the shapes only ask that a quoted triple is no
literal). On about 200 sessions (13,000 triples) a run takes about 1 s on a 2-core machine: the
health check runs the same shapes through ``shape_checks`` instead, and tests hold the two equal.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pyoxigraph as ox
import rdflib
from rdflib.namespace import SH

from .rules import ERROR, INFO, WARNING

SHAPES_PATH = Path(__file__).resolve().parent / "shapes" / "trustgraph-trace.shacl.ttl"
RULE = rdflib.URIRef("urn:trace-explorer:health:rule")
_SEVERITY = {SH.Violation: ERROR, SH.Warning: WARNING, SH.Info: INFO}
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


@dataclass(frozen=True)
class ShapeResult:
    """One violation: ``rule`` (the shape's ``teh:rule``), ``severity`` ("error", "warning",
    "info"), ``focus`` (the focus node's key: an IRI, ``_:id``, or a literal's value), ``path``
    (the property's IRI or None), ``value`` (the offending pyoxigraph term, or None) and
    ``message`` (the shape's words)."""

    rule: str
    severity: str
    focus: str
    path: str | None
    value: ox.NamedNode | ox.BlankNode | ox.Literal | None
    message: str


@lru_cache(maxsize=1)
def shapes_graph() -> rdflib.Graph:
    """The shapes, parsed once."""
    return rdflib.Graph().parse(SHAPES_PATH, format="turtle")


@lru_cache(maxsize=1)
def _rules_of_shapes() -> dict[rdflib.term.Node, str]:
    """Each shape (node shapes and the property shapes inside them) -> its rule id."""
    graph = shapes_graph()
    out: dict[rdflib.term.Node, str] = {}
    for shape, rule in graph.subject_objects(RULE):
        out[shape] = str(rule)
        for inner in graph.objects(shape, SH.property):
            out.setdefault(inner, str(rule))
    return out


def validate(triples: Iterable[ox.Triple | ox.Quad]) -> list[ShapeResult]:
    """Validate ``triples`` (graph names are ignored) against the shapes; every violation, of
    every severity. Raises nothing on odd data: terms rdflib cannot hold are skipped."""
    import pyshacl  # only here: the health check itself runs the shapes in code (shape_checks)

    data = _to_rdflib(triples)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # pyshacl's own use of rdflib's Dataset
        _, report, _ = pyshacl.validate(data, shacl_graph=shapes_graph(), inplace=True, allow_infos=True,
                                        allow_warnings=True, advanced=False, inference="none")
    rules = _rules_of_shapes()
    out = []
    for result in report.subjects(rdflib.RDF.type, SH.ValidationResult):
        shape = report.value(result, SH.sourceShape)
        rule = rules.get(shape)
        focus = report.value(result, SH.focusNode)
        if rule is None or focus is None:
            continue
        path = report.value(result, SH.resultPath)
        message = report.value(result, SH.resultMessage)
        out.append(ShapeResult(rule, _SEVERITY.get(report.value(result, SH.resultSeverity), ERROR),
                               _key(focus), str(path) if isinstance(path, rdflib.URIRef) else None,
                               _to_ox(report.value(result, SH.value)), str(message or "")))
    return out


def _key(node: rdflib.term.Node) -> str:
    if isinstance(node, rdflib.BNode):
        return "_:" + str(node)
    return str(node)


def _to_ox(node: rdflib.term.Node | None) -> ox.NamedNode | ox.BlankNode | ox.Literal | None:
    try:
        if isinstance(node, rdflib.URIRef):
            return ox.NamedNode(str(node))
        if isinstance(node, rdflib.BNode):
            return ox.BlankNode(str(node))
        if isinstance(node, rdflib.Literal):
            if node.language:
                return ox.Literal(str(node), language=node.language)
            if node.datatype is not None:
                return ox.Literal(str(node), datatype=ox.NamedNode(str(node.datatype)))
            return ox.Literal(str(node))
    except ValueError:
        return None
    return None


def same_as_rdflib(term: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple) -> ox.NamedNode | ox.BlankNode | ox.Literal | None:
    """``term`` as ``validate`` reports it: through rdflib and back (rdflib may normalise a typed
    literal's lexical form; a triple term becomes a fresh blank node), so that a direct check of
    the shapes reports the same value."""
    return _to_ox(_rdflib_term(term))


def focus_key(term: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple) -> str:
    """``ShapeResult.focus`` for ``term``, as ``validate`` reports it (a literal as rdflib reads it)."""
    return _key(_rdflib_term(term))


def _rdflib_term(value):
    if isinstance(value, ox.NamedNode):
        return rdflib.URIRef(value.value)
    if isinstance(value, ox.BlankNode):
        return rdflib.BNode(value.value)
    if isinstance(value, ox.Literal):
        if value.language:
            return rdflib.Literal(value.value, lang=value.language)
        if value.datatype.value == _XSD_STRING:
            return rdflib.Literal(value.value)
        return rdflib.Literal(value.value, datatype=rdflib.URIRef(value.datatype.value))
    return rdflib.BNode()  # a triple term: a node of its own that is no literal


def _to_rdflib(triples: Iterable[ox.Triple | ox.Quad]) -> rdflib.Graph:
    graph = rdflib.Graph()
    cache: dict = {}

    def term(value):
        found = cache.get(value)
        if found is None:
            found = _rdflib_term(value)
            if isinstance(value, ox.Triple):
                return found
            cache[value] = found
        return found

    add = graph.add
    for triple in triples:
        if isinstance(triple.subject, ox.Triple):
            continue
        add((term(triple.subject), term(triple.predicate), term(triple.object)))
    return graph
