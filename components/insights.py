"""The Insights page's parts: the filters it shares with the session list, the numbers of the
sessions they select (``analysis.stats``) and a chart per question, each with its PNG and CSV.

A click on a bar filters the session list by what the bar stands for (a mechanism and pattern, a
tool, a model, a termination reason) and opens it. Those filters live in the list's URL
(``?tool=…``, ``?model=…``, ``?termination=…``) beside its own, each shown as a button that
removes it.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

from trace_explorer.analysis.stats import collection_stats
from trace_explorer.sources.filter import SessionFilter
from trace_explorer.views.insight_charts import FAILED, PICK, InsightChart, chart_png, insight_charts

from .collection import Collection
from .health import HEALTH_KEY
from .navigation import open_page
from .reviews.list_filter import review_fields, review_filter_from_state, review_params, review_words
from .sessions.filter_values import BOUND_PARAMS, filter_choices, known_values, warn_left_out
from .text import SESSIONS_PAGE, md_escape

# The query parameters (and the widget keys) the charts set: SessionFilter field -> parameter.
CLICK_KEYS = {"tool": "tool", "failed_tool": "failed_tool", "model": "model", "termination": "termination"}
_LAST_KEY = "te_list_insight_filters"  # the list's chart filters, as last shown (for this page)
_NAMES = {"tool": "Tool", "failed_tool": "Failed tool", "model": "Model", "termination": "Termination"}


def insight_filters() -> dict[str, str | None]:
    """The filters a chart click set (``SessionFilter`` fields ``tool``, ``model``,
    ``termination``), each shown as a button that removes it."""
    chosen = {field: st.query_params.get(key) or None for field, key in CLICK_KEYS.items()}
    st.session_state[_LAST_KEY] = chosen
    active = {f: v for f, v in chosen.items() if v}
    if active:
        row = st.container(horizontal=True, gap="small", vertical_alignment="center")
        with row:
            for field, value in active.items():
                st.button(md_escape(f"{_NAMES[field]}: {value}", one_line=True), icon=":material/close:",
                          key=f"te_clear_{field}", type="secondary", on_click=_clear, args=(CLICK_KEYS[field],),
                          help="Remove this filter (set from the Insights page)")
    return chosen


def _clear(param: str) -> None:
    st.query_params.pop(param, None)


def _names_filters() -> bool:
    """Whether the page's URL names any of the list's filters (``BOUND_PARAMS``) or a chart's
    (``CLICK_KEYS``)."""
    return any(name in st.query_params for name in (*BOUND_PARAMS, *CLICK_KEYS.values()))


def current_filter(collection: Collection) -> SessionFilter:
    """The filter the session list shows now: the one the page's URL gives when it names any
    (a link to ``/insights?type=Agent``, or the page opened from the list, whose parameters
    the navigation carries), else the list's widgets' values, which they keep for the session
    (``components.sessions.list_state`` names them). A value the list does not know is left out, any
    case taken, as the list takes it (``filter_values``), and named in a warning."""
    params = st.query_params
    if not _names_filters():
        state = st.session_state
        return SessionFilter(mechanism=tuple(state.get("type") or ()), pattern=tuple(state.get("pattern") or ()),
                             status=state.get("status"), text=(state.get("q") or "").strip() or None,
                             include_sub=bool(state.get("sub")), health=state.get(HEALTH_KEY),
                             **(state.get(_LAST_KEY) or {}),
                             **review_fields(review_filter_from_state(collection, state)))
    chosen, unknown = {}, []
    for name, options in filter_choices(collection).items():
        chosen[name], left_out = known_values(params.get_all(name), options)
        unknown += [f"{name}={value}" for value in left_out]
    warn_left_out(unknown)
    return SessionFilter(mechanism=tuple(chosen["type"]), pattern=tuple(chosen["pattern"]),
                         status=(chosen["status"] or [None])[0], text=(params.get("q") or "").strip() or None,
                         include_sub=(params.get("sub") or "").lower() == "true",
                         health=(chosen.get(HEALTH_KEY) or [None])[0],
                         **{field: params.get(key) or None for field, key in CLICK_KEYS.items()},
                         **review_fields(review_filter_from_state(collection, params)))


def name_in_address(filters: SessionFilter) -> None:
    """Write ``filters`` into the page's URL when it names none (the page opened from the
    sidebar, its filters the list's), so that the address, copied or reloaded, counts the same
    sessions."""
    if _names_filters():
        return
    params = st.query_params
    for name, value in filter_params(filters).items():
        try:
            params[name] = value
        except StreamlitAPIException:  # bound to the list's filter in this run: left to it
            return


def describe(filters: SessionFilter) -> str:
    """The filter in words ("top-level sessions with their sub-sessions' calls · Agent · tool
    calculator")."""
    # a session's calls hold its sub-sessions' either way (docs/reading-traces.md, "Totals")
    parts = ["every session" if filters.include_sub else "top-level sessions with their sub-sessions' calls"]
    parts += [", ".join(filters.mechanisms)] if filters.mechanisms else []
    parts += [", ".join(filters.patterns)] if filters.patterns else []
    parts += [filters.status] if filters.status else []
    parts += [f"“{filters.needle}”"] if filters.needle else []
    parts += [f"{name.lower()} {getattr(filters, field)}" for field, name in _NAMES.items() if getattr(filters, field)]
    parts += [f"health {filters.health}"] if filters.health else []
    parts += [review_words(getattr(filters, "reviews", None))] if getattr(filters, "reviews", None) else []
    return " · ".join(parts)


@st.cache_data(show_spinner=False, max_entries=64, ttl=600)
def _numbers(collection_key: tuple, filters_key: str, _collection: Collection, _filters: SessionFilter) -> dict[str, Any]:
    return collection_stats(_collection.source, _filters)


def numbers_of(collection: Collection, filters: SessionFilter) -> dict[str, Any]:
    """``collection_stats`` of the collection under ``filters`` (kept per collection and filter)."""
    return _numbers(collection.key, repr(filters), collection, filters)


def headline(numbers: dict[str, Any]) -> None:
    """A row of metrics: sessions, tool calls, tool errors, LLM calls, model replies that could
    not be parsed (when there are any: not tool calls), tokens."""
    calls = sum(t["calls"] for t in numbers["tools"].values())
    errors = sum(t["errors"] for t in numbers["tools"].values())
    llm = sum(t["calls"] for t in numbers["tokens"].values())
    tokens_in = sum(t["in"] for t in numbers["tokens"].values())
    tokens_out = sum(t["out"] for t in numbers["tokens"].values())
    row = st.container(horizontal=True, gap="small")
    with row:
        for label, value in (("Sessions", f"{numbers['sessions']:,}"), ("Steps", f"{numbers['steps']['total']:,}"),
                             ("Tool calls", f"{calls:,}"),
                             ("Tool errors", f"{errors:,}" + (f" ({100 * errors / calls:.1f}%)" if calls else "")),
                             ("LLM calls", f"{llm:,}"), ("Tokens in / out", f"{tokens_in:,} / {tokens_out:,}")):
            st.metric(label, value, border=True, width="content")
        if numbers.get("parse_errors"):
            st.metric("Unparsed replies", f"{numbers['parse_errors']:,}", border=True, width="content",
                      help="Replies of the model the agent could not parse: LLM calls, not tool calls")


# Streamlit draws a chart whose script is still loading (its Vega bundle, fetched on first use:
# 2-5 s on a cold browser) as a grey skeleton; this gives that skeleton a chart's height and
# says in words that the chart is on its way, so no grey box passes for a drawn page.
_LOADING_STYLE = """<style>
.stPrintGraphic > [data-testid="stSkeleton"], [class*="st-key-te_insight_"] > [data-testid="stSkeleton"] {
  height: 240px; display: flex; align-items: center; justify-content: center; }
.stPrintGraphic > [data-testid="stSkeleton"]::after, [class*="st-key-te_insight_"] > [data-testid="stSkeleton"]::after {
  content: "Drawing the chart…"; font-size: 14px; color: #475569; }
</style>"""


def loading_words() -> None:
    """Make every chart still loading say so (``_LOADING_STYLE``). Called first on the page so
    the style arrives as early as it can: Streamlit fetches st.html's own script on first use
    too, so on a cold browser a chart's skeleton can stay bare for a few tenths of a second."""
    st.html(_LOADING_STYLE)


def chart_grid(numbers: dict[str, Any], filters: SessionFilter) -> None:
    """Every chart of the sessions ``filters`` chose, two to a row, each with its downloads; a
    click on a bar opens the list of those sessions with the bar's filter too."""
    charts = insight_charts(numbers)
    for start in range(0, len(charts), 2):
        for column, chart in zip(st.columns(2, gap="medium"), charts[start:start + 2]):
            with column, st.container(border=True):
                draw_chart(chart, filters)


def draw_chart(chart: InsightChart, filters: SessionFilter) -> None:
    """One chart in its box: its title, the chart (a click on a bar of a chart that filters
    opens the list with that filter too), its PNG and CSV."""
    st.markdown(f"**{md_escape(chart.title)}**")
    if chart.data.empty:
        st.caption("Nothing to draw for these sessions.")
        return
    key = f"te_insight_{chart.key}"
    if chart.filter_field:
        event = st.altair_chart(chart.chart, key=key, on_select="rerun", selection_mode=PICK, width="stretch")
        picked = (event.selection or {}).get(PICK) if event is not None else None
        if picked:
            open_page(SESSIONS_PAGE, list_params(chart.filter_field, picked[0], filters))
    else:
        st.altair_chart(chart.chart, key=key, width="stretch")
    buttons = st.container(horizontal=True, gap="small")
    with buttons:
        st.download_button("PNG", partial(chart_png, chart.chart), file_name=f"{chart.key}.png", mime="image/png",
                           key=f"{key}_png", icon=":material/image:", on_click="ignore", type="tertiary")
        st.download_button("CSV", chart.data.to_csv(index=False).encode("utf-8"), file_name=f"{chart.key}.csv",
                           mime="text/csv", key=f"{key}_csv", icon=":material/table:", on_click="ignore",
                           type="tertiary")
    if chart.filter_field:
        st.caption("Click a bar to list those sessions.")


def filter_params(filters: SessionFilter) -> dict[str, str | list[str]]:
    """The session list's URL parameters that choose ``filters`` (``list_state`` names them;
    none at its default): what a link from Insights to the list carries, so that it lists the
    sessions counted whether the filters came from the list or from Insights' own address."""
    params: dict[str, str | list[str]] = {}
    if filters.mechanisms:
        params["type"] = list(filters.mechanisms)
    if filters.patterns:
        params["pattern"] = list(filters.patterns)
    if filters.status:
        params["status"] = filters.status
    if filters.text:
        params["q"] = filters.text
    if filters.include_sub:
        params["sub"] = "true"
    if filters.health:
        params[HEALTH_KEY] = filters.health
    params.update(review_params(getattr(filters, "reviews", None)))
    for field, key in CLICK_KEYS.items():
        if getattr(filters, field):
            params[key] = getattr(filters, field)
    return params


def list_params(field: str, picked: dict[str, Any], filters: SessionFilter = SessionFilter()
                ) -> dict[str, str | list[str]]:
    """The session list's URL parameters for a click on a bar of a chart filtering by ``field``
    (``picked``: the selection's fields) of the sessions ``filters`` chose (``filter_params``):
    a mechanism and pattern (in place of the chosen ones); a tool (its red "failed" part: the
    sessions where that tool failed, ``failed_tool``); a model; a termination reason."""
    params = filter_params(filters)
    if field == "mechanism":
        if picked.get("mechanism"):
            params.pop("pattern", None)
            params["type"] = str(picked["mechanism"])
            if picked.get("pattern"):
                params["pattern"] = str(picked["pattern"])
    elif field == "tool" and picked.get("outcome") == FAILED and picked.get("tool") is not None:
        params[CLICK_KEYS["failed_tool"]] = str(picked["tool"])
    elif picked.get(field) is not None:
        params[CLICK_KEYS[field]] = str(picked[field])
    return params
