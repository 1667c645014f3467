"""What the corpus's sessions ask and what the stand-ins answer: the tool configuration, the
router's task types and patterns, the LLM's replies, the MCP tools' replies and the graph
vector store's matches. Each session is one ``RUNS`` entry: its service, question and start.
"""

from __future__ import annotations

import json

from collection import E

MODEL = "claude-sonnet-4"

TOOLS = {
    "web-search": {"type": "mcp-tool", "name": "web-search", "mcp-tool": "web-search",
                   "description": "Search the web and return result snippets",
                   "arguments": [{"name": "query", "type": "string",
                                  "description": "What to search for"}]},
    "calculator": {"type": "mcp-tool", "name": "calculator", "mcp-tool": "calculator",
                   "description": "Evaluate an arithmetic expression",
                   "arguments": [{"name": "expression", "type": "string",
                                  "description": "The expression"}]},
    "knowledge-query": {"type": "knowledge-query", "name": "knowledge-query",
                        "description": "Ask the knowledge graph (GraphRAG)",
                        "collection": "default"},
}

TASK_TYPES = {
    "general": {"name": "general", "description": "Questions answered step by step",
                "valid_patterns": ["react", "plan-then-execute", "supervisor"]},
    "lookup": {"name": "lookup", "description": "Single fact look-ups",
               "valid_patterns": ["react"]},
}
PATTERNS = {
    "react": {"name": "react", "description": "Interleaved reasoning and action"},
    "plan-then-execute": {"name": "plan-then-execute", "description": "Plan, then run steps"},
    "supervisor": {"name": "supervisor", "description": "Split into parallel sub-agents"},
}


def tool_config(tools: dict = TOOLS) -> dict:
    """The orchestrator's configuration, as its config service pushes it, with ``tools`` (name
    -> tool entry; the corpus's own by default)."""
    return {
        "tool": {k: json.dumps(v, ensure_ascii=False) for k, v in tools.items()},
        "agent-task-type": {k: json.dumps(v) for k, v in TASK_TYPES.items()},
        "agent-pattern": {k: json.dumps(v) for k, v in PATTERNS.items()},
    }


def search_results(query: str, n: int) -> str:
    """A long web-search result page (``n`` snippets), for the observation of about 20 KB."""
    lines = [f"Results for: {query}"]
    for i in range(1, n + 1):
        lines.append(
            f"{i}. Lake Baikal survey report {i}: soundings along transect {i % 17} give "
            f"depths between {1400 + (i * 7) % 240} and 1642 metres; the deepest point, "
            f"1642 m, lies in the central basin (source: limnology archive, record {1000 + i})."
        )
    return "\n".join(lines)


LONG_SEARCH = search_results("Lake Baikal maximum depth", 103)

# Session names used below: the manifest keys its sessions by these until the services
# give them IRIs.
Q_TOOL_ERROR = "How deep is Lake Baikal, and what is a third of its depth?"
Q_PARSE_ERROR = "Что такое омуль и где он водится?"
Q_AGENT_GRAPHRAG = "What is the maximum depth of Lake Baikal and where is it?"
Q_KNOWLEDGE_DEPTH = "Lake Baikal maximum depth location"
Q_PLAN = "富士山の高さと最後の噴火はいつですか？"
Q_PLAN_GOALS = ["富士山の高さを調べる (Mount Fuji height)", "最後の噴火の年を調べる"]
Q_KNOWLEDGE_FUJI = "Mount Fuji height"
Q_SUPERVISOR = "Compare Lake Baikal and Mount Fuji: which is older, and how do people reach them?"
Q_SUB = ["How old is Lake Baikal?", "How old is Mount Fuji?",
         "How do travellers usually reach Lake Baikal and Mount Fuji?"]
Q_GRAPHRAG = "Which fish is endemic to Lake Baikal, and what is the age of the lake?"
Q_DOCRAG_RERANK = "How often should the solar panels be cleaned?"
Q_DOCRAG_PLAIN = "What does the inverter warranty cover?"

UNREADABLE = ("I think the answer involves a fish from Baikal but I am not sure which tool "
              "to use next, so here are my notes.")

FINAL_MULTILINE = (
    "Thought: I have the depth from the search; the calculator failed, so I divide by hand.\n"
    "Final Answer: Lake Baikal is 1642 metres deep at its deepest point.\n"
    "A third of that is about 547 metres.\n"
    "The calculator tool failed, so the division was done by hand."
)


