"""The manifest of the service-made corpus, made from what the stand-ins were asked and
answered (the ledger) and from the messages the services exchanged (the transport's log):
never from reading the trace back. The schema is in ``trace_explorer/demo_data/README.md``.
"""

from __future__ import annotations

import re

from collection import LABELS, entity
from trustgraph.agent.react.agent_manager import AgentManager
from trustgraph.agent.react.types import Final
from trustgraph.provenance import agent_decomposition_uri, agent_final_uri, agent_session_uri
from trustgraph.schema import AgentRequest, GraphRagQuery

AGENT = "urn:trustgraph:agent:"
GRAPHRAG_ROOT = "urn:trustgraph:question:"
DOCRAG = "urn:trustgraph:docrag:"
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
AGENT_KINDS = [
    (r"", "Question"), (r"/pattern-decision", "PatternDecision"), (r"/i\d+", "Analysis"),
    (r"/i\d+/observation", "Observation"), (r"/final", "Conclusion"), (r"/plan", "Plan"),
    (r"/step/\d+", "StepResult"), (r"/synthesis", "Synthesis"),
    (r"/decompose", "Decomposition"), (r"/finding/\d+", "Finding"),
]
RAG_KINDS = {"grounding": "Grounding", "exploration": "Exploration", "focus": "Focus",
             "synthesis": "Synthesis"}


def session_of(explain_id: str) -> tuple[str, str]:
    """(session IRI, step kind) of an entity IRI, by TrustGraph's URI scheme
    (``trustgraph/provenance/uris.py``)."""
    if explain_id.startswith(AGENT):
        sid, _, rest = explain_id[len(AGENT):].partition("/")
        tail = "/" + rest if rest else ""
        kind = next(k for pattern, k in AGENT_KINDS if re.fullmatch(pattern, tail))
        return AGENT + sid, kind
    if explain_id.startswith(DOCRAG):
        sid, _, rest = explain_id[len(DOCRAG):].partition("/")
        return DOCRAG + sid, RAG_KINDS.get(rest, "Question")
    found = re.search(UUID, explain_id)
    kind = "Question" if explain_id.startswith(GRAPHRAG_ROOT) else \
        RAG_KINDS[explain_id.split(":")[3]]
    return GRAPHRAG_ROOT + found.group(0), kind


def label_text(value: str) -> str:
    key = value[len(entity("")):] if value.startswith(entity("")) else None
    return LABELS.get(key, value)


def edge_texts(store_triples):
    """Every text the GraphRAG service can hand the reranker for a knowledge triple (one a
    traversal direction, ``graph_rag.py``'s hop_and_filter) -> (s, p, o)."""
    texts = {}
    for t in store_triples:
        if t.g or t.p.iri.endswith("#label"):
            continue
        s, p = t.s.iri, t.p.iri
        o = t.o.iri or t.o.value
        ls, lp, lo = label_text(s), label_text(p), label_text(o)
        for text in (f"{lp} {lo}", f"{ls} {lp}", f"{ls} {lo}"):
            texts.setdefault(text, (s, p, o))
    return texts


def evidence_index(layout):
    index, chunk_home = {}, {}
    for doc in layout["documents"]:
        for page in doc["pages"]:
            for chunk in page["chunks"]:
                home = {"document": doc["document"], "title": doc["title"],
                        "page": page["page"], "chunk": chunk["chunk"],
                        "subgraph": chunk["subgraph"]}
                chunk_home[chunk["chunk"]] = home
                for s, p, o in chunk["facts"]:
                    obj = entity(o) if o in LABELS else o
                    index[(entity(s), entity(p), obj)] = home
    return index, chunk_home


def react_reading(reply_text: str):
    """What TrustGraph's ReAct parser makes of a reply: ``("final", text)``,
    ``("action", name, arguments, thought)`` or ``("parse-error", message)``."""
    try:
        parsed = AgentManager(tools={}).parse_react_response(reply_text)
    except ValueError as error:
        return ("parse-error", f"LLM parse error: {error}")
    if isinstance(parsed, Final):
        return ("final", parsed.final, parsed.thought)
    return ("action", parsed.name, parsed.arguments, parsed.thought)


