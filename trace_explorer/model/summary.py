"""A session in one row: what the session list shows of it, and the keys of
``trace-explorer list --format json`` (the CLI's JSON contract).

A row is a plain dict so that it travels as JSON (the session index stores it) and grows by keys:
whoever adds a column adds a key here (and, to sort or filter on it, a column of the session
index), never a new shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .literals import format_time
from .roots import step_owner
from .session import Session
from .totals import FIGURES, TOTAL_PREFIX, session_totals

ANSWER_PREVIEW = 300  # characters of the answer a row carries


def status(session: Session) -> str:
    """"answered" when the session reached its answer, else "unfinished"."""
    return "answered" if session.has_answer else "unfinished"


def answer_preview(text: str | None) -> str | None:
    """The first ``ANSWER_PREVIEW`` characters of an answer on one line (an ellipsis when cut)."""
    if text is None:
        return None
    flat = " ".join(text.split())
    return flat if len(flat) <= ANSWER_PREVIEW else flat[: ANSWER_PREVIEW - 1] + "…"


def session_summary(session: Session, sessions: Mapping[str, Session] | None = None) -> dict[str, Any]:
    """One row of the session list: id, type, pattern, question, time (ISO-8601 or None), parent
    (the step it derives from), has_answer, actions (tool names), tool_errors, parse_errors
    (replies of the model that could not be parsed: no tool call), plus step_count, status,
    children (IRIs), parent_session (the session owning ``parent``), answer_id, answer_preview
    (None when the answer's text is not at hand: the list fills it from the source's texts),
    the session's own figures (``model.totals.FIGURES``: tokens_in, tokens_out, tokens,
    llm_ms, tool_ms, duration_ms) and the same with its sub-sessions found in ``sessions``
    (IRI -> Session), recursively: ``total_tokens``, ``total_duration_ms``... and
    ``sub_sessions`` (how many were counted). The session index sets the totals again from its
    rows, so that a sub-session read later still counts (``index.session_index``)."""
    figures = session_totals(session, sessions)
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
        **figures["own"],
        **{TOTAL_PREFIX + name: figures["total"][name] for name in FIGURES},
        "sub_sessions": figures["sub_sessions"],
    }
