"""A review as the triples of a W3C Web Annotation (Web Annotation Vocabulary, ``oa:``), and back.

The shape (issue 42; W3C Web Annotation Data Model and Vocabulary, 2017)::

    <urn:uuid:A> a oa:Annotation ;
        oa:motivatedBy oa:assessing ;
        oa:hasTarget <target IRI> ;                      # the whole step, session, edge, chunk
        # or, for a span of its text:
        oa:hasTarget <urn:uuid:A#target> .
    <urn:uuid:A#target> a oa:SpecificResource ; oa:hasSource <target IRI> ;
        oa:hasSelector <urn:uuid:A#quote>, <urn:uuid:A#position> .
    <urn:uuid:A#quote> a oa:TextQuoteSelector ; oa:exact "the quoted text" .
    <urn:uuid:A#position> a oa:TextPositionSelector ; oa:start 10 ; oa:end 25 .
    <urn:uuid:A> oa:hasBody <urn:uuid:A#label>, <urn:uuid:A#comment>, <urn:uuid:A#score> ;
        dcterms:creator <urn:trace-explorer:reviewer:NAME> ;
        dcterms:created "..."^^xsd:dateTime ; dcterms:modified "..."^^xsd:dateTime ;
        schema:about <session IRI> .                      # the session reviewed, for the list
    <urn:uuid:A#label> a oa:TextualBody ; rdf:value "incorrect" ; oa:hasPurpose oa:tagging .
    <urn:uuid:A#comment> a oa:TextualBody ; rdf:value "..." ; oa:hasPurpose oa:commenting ;
        dc:format "text/plain" .
    <urn:uuid:A#score> a schema:Rating ; schema:ratingValue "0.5"^^xsd:double ;
        oa:hasPurpose oa:assessing .
    <urn:trace-explorer:reviewer:NAME> a foaf:Person ; foaf:name "NAME" .

The score is a body of its own, a schema.org ``Rating`` (its ``ratingValue`` a double) with
the purpose ``oa:assessing``: the Web Annotation model has no score, the TextualBody's value is
text, and the anno.jsonld context defines the ``schema:`` prefix, so the score stays a number in
JSON-LD. The session the target belongs to is ``schema:about`` ("the subject matter of the
content"), so that a session's reviews are one look-up whatever their target. Every node is named
(the annotation's IRI and a fragment), so that a review's triples are the same in the store, in
Turtle and in JSON-LD, and a review is removed without touching another's.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, timezone
from urllib.parse import quote, unquote

import pyoxigraph as ox

from .review import ID_PREFIX, Review, ReviewError, Selector

OA = "http://www.w3.org/ns/oa#"
DCTERMS = "http://purl.org/dc/terms/"
DC = "http://purl.org/dc/elements/1.1/"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
XSD = "http://www.w3.org/2001/XMLSchema#"
FOAF = "http://xmlns.com/foaf/0.1/"
SCHEMA = "http://schema.org/"  # as the anno.jsonld context spells it
REVIEWER_PREFIX = "urn:trace-explorer:reviewer:"

TYPE = ox.NamedNode(RDF + "type")
VALUE = ox.NamedNode(RDF + "value")
ANNOTATION = ox.NamedNode(OA + "Annotation")
HAS_TARGET, HAS_BODY, HAS_SOURCE = (ox.NamedNode(OA + n) for n in ("hasTarget", "hasBody", "hasSource"))
HAS_SELECTOR, HAS_PURPOSE, MOTIVATED_BY = (ox.NamedNode(OA + n) for n in ("hasSelector", "hasPurpose", "motivatedBy"))
SPECIFIC_RESOURCE, TEXTUAL_BODY = ox.NamedNode(OA + "SpecificResource"), ox.NamedNode(OA + "TextualBody")
QUOTE_SELECTOR, POSITION_SELECTOR = ox.NamedNode(OA + "TextQuoteSelector"), ox.NamedNode(OA + "TextPositionSelector")
EXACT, START, END = (ox.NamedNode(OA + n) for n in ("exact", "start", "end"))
ASSESSING, TAGGING, COMMENTING = (ox.NamedNode(OA + n) for n in ("assessing", "tagging", "commenting"))
CREATOR, CREATED, MODIFIED = (ox.NamedNode(DCTERMS + n) for n in ("creator", "created", "modified"))
FORMAT = ox.NamedNode(DC + "format")
PERSON, NAME = ox.NamedNode(FOAF + "Person"), ox.NamedNode(FOAF + "name")
RATING, RATING_VALUE, ABOUT = (ox.NamedNode(SCHEMA + n) for n in ("Rating", "ratingValue", "about"))
DATETIME, DOUBLE = ox.NamedNode(XSD + "dateTime"), ox.NamedNode(XSD + "double")
NON_NEGATIVE = ox.NamedNode(XSD + "nonNegativeInteger")  # oa:start / oa:end, as anno.jsonld types them
PLAIN_TEXT = ox.Literal("text/plain")
NODES = ("target", "quote", "position", "label", "comment", "score")  # the fragments of a review's own nodes


def reviewer_iri(author: str) -> str:
    """The IRI naming the reviewer ``author``: ``urn:trace-explorer:reviewer:`` and the name,
    percent-encoded (RFC 3986)."""
    return REVIEWER_PREFIX + quote(author, safe="")


def reviewer_name(iri: str) -> str:
    """The name a ``reviewer_iri`` holds (any other IRI as it is)."""
    return unquote(iri[len(REVIEWER_PREFIX):]) if iri.startswith(REVIEWER_PREFIX) else iri


def own_nodes(review_id: str) -> list[ox.NamedNode]:
    """The review's IRI and its own nodes' (``NODES``): every subject its triples have but the
    reviewer's."""
    return [ox.NamedNode(review_id)] + [ox.NamedNode(f"{review_id}#{n}") for n in NODES]