class SessionBook:
    """Collects the sessions of one run from its messages and ledger entries."""

    def __init__(self, run, deployment, edges, evidence, chunk_home):
        self.run, self.deployment = run, deployment
        self.edges, self.evidence, self.chunk_home = edges, evidence, chunk_home
        self.sessions = {}
        self.names = {}

    def session(self, iri):
        return self.sessions.setdefault(iri, {"session": iri, "steps": []})

    def read_messages(self):
        for topic, value, props, at in self.run["log"]:
            if topic.startswith("flow:tg:explainability"):
                iri, kind = session_of(value.metadata.id)
                s = self.session(iri)
                if kind == "Question":
                    s["started"] = self.deployment.starts[iri]
                s["steps"].append({"entity": value.metadata.id, "kind": kind})
            elif topic.startswith("request:tg:agent") and isinstance(value, AgentRequest):
                if value.history:
                    continue
                s = self.session(agent_session_uri(value.session_id))
                s.update(mechanism="agent", question=value.question)
                if value.parent_session_id:
                    s["parent"] = agent_decomposition_uri(value.parent_session_id)
                    s["goal"] = value.subagent_goal
            elif topic.startswith("request:tg:graph-rag") and isinstance(value, GraphRagQuery):
                self.graph_requests.append((props["id"], value, at))
            elif topic.startswith("response:tg:graph-rag") and value.explain_id:
                self.graph_responses.setdefault(props["id"], []).append(value.explain_id)
            elif topic.startswith("response:tg:document-rag") and value.explain_id:
                self.session(session_of(value.explain_id)[0]).update(mechanism="docrag")

    def build(self):
        self.graph_requests, self.graph_responses = [], {}
        self.read_messages()
        for request_id, query, at in self.graph_requests:
            root = self.graph_responses[request_id][0]
            s = self.session(root)
            s.update(mechanism="graphrag", question=query.query,
                     parent=query.parent_uri or None,
                     subtrace_last=self.graph_responses[request_id][-1])
        for s in self.sessions.values():
            if s.get("mechanism") == "docrag":
                s["question"] = self.run["question"]
        return self.sessions


def llm_entries(ledger, session_name):
    return [e for e in ledger if e["service"] == "llm" and e["session"] == session_name]


def name_sessions(run, sessions):
    """The scenario's name of each session IRI (the LLM script is written by these names)."""
    names = {}
    top = [s for s in sessions.values() if not s.get("parent")]
    for s in top:
        names[s["session"]] = run["name"]
    subs = [s for s in sessions.values() if s.get("goal") is not None]
    goals = [e["reply"] for e in run["ledger"]
             if e["service"] == "llm" and e["prompt"] == "supervisor-decompose"]
    for s in subs:
        names[s["session"]] = f"{run['name']}/sub-{goals[0].index(s['goal'])}" if goals else ""
    for s in sessions.values():
        if s["mechanism"] == "graphrag" and s.get("parent"):
            names[s["session"]] = f"{run['name']}/knowledge-query"
    return names


def agent_details(s, name, run, deployment, sessions, names):
    """Pattern, actions (with tool outcomes, durations, pairing) and answer of an agent
    session."""
    ledger = run["ledger"]
    own = llm_entries(ledger, name)
    select = [e for e in own if e["prompt"] == "pattern-select"]
    classify = [e for e in own if e["prompt"] == "task-type-classify"]
    s["task_type"] = classify[0]["reply"] if classify else None
    if s.get("goal") is not None:
        s["pattern"] = "react"
    elif select:
        s["pattern"] = select[0]["reply"]
    else:
        s["pattern"] = "react"
    sid = s["session"]
    children = {c.get("parent"): c for c in sessions.values() if c.get("parent")}
    # MCP calls belong to the agent-react or plan-step reply before them in the ledger.
    owner = {}
    last = None
    for i, e in enumerate(ledger):
        if e["service"] == "llm" and e["prompt"] in ("agent-react", "plan-step-execute"):
            last = e
        elif e["service"] == "mcp-tool":
            owner[i] = last
    mcp_for = {id(owner[i]): ledger[i] for i in owner if owner[i] is not None}
    actions, plan_steps = [], []
    recorded_on = {}
    n = 0
    for e in own:
        if e["prompt"] == "agent-react":
            reading = react_reading(e["reply"])
            if reading[0] == "final":
                s["answer_reply"] = e["reply"]
                continue
            n += 1
            analysis = f"{sid}/i{n}"
            recorded_on[id(e)] = analysis
            step = {"analysis": analysis, "observation": f"{analysis}/observation",
                    "llm_duration_ms": e["ms"], "in_token": e["in_token"],
                    "out_token": e["out_token"], "sub_session": None}
            if reading[0] == "parse-error":
                step.update(action="__parse_error__", arguments={}, parse_error=True,
                            tool_error=reading[1], tool_duration_ms=0,
                            observation_derived_from=analysis)
            else:
                step.update(action=reading[1], arguments=reading[2], parse_error=False)
                fill_tool_outcome(step, mcp_for.get(id(e)), children.get(analysis))
            actions.append(step)
        elif e["prompt"] == "plan-step-execute":
            index = len(plan_steps)
            uri = f"{sid}/step/{index}"
            call = e["reply"]
            step = {"step": uri, "goal": e["key"], "tool": call.get("tool"),
                    "arguments": call.get("arguments", {}), "sub_session": None}
            fill_tool_outcome(step, mcp_for.get(id(e)), children.get(uri))
            plan_steps.append(step)
    s["actions"] = actions
    s["tool_order"] = [a["action"] for a in actions if not a["parse_error"]]
    s["parse_errors"] = [a["analysis"] for a in actions if a["parse_error"]]
    if plan_steps:
        s["plan_steps"] = plan_steps
    decompose = [e for e in own if e["prompt"] == "supervisor-decompose"]
    if decompose:
        s["goals"] = decompose[0]["reply"]
    s["answer_document"] = (f"{sid}/answer" if s["pattern"] == "react"
                            else f"{sid}/synthesis/doc")
    s["answer"] = deployment.librarian.texts.get(s["answer_document"])
    s["llm_calls"] = [call_of(e, recorded_on.get(id(e))) for e in own]


