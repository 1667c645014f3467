"""What the retrieval stand-ins find for a labelled case, so that each of its GraphRAG sessions
selects exactly its edges and its DocRAG session exactly its chunks: the concepts the LLM
extracts, the graph and document vector stores' matches and the reranker's choice
(``retrieval_fakes``). The reranker is given the texts GraphRAG itself builds for an edge
(``graph_rag.py``'s ``hop_and_filter``: "p o", "s p" or "s o" by the direction it was reached,
cut at 240 characters; a literal's label is its local name)."""

from __future__ import annotations

from support_knowledge import edge_key, mint
from support_spec import SpecError, agent_steps
from retrieval_fakes import stable_fraction
from trustgraph.retrieval.graph_rag.graph_rag import Query

RERANKER_TEXT_LENGTH = 240


def graph_concepts(edges: list) -> list:
    """The concepts a GraphRAG session's LLM extracts for ``edges``: the subjects' labels, then
    the predicates' labels not already among them, in order of first use."""
    out = []
    for edge in edges:
        if edge["s"] not in out:
            out.append(edge["s"])
    for edge in edges:
        if edge["p"] not in out:
            out.append(edge["p"])
    return out


def doc_concepts(chunks: list) -> list:
    """The concepts a DocRAG session's LLM extracts: the chunks' document titles, in order."""
    return list(dict.fromkeys(c["document"] for c in chunks))


def edge_texts(edge: dict) -> set:
    """Every text GraphRAG may hand the reranker for ``edge``."""
    ls, lp = edge["s"], edge["p"]
    lo = edge["o"] if edge.get("o_entity") else Query._local_name(edge["o"])
    return {t[:RERANKER_TEXT_LENGTH] for t in (f"{lp} {lo}", f"{ls} {lp}", f"{ls} {lo}")}


def graph_queries(case: dict) -> list:
    """``(question, edges)`` of each GraphRAG session the case runs."""
    if case["mechanism"] == "graphrag":
        return [(case["question"], case["edges"])]
    return [(s["arguments"]["question"], s["edges"]) for s in agent_steps(case) if s.get("edges")]


def case_retrieval(case: dict, chunk_iris: dict) -> dict:
    """``{"entities", "chunks", "chunk_matches", "allowed", "doc_limit"}`` for the case: the
    graph vector store's matches (concept -> ``[(entity IRI, score)]``), the document store's
    chunks (IRI -> text) and matches, the reranker's choices (query texts -> allowed texts) and
    the DocRAG ``doc_limit`` that lets every chunk through. Raises SpecError when two GraphRAG
    sessions of the case would extract the same concepts for different edges."""
    entities, allowed = {}, {}
    for question, edges in graph_queries(case):
        concepts = graph_concepts(edges)
        texts = set().union(*(edge_texts(e) for e in edges))
        if allowed.get(tuple(concepts), texts) != texts:
            raise SpecError(f"{case['id']}: two knowledge queries with the same subjects and "
                            "predicates but different edges")
        allowed[tuple(concepts)] = texts
        for edge in edges:
            for concept, base in ((edge["s"], 0.85), (edge["p"], 0.5)):
                score = round(base + stable_fraction(concept + edge["s"]) / 10, 4)
                found = entities.setdefault(concept, [])
                if mint(edge["s"]) not in [e for e, _ in found]:
                    found.append((mint(edge["s"]), score))
    chunks = case.get("chunks") or []
    chunk_text = {chunk_iris[c["ref"]]: c["text"] for c in chunks}
    matches = {}
    for title in doc_concepts(chunks):
        own = [chunk_iris[c["ref"]] for c in chunks if c["document"] == title]
        matches[title] = [(uri, round(0.9 - 0.01 * i, 4)) for i, uri in enumerate(own)]
    if chunks:
        allowed[(case["question"],)] = {c["text"] for c in chunks}
    widest = max((len(m) for m in matches.values()), default=1)
    return {"entities": entities, "chunks": chunk_text, "chunk_matches": matches,
            "allowed": allowed, "doc_limit": max(1, widest * len(matches))}


def wanted_edges(edges: list) -> set:
    """The edges as ``(s, p, o)`` strings, to compare with what a Focus selected."""
    return {edge_key(e) for e in edges}
