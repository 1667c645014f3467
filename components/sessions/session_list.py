"""The session list under its filters: what matches, the table of one page, the pages, and what
to do when there is nothing to show (a source not connected, an empty source, no match)."""

from __future__ import annotations

import streamlit as st

from trace_explorer.index.catalog import SessionFilter, SessionOrder, sort_keys, unreached_sessions
from trace_explorer.sources.source import SourceError

from ..collection import Collection
from ..compare.compare_picker import compare_ticked
from ..session.downloads import matching_sessions, session_list_downloads
from ..health import with_health
from .list_state import set_list_view
from .live_list import LiveList, failure_note, live_rows, seen
from ..navigation import open_page
from ..reviews.list_filter import with_reviews
from .session_table import session_table
from ..sidebar.source_picker import source_query
from ..text import SESSION_PAGE, counted, md_escape

PAGE_SIZE = 50
TABLE_KEY = "session_table"


def _order_words(order: SessionOrder) -> str:
    if order.key == "time":
        return "newest first" if order.descending else "oldest first"
    return f"by {order.key.replace('_', ' ')}, {'highest' if order.descending else 'lowest'} first" \
        if order.key in ("duration", "tokens", "steps", "tool_errors") else \
        f"by {order.key}, {'Z to A' if order.descending else 'A to Z'}"


_NO_SESSIONS = {  # by the kind of source (``Collection.key[0]``)
    "files": "No sessions in these files. Add trace files in the sidebar (Source and files), switch the demo traces back on, "
             "or choose another source.",
    "store": "No sessions in this store yet. Add trace files to it in the sidebar, or with "
             "`trace-explorer ingest FILE... --store DIR`, or choose another source.",
    None: "No sessions in this source. Choose another source in the sidebar.",
}


def session_list(collection: Collection, filters: SessionFilter, order: SessionOrder, page: int,
                 live: LiveList | None = None) -> None:
    """Draw the list of ``collection`` under ``filters``, in ``order``, page ``page`` (from 1);
    ``live``: what following the source found (``live_list``), None when not following."""
    failure_note(live)
    if collection.empty_state:
        st.info(md_escape(collection.empty_state), icon=":material/link_off:")
        return
    try:
        everything = collection.count("sessions" if filters.include_sub else "top")
        unreached = 0 if filters.include_sub else unreached_sessions(collection.source)
        if not everything and not unreached:
            st.info(_NO_SESSIONS.get(collection.key[0], _NO_SESSIONS[None]), icon=":material/info:")
            return
        shown = collection.page(filters, PAGE_SIZE, (page - 1) * PAGE_SIZE, order)
        pages = max(1, (shown.total + PAGE_SIZE - 1) // PAGE_SIZE)
        if page > pages:  # a link to a page past the end: its last page
            page = pages
            set_list_view(order, page)
            shown = collection.page(filters, PAGE_SIZE, (page - 1) * PAGE_SIZE, order)
    except SourceError as error:
        st.error(md_escape(str(error)), icon=":material/error:")
        return

    scope = "session" if filters.include_sub else "top-level session"
    first, last = shown.offset + 1, shown.offset + len(shown.rows)
    matched = f"{first:,}–{last:,} of {shown.total:,}" if shown.rows else f"0 of {shown.total:,}"
    st.caption(f"{matched} matching · {counted(everything, scope)} in all · {_order_words(order)} · "
               "click a row to open it, a header to sort every page")
    if unreached:
        st.caption(f"{counted(unreached, 'sub-session')} below a session not in this source "
                   f"{'is' if unreached == 1 else 'are'} not listed here: Show sub-sessions lists "
                   f"{'it' if unreached == 1 else 'them'}.")
    for note in (filters.wordless_note, filters.capped_note):  # "!!!": nothing searched; a long search: cut
        if note:
            st.caption(md_escape(note[:1].upper() + note[1:] + ".", one_line=True))
    session_list_downloads(matching_sessions(collection, filters, order), shown.total)
    if not shown.rows:
        st.info("No session matches these filters.", icon=":material/filter_alt_off:")
        return

    new = [r["id"] for r in shown.rows if live is not None and r["id"] in live.new]
    # always there, empty or not: an element put before the table would draw it anew, and the
    # page, shorter for a moment, would lose its scroll position
    marked = st.container(horizontal=True, vertical_alignment="center", gap="small")
    if new:
        marked.caption(f"{counted(len(new), 'new session')} on this page, marked new until opened")
        marked.button("Mark as seen", key="te_list_seen", icon=":material/done_all:", on_click=seen, args=(live, new))
    event = session_table(live_rows(with_reviews(collection, with_health(collection, shown.rows)), live), order, sort_keys(collection.source), key=TABLE_KEY,
                          on_sort=lambda chosen: set_list_view(chosen, 1), source_query=source_query(),
                          sub_sessions=filters.include_sub)
    if event.open:
        if live is not None:
            seen(live, [event.open])
        open_page(SESSION_PAGE, {"session": event.open})
    compare_ticked(event.selected)
    if pages > 1:
        _pager(order, page, pages)


def _pager(order: SessionOrder, page: int, pages: int) -> None:
    """Previous, "page N of M", Next. Each button's key names the page it was drawn on
    (``te_list_next_2`` on page 2, in a container keyed ``te_list_next``): a click delivered a
    second time (a run asked for every second while the list follows carries it again) then
    finds no button of its key on the next page and is dropped, where a button with one key for
    every page took it as a click on the new page's Next and moved on twice."""
    nav = st.container(horizontal=True, vertical_alignment="center", gap="small")
    with nav:
        with st.container(key="te_list_previous", width="content"):
            st.button("Previous", icon=":material/chevron_left:", disabled=page == 1, key=f"te_list_previous_{page}",
                      on_click=set_list_view, args=(order, page - 1))
        st.caption(f"page {page:,} of {pages:,}")
        with st.container(key="te_list_next", width="content"):
            st.button("Next", icon=":material/chevron_right:", disabled=page >= pages, key=f"te_list_next_{page}",
                      on_click=set_list_view, args=(order, page + 1))