def fill_tool_outcome(step, mcp, child):
    """A tool call's error and duration: from the GraphRAG session it ran (``child``; its LLM
    calls are all the time it took) or from the MCP stand-in's answer. An Analysis also gets
    what its Observation derives from: that session's last entity (its Synthesis), else the
    Analysis itself (``pattern_base.emit_observation_triples``)."""
    if child is not None:
        step.update(sub_session=child["session"], tool_error=None,
                    tool_duration_ms=sum(c["duration_ms"] for c in child["llm_calls"]))
        derived = child["subtrace_last"]
    else:
        step.update(tool_error=mcp["error"], tool_duration_ms=mcp["ms"])
        derived = step.get("analysis")
    if "analysis" in step:
        step["observation_derived_from"] = derived


def call_of(e, recorded_on=None):
    """One LLM call; ``recorded_on`` is the step whose ``tg:inToken``/``tg:outToken`` (and, on
    an Analysis, ``tg:llmDurationMs``) the service stamped with it, or None (router, plan,
    supervisor and final-answer calls are recorded nowhere)."""
    return {"prompt": e["prompt"], "in_token": e["in_token"], "out_token": e["out_token"],
            "model": e["model"], "duration_ms": e["ms"], "recorded_on": recorded_on}


def rag_details(s, name, run, deployment, edges, evidence, chunk_home):
    own = llm_entries(run["ledger"], name)
    sid = s["session"]
    if s["mechanism"] == "graphrag":
        u = sid.rsplit(":", 1)[-1]
        stamped = {"extract-concepts": f"urn:trustgraph:prov:grounding:{u}",
                   "kg-synthesis": f"urn:trustgraph:prov:synthesis:{u}"}
    else:
        stamped = {"extract-concepts": f"{sid}/grounding", "document-prompt": f"{sid}/synthesis"}
    s["llm_calls"] = [call_of(e, stamped.get(e["prompt"])) for e in own]
    concepts = [e for e in own if e["prompt"] == "extract-concepts"]
    s["concepts"] = [c.strip() for c in concepts[0]["reply"].split("\n") if c.strip()]
    u = s["session"].rsplit(":", 1)[-1] if s["mechanism"] == "graphrag" else None
    window = [e for e in run["ledger"] if e.get("concept") in s["concepts"]
              or e["service"] == "reranker"]
    if s["mechanism"] == "graphrag":
        s["answer_document"] = f"urn:trustgraph:synthesis:{u}"
        picked = []
        for e in run["ledger"]:
            if e["service"] == "reranker" and set(e["queries"]) == set(s["concepts"]):
                for doc_id, query_id, score in e["results"]:
                    triple = edges[e["documents"][int(doc_id)]]
                    picked.append({"edge": list(triple), "concept": e["queries"][int(query_id)],
                                   "score": score, "evidence": evidence.get(triple)})
        s["edges"] = picked
        s["edge_count"] = len(picked)
        s["seed_entities"] = []
        for e in window:
            if e["service"] == "graph-embeddings":
                for iri, _ in e["entities"]:
                    if iri not in s["seed_entities"]:
                        s["seed_entities"].append(iri)
    else:
        sid = s["session"]
        s["answer_document"] = f"{sid}/answer"
        explored = []
        for e in window:
            if e["service"] == "document-embeddings":
                for chunk, score in e["chunks"]:
                    if chunk not in [c["chunk"] for c in explored]:
                        explored.append({"chunk": chunk, "score": score,
                                         **{k: chunk_home[chunk][k]
                                            for k in ("document", "title", "page")}})
        s["chunks"] = explored
        s["chunk_count"] = len(explored)
        reranked = [e for e in window if e["service"] == "reranker"]
        s["reranked"] = bool(reranked)
        s["focus_chunks"] = [{"chunk": explored[int(d)]["chunk"], "score": score}
                             for d, _, score in reranked[0]["results"]] if reranked else []
    s["answer"] = deployment.librarian.texts.get(s["answer_document"])


