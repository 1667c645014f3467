"""The views of one session on its page: the workspace (``components/workspace``), the
session's waterfall, provenance graph and step inspector in one client-side component.

It runs as one ``st.fragment``: when the component calls back (a librarian text to fetch, a
folded run of the graph to open), only the workspace reruns, never the page's header, exports
or sidebar. vis-network, which draws the graph, is sent by a fragment of its own
(``components/session/workspace/graph_library.py``) once the graph is first shown.
"""

from __future__ import annotations

import streamlit as st

from trace_explorer.model.session import Session

from ..collection import Collection
from ..reviews.on_page import open_step_review, page_reviews, step_reviews, step_wanted, thoughts_shown_on
from .workspace import workspace
from .workspace.graph_library import graph_library


def session_views(session: Session, collection: Collection) -> None:
    """Draw the workspace of ``session``, and below it the loader of its graph's library."""
    _views(session, collection)
    graph_library()


@st.fragment
def _views(session: Session, collection: Collection) -> None:
    """The workspace, its steps' reviews in the inspector; opens the review dialog of a step
    whose Review button the inspector clicked."""
    st.markdown("##### :material/view_timeline: Steps", anchors=False)
    reviews = step_reviews(page_reviews(session, collection), thoughts_shown_on(session, collection))
    workspace(session, collection, reviews=reviews, on_review=step_wanted)
    open_step_review(session, collection.by_id)
