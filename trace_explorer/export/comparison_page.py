"""A comparison of two sessions as HTML: a self-contained page (``comparison_page``) and the
pieces the app shows of it (``rows_table``, ``answer_html``, ``COMPARISON_CSS``).

The aligned rows stand side by side, A left and B right: a changed field shows A's value with
what B lost marked ``<del>`` and B's value with what it gained marked ``<ins>`` (word diffs for
texts, paths for JSON arguments, items for lists, deltas for numbers). A row only in one side
shows that step's fields on its side. The page loads nothing and runs nothing: a
Content-Security-Policy allows no script and no request, and every trace text is HTML-escaped
with its control characters shown (``views.visible_text.visible_controls``), cut at
``page.PAGE_TEXT_CHARS``. No clock time goes into it: the same comparison gives the same bytes.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from ..analysis.compare.compare import CHANGED, ONLY_A, ONLY_B, Comparison, Row
from ..analysis.compare.summary import (STATUS_LABELS, item_text, parent_title, row_counts, score_text, selection_text,
                                        session_kind, step_title, totals_table)
from ..analysis.compare.diffs import ADDED, EQUAL, REMOVED, FieldDiff, delta_text, describe, value_text
from ..analysis.compare.selections import Split
from ..analysis.compare.step_values import compared_values
from ..model.session import Session
from ..views.visible_text import visible_controls
from .page import PAGE_TEXT_CHARS

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
LIST_ITEMS_SHOWN = 30
ONE_SIDED_CHARS = 2_000  # characters of a text of a step found on one side only


def comparison_page(comparison: Comparison) -> str:
    """The whole page as a string (UTF-8 when written): header, summary, answer, rows, edges,
    chunks and every pair of sub-sessions."""
    a, b = comparison.a, comparison.b
    title = _question(a) + ("" if _question(b) == _question(a) else " / " + _question(b))
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        f'<meta http-equiv="Content-Security-Policy" content="{html.escape(CSP)}">\n',
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        f"<title>Comparison: {_esc(title)} — Trace Explorer</title>\n",
        f"<style>{_PAGE_CSS}{COMPARISON_CSS}</style>\n</head>\n<body>\n<main>\n",
        f'<header><p class="kicker">Two TrustGraph sessions compared</p><h1>{_esc(title)}</h1>\n',
        '<p class="hint">Words only in A are <del>struck through</del>, words only in B '
        '<ins>underlined</ins>; “—” is a value not recorded.</p></header>\n',
        comparison_body(comparison),
        "</main>\n</body>\n</html>\n",
    ])


def comparison_body(comparison: Comparison, level: int = 2) -> str:
    """Everything below the page's title, for one comparison and (recursively) its sub-sessions."""
    h = f"h{min(level, 6)}"
    parts = ['<section class="cmp">', _sessions(comparison),
             f"<p><strong>Rows:</strong> {_esc(row_counts(comparison))}</p>",
             f"<{h}>Summary</{h}>", totals_html(comparison),
             f"<{h}>Answer ({'same' if comparison.answer_same else 'changed'})</{h}>", answer_html(comparison),
             f"<{h}>Steps</{h}>", rows_table(comparison.rows)]
    for name, split in (("Edges", comparison.edges), ("Chunks", comparison.chunks)):
        if split.only_a or split.only_b or split.both:
            parts += [f"<{h}>{name}: {len(split.both):,} in both, {len(split.only_a):,} only in A, "
                      f"{len(split.only_b):,} only in B</{h}>", split_table(split)]
    for child in comparison.children:
        inner = child.comparison
        parts.append(f'<div class="child"><{h}>Sub-session: {_esc(_question(inner.a or inner.b))}</{h}>'
                     f'<p class="hint">From {_esc(parent_title(comparison, child))}</p>'
                     + comparison_body(inner, level + 1) + "</div>")
    parts.append("</section>\n")
    return "\n".join(parts)


def totals_html(comparison: Comparison) -> str:
    """The totals A against B as a table."""
    rows = "".join(f"<tr><th>{_esc(label)}</th><td>{_esc(a)}</td><td>{_esc(b)}</td><td>{_esc(d)}</td></tr>"
                   for label, a, b, d in totals_table(comparison))
    return f'<table class="totals"><tr><th></th><th>A</th><th>B</th><th>B − A</th></tr>{rows}</table>'


def answer_html(comparison: Comparison) -> str:
    """The two answers side by side, the words each lost or gained marked."""
    a = comparison.a.answer if comparison.a else None
    b = comparison.b.answer if comparison.b else None
    if comparison.answer_same:
        return f'<div class="answer">{_esc(a) if a else "<em>no answer on either side</em>"}</div>'
    left, right = _sides(describe("answer", a, b))
    return f'<div class="pair"><div class="answer">{left}</div><div class="answer">{right}</div></div>'


