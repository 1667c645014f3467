"""A comparison of two sessions as Markdown, for a ticket or a chat: the two sessions, the
totals A against B as a table, the answer's word diff, the aligned rows as a table, each changed
row's fields (removed words ~~struck through~~, added ones in **bold**), the chosen edges and
chunks split three ways with their score deltas, then each pair of sub-sessions under its own
heading.

Trace text is untrusted: every piece of it goes through ``escape_markdown`` (or a code span),
so it renders as exactly its characters; a table cell holds it on one line.
"""

from __future__ import annotations

from ..analysis.compare.compare import CHANGED, Comparison, Row
from ..analysis.compare.summary import (STATUS_LABELS, STATUS_MARKS, item_text, parent_title, row_counts, score_text,
                                        selection_text, session_kind, step_title, totals_table)
from ..analysis.compare.diffs import ADDED, EQUAL, REMOVED, FieldDiff, delta_text, describe, value_text
from ..analysis.compare.selections import Split
from ..model.session import Session
from .markdown_text import code_span, escape_markdown

TEXT_LIMIT = 20_000  # characters of one diffed text; the rest is said, not shown
LIST_ITEMS_SHOWN = 30
LEGEND = "Removed words are ~~struck through~~, added ones **bold**; “—” is a value not recorded."


def comparison_markdown(comparison: Comparison) -> str:
    """The comparison as Markdown text ending in a newline. Never raises on odd data."""
    title = _one_line(_question(comparison.a))
    if _question(comparison.b) != _question(comparison.a):
        title += " / " + _one_line(_question(comparison.b))
    parts = [f"# Comparison: {escape_markdown(title)}", LEGEND]
    parts += _block(comparison, 2)
    return "\n\n".join(parts).rstrip() + "\n"


def _block(comparison: Comparison, level: int) -> list[str]:
    hashes = "#" * level
    parts = [f"**A:** {_session(comparison.a)}  \n**B:** {_session(comparison.b)}",
             f"**Rows:** {escape_markdown(row_counts(comparison))}",
             f"{hashes} Summary",
             "| | A | B | B − A |\n|---|---:|---:|---:|\n" + "\n".join(
                 f"| {label} | {a} | {b} | {d} |" for label, a, b, d in totals_table(comparison))]
    answer_a = comparison.a.answer if comparison.a else None
    answer_b = comparison.b.answer if comparison.b else None
    parts.append(f"{hashes} Answer ({'same' if comparison.answer_same else 'changed'})")
    parts.append(_inline(describe("answer", answer_a, answer_b)) if not comparison.answer_same
                 else (_cell(answer_a) if answer_a else "_(no answer on either side)_"))
    parts.append(f"{hashes} Steps")
    table = ["| # | | A | B |", "|---:|---|---|---|"]
    for number, row in enumerate(comparison.rows, 1):
        table.append(f"| {number} | {STATUS_MARKS[row.status]} {STATUS_LABELS[row.status]} | "
                     f"{_cell(step_title(row.a))} | {_cell(step_title(row.b))} |")
    parts.append("\n".join(table))
    for number, row in enumerate(comparison.rows, 1):
        if row.status == CHANGED:
            parts.append(_row(number, row, hashes + "#"))
    for name, split in (("Edges", comparison.edges), ("Chunks", comparison.chunks)):
        if split.only_a or split.only_b or split.both:
            parts.append(_split(name, split, hashes))
    for child in comparison.children:
        parts.append(f"{hashes} Sub-session: {escape_markdown(_one_line(_question(child.comparison.a or child.comparison.b)))}")
        parts.append(f"From {_cell(parent_title(comparison, child))}")
        parts += _block(child.comparison, min(level + 1, 6))
    return parts


def _row(number: int, row: Row, hashes: str) -> str:
    lines = [f"{hashes} {number}. {escape_markdown(_one_line(step_title(row.a)))} → "
             f"{escape_markdown(_one_line(step_title(row.b)))}"]
    items = []
    for name, (a, b) in row.changes.items():
        items.append(_change(describe(name, a, b)))
    return "\n\n".join(lines + ["\n".join(items)])


