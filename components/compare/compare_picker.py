"""Choosing two sessions to compare: the session list's "Compare" action, the compare page's
own two boxes, and the link ``/compare?compare=A,B`` both lead to.

A and B are IRIs or unique parts of them (a UUID, its first characters), as ``trace-explorer
diff`` takes them (``cli.sessions.find_session_ids``); they may come from different files loaded
together. Session labels are trace text: they are shown by selectboxes and multiselects as
plain text, never as Markdown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from trace_explorer.index.catalog import find_session_ids
from trace_explorer.index.catalog import SessionFilter
from trace_explorer.sources.source import SourceError

from ..collection import Collection
from ..navigation import open_page
from ..text import COMPARE_PAGE, clip, counted

QUERY_KEY = "compare"
CHOICES_SHOWN = 200  # newest sessions offered in the compare page's boxes (any other may be typed)
_SYNCED_KEY = "te_compare_synced"


def compare_link(a: str, b: str) -> dict[str, str]:
    """The compare page's query parameters for sessions ``a`` and ``b``."""
    return {QUERY_KEY: f"{a},{b}"}


def compare_ticked(ticked: Sequence[str]) -> None:
    """The session list's "Compare" action: with two sessions ticked in the table (``ticked``:
    IRIs, in the order ticked, on any page), open them side by side."""
    row = st.container(horizontal=True, vertical_alignment="center", gap="small")
    with row:
        count = len(ticked)
        st.caption(f"{counted(count, 'session')} ticked" if count else
                   "Tick two sessions to compare them")
        if st.button("Compare", icon=":material/compare_arrows:", type="primary", disabled=count != 2,
                     key="te_compare_go", help="Open the two ticked sessions side by side"):
            open_page(COMPARE_PAGE, compare_link(ticked[0], ticked[1]))


def session_label(summary: dict[str, Any]) -> str:
    """A session in a picker: its question (clipped), type and the start of its UUID."""
    tail = summary["id"].rsplit(":", 1)[-1][:8]
    return f"{clip(summary.get('question') or '(no question)', 70)} · {summary['type']} · {tail}"


def requested_pair() -> tuple[str | None, str | None]:
    """A and B from ``?compare=A,B`` (an IRI may hold commas: then the split that leaves two
    non-empty parts nearest the middle is taken); (None, None) without the parameter."""
    value = (st.query_params.get(QUERY_KEY) or "").strip()
    if not value:
        return None, None
    cuts = [i for i, ch in enumerate(value) if ch == "," and 0 < i < len(value) - 1]
    if not cuts:
        return value, None
    cut = min(cuts, key=lambda i: abs(i - len(value) / 2))
    return value[:cut].strip(), value[cut + 1:].strip()


def resolve(collection: Collection, key: str | None) -> tuple[str | None, str | None]:
    """``(IRI, None)`` for the one session ``key`` names, else ``(None, why)``."""
    if not key:
        return None, None
    try:
        found = find_session_ids(collection.source, key)
    except (SourceError, ValueError) as error:
        return None, str(error)
    if len(found) == 1:
        return found[0], None
    if not found:
        return None, f"No session matches {key!r}."
    return None, f"{key!r} matches several sessions ({', '.join(found[:3])}, …): give more of the IRI."


def compare_picker(collection: Collection, a: str | None, b: str | None) -> None:
    """Two boxes (A and B: the newest sessions, or any IRI or unique part typed in) and a
    "Compare" button that puts the pair in the page's link."""
    try:
        page = collection.page(SessionFilter(include_sub=True), CHOICES_SHOWN, 0)
        labels = {r["id"]: session_label(r) for r in page.rows}
    except SourceError:
        labels = {}
    if st.session_state.get(_SYNCED_KEY) != (a, b):  # a new link: the boxes show its pair
        st.session_state[_SYNCED_KEY] = (a, b)
        for side, current in (("a", a), ("b", b)):
            st.session_state[f"te_compare_{side}"] = current
    row = st.container(horizontal=True, vertical_alignment="bottom", gap="small")
    with row:
        chosen = []
        for side, current in (("A", a), ("B", b)):
            options = list(labels) + ([current] if current and current not in labels else [])
            chosen.append(st.selectbox(
                f"Session {side}", options, format_func=lambda key: labels.get(key, key), accept_new_options=True,
                placeholder="pick a session, or type an IRI or UUID", key=f"te_compare_{side.lower()}",
                width=460))
        if st.button("Compare", icon=":material/compare_arrows:", type="primary",
                     disabled=not (chosen[0] and chosen[1]), key="te_compare_submit"):
            st.query_params.update(compare_link(chosen[0], chosen[1]))
            st.rerun()
