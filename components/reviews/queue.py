"""The review queue: its button ("Review queue") walks the sessions the session list's filters
choose, in the list's order, to the first one the person reviewing has not reviewed yet and has
not passed over in this browser session (as Langfuse's and Phoenix's annotation queues hand out
the next item). A session reviewed leaves the queue; one passed over without a review stays out of this
walk, so the walk never loops between two sessions.

The person's reviewed sessions are left out by the list's own query ("not reviewed by" them,
``sources.index_reviews``) unless the list's filters already filter by review; then pages of the
list are read and the reviewed ones skipped, up to ``SCAN_LIMIT`` sessions."""

from __future__ import annotations

import dataclasses

import streamlit as st

from trace_explorer.sources.filter import SessionFilter, SessionOrder
from trace_explorer.sources.filter import ReviewFilter

from ..collection import Collection
from ..insights import current_filter
from ..navigation import open_page
from ..sessions.list_state import SORT_STATE_KEY
from ..text import SESSION_PAGE, md_escape
from .access import review_store, reviewer
from .list_filter import filter_takes_reviews

PASSED_KEY = "te_review_passed"  # the sessions this browser session's walk has passed over
PAGE = 50
SCAN_LIMIT = 2000  # sessions read at most to find the next one where the index cannot filter


def queue_filter(filters: SessionFilter, collection: Collection, by: str) -> SessionFilter:
    """``filters`` with "not reviewed by ``by``" added, unless they filter by review already
    (``next_session`` then skips the reviewed ones itself)."""
    if not filter_takes_reviews() or getattr(filters, "reviews", None):
        return filters
    rows = review_store(collection).filter_rows_path
    return dataclasses.replace(filters, reviews=ReviewFilter(rows, author=by, not_reviewed=True))


def next_session(collection: Collection, filters: SessionFilter, order: SessionOrder, by: str,
                 skip: set[str] | frozenset[str] = frozenset()) -> str | None:
    """The IRI of the first session, in ``order``, that ``filters`` choose, that ``by`` has not
    reviewed and that is not in ``skip``; None when there is none (within ``SCAN_LIMIT``)."""
    reviewed = review_store(collection).sessions_with(author=by)
    chosen = queue_filter(filters, collection, by)
    for offset in range(0, SCAN_LIMIT, PAGE):
        page = collection.page(chosen, PAGE, offset, order)
        for row in page.rows:
            if row["id"] not in reviewed and row["id"] not in skip:
                return row["id"]
        if offset + PAGE >= page.total:
            return None
    return None


def _list_state(collection: Collection) -> tuple[SessionFilter, SessionOrder]:
    """The session list's filters and order as this browser session last drew them."""
    return current_filter(collection), SessionOrder.parse(st.session_state.get(SORT_STATE_KEY))


def _go_next(collection: Collection, current: str | None) -> None:
    passed: set[str] = st.session_state.setdefault(PASSED_KEY, set())
    if current:
        passed.add(current)
    filters, order = _list_state(collection)
    found = next_session(collection, filters, order, reviewer(), passed)
    if found is None:
        st.session_state["te_review_queue_done"] = True
        return
    st.session_state["te_review_queue_next"] = found


def next_to_review(collection: Collection, current: str | None = None) -> None:
    """The "Review queue" button (the session list's and the session page's): opens the next
    session of the queue, or says the queue is empty."""
    st.button("Review queue", key="te_review_next", icon=":material/skip_next:", type="tertiary",
              on_click=_go_next, args=(collection, current),
              help="Open the next session of the list's current filters, in its order, that you have not reviewed")
    found = st.session_state.pop("te_review_queue_next", None)
    if found and current is None:
        open_page(SESSION_PAGE, {"session": found})
    elif found:  # from a session page to another session: the address changes here (a switch to the
        st.query_params.pop("step", None)  # same page would keep the browser's address), then the page runs again
        st.query_params["session"] = found
        st.rerun(scope="app")
    if st.session_state.pop("te_review_queue_done", False):
        st.toast(md_escape("Nothing left to review under the list's filters."), icon=":material/done_all:")
