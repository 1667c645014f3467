"""Which step is selected on the session page, kept in one place.

The selection is the value of the step selectbox (``STEP_KEY`` in ``st.session_state``). A pick
on the timeline sets it in a callback (before the script reruns), so the selectbox, the DAG and
the inspector all follow. It is mirrored in the URL as ``?step=<IRI>`` so a link opens the same
step; a new session starts on the step named in the URL, else on its first step.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from trace_explorer.model import Session
from trace_explorer.step_labels import timeline_label

STEP_KEY = "te_step"
_OWNER_KEY = "te_step_session"


def selected_step(session: Session) -> str | None:
    """The IRI of the selected step of ``session`` (None when it has no steps)."""
    ids = [s.id for s in session.steps]
    if not ids:
        return None
    if st.session_state.get(_OWNER_KEY) != session.id or st.session_state.get(STEP_KEY) not in ids:
        wanted = st.query_params.get("step")
        st.session_state[STEP_KEY] = wanted if wanted in ids else ids[0]
        st.session_state[_OWNER_KEY] = session.id
    chosen = st.session_state[STEP_KEY]
    if st.query_params.get("step") != chosen:
        st.query_params["step"] = chosen
    return chosen


def pick_from_chart(chart_key: str, selection: str) -> None:
    """Callback of the timeline: make the step picked on the chart the selected step."""
    event: Any = st.session_state.get(chart_key)
    if not event:
        return
    chosen = (event.get("selection") or {}).get(selection) if isinstance(event, dict) else None
    if chosen is None:
        chosen = getattr(getattr(event, "selection", None), selection, None)
    if isinstance(chosen, list) and chosen and isinstance(chosen[0], dict) and chosen[0].get("step"):
        st.session_state[STEP_KEY] = chosen[0]["step"]


def step_picker(session: Session) -> str | None:
    """The selectbox of the session's steps in reading order; returns the selected IRI."""
    if not session.steps:
        return None
    labels = {s.id: f"{n}. {timeline_label(s, width=60)}" for n, s in enumerate(session.steps, 1)}
    return st.selectbox("Step", list(labels), key=STEP_KEY, format_func=labels.__getitem__,
                        help="Steps in reading order. Picking a bar on the timeline selects it too.")
