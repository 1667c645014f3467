"""Run a file of labelled answer-support cases (``support_spec``) on TrustGraph 2.11.1's own
services and write what they emitted with the labels:

    .venv-services/bin/python scripts/trustgraph_services/generate.py --support SPEC.json OUT_DIR

writes ``support.trig`` (the triple store: the cases' knowledge, their documents' extraction
provenance and every explain triple), ``support.documents.json`` (everything the librarian
holds) and ``labels.json`` (``{"generator", "trustgraph", "cases": [...]}``, each case as
``support_labels.CaseLabels.build`` makes it). Each case runs alone on the services from its own
start time, the stand-ins holding only its own knowledge, chunks and replies.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import collection
import fakes
import runner
import scenarios
import services
import writers
from emitted import Emitted
from support_knowledge import case_documents, case_triples, chunk_iris
from support_labels import CaseLabels
from support_replies import Script, tools
from support_retrieval import case_retrieval
from support_spec import load

SERVICE = {"react": "agent", "plan": "agent", "supervisor": "agent", "graphrag": "graph-rag"}
FIRST_START = datetime(2026, 12, 1, 9, 0)
SPACING = timedelta(minutes=10)


def start_of(index: int) -> str:
    return (FIRST_START + index * SPACING).isoformat() + "Z"


def load_knowledge(deployment, cases) -> list:
    """Put every case's triples and documents into the deployment. Returns per case
    ``{"visible": default-graph keys, "chunks": ref -> chunk IRI}``."""
    documents = [case_documents(c) for c in cases]
    layout = collection.load(deployment, documents=[d for docs in documents for d in docs], labels={})
    out, at = [], 0
    for case, docs in zip(cases, documents):
        triples = case_triples(case)
        for triple in triples:
            deployment.store.add(triple)
        own = layout["documents"][at:at + len(docs)]
        at += len(docs)
        out.append({"visible": {deployment.store.key(t) for t in triples},
                    "chunks": chunk_iris(case, own)})
    return out


def scope(deployment, knowledge: dict, retrieval: dict) -> None:
    """Let the stand-ins see only one case's knowledge, chunks and retrieval script."""
    deployment.store.visible = knowledge["visible"]
    deployment.graph_vectors.matches = retrieval["entities"]
    deployment.document_vectors.chunks = retrieval["chunks"]
    deployment.document_vectors.matches = retrieval["chunk_matches"]
    deployment.cross_encoder.allowed = retrieval["allowed"]


async def run_cases(cases: list):
    """Run ``cases`` (checked spec cases) in order. Returns ``(deployment, labels)``: labels one
    dict a case. Raises RuntimeError when the services did not emit what a case needs."""
    clock = fakes.Clock(collection.EXTRACTED_AT)
    script = Script()
    for case in cases:
        script.case(case)
    deployment = services.Deployment(clock, {"entities": {}, "chunks": {}, "llm": script.llm,
                                             "model": scenarios.MODEL, "mcp": script.mcp})
    knowledge = load_knowledge(deployment, cases)
    retrieval = [case_retrieval(c, k["chunks"]) for c, k in zip(cases, knowledge)]
    await deployment.start(scenarios.tool_config(tools(cases)))
    runs = []
    for i, case in enumerate(cases):
        service = SERVICE.get(case["mechanism"])
        if service is None:
            service = "document-rag" if case["rerank"] else "document-rag-plain"
        runs.append({"name": case["id"], "service": service, "question": case["question"],
                     "start": start_of(i), "index": i, "doc_limit": retrieval[i]["doc_limit"]})
    done = await runner.run_sessions(
        deployment, clock, runs,
        prepare=lambda run: scope(deployment, knowledge[run["index"]], retrieval[run["index"]]))
    labels = []
    for case, run, known in zip(cases, done, knowledge):
        emitted = Emitted(run["log"])
        labels.append(CaseLabels(case, emitted, deployment.librarian.texts, known["chunks"]).build())
    return deployment, labels


def write(out: Path, deployment, labels: list) -> None:
    """Write ``support.trig``, ``support.documents.json`` and ``labels.json`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "support.trig").write_text(writers.trig(deployment.store.triples), encoding="utf-8")
    texts = {d: deployment.librarian.texts[d] for d in deployment.librarian.saved}
    (out / "support.documents.json").write_text(writers.dump_json(texts), encoding="utf-8")
    body = {"generator": "scripts/trustgraph_services/generate.py --support",
            "trustgraph": "trustgraph-flow 2.11.1, trustgraph-base 2.11.1", "cases": labels}
    (out / "labels.json").write_text(writers.dump_json(body), encoding="utf-8")


async def generate(spec: Path, out: Path) -> list:
    """Read ``spec``, run its cases, write the three files into ``out``; returns the labels."""
    deployment, labels = await run_cases(load(spec))
    write(out, deployment, labels)
    return labels
