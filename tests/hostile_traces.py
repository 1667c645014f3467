"""A hostile corpus: every text field a trace can carry holds markup, script, link and image
injection, control and bidi characters, or a 1 MB string. Trace text is LLM output, tool output
and user questions; the explorer must show all of it literally and run none of it."""

from __future__ import annotations

import json

import pyoxigraph as ox

SCRIPT = '<script>window.__pwned = 1; alert("script")</script>'
IMG = '<img src=x onerror="window.__pwned = 2; alert(1)">'
LINK = "[click me](javascript:alert(3))"
MD_IMAGE = "![tracker](http://127.0.0.1:9/pixel.png)"
HTML_IN_JSON = {"html": "<b>bold</b><iframe src=javascript:alert(4)></iframe>", "q": "</script><script>alert(5)</script>"}
CONTROL = "bell\x07 escape\x1b[31mred\x1b[0m zero\u200bwidth rtl\u202egnirts\u202c tab\tend"
PAYLOADS = (SCRIPT, IMG, LINK, MD_IMAGE, CONTROL)
# 1 MiB without a space. Hex digits, not one letter: Chromium takes seconds to lay out a long run
# of the letter A alone (a quirk of its text shaping, 4 s for 60,000), which is not what these
# tests check.
BIG = "0123456789abcdef" * (1024 * 1024 // 16)
ALL_TEXT = " ".join(PAYLOADS)

AGENT = "urn:trustgraph:agent:0bad0bad-0000-4000-8000-000000000001"
GRAPHRAG = "urn:trustgraph:question:0bad0bad-0000-4000-8000-000000000002"
DOCRAG = "urn:trustgraph:docrag:0bad0bad-0000-4000-8000-000000000003"
EVIL_IRI = "javascript:alert(6)"


def _q(s, p, o, g="urn:graph:retrieval"):
    def term(x):
        if isinstance(x, (ox.Literal, ox.Triple, ox.NamedNode)):
            return x
        return ox.NamedNode(x)
    return ox.Quad(term(s), ox.NamedNode(p), o if isinstance(o, (ox.Literal, ox.Triple, ox.NamedNode)) else ox.Literal(str(o)), ox.NamedNode(g))


TG = "https://trustgraph.ai/ns/"
PROV = "http://www.w3.org/ns/prov#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


def hostile_quads() -> list[ox.Quad]:
    """Three sessions (agent react, GraphRAG, DocRAG) whose every text field is hostile."""
    a = lambda s, c: _q(s, RDF_TYPE, ox.NamedNode(TG + c))
    quads = [
        a(AGENT, "Question"), a(AGENT, "AgentQuestion"), _q(AGENT, TG + "query", "Agent " + ALL_TEXT),
        _q(AGENT, PROV + "startedAtTime", "2026-03-11T10:00:00Z"), _q(AGENT, LABEL, IMG),
        a(AGENT + "/pattern-decision", "PatternDecision"), _q(AGENT + "/pattern-decision", PROV + "wasDerivedFrom", ox.NamedNode(AGENT)),
        _q(AGENT + "/pattern-decision", TG + "pattern", "react"), _q(AGENT + "/pattern-decision", TG + "taskType", SCRIPT),
        a(AGENT + "/i1", "Analysis"), a(AGENT + "/i1", "ToolUse"), _q(AGENT + "/i1", PROV + "wasDerivedFrom", ox.NamedNode(AGENT + "/pattern-decision")),
        _q(AGENT + "/i1", TG + "action", IMG), _q(AGENT + "/i1", TG + "arguments", json.dumps(HTML_IN_JSON)),
        _q(AGENT + "/i1", TG + "toolCandidate", SCRIPT), _q(AGENT + "/i1", LABEL, LINK),
        _q(AGENT + "/i1", TG + "thought", ox.NamedNode(AGENT + "/i1/thought")), _q(AGENT + "/i1", TG + "llmModel", MD_IMAGE),
        _q(AGENT + "/i1", TG + "llmDurationMs", "1200"),
        a(AGENT + "/i1/thought", "Thought"), _q(AGENT + "/i1/thought", PROV + "wasDerivedFrom", ox.NamedNode(AGENT + "/i1")),
        _q(AGENT + "/i1/thought", TG + "document", ox.NamedNode("urn:trustgraph:doc:bad-thought")),
        a(AGENT + "/i1/observation", "Observation"), a(AGENT + "/i1/observation", "Error"),
        _q(AGENT + "/i1/observation", PROV + "wasDerivedFrom", ox.NamedNode(AGENT + "/i1")),
        _q(AGENT + "/i1/observation", TG + "toolError", "Tool error " + ALL_TEXT),
        _q(AGENT + "/i1/observation", TG + "document", ox.NamedNode("urn:trustgraph:doc:bad-observation")),
        _q(AGENT + "/i1/observation", TG + "toolDurationMs", "300"),
        a(AGENT + "/final", "Conclusion"), a(AGENT + "/final", "Answer"),
        _q(AGENT + "/final", PROV + "wasDerivedFrom", ox.NamedNode(AGENT + "/i1/observation")),
        _q(AGENT + "/final", TG + "document", ox.NamedNode("urn:trustgraph:doc:bad-answer")),
        _q(AGENT + "/final", TG + "terminationReason", LINK),
        # GraphRAG with hostile concepts, labels, reasoning and an edge to a javascript: IRI
        a(GRAPHRAG, "Question"), a(GRAPHRAG, "GraphRagQuestion"), _q(GRAPHRAG, TG + "query", "GraphRAG " + ALL_TEXT),
        _q(GRAPHRAG, PROV + "startedAtTime", "2026-03-11T09:00:00Z"),
        a("urn:trustgraph:prov:grounding:0bad", "Grounding"), _q("urn:trustgraph:prov:grounding:0bad", PROV + "wasDerivedFrom", ox.NamedNode(GRAPHRAG)),
        _q("urn:trustgraph:prov:grounding:0bad", TG + "concept", SCRIPT), _q("urn:trustgraph:prov:grounding:0bad", TG + "concept", LINK),
        a("urn:trustgraph:prov:focus:0bad", "Focus"), _q("urn:trustgraph:prov:focus:0bad", PROV + "wasDerivedFrom", ox.NamedNode("urn:trustgraph:prov:grounding:0bad")),
        _q("urn:trustgraph:prov:focus:0bad", TG + "selectedEdge", ox.NamedNode("urn:trustgraph:prov:edge:0bad:0")),
        a("urn:trustgraph:prov:edge:0bad:0", "EdgeSelection"),
        _q("urn:trustgraph:prov:edge:0bad:0", TG + "edge", ox.Triple(ox.NamedNode(EVIL_IRI), ox.NamedNode("http://e/p"), ox.Literal(IMG))),
        _q("urn:trustgraph:prov:edge:0bad:0", TG + "concept", IMG), _q("urn:trustgraph:prov:edge:0bad:0", TG + "score", "0.5"),
        _q("urn:trustgraph:prov:edge:0bad:0", TG + "reasoning", "Reasoning " + ALL_TEXT),
        _q(EVIL_IRI, LABEL, SCRIPT, "urn:graph:default"), _q("http://e/p", LABEL, MD_IMAGE, "urn:graph:default"),
        a("urn:trustgraph:prov:synthesis:0bad", "Synthesis"), _q("urn:trustgraph:prov:synthesis:0bad", PROV + "wasDerivedFrom", ox.NamedNode("urn:trustgraph:prov:focus:0bad")),
        _q("urn:trustgraph:prov:synthesis:0bad", TG + "document", ox.NamedNode("urn:trustgraph:doc:bad-answer")),
        # DocRAG with a 1 MB chunk text and hostile chunk ids
        a(DOCRAG, "Question"), a(DOCRAG, "DocRagQuestion"), _q(DOCRAG, TG + "query", "DocRAG " + ALL_TEXT),
        _q(DOCRAG, PROV + "startedAtTime", "2026-03-11T08:00:00Z"),
        a(DOCRAG + "/exploration", "Exploration"), _q(DOCRAG + "/exploration", PROV + "wasDerivedFrom", ox.NamedNode(DOCRAG)),
        _q(DOCRAG + "/exploration", TG + "chunkCount", "1"), _q(DOCRAG + "/exploration", TG + "selectedChunk", SCRIPT),
        a(DOCRAG + "/synthesis", "Synthesis"), _q(DOCRAG + "/synthesis", PROV + "wasDerivedFrom", ox.NamedNode(DOCRAG + "/exploration")),
        _q(DOCRAG + "/synthesis", TG + "content", BIG),
    ]
    return quads


def hostile_documents() -> dict[str, str]:
    """Texts behind the hostile trace's ``tg:document`` references."""
    return {"urn:trustgraph:doc:bad-thought": "Thought " + ALL_TEXT,
            "urn:trustgraph:doc:bad-observation": "Observation " + ALL_TEXT + " " + BIG,
            "urn:trustgraph:doc:bad-answer": "Answer " + ALL_TEXT}


def hostile_files() -> dict[str, bytes]:
    """File name -> bytes: a TriG trace and its content file."""
    return {"hostile.trig": ox.serialize(hostile_quads(), format=ox.RdfFormat.TRIG),
            "hostile.documents.json": json.dumps(hostile_documents()).encode()}


def hostile_collection():
    """``(TraceStore, sessions by IRI)`` of the hostile trace and its content file."""
    from trace_explorer.model.reader import read_sessions
    from trace_explorer.read.collection import TraceStore

    collection = TraceStore()
    for name, data in hostile_files().items():
        collection.add_file(name, data)
    return collection, {s.id: s for s in read_sessions(collection)}
