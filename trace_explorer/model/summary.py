"""A session in one row: what the session list shows of it, and the keys of
``trace-explorer list --format json`` (the CLI's JSON contract).

A row is a plain dict so that it travels as JSON (the session index stores it) and grows by keys:
whoever adds a column adds a key here (and, to sort or filter on it, a column of the session
index), never a new shape.
"""

from __future__ import annotations

from typing import Any

from .literals import format_time
from .roots import step_owner
from .session import Session

ANSWER_PREVIEW = 300  # characters of the answer a row carries


def status(session: Session) -> str:
    """"answered" when the session reached its answer, else "unfinished"."""
    return "answered" if session.has_answer else "unfinished"


def session_totals(session: Session) -> dict[str, int | None]:
    """What a session spent, summed over its steps (TRACE-MODEL.md, "Common step metadata"):
    ``llm_ms`` (``tg:llmDurationMs``), ``tool_ms`` (``tg:toolDurationMs``, an Analysis not
    counted again: it repeats its Observation's), ``tokens_in`` and ``tokens_out``
    (``tg:inToken``, ``tg:outToken``); each None when no step records it."""
    def total(name: str, skip: str | None = None) -> int | None:
        values = [s.fields[name] for s in session.steps
                  if isinstance(s.fields.get(name), (int, float)) and s.kind != skip]
        return int(sum(values)) if values else None
    return {"llm_ms": total("llm_duration_ms"), "tool_ms": total("tool_duration_ms", skip="Analysis"),
            "tokens_in": total("in_tokens"), "tokens_out": total("out_tokens")}


def answer_preview(text: str | None) -> str | None:
    """The first ``ANSWER_PREVIEW`` characters of an answer on one line (an ellipsis when cut)."""
    if text is None:
        return None
    flat = " ".join(text.split())
    return flat if len(flat) <= ANSWER_PREVIEW else flat[: ANSWER_PREVIEW - 1] + "…"


def _plus(a: int | None, b: int | None) -> int | None:
    return None if a is None and b is None else (a or 0) + (b or 0)


def session_summary(session: Session) -> dict[str, Any]:
    """One row of the session list: id, type, pattern, question, time (ISO-8601 or None), parent
    (the step it derives from), has_answer, actions (tool names), tool_errors, parse_errors
    (replies of the model that could not be parsed: no tool call), plus step_count, status,
    children (IRIs), parent_session (the session owning ``parent``), answer_id, answer_preview
    (None when the answer's text is not at hand: the list fills it from the source's texts),
    the ``session_totals``, duration_ms (LLM + tool) and tokens (in + out)."""
    totals = session_totals(session)
    parent_session = session.parent_session or (step_owner(session.parent) if session.parent else None)
    return {
        "id": session.id,
        "type": session.mechanism,
        "pattern": session.pattern,
        "question": session.question,
        "time": format_time(session.time),
        "parent": session.parent,
        "has_answer": session.has_answer,
        "actions": session.actions,
        "tool_errors": session.tool_errors,
        "parse_errors": session.parse_errors,
        "step_count": len(session.steps),
        "status": status(session),
        "children": list(session.children),
        "parent_session": parent_session,
        "answer_id": session.answer_id,
        "answer_preview": answer_preview(session.answer),
        **totals,
        "duration_ms": _plus(totals["llm_ms"], totals["tool_ms"]),
        "tokens": _plus(totals["tokens_in"], totals["tokens_out"]),
    }
