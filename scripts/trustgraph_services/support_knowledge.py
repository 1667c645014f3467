"""What the labelled cases put into the collection: the knowledge-graph triples of their edges
(entity and predicate IRIs minted from the labels, each with its ``rdfs:label``) and the
documents their DocRAG chunks come from (one document per title, one page, the chunks in
order), loaded with the extraction provenance ``collection.load`` writes for the corpus."""

from __future__ import annotations

import re
from urllib.parse import quote

from collection import E, LABEL
from fakes import iri, literal
from support_spec import SpecError, edges_of
from trustgraph.schema import Triple

DOC = "https://trustgraph.ai/doc/"


def mint(label: str) -> str:
    """The IRI of the entity (or predicate) whose rdfs:label is ``label``: the label lower-cased,
    spaces as hyphens, percent-encoded past ASCII letters, digits and ``-._~``."""
    slug = re.sub(r"\s+", "-", label.strip().lower())
    return E + quote(slug, safe="-._~")


def edge_terms(edge: dict) -> tuple:
    """The schema terms ``(s, p, o)`` of a spec edge (``o`` an IRI when ``o_entity``)."""
    o = iri(mint(edge["o"])) if edge.get("o_entity") else literal(edge["o"])
    return iri(mint(edge["s"])), iri(mint(edge["p"])), o


def edge_key(edge: dict) -> tuple:
    """A spec edge as the strings ``(s IRI, p IRI, o IRI or literal text)``."""
    s, p, o = edge_terms(edge)
    return s.iri, p.iri, o.iri if edge.get("o_entity") else o.value


def case_triples(case: dict) -> list:
    """The default-graph triples a case's GraphRAG sessions read: its edges and the labels of
    their subjects, predicates and entity objects. Raises SpecError when two labels of the
    case mint the same IRI."""
    labels, triples = {}, []
    for edge in edges_of(case):
        s, p, o = edge_terms(edge)
        triples.append(Triple(s=s, p=p, o=o))
        named = [(s.iri, edge["s"]), (p.iri, edge["p"])]
        if edge.get("o_entity"):
            named.append((o.iri, edge["o"]))
        for uri, label in named:
            if labels.setdefault(uri, label) != label:
                raise SpecError(f"{case['id']}: labels {labels[uri]!r} and {label!r} share an IRI")
    triples += [Triple(s=iri(uri), p=iri(LABEL), o=literal(label)) for uri, label in labels.items()]
    return triples


def grouped_chunks(case: dict) -> dict:
    """A docrag case's chunks by document title, titles in order of first use."""
    by_title = {}
    for chunk in case.get("chunks") or []:
        by_title.setdefault(chunk["document"], []).append(chunk)
    return by_title


def case_documents(case: dict) -> list:
    """A docrag case's documents, shaped as ``collection.DOCUMENTS``: one per title
    (``grouped_chunks``), ids ``{DOC}{case id}/{n}``, one page holding the title's chunks."""
    return [{"id": f"{DOC}{quote(case['id'], safe='-._~')}/{n}", "title": title,
             "mime": "application/pdf", "pages": [[(c["text"], []) for c in chunks]]}
            for n, (title, chunks) in enumerate(grouped_chunks(case).items(), start=1)]


def chunk_iris(case: dict, layout_documents: list) -> dict:
    """ref -> chunk IRI for a docrag case, from the layout ``collection.load`` returned for its
    documents (``case_documents``, in that order)."""
    minted = [c["chunk"] for doc in layout_documents for page in doc["pages"] for c in page["chunks"]]
    refs = [c["ref"] for chunks in grouped_chunks(case).values() for c in chunks]
    return dict(zip(refs, minted, strict=True))
