"""Bring the four spellings of a quoted triple to one RDF 1.2 triple term (TRACE-MODEL.md).

1. RDF-star ``<< s p o >>`` in Turtle/TriG: an RDF 1.2 parser reads it as a reifier blank node
   ``_:r`` with ``_:r rdf:reifies <<( s p o )>>``. When ``_:r`` says nothing else, the object is
   replaced by the triple term and the ``rdf:reifies`` quad dropped.
2. ``<<( s p o )>>`` is already a triple term.
3. The wire JSON form is decoded by ``trace_explorer.wire``.
4. A damaged export writes the triple as a string literal, either ``"<<http://a http://p v>>"`` or
   the Python repr (or JSON) of the wire dict. Such literals are recovered when they parse, on the
   predicates that carry quoted triples (``tg:edge``, ``tg:contains``, ``tg:reifies``); otherwise
   they stay literals.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Iterable

import pyoxigraph as ox

from ..model.vocabulary import QUOTED_TRIPLE_PREDICATES, RDF_REIFIES
from .wire import WireFormatError, decode_term

_ANGLE_FORM = re.compile(r"^\s*<<\s*(.*?)\s*>>\s*$", re.S)
_IRI_LIKE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]+$")
_MAX_DAMAGED_LENGTH = 100_000


def triple_from_literal(text: str) -> ox.Triple | None:
    """Recover a quoted triple written as a string (spelling 4); None when it does not parse."""
    if len(text) > _MAX_DAMAGED_LENGTH:
        return None
    stripped = text.strip()
    if stripped.startswith("{"):
        return _triple_from_dict_text(stripped)
    match = _ANGLE_FORM.match(stripped)
    if match:
        return _triple_from_angle_text(match.group(1))
    return None


def _triple_from_dict_text(text: str) -> ox.Triple | None:
    value = None
    try:
        value = json.loads(text)
    except ValueError:
        try:
            value = ast.literal_eval(text)  # the Python repr of a wire dict; literal_eval runs no code
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    try:
        term = decode_term(value)
    except (WireFormatError, RecursionError):
        return None
    return term if isinstance(term, ox.Triple) else None


def _triple_from_angle_text(inner: str) -> ox.Triple | None:
    parts = inner.split(None, 2)
    if len(parts) != 3:
        return None
    subject, predicate, obj = _strip_angles(parts[0]), _strip_angles(parts[1]), parts[2]
    if not (_IRI_LIKE.match(subject) and _IRI_LIKE.match(predicate)):
        return None
    obj = obj.strip()
    try:
        if obj.startswith("<") and obj.endswith(">") and _IRI_LIKE.match(obj[1:-1]):
            o_term = ox.NamedNode(obj[1:-1])
        elif len(obj) >= 2 and obj[0] == obj[-1] == '"':
            o_term = ox.Literal(obj[1:-1])
        elif _IRI_LIKE.match(obj):
            o_term = ox.NamedNode(obj)
        else:
            o_term = ox.Literal(obj)
        return ox.Triple(ox.NamedNode(subject), ox.NamedNode(predicate), o_term)
    except ValueError:
        return None


def _strip_angles(text: str) -> str:
    return text[1:-1] if text.startswith("<") and text.endswith(">") else text


_CARRIERS = tuple(f"<{p}>".encode() for p in sorted(QUOTED_TRIPLE_PREDICATES))  # as written in a line format
_ESCAPES_LOOKED_AT = 10_000  # backslashes looked at one by one; past that, the text is searched for escapes


def may_normalise(text: bytes, blank_nodes: bool = True) -> bool:
    """False when the N-Triples or N-Quads ``text`` certainly holds neither spelling 1 nor 4
    (``normalise_quoted_triples`` would give its quads back as they are): it names no blank
    node (a reifier is one; these formats make none unnamed), and no predicate that carries
    quoted triples, written as it is, has a literal after it. True when it may (a ``\\u`` or
    ``\\U`` escape in the text, which may spell such a predicate otherwise, counts as may).
    ``blank_nodes`` False: the caller knows the text names none (``rdf_stream``)."""
    if blank_nodes and b"_:" in text:
        return True
    if _escapes(text):
        return True
    for predicate in _CARRIERS:
        at = text.find(predicate)
        while at >= 0:
            at += len(predicate)
            if text[at:at + 64].lstrip(b" \t")[:1] == b'"':
                return True
            at = text.find(predicate, at)
    return False


def _escapes(text: bytes) -> bool:
    """True when ``text`` may hold a ``\\u`` or ``\\U`` escape."""
    at = text.find(b"\\")
    for _ in range(_ESCAPES_LOOKED_AT):
        if at < 0:
            return False
        if text[at + 1:at + 2] in (b"u", b"U"):
            return True
        at = text.find(b"\\", at + 2)
    return b"\\u" in text or b"\\U" in text


def normalise_quoted_triples(quads: Iterable[ox.Quad]) -> tuple[list[ox.Quad], int]:
    """Rewrite spellings 1 and 4 into triple terms.

    Returns ``(quads, recovered)``: the new quad list (same order, ``rdf:reifies`` quads of folded
    reifiers removed) and how many damaged literals were recovered.
    """
    quads = list(quads)
    reifies: dict[ox.BlankNode, ox.Triple] = {}
    reifies_count: Counter = Counter()
    described: set[ox.BlankNode] = set()
    for quad in quads:
        if isinstance(quad.subject, ox.BlankNode):
            if quad.predicate.value == RDF_REIFIES and isinstance(quad.object, ox.Triple):
                reifies[quad.subject] = quad.object
                reifies_count[quad.subject] += 1
            else:
                described.add(quad.subject)
    foldable = {b for b in reifies if reifies_count[b] == 1 and b not in described}
    out: list[ox.Quad] = []
    recovered = 0
    for quad in quads:
        subject, obj = quad.subject, quad.object
        if subject in foldable and quad.predicate.value == RDF_REIFIES:
            continue
        if isinstance(obj, ox.BlankNode) and obj in foldable:
            quad = ox.Quad(subject, quad.predicate, reifies[obj], quad.graph_name)
        elif isinstance(obj, ox.Literal) and quad.predicate.value in QUOTED_TRIPLE_PREDICATES:
            triple = triple_from_literal(obj.value)
            if triple is not None:
                quad = ox.Quad(subject, quad.predicate, triple, quad.graph_name)
                recovered += 1
        out.append(quad)
    return out, recovered
