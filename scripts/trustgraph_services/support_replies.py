"""What the scripted LLM and the MCP tools answer for a labelled case (``ScriptedLLM`` and
``McpTools`` scripts): the router's task type and pattern, the ReAct replies ("Thought /
Action / Args", then "Final Answer: ..." with the answer's sentences joined by spaces), the
planner's plan, step calls and synthesis, the supervisor's goals, sub-agents and synthesis,
GraphRAG's and DocRAG's concepts and answers; and the tools every case uses, as the
orchestrator's tool configuration."""

from __future__ import annotations

import json

from support_retrieval import doc_concepts, graph_concepts
from support_spec import KNOWLEDGE_QUERY, agent_steps, answer_text

PATTERN = {"react": "react", "plan": "plan-then-execute", "supervisor": "supervisor"}
FINAL_THOUGHT = "I have what I need to answer."
DESCRIPTIONS = {
    "web-search": "Search the web and return result snippets",
    "calculator": "Evaluate an arithmetic expression",
    "weather": "Current weather for a place",
    "unit-convert": "Convert a value between units",
    "wiki-lookup": "Read the summary of an encyclopedia article",
}


class Script:
    """The LLM replies and MCP replies of a run, in the order they are asked for. Durations
    and token counts are made from the texts and the reply's position, so the same spec gives
    the same numbers."""

    def __init__(self):
        self.llm = []
        self.mcp = {}

    def say(self, session, prompt, key, text=None, obj=None):
        body = text if obj is None else json.dumps(obj, ensure_ascii=False)
        n = len(self.llm)
        reply = {"session": session, "prompt": prompt, "key": key,
                 "ms": 300 + (7 * len(body) + 37 * n) % 1500,
                 "in_token": 180 + (13 * n) % 400 + len(key) // 3,
                 "out_token": max(4, len(body) // 4)}
        reply.update({"object": obj} if obj is not None else {"text": text})
        self.llm.append(reply)

    def tool(self, step):
        reply = {"ms": 200 + (11 * len(json.dumps(step["arguments"]))) % 1800,
                 "arguments": step["arguments"]}
        if step.get("error"):
            reply["error"] = step["error"]
        else:
            reply["text"] = step.get("observation", step.get("result", ""))
        self.mcp.setdefault(step["tool"], []).append(reply)

    def rag(self, session, question, concepts, prompt, answer):
        self.say(session, "extract-concepts", question, "\n".join(concepts))
        self.say(session, prompt, question, answer)

    def step_outcome(self, name, step):
        """What the tool of ``step`` answers: GraphRAG's two calls, or the MCP tool's reply."""
        if step["tool"] == KNOWLEDGE_QUERY:
            self.rag(f"{name}/{step['ref']}", step["arguments"]["question"],
                     graph_concepts(step["edges"]), "kg-synthesis",
                     step.get("sub_answer") or step.get("result"))
        else:
            self.tool(step)

    def react(self, name, question, steps, answer):
        for step in steps:
            thought = " ".join(step.get("thought", "").split()) or f"Use {step['tool']}."
            self.say(name, "agent-react", question,
                     f"Thought: {thought}\nAction: {step['tool']}\n"
                     f"Args: {json.dumps(step['arguments'], ensure_ascii=False)}")
            self.step_outcome(name, step)
        self.say(name, "agent-react", question, f"Thought: {FINAL_THOUGHT}\nFinal Answer: {answer}")

    def case(self, case):
        """Every reply ``case`` asks for."""
        name, question, mechanism = case["id"], case["question"], case["mechanism"]
        if mechanism in PATTERN:
            self.say(name, "task-type-classify", question, "general")
            self.say(name, "pattern-select", question, PATTERN[mechanism])
        if mechanism == "react":
            self.react(name, question, case["steps"], answer_text(case))
        elif mechanism == "plan":
            self.say(name, "plan-create", question, obj=[
                {"goal": p["goal"], "tool_hint": p["tool"], "depends_on": []} for p in case["plan"]])
            for p in case["plan"]:
                self.say(name, "plan-step-execute", p["goal"],
                         obj={"tool": p["tool"], "arguments": p["arguments"]})
                self.step_outcome(name, p)
            self.say(name, "plan-synthesise", question, answer_text(case))
        elif mechanism == "supervisor":
            self.say(name, "supervisor-decompose", question,
                     obj=[sub["goal"] for sub in case["subagents"]])
            for sub in case["subagents"]:
                self.react(f"{name}/{sub['ref']}", sub["goal"], sub["steps"], sub["answer"])
            self.say(name, "supervisor-synthesise", question, answer_text(case))
        elif mechanism == "graphrag":
            self.rag(name, question, graph_concepts(case["edges"]), "kg-synthesis",
                     answer_text(case))
        else:
            self.rag(name, question, doc_concepts(case["chunks"]), "document-prompt",
                     answer_text(case))


def tools(cases: list) -> dict:
    """The tool configuration entries (``scenarios.TOOLS``'s shape) of every tool the cases
    call: ``knowledge-query`` runs GraphRAG, any other is an MCP tool whose arguments are every
    argument name the cases give it, as strings."""
    names = {}
    for case in cases:
        for step in agent_steps(case):
            names.setdefault(step["tool"], {}).update(dict.fromkeys(step["arguments"]))
    out = {}
    for name in sorted(names):
        if name == KNOWLEDGE_QUERY:
            out[name] = {"type": "knowledge-query", "name": name,
                         "description": "Ask the knowledge graph (GraphRAG)", "collection": "default"}
        else:
            out[name] = {"type": "mcp-tool", "name": name, "mcp-tool": name,
                         "description": DESCRIPTIONS.get(name, f"The {name} tool"),
                         "arguments": [{"name": a, "type": "string", "description": a}
                                       for a in names[name]]}
    return out