def finish(s, sessions):
    steps = [x for x in s["steps"] if x["kind"] != "Question"]
    counts = {}
    for x in steps:
        counts[x["kind"]] = counts.get(x["kind"], 0) + 1
    s["step_counts"] = counts
    s["step_order"] = [x["entity"] for x in steps]
    s["children"] = [c["session"] for c in sessions.values()
                     if c.get("parent") and session_of(c["parent"])[0] == s["session"]]
    calls = s["llm_calls"]
    s["tokens"] = {"in": sum(c["in_token"] for c in calls),
                   "out": sum(c["out_token"] for c in calls),
                   "llm_duration_ms": sum(c["duration_ms"] for c in calls)}
    s["tool_duration_ms"] = sum(a.get("tool_duration_ms") or 0
                                for a in s.get("actions", []) + s.get("plan_steps", []))
    stamped = [c for c in calls if c["recorded_on"]]
    s["recorded"] = {"in": sum(c["in_token"] for c in stamped),
                     "out": sum(c["out_token"] for c in stamped),
                     "llm_duration_ms": sum(c["duration_ms"] for c in stamped
                                            if c["prompt"] == "agent-react"),
                     "tool_duration_ms": sum(a["tool_duration_ms"] for a in s.get("actions", []))}


def totals(s, by_iri):
    own = dict(s["tokens"], tool_duration_ms=s["tool_duration_ms"])
    recorded = dict(s["recorded"])
    for child in s["children"]:
        sub, sub_recorded = totals(by_iri[child], by_iri)
        for k in own:
            own[k] += sub[k]
        for k in recorded:
            recorded[k] += sub_recorded[k]
    s["tokens_with_children"] = own
    s["recorded_with_children"] = recorded
    return own, recorded


def build(deployment, layout, runs):
    """``{"generator", "sessions": [...], "documents": [...]}``: see ``trace_explorer/demo_data/README.md``."""
    edges = edge_texts(deployment.store.triples)
    evidence, chunk_home = evidence_index(layout)
    out = []
    for run in runs:
        book = SessionBook(run, deployment, edges, evidence, chunk_home)
        sessions = book.build()
        names = name_sessions(run, sessions)
        for s in sessions.values():
            s["name"] = names[s["session"]]
            if s["mechanism"] != "agent":
                rag_details(s, s["name"], run, deployment, edges, evidence, chunk_home)
        for s in sessions.values():
            if s["mechanism"] == "agent":
                agent_details(s, s["name"], run, deployment, sessions, names)
            finish(s, sessions)
        if any(s["mechanism"] == "agent" and s.get("goals") for s in sessions.values()):
            supervisor_findings(sessions, run)
        order = sorted(sessions.values(), key=lambda s: (s["started"], s["session"]))
        out.extend(order)
    by_iri = {s["session"]: s for s in out}
    for s in out:
        if not s.get("parent"):
            totals(s, by_iri)
    for s in out:
        s.pop("steps", None)
        s.pop("subtrace_last", None)
        s.setdefault("parent", None)
    return {"generator": "scripts/trustgraph_services/generate.py",
            "trustgraph": "trustgraph-flow 2.11.1, trustgraph-base 2.11.1",
            "sessions": [order_keys(s) for s in out], "documents": layout["documents"]}


def supervisor_findings(sessions, run):
    """Findings in the order the sub-agents finished (the finding index), each with its goal
    and the sub-agent's Conclusion it derives from."""
    top = next(s for s in sessions.values() if s.get("goals"))
    done = []
    for topic, value, props, at in run["log"]:
        if topic.startswith("request:tg:agent") and isinstance(value, AgentRequest) and any(
                h.step_type == "subagent-completion" for h in value.history or []):
            done.append(value)
    top["findings"] = [{"finding": f"{top['session']}/finding/{i}", "goal": v.subagent_goal,
                        "sub_session": agent_session_uri(v.session_id),
                        "derived_from": agent_final_uri(v.session_id)}
                       for i, v in enumerate(done)]


KEY_ORDER = ["session", "name", "mechanism", "pattern", "task_type", "question", "started",
             "parent", "goal", "children", "answer", "answer_document", "answer_reply",
             "step_counts", "step_order", "actions", "tool_order", "parse_errors", "plan_steps", "goals", "findings",
             "concepts", "seed_entities", "edge_count", "edges", "chunk_count", "chunks",
             "reranked", "focus_chunks", "llm_calls", "tokens", "tool_duration_ms",
             "tokens_with_children", "recorded", "recorded_with_children"]


def order_keys(s):
    missing = set(s) - set(KEY_ORDER)
    assert not missing, missing
    return {k: s[k] for k in KEY_ORDER if k in s}
