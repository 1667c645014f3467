"""The session list as a table: rows and the sortable, selectable ``st.dataframe``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from trace_explorer.views.visible_text import visible_controls

COLUMNS = ["Session ID", "Type", "Pattern", "Question", "Time", "Steps", "Status", "Health"]
ROW_PX = 33
QUESTION_LIMIT = 500  # characters of a question in the table (the search sees all of it)


def _clip(text: str) -> str:
    return text if len(text) <= QUESTION_LIMIT else text[: QUESTION_LIMIT - 1] + "…"


def session_rows(summaries: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """One row per session summary (``model.summary.session_summary`` dicts, as the session
    list gives them), in the given order, with ``COLUMNS``; Time is a UTC timestamp."""
    rows = []
    for summary in summaries:
        rows.append({
            "Session ID": summary["id"],
            "Type": summary["type"],
            "Pattern": summary["pattern"] or "",
            "Question": _clip(visible_controls(summary["question"] or "")),
            "Time": pd.Timestamp(summary["time"]) if summary["time"] else pd.NaT,
            "Steps": summary["step_count"],
            "Status": summary["status"],
            "Health": summary.get("health", ""),  # components/health.py
        })
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["Time"] = pd.to_datetime(frame["Time"], utc=True)
    return frame


def session_table(summaries: Sequence[dict[str, Any]], key: str) -> str | None:
    """Draw the session summaries as a sortable table with single-row selection; return the IRI
    of the row the user picked in this run, or None."""
    frame = session_rows(summaries)
    event = st.dataframe(
        frame,
        key=key,
        on_select="rerun",
        selection_mode="single-row",
        hide_index=True,
        width="stretch",
        row_height=ROW_PX,
        height=min(ROW_PX * (len(frame) + 1) + 3, 760),
        column_order=COLUMNS,
        column_config={
            "Session ID": st.column_config.TextColumn("Session ID", width=220,
                                                      help="The session's root IRI"),
            "Type": st.column_config.TextColumn("Type", width=80),
            "Pattern": st.column_config.TextColumn("Pattern", width=112),
            "Question": st.column_config.TextColumn("Question", width=300),
            "Time": st.column_config.DatetimeColumn("Time (UTC)", format="YYYY-MM-DD HH:mm:ss",
                                                    timezone="UTC", width=138),
            "Steps": st.column_config.NumberColumn("Steps", width=55, format="%d"),
            "Status": st.column_config.TextColumn("Status", width=88),
            "Health": st.column_config.TextColumn("Health", width=90,
                                                  help="Problems found in the trace (⛔ errors, ⚠️ warnings, ℹ️ infos)"),
        },
    )
    rows = event.selection.rows if event is not None else []
    if rows:
        row = rows[0]
        if 0 <= row < len(frame):
            return str(frame.iloc[row]["Session ID"])
    return None
