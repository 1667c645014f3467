"""A comparison of two sessions on the compare page: the two sessions, the summary (A against
B, with deltas), the exports, the answers, the aligned rows side by side, the chosen edges and
chunks, and the sub-sessions.

The rows, the answers and the sub-sessions are drawn by ``trace_explorer.export.comparison_page``
(the same HTML as the exported page) through ``st.html``: every trace text in it is
HTML-escaped with its control characters shown, and Streamlit sanitises the result again
(DOMPurify); it holds no script and no link. Other trace text goes through ``md_escape`` or
``st.dataframe``. Rows come a page at a time, so a 2,000-step pair stays light.
"""

from __future__ import annotations

import streamlit as st

from trace_explorer.analysis.compare.compare import SAME, Comparison
from trace_explorer.analysis.compare.summary import row_counts, score_text, selection_text, session_kind
from trace_explorer.analysis.compare.diffs import delta_text
from trace_explorer.analysis.compare.selections import Split
from trace_explorer.export.comparison_markdown import comparison_markdown
from trace_explorer.export.comparison_page import (COMPARISON_CSS, answer_html, comparison_body, comparison_page,
                                                   rows_table)
from trace_explorer.views.visible_text import visible_controls

from ..session.downloads import file_stem
from ..text import md_escape

ROWS_PER_PAGE = 100
FILTER_KEY = "te_compare_filter"
PAGE_KEY = "te_compare_page"
ALL_ROWS, DIFFERENCES = "All rows", "Differences only"
# (totals key, label, a rise is bad): the metrics on top.
METRICS = (("steps", "Steps", None), ("tool_calls", "Tool calls", None), ("errors", "Tool errors", True),
           ("tokens", "Tokens", True), ("time_ms", "Time (LLM + tools)", True))


def comparison_view(comparison: Comparison) -> None:
    """Draw the whole comparison (see the module docstring)."""
    _sessions(comparison)
    _summary(comparison)
    _exports(comparison)
    st.markdown(f"##### Answer ({'same' if comparison.answer_same else 'changed'})", anchors=False)
    st.html(f"<style>{COMPARISON_CSS}</style><div class='cmp'>{answer_html(comparison)}</div>")
    _rows(comparison)
    for name, split in (("Edges", comparison.edges), ("Chunks", comparison.chunks)):
        if split.only_a or split.only_b or split.both:
            _split(name, split)
    if comparison.children:
        st.markdown(f"##### Sub-sessions ({len(comparison.children):,})", anchors=False)
        for number, child in enumerate(comparison.children, 1):
            inner = child.comparison
            question = (inner.a or inner.b).question or "(no question)"
            with st.expander(md_escape(f"{number}. {question} — {row_counts(inner)}", one_line=True)):
                st.html(f"<style>{COMPARISON_CSS}</style>" + comparison_body(inner, level=5))


def _sessions(comparison: Comparison) -> None:
    left, right = st.columns(2, gap="medium")
    for column, side, session in ((left, "A", comparison.a), (right, "B", comparison.b)):
        with column, st.container(border=True):
            st.markdown(f"**{side}** · {md_escape(session_kind(session))}" if session else f"**{side}**")
            st.markdown("#### " + md_escape(session.question or "(no question)", one_line=True), anchors=False)
            st.code(session.id, language=None, wrap_lines=True)


def _summary(comparison: Comparison) -> None:
    metrics = st.container(horizontal=True, gap="small")
    totals_a, totals_b = comparison.totals_a or {}, comparison.totals_b or {}
    with metrics:
        for key, label, rise_is_bad in METRICS:
            a, b = totals_a.get(key), totals_b.get(key)
            unit = " ms" if key.endswith("_ms") else ""
            shown = f"{_number(a)}{unit if a is not None else ''} → {_number(b)}{unit if b is not None else ''}"
            delta = delta_text(key, b - a) if isinstance(a, int) and isinstance(b, int) and a != b else None
            # st.metric reads the sign from an ASCII minus
            st.metric(f"{label} (A → B)", shown, delta=delta.replace("−", "-") if delta else None,
                      delta_color="off" if rise_is_bad is None else "inverse", border=True)
    st.caption(f"Rows: {row_counts(comparison)}. Totals count each session with its sub-sessions.")


def _exports(comparison: Comparison) -> None:
    stem = f"compare-{file_stem(comparison.a.id)[8:]}-{file_stem(comparison.b.id)[8:]}"
    row = st.container(horizontal=True, gap="small")
    with row:
        st.download_button("Markdown", lambda: comparison_markdown(comparison).encode("utf-8"),
                           file_name=f"{stem}.md", mime="text/markdown", icon=":material/download:",
                           key="te_compare_dl_markdown", on_click="ignore")
        st.download_button("HTML page", lambda: comparison_page(comparison).encode("utf-8"),
                           file_name=f"{stem}.html", mime="text/html", icon=":material/download:",
                           key="te_compare_dl_html", on_click="ignore")


def _rows(comparison: Comparison) -> None:
    st.markdown("##### Steps, side by side", anchors=False)
    shown = st.segmented_control("Rows", [ALL_ROWS, DIFFERENCES], default=ALL_ROWS, key=FILTER_KEY,
                                 label_visibility="collapsed")
    numbered = list(enumerate(comparison.rows, 1))
    if shown == DIFFERENCES:
        numbered = [(n, r) for n, r in numbered if r.status != SAME]
    if not numbered:
        st.info("Every step is the same on both sides.", icon=":material/check:")
        return
    pages = (len(numbered) + ROWS_PER_PAGE - 1) // ROWS_PER_PAGE
    page = 0
    if pages > 1:
        st.session_state[PAGE_KEY] = min(max(st.session_state.get(PAGE_KEY, 1), 1), pages)
        page = st.number_input(f"Page of rows (of {pages:,}, {ROWS_PER_PAGE} each)", 1, pages, key=PAGE_KEY,
                               width=240) - 1
    chunk = numbered[page * ROWS_PER_PAGE:(page + 1) * ROWS_PER_PAGE]
    legend = ("<p class='hint'>Words only in A are <del>struck through</del>, words only in B "
              "<ins>underlined</ins>; “—” is a value not recorded.</p>")
    tables = []
    for number, row in chunk:  # consecutive numbers share a table; a gap (filtered rows) starts another
        if tables and tables[-1][0] + len(tables[-1][1]) == number:
            tables[-1][1].append(row)
        else:
            tables.append((number, [row]))
    body = "".join(rows_table(rows, first) for first, rows in tables)
    st.html(f"<style>{COMPARISON_CSS}</style><div class='cmp steps'>{legend}{body}</div>")


def _split(name: str, split: Split) -> None:
    st.markdown(f"##### Chosen {name.lower()}: {len(split.both):,} in both, {len(split.only_a):,} only in A, "
                f"{len(split.only_b):,} only in B", anchors=False)
    def row(where: str, key, scores=(None, None)) -> dict[str, str]:
        shown = score_text(*scores) if scores != (None, None) else ""
        return {"In": where, name[:-1]: visible_controls(selection_text(key)), "Score A → B": shown}
    rows = [row("both", k, scores) for k, scores in zip(split.both, split.both_scores)]
    rows += [row("only A", k) for k in split.only_a] + [row("only B", k) for k in split.only_b]
    st.dataframe(rows, hide_index=True, width="stretch")


def _number(value) -> str:
    return "—" if value is None else f"{value:,}"

