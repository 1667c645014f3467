"""The trace model: sessions and their steps, as read from a collection (TRACE-MODEL.md).

A Session is one question TrustGraph answered: its root (the ``tg:Question``), its ordered steps
and a networkx DiGraph of every entity in it. Field names follow TrustGraph's terms.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import networkx as nx

from .problems import Problem

AGENT = "Agent"
GRAPHRAG = "GraphRAG"
DOCRAG = "DocRAG"
UNKNOWN = "Unknown"
MECHANISMS = (AGENT, GRAPHRAG, DOCRAG)

REACT = "react"
PLAN_THEN_EXECUTE = "plan-then-execute"
SUPERVISOR = "supervisor"
PATTERNS = (REACT, PLAN_THEN_EXECUTE, SUPERVISOR)

# Entities folded into the step that points at them: a Thought into its Analysis, an
# EdgeSelection / ChunkSelection into its Focus. They stay nodes of the session graph.
SUB_ENTITY_KINDS = frozenset({"Thought", "EdgeSelection", "ChunkSelection"})
# Entities of the extraction provenance (TRACE-MODEL.md, "Extraction provenance"): a step may
# point at one (a DocRAG Exploration's tg:selectedChunk names the chunk itself), as evidence it
# used; they are never steps of a session.
EVIDENCE_KINDS = frozenset({"Document", "Page", "Section", "Image", "Chunk", "Subgraph"})
# The tg:action TrustGraph's ReAct agent writes when it could not parse the model's reply
# (trustgraph-flow 2.11.1, agent/react/agent_manager.py): a failed LLM call, not a tool.
PARSE_ERROR_ACTION = "__parse_error__"
# A node of a session graph that stands for a whole other session (a sub-trace).
SESSION_NODE = "Session"
ANSWER_KINDS = ("Conclusion", "Synthesis")
# The field that holds a kind's words, inline (seed shape) or from the document store
# (``tg:document``); any other kind's document text goes to "text".
TEXT_FIELDS = {"Thought": "thought", "Observation": "observation", "Conclusion": "answer",
               "Synthesis": "answer", "StepResult": "result", "Finding": "finding"}


@dataclass
class Step:
    """One entity (or activity) of a session.

    ``kind``: the TrustGraph class name ("Analysis", "Observation", "StepResult", ...);
    ``types``: every rdf:type IRI; ``prov_class``: "Entity", "Activity" or "Agent";
    ``fields``: the kind's parsed fields (numbers as int/float, times as datetime, ``arguments``
    as a JSON value when valid); ``parents``: IRIs it derives from; ``problems``: what the reader
    found wrong in it (values that did not parse), ``warnings`` the same in words.
    """

    id: str
    kind: str
    types: tuple[str, ...] = ()
    prov_class: str = "Entity"
    label: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)
    parents: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        """The messages of the step's ``problems``."""
        return [p.message for p in self.problems]


@dataclass
class Session:
    """One question and everything recorded about answering it.

    ``mechanism``: AGENT, GRAPHRAG, DOCRAG (or UNKNOWN); ``pattern``: for agents REACT,
    PLAN_THEN_EXECUTE or SUPERVISOR, else None; ``time``: prov:startedAtTime (aware datetime) or
    None; ``parent``: the IRI of the step this session derives from (a sub-trace) or None;
    ``parent_session``: the session owning that step; ``children``: sub-session IRIs;
    ``steps``: ordered steps without the root and sub-entities; ``nodes``: every Step by IRI
    (root and sub-entities included); ``graph``: networkx DiGraph whose edge u -> v means
    "u <relation> v" in PROV's direction (``relation`` attribute, e.g. "wasDerivedFrom");
    ``order``: every graph node in reading order; ``shape``: "seed" or "current";
    ``problems``: what the reader found wrong (every step's, then the session's own: a root
    without types, a shared step, a cycle), ``warnings`` the same as lines of text.
    """

    id: str
    mechanism: str
    question: str | None
    root: Step
    pattern: str | None = None
    time: datetime | None = None
    parent: str | None = None
    parent_session: str | None = None
    children: list[str] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    nodes: dict[str, Step] = field(default_factory=dict)
    graph: nx.DiGraph = field(default_factory=nx.DiGraph)
    order: list[str] = field(default_factory=list)
    answer: str | None = None
    answer_id: str | None = None
    shape: str = "current"
    problems: list[Problem] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        """The session's ``problems`` as lines (``"{step}: {message}"``)."""
        return [p.text for p in self.problems]

    @property
    def has_answer(self) -> bool:
        """True when the session reached a Conclusion or a final Synthesis."""
        return self.answer_id is not None

    @property
    def actions(self) -> list[str]:
        """Tool names of the Analysis steps, in order ([] when there are none). A reply of the
        model that could not be parsed is no tool call: see ``parse_errors``."""
        return [s.fields["action"] for s in self.steps if s.kind == "Analysis" and s.fields.get("action")]

    @property
    def tool_errors(self) -> int:
        """How many steps record a failed tool call (``tg:toolError`` or type ``tg:Error``); an
        unreadable reply of the model is not one (``parse_errors``)."""
        return sum(
            1 for s in self.steps
            if s.fields.get("error") is not None
            # an Analysis repeats its Observation's error; count the Observation once
            and not (s.kind == "Analysis" and s.fields.get("observation_id"))
        )

    @property
    def parse_errors(self) -> int:
        """How many replies of the model the agent could not parse (an Analysis whose
        ``tg:action`` is ``PARSE_ERROR_ACTION``, read into its ``parse_error`` field)."""
        return sum(1 for s in self.steps if s.kind == "Analysis" and "parse_error" in s.fields)

    def steps_of(self, kind: str) -> list[Step]:
        """The steps of one kind, in order."""
        return [s for s in self.steps if s.kind == kind]
