"""The provenance DAG of a session: the pyvis page from ``trace_explorer.dag_view`` in an iframe.

The page runs scripts in an iframe that can reach the app (Streamlit's iframes are same-origin),
which is why ``dag_html`` escapes every trace value and loads nothing from the network.
``st.iframe`` replaces ``st.components.v1.html`` (deprecated in this Streamlit); the latter is
used on Streamlit versions without ``st.iframe``.
"""

from __future__ import annotations

import streamlit as st

from trace_explorer.dag_view import dag_html, suggested_height
from trace_explorer.model import Session

from .collection import Collection


@st.cache_data(show_spinner=False, max_entries=48)
def _page(collection_key: tuple, session_id: str, selected: str | None, height: int,
          _session: Session, _sessions: dict[str, Session]) -> str:
    """The DAG page, cached per collection content, session, selection and height."""
    return dag_html(_session, selected, height, sessions=_sessions)


def dag(session: Session, collection: Collection, selected: str | None, height: int | None = None) -> None:
    """Draw the session's DAG with ``selected`` highlighted; ``height`` in CSS pixels (default:
    tall enough for the session's tallest column, 300 to 640)."""
    height = height or suggested_height(session)
    html = _page(collection.key, session.id, selected, height, session, collection.by_id)
    if hasattr(st, "iframe"):
        st.iframe(html, height=height + 2)
    else:  # Streamlit < 1.52
        import streamlit.components.v1 as components
        components.html(html, height=height + 2, scrolling=False)
