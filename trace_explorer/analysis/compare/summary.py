"""Words and numbers that every view of a comparison shows alike (the CLI's text, Markdown, the
HTML page, the app): status names, the totals table, a step's title, an edge as text, a session
in one line. Plain text only: each output escapes it for its own format."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ...model.session import Session, Step
from ...views.step_labels import timeline_label
from .compare import CHANGED, ONLY_A, ONLY_B, SAME, ChildComparison, Comparison
from .diffs import delta_text, value_text
from .selections import score_delta

STATUS_LABELS = {SAME: "same", CHANGED: "changed", ONLY_A: "only in A", ONLY_B: "only in B"}
STATUS_MARKS = {SAME: "=", CHANGED: "~", ONLY_A: "-", ONLY_B: "+"}
# (totals key, label): the summary on top, A against B.
TOTALS = (("steps", "Steps"), ("tool_calls", "Tool calls"), ("errors", "Tool errors"), ("tokens", "Tokens"),
          ("in_tokens", "Tokens in"), ("out_tokens", "Tokens out"), ("time_ms", "Time (LLM + tools)"),
          ("llm_ms", "LLM time"), ("tool_ms", "Tool time"), ("sub_sessions", "Sub-sessions"))


def totals_table(comparison: Comparison) -> list[tuple[str, str, str, str]]:
    """``(label, A, B, B - A)`` for each of ``TOTALS`` as text ("—" for a number not recorded;
    durations in ms with a unit, e.g. "12,355 ms")."""
    out = []
    for key, label in TOTALS:
        a = (comparison.totals_a or {}).get(key)
        b = (comparison.totals_b or {}).get(key)
        unit = " ms" if key.endswith("_ms") else ""
        delta = delta_text(key, b - a) if isinstance(a, int) and isinstance(b, int) else ""
        out.append((label, _with_unit(a, unit), _with_unit(b, unit), delta))
    return out


def row_counts(comparison: Comparison) -> str:
    """"3 same · 2 changed · 1 only in A · 2 only in B" (statuses with no row left out)."""
    parts = [f"{comparison.count(s):,} {STATUS_LABELS[s]}" for s in STATUS_LABELS if comparison.count(s)]
    return " · ".join(parts) or "no steps"


def step_title(step: Step | None, width: int = 48) -> str:
    """A step in a row: "i3 Analysis: calculator", "#2 StepResult: Step 2: …", "Focus"; "" for
    no step."""
    return timeline_label(step, width) if step is not None else ""


def parent_title(comparison: Comparison, child: ChildComparison) -> str:
    """The steps a pair of sub-sessions derives from: "i1 Analysis: knowledge-query | i1
    Analysis: knowledge-query" ("—" for a side without)."""
    sides = []
    for session, parent in ((comparison.a, child.parent_a), (comparison.b, child.parent_b)):
        step = session.nodes.get(parent) if session is not None and parent else None
        sides.append(step_title(step) if step is not None else (parent or "—"))
    return " | ".join(sides)


def session_kind(session: Session) -> str:
    """"Agent (react)", "GraphRAG": the mechanism and, for an agent, its pattern."""
    return session.mechanism + (f" ({session.pattern})" if session.pattern else "")


def session_line(session: Session | None) -> str:
    """A session in one line: mechanism (pattern), question and IRI; "(none)" for no session."""
    if session is None:
        return "(none)"
    return f"{session_kind(session)}: {session.question or '(no question)'} <{session.id}>"


def selection_text(key: Hashable) -> str:
    """An edge ``(s, p, o)`` as "s -- p --> o" (an unstored edge as its recorded value), a chunk
    as its IRI."""
    if isinstance(key, tuple):
        s, p, o = key
        if s is None and p is None:
            return f"(edge not stored: {o})"
        return f"{s} -- {p} --> {o}"
    return str(key)


def item_text(item: Any) -> str:
    """A list item of a changed field as text: a chosen edge (``compared_values``) as
    "s -- p --> o (score 0.9)", a chosen chunk as "IRI (score 0.8)", anything else as
    ``value_text``."""
    if isinstance(item, dict) and ("s" in item or "raw" in item):
        text = selection_text((item.get("s"), item.get("p"), item.get("o", item.get("raw"))))
    elif isinstance(item, dict) and "chunk" in item:
        text = str(item["chunk"])
    else:
        return value_text(item)
    return text + (f" (score {value_text(item['score'])})" if item.get("score") is not None else "")


def score_text(a: Any, b: Any) -> str:
    """"0.9 → 0.85 (−0.05)" for a score on both sides, else what there is."""
    delta = score_delta(a, b)
    return f"{value_text(a)} → {value_text(b)}" + (f" ({delta_text('score', delta)})" if delta is not None else "")


def _with_unit(value: Any, unit: str) -> str:
    return "—" if value is None else value_text(value) + unit
