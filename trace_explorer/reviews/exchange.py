"""Reviews to and from files (``trace-explorer review export`` / ``import``): JSON-LD with the
Web Annotation context (``jsonld``), or any RDF syntax pyoxigraph reads and writes (Turtle,
TriG, N-Triples, N-Quads, RDF/XML), chosen by the file's suffix."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph as ox

from . import jsonld
from .rdf import DC, DCTERMS, FOAF, OA, RDF, SCHEMA, XSD, reviews_from, triples
from .review import Review, ReviewError

JSONLD_SUFFIXES = (".jsonld", ".json")
PREFIXES = {"oa": OA, "dcterms": DCTERMS, "dc": DC, "rdf": RDF, "xsd": XSD, "foaf": FOAF, "schema": SCHEMA}
MAX_BYTES = 256 * 1024 * 1024  # a file to import larger than this is refused before it is read


def rdf_format(path: Path) -> ox.RdfFormat | None:
    """The RDF syntax of ``path`` by its suffix (None: JSON-LD, read and written by ``jsonld``).
    Raises ReviewError for a suffix that names none."""
    if path.suffix.lower() in JSONLD_SUFFIXES:
        return None
    found = ox.RdfFormat.from_extension(path.suffix.lower().lstrip("."))
    if found is None:
        raise ReviewError(f"{path.name}: expected a .jsonld, .ttl, .trig, .nt, .nq or .rdf file")
    return found


def export_text(reviews: list[Review], path: Path) -> bytes:
    """``reviews`` as the bytes of the file ``path`` names by its suffix: a JSON array of Web
    Annotations for ``.jsonld``/``.json``, else the annotations' triples in that RDF syntax.
    Raises ReviewError for an unknown suffix."""
    syntax = rdf_format(path)
    if syntax is None:
        return jsonld.dumps(reviews).encode("utf-8")
    statements = sorted((t for r in reviews for t in triples(r)), key=lambda t: t.subject.value)  # each subject once
    if syntax.supports_datasets:
        statements = [ox.Quad(t.subject, t.predicate, t.object) for t in statements]
    return ox.serialize(statements, format=syntax, prefixes=PREFIXES if syntax != ox.RdfFormat.N_TRIPLES else None)


def read_reviews(path: Path) -> list[Review]:
    """The reviews in the file ``path`` (its suffix says the syntax, ``rdf_format``): every
    ``oa:Annotation`` in it that has a target, a label and a creator (``rdf.reviews_from``).
    Raises ReviewError for a file that is too large, not of its syntax, or holds an annotation
    without what a review needs; OSError when it cannot be read."""
    if path.stat().st_size > MAX_BYTES:
        raise ReviewError(f"{path.name} is larger than {MAX_BYTES // 1024 // 1024} MiB")
    syntax = rdf_format(path)
    if syntax is None:
        try:
            document = json.loads(path.read_bytes())
        except (UnicodeError, json.JSONDecodeError) as error:
            raise ReviewError(f"{path.name}: not JSON ({error})") from None
        return reviews_from(jsonld.to_quads(document))
    try:
        return reviews_from(ox.parse(path=path, format=syntax))
    except SyntaxError as error:
        raise ReviewError(f"{path.name}: {error}") from None
