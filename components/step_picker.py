"""Which step is selected on the session page, kept in one place.

The selection is the value of the step selectbox (``STEP_KEY`` in ``st.session_state``). A pick
on the timeline sets it in a callback (before the script reruns), so the selectbox, the DAG and
the inspector all follow. It is mirrored in the URL as ``?step=<IRI>`` so a link opens the same
step; a new session starts on the step named in the URL, else on its first step.

A session of more than ``PICKER_ALL_ABOVE`` steps would send every label to the browser on every
run (100,000 of them for the longest): its selectbox lists only the ``WINDOW_ROWS`` steps of the
timeline window holding the selected step, and a "Step number" box beside it reaches any step.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from trace_explorer.model.session import Session
from trace_explorer.views.step_labels import timeline_label
from trace_explorer.views.timeline import window_bounds, window_of

STEP_KEY = "te_step"
NUMBER_KEY = "te_step_number"
_OWNER_KEY = "te_step_session"
_URL_KEY = "te_step_in_url"  # the step this page last wrote into the URL
PICKER_ALL_ABOVE = 500  # a longer session's selectbox lists one window of steps


def selected_step(session: Session) -> str | None:
    """The IRI of the selected step of ``session`` (None when it has no steps)."""
    if not session.steps:
        return None
    ids = _positions(session)
    wanted = st.query_params.get("step")
    if st.session_state.get(_OWNER_KEY) != session.id or st.session_state.get(STEP_KEY) not in ids:
        st.session_state[STEP_KEY] = wanted if wanted in ids else session.steps[0].id
        st.session_state[_OWNER_KEY] = session.id
    elif wanted in ids and wanted != st.session_state.get(_URL_KEY):  # a link to another step of this session
        st.session_state[STEP_KEY] = wanted
    chosen = st.session_state[STEP_KEY]
    if st.query_params.get("step") != chosen or st.session_state.get(_URL_KEY) != chosen:
        st.query_params["step"] = chosen  # (again after a link: the browser may still show the last one)
    st.session_state[_URL_KEY] = chosen
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
    """The selectbox of the session's steps in reading order (in a long session: the window of
    ``WINDOW_ROWS`` steps holding the selected one, plus a "Step number" box for any step);
    returns the selected IRI."""
    if not session.steps:
        return None
    steps = session.steps
    count = len(steps)
    first = 0
    if count > PICKER_ALL_ABOVE:
        index = _positions(session).get(st.session_state.get(STEP_KEY), 0)
        first, last = window_bounds(count, window_of(index))
        steps = steps[first:last]
        number, choose = st.columns([1, 3], vertical_alignment="bottom")
        st.session_state[NUMBER_KEY] = index + 1
        with number:
            st.number_input("Step number", min_value=1, max_value=count, step=1, key=NUMBER_KEY,
                            on_change=_go_to_number, args=(session,),
                            help=f"Any of the {count:,} steps, by its place in reading order.")
        host = choose
    else:
        host = st.container()
    labels = {s.id: f"{n}. {timeline_label(s, width=60)}" for n, s in enumerate(steps, first + 1)}
    help_text = (f"Steps in reading order (here {first + 1:,}–{first + len(steps):,} of {count:,}; "
                 "the step number reaches the others). " if count > PICKER_ALL_ABOVE else "Steps in reading order. ")
    with host:
        return st.selectbox("Step", list(labels), key=STEP_KEY, format_func=labels.__getitem__,
                            help=help_text + "Picking a bar on the timeline selects it too.")


def _go_to_number(session: Session) -> None:
    """Callback of the "Step number" box: select that step."""
    number = st.session_state.get(NUMBER_KEY)
    if isinstance(number, int) and 1 <= number <= len(session.steps):
        st.session_state[STEP_KEY] = session.steps[number - 1].id


def _positions(session: Session) -> dict[str, int]:
    """Step IRI -> 0-based place in reading order (about 15 ms for 100,000 steps)."""
    return {s.id: i for i, s in enumerate(session.steps)}
