"""The session page's Reviews panel: every review of the session and of its steps, answer
sentences, edges and chunks, grouped by what it reviews; where reviewers gave one target
different labels, the group says they disagree and shows each review (as Langfuse's and
Phoenix's annotation lists keep one row per annotator, never a merged verdict). A person's own
reviews carry Edit and Delete.

Every text of a review and of the trace is untrusted: shown through ``md_escape``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from trace_explorer.model.session import Session
from trace_explorer.reviews import NoSuchReview, NotYourReview
from trace_explorer.views.step_labels import timeline_label

from ..text import counted, md_escape
from .access import delete_review, reviewer
from .dialog import EDITING_KEY, open_review
from .shown import review_line
from .targets import Target

_EDIT_KEY = "te_review_panel_edit"  # the review whose Edit was clicked in the panel


def target_of(review: Any, session: Session) -> Target:
    """The ``Target`` a stored ``review`` of ``session`` (or of a sub-session's part) is about,
    named as the page names it."""
    iri, span = review.target, review.selector
    if span is not None and iri == session.answer_id:
        return Target(iri, "sentence", f"Answer: “{span.quote}”", session.id, span.quote, span.start, span.end)
    if span is not None:
        step = session.nodes.get(iri)
        named = f"Step {timeline_label(step, 60)}" if step is not None else iri
        return Target(iri, "span", f"{named}: “{span.quote}”", session.id, span.quote, span.start, span.end)
    if iri == session.id:
        return Target(iri, "session", "The session", session.id)
    step = session.nodes.get(iri)
    if step is not None and step.kind == "EdgeSelection":
        return Target(iri, "edge", f"Edge: {_edge_words(session, iri)}", session.id)
    if step is not None and step.kind == "ChunkSelection":
        return Target(iri, "chunk", f"Chunk chosen by {iri}", session.id)
    if step is not None:
        return Target(iri, "step", f"Step {timeline_label(step, 60)}", session.id)
    return Target(iri, "evidence", iri, session.id)


def _edge_words(session: Session, selection: str) -> str:
    """The edge an EdgeSelection chose, as the evidence panel names it (its terms' labels, else
    the terms, joined by arrows), read from its Focus step's ``edges``; the selection's IRI when
    the edge is not stored."""
    for step in session.steps:
        for edge in step.fields.get("edges") or ():
            if edge.get("id") == selection and edge.get("s") is not None:
                return " → ".join(str(edge.get(f"{part}_label") or edge.get(part)) for part in ("s", "p", "o"))
    return selection


def _delete(review_id: str) -> None:
    """Delete the person's own review ``review_id``; say so when the store refuses or is busy."""
    try:
        delete_review(review_id)
    except (NoSuchReview, NotYourReview, OSError) as error:
        st.toast(md_escape(f"Not deleted: {error}"), icon=":material/error:")


def target_key(review: Any) -> tuple:
    """What ``review`` is about, as a key: ``(target IRI, start, end)`` (None, None for a whole target)."""
    span = review.selector
    return (review.target, span.start if span else None, span.end if span else None)


def disagreements(reviews: Sequence[Any]) -> dict[tuple, set[str]]:
    """The targets (``(iri, start, end)``) whose reviews give more than one label, each with its
    labels: where reviewers disagree."""
    labels: dict[tuple, set[str]] = {}
    for review in reviews:
        labels.setdefault(target_key(review), set()).add(review.label)
    return {key: found for key, found in labels.items() if len(found) > 1}


def reviews_panel(session: Session, reviews: Sequence[Any]) -> None:
    """The panel (an expander, open when reviewers disagree) listing ``reviews`` (the
    session's, ``access.reviews_of_session``), one group per target, in the order first reviewed."""
    edit = st.session_state.pop(_EDIT_KEY, None)
    if edit is not None:
        st.session_state[EDITING_KEY] = edit[0]
        open_review(edit[1], keep_editing=True)
    split = disagreements(reviews)
    title = "Reviews: none yet" if not reviews else (
        f"Reviews: {counted(len(reviews), 'review')}" + (f", reviewers disagree on {counted(len(split), 'target')}"
                                                          if split else ""))
    with st.expander(title, expanded=bool(split), icon=":material/rate_review:"):
        if not reviews:
            st.caption("Review the session (its header's Review button), a step (the inspector's), a sentence of "
                       "the answer or an edge or chunk of the evidence.")
            return
        me = reviewer()
        groups: dict[tuple, list[Any]] = {}
        for review in sorted(reviews, key=lambda r: str(r.created)):
            groups.setdefault(target_key(review), []).append(review)
        for key, group in groups.items():
            target = target_of(group[0], session)
            with st.container(border=True):
                head = md_escape(f"{target.title}", one_line=True)
                st.markdown(f"**{head}**" + (" · :orange-badge[:material/call_split: reviewers disagree]"
                                             if key in split else ""), anchors=False)
                for review in group:
                    row = st.container(horizontal=True, vertical_alignment="center", gap="small")
                    with row:
                        st.markdown(review_line(review), anchors=False, width="stretch")
                        if review.author == me:
                            st.button("Edit", key=f"te_panel_edit_{review.id}", icon=":material/edit:",
                                      type="tertiary", on_click=st.session_state.__setitem__,
                                      args=(_EDIT_KEY, (review.id, target)))
                            st.button("Delete", key=f"te_panel_delete_{review.id}", icon=":material/delete:",
                                      type="tertiary", on_click=_delete, args=(review.id,))
