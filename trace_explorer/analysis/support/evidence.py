"""The texts of a session that can back its answer (TRACE-MODEL.md): an agent's Observations
(the Analysis's inline ``tg:observation`` in the seed shape; a failed call's error; a one-word or
bare-number result counts as much as a page), the arguments a tool was called with when they
hold a number (a calculator's expression: "4808 - 3974" backs "4808 minus 3974"; arguments with
no number repeat the question, and count as context, not evidence), the DocRAG chunks a session
selected (a reranker Focus's chunk selections, else the Exploration's ``tg:selectedChunk``), the
edges a GraphRAG Focus selected (read as "subject predicate object" by their labels), a
supervisor's Findings and a plan's StepResults, and of every sub-session (a tool that ran
GraphRAG, a supervisor's sub-agents, a plan step's sub-trace) the same texts and its answer.
Thoughts, plans, the question and the answer itself back nothing.

``session_texts`` is wider: every text any step of the session (or of a sub-session) holds,
thoughts and questions included. A term of the answer that none of those hold is "not found";
a term only a thought holds is found, though it backs nothing."""

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


def session_sources(session: Session, chunk_texts: Mapping[str, str] | None = None,
                    family: Mapping[str, Session] | None = None) -> list[Source]:
    """The texts of ``session`` that may back its answer, in the session's step order, then
    those of its sub-sessions (each after its own answer) in the order of ``session.children``.

    ``chunk_texts``: chunk IRI -> text, for an Exploration's chunks (their texts live in the
    source, not in the session); a chunk without text is left out. ``family``: the session and
    its sub-sessions by IRI (``index.family.fetch_family``); a sub-session not in it is left
    out. Each sub-session is read once, however it is reached."""
    chunk_texts = chunk_texts or {}
    out: list[Source] = []
    for member in members(session, family):
        observed = {s.id for s in member.steps if s.kind == "Observation"}
        reranked = any(s.kind == "Focus" and s.fields.get("chunks") for s in member.steps)
        if member is not session and _text(member.answer) and member.answer_id \
                and member.answer not in {s.text for s in out}:  # a Finding or an Observation repeats it
            kind = member.nodes[member.answer_id].kind if member.answer_id in member.nodes else "Conclusion"
            out.append(Source(member.answer_id, kind, member.answer))
        for step in member.steps:
            if reranked and step.kind == "Exploration":
                continue  # the reranker's Focus holds the chunks the answer was given
            out.extend(_step_sources(step, observed, chunk_texts))
    return out


def session_texts(session: Session, chunk_texts: Mapping[str, str] | None = None,
                  family: Mapping[str, Session] | None = None) -> list[str]:
    """Every text a step of ``session`` or of its sub-sessions holds: the question, each
    step's thought, action, arguments, observation, error, answer, finding, result, label and
    other text fields (not IRIs, numbers or times), nested ones too (an edge's labels and the
    document it was extracted from), and chunk texts (``session_sources`` and more), but not
    ``session``'s own answer: where a term that is "not found" must be absent."""
    out = [s.text for s in session_sources(session, chunk_texts, family)]
    for member in members(session, family):
        out.append(member.question or "")
        for step in member.nodes.values():
            if member is session and step.id == session.answer_id:
                continue  # the answer itself holds every term of the answer
            out.extend(_strings(list(step.fields.values())))
            if step.label:
                out.append(step.label)
    return [t for t in out if t.strip()]


def _strings(values: list) -> list[str]:
    """Every string in ``values`` and in the lists and mappings they hold (an edge's labels, the
    title of the document it was extracted from), IRIs left out."""
    out = []
    while values:
        value = values.pop()
        if isinstance(value, Mapping):
            values.extend(value.values())
        elif isinstance(value, (list, tuple)):
            values.extend(value)
        elif isinstance(value, str) and value.strip() and not _iri_like(value):
            out.append(value)
    return out


def session_context(session: Session, family: Mapping[str, Session] | None = None) -> list[str]:
    """What the answer was asked to talk about: the questions of ``session`` and of its
    sub-sessions, a plan's steps, a supervisor's goals and the arguments of each tool call. A
    name or a number the answer takes from them is not made up, though it is no evidence either
    (it backs no claim alone)."""
    out = []
    for member in members(session, family):
        out.append(member.question or "")
        for step in member.steps:
            for name in ("plan_steps", "goals"):
                out.extend(str(v) for v in step.fields.get(name) or [] if isinstance(v, str))
            if step.kind == "Analysis" and step.fields.get("arguments") not in (None, "", {}, []):
                out.append(_arguments_text(step.fields["arguments"]))
    return [t for t in out if t.strip()]


def members(session: Session, family: Mapping[str, Session] | None = None) -> list[Session]:
    """``session`` and every sub-session of it found in ``family`` (by IRI), each once, parents
    first: the sessions whose texts may back ``session``'s answer."""
    out, seen, queue = [], set(), [session]
    while queue:
        member = queue.pop(0)
        if member.id in seen:
            continue
        seen.add(member.id)
        out.append(member)
        queue.extend(family[c] for c in member.children if family and c in family)
    return out


def _step_sources(step: Step, observed: set[str], chunk_texts: Mapping[str, str]) -> list[Source]:
    fields = step.fields
    if step.kind == "Observation":
        text = "\n".join(t for t in (fields.get("observation"), fields.get("error")) if _text(t))
        return [Source(step.id, "Observation", text)] if text else []
    if step.kind == "Analysis":
        out = []
        arguments = fields.get("arguments")
        if arguments not in (None, "", {}, []) and fields.get("action") and "parse_error" not in fields \
                and any(c.isdigit() for c in _arguments_text(arguments)):
            out.append(Source(step.id, "Analysis", f"{fields['action']}\n{_arguments_text(arguments)}"))
        if fields.get("observation_id") not in observed and _text(fields.get("observation")):
            out.append(Source(step.id, "Observation", fields["observation"]))  # the seed shape: inline
        return out
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


def unread_chunks(session: Session, family: Mapping[str, Session] | None = None) -> list[str]:
    """The IRIs of the chunks ``session``'s steps (and its sub-sessions', from ``family``) chose
    without carrying their text (a DocRAG Exploration's ``tg:selectedChunk``): the texts
    ``session_sources`` wants in ``chunk_texts``."""
    out = []
    for step in (s for member in members(session, family) for s in member.steps):
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


def _iri_like(value: str) -> bool:
    return " " not in value and value.startswith(("urn:", "http://", "https://"))


def _arguments_text(arguments) -> str:
    """A tool call's arguments as words: a JSON object's values one a line ("expression: 4808 -
    3974"), anything else as written."""
    if isinstance(arguments, dict):
        return "\n".join(f"{k}: {_arguments_text(v) if isinstance(v, (dict, list)) else v}"
                         for k, v in arguments.items())
    if isinstance(arguments, list):
        return "\n".join(_arguments_text(v) if isinstance(v, (dict, list)) else str(v) for v in arguments)
    return str(arguments)


def _text(value) -> bool:
    return isinstance(value, str) and bool(value.strip())
