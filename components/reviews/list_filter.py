"""The session list's reviews: its Review column (each listed session's labels, with how many
reviews carry each and by whom) and its review filters, kept in the URL as the other filters are:
``review`` (a label, or "not reviewed") and ``reviewer`` (an author; with "not reviewed": not
reviewed by them).

The filters become a ``ReviewFilter`` on the review store's rows, which the session index
answers inside its own query, and another source's query by naming the reviewed sessions
(``sources.index_reviews``)."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Sequence
from typing import Any

import streamlit as st

from trace_explorer.sources.filter import SessionFilter
from trace_explorer.sources.filter import ReviewFilter

from ..collection import Collection
from .access import labels, review_store, reviewer

REVIEW_KEY, REVIEWER_KEY = "review", "reviewer"  # the widgets' keys and the URL's parameters
NOT_REVIEWED = "not reviewed"
DISAGREE = "⚠ "  # before a Review cell whose reviewers gave different labels


def review_choices() -> tuple[str, ...]:
    """The values of the Review filter: each configured label, then "not reviewed"."""
    return (*labels(), NOT_REVIEWED)


def review_filter_of(collection: Collection, review: str | None, by: str | None) -> ReviewFilter | None:
    """The ``ReviewFilter`` for the Review filter's value ``review`` (a label, "not reviewed",
    None) and the Reviewer filter's ``by`` (an author or None); None when neither is set."""
    if not review and not by:
        return None
    rows = review_store(collection).filter_rows_path
    if review == NOT_REVIEWED:
        return ReviewFilter(rows, author=by or None, not_reviewed=True)
    return ReviewFilter(rows, label=review or None, author=by or None)


def list_review_filters(collection: Collection) -> ReviewFilter | None:
    """Draw the Review and Reviewer filters (bound to the URL) and return what they choose (a
    session index answers them in its own query; another source's query names the reviewed
    sessions)."""
    if not filter_takes_reviews():
        return None
    review = st.selectbox("Review", review_choices(), index=None, key=REVIEW_KEY, placeholder="any",
                          bind="query-params", persist_state="session", width=160,
                          help="Sessions with a review of this label (of the session or any part of it), "
                               "or with none: not reviewed (by the Reviewer, when one is chosen).")
    people = list(dict.fromkeys([reviewer(), *reviewers(collection)]))
    by = st.selectbox("Reviewer", people, index=None, key=REVIEWER_KEY, placeholder="anyone",
                      bind="query-params", persist_state="session", width=170, accept_new_options=True,
                      help="Sessions this person reviewed (with the Review filter: with that label; "
                           "with “not reviewed”: that they have not reviewed).")
    return review_filter_of(collection, review, by)


def filter_takes_reviews() -> bool:
    """Whether the session list's filter (``SessionFilter``) carries a review filter."""
    return "reviews" in {f.name for f in dataclasses.fields(SessionFilter)}


def review_fields(review_filter: ReviewFilter | None) -> dict[str, ReviewFilter]:
    """``SessionFilter`` keyword arguments for ``review_filter`` (none when it is None or the
    filter cannot carry it)."""
    return {"reviews": review_filter} if review_filter is not None and filter_takes_reviews() else {}


def review_filter_from_state(collection: Collection, values: Any) -> ReviewFilter | None:
    """The review filter the list's widgets hold in ``values`` (``st.session_state`` or the
    URL's parameters: a ``get``), the Review filter's value read against its choices."""
    review = values.get(REVIEW_KEY)
    review = next((c for c in review_choices() if isinstance(review, str) and c.lower() == review.strip().lower()),
                  None)
    by = values.get(REVIEWER_KEY)
    return review_filter_of(collection, review, by.strip() if isinstance(by, str) and by.strip() else None)


def review_params(review_filter: ReviewFilter | None) -> dict[str, str]:
    """The list's URL parameters that choose ``review_filter`` (``review``, ``reviewer``)."""
    if review_filter is None:
        return {}
    params = {REVIEW_KEY: NOT_REVIEWED} if review_filter.not_reviewed else (
        {REVIEW_KEY: review_filter.label} if review_filter.label else {})
    return params | ({REVIEWER_KEY: review_filter.author} if review_filter.author else {})


def review_words(review_filter: ReviewFilter) -> str:
    """``review_filter`` in words: "reviewed incorrect by ana", "not reviewed by ana", "not reviewed"."""
    if review_filter.not_reviewed:
        return "not reviewed" + (f" by {review_filter.author}" if review_filter.author else "")
    return "reviewed" + (f" {review_filter.label}" if review_filter.label else "") + (
        f" by {review_filter.author}" if review_filter.author else "")


def reviewers(collection: Collection) -> list[str]:
    """Everyone with a review as it stands in ``collection``'s review store, sorted."""
    try:
        return sorted({row["author"] for row in review_store(collection).rows()})
    except (sqlite3.Error, OSError):
        return []


def review_cell(found: Sequence[tuple[str, str]] | None) -> tuple[str, str]:
    """The Review column's text and tooltip for one session's reviews (``ReviewStore.labels_of``:
    ``[(label, author), ...]``): ("⚠ incorrect 2 · correct 1", "incorrect: alice, bob\ncorrect:
    carol"), most given first, or ("—", "not reviewed")."""
    if not found:
        return "—", "not reviewed"
    by_label: dict[str, list[str]] = {}
    for label, author in found:
        by_label.setdefault(label, []).append(author)
    totals = sorted(by_label, key=lambda label: (-len(by_label[label]), label))
    text = " · ".join(f"{label} {len(by_label[label])}" for label in totals)
    title = "\n".join(f"{label}: {', '.join(sorted(set(by_label[label])))}" for label in totals)
    return (DISAGREE + text if len(totals) > 1 else text), title


def with_reviews(collection: Collection, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The list's rows (``session_summary`` dicts) with ``review`` and ``review_title``
    (``review_cell``) from the review store's rows (one query a page); unchanged when the store
    cannot be read."""
    try:
        found = review_store(collection).labels_of([r["id"] for r in rows])
    except (sqlite3.Error, OSError):  # a rows file being made or in use: the list still shows
        return list(rows)
    out = []
    for row in rows:
        text, title = review_cell(found.get(row["id"]))
        out.append(dict(row, review=text, review_title=title))
    return out


def with_review_figures(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The table's rows (``session_table.table_rows``) with a reviewed session's labels added to
    its ``figures``, the line a narrow table shows under the question in place of its columns."""
    return [dict(r, figures=" · ".join(f for f in (r["figures"], f"review {r['review']}") if f))
            if r.get("review") and r["review"] != "—" else r for r in rows]
