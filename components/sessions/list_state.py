"""The session list's state, kept in the URL so that a link reproduces the view: the filters
(``type``, ``pattern``, ``status``, ``q`` for the search, ``sub`` for sub-sessions, ``health``,
``review`` and ``reviewer``: widgets bound to query parameters; ``tool``, ``model`` and ``termination``, set by a click on an
Insights chart), the sort (``sort``: a ``filter.SessionOrder`` key, ``-`` first for
descending) and the page (``page``, from 1). Each also stays in this person's Streamlit session,
so coming back from a session finds the list as it was left. A parameter at its default is left
out of the URL.
"""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitAPIException
from streamlit.runtime.state import get_session_state

from trace_explorer.model.session import MECHANISMS, PATTERNS
from trace_explorer.index.catalog import text_search
from trace_explorer.sources.filter import DEFAULT_ORDER, SORT_KEYS, SessionFilter, SessionOrder
from trace_explorer.sources.search import MAX_SEARCH_CHARS

from ..collection import Collection
from ..health import health_filter
from ..insights import insight_filters
from ..navigation import SOURCE_NAMES, is_history_navigation, remember_list_address, remembered_list_address
from ..reviews.list_filter import list_review_filters, review_fields
from ..text import md_escape
from ..compare.compare_picker import QUERY_KEY as COMPARE_KEY
from .filter_values import BOUND_PARAMS, MULTI, STATUSES, filter_choices, known_values, warn_left_out

SORT_PARAM, PAGE_PARAM = "sort", "page"
_SORT_KEY, _PAGE_KEY, _VIEW_KEY = "te_list_sort", "te_list_page", "te_list_view"
SORT_STATE_KEY = _SORT_KEY  # the list's order as this browser session last drew it (the review queue walks it)
_UNKNOWN_KEY = "te_list_unknown_values"
_UNREAD_KEY = "te_list_unread"  # (the list's view, what of its sort and page the URL gave that it could not read)
SESSION_PARAMS = ("session", "step", COMPARE_KEY)  # the session and compare pages' parameters, never the list's


def list_filters(collection: Collection) -> SessionFilter:
    """Draw the filters (bound to the URL) and return what they choose."""
    _read_url_values(collection)
    row = st.container(horizontal=True, vertical_alignment="bottom", gap="medium")
    with row:
        mechanisms = st.pills("Type", list(MECHANISMS), selection_mode="multi", key="type",
                              bind="query-params", persist_state="session")
        patterns = st.pills("Pattern", list(PATTERNS), selection_mode="multi", key="pattern",
                            bind="query-params", persist_state="session")
        status = st.segmented_control("Status", list(STATUSES), key="status", bind="query-params",
                                      persist_state="session")
        search = st.text_input("Search", key="q", placeholder="any words, or answer:, tool:, error:, question:",
                               max_chars=MAX_SEARCH_CHARS,
                               icon=":material/search:", width=280, bind="query-params", persist_state="session",
                               help=text_search(collection.source).note)
        health = health_filter(collection)
        reviewed = list_review_filters(collection)
        sub_sessions = st.toggle("Show sub-sessions", key="sub", bind="query-params", persist_state="session",
                                 help="Sessions that a step of another session started (a tool "
                                      "call's GraphRAG, a supervisor's sub-agents).")
    return SessionFilter(mechanism=tuple(m for m in mechanisms or () if m in MECHANISMS),
                         pattern=tuple(p for p in patterns or () if p in PATTERNS),
                         status=status if status in STATUSES else None,
                         text=(search or "").strip() or None, include_sub=bool(sub_sessions), health=health,
                         **insight_filters(), **review_fields(reviewed))


def _read_url_values(collection: Collection) -> None:
    """Take the filters' values in the URL whatever their case (``?type=graphrag`` is GraphRAG),
    writing them back as the filters spell them; a value no filter knows is dropped and named
    in a warning."""
    unknown, changed = list(st.session_state.pop(_UNKNOWN_KEY, ())), False
    sub = st.query_params.get("sub")  # the toggle's: true or false (another value it drops)
    if sub is not None and sub.strip().lower() not in ("true", "false"):
        unknown.append(f"sub={sub}")
    for name, options in filter_choices(collection).items():
        given = st.query_params.get_all(name)
        if not given:
            continue
        kept, left_out = known_values(given, options)
        unknown += [f"{name}={v}" for v in left_out]
        if kept != given:
            try:
                st.query_params[name] = kept if name in MULTI else kept[:1]
            except StreamlitAPIException:  # bound to its filter in an earlier run: it reads its own
                continue
            changed = True
    if changed:  # the filters, bound to the URL, read it again (and the warning is shown then)
        st.session_state[_UNKNOWN_KEY] = unknown
        st.rerun()
    warn_left_out(unknown)


