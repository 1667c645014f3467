"""The review affordances of the session page, each beside what it reviews: the header's Review
button (the session), a chosen answer sentence's, each evidence edge's and chunk's, and the
inspector's (a step: the workspace's ``review`` trigger). Each opens the review dialog
(``dialog``); the page's Reviews panel (``panel``) lists them all.

The session's reviews are read once per page run (``session_reviews``) and shared by the
buttons' counts, the panel and the inspector."""

from __future__ import annotations

from typing import Any

import streamlit as st

from trace_explorer.model.session import Session
from trace_explorer.reviews import Review, ReviewStoreBusy
from trace_explorer.views.step_labels import timeline_label

from ..collection import Collection
from ..text import md_escape
from .access import reviews_of_sessions
from .dialog import open_review, review_button
from .panel import target_key
from .shown import review_brief
from .targets import Target, span_target, step_target

_RUN_KEY = "te_reviews_of_run"  # (session IRIs, the reviews) read in this page run
STEP_WANTED_KEY = "te_review_step"  # a step IRI whose Review button the inspector clicked, or a span of its text


def forget_reviews() -> None:
    """Read the reviews again at their next use (called at the top of each page run)."""
    st.session_state.pop(_RUN_KEY, None)


def session_reviews(session: Session, children: tuple[str, ...] = ()) -> list[Review]:
    """The reviews of ``session`` and of its sub-sessions ``children`` (IRIs), read once per
    page run; [] (and a caption saying why) when the store is busy or cannot be read."""
    ids = (session.id, *children)
    kept = st.session_state.get(_RUN_KEY)
    if kept is not None and kept[0] == ids:
        return kept[1]
    try:
        found = reviews_of_sessions(ids)
    except (ReviewStoreBusy, OSError) as error:
        st.caption(md_escape(f"The reviews could not be read: {error}"))
        found = []
    st.session_state[_RUN_KEY] = (ids, found)
    return found


def page_reviews(session: Session, collection: Collection) -> list[Review]:
    """``session_reviews`` of ``session`` with its sub-sessions that ``collection`` holds."""
    return session_reviews(session, tuple(c for c in session.children if c in collection.by_id))


def count_of(target: Target, reviews: list[Review]) -> int:
    """How many of ``reviews`` are about ``target`` (its span, for a sentence)."""
    key = (target.iri, target.start, target.end)
    return sum(1 for r in reviews if target_key(r) == key)


def review_here(target: Target, reviews: list[Review], key: str, label: str = "Review") -> None:
    """A Review button for ``target`` counting its reviews among ``reviews``."""
    review_button(target, key=f"te_review_{key}", label=label, count=count_of(target, reviews), kind="tertiary")


def step_reviews(reviews: list[Review], shown_on: dict[str, str] | None = None) -> dict[str, list[dict[str, Any]]]:
    """The reviews by step IRI, as the workspace's inspector shows them: a span's with its
    ``quote`` (``review_brief``); ``shown_on``: entity IRI -> the step whose inspector shows its
    text (``thoughts_shown_on``), for reviews of words of that text."""
    out: dict[str, list[dict[str, Any]]] = {}
    for review in reviews:
        out.setdefault((shown_on or {}).get(review.target, review.target), []).append(review_brief(review))
    return out


def thoughts_shown_on(session: Session, collection: Collection) -> dict[str, str]:
    """Thought IRI -> its Analysis's, for ``session`` and its sub-sessions in ``collection``: a
    Thought is no step of its own, its Analysis's inspector shows its words."""
    sessions = [session, *(collection.by_id[c] for c in session.children if c in collection.by_id)]
    return {s.fields["thought_id"]: s.id for one in sessions for s in one.steps if s.fields.get("thought_id")}


def wanted_span(value: object) -> dict[str, Any] | None:
    """The inspector's "Review selection" trigger ``value`` checked: ``{"step": IRI, "field":
    caption, "quote": words, "start", "end": code points in the field's whole text, "iri": the
    entity the text is of when not the step itself (an Analysis's Thought), else None}``, or
    None when it is not one (the browser's value is not trusted)."""
    if not isinstance(value, dict):
        return None
    step, field, quote = value.get("step"), value.get("field"), value.get("quote")
    start, end = value.get("start"), value.get("end")
    if not (isinstance(step, str) and isinstance(quote, str) and isinstance(field, str)
            and type(start) is int and type(end) is int and 0 <= start < end and end - start == len(quote)):
        return None
    iri = value.get("iri")
    return {"step": step, "field": field[:200], "quote": quote, "start": start, "end": end,
            "iri": iri if isinstance(iri, str) and iri else None}


def step_wanted(value: object) -> None:
    """The inspector's Review button was clicked on step ``value`` (an IRI), or its "Review
    selection" on a span of one of the step's texts (``wanted_span``)."""
    if isinstance(value, str):
        st.session_state[STEP_WANTED_KEY] = value
    elif (span := wanted_span(value)) is not None:
        st.session_state[STEP_WANTED_KEY] = span


def open_step_review(session: Session, sessions: dict[str, Session]) -> None:
    """Open the review dialog of the step, or of the span of its text, the inspector asked for,
    if any (once)."""
    wanted = st.session_state.pop(STEP_WANTED_KEY, None)
    step = wanted.get("step") if isinstance(wanted, dict) else wanted
    if not isinstance(step, str):
        return
    owner = next((s for s in [session, *(sessions.get(c) for c in session.children)] if s and step in s.nodes), None)
    if owner is None:
        return
    label = timeline_label(owner.nodes[step], 80)
    if isinstance(wanted, dict):
        of = wanted["iri"] if wanted["iri"] in owner.nodes else step  # the Thought's own IRI, else the step's
        open_review(span_target(owner, of, label, wanted["field"], wanted["quote"], wanted["start"], wanted["end"]))
    else:
        open_review(step_target(owner, step, label))
