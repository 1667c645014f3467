"""Trace health in the app: the session list's Health column and filter, and the session page's
panel of every problem found in the session (each linked to its step).

The column and the filter read the session index's health rows (``analysis.health.index``); the
panel checks the open session itself (``analysis.health.check_sessions``), once per session and
collection. Where the index has the session's row, the panel's title says its counts and the
check runs only once the panel is opened (it reads the whole session again: seconds for a
4,000-step run), as Langfuse and Phoenix run an evaluation on request, never on every view.
Messages quote trace text: they are shown with ``md_escape`` or in a dataframe.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from trace_explorer.analysis.health.finding import Finding
from trace_explorer.analysis.health.checks import check_sessions, counts
from trace_explorer.analysis.health.rules import RULES, SEVERITIES
from trace_explorer.analysis.support.bounded import supports_in_worker
from trace_explorer.model.session import Session
from trace_explorer.index.catalog import indexed as catalog_indexed
from trace_explorer.index.insights import HEALTH_CHOICES, health_of
from trace_explorer.sources.source import SourceError
from trace_explorer.sources.store_source import StoreSource
from trace_explorer.sources.trustgraph.source import TrustGraphSource

from .collection import Collection, supports
from .navigation import page_params
from .text import SESSION_PAGE, md_escape

HEALTH_KEY = "health"  # also the query parameter the list keeps it in
ICONS = {"error": "⛔", "warning": "⚠️", "info": "ℹ️"}
LINKS_PER_PAGE = 25  # problems listed as links at a time in the panel; all of them are in its table
PANEL_KEY = "te_health_panel"  # the panel's open state (it checks the session once opened)


def indexed(collection: Collection) -> bool:
    """Whether the collection's source keeps health rows (a session index)."""
    return catalog_indexed(collection.source)


def health_filter(collection: Collection) -> str | None:
    """The list's Health filter (shown when the source has a session index); its value for
    ``SessionFilter.health``: one of HEALTH_CHOICES, a rule id, or None."""
    if not indexed(collection):
        return None
    options = list(HEALTH_CHOICES) + sorted(RULES)
    # the options as the URL and the command line's --health spell them: a widget bound to the
    # URL writes its option's label there, so a label unlike the value would be a URL the list
    # cannot read back
    return st.selectbox("Health", options, index=None, key=HEALTH_KEY, placeholder="any", bind="query-params",
                        width=170, persist_state="session",
                        help="The worst problem found in the session's trace: errors; warnings (and no error); "
                             "infos (only infos); clean (none); unchecked (not checked yet); or one rule's id.")


def health_cell(row: dict[str, int] | None) -> str:
    """The Health column's text for one session: "⛔ 2 · ⚠️ 1", "ℹ️ 1", "clean", or "unchecked"."""
    if row is None:
        return "unchecked"
    parts = [f"{ICONS[s]} {row[s]}" for s in SEVERITIES if row.get(s)]
    return " · ".join(parts) if parts else "clean"


