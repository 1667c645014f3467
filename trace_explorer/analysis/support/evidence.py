"""The texts of a session that can back its answer (TRACE-MODEL.md): an agent's Observations
(the Analysis's inline ``tg:observation`` in the seed shape), the DocRAG chunks a session selected
(a reranker Focus's chunk selections, else the Exploration's ``tg:selectedChunk``), the edges a
GraphRAG Focus selected (read as "subject predicate object" by their labels), a supervisor's
Findings and a plan's StepResults. Thoughts, plans and the answer itself back nothing."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from ...model.session import Session, Step


@dataclass(frozen=True)
class Source:
    """One text that may back the answer: ``step`` the IRI of the session's step that holds it
    (the Focus for a chunk or an edge), ``kind`` "Observation", "Chunk", "Edge", "Finding" or
    "StepResult", ``text`` its words (for an edge, its labels joined by spaces), ``chunk`` the
    chunk's IRI, ``edge`` the selected edge as ``(s, p, o)``."""

    step: str
    kind: str
    text: str
    chunk: str | None = None
    edge: tuple[str, str, str] | None = None


def session_sources(session: Session, chunk_texts: Mapping[str, str] | None = None) -> list[Source]:
    """The texts of ``session`` that may back its answer, in the session's step order.

    ``chunk_texts``: chunk IRI -> text, for an Exploration's chunks (their texts live in the
    source, not in the session); a chunk without text is left out."""
    chunk_texts = chunk_texts or {}
    out: list[Source] = []
    observed = {s.id for s in session.steps if s.kind == "Observation"}
    for step in session.steps:
        out.extend(_step_sources(step, observed, chunk_texts))
    return out


def _step_sources(step: Step, observed: set[str], chunk_texts: Mapping[str, str]) -> list[Source]:
    fields = step.fields
    if step.kind == "Observation" and _text(fields.get("observation")):
        return [Source(step.id, "Observation", fields["observation"])]
    if step.kind == "Analysis" and fields.get("observation_id") not in observed and _text(fields.get("observation")):
        return [Source(step.id, "Observation", fields["observation"])]  # the seed shape: inline
    if step.kind == "Finding" and _text(fields.get("finding")):
        return [Source(step.id, "Finding", fields["finding"])]
    if step.kind == "StepResult" and _text(fields.get("result")):
        return [Source(step.id, "StepResult", fields["result"])]
    out = []
    if step.kind in ("Focus", "Exploration"):
        for chunk in fields.get("chunks") or []:
            if isinstance(chunk, dict):
                text, iri = chunk.get("text"), chunk.get("chunk")
            else:
                iri = chunk if isinstance(chunk, str) else None
                text = chunk_texts.get(iri) if iri else None
            if _text(text):
                out.append(Source(step.id, "Chunk", text, chunk=iri))
        for edge in fields.get("edges") or []:
            if isinstance(edge, dict) and edge.get("s") and edge.get("p") and edge.get("o") is not None:
                out.append(Source(step.id, "Edge", edge_text(edge), edge=(edge["s"], edge["p"], str(edge["o"]))))
    return out


def unread_chunks(session: Session) -> list[str]:
    """The IRIs of the chunks ``session``'s steps chose without carrying their text (a DocRAG
    Exploration's ``tg:selectedChunk``): the texts ``session_sources`` wants in ``chunk_texts``."""
    out = []
    for step in session.steps:
        for chunk in step.fields.get("chunks") or []:
            if isinstance(chunk, str):
                out.append(chunk)
            elif isinstance(chunk, dict) and chunk.get("chunk") and not _text(chunk.get("text")):
                out.append(chunk["chunk"])
    return list(dict.fromkeys(out))


def edge_text(edge: Mapping) -> str:
    """A selected edge's words: its subject's, predicate's and object's labels (``s_label``...),
    or the last part of an IRI without one ("maximumDepth" -> "maximum depth"), or the object
    literal as written."""
    parts = []
    for part in ("s", "p", "o"):
        label = edge.get(f"{part}_label")
        if label:
            parts.append(str(label))
        elif part == "o" and edge.get("o_is_literal"):
            parts.append(str(edge["o"]))
        else:
            parts.append(_local_name(str(edge[part])))
    return " ".join(parts)


@lru_cache(maxsize=10_000)  # the same predicates and entities recur across edges and sessions
def _local_name(iri: str) -> str:
    name = re.split(r"[/#:]", iri.rstrip("/#"))[-1]
    name = re.sub(r"(?<=[a-z])([A-Z])", lambda m: " " + m.group(1).lower(), name)
    return re.sub(r"[-_]+", " ", name).strip() or iri


def _text(value) -> bool:
    return isinstance(value, str) and bool(value.strip())
