"""What a question's run sends back, as the explorer reads it: one ``AskEvent`` per step written
(an ``explain`` message), per piece of streamed text (a thought, an observation, the answer), and
one for the run's end (done, failed or cancelled)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import pyoxigraph as ox

STEP = "step"          # an explain message: the entity ``step`` was written, its quads with it
THOUGHT = "thought"    # streamed words of the agent's reasoning
OBSERVATION = "observation"  # streamed words of a tool's result
ANSWER = "answer"      # streamed words of the answer
DONE = "done"          # the run ended with its answer
FAILED = "failed"      # the run ended with an error (``text`` says which)
CANCELLED = "cancelled"  # the person stopped it
ENDINGS = (DONE, FAILED, CANCELLED)

AGENT = "agent"
GRAPH_RAG = "graph-rag"
DOCUMENT_RAG = "document-rag"
MECHANISMS = (AGENT, GRAPH_RAG, DOCUMENT_RAG)


@dataclass(frozen=True)
class AskEvent:
    """One thing a run sent. ``kind``: one of the names above; ``step``: the IRI an explain
    message names (``explain_id``) for STEP, the message's id for streamed text (TrustGraph's
    ``message_id``: the Thought's, Observation's or Conclusion's IRI; None from RAG services);
    ``quads``: the triples written (STEP only), in the graph the message names; ``text``: the
    words (streamed text, or an ending's reason); ``at``: ``time.monotonic()`` when it arrived."""

    kind: str
    step: str | None = None
    quads: tuple[ox.Quad, ...] = ()
    text: str | None = None
    at: float = field(default_factory=time.monotonic)
