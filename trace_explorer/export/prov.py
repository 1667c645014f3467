"""A session as PROV-JSON or PROV-N, written by the ``prov`` package (W3C PROV-DM).

The session's quads (``export.data.export_quads``) are mapped onto PROV-DM records:

- each subject becomes an element: ``prov:Activity`` / ``prov:Agent`` / ``prov:Entity`` from its
  ``rdf:type``; untyped subjects take the class their PROV relations imply (the subject of
  ``prov:used`` is an Activity...), else Entity (a TrustGraph record such as a Thought or an
  EdgeSelection is a digital thing);
- other ``rdf:type`` values become ``prov:type``, ``rdfs:label`` becomes ``prov:label``, and every
  other property with a literal or IRI value becomes an attribute of the element (literals keep
  their datatype and language; IRIs become qualified names);
- PROV-O's starting-point properties become PROV-DM relations (``wasDerivedFrom`` ->
  derivation, ``wasGeneratedBy`` -> generation, ``used`` -> usage, ...);
  ``prov:startedAtTime`` / ``endedAtTime`` on an Activity become its start and end time; on an
  Entity (TrustGraph's Question) ``startedAtTime`` and ``generatedAtTime`` become the time of a
  generation without an activity, PROV-DM's way to say when an entity came to be;
- each named graph becomes a bundle of that name; the default graph is the document itself.

PROV-DM cannot say some things: a quoted triple as a value (``tg:edge``, ``tg:contains``), a
blank node, a literal where a relation needs an element, a time that is not ISO-8601, and the
qualified forms of PROV-O. Those quads are returned as ``unmapped``: PROV-N lists them in
``//`` comments at the top of the file (N-Quads 1.2 lines); PROV-JSON has no comments, so the
caller shows them as a warning.
"""

from __future__ import annotations

import warnings as _warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import prov.model as pm
import pyoxigraph as ox

from ..model.literals import parse_time
from ..model.session import Session
from ..model.vocabulary import DC, PROV, RDF, RDF_TYPE, RDFS, RDFS_LABEL, TG, XSD
from ..read.collection import TraceStore
from .data import export_quads
from .suffixes import PROV_SUFFIXES

_XSD_STRING = XSD + "string"
_RDF_LANG_STRING = RDF + "langString"
_CLASSES = {PROV + "Entity": "Entity", PROV + "Activity": "Activity", PROV + "Agent": "Agent"}
# PROV-O property -> (ProvBundle method, the class its subject has)
RELATIONS: dict[str, tuple[str, str]] = {
    "wasDerivedFrom": ("wasDerivedFrom", "Entity"),
    "wasGeneratedBy": ("wasGeneratedBy", "Entity"),
    "wasAttributedTo": ("wasAttributedTo", "Entity"),
    "wasInvalidatedBy": ("wasInvalidatedBy", "Entity"),
    "wasRevisionOf": ("wasRevisionOf", "Entity"),
    "wasQuotedFrom": ("wasQuotedFrom", "Entity"),
    "hadPrimarySource": ("hadPrimarySource", "Entity"),
    "specializationOf": ("specializationOf", "Entity"),
    "alternateOf": ("alternateOf", "Entity"),
    "hadMember": ("hadMember", "Entity"),
    "used": ("used", "Activity"),
    "wasAssociatedWith": ("wasAssociatedWith", "Activity"),
    "wasInformedBy": ("wasInformedBy", "Activity"),
    "wasStartedBy": ("wasStartedBy", "Activity"),
    "wasEndedBy": ("wasEndedBy", "Activity"),
    "actedOnBehalfOf": ("actedOnBehalfOf", "Agent"),
    "wasInfluencedBy": ("wasInfluencedBy", ""),
}
_TIMES = {"startedAtTime", "endedAtTime", "generatedAtTime", "invalidatedAtTime"}
_ATTRIBUTES = {"value": pm.PROV_VALUE, "atLocation": pm.PROV_LOCATION}
# Namespace prefixes, most specific first: TrustGraph's own IRI families, then vocabularies.
NAMESPACES: tuple[tuple[str, str], ...] = (
    ("agent", "urn:trustgraph:agent:"),
    ("graphrag", "urn:trustgraph:question:"),
    ("docrag", "urn:trustgraph:docrag:"),
    ("step", "urn:trustgraph:prov:"),
    ("doc", "urn:trustgraph:doc:"),
    ("graph", "urn:graph:"),
    ("chunk", "urn:chunk:"),
    ("page", "urn:page:"),
    ("subgraph", "https://trustgraph.ai/subgraph/"),
    ("component", "https://trustgraph.ai/agent/"),
    ("tg", TG),
    ("rdf", RDF),
    ("rdfs", RDFS),
    ("dc", DC),
    ("xsd", XSD),
)


