"""Deterministic stand-ins for TrustGraph's retrieval back ends: the embeddings model, the graph
and document vector stores and the reranker's cross-encoder. Scores are computed from the texts
(word overlap, a fixed hash for ties); a run may also script what they find (``matches``,
``allowed``), so that a labelled case retrieves exactly its own chunks and edges.
"""

from __future__ import annotations

import hashlib
import re

from fakes import Ledger, iri
from trustgraph.schema import (
    ChunkMatch,
    DocumentEmbeddingsResponse,
    EmbeddingsResponse,
    EntityMatch,
    GraphEmbeddingsResponse,
    RerankerResponse,
    RerankerResult,
)

WORD = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> set:
    return {w.lower() for w in WORD.findall(text or "") if len(w) > 2}


def stable_fraction(text: str) -> float:
    """A number in [0, 1) fixed by ``text`` alone (sha256), for tie-breaks that never change."""
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16) / 2 ** 32



class Embeddings:
    """The embeddings model: a text's vector is fixed by its sha256; the vector stores look
    the text back up from it."""

    def __init__(self):
        self.texts = {}

    def vector(self, text: str):
        digest = hashlib.sha256(text.encode("utf-8")).digest()
        vec = [round(b / 255.0, 4) for b in digest[:8]]
        self.texts[tuple(vec)] = text
        return vec

    def text_of(self, vector) -> str:
        return self.texts[tuple(round(v, 4) for v in vector)]

    async def handle(self, request):
        yield EmbeddingsResponse(vectors=[self.vector(t) for t in request.texts])


class GraphVectors:
    """The graph-embeddings store: ``matches`` maps a concept text to ``[(entity IRI,
    score)]``."""

    def __init__(self, embeddings: Embeddings, matches: dict, ledger: Ledger):
        self.embeddings = embeddings
        self.matches = matches
        self.ledger = ledger

    async def handle(self, request):
        concept = self.embeddings.text_of(request.vector)
        found = self.matches.get(concept, [])[: request.limit or None]
        self.ledger.note("graph-embeddings", concept=concept,
                         entities=[[e, s] for e, s in found])
        yield GraphEmbeddingsResponse(
            entities=[EntityMatch(entity=iri(e), score=s) for e, s in found])


class DocumentVectors:
    """The document-embeddings store: a concept's chunks are those whose text shares words
    with it, scored by the share of the concept's words they hold (ties broken by a fixed
    hash), best first. ``matches`` (concept -> ``[(chunk IRI, score)]``, best first) scripts
    what a concept finds instead, for the concepts it names."""

    def __init__(self, embeddings: Embeddings, chunks: dict, ledger: Ledger):
        self.embeddings = embeddings
        self.chunks = chunks
        self.ledger = ledger
        self.matches = {}

    def score(self, concept: str, text: str) -> float:
        wanted = words(concept)
        if not wanted:
            return 0.0
        share = len(wanted & words(text)) / len(wanted)
        return round(0.5 * share + 0.4 + stable_fraction(concept + text) / 10, 4) if share else 0.0

    async def handle(self, request):
        concept = self.embeddings.text_of(request.vector)
        if concept in self.matches:
            found = list(self.matches[concept])
        else:
            scored = [(cid, self.score(concept, text)) for cid, text in self.chunks.items()]
            found = sorted([x for x in scored if x[1] > 0], key=lambda x: (-x[1], x[0]))
        found = found[: request.limit or None]
        self.ledger.note("document-embeddings", concept=concept,
                         chunks=[[c, s] for c, s in found])
        yield DocumentEmbeddingsResponse(chunks=[ChunkMatch(chunk_id=c, score=s) for c, s in found])


class CrossEncoder:
    """The reranker's model: a document's score against a query is the share of the query's
    words it holds, plus a fixed hash tie-break; each document keeps its best query; the best
    ``limit`` come back, best first. Documents sharing no word are dropped.

    ``allowed`` scripts a choice: for a request whose query texts, in order, are a key of it,
    only the documents whose text is in that key's set are kept, and each of them is kept even
    when it shares no word (scored 0.3 plus the tie-break)."""

    def __init__(self, ledger: Ledger):
        self.ledger = ledger
        self.allowed = {}

    async def handle(self, request):
        results = []
        chosen = self.allowed.get(tuple(q.query_text for q in request.queries))
        for doc in request.documents:
            if chosen is not None and doc.document_text not in chosen:
                continue
            best = None
            for query in request.queries:
                wanted = words(query.query_text)
                shared = len(wanted & words(doc.document_text))
                if not wanted or not shared:
                    continue
                score = round(0.3 + 0.6 * shared / len(wanted)
                              + stable_fraction(query.query_text + doc.document_text) / 20, 4)
                if best is None or score > best[1]:
                    best = (query.query_id, score)
            if best is None and chosen is not None:
                first = request.queries[0]
                best = (first.query_id,
                        round(0.3 + stable_fraction(first.query_text + doc.document_text) / 20, 4))
            if best:
                results.append(RerankerResult(document_id=doc.document_id, query_id=best[0],
                                              score=best[1]))
        results.sort(key=lambda r: (-r.score, int(r.document_id)))
        results = results[: request.limit or None]
        self.ledger.note("reranker",
                         queries=[q.query_text for q in request.queries],
                         documents=[d.document_text for d in request.documents],
                         results=[[r.document_id, r.query_id, r.score] for r in results])
        yield RerankerResponse(results=results)
