"""TrustGraph's JSON wire form of terms and triples (TRACE-MODEL.md, spelling 3).

Terms: ``{"t":"i","i":iri}``, ``{"t":"l","v":value,"dt":?,"ln":?}``, ``{"t":"b","d":id}``, and a
quoted triple ``{"t":"t","tr":{"s":..,"p":..,"o":..}}`` (TrustGraph's docs also show
``{"t":"r","r":{...}}``). Older gateways sent ``{"v": value, "e": is_iri}``. A triple is
``{"s":..,"p":..,"o":..}`` with an optional ``"g"`` (graph IRI; missing or empty = default graph).
"""

from __future__ import annotations

from typing import Any

import pyoxigraph as ox


class WireFormatError(ValueError):
    """A value is not a wire term or triple; the message says what was expected."""


MAX_WIRE_DEPTH = 16  # triple terms inside triple terms (as read.prescan.MAX_TRIPLE_DEPTH for files)


def decode_term(term: Any, depth: int = 0) -> ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple:
    """Turn one wire term (a dict) into a pyoxigraph term (``depth``: the triple terms it lies in).

    Raises WireFormatError when ``term`` is not one of the shapes in the module docstring, or
    nests triple terms more than ``MAX_WIRE_DEPTH`` deep (a gateway's answer is untrusted: no
    depth of it may exhaust the stack).
    """
    if not isinstance(term, dict):
        raise WireFormatError(f"a term object, got {type(term).__name__}")
    kind = term.get("t")
    try:
        if kind == "i":
            return ox.NamedNode(_text(term, "i"))
        if kind == "l":
            value = term.get("v", "")
            if not isinstance(value, str):
                value = str(value)
            if term.get("ln"):
                return ox.Literal(value, language=str(term["ln"]))
            if term.get("dt"):
                return ox.Literal(value, datatype=ox.NamedNode(str(term["dt"])))
            return ox.Literal(value)
        if kind == "b":
            return ox.BlankNode(_text(term, "d"))
        if kind in ("t", "r"):
            if depth >= MAX_WIRE_DEPTH:
                raise WireFormatError(f"triple terms nested at most {MAX_WIRE_DEPTH} deep")
            return decode_triple(term.get("tr" if kind == "t" else "r"), depth + 1)
        if kind is None and "v" in term:
            value = str(term["v"])
            return ox.NamedNode(value) if term.get("e") else ox.Literal(value)
    except ValueError as error:  # pyoxigraph rejects a bad IRI or language tag with ValueError
        if isinstance(error, WireFormatError):
            raise
        raise WireFormatError(f"a valid term, got {term!r:.120}: {error}") from None
    raise WireFormatError(f'a term with "t" of i, l, b, t or r, got {kind!r}')


def decode_triple(triple: Any, depth: int = 0) -> ox.Triple:
    """Turn a wire triple ``{"s","p","o"}`` into a pyoxigraph Triple (raises WireFormatError);
    ``depth``: the triple terms it lies in."""
    if not isinstance(triple, dict) or not {"s", "p", "o"} <= triple.keys():
        raise WireFormatError('a triple object with "s", "p" and "o"')
    subject = decode_term(triple["s"], depth)
    predicate = decode_term(triple["p"], depth)
    if not isinstance(predicate, ox.NamedNode):
        raise WireFormatError("an IRI as predicate")
    if isinstance(subject, ox.Literal):
        raise WireFormatError("an IRI, blank node or triple as subject")
    return ox.Triple(subject, predicate, decode_term(triple["o"], depth))


def decode_quad(triple: Any) -> ox.Quad:
    """Turn a wire triple with optional ``"g"`` into a pyoxigraph Quad (raises WireFormatError)."""
    decoded = decode_triple(triple)
    graph = triple.get("g")
    try:
        graph_name = ox.NamedNode(graph) if isinstance(graph, str) and graph else ox.DefaultGraph()
    except ValueError as error:
        raise WireFormatError(f'a graph IRI in "g", got {graph!r:.120}: {error}') from None
    return ox.Quad(decoded.subject, decoded.predicate, decoded.object, graph_name)


def encode_term(term: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple) -> dict[str, Any]:
    """Inverse of ``decode_term``: a pyoxigraph term as a wire dict."""
    if isinstance(term, ox.NamedNode):
        return {"t": "i", "i": term.value}
    if isinstance(term, ox.BlankNode):
        return {"t": "b", "d": term.value}
    if isinstance(term, ox.Triple):
        return {"t": "t", "tr": {k: encode_term(v) for k, v in zip("spo", term)}}
    out: dict[str, Any] = {"t": "l", "v": term.value}
    if term.language:
        out["ln"] = term.language
    elif term.datatype.value != "http://www.w3.org/2001/XMLSchema#string":
        out["dt"] = term.datatype.value
    return out


def _text(term: dict, key: str) -> str:
    value = term.get(key)
    if not isinstance(value, str) or not value:
        raise WireFormatError(f'a non-empty string in "{key}"')
    return value
