"""Record what a TrustGraph 2.11.1 gateway's websocket sends while questions run: the frames of
``/api/v1/socket`` for an agent, a GraphRAG and a DocumentRAG question, and an agent question
whose LLM fails part way, made by TrustGraph's own services (as ``generate.py`` runs them) behind
the gateway's own requestors (``trustgraph.gateway.dispatch``: ``AgentRequestor``,
``GraphRagRequestor``, ``DocumentRagRequestor``, which decode the request and encode every
response with TrustGraph's translators). Each frame is wrapped as the gateway's ``Mux`` wraps
it: ``{"id", "response", "complete"}``. The requests are the ones ``SocketClient``'s
``agent_explain``, ``graph_rag_explain`` and ``document_rag_explain`` send (no ``session_id``:
the orchestrator then makes one, and writes no PatternDecision, as 2.11.1 does for that client).

Also written: the triples the services stored (the explainability topic's, plus the
collection's knowledge and extraction provenance) and the librarian's texts, so that a
stand-in gateway serves the very session the frames built.

    .venv-services/bin/python scripts/trustgraph_services/socket_runs.py [OUT.json]

OUT defaults to ``tests/data/socket_runs.json``. The output is the same on every run (fixed
hash seed, uuids and clock, as ``generate.py``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
HASH_SEED = "0"
UUID_SEED = 20261206

if os.environ.get("PYTHONHASHSEED") != HASH_SEED:
    os.environ["PYTHONHASHSEED"] = HASH_SEED
    os.execv(sys.executable, [sys.executable, *sys.argv])

sys.path.insert(0, str(HERE))

import services

services.deterministic_uuids(UUID_SEED)

import collection
import fakes
import scenarios
import writers

Q_AGENT = "How deep is Lake Baikal?"
Q_FAILING = "What is the water temperature of Lake Baikal in winter?"

# name, service, the request SocketClient sends, the scenario whose LLM replies it uses, start
RUNS = [
    ("agent", "agent", {"question": Q_AGENT, "collection": "default", "streaming": True}, "asked",
     "2026-12-01T09:00:00Z"),
    ("graph-rag", "graph-rag", {"query": scenarios.Q_GRAPHRAG, "collection": "default", "entity-limit": 50,
                                "triple-limit": 30, "max-subgraph-size": 1000, "max-path-length": 2,
                                "edge-score-limit": 30, "edge-limit": 25, "max-reranker-input": 350,
                                "streaming": True, "explainable": True}, "graphrag", "2026-12-01T09:10:00Z"),
    ("document-rag", "document-rag", {"query": scenarios.Q_DOCRAG_RERANK, "collection": "default",
                                      "doc-limit": 4, "fetch-limit": 0, "streaming": True, "explainable": True},
     "docrag-rerank", "2026-12-01T09:20:00Z"),
    ("agent-failed", "agent", {"question": Q_FAILING, "collection": "default", "streaming": True}, "failing",
     "2026-12-01T09:30:00Z"),
]


def llm_script() -> list:
    """The corpus's replies for the RAG sessions run here, and the agent's own: the asked one is
    routed, searches the web once and answers; the failing one is routed, then its first
    reasoning call fails. (A reply the ReAct parser cannot read, as the corpus's
    ``react-parse-error`` has, ends a streamed run with an error in 2.11.1: the streaming parser
    raises "Stream ended in initial state" where the plain one writes a ``__parse_error__`` step.)"""
    wanted = {scenario for *_, scenario, _ in RUNS}
    replies = [r for r in scenarios.llm_script() if r["session"] in wanted]
    asked = {"session": "asked", "key": Q_AGENT, "in_token": 210, "out_token": 24}
    replies.append(dict(asked, prompt="task-type-classify", ms=280, text="lookup"))
    replies.append(dict(asked, prompt="agent-react", ms=940, text=(
        'Thought: I should look the depth up.\nAction: web-search\n'
        'Args: {"query": "Lake Baikal maximum depth"}')))
    replies.append(dict(asked, prompt="agent-react", ms=610, text=(
        "Thought: The search gives the depth.\nFinal Answer: Lake Baikal is 1642 metres deep "
        "at its deepest point, in the central basin.")))
    failing = {"session": "failing", "key": Q_FAILING, "in_token": 190, "out_token": 4}
    replies.append(dict(failing, prompt="task-type-classify", ms=300, text="lookup"))
    replies.append(dict(failing, prompt="agent-react", ms=15000, error="model endpoint timed out after 15 s"))
    return replies


MCP_SCRIPT = {"web-search": [{"ms": 1270, "text": "Lake Baikal: maximum depth 1642 m (central basin); "
                                                 "mean depth 744 m."}]}


async def handle_with_errors(llm, request):
    """``llm.handle`` with replies that carry ``error`` answered as the service's error object."""
    from trustgraph.schema import Error, PromptResponse

    variables = {k: json.loads(v) for k, v in request.terms.items()}
    key = variables.get(llm.KEY_TERM.get(request.id, ""), "")
    failing = next((r for r in llm.script if not r["used"] and r["prompt"] == request.id and r["key"] == key
                    and "error" in r), None)
    if failing is None:
        async for response in fakes.ScriptedLLM.handle(llm, request):
            yield response
        return
    failing["used"] = True
    llm.clock.advance(failing["ms"])
    yield PromptResponse(error=Error(type="llm-error", message=failing["error"]), end_of_stream=True)


