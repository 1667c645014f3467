"""Speed against a TrustGraph gateway, with latency injected into every request (default 20 ms),
served by the tests' stand-in deployment (``tests/trustgraph_server.py``: TrustGraph's REST
paths, answers encoded by TrustGraph's own translators) on this machine.

Measured, each with the requests it needed, with the SPARQL service and with triple patterns
only:

1. opening a 26-step agent session (a ReAct run: PatternDecision, 12 Analysis with a Thought
   and an Observation each, a Conclusion) with every text from the librarian, in-process
   (``TrustGraphSource.read``, the source already connected); target <= 0.5 s; against
   TrustGraph's own ``ExplainabilityClient`` (the engine of ``tg-show-explain-trace``, from
   ``trustgraph-base``, run here unchanged over the same REST paths) walking the same session,
   then fetching its texts one by one as the CLI does;
2. the first page (50 rows) of a 10,000-session collection, from a fresh connection;
3. a first sync of a collection into an empty local store, and a second, no-op sync;
4. evidence lineage on the synthetic extraction of ``benchmarks/evidence.py`` (200 documents,
   4,000 chunks, 20,000 facts, 2,000 GraphRAG sessions of 10 edges): opening one session,
   then its evidence (each edge to its subgraph, chunk, page and document, with the chunks'
   words from the librarian), one document's sessions (``used-by``), and the documents page
   (every document with its sessions), each with its requests and its rounds of lookups.

How the reference is counted: ``ExplainabilityClient.fetch_entity`` reads an entity, sleeps
0.2 s, reads it again and compares (quiescence), so every entity costs at least 0.2 s and two
requests, and ``_follow_provenance_chain`` asks what derives from each entity before it walks
on, one entity at a time. It stops at an entity it has no class for, and the PatternDecision is
one (the walk ends after the Question), so it is given the same session with the
PatternDecision left out of the chain: 25 steps to walk. Its floor for the 26-step shape is
27 entities (the Question and 26 steps) x (0.2 s + 3 requests), plus a request per text,
which the script prints beside the measurement.

    python benchmarks/trustgraph_gateway.py [--latency 0.02] [--sessions 10000] [--sync-sessions 500] [--repeat 3]
                                            [--only open|page|sync|evidence]
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import importlib.util
import statistics
import sys
import tempfile
import time
import types
from pathlib import Path

import pyoxigraph as ox

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.evidence import build as build_extraction  # noqa: E402
from benchmarks.synthetic import generate, make_react_session  # noqa: E402
from tests.trustgraph_server import COLLECTION, FLOW, TOKEN, corpus_deployment  # noqa: E402
from trace_explorer.analysis.evidence.evidence import session_evidence  # noqa: E402
from trace_explorer.analysis.evidence.used_by import used_by, used_by_documents  # noqa: E402
from trace_explorer.model.vocabulary import RDF_TYPE, TG, WAS_DERIVED_FROM  # noqa: E402
from trace_explorer.index.catalog import SessionFilter, list_sessions  # noqa: E402
from trace_explorer.index.family import fetch_family  # noqa: E402
from trace_explorer.store.local_store import open_local_store  # noqa: E402
from trace_explorer.sources.trustgraph.source import TrustGraphSource  # noqa: E402
from trace_explorer.sources.trustgraph.gateway import Gateway  # noqa: E402
from trace_explorer.store.trustgraph_sync import sync  # noqa: E402

RETRIEVAL = ox.NamedNode("urn:graph:retrieval")
MODES = {"SPARQL service": True, "triple patterns": False}


class Deployment:
    """The stand-in gateway serving ``quads`` and ``documents`` in a process of its own (so its
    work takes nothing from the client's interpreter), with ``latency`` seconds per request."""

    def __init__(self, quads: list[ox.Quad], documents: dict[str, str], latency: float, sparql: bool = True):
        self.folder = tempfile.TemporaryDirectory()
        folder = Path(self.folder.name)
        ox.serialize(quads, str(folder / "d.nq"), format=ox.RdfFormat.N_QUADS)
        (folder / "d.json").write_text(json.dumps(documents), encoding="utf-8")
        command = [sys.executable, "-m", "tests.trustgraph_server", "--quads", str(folder / "d.nq"),
                   "--documents", str(folder / "d.json"), "--latency", str(latency)] + ([] if sparql else ["--no-sparql"])
        self.process = subprocess.Popen(command, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.url = self.process.stdout.readline().strip()

    def __enter__(self) -> Deployment:
        return self

    def __exit__(self, *exc) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.folder.cleanup()


def connect(server, sparql: bool, eager: bool = True) -> TrustGraphSource:
    return TrustGraphSource(Gateway(server.url, TOKEN, flow=FLOW, collection=COLLECTION, timeout=300),
                            eager_texts=eager, sparql=sparql)


def react_deployment() -> tuple[str, list[ox.Quad], dict[str, str]]:
    root, quads, documents = make_react_session(12)
    return root, [ox.Quad(q.subject, q.predicate, q.object, RETRIEVAL) for q in quads], documents


def without_pattern_decision(root: str, quads: list[ox.Quad]) -> list[ox.Quad]:
    """The same session with its first Analysis deriving from the Question directly."""
    decision = f"{root}/pattern-decision"
    out = [q for q in quads if not (isinstance(q.subject, ox.NamedNode) and q.subject.value == decision)]
    return [ox.Quad(q.subject, q.predicate, ox.NamedNode(root), q.graph_name)
            if q.predicate.value == WAS_DERIVED_FROM and q.object == ox.NamedNode(decision) else q for q in out]


def measure_open(latency: float, repeat: int) -> list[tuple[str, str, str]]:
    root, quads, documents = react_deployment()
    out = []
    with Deployment(quads, documents, latency) as server:
        for mode, sparql in MODES.items():
            times, counts = [], []
            for _ in range(repeat):
                source = connect(server, sparql)
                source.sparql  # connected: the probe is not part of opening a session
                before = source.gateway.requests
                start = time.perf_counter()
                session = source.read([root])[root]
                times.append(time.perf_counter() - start)
                counts.append(source.gateway.requests - before)
                assert len(session.steps) == 26 and session.answer, "the session must open whole, with its answer"
                source.gateway.close()
            texts = len(source.documents)
            out.append((f"open 26-step agent session + texts ({mode})", f"{statistics.median(times) * 1000:,.0f} ms",
                        f"{counts[0]} requests ({counts[0] - texts} for triples, {texts} for texts); "
                        f"target <= 500 ms: {'PASS' if statistics.median(times) <= 0.5 else 'MISS'}"))
    with Deployment(without_pattern_decision(root, quads), documents, latency) as reference:
        seconds, requests, walked = run_explainability_client(reference, root, documents)
    floor = 27 * (0.2 + 3 * latency) + len(documents) * latency
    out.append(("ExplainabilityClient (tg-show-explain-trace)", f"{seconds * 1000:,.0f} ms",
                f"{requests} requests; walked the Question and {walked - 1} steps (the PatternDecision left out of "
                f"the chain); its floor for the Question and 26 steps: {floor:.1f} s"))
    ours = min(float(r[1].split()[0].replace(",", "")) for r in out[:len(MODES)]) / 1000
    out.append(("  ratio, ExplainabilityClient / ours", f"{seconds / ours:,.0f}x", "same session shape, same latency"))
    return out


def run_explainability_client(server: Deployment, root: str, documents: dict[str, str]) -> tuple[float, int, int]:
    """TrustGraph's ExplainabilityClient, unchanged, over the REST paths: the agent trace, then
    the text of every document the session points at, one by one."""
    spec = importlib.util.find_spec("trustgraph")
    package = types.ModuleType("trustgraph.api")  # its package imports aiohttp; the module itself needs none
    package.__path__ = [str(Path(list(spec.submodule_search_locations)[0]) / "api")]
    sys.modules.setdefault("trustgraph.api", package)
    explainability = importlib.import_module("trustgraph.api.explainability")
    gateway = Gateway(server.url, TOKEN, flow=FLOW, collection=COLLECTION, timeout=120)

    class Flow:  # the flow instance's triples_query, as TrustGraph's socket client offers it
        def triples_query(self, s=None, p=None, o=None, g=None, collection=None, limit=100, **_):
            body = {"collection": collection or COLLECTION, "limit": limit}
            body.update({k: {"t": "i", "i": v} for k, v in (("s", s), ("p", p), ("o", o)) if v})
            if g:
                body["g"] = g
            return gateway.post(f"flow/{FLOW}/service/triples", body)["response"]

    class Library:
        def get_document_content(self, id):  # noqa: A002 - TrustGraph's name
            import base64
            answer = gateway.post("librarian", {"operation": "get-document-content", "document-id": id})
            return base64.b64decode(answer.get("content", ""))

    class Api:
        def library(self):
            return Library()

    client = explainability.ExplainabilityClient(Flow())
    start = time.perf_counter()
    trace = client.fetch_agent_trace(root, collection=COLLECTION)
    for document in documents:
        client.fetch_document_content(document, Api())
    return time.perf_counter() - start, gateway.requests, 1 + len(trace["steps"])


def measure_first_page(latency: float, sessions: int) -> list[tuple[str, str, str]]:
    with tempfile.TemporaryDirectory() as folder:
        made = generate(folder, sessions, long_steps=())
        quads, documents = corpus_deployment([made.nquads, made.documents])
    out = []
    for mode, sparql in MODES.items():
        with Deployment(quads, documents, latency, sparql) as server:
            source = connect(server, sparql, eager=False)
            start = time.perf_counter()
            page = list_sessions(source, SessionFilter(), limit=50)
            seconds = time.perf_counter() - start
            out.append((f"first page of {sessions:,} sessions ({mode})", f"{seconds * 1000:,.0f} ms",
                        f"{source.gateway.requests:,} requests; {len(page.rows)} rows of {page.total:,} top-level"))
            source.gateway.close()
    return out


def measure_sync(latency: float, sessions: int) -> list[tuple[str, str, str]]:
    out = []
    with tempfile.TemporaryDirectory() as folder:
        made = generate(Path(folder) / "made", sessions, long_steps=())
        quads, documents = corpus_deployment([made.nquads, made.documents])
        for mode, sparql in MODES.items():
            with Deployment(quads, documents, latency, sparql) as server:
                local = open_local_store(Path(folder) / f"store-{sparql}")
                for run in ("first", "second (no-op)"):
                    source = connect(server, sparql)
                    start = time.perf_counter()
                    report = sync(source, local)
                    seconds = time.perf_counter() - start
                    out.append((f"{run} sync of {sessions:,} sessions ({mode})", f"{seconds:,.2f} s",
                                f"{report.requests:,} requests; {report.added:,} added, {report.quads:,} quads, "
                                f"{report.texts:,} texts"))
                    source.gateway.close()
                local.index.close()
                del local
    return out


def measure_evidence(latency: float) -> list[tuple[str, str, str]]:
    """One session's evidence, one document's used-by and the documents page, on the synthetic
    extraction of ``benchmarks/evidence.py``, from a connected source (its SPARQL probe done)."""
    store, roots, documents = build_extraction(200, 2000, 10)
    quads = list(store)
    texts = {q.subject.value: f"The words of {q.subject.value}." for q in quads
             if q.predicate.value == RDF_TYPE and q.object.value == TG + "Chunk"}
    root, document = roots[len(roots) // 2], documents[len(documents) // 2]
    out = []
    for mode, sparql in MODES.items():
        with Deployment(quads, texts, latency, sparql) as server:
            source = connect(server, sparql, eager=False)
            source.sparql  # connected
            lookups = source.lineage()

            def timed(function):
                requests, rounds, start = source.gateway.requests, lookups.patterns.asked, time.perf_counter()
                result = function()
                return (result, (time.perf_counter() - start) * 1000, source.gateway.requests - requests,
                        lookups.patterns.asked - rounds)

            family, ms, requests, _ = timed(lambda: fetch_family(source, root))
            out.append((f"open one GraphRAG session ({mode})", f"{ms:,.0f} ms", f"{requests} requests"))
            evidence, ms, requests, rounds = timed(lambda: session_evidence(source, family[root], family))
            edges = evidence.all_edges()
            assert len(edges) == 10 and all(e.sources and e.sources[0].chunk_text for e in edges)
            out.append((f"  its evidence ({mode})", f"{ms:,.0f} ms",
                        f"{requests} requests in {rounds} rounds of lookups and one of texts; {len(edges)} edges, "
                        f"{len(evidence.documents())} documents"))
            uses, ms, requests, rounds = timed(lambda: used_by(source, document))
            out.append((f"used-by of one document ({mode})", f"{ms:,.0f} ms",
                        f"{requests} requests in {rounds} rounds; {len({u.id for u in uses})} sessions used it"))
            page, ms, requests, rounds = timed(lambda: used_by_documents(source, [d["id"] for d in lookups.list_documents()]))
            out.append((f"documents page ({mode})", f"{ms:,.0f} ms",
                        f"{requests:,} requests in {rounds} rounds; {len(page)} documents, "
                        f"{sum(len(u) for u in page.values()):,} uses"))
            source.gateway.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.02, help="seconds added to every request")
    parser.add_argument("--sessions", type=int, default=10_000, help="sessions in the collection listed")
    parser.add_argument("--sync-sessions", type=int, default=500, help="sessions in the collection synced")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the open measurement (median)")
    parser.add_argument("--only", choices=("open", "page", "sync", "evidence"), action="append", help="run only these")
    args = parser.parse_args(argv)
    chosen = args.only or ["open", "page", "sync", "evidence"]
    rows = []
    if "open" in chosen:
        rows += measure_open(args.latency, args.repeat)
    if "page" in chosen:
        rows += measure_first_page(args.latency, args.sessions)
    if "sync" in chosen:
        rows += measure_sync(args.latency, args.sync_sessions)
    if "evidence" in chosen:
        rows += measure_evidence(args.latency)
    width = max(len(r[0]) for r in rows)
    print(f"latency injected: {args.latency * 1000:.0f} ms per request")
    print(f"{'measurement'.ljust(width)}  {'result':>10}  note")
    print("-" * (width + 60))
    for name, result, note in rows:
        print(f"{name.ljust(width)}  {result:>10}  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