def rows_table(rows: Sequence[Row], first_number: int = 1) -> str:
    """Aligned rows side by side: number, status, A's step and B's step with their fields."""
    out = ['<table class="rows"><colgroup><col class="num"><col class="status"><col><col></colgroup>'
           "<tr><th>#</th><th></th><th>A</th><th>B</th></tr>"]
    for number, row in enumerate(rows, first_number):
        left, right = [f'<div class="title">{_esc(step_title(step))}</div>' if step else "" for step in (row.a, row.b)]
        if row.status == CHANGED:
            for name, (a, b) in row.changes.items():
                diff_a, diff_b = _sides(describe(name, a, b))
                label = f'<span class="name">{_esc(name.replace("_", " "))}</span>'
                left += f'<div class="field">{label}{diff_a}</div>'
                right += f'<div class="field">{label}{diff_b}</div>'
        elif row.status in (ONLY_A, ONLY_B):
            fields = _fields(row.a if row.status == ONLY_A else row.b)
            left, right = (left + fields, right) if row.status == ONLY_A else (left, right + fields)
        out.append(f'<tr class="{row.status}"><td class="num">{number}</td>'
                   f'<td class="status">{_esc(STATUS_LABELS[row.status])}</td>'
                   f'<td class="side">{left}</td><td class="side">{right}</td></tr>')
    out.append("</table>")
    return "".join(out)


def split_table(split: Split) -> str:
    """Chosen edges or chunks: in both (with A's and B's score), only in A, only in B."""
    rows = [f'<tr class="same"><td class="status">both</td><td>{_esc(selection_text(k))}</td>'
            f"<td>{_esc(score_text(a, b)) if a is not None or b is not None else ''}</td></tr>"
            for k, (a, b) in zip(split.both, split.both_scores)]
    rows += [f'<tr class="only_a"><td class="status">only in A</td><td>{_esc(selection_text(k))}</td><td></td></tr>'
             for k in split.only_a]
    rows += [f'<tr class="only_b"><td class="status">only in B</td><td>{_esc(selection_text(k))}</td><td></td></tr>'
             for k in split.only_b]
    return f'<table class="split"><tr><th></th><th></th><th>score A → B</th></tr>{"".join(rows)}</table>'


def _sides(diff: FieldDiff) -> tuple[str, str]:
    """A field's value in A (what B lost marked) and in B (what it gained marked), as HTML."""
    if diff.form == "text":
        left = "".join(_esc(t) if op == EQUAL else f"<del>{_esc(t)}</del>" for op, t in diff.segments if op != ADDED)
        right = "".join(_esc(t) if op == EQUAL else f"<ins>{_esc(t)}</ins>" for op, t in diff.segments if op != REMOVED)
        return (f'<div class="text">{left}</div>' if diff.a is not None else _MISSING,
                f'<div class="text">{right}</div>' if diff.b is not None else _MISSING)
    if diff.form == "number":
        return _esc(value_text(diff.a)), f"{_esc(value_text(diff.b))} <span class=\"delta\">({_esc(delta_text(diff.name, diff.delta))})</span>"
    if diff.form == "json":
        left, right = [], []
        for change in diff.json:
            path = f"<code>{_esc(change.path)}</code>: "
            if change.op != ADDED:
                left.append(f"<li>{path}<del>{_esc(value_text(change.a))}</del></li>")
            if change.op != REMOVED:
                right.append(f"<li>{path}<ins>{_esc(value_text(change.b))}</ins></li>")
        return f'<ul class="json">{"".join(left)}</ul>', f'<ul class="json">{"".join(right)}</ul>'
    if diff.form == "list":
        return _list(diff.items, REMOVED, "del"), _list(diff.items, ADDED, "ins")
    return (f"<del>{_esc(value_text(diff.a))}</del>" if diff.a is not None else _MISSING,
            f"<ins>{_esc(value_text(diff.b))}</ins>" if diff.b is not None else _MISSING)


def _list(items: list[tuple[str, Any]], side: str, tag: str) -> str:
    """One side of a list diff: its items in order, those only on this side marked; with many
    unchanged items, only the marked ones and a count of the rest."""
    shown = [(op, item) for op, item in items if op in (EQUAL, side)]
    kept = sum(1 for op, _ in shown if op == EQUAL)
    if kept > LIST_ITEMS_SHOWN:
        shown = [(op, item) for op, item in shown if op == side]
    lines = [f"<li><{tag}>{_esc(item_text(item))}</{tag}></li>" if op == side else f"<li>{_esc(item_text(item))}</li>"
             for op, item in shown]
    more = f'<li class="hint">and {kept:,} unchanged</li>' if kept > LIST_ITEMS_SHOWN else ""
    return f'<ul class="list">{"".join(lines)}{more}</ul>'


