"""The Insights page's review charts: the labels of the reviews of the sessions the list's
filters choose, per day and by tool (``views.review_charts``), with their PNG and CSV like the
page's other charts."""

from __future__ import annotations

import sqlite3
from typing import Any

import streamlit as st

from trace_explorer.reviews import ReviewStoreBusy
from trace_explorer.index.catalog import list_sessions
from trace_explorer.sources.filter import SessionFilter
from trace_explorer.sources.source import SourceError
from trace_explorer.views.review_charts import labels_by_tool, labels_per_day

from ..collection import Collection
from ..insights import draw_chart
from ..text import counted, md_escape
from .access import labels, review_store


def reviewed_tools(collection: Collection, filters: SessionFilter, reviewed: set[str]) -> dict[str, list[str]]:
    """Session IRI -> the tools it called, for the sessions ``filters`` choose that are in
    ``reviewed`` (all pages of the list: its summaries' ``actions``)."""
    rows = list_sessions(collection.source, filters, limit=0).rows
    return {r["id"]: list(r.get("actions") or []) for r in rows if r["id"] in reviewed}


def review_insights(collection: Collection, filters: SessionFilter) -> None:
    """The review charts of the sessions ``filters`` choose (a caption when none is reviewed)."""
    st.markdown("#### :material/rate_review: Reviews", anchors=False)
    try:
        store = review_store(collection)
        reviewed = store.reviewed_sessions()
        tools = reviewed_tools(collection, filters, reviewed) if reviewed else {}
        found: list[dict[str, Any]] = [r for r in store.rows() if r["session"] in tools] if tools else []
    except (ReviewStoreBusy, OSError, sqlite3.Error, SourceError) as error:
        st.caption(md_escape(f"The reviews could not be read: {error}"))
        return
    if not found:
        st.caption("No session these filters choose has a review yet.")
        return
    st.caption(f"{counted(len(found), 'review')} of {counted(len(tools), 'session')}")
    charts = [labels_per_day(found, labels()), labels_by_tool(found, tools, labels())]
    for column, chart in zip(st.columns(2, gap="medium"), charts):
        with column, st.container(border=True):
            draw_chart(chart, filters)