def _change(diff: FieldDiff) -> str:
    label = f"- **{escape_markdown(diff.name.replace('_', ' '))}:**"
    if diff.form == "number":
        return f"{label} {_cell(value_text(diff.a))} → {_cell(value_text(diff.b))} ({delta_text(diff.name, diff.delta)})"
    if diff.form == "text":
        return f"{label} {_inline(diff)}"
    if diff.form == "json":
        shown = {ADDED: lambda c: f"**added** {code_span(value_text(c.b))}",
                 REMOVED: lambda c: f"**removed** {code_span(value_text(c.a))}",
                 "~": lambda c: f"{code_span(value_text(c.a))} → {code_span(value_text(c.b))}"}
        return "\n".join([label] + [f"  - {code_span(c.path)}: {shown[c.op](c)}" for c in diff.json])
    if diff.form == "list":
        changed = [(op, item) for op, item in diff.items if op != EQUAL]
        kept = len(diff.items) - len(changed)
        lines = [label + (f" ({kept:,} unchanged)" if kept else "")]
        for op, item in changed[:LIST_ITEMS_SHOWN]:
            text = _cell(item_text(item))
            lines.append(f"  - ~~{text}~~" if op == REMOVED else f"  - **{text}**")
        if len(changed) > LIST_ITEMS_SHOWN:
            lines.append(f"  - … {len(changed) - LIST_ITEMS_SHOWN:,} more")
        return "\n".join(lines)
    return f"{label} {_cell(value_text(diff.a))} → {_cell(value_text(diff.b))}"


def _inline(diff: FieldDiff) -> str:
    """A word diff on one line: removed runs ~~struck~~, added ones **bold**, the rest plain;
    each run escaped, with its outer spaces outside the markers (CommonMark's flanking rules)."""
    if diff.form != "text":
        return f"{_cell(value_text(diff.a))} → {_cell(value_text(diff.b))}"
    out, left, previous = [], TEXT_LIMIT, EQUAL
    for op, text in diff.segments:
        flat = " ".join(text.split())
        if text[:1].isspace() or (previous == REMOVED and op == ADDED):
            out.append(" ")
        previous = op
        if left <= 0:
            out.append("…")
            break
        shown = flat[:left] + ("…" if len(flat) > left else "")
        left -= len(flat)
        if shown:
            mark = "~~" if op == REMOVED else "**" if op == ADDED else ""
            out.append(f"{mark}{escape_markdown(shown)}{mark}")
        if text[-1:].isspace():
            out.append(" ")
    return "".join(out).strip()


def _split(name: str, split: Split, hashes: str) -> str:
    lines = [f"{hashes} {name}: {len(split.both):,} in both, {len(split.only_a):,} only in A, "
             f"{len(split.only_b):,} only in B", "", f"| | {name[:-1].lower()} | score A → B |", "|---|---|---|"]
    for key, (a, b) in zip(split.both, split.both_scores):
        lines.append(f"| both | {_cell(selection_text(key))} | {_cell(score_text(a, b))} |")
    lines += [f"| only A | {_cell(selection_text(key))} | |" for key in split.only_a]
    lines += [f"| only B | {_cell(selection_text(key))} | |" for key in split.only_b]
    return "\n".join(lines)


def _session(session: Session | None) -> str:
    if session is None:
        return "_(none)_"
    return f"{escape_markdown(session_kind(session))}: {_cell(_question(session))} {code_span(session.id)}"


def _question(session: Session | None) -> str:
    return (session.question if session and session.question else "(no question)")


def _cell(text: object) -> str:
    """Trace text on one line, escaped for a table cell or a list item (cut at TEXT_LIMIT)."""
    flat = _one_line(text)
    if len(flat) > TEXT_LIMIT:
        flat = flat[:TEXT_LIMIT] + f"… [{len(flat) - TEXT_LIMIT:,} more characters]"
    return escape_markdown(flat)


def _one_line(text: object) -> str:
    return " ".join(str("" if text is None else text).split())
