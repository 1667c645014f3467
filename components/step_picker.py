"""Which step is selected on the session page, kept in one place.

The selection is the value of the step selectbox (``STEP_KEY`` in ``st.session_state``); it is
one stop of the session's step walk (``views.step_walk``: the session's steps, each sub-session's
Question and steps right after the step it derives from). A click on the timeline or the DAG,
or the keys j / k, set it in a callback (``select_step``, before the script reruns), so the
selectbox, the timeline, the DAG and the inspector all follow. It is mirrored in the URL as
``&step=<IRI>`` so a link opens the same step (the first stop as no ``step`` at all); a new
session starts on the step named in the URL, else on its first step.

A session of more than ``PICKER_ALL_ABOVE`` stops would send every label to the browser on every
run (100,000 of them for the longest): its selectbox lists only the ``WINDOW_ROWS`` stops around
the selected one, and a "Step no." box beside it reaches any stop.
"""

from __future__ import annotations

import streamlit as st

from trace_explorer.model.session import Session
from trace_explorer.views.step_labels import timeline_label
from trace_explorer.views.step_walk import WalkEntry, walk_positions
from trace_explorer.views.timeline import window_bounds, window_of

from .text import clip

STEP_KEY = "te_step"
NUMBER_KEY = "te_step_number"
_OWNER_KEY = "te_step_session"
_URL_KEY = "te_step_in_url"  # the step this page last wrote into the URL
PICKER_ALL_ABOVE = 500  # a longer walk's selectbox lists one window of stops


def selected_step(session: Session, walk: list[WalkEntry]) -> str | None:
    """The IRI of the selected stop of ``walk`` (the walk of ``session``; None when it is
    empty), mirrored in the URL's ``step``."""
    if not walk:
        return None
    positions = walk_positions(walk)
    wanted = st.query_params.get("step")
    if st.session_state.get(_OWNER_KEY) != session.id or st.session_state.get(STEP_KEY) not in positions:
        st.session_state[STEP_KEY] = wanted if wanted in positions else walk[0].id
        st.session_state[_OWNER_KEY] = session.id
    elif wanted in positions and wanted != st.session_state.get(_URL_KEY):  # a link to another step of this session
        st.session_state[STEP_KEY] = wanted
    chosen = st.session_state[STEP_KEY]
    # the first stop is the URL without ``step``: opening a session is then one entry of the
    # browser's history, and Back from it goes back to the list (a step written on opening
    # would be a second entry, which Back would only write again)
    shown = None if chosen == walk[0].id else chosen
    if st.query_params.get("step") != shown or st.session_state.get(_URL_KEY) != chosen:
        if shown is None:
            st.query_params.pop("step", None)
        else:
            st.query_params["step"] = chosen  # (again after a link: the browser may still show the last one)
    st.session_state[_URL_KEY] = chosen
    return chosen


def select_step(walk: list[WalkEntry], iri: object) -> bool:
    """Make ``iri`` the selected step when it is a stop of ``walk`` (for callbacks: the script
    that follows draws it everywhere); True when it was."""
    if isinstance(iri, str) and any(entry.id == iri for entry in walk):
        st.session_state[STEP_KEY] = iri
        return True
    return False


def entry_label(number: int, entry: WalkEntry, width: int = 60) -> str:
    """"4. i2 Analysis: calculator"; a sub-session's stops are marked "↳" once per level."""
    text = (f"Sub-session · {entry.session.mechanism}: {clip(entry.session.question or entry.id, width)}"
            if entry.header else timeline_label(entry.step, width=width))
    return f"{number}. " + "↳ " * entry.depth + text


def step_picker(walk: list[WalkEntry]) -> str | None:
    """The selectbox of the walk's stops in order (a long walk: the window of ``WINDOW_ROWS``
    stops holding the selected one, plus a "Step no." box for any stop); returns the
    selected IRI."""
    if not walk:
        return None
    count = len(walk)
    first = 0
    shown = walk
    if count > PICKER_ALL_ABOVE:
        index = walk_positions(walk).get(st.session_state.get(STEP_KEY), 0)
        first, last = window_bounds(count, window_of(index))
        shown = walk[first:last]
        number, choose = st.columns([2, 3], vertical_alignment="bottom")
        st.session_state[NUMBER_KEY] = index + 1
        with number:
            st.number_input("Step no.", min_value=1, max_value=count, step=1, key=NUMBER_KEY,
                            on_change=_go_to_number, args=(walk,),
                            help=f"Any of the {count:,} steps, by its place in the walk.")
        host = choose
    else:
        host = st.container()
    labels = {entry.id: entry_label(n, entry) for n, entry in enumerate(shown, first + 1)}
    help_text = (f"Steps in order (here {first + 1:,}–{first + len(shown):,} of {count:,}; the step no. "
                 "reaches the others). " if count > PICKER_ALL_ABOVE else "Steps in order. ")
    with host:
        return st.selectbox("Step", list(labels), key=STEP_KEY, format_func=labels.__getitem__,
                            help=help_text + "A click on the timeline or the graph selects a step too; "
                                             "j / k move to the next / previous one.")


def _go_to_number(walk: list[WalkEntry]) -> None:
    """Callback of the "Step no." box: select that stop."""
    number = st.session_state.get(NUMBER_KEY)
    if isinstance(number, int) and 1 <= number <= len(walk):
        st.session_state[STEP_KEY] = walk[number - 1].id
