"""Traces built to break one health rule each, beside a healthy session (for tests/test_health.py
and the browser test of the health panel).

``healthy(id)`` is a clean ReAct agent session in TriG (PatternDecision, one Analysis with its
Thought and Observation, a Conclusion; every text in ``documents(id)``) with a GraphRAG sub-session
its tool call started (an edge selection with a quoted triple). ``BROKEN[rule]`` gives, for each
rule, the Turtle/TriG of a session that breaks it and where the finding must be.
"""

from __future__ import annotations

import json

TG = "https://trustgraph.ai/ns/"
PROV = "http://www.w3.org/ns/prov#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
PREFIXES = """@prefix tg: <https://trustgraph.ai/ns/> .
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
"""
HEALTHY = "urn:trustgraph:agent:00000000-0000-4000-8000-00000000aaaa"
BROKEN_ID = "urn:trustgraph:agent:00000000-0000-4000-8000-00000000bbbb"


def sub(session: str) -> str:
    """The GraphRAG sub-session of an agent session."""
    return "urn:trustgraph:question:" + session.rsplit(":", 1)[1]


def healthy(session: str, *, started: str = "2026-03-09T10:00:00Z", sub_started: str = "2026-03-09T10:00:05Z",
            arguments: str = '{"expression": "2 + 2"}', llm_ms: str = "1200", edge: str | None = None,
            extra: str = "", answer: bool = True, types: str = "") -> str:
    """A clean agent session with a GraphRAG sub-session, as TriG (one graph)."""
    r, s = session, sub(session)
    key = session.rsplit(":", 1)[1]
    edge = edge or "<< <http://e/a> <http://e/knows> <http://e/b> >>"
    args = json.dumps(arguments)
    final = (f'<{r}/final> a prov:Entity, tg:Conclusion, tg:Answer ; prov:wasDerivedFrom <{r}/i1/observation> ;\n'
             f'    tg:terminationReason "final-answer" ; tg:document <urn:doc:{key}:answer> .')
    return PREFIXES + f"""
<urn:graph:retrieval> {{
<{r}> a prov:Entity, tg:Question, tg:AgentQuestion {types}; tg:query "What is two and two?" ;
    prov:startedAtTime "{started}" .
<{r}/pattern-decision> a prov:Entity, tg:PatternDecision ; prov:wasDerivedFrom <{r}> ; tg:pattern "react" .
<{r}/i1> a prov:Entity, tg:Analysis, tg:ToolUse ; prov:wasDerivedFrom <{r}/pattern-decision> ;
    tg:action "calculator" ; tg:arguments {args} ; tg:llmDurationMs "{llm_ms}" ; tg:inToken "100" ;
    tg:outToken "20" ; tg:llmModel "model-a" ; tg:thought <{r}/i1/thought> .
<{r}/i1/thought> a tg:Thought, tg:Reflection ; prov:wasDerivedFrom <{r}/i1> ; tg:document <urn:doc:{key}:thought> .
<{r}/i1/observation> a prov:Entity, tg:Observation, tg:Reflection ; prov:wasDerivedFrom <{r}/i1> ;
    tg:toolDurationMs "30" ; tg:document <urn:doc:{key}:observation> .
{final if answer else ""}
<{s}> a prov:Entity, tg:Question, tg:GraphRagQuestion ; tg:query "two and two" ;
    prov:startedAtTime "{sub_started}" ; prov:wasDerivedFrom <{r}/i1> .
<urn:trustgraph:prov:grounding:{key}> a prov:Entity, tg:Grounding ; prov:wasDerivedFrom <{s}> ; tg:concept "two" .
<urn:trustgraph:prov:exploration:{key}> a prov:Entity, tg:Exploration ;
    prov:wasDerivedFrom <urn:trustgraph:prov:grounding:{key}> ; tg:edgeCount "1" .
<urn:trustgraph:prov:focus:{key}> a prov:Entity, tg:Focus ; prov:wasDerivedFrom <urn:trustgraph:prov:exploration:{key}> ;
    tg:selectedEdge <urn:trustgraph:prov:edge:{key}:0> .
<urn:trustgraph:prov:edge:{key}:0> a tg:EdgeSelection ; tg:edge {edge} ; tg:concept "two" ; tg:score "0.9" .
<urn:trustgraph:prov:synthesis:{key}> a prov:Entity, tg:Synthesis, tg:Answer ;
    prov:wasDerivedFrom <urn:trustgraph:prov:focus:{key}> ; tg:document <urn:doc:{key}:synthesis> .
{extra}
}}
"""


