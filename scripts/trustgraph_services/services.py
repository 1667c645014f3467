"""TrustGraph 2.11.1's own services, started on the in-memory transport: the agent
orchestrator (``trustgraph.agent.orchestrator``), GraphRAG (``trustgraph.retrieval.graph_rag``)
and DocumentRAG (``trustgraph.retrieval.document_rag``), each with its real flow, pools and
clients, its tools built by its own tool configuration; and the stand-ins of ``fakes`` serving
the topics they call. Only the transport, the clock and the uuid source are replaced.
"""

from __future__ import annotations

import asyncio
import random
import uuid

import fakes
import retrieval_fakes
from transport import MemoryBackend
from trustgraph.base import async_processor
from trustgraph.schema import AgentRequest, DocumentRagQuery, GraphRagQuery

WORKSPACE = "default"
FLOW = "default"

# Request/response services the stand-ins answer: name -> stand-in attribute.
STANDIN_SERVICES = {
    "prompt": "llm", "embeddings": "embeddings", "graph-embeddings": "graph_vectors",
    "document-embeddings": "document_vectors", "reranker": "cross_encoder",
    "mcp-tool": "mcp", "triples": "store", "librarian": "librarian",
}
# Services nobody in the corpus calls, declared because the agent's flow names them.
UNUSED_SERVICES = ("text-completion", "structured-query", "row-embeddings-query")


def topic(name: str, kind: str) -> str:
    return f"{kind}:tg:{name}:{WORKSPACE}:{FLOW}"


def client_topics(*names: str) -> dict:
    topics = {}
    for name in names:
        topics[f"{name}-request"] = topic(name, "request")
        topics[f"{name}-response"] = topic(name, "response")
    return topics


def deterministic_uuids(seed: int) -> None:
    """Every ``uuid.uuid4()`` in the process (session ids, activity and subgraph IRIs,
    request ids) from a seeded generator: the same run gives the same ids."""
    rng = random.Random(seed)
    uuid.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)