def stamp(moment: datetime) -> ox.Literal:
    """``moment`` as an xsd:dateTime literal in UTC with a ``Z``, to the millisecond."""
    text = moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return ox.Literal(text, datatype=DATETIME)


def triples(review: Review) -> list[ox.Triple]:
    """The review's Web Annotation triples (the shape in the module docstring)."""
    a = ox.NamedNode(review.id)
    node = {n: ox.NamedNode(f"{review.id}#{n}") for n in NODES}
    creator = ox.NamedNode(reviewer_iri(review.author))
    out = [ox.Triple(a, TYPE, ANNOTATION), ox.Triple(a, MOTIVATED_BY, ASSESSING),
           ox.Triple(a, CREATOR, creator), ox.Triple(creator, TYPE, PERSON),
           ox.Triple(creator, NAME, ox.Literal(review.author)),
           ox.Triple(a, CREATED, stamp(review.created)), ox.Triple(a, MODIFIED, stamp(review.modified))]
    if review.session:
        out.append(ox.Triple(a, ABOUT, ox.NamedNode(review.session)))
    if review.selector is None:
        out.append(ox.Triple(a, HAS_TARGET, ox.NamedNode(review.target)))
    else:
        s = review.selector
        out += [ox.Triple(a, HAS_TARGET, node["target"]), ox.Triple(node["target"], TYPE, SPECIFIC_RESOURCE),
                ox.Triple(node["target"], HAS_SOURCE, ox.NamedNode(review.target)),
                ox.Triple(node["target"], HAS_SELECTOR, node["quote"]),
                ox.Triple(node["target"], HAS_SELECTOR, node["position"]),
                ox.Triple(node["quote"], TYPE, QUOTE_SELECTOR), ox.Triple(node["quote"], EXACT, ox.Literal(s.quote)),
                ox.Triple(node["position"], TYPE, POSITION_SELECTOR),
                ox.Triple(node["position"], START, ox.Literal(str(s.start), datatype=NON_NEGATIVE)),
                ox.Triple(node["position"], END, ox.Literal(str(s.end), datatype=NON_NEGATIVE))]
    out += [ox.Triple(a, HAS_BODY, node["label"]), ox.Triple(node["label"], TYPE, TEXTUAL_BODY),
            ox.Triple(node["label"], VALUE, ox.Literal(review.label)), ox.Triple(node["label"], HAS_PURPOSE, TAGGING)]
    if review.comment:
        out += [ox.Triple(a, HAS_BODY, node["comment"]), ox.Triple(node["comment"], TYPE, TEXTUAL_BODY),
                ox.Triple(node["comment"], VALUE, ox.Literal(review.comment)),
                ox.Triple(node["comment"], HAS_PURPOSE, COMMENTING), ox.Triple(node["comment"], FORMAT, PLAIN_TEXT)]
    if review.score is not None:
        out += [ox.Triple(a, HAS_BODY, node["score"]), ox.Triple(node["score"], TYPE, RATING),
                ox.Triple(node["score"], RATING_VALUE, ox.Literal(repr(float(review.score)), datatype=DOUBLE)),
                ox.Triple(node["score"], HAS_PURPOSE, ASSESSING)]
    return out