def _fields(step) -> str:
    """A one-sided step's compared fields, a text cut at ``ONE_SIDED_CHARS`` (the step's own
    page and exports hold all of it)."""
    out = []
    for name, value in compared_values(step).items():
        if isinstance(value, list):
            shown = "<ul class=\"list\">" + "".join(f"<li>{_esc(item_text(v))}</li>" for v in value[:LIST_ITEMS_SHOWN]) + "</ul>"
        elif isinstance(value, dict):  # JSON arguments: "path: value", as a changed row shows them
            shown = '<ul class="json">' + "".join(f"<li><code>{_esc(key)}</code>: {_esc(value_text(v))}</li>"
                                                  for key, v in value.items()) + "</ul>"
        else:
            shown = f'<div class="text">{_esc(value_text(value), ONE_SIDED_CHARS)}</div>'
        out.append(f'<div class="field"><span class="name">{_esc(name.replace("_", " "))}</span>{shown}</div>')
    return "".join(out)


def _sessions(comparison: Comparison) -> str:
    rows = []
    for side, session in (("A", comparison.a), ("B", comparison.b)):
        if session is None:
            rows.append(f"<dt>{side}</dt><dd><em>none</em></dd>")
            continue
        rows.append(f"<dt>{side}</dt><dd>{_esc(_question(session))} <span class=\"hint\">{_esc(session_kind(session))}</span>"
                    f"<br><code>{_esc(session.id)}</code></dd>")
    return f'<dl class="meta">{"".join(rows)}</dl>'


def _question(session: Session | None) -> str:
    return session.question if session is not None and session.question else "(no question)"


def _esc(value: Any, limit: int = PAGE_TEXT_CHARS) -> str:
    """Trace text as HTML text: control characters shown, cut at ``limit`` characters, escaped."""
    text = "" if value is None else str(value)
    if len(text) > limit:
        text = text[:limit] + f" … [{len(text) - limit:,} more characters not shown]"
    return html.escape(visible_controls(text), quote=True)


_MISSING = '<span class="hint">—</span>'

COMPARISON_CSS = """
.cmp table { border-collapse: collapse; width: 100%; font-size: 13px; margin: 0 0 14px; }
.cmp td, .cmp th { border: 1px solid #e5e7eb; padding: 4px 6px; text-align: left; vertical-align: top; }
.cmp table.totals { width: auto; } .cmp table.totals td { text-align: right; min-width: 7em; }
.cmp table.rows { table-layout: fixed; } .cmp col.num { width: 3em; } .cmp col.status { width: 6.5em; }
.cmp td.side { overflow-wrap: anywhere; min-width: 0; } .cmp td.num { color: #64748b; text-align: right; }
.cmp tr.same td.status { color: #64748b; } .cmp tr.changed td.status { color: #a16207; font-weight: 600; }
.cmp tr.only_a td.status { color: #b91c1c; font-weight: 600; } .cmp tr.only_b td.status { color: #15803d; font-weight: 600; }
.cmp tr.changed { background: #fffbeb; } .cmp tr.only_a { background: #fef2f2; } .cmp tr.only_b { background: #f0fdf4; }
.cmp .title { font-weight: 600; } .cmp .field { margin: 4px 0 0; }
.cmp .name { display: block; color: #64748b; font-size: 12px; }
.cmp .text { white-space: pre-wrap; } .cmp ul { margin: 0; padding-left: 18px; }
.cmp del { background: #fecaca; color: #7f1d1d; text-decoration: line-through; }
.cmp ins { background: #bbf7d0; color: #14532d; text-decoration: underline; }
.cmp .delta { color: #475569; } .cmp .hint { color: #64748b; font-size: 12px; }
.cmp .pair { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; }
.cmp .answer { white-space: pre-wrap; background: #f8fafc; border-left: 4px solid #94a3b8; padding: 6px 10px; overflow-wrap: anywhere; }
.cmp dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; }
.cmp dl.meta dd { margin: 0; overflow-wrap: anywhere; } .cmp code { font-size: 12px; overflow-wrap: anywhere; }
.cmp .child { border-left: 3px solid #cbd5e1; padding-left: 12px; margin: 16px 0; }
"""

_PAGE_CSS = """
:root { color-scheme: light; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', sans-serif; color: #111827; background: #f8fafc; }
main { max-width: 1300px; margin: 0 auto; padding: 24px 20px 60px; }
header, section.cmp { background: #fff; border: 1px solid #e5e7eb; border-radius: 10px; padding: 16px 20px; margin: 0 0 18px; }
section.cmp section.cmp { border: 0; padding: 0; }
h1 { font-size: 22px; margin: 0 0 6px; } h2 { font-size: 17px; } h3, h4, h5, h6 { font-size: 15px; }
.kicker { margin: 0; color: #64748b; font-size: 12px; text-transform: uppercase; letter-spacing: .05em; }
.hint { color: #64748b; font-size: 12px; }
"""
