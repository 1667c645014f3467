"""The trace shapes (``shapes/trustgraph-trace.shacl.ttl``) checked directly in code, one pass over
the triples: the same ``ShapeResult`` records that ``shacl.validate`` reads from pyshacl's report,
about 50 times cheaper (pyshacl first copies the triples into an rdflib graph, then walks every
shape over it: about 5 ms a session, most of the health check's time).

Each function below is one shape of the file and follows its SHACL Core semantics as pyshacl runs
them (targets, ``sh:targetClass`` through ``rdfs:subClassOf`` in the data, a triple term taken for
a fresh blank node, as ``shacl.validate`` hands it to rdflib). tests/test_health.py holds the two
equal on the corpus and on a trace built to break each rule: a change to the shapes file must
change this module too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import pyoxigraph as ox

from ...model.triple_index import TripleIndex
from ...model.vocabulary import CONTENT, DOCUMENT, QUERY, RDF_TYPE, TG, WAS_DERIVED_FROM, WAS_GENERATED_BY
from .rules import (DAMAGED_QUOTED_TRIPLE, DANGLING_DERIVATION, ERROR, INFO, MISSING_CHUNK_TEXT, MISSING_TEXT,
                    UNKNOWN_TYPE, WARNING)
from .shacl import ShapeResult, focus_key, same_as_rdflib

SUBCLASS_OF = "http://www.w3.org/2000/01/rdf-schema#subClassOf"
EDGE, CONTAINS = TG + "edge", TG + "contains"
# teh:KnownTypes: the classes of the trace model (sh:in), the namespace they are checked in (sh:pattern)
KNOWN_TYPES = frozenset(TG + name for name in (
    "Question", "GraphRagQuestion", "DocRagQuestion", "AgentQuestion", "PatternDecision", "Decomposition", "Plan",
    "Analysis", "ToolUse", "Thought", "Reflection", "Observation", "Error", "Conclusion", "Answer", "Grounding",
    "Exploration", "Focus", "EdgeSelection", "ChunkSelection", "StepResult", "Finding", "Synthesis", "Subgraph",
    "Document", "Page", "Section", "Image", "Chunk"))
# teh:DerivationTargets: what describes an entity (its sh:alternativePath)
_DESCRIBING = frozenset({RDF_TYPE, QUERY, WAS_DERIVED_FROM, WAS_GENERATED_BY})
# teh:StepTexts and teh:ChunkTexts: their target classes
STEP_TEXT_CLASSES = tuple(TG + name for name in ("Reflection", "Answer", "Thought", "Observation", "Conclusion",
                                                  "Synthesis", "Finding", "StepResult"))
CHUNK_TEXT_CLASSES = (TG + "ChunkSelection",)
_MESSAGES = {
    UNKNOWN_TYPE: "a class in the TrustGraph namespace that the trace model does not know",
    EDGE: "the chosen edge survives only as a literal that does not read as a quoted triple",
    CONTAINS: "the extracted fact survives only as a literal that does not read as a quoted triple",
    DANGLING_DERIVATION: "an entity derives from this, but nothing loaded describes it",
    MISSING_TEXT: "its text is in neither the loaded documents nor the librarian",
    MISSING_CHUNK_TEXT: "the chosen chunk's text is not loaded",
}

_LOOKED_AT = _DESCRIBING | {EDGE, CONTAINS, CONTENT, DOCUMENT, SUBCLASS_OF}

Term = ox.NamedNode | ox.BlankNode | ox.Literal


@dataclass
class _Facts:
    """What the shapes look at, gathered in one pass: ``typed`` (each object of rdf:type -> its
    subjects), ``quoted`` (subject, predicate, object of tg:edge / tg:contains),
    ``derived_from`` (the objects of prov:wasDerivedFrom), ``described`` (subjects with a
    describing property), ``with_text`` (subjects with tg:content), ``documents`` ((subject,
    object) of tg:document), ``subclasses`` (class -> its direct rdfs:subClassOf subjects)."""

    typed: dict = field(default_factory=dict)
    quoted: set = field(default_factory=set)
    derived_from: set = field(default_factory=set)
    described: set = field(default_factory=set)
    with_text: set = field(default_factory=set)
    documents: set = field(default_factory=set)
    subclasses: dict = field(default_factory=dict)


def check(triples: Iterable[ox.Triple | ox.Quad]) -> list[ShapeResult]:
    """Every violation of the shapes by ``triples`` (graph names ignored; a triple whose subject is
    a triple term is left out), as ``shacl.validate`` reports it (in no particular order)."""
    return _results(_gather(triples))


def check_indexed(index: TripleIndex, triples: Iterable[ox.Triple | ox.Quad] = (),
                  with_text: Iterable[str] = ()) -> list[ShapeResult]:
    """``check`` of the triples ``index`` holds (``model.triple_index.TripleIndex``), of
    ``triples`` and of a ``tg:content`` on each IRI of ``with_text``: the same results, the
    index's facts gathered subject by subject (a few of its predicates each) rather than triple
    by triple."""
    facts = _gather(triples)
    _gather_index(index, facts)
    facts.with_text.update(ox.NamedNode(iri) for iri in with_text)
    return _results(facts)


def _results(facts: _Facts) -> list[ShapeResult]:
    return (_known_types(facts) + _quoted_triples(facts) + _derivation_targets(facts)
            + _texts(facts, STEP_TEXT_CLASSES, MISSING_TEXT, WARNING, _MESSAGES[MISSING_TEXT])
            + _texts(facts, CHUNK_TEXT_CLASSES, MISSING_CHUNK_TEXT, INFO, _MESSAGES[MISSING_CHUNK_TEXT]))


def _gather(triples: Iterable[ox.Triple | ox.Quad]) -> _Facts:
    facts = _Facts()
    for triple in triples:
        predicate = triple.predicate.value
        if predicate not in _LOOKED_AT:  # most of a trace: its fields
            continue
        subject = triple.subject
        if not isinstance(subject, ox.Triple):
            _note(facts, subject, predicate, (triple.object,))
    return facts


def _gather_index(index: TripleIndex, facts: _Facts) -> None:
    """``_gather`` of the triples of ``index``, into ``facts``. A subject's key is its IRI, its
    ``_:id`` or, for a triple term, its N-Triples form (``term_key``: it starts with "<", which
    no IRI does), left out as ``_gather`` leaves it."""
    for key, properties in index.properties.items():
        looked = _LOOKED_AT.intersection(properties)
        if not looked or key.startswith("<"):
            continue
        subject = ox.BlankNode(key[2:]) if key.startswith("_:") else ox.NamedNode(key)
        for predicate in looked:
            _note(facts, subject, predicate, properties[predicate])


def _note(facts: _Facts, subject: Term, predicate: str, objects: Iterable[Term]) -> None:
    """Add to ``facts`` what the triples ``subject predicate o``, for each o of ``objects``, say
    (``predicate`` one of ``_LOOKED_AT``)."""
    if predicate in _DESCRIBING:
        facts.described.add(subject)
        if predicate == RDF_TYPE:
            for obj in objects:
                facts.typed.setdefault(obj, set()).add(subject)
        elif predicate == WAS_DERIVED_FROM:
            facts.derived_from.update(objects)
    elif predicate == EDGE or predicate == CONTAINS:
        facts.quoted.update((subject, predicate, obj) for obj in objects)
    elif predicate == CONTENT:
        facts.with_text.add(subject)
    elif predicate == DOCUMENT:
        facts.documents.update((subject, obj) for obj in objects)
    else:  # SUBCLASS_OF
        for obj in objects:
            if not isinstance(obj, ox.Triple):
                facts.subclasses.setdefault(obj, set()).add(subject)


def _known_types(facts: _Facts) -> list[ShapeResult]:
    """teh:KnownTypes: each class used (any object of rdf:type) outside the TrustGraph namespace
    or in the trace model. A literal is read by its lexical form; a blank node never matches
    the namespace pattern."""
    out = []
    for cls in [obj for obj in facts.typed if not isinstance(obj, (ox.Triple, ox.BlankNode))]:
        key = _key(cls)
        if key.startswith(TG) and not (isinstance(cls, ox.NamedNode) and cls.value in KNOWN_TYPES):
            out.append(ShapeResult(UNKNOWN_TYPE, WARNING, key, None, same_as_rdflib(cls), _MESSAGES[UNKNOWN_TYPE]))
    return out


def _quoted_triples(facts: _Facts) -> list[ShapeResult]:
    """teh:ChosenEdges, teh:ExtractedFacts: a tg:edge or tg:contains that is a literal."""
    return [ShapeResult(DAMAGED_QUOTED_TRIPLE, ERROR, _key(subject), predicate, same_as_rdflib(obj), _MESSAGES[predicate])
            for subject, predicate, obj in facts.quoted if isinstance(obj, ox.Literal)]


def _derivation_targets(facts: _Facts) -> list[ShapeResult]:
    """teh:DerivationTargets: what something derives from has a type, a tg:query or a derivation
    or generation of its own (a triple term never has: it is a fresh blank node)."""
    return [ShapeResult(DANGLING_DERIVATION, ERROR, _key(target), None, None, _MESSAGES[DANGLING_DERIVATION])
            for target in facts.derived_from if isinstance(target, ox.Triple) or target not in facts.described]


def _texts(facts: _Facts, classes: tuple[str, ...], rule: str, severity: str, message: str) -> list[ShapeResult]:
    """teh:StepTexts, teh:ChunkTexts: each tg:document of an instance of ``classes`` (or of their
    subclasses in the data) has a tg:content."""
    wanted = _with_subclasses([ox.NamedNode(c) for c in classes], facts.subclasses)
    focus = set().union(*(facts.typed.get(cls, ()) for cls in wanted))
    out = []
    for subject, document in facts.documents:
        if subject in focus and (isinstance(document, ox.Triple) or document not in facts.with_text):
            out.append(ShapeResult(rule, severity, _key(subject), DOCUMENT, same_as_rdflib(document), message))
    return out


def _with_subclasses(classes: list[Term], subclasses: dict) -> set:
    out, queue = set(classes), list(classes)
    while queue:
        for sub in subclasses.get(queue.pop(), ()):
            if sub not in out:
                out.add(sub)
                queue.append(sub)
    return out


def _key(term: Term) -> str:
    """The focus node's key as ``shacl.ShapeResult`` has it: an IRI, ``_:id``, a literal's value
    (as rdflib reads it; a triple term is a fresh ``_:id``)."""
    if isinstance(term, ox.NamedNode):
        return term.value
    if isinstance(term, ox.BlankNode):
        return "_:" + term.value
    return focus_key(term)