@dataclass
class ProvExport:
    """One session as PROV: ``data`` (UTF-8 bytes), ``format`` ("PROV-N" or "PROV-JSON"),
    ``records`` (PROV records written, bundles included), ``unmapped`` (the quads PROV-DM cannot
    say, in input order) and ``warnings`` (the ``prov`` package's own, e.g. an IRI it had to
    percent-encode for PROV-N)."""

    data: bytes
    format: str
    records: int
    unmapped: list[ox.Quad] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def prov_document(quads: Sequence[ox.Quad]) -> tuple[pm.ProvDocument, list[ox.Quad]]:
    """Map ``quads`` onto a ``prov.model.ProvDocument`` (see the module docstring); returns it
    with the quads that have no PROV-DM counterpart. Never raises on odd data."""
    document = pm.ProvDocument()
    names = _Names(document, quads)
    classes = _classes(quads)
    unmapped: list[ox.Quad] = []
    by_graph: dict[str, list[ox.Quad]] = {}
    for quad in quads:
        graph = quad.graph_name.value if isinstance(quad.graph_name, ox.NamedNode) else ""
        by_graph.setdefault(graph, []).append(quad)
    for graph, graph_quads in by_graph.items():
        bundle = document.bundle(names.qname(graph)) if graph else document
        unmapped.extend(_fill(bundle, graph_quads, classes, names))
    return document, unmapped


def unmapped_comment(unmapped: Sequence[ox.Quad], session_id: str | None = None) -> str:
    """``//`` comment lines for the top of a PROV-N file: what was left out, one N-Quads line each."""
    lines = []
    if session_id:
        lines.append(f"// PROV-N of the TrustGraph session <{session_id}>, written by Trace Explorer.")
    if unmapped:
        lines.append(f"// {len(unmapped)} triple(s) have no PROV-DM counterpart and are not below (N-Quads 1.2):")
        lines += ["//   " + nquad_line(q) for q in unmapped]
    else:
        lines.append("// Every triple of the session is below.")
    return "\n".join(lines) + "\n"


def export_session_prov(collection: TraceStore, session: Session, sessions: Mapping[str, Session],
                        suffix: str, include_children: bool = True) -> ProvExport:
    """The session (and its sub-sessions unless ``include_children`` is False) as PROV-N
    (``suffix`` ".provn") or PROV-JSON (".provjson"). Raises ValueError for another suffix."""
    suffix = suffix.lower()
    if suffix not in PROV_SUFFIXES:
        raise ValueError(f"unknown PROV format {suffix!r}: use one of {', '.join(PROV_SUFFIXES)}")
    quads = export_quads(collection, session, sessions, include_children)
    with _warnings.catch_warnings(record=True) as caught:
        _warnings.simplefilter("always")
        document, unmapped = prov_document(quads)
        if suffix == ".provn":
            text = unmapped_comment(unmapped, session.id) + document.get_provn() + "\n"
        else:
            text = document.serialize(format="json", indent=1) + "\n"
    messages = list(dict.fromkeys(str(w.message) for w in caught))
    records = len(document.records) + sum(len(b.records) for b in document.bundles)
    return ProvExport(text.encode("utf-8"), PROV_SUFFIXES[suffix], records, unmapped, messages)


class _Names:
    """Qualified names for IRIs: the fixed NAMESPACES, then ``ns1``, ``ns2``... for the rest,
    numbered in the order of their namespace IRIs so the same quads give the same prefixes."""

    def __init__(self, document: pm.ProvDocument, quads: Sequence[ox.Quad]):
        self.document = document
        self.namespaces: dict[str, pm.Namespace] = {}
        iris = set()
        for quad in quads:
            for term in (quad.subject, quad.predicate, quad.object, quad.graph_name):
                if isinstance(term, ox.NamedNode):
                    iris.add(term.value)
                elif isinstance(term, ox.Literal):
                    iris.add(term.datatype.value)
        others = sorted({self._split(i)[0] for i in iris if self._known(i) is None} - {PROV})
        self.extra = {uri: f"ns{n}" for n, uri in enumerate(others, 1)}

    @staticmethod
    def _known(iri: str) -> tuple[str, str] | None:
        for prefix, uri in NAMESPACES:
            if iri.startswith(uri) and len(iri) > len(uri):
                return prefix, uri
        return None

    @staticmethod
    def _split(iri: str) -> tuple[str, str]:
        for sep in ("#", "/", ":"):
            cut = iri.rfind(sep)
            if 0 < cut < len(iri) - 1:
                return iri[: cut + 1], iri[cut + 1:]
        return iri, ""

    def qname(self, iri: str) -> pm.QualifiedName:
        """The qualified name of ``iri``, registering its namespace on first use."""
        if iri.startswith(PROV) and len(iri) > len(PROV):
            return pm.PROV[iri[len(PROV):]]
        known = self._known(iri)
        if known:
            prefix, uri = known
        else:
            uri, _ = self._split(iri)
            prefix = self.extra[uri]
        if prefix not in self.namespaces:
            self.namespaces[prefix] = self.document.add_namespace(prefix, uri)
        return self.namespaces[prefix][iri[len(uri):]]


