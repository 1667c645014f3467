"""Sessions as plain data (the CLI's JSON contract) and as readable text.

``model.summary.session_summary`` gives the keys of ``trace-explorer list --format json``;
``session_detail`` adds ``answer``, ``steps``, ``edges`` and ``children`` for ``show --format
json``; ``session_text`` is what ``show`` prints: every step in order with all its fields.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..model.literals import format_time
from ..model.session import TEXT_FIELDS, Session, Step
from ..model.summary import session_summary, status
from ..model.totals import totals_lines

from .step_labels import tool_note

# Field order when a step is printed or listed; fields not named here follow in name order.
FIELD_ORDER = (
    "query", "pattern", "task_type", "goals", "goal", "plan_steps", "plan_step", "concepts",
    "edge_count", "entities", "chunk_count", "chunks", "thought", "action", "arguments",
    "tool_candidates", "observation", "error", "parse_error", "edges", "result", "finding", "answer", "text",
    "termination_reason", "step_number", "llm_duration_ms", "tool_duration_ms", "in_tokens",
    "out_tokens", "model", "score", "reasoning", "started", "document",
)
_HIDDEN = {"thought_id", "observation_id"}


def step_record(step: Step) -> dict[str, Any]:
    """A step as JSON-ready data: id, kind, label, then its fields (times as ISO-8601 strings)."""
    record: dict[str, Any] = {"id": step.id, "kind": step.kind, "label": step.label}
    for name in _ordered_fields(step.fields, hide=False):
        record[name] = _plain(step.fields[name])
    if step.warnings:
        record["warnings"] = list(step.warnings)
    return record


def session_detail(session: Session, sessions: Mapping[str, Session] | None = None) -> dict[str, Any]:
    """Everything ``show --format json`` prints: the summary keys (the totals with the
    sub-sessions found in ``sessions``, IRI -> Session) plus answer, answer_id, shape,
    parent_session, steps (ordered records), edges (GraphRAG Focus selections:
    s, p, o, concept, score, reasoning and labels), chunks (DocRAG selections) and warnings."""
    detail = session_summary(session, sessions)
    detail.update({
        "answer": session.answer,
        "answer_id": session.answer_id,
        "shape": session.shape,
        "parent_session": session.parent_session,
        "steps": [step_record(s) for s in session.steps],
        "edges": [dict(e) for s in session.steps_of("Focus") for e in s.fields.get("edges", [])],
        "chunks": [dict(c) for s in session.steps_of("Focus") for c in s.fields.get("chunks", [])],
        "warnings": list(session.warnings),
    })
    return detail


def session_text(session: Session, width: int = 100, sessions: Mapping[str, Session] | None = None) -> str:
    """The whole session as readable text: a header (with what it spent, own and with the
    sub-sessions found in ``sessions``: docs/reading-traces.md, "Totals"; the session's own warnings: a cycle, a
    root without types, a step two sessions claim), then every step in order with its fields
    and warnings."""
    lines = [
        f"Session:  {session.id}",
        f"Type:     {session.mechanism}" + (f" ({session.pattern})" if session.pattern else ""),
        f"Question: {session.question or '(none)'}",
        f"Time:     {format_time(session.time) or '(unknown)'}",
        f"Status:   {status(session)}",
    ]
    lines += [f"{label + ':':<9} {text}" for label, text in totals_lines(session, sessions)]
    if session.parent:
        lines.append(f"Parent:   {session.parent}" + (f" (session {session.parent_session})" if session.parent_session else ""))
    if session.answer_id:
        lines.append(f"Answer:   {session.answer if session.answer is not None else '(text not loaded: ' + session.answer_id + ')'}")
    step_warnings = {f"{step.id}: {w}" for step in session.nodes.values() for w in step.warnings}
    session_warnings = [w for w in session.warnings if w not in step_warnings]  # a step's are with it
    if session_warnings:
        lines.append("Warnings:")
        lines.extend(f"    {w}" for w in session_warnings)
    lines.append("")
    for number, step in enumerate(session.steps, 1):
        title = f"[{number}] {step.kind}"
        if step.label and step.label != step.kind and "parse_error" not in step.fields:
            title += f" - {step.label}"  # an unreadable reply's label names a tool that never ran
        lines.append(title)
        lines.append(f"    id: {step.id}")
        if tool_note(step):
            lines.append(f"    tool: {tool_note(step)}")
        for name in _ordered_fields(step.fields):
            if step.fields[name] is not None:  # a value that did not parse: its warning says so
                lines.extend(_field_lines(name, step.fields[name], width))
        for missing in _unloaded_text(step):
            lines.append(f"    {missing}: (text not loaded; add the collection's .documents.json)")
        for warning in step.warnings:
            lines.append(f"    warning: {warning}")
        children = [c for c in session.children if session.graph.has_edge(c, step.id)]
        for child in children:
            lines.append(f"    sub-session: {child}")
        lines.append("")
    if session.children:
        lines.append("Sub-sessions:")
        lines.extend(f"    {c}" for c in session.children)
    return "\n".join(lines).rstrip() + "\n"


def _ordered_fields(fields: dict[str, Any], hide: bool = True) -> list[str]:
    names = [n for n in FIELD_ORDER if n in fields]
    names += sorted(n for n in fields if n not in FIELD_ORDER and not (hide and n in _HIDDEN))
    return names


def _unloaded_text(step: Step) -> list[str]:
    """Names of the texts a step points at in the document store that were not loaded."""
    missing = []
    if step.fields.get("thought_id") and "thought" not in step.fields:
        missing.append("thought")
    if step.fields.get("observation_id") and "observation" not in step.fields:
        missing.append("observation")
    text_field = TEXT_FIELDS.get(step.kind, "text")
    if "document" in step.fields and text_field not in step.fields and step.kind != "ChunkSelection":
        missing.append(text_field)
    return missing


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return format_time(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _shown(value: Any) -> Any:
    """A value as the text report shows it: ``not loaded`` for a missing one (None), as the
    app's tables say, never Python's ``None``."""
    return "not loaded" if value is None else value


def _field_lines(name: str, value: Any, width: int) -> list[str]:
    label = name.replace("_", " ")
    if name == "edges":
        out = [f"    {label}:"]
        for e in value:
            triple = f"{e['s_label'] or e['s']} -- {e['p_label'] or e['p']} --> {e['o_label'] or e['o']}" if e["stored"] else f"(edge not stored{': ' + e['raw'] if e['raw'] else ''})"
            out.append(f"      - {triple}")
            out.append(f"        concept: {_shown(e['concept'])}  score: {_shown(e['score'])}  "
                       f"reasoning: {_shown(e['reasoning'])}")
            for chain in e.get("sources", []):
                out.append("        from: " + " < ".join(f"{link['kind']} {link['label'] or link['id']}" for link in reversed(chain)))
        return out
    if name == "chunks" and value and isinstance(value[0], dict):
        return [f"    {label}:"] + [f"      - {c['chunk']}  score: {_shown(c['score'])}" + (f"\n        {c['text']}" if c.get("text") else "") for c in value]
    if name == "arguments" and not isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False, indent=2)
        return [f"    {label}:"] + ["      " + line for line in text.splitlines()]
    if isinstance(value, (list, tuple)):
        return [f"    {label}: " + ", ".join(str(_plain(v)) for v in value)]
    if isinstance(value, dict):
        return [f"    {label}:"] + [f"      {k}: {v}" for k, v in value.items()]
    text = str(_shown(_plain(value)))
    if "\n" in text or len(text) > width:
        wrapped = [w for para in text.splitlines() for w in (textwrap.wrap(para, width - 6) or [""])]
        return [f"    {label}:"] + ["      " + w for w in wrapped]
    return [f"    {label}: {text}"]
