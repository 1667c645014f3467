"""Review targets of every kind, taken from the corpus manifest: a session, an agent step, a
span of an answer, a GraphRAG edge selection and a DocRAG chunk, each with its session."""

from __future__ import annotations

from dataclasses import dataclass

from tests.conftest import MANIFEST


def _session(file: str, mechanism: str) -> dict:
    return next(s for s in MANIFEST[file]["sessions"] if s["mechanism"] == mechanism)


AGENT = _session("seed-sessions.ttl", "agent")  # "What is the capital of France?"
GRAPHRAG = _session("graph-dump.ttl", "graphrag")
DOCRAG = next(s for s in MANIFEST["collection.trig"]["sessions"]
              if s["session"] == "urn:trustgraph:docrag:4a23d596-2217-4ead-9bc4-96cb8e81973e")
GRAPHRAG_ID = GRAPHRAG["session"].rsplit(":", 1)[1]
ANSWER = AGENT["answer"]  # "Paris is the capital of France."


@dataclass(frozen=True)
class Target:
    kind: str
    iri: str
    session: str


TARGETS = (
    Target("session", AGENT["session"], AGENT["session"]),
    Target("step", AGENT["session"] + "/i1", AGENT["session"]),
    Target("answer", GRAPHRAG["session"].replace(":question:", ":prov:synthesis:"), GRAPHRAG["session"]),
    Target("edge", f"urn:trustgraph:prov:edge:{GRAPHRAG_ID}:0", GRAPHRAG["session"]),
    Target("chunk", "urn:chunk:92276658-1e27-41c0-8a6a-63ec24ede6a4", DOCRAG["session"]),
)
