"""What a review in the app is about: a ``Target`` per thing a person can review on the session
page (the session, a step, a sentence of the answer, a GraphRAG edge, a DocRAG chunk), each
named by the trace's own IRI, as the issue's W3C Web Annotation model asks (``oa:hasTarget``).

A sentence is a span of the answer's text: its target is the answer's IRI with the sentence's
words (``quote``) and its offsets in the answer (``start``, ``end``, in code points), which the
store writes as an ``oa:SpecificResource`` with a TextQuoteSelector and a TextPositionSelector.
A span of a step's text (a thought, an observation, a tool's arguments, a result) is the
step's IRI (or that of the entity the text is of: an Analysis's Thought or Observation) with
the selected words and their offsets in that one text (the inspector's field,
named in the title). An edge is its EdgeSelection (the node of the trace that chose it), a chunk its ChunkSelection
when a reranker chose it, else the chunk's own IRI.
"""

from __future__ import annotations

from dataclasses import dataclass

from trace_explorer.analysis.evidence.evidence import ChunkEvidence, EdgeEvidence
from trace_explorer.model.session import Session

KINDS = ("session", "step", "sentence", "span", "edge", "chunk")


@dataclass(frozen=True)
class Target:
    """One reviewable thing: ``iri`` (``oa:hasSource`` for a span, else ``oa:hasTarget``),
    ``kind`` (one of ``KINDS``), ``title`` (how the page names it: trace text, untrusted),
    ``session`` (the IRI of the session it belongs to: the list's Review column counts it
    there), and for a span ``quote`` (its exact words), ``start`` and ``end`` (offsets in the
    source's text, in code points, end exclusive)."""

    iri: str
    kind: str
    title: str
    session: str
    quote: str | None = None
    start: int | None = None
    end: int | None = None

    @property
    def key(self) -> str:
        """A key for widgets and caches, the same for the same target."""
        return f"{self.kind}|{self.iri}|{self.start}|{self.end}"


def session_target(session: Session) -> Target:
    """The session itself (its root IRI)."""
    return Target(session.id, "session", f"Session: {session.question or session.id}", session.id)


def step_target(session: Session, step: str, label: str | None = None) -> Target:
    """Step ``step`` (an IRI) of ``session`` or of one of its sub-sessions, shown as ``label``."""
    return Target(step, "step", f"Step: {label or step}", session.id)


def span_target(session: Session, iri: str, label: str, field: str, quote: str, start: int, end: int) -> Target:
    """The words ``quote`` at ``start``..``end`` (code points, end exclusive) of the text
    ``field`` (the inspector's caption, e.g. "Thought") of ``iri`` (the step's, or the entity's
    holding that text: an Analysis's Thought or Observation) in ``session``, the step shown as
    ``label``. Raises ValueError when ``end - start`` is not the quote's length
    (the store's own rule, ``trace_explorer.reviews.review.Selector``)."""
    if not quote or not 0 <= start < end or end - start != len(quote):
        raise ValueError(f"the span {start}-{end} does not hold its {len(quote)} quoted characters")
    return Target(iri, "span", f"{field or 'Text'} of step {label}: “{quote}”", session.id,
                  quote=quote, start=start, end=end)


def sentence_target(session: Session, number: int, text: str, start: int, end: int) -> Target:
    """Sentence ``number`` (from 0) of ``session``'s answer: ``text`` at ``start``..``end`` of
    the answer's text. Raises ValueError when the session has no answer IRI to hang it on."""
    if not session.answer_id:
        raise ValueError(f"session {session.id} has no answer step")
    return Target(session.answer_id, "sentence", f"Sentence {number + 1} of the answer: {text}", session.id,
                  quote=text, start=start, end=end)


def edge_target(session: Session, number: int, edge: EdgeEvidence) -> Target:
    """Chosen edge ``number`` (from 1) of ``session``'s evidence: its EdgeSelection."""
    names = " → ".join(edge.names) if edge.names else (edge.raw or edge.selection)
    return Target(edge.selection, "edge", f"Edge {number}: {names}", session.id)


def chunk_target(session: Session, number: int, chunk: ChunkEvidence) -> Target:
    """Chosen chunk ``number`` (from 1) of ``session``'s evidence: its ChunkSelection, else the
    chunk's IRI."""
    return Target(chunk.selection or chunk.chunk, "chunk", f"Chunk {number}: {chunk.chunk}", session.id)
