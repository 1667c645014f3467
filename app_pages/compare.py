"""Compare page, reachable as ``?compare=A,B`` (a shareable link; A and B are session IRIs or
unique parts of them): two sessions side by side, what changed between two answers."""

from __future__ import annotations

import streamlit as st

from components.collection import current_collection
from components.compare.compare_picker import compare_picker, requested_pair, resolve
from components.compare.compare_view import FILTER_KEY, PAGE_KEY, comparison_view
from components.navigation import ensure_entry_run, list_address
from components.text import COMPARE_PAGE, SESSIONS_PAGE, md_escape
from trace_explorer.analysis.compare.compare import compare_sessions
from trace_explorer.index.family import fetch_family
from trace_explorer.sources.source import SourceError

RESULT_KEY = "te_compare_result"

ensure_entry_run(COMPARE_PAGE)
collection = current_collection()

st.markdown("## Compare two sessions", anchors=False)
asked_a, asked_b = requested_pair()
found_a, problem_a = resolve(collection, asked_a)
found_b, problem_b = resolve(collection, asked_b)
compare_picker(collection, found_a or asked_a, found_b or asked_b)
for side, problem in (("A", problem_a), ("B", problem_b)):
    if problem:
        st.error(md_escape(f"Session {side}: {problem}"), icon=":material/search_off:")
if not (found_a and found_b):
    if not (problem_a or problem_b):
        st.info("Pick two sessions above, or choose two in the session list and press “Compare”. "
                "A link to this page, `?compare=A,B`, opens the same pair.", icon=":material/compare_arrows:")
    st.page_link(SESSIONS_PAGE, label="Open the session list", icon=":material/list:", query_params=list_address())
    st.stop()

pair = (collection.key, found_a, found_b)
cached = st.session_state.get(RESULT_KEY)
if cached is None or cached[0] != pair:
    try:
        with st.spinner("Reading and comparing the two sessions…"):
            family = fetch_family(collection.source, found_a)
            family.update(fetch_family(collection.source, found_b))
            comparison = compare_sessions(family[found_a], family[found_b], family)
    except SourceError as error:
        st.error(md_escape(str(error)), icon=":material/error:")
        st.stop()
    st.session_state[RESULT_KEY] = (pair, comparison)
    st.session_state.pop(PAGE_KEY, None)  # a new pair starts at its first rows
    st.session_state.pop(FILTER_KEY, None)
comparison = st.session_state[RESULT_KEY][1]
wanted = f"{found_a},{found_b}"
if st.query_params.get("compare") != wanted:
    st.query_params["compare"] = wanted
comparison_view(comparison)
