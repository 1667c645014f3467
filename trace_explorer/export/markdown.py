"""A session as readable Markdown ("Copy as Markdown"), for pasting into a ticket or a chat.

Layout: the question as the title, a line of facts (type, pattern, time, status, IRI), the
answer, then every step in order: an Analysis with its thought, action, arguments (a JSON code
block), observation and tool error; other kinds with their own words (plan steps, goals,
findings, concepts, chosen edges...). An Observation already shown under its Analysis is not
repeated. Sub-sessions follow, each under its own heading, unless left out.

Trace text is untrusted (LLM and tool output) and must show literally wherever it is pasted:
``escape_markdown`` backslash-escapes every character CommonMark and GitHub give a meaning to
(emphasis, links and images, raw HTML, entities, code spans, tables, strikethrough) and the
characters that start a block at the beginning of a line (headings, quotes, lists, rules), so
``![x](http://evil/img)`` stays text and ``<script>`` is not HTML. Arguments go in a code fence
longer than any run of backticks inside them, so nothing in them can close it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..model.literals import format_time
from ..model.session import Session, Step
from ..model.summary import status
from ..model.totals import totals_lines
from ..reviews import Review
from ..views.step_labels import step_tag, tool_note
from ..analysis.support.support import AnswerSupport, session_support
from .quads import subjects_sessions
from .markdown_text import code_block, code_span, escape_markdown
from .reviews_section import reviews_markdown
from .support_section import support_markdown

_FIELDS = (
    ("pattern", "Pattern"), ("task_type", "Task type"), ("goals", "Goals"), ("goal", "Goal"),
    ("plan_steps", "Plan"), ("plan_step", "Plan step"), ("concepts", "Concepts"),
    ("edge_count", "Edges explored"), ("entities", "Seed entities"), ("chunk_count", "Chunks found"),
    ("chunks", "Chunks"), ("thought", "Thought"), ("action", "Action"), ("arguments", "Arguments"),
    ("observation", "Observation"), ("error", "Tool error"),
    ("parse_error", "The model's reply could not be parsed"), ("result", "Result"),
    ("finding", "Finding"), ("answer", "Answer"), ("text", "Text"),
    ("termination_reason", "Termination"), ("score", "Score"), ("reasoning", "Reasoning"),
)


def session_markdown(session: Session, sessions: Mapping[str, Session] | None = None, *,
                     include_children: bool = True, support: AnswerSupport | None = None,
                     reviews: Sequence[Review] = ()) -> str:
    """The session (and, unless ``include_children`` is False, its sub-sessions from
    ``sessions``: IRI -> Session) as Markdown text ending in a newline, with the answer's
    support after the answer (``support``: ``analysis.support.support.session_support``, worked
    out here from the session alone when not given) and the session's ``reviews`` (a "Reviews"
    section after the top session). Never raises on odd data."""
    sessions = sessions or {}
    out = [_session_block(session, level=1, sessions=sessions,
                          support=support if support is not None else session_support(session))]
    if reviews:
        out.append(reviews_markdown(reviews))
    if include_children:
        for child in subjects_sessions(session, sessions):
            out.append(_session_block(sessions[child], level=2, prefix="Sub-session: ", sessions=sessions))
    return "\n\n".join(out).rstrip() + "\n"


def _session_block(session: Session, level: int, prefix: str = "",
                   sessions: Mapping[str, Session] | None = None, support: AnswerSupport | None = None) -> str:
    hashes = "#" * level
    kind = session.mechanism + (f" ({session.pattern})" if session.pattern else "")
    facts = [f"**Type:** {escape_markdown(kind)}", f"**Started:** {escape_markdown(format_time(session.time) or 'unknown')}",
             f"**Status:** {status(session)}", f"**Steps:** {len(session.steps)}"]
    facts += [f"**{label}:** {escape_markdown(text)}" for label, text in totals_lines(session, sessions)]
    parts = [f"{hashes} {prefix}{escape_markdown(session.question or '(no question)')}",
             " · ".join(facts), f"**Session:** {code_span(session.id)}"]
    if session.parent:
        parts.append(f"**Derived from step:** {code_span(session.parent)}")
    if session.answer_id:
        answer = session.answer if session.answer is not None else None
        parts.append(f"{hashes}# Answer\n\n" + (escape_markdown(answer) if answer else f"_(text not loaded: {code_span(session.answer_id)})_"))
        if support is not None and (support.sentences or support.unchecked):
            parts.append(support_markdown(support, hashes + "#"))
    parts.append(f"{hashes}# Steps")
    shown_observations = {s.fields.get("observation_id") for s in session.steps if s.kind == "Analysis"
                          and ("observation" in s.fields or "error" in s.fields or "parse_error" in s.fields)}
    number = 0
    for step in session.steps:
        if step.kind == "Observation" and step.id in shown_observations:
            continue
        number += 1
        parts.append(_step_block(session, step, number, hashes + "##"))
    return "\n\n".join(parts)


def _step_block(session: Session, step: Step, number: int, hashes: str) -> str:
    tag = step_tag(step.id)
    title = step.kind + (f" {tag}" if tag else "")
    if step.kind == "Analysis" and step.fields.get("action"):
        title += f": {step.fields['action']}"
    elif tool_note(step):
        title += f": {tool_note(step)}"
    if step.fields.get("error") is not None or "parse_error" in step.fields:
        title += " ✗"
    lines = [f"{hashes} {number}. {escape_markdown(title)}"]
    for name, label in _FIELDS:
        value = step.fields.get(name)
        if value is None or value == [] or (value == "" and name not in ("error", "parse_error")):
            continue
        if name == "pattern" and step.kind != "PatternDecision":
            continue
        lines.append(_field(label, name, value))
    for edge in step.fields.get("edges", []):
        lines.append(_edge(edge))
    for child in session.children:
        if session.graph.has_edge(child, step.id):
            lines.append(f"**Sub-session:** {code_span(child)}")
    return "\n\n".join(lines)


def _field(label: str, name: str, value: Any) -> str:
    if name == "arguments":
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2)
        return f"**{label}:**\n\n" + code_block(text, "json" if not isinstance(value, str) else "")
    if name == "action":
        return f"**{label}:** {code_span(value)}"
    if name == "chunks":
        items = [c.get("chunk") or c.get("id") if isinstance(c, dict) else c for c in value]
        return f"**{label}:**\n\n" + "\n".join(f"- {code_span(i)}" for i in items)
    if name in ("error", "parse_error") and value == "":
        return f"**{label}:** _(no message)_"
    if isinstance(value, list):
        return f"**{label}:**\n\n" + "\n".join(f"- {escape_markdown(v)}" for v in value)
    text = escape_markdown(value)
    return f"**{label}:**\n\n{text}" if "\n" in text else f"**{label}:** {text}"


def _edge(edge: dict[str, Any]) -> str:
    if not edge.get("stored"):
        return f"- _edge not stored_{': ' + escape_markdown(edge['raw']) if edge.get('raw') else ''}"
    terms = []
    for key in ("s", "p", "o"):
        label, value = edge.get(key + "_label"), edge.get(key)
        if label or (key == "o" and edge.get("o_is_literal")):
            terms.append(escape_markdown(label or value or ""))
        else:  # an IRI: a code span, so no renderer turns it into a link
            terms.append(code_span(value or "?"))
    triple = " → ".join(terms)
    extra = []
    if edge.get("concept"):
        extra.append(f"concept {escape_markdown(edge['concept'])}")
    if edge.get("score") is not None:
        extra.append(f"score {edge['score']}")
    return f"- **Edge:** {triple}" + (f" ({', '.join(extra)})" if extra else "")