def documents(session: str) -> dict[str, str]:
    """Every text the healthy session points at: its answers say what its observation and its
    sub-session's selected edge ("a knows b") say, so nothing in them goes unsupported."""
    key = session.rsplit(":", 1)[1]
    texts = {f"urn:doc:{key}:{name}": f"the {name} of {key}" for name in ("thought", "observation")}
    return texts | {f"urn:doc:{key}:answer": texts[f"urn:doc:{key}:observation"],
                    f"urn:doc:{key}:synthesis": "a knows b"}


def _doc_missing(session: str) -> dict[str, str]:
    return {k: v for k, v in documents(session).items() if not k.endswith(":observation")}


B = BROKEN_ID
KEY = B.rsplit(":", 1)[1]
# rule -> (trace text of the broken session, its documents, (session, step, triple) of the finding)
BROKEN: dict[str, tuple[str, dict[str, str], tuple[str, str | None, str | None]]] = {
    "arguments-not-json": (healthy(B, arguments="{not json"), documents(B),
                           (B, f"{B}/i1", f'<{B}/i1> <{TG}arguments> "{{not json"')),
    "bad-literal": (healthy(B, llm_ms="twelve"), documents(B),
                    (B, f"{B}/i1", f'<{B}/i1> <{TG}llmDurationMs> "twelve"')),
    "dangling-derivation": (healthy(B, extra=f"<{B}/final> prov:wasDerivedFrom <urn:trustgraph:gone:1> ."), documents(B),
                            (B, f"{B}/final", f"<{B}/final> <{PROV}wasDerivedFrom> <urn:trustgraph:gone:1>")),
    "unreachable-step": (healthy(B, extra=f"<{B}/i7> a prov:Entity, tg:Analysis ; tg:action \"lost\" ."), documents(B),
                         (B, f"{B}/i7", None)),
    "cycle": (healthy(B, extra=f"<{B}/pattern-decision> prov:wasDerivedFrom <{B}/i1> ."), documents(B),
              (B, f"{B}/pattern-decision", f"<{B}/pattern-decision> <{PROV}wasDerivedFrom> <{B}/i1>")),
    "unknown-type": (healthy(B, extra=f"<{B}/i1> a tg:Daydream ."), documents(B),
                     (B, f"{B}/i1", f"<{B}/i1> <{RDF_TYPE}> <{TG}Daydream>")),
    "time-before-parent": (healthy(B, sub_started="2026-03-09T09:59:00Z"), documents(B),
                           (sub(B), None, f'<{sub(B)}> <{PROV}startedAtTime> "2026-03-09T09:59:00Z"')),
    "damaged-quoted-triple": (healthy(B, edge='"<<not a triple at all"'), documents(B),
                              (sub(B), f"urn:trustgraph:prov:edge:{KEY}:0",
                               f'<urn:trustgraph:prov:edge:{KEY}:0> <{TG}edge> "<<not a triple at all"')),
    "missing-text": (healthy(B), _doc_missing(B),
                     (B, f"{B}/i1/observation", f"<{B}/i1/observation> <{TG}document> <urn:doc:{KEY}:observation>")),
    "unfinished": (healthy(B, answer=False), documents(B), (B, None, None)),
}
