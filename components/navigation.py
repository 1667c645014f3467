"""The app's pages, the guard that makes a page run through ``app.py``, and the addresses of
switches and links between pages (the source's parameters, the list as it was left).

The pages live in ``app_pages/``, not ``pages/``: Streamlit takes an app with a ``pages/`` folder
for an old-style multipage app until the first ``st.navigation`` call in the server process, and
its first run then draws the folder's file names as the navigation ("app, compare, documents…")
before ``app.py`` names them. With every page declared here, each page has its title from the
first paint. Should a page still run without ``app.py`` (no page config, no sidebar loader),
``ensure_entry_run`` registers the navigation and switches to the same page with the same query
parameters, which then goes through ``app.py``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NoReturn

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from .sidebar.source_picker import SOURCE_PARAMS, source_query
from .text import ASK_PAGE, COMPARE_PAGE, DOCUMENTS_PAGE, INSIGHTS_PAGE, SESSION_PAGE, SESSIONS_PAGE

_ENTRY_MARK = "te_entry_run"
_LIST_ADDRESS_KEY = "te_list_address"  # the session list's query as it last drew it: [(name, value)]
SOURCE_NAMES = frozenset(name for names in SOURCE_PARAMS.values() for name in names)  # every source's parameters


def app_pages() -> list[st.Page]:
    """The session list (the default page, at ``/``), the session view (``/session``), the
    collection's insights (``/insights``), the documents behind the answers (``/documents``) and
    the comparison of two sessions (``/compare``) and a question asked of a TrustGraph
    deployment, watched as it runs (``/ask``)."""
    return [
        st.Page(SESSIONS_PAGE, title="Sessions", default=True),
        st.Page(SESSION_PAGE, title="Session", url_path="session"),
        st.Page(INSIGHTS_PAGE, title="Insights", url_path="insights"),
        st.Page(DOCUMENTS_PAGE, title="Documents", url_path="documents"),
        st.Page(COMPARE_PAGE, title="Compare", url_path="compare"),
        st.Page(ASK_PAGE, title="Ask", url_path="ask"),
    ]


def mark_entry_run() -> None:
    """Called by ``app.py`` before it runs a page."""
    st.session_state[_ENTRY_MARK] = True


def ensure_entry_run(page_path: str) -> None:
    """Called first by the page ``page_path`` (e.g. ``SESSION_PAGE``): when Streamlit ran it
    without ``app.py``, switch to it again (same query parameters) through ``app.py``."""
    if st.session_state.pop(_ENTRY_MARK, False):
        return
    st.navigation(app_pages(), position="hidden")
    st.switch_page(page_path, query_params=st.query_params.to_dict())


def page_params(params: Mapping[str, str | Sequence[str]]) -> list[tuple[str, str]]:
    """``params`` (a name -> a value or a list of values) as pairs, followed by the parameters
    that name the source shown (``source_query``: ``store=…``, an endpoint's, a gateway's):
    the query of a switch or a link to another page of the same source.

    A page's address needs the source's parameters: a link opened in a new tab starts a new
    browser session, which knows the source by its address alone. And the sidebar writes them
    back into an address that lacks them, each write an entry of the browser's history: a switch
    without them left an entry of its own for the new page, so that Back from a session showed
    the same session again, or the list, depending on which of the two writes reached the
    browser first."""
    pairs = [(name, value) for name, given in params.items()
             for value in ([given] if isinstance(given, str) else given)]
    return pairs + [pair for pair in source_query() if pair[0] not in params]


def open_page(page_path: str, params: Mapping[str, str | Sequence[str]]) -> NoReturn:
    """Switch to the page ``page_path`` (e.g. ``SESSION_PAGE``) at ``params`` and the source's
    parameters (``page_params``)."""
    st.switch_page(page_path, query_params=page_params(params))


def is_history_navigation() -> bool:
    """Whether this run is the browser's Back or Forward (Streamlit's run context says so)."""
    ctx = get_script_run_ctx()
    return bool(ctx is not None and getattr(ctx, "is_history_navigation", False))


def remember_list_address(pairs: list[tuple[str, str]]) -> None:
    """Keep the session list's query (``[(name, value)]``, its filters, order, page and source)
    as it last drew it, for the links back to it (``list_address``)."""
    st.session_state[_LIST_ADDRESS_KEY] = list(pairs)


def remembered_list_address() -> list[tuple[str, str]]:
    """The session list's query as this person's session last drew it (``[]`` before it did)."""
    return list(st.session_state.get(_LIST_ADDRESS_KEY) or [])


def list_address() -> list[tuple[str, str]]:
    """The query of a link back to the session list: the list as this person left it
    (``remember_list_address``) while it shows the source shown now, else the source's
    parameters alone (``page_params``).

    The whole query goes with the link because the list writes each part it lacks back into
    the address, each write an entry of the browser's history: a link with the source alone
    came to the list through three addresses, and Back from it showed a list never seen (the
    filter without its order and page)."""
    kept, source = remembered_list_address(), source_query()
    if kept and sorted(pair for pair in kept if pair[0] in SOURCE_NAMES) == sorted(source):
        return kept
    return page_params({})