def quads(review: Review, graph: ox.NamedNode) -> list[ox.Quad]:
    """``triples(review)`` in ``graph``."""
    return [ox.Quad(t.subject, t.predicate, t.object, graph) for t in triples(review)]


def reviews_from(statements: Iterable[ox.Triple | ox.Quad]) -> list[Review]:
    """The reviews among ``statements`` (triples or quads of any graph, read as one graph): every
    ``oa:Annotation`` with a target and a tagging TextualBody, as the module docstring shapes
    it, and also as other tools write it (blank nodes, the selectors in either order, a creator
    that is a literal or an IRI without a name, ``oa:hasPurpose`` on the annotation's only
    TextualBody missing: then its value is the label). An annotation that is a blank node gets
    the IRI ``urn:uuid:`` and a UUID (version 5) of what it says, so that the same file read twice
    gives the same reviews. An annotation without a label, target, creator or time raises
    ReviewError naming it. Ordered by creation time, then IRI."""
    by_subject: dict[object, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for s in statements:
        by_subject[s.subject][s.predicate.value].append(s.object)
    out = [_review(subject, by_subject) for subject, props in by_subject.items()
           if ANNOTATION in props.get(TYPE.value, ())]
    return sorted(out, key=lambda r: (r.created, r.id))


def _review(subject, by_subject) -> Review:
    props = by_subject[subject]
    name = getattr(subject, "value", str(subject))

    def one(node, predicate, what):
        values = by_subject.get(node, {}).get(predicate.value, [])
        if not values:
            raise ReviewError(f"the annotation {name} has no {what}")
        return values[0]

    target = one(subject, HAS_TARGET, "target")
    selector = None
    if SPECIFIC_RESOURCE in by_subject.get(target, {}).get(TYPE.value, ()) or HAS_SOURCE.value in by_subject.get(target, {}):
        source = one(target, HAS_SOURCE, "target source")
        quote_text, start, end = None, None, None
        for sel in by_subject[target].get(HAS_SELECTOR.value, []):
            sel_props = by_subject.get(sel, {})
            if EXACT.value in sel_props:
                quote_text = sel_props[EXACT.value][0].value
            if START.value in sel_props and END.value in sel_props:
                start, end = int(sel_props[START.value][0].value), int(sel_props[END.value][0].value)
        if quote_text is not None and start is not None:
            selector = Selector(quote_text, start, end)
        target = source
    if not isinstance(target, ox.NamedNode):
        raise ReviewError(f"the annotation {name} targets no IRI")
    label = comment = score = None
    bodies = props.get(HAS_BODY.value, [])
    for body in bodies:
        body_props = by_subject.get(body, {})
        purposes = body_props.get(HAS_PURPOSE.value, [])
        if RATING_VALUE.value in body_props:
            score = float(body_props[RATING_VALUE.value][0].value)
        elif VALUE.value in body_props:
            text = body_props[VALUE.value][0].value
            if COMMENTING in purposes:
                comment = text
            elif TAGGING in purposes or (not purposes and len(bodies) == 1):
                label = text
    if label is None:
        raise ReviewError(f"the annotation {name} has no label (a TextualBody with oa:hasPurpose oa:tagging)")
    creator = one(subject, CREATOR, "creator")
    if isinstance(creator, ox.Literal):
        author = creator.value
    else:
        names = by_subject.get(creator, {}).get(NAME.value, [])
        author = names[0].value if names else reviewer_name(creator.value)
    created = parse_time(one(subject, CREATED, "creation time"))
    modified = parse_time(props[MODIFIED.value][0]) if props.get(MODIFIED.value) else created
    about = props.get(ABOUT.value, [])
    if not isinstance(subject, ox.NamedNode):  # a file's blank node: an IRI of what it says, the same each time
        key = "\n".join(map(str, (target.value, selector, label, score, comment, author, created.isoformat())))
        name = ID_PREFIX + str(uuid.uuid5(uuid.NAMESPACE_URL, key))
    return Review(id=name, target=target.value, label=label, author=author, created=created, modified=modified,
                  session=about[0].value if about and isinstance(about[0], ox.NamedNode) else None,
                  selector=selector, score=score, comment=comment)


def parse_time(literal) -> datetime:
    """An aware datetime from an xsd:dateTime literal (a time without a zone is taken as UTC)."""
    try:
        moment = datetime.fromisoformat(literal.value.replace("Z", "+00:00"))
    except (AttributeError, ValueError):
        raise ReviewError(f"expected an xsd:dateTime, not {str(literal)[:80]}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
