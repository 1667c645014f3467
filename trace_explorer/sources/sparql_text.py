"""Values written into SPARQL text, always through a term's own serialisation.

No value from a URL, a form or the data is pasted into a query as is: IRIs go through
pyoxigraph's IRI validation (which rejects ``>``, ``}``, quotes, spaces and newlines), literals
through its N-Triples escaping, triple terms through both (SPARQL 1.2 ``<<( s p o )>>``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pyoxigraph as ox

PREFIXES = """PREFIX tg: <https://trustgraph.ai/ns/>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX dc: <http://purl.org/dc/elements/1.1/>
"""


def iri(value: str) -> str:
    """``<value>`` for a valid IRI; raises ValueError (naming the IRI) for anything else."""
    try:
        return str(ox.NamedNode(value))
    except (ValueError, TypeError) as error:
        raise ValueError(f"not an IRI: {value!r:.200} ({error})") from None


def is_iri(value: str) -> bool:
    """Whether ``value`` is an IRI that ``iri`` takes (True) or refuses (False)."""
    try:
        iri(value)
    except ValueError:
        return False
    return True


def literal(value: str) -> str:
    """A plain string literal with every quote, backslash and control character escaped."""
    return str(ox.Literal(str(value)))


def term(value: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple) -> str:
    """Any ground term as SPARQL 1.2 text (a blank node cannot be named in a query: ValueError)."""
    if isinstance(value, ox.Triple):
        return f"<<( {term(value.subject)} {term(value.predicate)} {term(value.object)} )>>"
    if isinstance(value, ox.BlankNode):
        raise ValueError("a blank node cannot be named in a query")
    return str(value)


def iri_batches(values: Iterable[str], size: int = 500) -> Iterator[list[str]]:
    """``values`` as serialised IRIs (``iri``) in lists of at most ``size``, for VALUES clauses;
    what is not a valid IRI is left out (no such entity can be in a store)."""
    batch: list[str] = []
    for value in values:
        try:
            batch.append(iri(value))
        except ValueError:
            continue
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def values_clause(variable: str, terms: list[str]) -> str:
    """``VALUES ?variable { ... }`` over already-serialised terms (from ``iri``/``term``)."""
    return f"VALUES ?{variable} {{ {' '.join(terms)} }}"
