"""The interactive timeline: an Altair bar per step; clicking a bar selects that step."""

from __future__ import annotations

import streamlit as st

from trace_explorer.model import Session
from trace_explorer.timeline import SELECTION, timeline_chart, timeline_rows

from .step_picker import pick_from_chart

CHART_KEY = "te_timeline"


def timeline(session: Session, selected: str | None) -> None:
    """Draw the timeline of ``session`` with ``selected`` outlined."""
    rows = timeline_rows(session)
    if rows.empty:
        st.caption("This session has no steps to draw.")
        return
    if rows["axis"].iloc[0] == "order":
        st.caption("No durations recorded in this trace: steps are drawn in reading order.")
    st.altair_chart(timeline_chart(rows, selected), key=CHART_KEY, on_select=_on_pick,
                    selection_mode=SELECTION, width="stretch")


def _on_pick() -> None:
    pick_from_chart(CHART_KEY, SELECTION)