def llm_script() -> list:
    """The LLM's replies in the order the sessions ask for them (see ``ScriptedLLM``)."""
    replies = []

    def say(session, prompt, key, ms, text=None, obj=None):
        body = text if obj is None else json.dumps(obj, ensure_ascii=False)
        reply = {"session": session, "prompt": prompt, "key": key, "ms": ms,
                 "in_token": 180 + 3 * len(key) + 11 * len(replies),
                 "out_token": max(4, len(body) // 4)}
        reply.update({"object": obj} if obj is not None else {"text": text})
        replies.append(reply)

    def rag(session, question, concepts, answer_prompt, answer, ms):
        """A RAG service's two calls: concept extraction, then the answer."""
        say(session, "extract-concepts", question, ms[0], "\n".join(concepts))
        say(session, answer_prompt, question, ms[1], answer)

    def route(session, question, task_type, pattern, ms=(310, 290)):
        say(session, "task-type-classify", question, ms[0], task_type)
        if TASK_TYPES[task_type]["valid_patterns"][1:]:
            say(session, "pattern-select", question, ms[1], pattern)

    # react: a tool that fails, a 20 KB observation, a multi-line final answer
    s = "react-tool-error"
    route(s, Q_TOOL_ERROR, "general", "react")
    say(s, "agent-react", Q_TOOL_ERROR, 1200,
        'Thought: I need the depth first, then divide it.\nAction: calculator\n'
        'Args: {"expression": "1642 / 3"}')
    say(s, "agent-react", Q_TOOL_ERROR, 950,
        'Thought: The calculator failed. I will search for the depth instead.\n'
        'Action: web-search\nArgs: {"query": "Lake Baikal maximum depth"}')
    say(s, "agent-react", Q_TOOL_ERROR, 1430, FINAL_MULTILINE)

    # react: an unreadable reply, then a tool, then an answer (Russian)
    s = "react-parse-error"
    route(s, Q_PARSE_ERROR, "lookup", "react", ms=(280, 0))
    say(s, "agent-react", Q_PARSE_ERROR, 870, UNREADABLE)
    say(s, "agent-react", Q_PARSE_ERROR, 1010,
        'Thought: Попробую поискать в интернете.\nAction: web-search\n'
        'Args: {"query": "омуль Байкал"}')
    say(s, "agent-react", Q_PARSE_ERROR, 760,
        "Thought: Теперь ответ ясен.\nFinal Answer: Омуль — эндемичная рыба озера Байкал "
        "(Coregonus migratorius); водится только в Байкале и впадающих в него реках.")

    # react whose tool runs GraphRAG
    s = "react-graphrag"
    route(s, Q_AGENT_GRAPHRAG, "general", "react")
    say(s, "agent-react", Q_AGENT_GRAPHRAG, 1120,
        'Thought: The knowledge graph should hold this.\nAction: knowledge-query\n'
        f'Args: {{"question": "{Q_KNOWLEDGE_DEPTH}"}}')
    rag("react-graphrag/knowledge-query", Q_KNOWLEDGE_DEPTH,
        ["Lake Baikal", "maximum depth", "location"], "kg-synthesis",
        "Lake Baikal, located in Siberia, has a maximum depth of 1642 metres.", (400, 1650))
    say(s, "agent-react", Q_AGENT_GRAPHRAG, 680,
        "Thought: The graph answered both parts.\nFinal Answer: Lake Baikal reaches 1642 "
        "metres at its deepest point; it lies in Siberia, Russia.")

    # plan-then-execute (Japanese); its first step's tool runs GraphRAG
    s = "plan"
    route(s, Q_PLAN, "general", "plan-then-execute")
    say(s, "plan-create", Q_PLAN, 1540, obj=[
        {"goal": Q_PLAN_GOALS[0], "tool_hint": "knowledge-query", "depends_on": []},
        {"goal": Q_PLAN_GOALS[1], "tool_hint": "web-search", "depends_on": []},
    ])
    say(s, "plan-step-execute", Q_PLAN_GOALS[0], 520,
        obj={"tool": "knowledge-query", "arguments": {"question": Q_KNOWLEDGE_FUJI}})
    rag("plan/knowledge-query", Q_KNOWLEDGE_FUJI, ["Mount Fuji", "height"], "kg-synthesis",
        "Mount Fuji (富士山) has a height of 3776 metres.", (380, 1210))
    say(s, "plan-step-execute", Q_PLAN_GOALS[1], 470,
        obj={"tool": "web-search", "arguments": {"query": "富士山 最後の噴火"}})
    say(s, "plan-synthesise", Q_PLAN, 1380,
        "富士山の標高は3776メートルです。\n最後の噴火は1707年の宝永噴火です。")

    # supervisor with three sub-agents; the second answers at once (no Analysis)
    s = "supervisor"
    route(s, Q_SUPERVISOR, "general", "supervisor")
    say(s, "supervisor-decompose", Q_SUPERVISOR, 1720, obj=Q_SUB)
    say("supervisor/sub-0", "agent-react", Q_SUB[0], 990,
        'Thought: Search for the age of the lake.\nAction: web-search\n'
        'Args: {"query": "age of Lake Baikal"}')
    say("supervisor/sub-1", "agent-react", Q_SUB[1], 840,
        "Thought: I know this.\nFinal Answer: The present cone of Mount Fuji is about "
        "10,000 years old; older volcanoes lie beneath it.")
    say("supervisor/sub-2", "agent-react", Q_SUB[2], 1060,
        'Thought: Look up the usual routes.\nAction: web-search\n'
        'Args: {"query": "how to reach Lake Baikal and Mount Fuji"}')
    say("supervisor/sub-0", "agent-react", Q_SUB[0], 720,
        "Thought: The search answers it.\nFinal Answer: Lake Baikal is about 25 million "
        "years old, the oldest lake on Earth.")
    say("supervisor/sub-2", "agent-react", Q_SUB[2], 910,
        "Thought: Both routes are clear.\nFinal Answer: Lake Baikal is reached by the "
        "Trans-Siberian Railway to Irkutsk; Mount Fuji by bus from Tokyo to the Fifth "
        "Station.")
    say(s, "supervisor-synthesise", Q_SUPERVISOR, 2040,
        "Lake Baikal (about 25 million years) is far older than Mount Fuji's present cone "
        "(about 10,000 years).\nTravellers reach Baikal by the Trans-Siberian Railway to "
        "Irkutsk, and Fuji by bus from Tokyo.")

    # GraphRAG on its own
    rag("graphrag", Q_GRAPHRAG, ["fish", "endemic", "Lake Baikal", "age"], "kg-synthesis",
        "The omul, a whitefish, is endemic to Lake Baikal, which is about 25 million years old.",
        (350, 1480))

    # DocumentRAG with and without the reranker
    rag("docrag-rerank", Q_DOCRAG_RERANK, ["solar panels", "cleaning schedule"],
        "document-prompt", "Clean the panels every six months, or monthly in dusty regions, "
        "with soft brushes and deionised water.", (330, 1290))
    rag("docrag-plain", Q_DOCRAG_PLAIN, ["inverter warranty", "coverage"], "document-prompt",
        "The inverter warranty covers parts and labour for ten years from installation, but "
        "not lightning or flood damage.", (300, 1170))
    return replies


MCP_SCRIPT = {
    "calculator": [{"ms": 2000, "error": "calculator backend timed out after 2000 ms"}],
    "web-search": [
        {"ms": 1830, "text": LONG_SEARCH},
        {"ms": 1240, "text": "Омуль (Coregonus migratorius) — эндемик Байкала; нерестится "
                             "в реках Селенга и Баргузин."},
        {"ms": 1100, "text": "宝永噴火（1707年）が富士山の最後の噴火です。The Hoei eruption of "
                             "1707 was Mount Fuji's last."},
        {"ms": 1320, "text": "Lake Baikal formed about 25 million years ago in a rift "
                             "valley; it is the world's oldest lake."},
        {"ms": 1510, "text": "Baikal: Trans-Siberian Railway to Irkutsk, then 70 km by road. "
                             "Fuji: highway bus from Shinjuku to the Fifth Station."},
    ],
}

# The graph vector store: concept -> [(entity IRI, score)].
ENTITY_MATCHES = {
    "Lake Baikal": [(E + "baikal", 0.94)],
    "maximum depth": [(E + "baikal", 0.62)],
    "location": [(E + "siberia", 0.41)],
    "Mount Fuji": [(E + "fuji", 0.95)],
    "height": [(E + "fuji", 0.58)],
    "fish": [(E + "omul", 0.66)],
    "endemic": [(E + "omul", 0.52)],
    "age": [(E + "baikal", 0.47), (E + "fuji", 0.44)],
}

# One entry a session, in the order they run: name, service, question, start time.
RUNS = [
    ("react-tool-error", "agent", Q_TOOL_ERROR, "2026-11-30T09:00:00Z"),
    ("react-parse-error", "agent", Q_PARSE_ERROR, "2026-11-30T09:10:00Z"),
    ("react-graphrag", "agent", Q_AGENT_GRAPHRAG, "2026-11-30T09:20:00Z"),
    ("plan", "agent", Q_PLAN, "2026-11-30T09:30:00Z"),
    ("supervisor", "agent", Q_SUPERVISOR, "2026-11-30T09:40:00Z"),
    ("graphrag", "graph-rag", Q_GRAPHRAG, "2026-11-30T09:50:00Z"),
    ("docrag-rerank", "document-rag", Q_DOCRAG_RERANK, "2026-11-30T10:00:00Z"),
    ("docrag-plain", "document-rag-plain", Q_DOCRAG_PLAIN, "2026-11-30T10:10:00Z"),
]