def restore_list_url() -> None:
    """Give the list its own URL parameters back when it runs with a session or compare page's
    (``SESSION_PARAMS``): Back from a session (or a comparison) opened from the list comes to the list's address with the
    session's parameters (Streamlit writes them before the page's path), and the list's
    filters, sort and page are then those it had (remembered by ``list_view``). The parameters
    bound to the filters (``BOUND_PARAMS``) are not written here: Streamlit refuses that while
    the filters are bound, and each filter, drawn again, writes its remembered value itself.
    The source's parameters stay when nothing is remembered (Back after a reload of the
    session's page, a new browser session): the list then shows that source from its start."""
    if not any(name in st.query_params for name in SESSION_PARAMS):
        return
    kept: dict[str, list[str]] = {}
    for name, value in remembered_list_address():
        kept.setdefault(name, []).append(value)
    for name in [n for n in st.query_params if n not in kept and n not in BOUND_PARAMS
                 and (kept or n not in SOURCE_NAMES)]:
        del st.query_params[name]
    for name, values in kept.items():
        if name not in BOUND_PARAMS and st.query_params.get_all(name) != values:
            st.query_params[name] = values
    st.rerun()  # the filters, bound to the URL, read it again


# Past any list's last page (5 billion rows), and small enough for SQLite's and SPARQL's OFFSET:
# a link to a page past the end opens the last page (session_list)
MAX_PAGE = 100_000_000


def _page_number(value: object) -> int:
    try:
        return min(MAX_PAGE, max(1, int(str(value)[:20])))
    except (TypeError, ValueError):
        return 1


def list_view(filters: SessionFilter, collection: Collection) -> tuple[SessionOrder, int]:
    """The list's order and page (from 1): this session's own, once it has drawn the list, else
    the URL's (a link opened in a new tab); a change of filters or of source starts again at the
    first page (a store's new snapshot, published by an ingest while the list follows it, is the
    same source). A run that Back or Forward started takes the URL alone: an address without
    ``page`` or ``sort`` was the first page in the default order when it was left.

    This session's values come before the URL's because every run takes the address the browser
    held when it asked for the run: while the list follows its source, a run every ``RERUN_S``
    can be asked for with the address of before a click on a header or on Next, and reading
    that address would undo the click (Streamlit's browser side sends ``location.search`` with
    each rerun request, and the server resets ``st.query_params`` from it)."""
    state, params = st.session_state, st.query_params
    if is_history_navigation() or _SORT_KEY not in state:
        order, page = SessionOrder.parse(params.get(SORT_PARAM)), _page_number(params.get(PAGE_PARAM))
    else:
        order, page = SessionOrder.parse(state.get(_SORT_KEY)), _page_number(state.get(_PAGE_KEY))
    unread = _unread(params.get(SORT_PARAM), params.get(PAGE_PARAM))
    view = (repr(filters), collection.place)  # a store that an ingest writes into stays where it was
    if state.get(_VIEW_KEY) not in (None, view):
        page = 1
    state[_VIEW_KEY] = view
    _warn_unread(unread, (view, str(order), page))
    set_list_view(order, page)
    remember_list_address([(name, value) for name in st.query_params if name not in SESSION_PARAMS
                           for value in st.query_params.get_all(name)])
    return order, page


def _unread(sort: str | None, page: str | None) -> str | None:
    """What of the URL's ``sort`` and ``page`` the list cannot read (``sort`` naming no column
    it sorts on, ``page`` not a whole number from 1), said for a person; None when it reads both."""
    unread = []
    if sort and not SessionOrder.readable(sort):
        unread.append(f"sort={sort} (a column: {', '.join(sorted(SORT_KEYS))}; -time for descending)")
    if page and not (page.strip().lstrip("+").isdigit() and int(page) >= 1):
        unread.append(f"page={page} (a page number, from 1)")
    return "; ".join(unread) or None


def _warn_unread(unread: str | None, view: tuple) -> None:
    """Say what the URL held that the list did not read, and that it took the default, in this
    run and in the runs after it while the list shows the same ``view`` (filters, source, order
    and page): a list that follows its source runs again every second with the default in the
    URL, and the warning once went with that run. A new order, page or filter ends it."""
    state = st.session_state
    if unread:
        state[_UNREAD_KEY] = (view, unread)
    kept = state.get(_UNREAD_KEY)
    if kept and kept[0] == view:
        st.warning(md_escape(f"Not read, the default taken: {kept[1]}."), icon=":material/warning:")
    elif kept:
        del state[_UNREAD_KEY]


def set_list_view(order: SessionOrder, page: int) -> None:
    """Remember the list's order and page in this session and in the URL (both in one change
    of the address, ``write_params``)."""
    st.session_state[_SORT_KEY], st.session_state[_PAGE_KEY] = str(order), page
    write_params({SORT_PARAM: None if order == DEFAULT_ORDER else str(order),
                  PAGE_PARAM: None if page == 1 else str(page)})


def write_params(values: dict[str, str | None]) -> None:
    """Set each of ``values``' URL parameters (None: leave it out) in one change of the address.

    Each change Streamlit makes to ``st.query_params`` is one entry of the browser's history, so
    a header click that wrote the order and then dropped the page left an entry with the new
    order on the old page, a page the person never saw, for Back to land on. The parameters
    left out are dropped from Streamlit's copy without a message of their own, and the one
    message that follows carries the whole address. The names must not be bound to widgets."""
    params = st.query_params
    dropped = [name for name, value in values.items() if value is None and name in params]
    changed = {name: value for name, value in values.items() if value is not None and params.get(name) != value}
    if not dropped and not changed:
        return
    with get_session_state().query_params() as kept:
        for name in dropped:
            kept.discard_param_no_forward_msg(name)
        kept.update(changed)  # one message, whatever was dropped above left out