def with_health(collection: Collection, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The list's rows (``session_summary`` dicts) with ``health`` (``health_cell``) and
    ``health_link`` (the session page at its first problem's step); unchanged without an index."""
    if not indexed(collection):
        return list(rows)
    found = health_of(collection.source.index, [r["id"] for r in rows])
    return [dict(r, health=health_cell(found.get(r["id"]))) for r in rows]


LARGE_STORE_QUADS = 200_000  # above this, the panel does not scan the store for steps nothing reaches


@st.cache_resource(show_spinner=False, max_entries=16)
def _findings(collection_key: tuple, session_id: str, _collection: Collection) -> tuple[list[Finding], bool]:
    """The session's findings, and whether steps that nothing derives from were looked for (on a
    large store that takes a scan of every typed IRI, seconds: the list's Health column and
    ``trace-explorer lint`` include them)."""
    source = _collection.source
    whole = not (isinstance(source, StoreSource) and len(source) > LARGE_STORE_QUADS)
    return check_sessions(source, [session_id], None if whole else {}, supports=supports(_collection)), whole


def _gateway_findings(session: Session, source: TrustGraphSource) -> list[Finding] | None:
    """On a TrustGraph gateway, texts are fetched as steps are shown: the check, which needs
    every text of the session, runs when asked (then it reads them all at once) on what was
    fetched. None while it has not been asked for."""
    state = st.session_state
    key, asked = f"te_health_checked_{session.id}", f"te_health_asked_{session.id}"
    if key not in state and state.pop(asked, False):
        with st.spinner("Fetching every text and checking the trace…"):
            source.fetch_texts(d for node in session.nodes.values() for d in [node.fields.get("document")] if d)
            state[key] = check_sessions(source.fetched_copy(), [session.id], supports=supports_in_worker)
    if key not in state:
        with st.expander("Health: not checked yet", icon=":material/help:"):
            st.caption("The check reads every text of this session from the librarian, then checks "
                       "the trace as fetched from the gateway.")
            st.button("Check this session", key=f"te_health_check_{session.id}",
                      on_click=lambda: state.__setitem__(asked, True))
        return None
    return state[key]


def _checked(session: Session, collection: Collection) -> tuple[list[Finding], bool] | None:
    """``_findings`` of the session with a spinner; None (and a line saying why) when the source fails."""
    try:
        with st.spinner("Checking this session's trace…"):
            return _findings(collection.key, session.id, collection)
    except SourceError as error:
        st.caption(md_escape(f"Health not checked: {error}"))
        return None


def health_panel(session: Session, collection: Collection) -> None:
    """The session page's Health panel: the counts, then every problem once, whole, as a link to
    its step (``?session=…&step=…``; LINKS_PER_PAGE at a time) saying its severity, rule, step
    IRI and message, with the triple it found under it. With the session's row in the index,
    the title comes from it and the session is checked once the panel is opened."""
    row = None
    try:
        if isinstance(collection.source, TrustGraphSource):
            checked = _gateway_findings(session, collection.source)
            if checked is None:
                return
            found, whole = checked, True
        elif indexed(collection) and (row := health_of(collection.source.index, [session.id]).get(session.id)):
            found, whole = [], True
        elif (checked := _checked(session, collection)) is None:
            return
        else:
            found, whole = checked
    except SourceError as error:
        st.caption(md_escape(f"Health not checked: {error}"))
        return
    total = {s: row[s] for s in SEVERITIES} if row is not None else counts(found)
    worst = next((s for s in SEVERITIES if total[s]), None)
    title = "Health: clean" if worst is None else "Health: " + ", ".join(
        f"{total[s]} {s}{'' if total[s] == 1 else 's'}" for s in SEVERITIES if total[s])
    icon = {"error": ":material/error:", "warning": ":material/warning:", "info": ":material/info:"}.get(
        worst, ":material/check_circle:")
    # closed: its title says the counts, the list's column the worst
    panel = st.expander(title, icon=icon, key=PANEL_KEY, on_change="rerun") if row is not None and worst else \
        st.expander(title, icon=icon)
    with panel:
        if row is not None and worst:
            if not panel.open or (checked := _checked(session, collection)) is None:
                return
            found, whole = checked
        if not whole:
            st.caption("On a store this large, steps of this session that no derivation reaches and nothing "
                       "derives from are not looked for here; the list's Health column and `trace-explorer lint` "
                       "include them.")
        if not found:
            st.caption("No problem found: this trace reads as the trace model expects.")
            return
        first = 0
        if len(found) > LINKS_PER_PAGE:
            pages = (len(found) + LINKS_PER_PAGE - 1) // LINKS_PER_PAGE
            page = st.number_input(f"Page of problems (of {pages:,})", 1, pages, 1, key="te_health_page", width=180)
            first = (page - 1) * LINKS_PER_PAGE
        for finding in found[first:first + LINKS_PER_PAGE]:  # each once, whole: the step's IRI, message, triple
            label = f"{ICONS[finding.severity]} {finding.severity} · {finding.rule} · {finding.step or 'the session'}: " \
                    f"{finding.message}"
            target = shown_step(session, finding.step)
            st.page_link(SESSION_PAGE, label=md_escape(label, one_line=True),
                         query_params=page_params({"session": session.id} | ({"step": target} if target else {})),
                         help=md_escape(RULES[finding.rule].finds))
            if finding.triple:
                st.caption(md_escape(f"Triple: {finding.triple}"))


def shown_step(session: Session, node: str | None) -> str | None:
    """The step the page selects for ``node``: itself when it is one of ``session.steps``, else
    the step that points at it or that it derives from (a Thought's Analysis, a selection's Focus);
    None for the session itself or a node of no step."""
    steps = {s.id for s in session.steps}
    if node is None or node in steps:
        return node
    graph = session.graph
    if node in graph:
        near = [u for u, _ in graph.in_edges(node)] + [v for _, v in graph.out_edges(node)]
        return next((n for n in near if n in steps), None)
    return None
