"""A session in one row: what the session list shows of it, and the keys of
``trace-explorer list --format json`` (the CLI's JSON contract)."""

from __future__ import annotations

from typing import Any

from .literals import format_time
from .session import Session


def status(session: Session) -> str:
    """"answered" when the session reached its answer, else "unfinished"."""
    return "answered" if session.has_answer else "unfinished"


def session_summary(session: Session) -> dict[str, Any]:
    """One row of the session list: id, type, pattern, question, time (ISO-8601 or None), parent,
    has_answer, actions, tool_errors, plus steps (count), status and children (IRIs)."""
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
        "step_count": len(session.steps),
        "status": status(session),
        "children": list(session.children),
    }