def requestor(service: str, backend):
    """TrustGraph's gateway requestor for ``service``, on the deployment's transport. The
    package ``trustgraph.gateway`` is entered without its ``__init__`` (which builds the aiohttp
    web server this generator does not need, nor install); its ``dispatch`` modules are its own."""
    import importlib.util
    import types

    if "trustgraph.gateway" not in sys.modules:
        spec = importlib.util.find_spec("trustgraph.gateway")
        package = types.ModuleType("trustgraph.gateway")
        package.__path__ = list(spec.submodule_search_locations)
        sys.modules["trustgraph.gateway"] = package
    from trustgraph.gateway.dispatch.agent import AgentRequestor
    from trustgraph.gateway.dispatch.document_rag import DocumentRagRequestor
    from trustgraph.gateway.dispatch.graph_rag import GraphRagRequestor

    kind = {"agent": AgentRequestor, "graph-rag": GraphRagRequestor, "document-rag": DocumentRagRequestor}[service]
    return kind(backend=backend, request_queue=services.topic(service, "request"),
                response_queue=services.topic(service, "response"), timeout=60,
                consumer="api-gateway", subscriber="api-gateway")


async def record() -> tuple:
    clock = fakes.Clock(collection.EXTRACTED_AT)
    deployment = services.Deployment(clock, {
        "entities": scenarios.ENTITY_MATCHES, "chunks": {}, "llm": llm_script(),
        "model": scenarios.MODEL, "mcp": MCP_SCRIPT,
    })
    deployment.llm.handle = lambda request: handle_with_errors(deployment.llm, request)
    layout = collection.load(deployment)
    deployment.document_vectors.chunks = layout["chunks"]
    await deployment.start(scenarios.tool_config())
    runs = []
    for number, (name, service, request, _, start) in enumerate(RUNS, 1):
        clock.set(start)
        frames = []
        request_id = f"req-{number}"

        async def responder(response, complete, frames=frames, request_id=request_id):
            frames.append({"id": request_id, "response": response, "complete": complete})

        gateway = requestor(service, deployment.backend)
        await gateway.start()
        await gateway.process(request, responder)
        await deployment.settle()
        await gateway.stop()
        runs.append({"name": name, "service": service, "request": request, "frames": frames})
    return deployment, runs


def main(argv) -> int:
    logging.basicConfig(level=logging.CRITICAL)
    out = Path(argv[1]) if len(argv) > 1 else ROOT / "tests" / "data" / "socket_runs.json"
    deployment, runs = asyncio.run(record())
    texts = {doc_id: deployment.librarian.texts[doc_id] for doc_id in deployment.librarian.saved}
    out.write_text(json.dumps({"made_by": "scripts/trustgraph_services/socket_runs.py (TrustGraph 2.11.1)",
                               "runs": runs, "trig": writers.trig(deployment.store.triples), "documents": texts},
                              ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(runs)} runs, {sum(len(r['frames']) for r in runs)} frames written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
