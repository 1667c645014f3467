"""The session list (as filtered by the caller) as CSV and JSON, one row per session.

Rows are ``model.summary.session_summary``: id, type, pattern, question, time, parent,
has_answer, actions, tool_errors, parse_errors, step_count, status, children, then what the session spent
(docs/reading-traces.md, "Totals"): its own tokens in, out and in all, LLM ms, tool ms and duration ms, the same
with its sub-sessions (``total_...``) and how many sub-sessions were counted. In CSV, lists are joined with
"; " and a text cell that a spreadsheet would run as a formula (it starts with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return: trace text is untrusted) gets a leading ``'``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from typing import Any

from ..model.session import Session
from ..model.summary import session_summary
from ..model.totals import FIGURES, TOTAL_PREFIX

COLUMNS = ("id", "type", "pattern", "question", "time", "parent", "has_answer", "actions",
           "tool_errors", "parse_errors", "step_count", "status", "children") + FIGURES \
    + tuple(TOTAL_PREFIX + name for name in FIGURES) + ("sub_sessions",)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def session_rows(sessions: Iterable[Session | dict[str, Any]]) -> list[dict[str, Any]]:
    """One ``session_summary`` dict per session (a Session, or its summary as the session list
    gives it), keys in ``COLUMNS`` order, in the given order."""
    return [{key: row[key] for key in COLUMNS}
            for row in (s if isinstance(s, dict) else session_summary(s) for s in sessions)]


def sessions_csv(sessions: Iterable[Session | dict[str, Any]]) -> str:
    """The rows as CSV text (header first, ``\\r\\n`` line ends as RFC 4180 says; booleans as
    "true"/"false", missing values empty)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(COLUMNS)
    for row in session_rows(sessions):
        writer.writerow([_cell(row[key]) for key in COLUMNS])
    return buffer.getvalue()


def sessions_json(sessions: Iterable[Session | dict[str, Any]]) -> str:
    """The rows as a JSON array of objects (UTF-8 text, indented, ending in a newline)."""
    return json.dumps(session_rows(sessions), ensure_ascii=False, indent=2) + "\n"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    text = "; ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text
