"""Insights page: what the sessions the session list's filters select did, at a glance: sessions
per day (week, month or year over a long history), tool calls and errors, steps, durations,
tokens and termination reasons, and the labels of the sessions' reviews per day and by tool. Each chart downloads as PNG and CSV; a click on a bar lists
those sessions."""

from __future__ import annotations

import streamlit as st

from components.collection import current_collection
from components.insights import (chart_grid, current_filter, describe, filter_params, headline, loading_words,
                                 name_in_address, numbers_of)
from components.navigation import ensure_entry_run, page_params
from components.reviews.insights import review_insights
from components.text import INSIGHTS_PAGE, SESSIONS_PAGE, md_escape
from trace_explorer.sources.source import SourceError

ensure_entry_run(INSIGHTS_PAGE)
collection = current_collection()
loading_words()
st.markdown("## Insights", anchors=False)
chosen = current_filter(collection)  # a value the list cannot read is named under the title
name_in_address(chosen)
top = st.container(horizontal=True, vertical_alignment="center", gap="medium")
with top:
    st.caption(md_escape(f"{describe(chosen)} (the session list's filters) · {collection.label}"), width="content")
    st.page_link(SESSIONS_PAGE, label="Change the filters", icon=":material/filter_alt:",
                 query_params=page_params(filter_params(chosen)))

try:
    with st.spinner("Counting…"):
        numbers = numbers_of(collection, chosen)
except SourceError as error:
    st.error(md_escape(str(error)), icon=":material/error:")
    st.stop()

if not numbers["sessions"]:
    st.info("No session matches these filters.", icon=":material/filter_alt_off:")
    st.stop()
headline(numbers)
chart_grid(numbers, chosen)
review_insights(collection, chosen)
