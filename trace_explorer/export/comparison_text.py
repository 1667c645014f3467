"""A comparison of two sessions as plain text (``trace-explorer diff --format text``): the two
sessions, the totals A against B, the answer's word diff, every aligned row with its changed
fields, the chosen edges and chunks split three ways, then each sub-session pair the same way,
indented. Removed words are ``[-like this-]``, added ones ``{+like this+}`` (as ``wdiff``).
The caller makes control characters visible (``views.visible_text.visible_controls``)."""

from __future__ import annotations

import textwrap

from ..analysis.compare.compare import Comparison, Row
from ..analysis.compare.summary import (STATUS_MARKS, item_text, row_counts, score_text, selection_text, parent_title,
                                        session_line, step_title, totals_table)
from ..analysis.compare.diffs import ADDED, REMOVED, FieldDiff, delta_text, describe, value_text
from ..analysis.compare.selections import Split

SIDE_WIDTH = 46
LIST_ITEMS_SHOWN = 20


def comparison_text(comparison: Comparison, width: int = 100) -> str:
    """The whole comparison as text lines ``width`` characters wide where words allow."""
    lines = [f"A: {session_line(comparison.a)}", f"B: {session_line(comparison.b)}",
             f"Rows: {row_counts(comparison)}", ""]
    lines += _block(comparison, width, "")
    return "\n".join(lines).rstrip() + "\n"


def _block(comparison: Comparison, width: int, indent: str) -> list[str]:
    lines = [indent + f"{'Totals':<20}{'A':>14}{'B':>14}{'B - A':>14}"]
    lines += [indent + f"{label:<20}{a:>14}{b:>14}{d:>14}" for label, a, b, d in totals_table(comparison)]
    lines.append("")
    a_answer = comparison.a.answer if comparison.a else None
    b_answer = comparison.b.answer if comparison.b else None
    if comparison.answer_same:
        lines.append(indent + "Answer: same" + (f": {a_answer}" if a_answer else " (none)"))
    else:
        lines.append(indent + "Answer: changed")
        lines += _wrapped(_inline(describe("answer", a_answer, b_answer)), width, indent + "    ")
    lines += ["", indent + "Steps (A | B):"]
    for row in comparison.rows:
        lines += _row(row, width, indent + "  ")
    for name, split in (("Edges", comparison.edges), ("Chunks", comparison.chunks)):
        if split.only_a or split.only_b or split.both:
            lines += [""] + _split(name, split, indent)
    for child in comparison.children:
        inner = child.comparison
        lines += ["", indent + f"Sub-session from {parent_title(comparison, child)}: {row_counts(inner)}",
                  indent + f"  A: {session_line(inner.a)}", indent + f"  B: {session_line(inner.b)}"]
        lines += _block(inner, width, indent + "  ")
    return lines


def _row(row: Row, width: int, indent: str) -> list[str]:
    left = step_title(row.a, SIDE_WIDTH - 14)
    right = step_title(row.b, SIDE_WIDTH - 14)
    lines = [f"{indent}{STATUS_MARKS[row.status]} {left[:SIDE_WIDTH]:<{SIDE_WIDTH}} | {right}".rstrip()]
    for name, (a, b) in row.changes.items():
        lines += _change(describe(name, a, b), width, indent + "    ")
    return lines


def _change(diff: FieldDiff, width: int, indent: str) -> list[str]:
    label = diff.name.replace("_", " ")
    if diff.form == "number":
        return [f"{indent}{label}: {value_text(diff.a)} → {value_text(diff.b)} ({delta_text(diff.name, diff.delta)})"]
    if diff.form == "text":
        return _wrapped(f"{label}: " + _inline(diff), width, indent)
    if diff.form == "json":
        shown = {ADDED: lambda c: f"+ {c.path}: {value_text(c.b)}", REMOVED: lambda c: f"- {c.path}: {value_text(c.a)}",
                 "~": lambda c: f"{c.path}: {value_text(c.a)} → {value_text(c.b)}"}
        return [f"{indent}{label}:"] + [f"{indent}  {shown[c.op](c)}" for c in diff.json]
    if diff.form == "list":
        changed = [(op, item) for op, item in diff.items if op in (REMOVED, ADDED)]
        kept = len(diff.items) - len(changed)
        lines = [f"{indent}{label}:" + (f" ({kept:,} unchanged)" if kept else "")]
        lines += [f"{indent}  {op} {item_text(item)}" for op, item in changed[:LIST_ITEMS_SHOWN]]
        if len(changed) > LIST_ITEMS_SHOWN:
            lines.append(f"{indent}  … {len(changed) - LIST_ITEMS_SHOWN:,} more")
        return lines
    return _wrapped(f"{label}: {value_text(diff.a)} → {value_text(diff.b)}", width, indent)


def _inline(diff: FieldDiff) -> str:
    """A text diff on one run of text: removed ``[-…-]``, added ``{+…+}``; a field missing on
    one side as "—"."""
    if diff.form != "text":
        return f"{value_text(diff.a)} → {value_text(diff.b)}"
    out = []
    for op, text in diff.segments:
        out.append(f"[-{text}-]" if op == REMOVED else f"{{+{text}+}}" if op == ADDED else text)
    return "".join(out)


def _split(name: str, split: Split, indent: str) -> list[str]:
    lines = [indent + f"{name}: {len(split.both):,} in both, {len(split.only_a):,} only in A, "
                      f"{len(split.only_b):,} only in B"]
    for key, (a, b) in zip(split.both, split.both_scores):
        score = f"  score {score_text(a, b)}" if a is not None or b is not None else ""
        lines.append(f"{indent}  = {selection_text(key)}{score}")
    lines += [f"{indent}  - {selection_text(key)}" for key in split.only_a]
    lines += [f"{indent}  + {selection_text(key)}" for key in split.only_b]
    return lines


def _wrapped(text: str, width: int, indent: str) -> list[str]:
    out = []
    for paragraph in text.splitlines() or [""]:
        out += textwrap.wrap(paragraph, max(20, width - len(indent)), initial_indent=indent,
                             subsequent_indent=indent + "  ", break_long_words=True,
                             break_on_hyphens=False, drop_whitespace=True) or [indent]
    return out
