"""How long evidence lineage takes on a larger collection: a synthetic extraction (documents ->
pages -> chunks -> subgraphs holding facts) and GraphRAG sessions choosing its facts, in an
in-memory store, then timed: one session's evidence, one document's sessions (``used-by``), the
documents page (every document with its sessions) and the document list.

    .venv/bin/python benchmarks/evidence.py [--documents 200] [--sessions 2000] [--edges 10] [--repeat 5]

Prints each figure (median of ``--repeat`` runs after a first, cold one) against its target.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import pyoxigraph as ox

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from trace_explorer.analysis.evidence.evidence import session_evidence  # noqa: E402
from trace_explorer.analysis.evidence.used_by import used_by, used_by_documents  # noqa: E402
from trace_explorer.index.catalog import fetch_session  # noqa: E402
from trace_explorer.sources.store_source import StoreSource  # noqa: E402

TG = "https://trustgraph.ai/ns/"
PROV = "http://www.w3.org/ns/prov#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
PAGES, CHUNKS, FACTS = 5, 4, 5  # per document, per page, per chunk
TARGETS_MS = {"evidence of one session": 250, "used-by of one document": 500, "documents page": 3000,
              "document list": 200}


def _n(iri: str) -> ox.NamedNode:
    return ox.NamedNode(iri)


def build(documents: int, sessions: int, edges: int, seed: int = 7) -> tuple[ox.Store, list[str], list[str]]:
    """The store, the GraphRAG session roots and the document IRIs."""
    rng = random.Random(seed)
    quads: list[ox.Quad] = []
    source_graph, retrieval = _n("urn:graph:source"), _n("urn:graph:retrieval")

    def add(s, p, o, g=source_graph):
        quads.append(ox.Quad(s if not isinstance(s, str) else _n(s), _n(p), o if not isinstance(o, str) else _n(o), g))

    facts = []
    docs = []
    for d in range(documents):
        doc = f"https://trustgraph.ai/doc/bench-{d}"
        docs.append(doc)
        add(doc, RDF_TYPE, TG + "Document")
        add(doc, "http://purl.org/dc/elements/1.1/title", ox.Literal(f"Document {d}"))
        add(doc, TG + "mimeType", ox.Literal("application/pdf"))
        for p in range(PAGES):
            page = f"urn:page:bench-{d}-{p}"
            add(page, RDF_TYPE, TG + "Page")
            add(page, PROV + "wasDerivedFrom", doc)
            add(page, TG + "pageNumber", ox.Literal(str(p + 1)))
            for c in range(CHUNKS):
                chunk = f"urn:chunk:bench-{d}-{p}-{c}"
                add(chunk, RDF_TYPE, TG + "Chunk")
                add(chunk, PROV + "wasDerivedFrom", page)
                subgraph = f"https://trustgraph.ai/subgraph/bench-{d}-{p}-{c}"
                activity = f"https://trustgraph.ai/activity/bench-{d}-{p}-{c}"
                add(subgraph, RDF_TYPE, TG + "Subgraph")
                add(subgraph, PROV + "wasDerivedFrom", chunk)
                add(subgraph, PROV + "wasGeneratedBy", activity)
                add(activity, PROV + "wasAssociatedWith", "https://trustgraph.ai/agent/kg-extract-relationships")
                add(activity, TG + "llmModel", ox.Literal("gpt-4o-mini"))
                for f in range(FACTS):
                    fact = ox.Triple(_n(f"http://e/{d}-{p}-{c}-{f}"), _n("http://e/rel"), _n(f"http://e/o{f}"))
                    add(subgraph, TG + "contains", fact)
                    facts.append(fact)
    roots = []
    for s in range(sessions):
        root = f"urn:trustgraph:question:bench-{s}"
        roots.append(root)
        grounding, exploration = f"urn:trustgraph:prov:grounding:bench-{s}", f"urn:trustgraph:prov:exploration:bench-{s}"
        focus = f"urn:trustgraph:prov:focus:bench-{s}"
        add(root, RDF_TYPE, TG + "GraphRagQuestion", retrieval)
        add(root, TG + "query", ox.Literal(f"question {s}"), retrieval)
        add(root, PROV + "startedAtTime", ox.Literal(f"2026-03-{1 + s % 28:02d}T10:00:00Z"), retrieval)
        add(grounding, PROV + "wasDerivedFrom", root, retrieval)
        add(exploration, PROV + "wasDerivedFrom", grounding, retrieval)
        add(exploration, TG + "edgeCount", ox.Literal("30"), retrieval)
        add(focus, RDF_TYPE, TG + "Focus", retrieval)
        add(focus, PROV + "wasDerivedFrom", exploration, retrieval)
        for e in range(edges):
            selection = f"urn:trustgraph:prov:edge:bench-{s}:{e}"
            add(focus, TG + "selectedEdge", selection, retrieval)
            add(selection, RDF_TYPE, TG + "EdgeSelection", retrieval)
            add(selection, TG + "edge", rng.choice(facts), retrieval)
    store = ox.Store()
    store.bulk_extend(quads)
    return store, roots, docs


def timed(function, repeat: int) -> tuple[float, float]:
    """(first, median of the next ``repeat``) in ms."""
    times = []
    for _ in range(repeat + 1):
        started = time.perf_counter()
        function()
        times.append((time.perf_counter() - started) * 1000)
    return times[0], statistics.median(times[1:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--edges", type=int, default=10, help="chosen edges per session")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    store, roots, docs = build(args.documents, args.sessions, args.edges)
    print(f"built {len(store):,} quads ({args.documents} documents, {args.documents * PAGES * CHUNKS:,} chunks, "
          f"{args.documents * PAGES * CHUNKS * FACTS:,} facts; {args.sessions:,} sessions x {args.edges} edges) "
          f"in {time.perf_counter() - started:.1f} s")
    source = StoreSource(store, label="benchmark")
    session = fetch_session(source, roots[len(roots) // 2])
    rows = [
        ("evidence of one session", lambda: session_evidence(source, session), f"{args.edges} edges"),
        ("used-by of one document", lambda: used_by(source, docs[len(docs) // 2]),
         f"{len(used_by(source, docs[len(docs) // 2]))} sessions used it"),
        ("documents page", lambda: used_by_documents(source, [d["id"] for d in source.lineage().list_documents(limit=500)]),
         f"{min(len(docs), 500)} documents"),
        ("document list", lambda: source.lineage().list_documents(limit=500), "first 500 by title"),
    ]
    print(f"{'measurement':<28}{'first':>10}{'median':>10}{'target':>10}  verdict  note")
    for label, function, note in rows:
        first, median = timed(function, args.repeat)
        target = TARGETS_MS[label]
        verdict = "PASS" if median <= target else "MISS"
        print(f"{label:<28}{first:>8.1f}ms{median:>8.1f}ms{target:>8}ms  {verdict:<7}  {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
