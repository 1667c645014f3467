"""The interactive timeline: an Altair bar per step; clicking a bar selects that step.

A session of more than ``WINDOW_ROWS`` steps is drawn a window at a time: Previous / Next and a
slider move the window, a caption says which steps it shows ("steps 1,201–1,400 of 4,002"),
and the window jumps to the selected step whenever the selection changes (a pick in the step
picker, a link with ``?step=``). Clicking a bar selects that step as in a short session.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from trace_explorer.model.session import Session
from trace_explorer.views.timeline import (SELECTION, WINDOW_ROWS, timeline_chart, timeline_rows, window_bounds,
                                           window_caption, window_count, window_of)

from .step_picker import pick_from_chart

CHART_KEY = "te_timeline"
WINDOW_KEY = "te_timeline_window"  # the 1-based window on show (the slider's value)
FOLLOW_KEY = "te_timeline_follows"  # (session IRI, selected step) the window was last moved to


@st.cache_resource(show_spinner=False, max_entries=4)
def _rows(collection_key: tuple, session_id: str, _session: Session) -> tuple[pd.DataFrame, dict[str, int]]:
    """The session's timeline rows and each step's row index, once per session (a
    100,000-step session takes about a second). Shared: callers must not change them."""
    rows = timeline_rows(_session)
    return rows, {step: index for index, step in enumerate(rows["step"])}


def timeline(session: Session, selected: str | None, collection_key: tuple | None = None) -> None:
    """Draw the timeline of ``session`` with ``selected`` outlined; a long session a window
    at a time (module docstring). ``collection_key`` names the collection for the row cache
    (without it the rows are made on every run)."""
    if collection_key is None:
        rows = timeline_rows(session)
        index = {step: i for i, step in enumerate(rows["step"])} if len(rows) > WINDOW_ROWS else {}
    else:
        rows, index = _rows(collection_key, session.id, session)
    if rows.empty:
        st.caption("This session has no steps to draw.")
        return
    if rows["axis"].iloc[0] == "order":
        st.caption("No durations recorded in this trace: steps are drawn in reading order.")
    if len(rows) > WINDOW_ROWS:
        start, end = _window_controls(session, len(rows), index.get(selected or ""))
        rows = rows.iloc[start:end]
    st.altair_chart(timeline_chart(rows, selected), key=CHART_KEY, on_select=_on_pick,
                    selection_mode=SELECTION, width="stretch")


def _window_controls(session: Session, count: int, selected_index: int | None) -> tuple[int, int]:
    """Previous / slider / Next and the caption; returns the rows ``[start, end)`` to draw."""
    state = st.session_state
    windows = window_count(count)
    follow = (session.id, selected_index)
    if state.get(FOLLOW_KEY) != follow or not isinstance(state.get(WINDOW_KEY), int) \
            or not 1 <= state[WINDOW_KEY] <= windows:
        state[WINDOW_KEY] = window_of(selected_index) + 1  # the selection moved: show it
        state[FOLLOW_KEY] = follow
    back, slider, forward = st.columns([1.5, 3, 1.2], vertical_alignment="center")
    with back:
        st.button("Previous", key="te_timeline_previous", icon=":material/chevron_left:", width="stretch",
                  on_click=_move, args=(-1, windows), disabled=state[WINDOW_KEY] <= 1,
                  help=f"The {WINDOW_ROWS} steps before these")
    with slider:
        st.slider("Timeline window", 1, windows, key=WINDOW_KEY, label_visibility="collapsed",
                  help=f"Window of {WINDOW_ROWS} steps; it follows the selected step.")
    with forward:
        st.button("Next", key="te_timeline_next", icon=":material/chevron_right:", icon_position="right",
                  width="stretch", on_click=_move, args=(1, windows), disabled=state[WINDOW_KEY] >= windows,
                  help=f"The {WINDOW_ROWS} steps after these")
    start, end = window_bounds(count, state[WINDOW_KEY] - 1)
    where = "" if selected_index is None or start <= selected_index < end else \
        f" The selected step ({selected_index + 1:,}) is in window {window_of(selected_index) + 1:,}."
    st.caption(f"Long session: showing {window_caption(start, end, count)} "
               f"(window {state[WINDOW_KEY]:,} of {windows:,}).{where}")
    return start, end


def _move(by: int, windows: int) -> None:
    """Callback of Previous / Next: move the window by ``by``, within 1..``windows``."""
    current = st.session_state.get(WINDOW_KEY, 1)
    st.session_state[WINDOW_KEY] = min(max(int(current) + by, 1), windows)


def _on_pick() -> None:
    pick_from_chart(CHART_KEY, SELECTION)
