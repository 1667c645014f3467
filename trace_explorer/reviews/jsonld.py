"""Reviews in JSON-LD with the W3C Web Annotation context, and reading them back.

A review is written as the Web Annotation Data Model's JSON-LD serialization (W3C
Recommendation, 23 February 2017, section 3): ``"@context": "http://www.w3.org/ns/anno.jsonld"``,
``id``, ``type``, ``motivation``, ``creator``, ``created``, ``modified``, ``target`` and
``body``; the score and the session, which the context has no term for, as
``schema:ratingValue`` and ``schema:about`` (its ``schema:`` prefix). The motivation and the
score's purpose are written ``oa:assessing``, which every copy of the context expands alike. A
file of many reviews is a JSON array of such annotations, each whole with its context.

Reading expands JSON-LD with pyld (a maintained JSON-LD 1.1 processor) to RDF. The context is
never fetched: ``ANNO_CONTEXT`` is a copy of the W3C's ``anno.jsonld``, the file served at
http://www.w3.org/ns/anno.jsonld: the Working Group's own copy (github.com/w3c/web-annotation,
``admin/ns/anno.jsonld``, 23 November 2016), with the term ``"assessing": "oa:assessing"`` that
the served file has carried since the erratum that added it (the Recommendation renamed
``oa:reviewing`` to ``oa:assessing``, Web Annotation Vocabulary 2.3.1, and its context first
left the new term out). ``document_loader`` serves it for that address (http or https) and
refuses any other, so that an imported file never makes the explorer fetch anything.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from .rdf import own_nodes, reviewer_iri, stamp
from .review import Review, ReviewError

CONTEXT_URL = "http://www.w3.org/ns/anno.jsonld"
CONTEXT_URLS = frozenset({CONTEXT_URL, "https://www.w3.org/ns/anno.jsonld"})
ANNO_CONTEXT = Path(__file__).with_name("anno.jsonld")


@lru_cache(maxsize=1)
def context_document() -> dict:
    """The bundled W3C Web Annotation JSON-LD context (``{"@context": {...}}``)."""
    return json.loads(ANNO_CONTEXT.read_text(encoding="utf-8"))


def document_loader(url: str, options: dict | None = None) -> dict:
    """A pyld document loader that serves the bundled context for ``CONTEXT_URLS`` and refuses
    every other address (raises pyld's JsonLdError, which pyld reports as a failed load)."""
    from pyld.jsonld import JsonLdError

    if url in CONTEXT_URLS:
        return {"contextUrl": None, "documentUrl": url, "document": context_document(),
                "contentType": "application/ld+json"}
    raise JsonLdError(f"only the Web Annotation context is read, not {url[:200]}", "jsonld.LoadDocumentError",
                      code="loading document failed")


def annotation(review: Review) -> dict[str, Any]:
    """``review`` as one Web Annotation in JSON-LD (a dict ready for ``json.dumps``)."""
    node = {n.value.rpartition("#")[2]: n.value for n in own_nodes(review.id)[1:]}
    out: dict[str, Any] = {
        "@context": CONTEXT_URL, "id": review.id, "type": "Annotation", "motivation": "oa:assessing",
        "created": stamp(review.created).value, "modified": stamp(review.modified).value,
        "creator": {"id": reviewer_iri(review.author), "type": "Person", "name": review.author},
    }
    if review.selector is None:
        out["target"] = review.target
    else:
        s = review.selector
        out["target"] = {"id": node["target"], "type": "SpecificResource", "source": review.target,
                         "selector": [{"id": node["quote"], "type": "TextQuoteSelector", "exact": s.quote},
                                      {"id": node["position"], "type": "TextPositionSelector",
                                       "start": s.start, "end": s.end}]}
    body: list[dict[str, Any]] = [{"id": node["label"], "type": "TextualBody", "value": review.label,
                                   "purpose": "tagging"}]
    if review.comment:
        body.append({"id": node["comment"], "type": "TextualBody", "value": review.comment, "purpose": "commenting",
                     "format": "text/plain"})
    if review.score is not None:
        body.append({"id": node["score"], "type": "schema:Rating", "schema:ratingValue": float(review.score),
                     "purpose": "oa:assessing"})
    out["body"] = body
    if review.session:
        out["schema:about"] = {"id": review.session}
    return out


def dumps(reviews: list[Review]) -> str:
    """``reviews`` as a JSON array of Web Annotations (``annotation``), indented."""
    return json.dumps([annotation(r) for r in reviews], indent=2, ensure_ascii=False) + "\n"


def to_quads(document: Any) -> list[ox.Quad]:
    """The RDF of a JSON-LD ``document`` (parsed JSON: an object, an array, a ``@graph``),
    expanded by pyld with ``document_loader``. Raises ReviewError when it is not JSON-LD that
    pyld can expand, or names another context than the Web Annotation one."""
    from pyld import jsonld

    for item in document if isinstance(document, list) else [document]:
        context = item.get("@context") if isinstance(item, dict) else None
        if isinstance(context, str) and context not in CONTEXT_URLS:
            raise ReviewError(f"not Web Annotation JSON-LD: its @context is {context[:200]}, not {CONTEXT_URL}")
    try:
        nquads = jsonld.to_rdf(document, {"documentLoader": document_loader, "format": "application/n-quads"})
    except jsonld.JsonLdError as error:
        raise ReviewError(f"not Web Annotation JSON-LD: {_first_line(error)}") from None
    try:
        return list(ox.parse(nquads, format=ox.RdfFormat.N_QUADS))
    except SyntaxError as error:
        raise ReviewError(f"not Web Annotation JSON-LD: {error}") from None


def _first_line(error: Exception) -> str:
    text = str(error).strip().splitlines()
    return text[0][:300] if text else type(error).__name__
