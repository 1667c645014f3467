"""Which format a file is in, from its name (TRACE-MODEL.md; issue "Foundation"): ``.ttl``
Turtle, ``.trig`` TriG, ``.nq`` N-Quads, ``.nt`` N-Triples, ``.n3`` N3, ``.jsonld`` JSON-LD,
``.rdf``/``.xml``/``.owl`` RDF/XML, ``.json`` TrustGraph gateway JSON, and ``*.documents.json``
content (``{document IRI: text}``). Any of them may end in ``.gz``."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox

from .errors import TraceLoadError

RDF_SUFFIXES: dict[str, ox.RdfFormat] = {
    ".ttl": ox.RdfFormat.TURTLE,
    ".turtle": ox.RdfFormat.TURTLE,
    ".trig": ox.RdfFormat.TRIG,
    ".nq": ox.RdfFormat.N_QUADS,
    ".nquads": ox.RdfFormat.N_QUADS,
    ".nt": ox.RdfFormat.N_TRIPLES,
    ".ntriples": ox.RdfFormat.N_TRIPLES,
    ".n3": ox.RdfFormat.N3,
    ".jsonld": ox.RdfFormat.JSON_LD,
    ".json-ld": ox.RdfFormat.JSON_LD,
    ".rdf": ox.RdfFormat.RDF_XML,
    ".xml": ox.RdfFormat.RDF_XML,
    ".owl": ox.RdfFormat.RDF_XML,
}
WIRE_JSON = "TrustGraph wire JSON"
DOCUMENTS_JSON = "document content JSON"
SUPPORTED_SUFFIXES = tuple(RDF_SUFFIXES) + (".json",)
# A data export's reviews (W3C Web Annotations, read by ``trace-explorer review import``): a folder
# of trace files leaves it out, so that reviews never join a source's triples.
REVIEWS_SUFFIX = ".reviews.jsonld"


def format_for_name(name: str) -> str | ox.RdfFormat:
    """Return the format a file name says: an ``ox.RdfFormat``, ``WIRE_JSON`` or ``DOCUMENTS_JSON``.

    Raises TraceLoadError when the suffix (after an optional ``.gz``) is not one we read.
    """
    lower = name.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    if lower.endswith(".documents.json"):
        return DOCUMENTS_JSON
    suffix = Path(lower).suffix
    if suffix == ".json":
        return WIRE_JSON
    if suffix in RDF_SUFFIXES:
        return RDF_SUFFIXES[suffix]
    raise TraceLoadError(
        name, f"a file name ending in one of {', '.join(SUPPORTED_SUFFIXES)} (optionally .gz)",
        found=f"the format of {Path(lower).suffix or 'a name without a suffix'} is not one this reader knows",
    )