def _classes(quads: Sequence[ox.Quad]) -> dict[str, str]:
    """Subject IRI -> "Entity" | "Activity" | "Agent": typed first, then implied by relations."""
    typed: dict[str, str] = {}
    implied: dict[str, str] = {}
    for quad in quads:
        if not isinstance(quad.subject, ox.NamedNode):
            continue
        subject, predicate = quad.subject.value, quad.predicate.value
        if predicate == RDF_TYPE and isinstance(quad.object, ox.NamedNode) and quad.object.value in _CLASSES:
            cls = _CLASSES[quad.object.value]
            typed[subject] = cls if typed.get(subject) in (None, "Entity") else typed[subject]
        elif predicate.startswith(PROV) and predicate[len(PROV):] in RELATIONS:
            cls = RELATIONS[predicate[len(PROV):]][1]
            if cls:
                implied.setdefault(subject, cls)
        elif predicate in (PROV + "startedAtTime", PROV + "endedAtTime"):
            implied.setdefault(subject, "Activity")
    return {s: typed.get(s) or implied.get(s) or "Entity" for s in set(typed) | set(implied)}


def _fill(bundle: pm.ProvBundle, quads: Sequence[ox.Quad], classes: dict[str, str], names: _Names) -> list[ox.Quad]:
    """Add the elements and relations of one graph's quads to ``bundle``; returns the unmapped."""
    unmapped: list[ox.Quad] = []
    subjects: dict[str, list[ox.Quad]] = {}
    for quad in quads:
        if not isinstance(quad.subject, ox.NamedNode) or isinstance(quad.object, (ox.BlankNode, ox.Triple)):
            unmapped.append(quad)
            continue
        subjects.setdefault(quad.subject.value, []).append(quad)
    relations: list[tuple[str, pm.QualifiedName, pm.QualifiedName]] = []
    for subject, own in subjects.items():
        cls = classes.get(subject, "Entity")
        identifier = names.qname(subject)
        attributes: list[tuple[pm.QualifiedName, object]] = []
        times: dict[str, str] = {}
        for quad in own:
            predicate, obj = quad.predicate.value, quad.object
            local = predicate[len(PROV):] if predicate.startswith(PROV) else None
            if predicate == RDF_TYPE and isinstance(obj, ox.NamedNode):
                if obj.value not in _CLASSES:
                    attributes.append((pm.PROV_TYPE, names.qname(obj.value)))
                elif obj.value != PROV + cls:  # a second class PROV-DM cannot give one element
                    unmapped.append(quad)
            elif predicate == RDFS_LABEL and isinstance(obj, ox.Literal):
                attributes.append((pm.PROV_LABEL, _literal(obj, names)))
            elif local in RELATIONS:
                if isinstance(obj, ox.NamedNode):
                    relations.append((RELATIONS[local][0], identifier, names.qname(obj.value)))
                else:
                    unmapped.append(quad)
            elif local in _TIMES:
                if isinstance(obj, ox.Literal) and parse_time(obj.value) is not None and local not in times:
                    times[local] = obj.value
                else:
                    unmapped.append(quad)
            elif local in _ATTRIBUTES:
                attributes.append((_ATTRIBUTES[local], _value(obj, names)))
            elif local is not None:
                unmapped.append(quad)  # qualified forms and other PROV-O terms
            else:
                attributes.append((names.qname(predicate), _value(obj, names)))
        if cls == "Activity":
            bundle.activity(identifier, times.pop("startedAtTime", None), times.pop("endedAtTime", None), attributes)
        elif cls == "Agent":
            bundle.agent(identifier, attributes)
        else:
            bundle.entity(identifier, attributes)
            started = times.pop("generatedAtTime", None) or times.pop("startedAtTime", None)
            if started:
                bundle.generation(identifier, None, started)
            if "invalidatedAtTime" in times:
                bundle.invalidation(identifier, None, times.pop("invalidatedAtTime"))
        for local, value in times.items():  # a time PROV-DM has no place for on this class
            unmapped.extend(q for q in own if q.predicate.value == PROV + local)
    for method, source, target in relations:
        getattr(bundle, method)(source, target)
    return unmapped


def _literal(literal: ox.Literal, names: _Names):
    if literal.language:
        return pm.Literal(literal.value, langtag=literal.language)
    if literal.datatype.value in (_XSD_STRING, _RDF_LANG_STRING):
        return literal.value
    return pm.Literal(literal.value, datatype=names.qname(literal.datatype.value))


def _value(term, names: _Names):
    if isinstance(term, ox.NamedNode):
        return names.qname(term.value)
    return _literal(term, names)


def nquad_line(quad: ox.Quad) -> str:
    """``quad`` as one N-Quads 1.2 line (triple terms as ``<<( s p o )>>``, literals escaped)."""
    parts = [_term(quad.subject), _term(quad.predicate), _term(quad.object)]
    if not isinstance(quad.graph_name, ox.DefaultGraph):
        parts.append(_term(quad.graph_name))
    return " ".join(parts) + " ."


def _term(term) -> str:
    """A term in N-Quads 1.2 form (a triple term as ``<<( s p o )>>``), always on one line."""
    if isinstance(term, ox.Triple):
        return "<<( " + " ".join(_term(t) for t in term) + " )>>"
    return str(term)
