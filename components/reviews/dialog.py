"""The review dialog: one target's reviews and the form that adds one, as Langfuse's and
Phoenix's "Annotate" panels do. Opened by a "Review" button beside the thing reviewed (the
session's header, a sentence of the answer, an edge, a chunk) or by the inspector's own button
(a step).

The dialog is a fragment of its own: Save reruns the dialog only (the review is written to the
store and shown in the dialog's list at once, in well under 200 ms: ``benchmarks/
browser_reviews.py``), and closing it reruns the page, whose panels then show it too.

A person edits and deletes only their own reviews (the author is ``access.reviewer``); every
text of a review is untrusted and shown through ``md_escape``.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from trace_explorer.reviews import NoSuchReview, NotYourReview, ReviewError

from ..text import md_escape
from .access import delete_review, edit_review, labels, reviewer, reviews_of_target, save_review
from .shown import review_line
from .targets import Target

EDITING_KEY = "te_review_editing"  # the id of the review whose form is open for editing
COMMENT_CHARS = 4000  # of a comment a person can write
_DIALOG_TARGET = "te_review_target"
_PROBLEM_KEY = "te_review_problem"
_LISTED_KEY = "te_review_listed"  # (target key, its reviews) while its dialog is open


def open_review(target: Target, keep_editing: bool = False) -> None:
    """Open the review dialog of ``target`` (call from a page run, not from a callback);
    ``keep_editing``: with the form of the review ``EDITING_KEY`` names (the person's own)."""
    st.session_state[_DIALOG_TARGET] = target
    st.session_state.pop(_LISTED_KEY, None)  # read from the store when the dialog opens
    if not keep_editing:
        st.session_state.pop(EDITING_KEY, None)
    _dialog(target)


def review_button(target: Target, key: str, label: str = "Review", count: int = 0, help_text: str | None = None,
                  kind: str = "secondary") -> None:
    """A button that opens ``target``'s review dialog; ``count``: its reviews so far, shown on it."""
    text = f"{label} ({count})" if count else label
    if st.button(text, key=key, icon=":material/rate_review:", type=kind,
                 help=help_text or "Label it (correct, incorrect, unsupported…) with a score and a comment"):
        open_review(target)


@st.dialog("Review", width="large", on_dismiss="rerun")
def _dialog(target: Target) -> None:
    st.caption(md_escape(target.kind.capitalize()))
    st.markdown(md_escape(_clip(target.title, 600)), anchors=False)
    if target.quote is not None:
        st.caption(md_escape(f"Characters {target.start}–{target.end} of {target.iri}", one_line=True))
    else:
        st.caption(md_escape(target.iri, one_line=True))
    me = reviewer()
    found = _listed_reviews(target)
    editing = st.session_state.get(EDITING_KEY)
    _listed(found, me, editing)
    own = next((r for r in found if r.id == editing and r.author == me), None)
    _form(target, own)
    if st.button("Done", key="te_review_done", icon=":material/check:"):
        _close()


def _listed_reviews(target: Target) -> list:
    """``target``'s reviews: read from the store when the dialog opens, then kept in this
    browser session and changed by the dialog's own saves, edits and deletes (each write returns
    the review as stored), so a Save costs the store's write and no read after it."""
    kept = st.session_state.get(_LISTED_KEY)
    if kept is None or kept[0] != target.key:
        kept = (target.key, reviews_of_target(target))
        st.session_state[_LISTED_KEY] = kept
    return kept[1]


def _keep(review=None, gone: str | None = None) -> None:
    """Change the kept list: ``review`` added or put in place of its old state, ``gone`` left out."""
    kept = st.session_state.get(_LISTED_KEY)
    if kept is None:
        return
    listed = [r for r in kept[1] if r.id != gone]
    if review is not None:
        at = next((i for i, r in enumerate(listed) if r.id == review.id), None)
        listed = [*listed, review] if at is None else [*listed[:at], review, *listed[at + 1:]]
    st.session_state[_LISTED_KEY] = (kept[0], listed)


def _delete(review_id: str) -> None:
    try:
        delete_review(review_id)
    except (NoSuchReview, NotYourReview, OSError) as error:
        st.session_state[_PROBLEM_KEY] = f"Not deleted: {error}"
        return
    _keep(gone=review_id)


def _listed(found: Sequence, me: str, editing: str | None) -> None:
    if not found:
        st.caption("No review yet.")
        return
    distinct = {r.label for r in found}
    if len(distinct) > 1:
        st.warning(md_escape(f"Reviewers disagree: {', '.join(sorted(distinct))}."), icon=":material/call_split:")
    for number, review in enumerate(found):
        row = st.container(horizontal=True, vertical_alignment="center", gap="small", key=f"te_dialog_review_{number}")
        with row:
            st.markdown(review_line(review), anchors=False, width="stretch")
            if review.author == me and review.id != editing:
                st.button("Edit", key=f"te_review_edit_{review.id}", icon=":material/edit:", type="tertiary",
                          on_click=st.session_state.__setitem__, args=(EDITING_KEY, review.id))
                st.button("Delete", key=f"te_review_delete_{review.id}", icon=":material/delete:", type="tertiary",
                          on_click=_delete, args=(review.id,))


def _form(target: Target, own) -> None:
    """The form that adds a review of ``target`` (or edits ``own``, the person's own review):
    Save writes it in the button's callback, before the dialog runs again and lists it."""
    choices = list(labels())
    mode = f"edit_{own.id}" if own is not None else "new"
    keys = {name: f"te_review_{name}_{mode}" for name in ("label", "score", "comment")}
    with st.form(f"te_review_form_{mode}", clear_on_submit=own is None, border=True):
        st.caption(md_escape("Editing your review" if own is not None else f"Your review, as {reviewer()}",
                             one_line=True))
        st.pills("Label", choices, selection_mode="single", key=keys["label"],
                 default=own.label if own is not None and own.label in choices else None)
        st.number_input("Score (optional)", value=own.score if own is not None else None, step=0.1, format="%g",
                        key=keys["score"], placeholder="none")
        st.text_area("Comment (optional)", value=(own.comment or "") if own is not None else "",
                     max_chars=COMMENT_CHARS, key=keys["comment"], height=90)
        st.form_submit_button("Save", type="primary", icon=":material/save:", on_click=_submitted,
                              args=(target, own.id if own is not None else None, keys))
    problem = st.session_state.pop(_PROBLEM_KEY, None)
    if problem:
        st.error(md_escape(problem), icon=":material/error:")


def _submitted(target: Target, review_id: str | None, keys: dict[str, str]) -> None:
    state = st.session_state
    label, score, comment = state.get(keys["label"]), state.get(keys["score"]), (state.get(keys["comment"]) or "").strip()
    if not label:
        state[_PROBLEM_KEY] = "Choose a label."
        return
    try:
        if review_id is not None:
            _keep(edit_review(review_id, label=label, score=score, comment=comment or None))
            state.pop(EDITING_KEY, None)
        else:
            _keep(save_review(target, label=label, score=score, comment=comment or None))
    except (ReviewError, NoSuchReview, NotYourReview, OSError) as error:  # OSError: ReviewStoreBusy too
        state[_PROBLEM_KEY] = f"Not saved: {error}"


def _close() -> None:
    st.session_state.pop(_DIALOG_TARGET, None)
    st.session_state.pop(_LISTED_KEY, None)
    st.session_state.pop(EDITING_KEY, None)
    st.rerun()


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