class Deployment:
    """One workspace with one flow: the three services and the stand-ins, on one
    ``MemoryBackend``. ``clock`` and ``ledger`` are shared with the stand-ins."""

    def __init__(self, clock, knowledge):
        self.clock = clock
        self.ledger = fakes.Ledger(clock)
        self.backend = MemoryBackend()
        self.backend.stamp = clock.iso
        self.store = fakes.TripleStore()
        self.librarian = fakes.Librarian(self.ledger)
        self.embeddings = retrieval_fakes.Embeddings()
        self.graph_vectors = retrieval_fakes.GraphVectors(self.embeddings, knowledge["entities"],
                                                self.ledger)
        self.document_vectors = retrieval_fakes.DocumentVectors(self.embeddings, knowledge["chunks"],
                                                      self.ledger)
        self.cross_encoder = retrieval_fakes.CrossEncoder(self.ledger)
        self.llm = fakes.ScriptedLLM(knowledge["llm"], clock, self.ledger,
                                     knowledge["model"])
        self.mcp = fakes.McpTools(knowledge["mcp"], clock, self.ledger)
        self.processors = {}
        self.starts = {}

    def install_clock(self) -> None:
        """Put the clock where the services read the time."""
        from trustgraph.agent.orchestrator import pattern_base
        from trustgraph.agent.react import agent_manager
        from trustgraph.retrieval.document_rag import document_rag
        from trustgraph.retrieval.graph_rag import graph_rag
        stamp = fakes.clock_datetime(self.clock, self.starts)
        for module in (pattern_base, graph_rag, document_rag):
            module.datetime = stamp
        agent_manager.time = fakes.ClockTime(self.clock)

    async def start(self, tool_config: dict) -> None:
        self.install_clock()
        async_processor.get_async_pubsub = lambda **params: self.backend
        for name, attr in STANDIN_SERVICES.items():
            self.backend.serve(topic(name, "request"), topic(name, "response"),
                               getattr(self, attr).handle)
        self.backend.listen(topic("explainability", "flow"), self.store.take_explain)

        from trustgraph.agent.orchestrator.service import Processor as Agent
        from trustgraph.base import RerankerClientSpec
        from trustgraph.retrieval.document_rag.rag import Processor as DocumentRagService
        from trustgraph.retrieval.graph_rag.rag import Processor as GraphRagService

        common = {"taskgroup": None, "concurrency": 1}
        explain = {"explainability": topic("explainability", "flow")}
        librarian = client_topics("librarian")

        agent = Agent(id="agent-manager", max_iterations=10, **common)
        await self._start(agent, {
            "request": topic("agent", "request"), "next": topic("agent", "request"),
            "response": topic("agent", "response"), **explain, **librarian,
            **client_topics("text-completion", "graph-rag", "prompt", "mcp-tool",
                            "structured-query", "embeddings", "row-embeddings-query"),
        })
        await agent.on_tools_config(WORKSPACE, tool_config, 1)

        graph_rag = GraphRagService(id="graph-rag", **common)
        await self._start(graph_rag, {
            "request": topic("graph-rag", "request"), "response": topic("graph-rag", "response"),
            **explain, **librarian,
            **client_topics("embeddings", "graph-embeddings", "triples", "prompt", "reranker"),
        })

        rag_topics = {
            "response": topic("document-rag", "response"), **explain, **librarian,
            **client_topics("embeddings", "document-embeddings", "prompt", "reranker"),
        }
        document_rag = DocumentRagService(id="document-rag", **common)
        await self._start(document_rag, {"request": topic("document-rag", "request"),
                                         **rag_topics})

        # The same service in a flow with no reranker wired: TrustGraph's DocumentRAG then
        # skips the chunk-selection (Focus) stage, as deployments before the reranker do.
        plain_rag = DocumentRagService(id="document-rag-plain", **common)
        plain_rag.specifications = [s for s in plain_rag.specifications
                                    if not isinstance(s, RerankerClientSpec)]
        await self._start(plain_rag, {"request": topic("document-rag-plain", "request"),
                                      **rag_topics})
        self.processors = {"agent": agent, "graph-rag": graph_rag,
                           "document-rag": document_rag, "document-rag-plain": plain_rag}

    async def _start(self, processor, topics: dict) -> None:
        await processor.receiver_pool.start()
        await processor.sender_pool.start()
        await processor.start_flow(WORKSPACE, FLOW, {"topics": topics})

    async def ask(self, service: str, request, done) -> list:
        """Send ``request`` to ``service``'s request topic and wait until a response for it
        satisfies ``done(response)``; returns every response of that request, in order."""
        request_id = f"request-{len(self.backend.log)}"
        responses = []
        finished = asyncio.Event()

        async def collect(value, properties):
            if properties.get("id") == request_id:
                responses.append(value)
                if done(value) or getattr(value, "error", None):
                    finished.set()

        response_topic = topic(service.replace("-plain", ""), "response")
        self.backend.listen(response_topic, collect)
        await self.backend.publish(topic(service, "request"), type(request), request,
                                   {"id": request_id})
        await asyncio.wait_for(finished.wait(), timeout=60)
        self.backend.listeners[response_topic].remove(collect)
        await self.settle()
        if self.backend.errors:
            raise RuntimeError(f"a stand-in failed: {self.backend.errors[0]}")
        return responses

    async def settle(self) -> None:
        """Let every message in flight be delivered and handled."""
        for _ in range(200):
            await asyncio.sleep(0)
        while self.backend.pending:
            await asyncio.gather(*list(self.backend.pending), return_exceptions=True)
            for _ in range(200):
                await asyncio.sleep(0)

    async def ask_agent(self, question: str, session_id: str) -> list:
        return await self.ask("agent", AgentRequest(
            question=question, session_id=session_id, collection="default", history=[],
            group=None, streaming=False), lambda r: r.end_of_dialog)

    async def ask_graph_rag(self, question: str) -> list:
        return await self.ask("graph-rag", GraphRagQuery(query=question, collection="default"),
                              lambda r: r.end_of_session)

    async def ask_document_rag(self, question: str, rerank: bool, doc_limit: int = 4) -> list:
        service = "document-rag" if rerank else "document-rag-plain"
        return await self.ask(service, DocumentRagQuery(query=question, collection="default",
                                                        doc_limit=doc_limit),
                              lambda r: r.end_of_session)
