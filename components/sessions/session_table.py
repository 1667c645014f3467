"""The session list as a table: a row per session, a click on it opens the session, a header
sorts the whole list on the source, tick boxes select several sessions.

Drawn by an ``st.components.v2`` component (``session_table_assets``: no iframe, inline CSS and
JavaScript, trace text set as text only). Columns: a tick box; the session's short id (the
first characters of its UUID; the full IRI in the tooltip, a button copies it; sub-sessions
marked ↳ and indented); the question with the answer's first words under it (and, under a
search, where its words were found, marked); type and pattern;
time; duration (LLM + tool) and tokens, with the sub-sessions' (docs/reading-traces.md, "Totals"; the session's own
under them when they differ); steps; tool errors; status; when sub-sessions are
listed, the parent session; health; and the labels of its reviews (``reviews.list_filter``). Rows are ``model.summary.session_summary`` dicts: a new column is a
new key there and an entry in ``COLUMNS``.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from trace_explorer.model.roots import session_id
from trace_explorer.model.totals import TOTAL_PREFIX
from trace_explorer.sources.filter import SORT_KEYS, SessionOrder
from trace_explorer.index.words import snippet_parts
from trace_explorer.views.visible_text import visible_controls

from ..reviews.list_filter import with_review_figures
from .session_table_assets import CSS, JS
from ..text import counted, format_ms

QUESTION_LIMIT = 500  # characters of a question in a row (the search sees all of it)
TITLE_LIMIT = 2000  # characters of a question in its tooltip
SHORT_ID = 8  # characters of a UUID shown as the session's id (as git shows a commit)


@dataclass(frozen=True)
class Column:
    """A column of the table: ``key`` (what the front end draws), ``label``, ``sort`` (the
    ``filter.SORT_KEYS`` key its header sorts on, or None), ``numeric`` (right-aligned) and
    ``help`` (the header's tooltip)."""

    key: str
    label: str
    sort: str | None = None
    numeric: bool = False
    help: str = ""


COLUMNS = (
    Column("tick", ""),
    Column("session", "Session", "id", help="The session's id: the first characters of its UUID (the full IRI in the tooltip)"),
    Column("question", "Question / answer", "question", help="The question, and the first words of the answer"),
    Column("type", "Type", "type", help="The mechanism (Agent, GraphRAG, DocRAG) and an agent's pattern"),
    Column("time", "Time (UTC)", "time", help="When the question was asked (prov:startedAtTime)"),
    Column("duration", "Duration", "duration", True, "LLM time + tool time recorded by the steps, with the "
                                                     "sub-sessions' (the session's own under it)"),
    Column("tokens", "Tokens", "tokens", True, "Tokens in + out recorded by the steps, with the sub-sessions' "
                                               "(the session's own under it)"),
    Column("steps", "Steps", "steps", True, "Steps of the session"),
    Column("errors", "Errors", "tool_errors", True, "Failed tool calls"),
    Column("status", "Status", "status", help="answered: the session reached its answer; running: no answer yet, "
           "while the list follows its source"),
    Column("parent", "Parent", "parent", help="The session whose step started this sub-session"),
    Column("health", "Health", help="Problems found in the session's trace: ⛔ errors, ⚠️ warnings, ℹ️ infos "
                                    "(the session page's Health panel lists them)"),
    Column("review", "Review", help="The labels of the session's reviews (of it or any part of it), how many "
                                    "carry each, ⚠ where reviewers disagree; hover for who gave them"),
)


@dataclass
class TableEvent:
    """What the user did in the table in this run: ``open`` (an IRI to open), ``selected`` (the
    IRIs ticked, in this run and before). A header clicked goes to ``session_table``'s ``on_sort``."""

    open: str | None = None
    selected: list[str] = field(default_factory=list)


def short_id(iri: str) -> str:
    """How the table names a session: the first ``SHORT_ID`` characters of its UUID
    (``urn:trustgraph:agent:62c33a4f-…`` -> ``62c33a4f``); for an IRI of another shape its last
    segment, cut to 18 characters."""
    tail = session_id(iri)
    if tail == iri:
        tail = iri.rstrip("/#:").rsplit("/", 1)[-1].rsplit("#", 1)[-1].rsplit(":", 1)[-1] or iri
    head = tail.split("-", 1)[0]
    if len(head) == SHORT_ID and "-" in tail:
        return head
    return tail if len(tail) <= 18 else tail[:17] + "…"


def session_href(iri: str, source_query: Sequence[tuple[str, str]] = ()) -> str:
    """The session page's link (relative to the app's root) for session ``iri``, with the query
    parameters that name its source (``source_picker.source_query``) first: a link opened in a
    new tab (Ctrl-click, middle click) starts a browser session that knows no source but its
    address's."""
    return "session?" + urllib.parse.urlencode([*source_query, ("session", iri)], quote_via=urllib.parse.quote,
                                                safe="")


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _count(value: int | None, one: str, many: str) -> str | None:
    return None if value is None else counted(value, one, many)


def _own(own: int | None, total: int | None, form) -> str | None:
    """"780 own" under a total that counts sub-sessions too (None when they are the same)."""
    if total is None or own == total:
        return None
    return f"{form(own) if own is not None else '—'} own"


def _figure_title(s: dict[str, Any], first: str, second: str, words: str, form, missing: str) -> str:
    """A figure's tooltip: its two parts, the session's own and, when sub-sessions add to them,
    with its sub-sessions ("1,200 in, 90 out; with 2 sub-sessions: 11,672 in, 1,661 out")."""
    def parts(prefix: str) -> str | None:
        a, b = s.get(prefix + first), s.get(prefix + second)
        return None if a is None and b is None else words.format(form(a or 0), form(b or 0))
    own, total = parts(""), parts(TOTAL_PREFIX)
    subs = s.get("sub_sessions") or 0
    if total is None:
        return missing
    if not subs or total == own:
        return own or total
    return f"{own or 'none'} own; with {counted(subs, 'sub-session', 'sub-sessions')}: {total}"


def table_rows(summaries: Iterable[dict[str, Any]],
               source_query: Sequence[tuple[str, str]] = ()) -> list[dict[str, Any]]:
    """The rows the table draws, one per session summary, in the given order: every value a
    display string (trace text with its control characters shown: ``visible_controls``); each
    session's link carries ``source_query`` (``session_href``)."""
    rows = []
    for s in summaries:
        question = visible_controls(s.get("question") or "")
        answer = s.get("answer_preview")
        time = s.get("time") or ""
        # with its sub-sessions (docs/reading-traces.md, "Totals"): what the list sorts on; its own figure under it
        duration, tokens = s.get("total_duration_ms", s.get("duration_ms")), s.get("total_tokens", s.get("tokens"))
        own_duration, own_tokens = s.get("duration_ms"), s.get("tokens")
        errors = s.get("tool_errors") or 0
        children = len(s.get("children") or [])
        parent = s.get("parent_session")
        figures = [format_ms(duration) if duration is not None else None, _count(tokens, "token", "tokens"),
                   _count(s.get("step_count"), "step", "steps"), _count(errors or None, "tool error", "tool errors"),
                   _count(s.get("parse_errors") or None, "unparsed model reply", "unparsed model replies")]
        rows.append({
            "id": s["id"],
            "short": short_id(s["id"]),
            "href": session_href(s["id"], source_query),
            "sub": s.get("parent") is not None,
            "children": _count(children or None, "sub-session", "sub-sessions"),
            "question": _clip(question, QUESTION_LIMIT),
            "question_title": _clip(question, TITLE_LIMIT),
            "answer": visible_controls(answer) if answer else None,
            "no_answer": "answer text not loaded" if s.get("has_answer") else "no answer",
            "type": s.get("type") or "",
            "pattern": s.get("pattern") or "",
            "date": time[:10],
            "clock": f"{time[11:19]} UTC" if len(time) >= 19 else "",
            "duration": format_ms(duration) if duration is not None else "—",
            "duration_own": _own(own_duration, duration, format_ms),
            "duration_title": _figure_title(s, "llm_ms", "tool_ms", "LLM {} + tools {}", format_ms,
                                            "no duration recorded"),
            "tokens": f"{tokens:,}" if tokens is not None else "—",
            "tokens_own": _own(own_tokens, tokens, lambda v: f"{v:,}"),
            "tokens_title": _figure_title(s, "tokens_in", "tokens_out", "{} in, {} out", lambda v: f"{v:,}",
                                          "no tokens recorded"),
            "steps": f"{s.get('step_count', 0):,}",
            "errors": errors,
            "status": s.get("status") or "",
            "parent_id": parent,
            "parent_short": short_id(parent) if parent else None,
            "parent_href": session_href(parent, source_query) if parent else None,
            "figures": " · ".join(f for f in figures if f),
            "health": s.get("health"),
            "new": bool(s.get("new")),
            "review": s.get("review"),
            "review_title": s.get("review_title"),
            **_match(s.get("match")),
        })
    return rows


def _match(found: dict | None) -> dict[str, Any]:
    """A row's search match (``session_index``'s ``match``) as the table draws it: ``match_field``
    and ``match`` pieces ``[text, found]``, each text with its control characters shown (the
    front end sets them as text and marks the found ones with ``<mark>``)."""
    if not found or not found.get("snippet"):
        return {}
    parts = [[visible_controls(re.sub(r"\s+", " ", text)), hit] for text, hit in snippet_parts(found["snippet"])]
    return {"match_field": found.get("field") or "", "match": [p for p in parts if p[0]]}


def table_columns(rows: Sequence[dict[str, Any]], sortable: Iterable[str],
                  sub_sessions: bool = False) -> list[dict[str, Any]]:
    """The columns drawn for ``rows``: the Parent column when sub-sessions are listed
    (``sub_sessions``: on every page, so that its header sorts from any) or a row is one, the
    Health column only when the rows say (``components.health.with_health``); a header sorts only on a key the source can sort on (``sortable``), else it says so."""
    sortable = set(sortable)
    out = []
    for column in COLUMNS:
        if column.key == "parent" and not sub_sessions and not any(r["parent_id"] for r in rows):
            continue
        if column.key == "health" and not any(r["health"] for r in rows):
            continue  # a source that keeps no health rows
        if column.key == "review" and not any(r.get("review") for r in rows):
            continue  # rows the review store was not asked about
        can = column.sort in sortable
        help_text = column.help if can or column.sort is None else f"{column.help} (this source cannot sort on it)"
        out.append({"key": column.key, "label": column.label, "sort": column.sort if can else None,
                    "numeric": column.numeric, "help": help_text})
    return out


_TABLE: Callable[..., Any] | None = None


def _component() -> Callable[..., Any]:
    global _TABLE
    if _TABLE is None:
        _TABLE = st.components.v2.component("trace_explorer.session_table", css=CSS, js=JS)
    return _TABLE


def _ignore() -> None:
    """An event read from the component's result in the run it starts."""


def selected_sessions(key: str) -> list[str]:
    """The IRIs ticked in the table ``key`` (this person's session), in the order ticked."""
    state = st.session_state.get(key)
    chosen = state.get("selected") if hasattr(state, "get") else None
    return [i for i in chosen or [] if isinstance(i, str)]


def asked_order(clicked: object) -> SessionOrder | None:
    """The order a click on a header asks for, from the table's ``sort`` trigger (``{"key":
    header's sort key, "shown": the order shown then, as in the URL}``): the other direction of
    the order shown when it is on that key, else the key in its default direction; None for any
    other value (a key that is not a ``SORT_KEYS`` key among them). The same click read twice asks for the same order."""
    if not isinstance(clicked, dict) or not isinstance(clicked.get("key"), str) or clicked["key"] not in SORT_KEYS:
        return None
    shown = clicked.get("shown")
    return SessionOrder.parse(shown if isinstance(shown, str) else None).toggled(clicked["key"])


def session_table(summaries: Sequence[dict[str, Any]], order: SessionOrder, sortable: Iterable[str],
                  key: str, on_sort: Callable[[SessionOrder], None] | None = None,
                  source_query: Sequence[tuple[str, str]] = (), sub_sessions: bool = False) -> TableEvent:
    """Draw the session summaries; return what the user did in this run (``TableEvent``).
    ``source_query``: the query parameters naming the source, carried by each session's link;
    ``sub_sessions``: the list holds sub-sessions (its Parent column then on every page).
    ``order``: the list's order (the header it names shows an arrow); ``sortable``: the sort
    keys the source can sort on; ``on_sort(order)``: called, before the run that follows a click
    on a header, with the order it asks for: the other direction of the order the table showed
    when its header was clicked, else the header's key in its default direction. It is worked
    out from what the click saw, never from the order of the latest run, so that a click
    delivered twice (a run asked for every second while following carries the widgets' values
    too) sorts once instead of twice."""
    rows = with_review_figures(table_rows(summaries, source_query))

    def sorted_by() -> None:
        state = st.session_state.get(key)
        asked = asked_order(state.get("sort") if hasattr(state, "get") else None)
        if on_sort is not None and asked is not None:
            on_sort(asked)

    selected = selected_sessions(key)
    result = _component()(
        key=key,
        data={"rows": rows, "columns": table_columns(rows, sortable, sub_sessions), "label": "Sessions",
              "sort": {"key": order.key, "descending": order.descending}, "selected": selected},
        default={"selected": []},
        on_open_change=_ignore, on_sort_change=sorted_by, on_selected_change=_ignore,
    )
    opened = result.get("open") if result is not None else None
    return TableEvent(open=opened if isinstance(opened, str) else None, selected=selected)
