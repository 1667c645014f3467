"""Two sessions compared: what changed between two answers to a question.

``compare_sessions(a, b, sessions)`` aligns the steps of two sessions side by side (by kind and
order, keyed by the tool, plan step or goal: ``alignment``), says for each row whether it is
*same*, *changed*, *only in A* or *only in B* with the fields that differ, splits the chosen
GraphRAG edges and DocRAG chunks three ways with their score deltas, diffs the answers, sums
each side (steps, tool calls, errors, tokens, time) and compares the sub-sessions the same way,
recursively: those started by two paired steps are aligned by mechanism and question.

Rules (they hold for every pair of sessions, and the tests check them):

- the rows hold every step of A, in A's order (``Session.steps``, as ``show`` lists them), and
  every step of B, in B's order, exactly once each;
- two steps of the same kind pair before they fall to *only* (as far as order allows);
- a *same* row lists no changes; a *changed* row names at least one;
- a session compared with itself gives only *same* rows.

``comparison_record`` is the JSON of ``trace-explorer diff`` (the CLI's contract).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...model.session import Session, Step
from ...model.totals import family, session_totals
from .alignment import align
from .selections import Split, chunk_split, edge_split
from .step_values import alignment_key, compared_values, fingerprint

SAME, CHANGED, ONLY_A, ONLY_B = "same", "changed", "only_a", "only_b"
STATUSES = (SAME, CHANGED, ONLY_A, ONLY_B)


@dataclass
class Row:
    """One row of the alignment: ``a`` and ``b`` are the steps (None on the side that lacks it);
    ``changes`` maps each differing field to ``(value in A, value in B)`` (None where a side
    has no value), in ``show``'s field order; empty unless ``status`` is CHANGED."""

    status: str
    kind: str
    a: Step | None
    b: Step | None
    changes: dict[str, tuple[Any, Any]] = field(default_factory=dict)


@dataclass
class Comparison:
    """Session ``a`` against session ``b`` (one of them None for a sub-session found on one side
    only). ``answer_same``: the answers' texts are equal (both missing counts as equal);
    ``totals_a`` / ``totals_b``: ``comparison_totals`` (None for a missing side); ``children``: the
    sub-sessions compared, each with the steps they derive from (``parent_a``, ``parent_b``)."""

    a: Session | None
    b: Session | None
    rows: list[Row]
    edges: Split
    chunks: Split
    answer_same: bool
    totals_a: dict[str, Any] | None
    totals_b: dict[str, Any] | None
    children: list[ChildComparison] = field(default_factory=list)

    def count(self, status: str) -> int:
        """How many rows have ``status``."""
        return sum(1 for r in self.rows if r.status == status)


@dataclass
class ChildComparison:
    """A pair of sub-sessions (or one on its own side) and the steps each derives from."""

    parent_a: str | None
    parent_b: str | None
    comparison: Comparison


def compare_sessions(a: Session, b: Session, sessions: Mapping[str, Session] | None = None) -> Comparison:
    """Session ``a`` against ``b`` (see the module docstring). ``sessions`` (IRI -> Session)
    holds their sub-sessions, recursively; a sub-session missing from it is left out. Never
    raises on odd data (steps without fields, sessions without steps)."""
    return _compare(a, b, sessions or {}, frozenset())


def one_sided(session: Session, side: str, sessions: Mapping[str, Session] | None = None) -> Comparison:
    """``session`` against nothing: every row ONLY_A (``side`` "a") or ONLY_B ("b")."""
    if side == "a":
        return _compare(session, None, sessions or {}, frozenset())
    return _compare(None, session, sessions or {}, frozenset())


def _compare(a: Session | None, b: Session | None, sessions: Mapping[str, Session], seen: frozenset) -> Comparison:
    seen = seen | {s.id for s in (a, b) if s is not None}
    steps_a = a.steps if a is not None else []
    steps_b = b.steps if b is not None else []
    items_a, values_a = _items(steps_a)
    items_b, values_b = _items(steps_b)
    rows = []
    for i, j in align(items_a, items_b):
        if i is not None and j is not None:
            changes = _changes(values_a[i], values_b[j])
            rows.append(Row(CHANGED if changes else SAME, steps_a[i].kind, steps_a[i], steps_b[j], changes))
        elif i is not None:
            rows.append(Row(ONLY_A, steps_a[i].kind, steps_a[i], None))
        else:
            rows.append(Row(ONLY_B, steps_b[j].kind, None, steps_b[j]))
    answer_a = a.answer if a is not None else None
    answer_b = b.answer if b is not None else None
    return Comparison(
        a, b, rows, edge_split(steps_a, steps_b), chunk_split(steps_a, steps_b), answer_a == answer_b,
        comparison_totals(a, sessions) if a is not None else None,
        comparison_totals(b, sessions) if b is not None else None,
        _children(a, b, rows, sessions, seen))


def _items(steps: list[Step]) -> tuple[list[tuple], list[dict[str, Any]]]:
    """Alignment items ``(kind, key, fingerprint)`` and compared values of ``steps``."""
    by_id = {s.id: s for s in steps}
    values = [compared_values(s) for s in steps]
    items = [(s.kind, alignment_key(s, by_id), fingerprint(v)) for s, v in zip(steps, values)]
    return items, values


def _changes(a: dict[str, Any], b: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    names = list(a) + [n for n in b if n not in a]
    return {n: (a.get(n), b.get(n)) for n in names if a.get(n) != b.get(n)}


def _children(a: Session | None, b: Session | None, rows: list[Row], sessions: Mapping[str, Session],
              seen: frozenset) -> list[ChildComparison]:
    """The sub-sessions of ``a`` and ``b`` compared: those under two paired steps aligned with
    each other, those under a one-sided step one-sided, and last those under no step of the
    session (their parent is a part, such as a Thought) aligned with each other."""
    under_a = _sub_sessions(a, sessions, seen)
    under_b = _sub_sessions(b, sessions, seen)
    out: list[ChildComparison] = []
    for row in rows:
        kids_a = under_a.pop(row.a.id, []) if row.a else []
        kids_b = under_b.pop(row.b.id, []) if row.b else []
        out += _pair_children(kids_a, kids_b, sessions, seen)
    rest_a = [kid for kids in under_a.values() for kid in kids]
    rest_b = [kid for kids in under_b.values() for kid in kids]
    return out + _pair_children(rest_a, rest_b, sessions, seen)


def _pair_children(kids_a: list[Session], kids_b: list[Session], sessions: Mapping[str, Session],
                   seen: frozenset) -> list[ChildComparison]:
    """Sub-sessions aligned as steps are: by mechanism and pattern, keyed by their question."""
    out = []
    for i, j in align([_session_item(k) for k in kids_a], [_session_item(k) for k in kids_b]):
        kid_a = kids_a[i] if i is not None else None
        kid_b = kids_b[j] if j is not None else None
        out.append(ChildComparison(kid_a.parent if kid_a else None, kid_b.parent if kid_b else None,
                                   _compare(kid_a, kid_b, sessions, seen)))
    return out


def _sub_sessions(session: Session | None, sessions: Mapping[str, Session], seen: frozenset) -> dict[str | None, list[Session]]:
    """The loaded sub-sessions of ``session`` by the step of it they derive from (None when that
    is no step of the session), in the session's order of children."""
    if session is None:
        return {}
    step_ids = {s.id for s in session.steps}
    out: dict[str | None, list[Session]] = {}
    for child in session.children:
        found = sessions.get(child)
        if found is None or found.id in seen:
            continue
        out.setdefault(found.parent if found.parent in step_ids else None, []).append(found)
    return out


def _session_item(session: Session) -> tuple:
    kind = session.mechanism + (f"/{session.pattern}" if session.pattern else "")
    return (kind, session.question, session.answer)


def comparison_totals(session: Session, sessions: Mapping[str, Session] | None = None) -> dict[str, Any]:
    """What ``session`` and its loaded sub-sessions (recursively: ``model.totals.family``) took
    together: ``steps``, ``sub_sessions``, ``tool_calls`` (Analysis steps naming a tool),
    ``errors`` (failed tool calls, ``Session.tool_errors``), and the figures of
    ``model.totals.session_totals`` with sub-sessions (docs/reading-traces.md, "Totals"): ``in_tokens``,
    ``out_tokens``, ``tokens``, ``llm_ms``, ``tool_ms`` and ``time_ms`` (LLM + tool). A figure
    is None when no step records it."""
    members = family(session, sessions)
    total = session_totals(session, sessions)["total"]
    return {
        "steps": sum(len(s.steps) for s in members),
        "sub_sessions": len(members) - 1,
        "tool_calls": sum(len(s.actions) for s in members),
        "errors": sum(s.tool_errors for s in members),
        "in_tokens": total["tokens_in"], "out_tokens": total["tokens_out"], "tokens": total["tokens"],
        "llm_ms": total["llm_ms"], "tool_ms": total["tool_ms"], "time_ms": total["duration_ms"],
    }


def comparison_record(comparison: Comparison) -> dict[str, Any]:
    """The comparison as JSON-ready data, the contract of ``trace-explorer diff --format json``::

        {"a": id, "b": id,
         "rows": [{"status": "same"|"changed"|"only_a"|"only_b", "kind": str,
                   "a": step id|null, "b": step id|null, "changes": {field: {"a": v, "b": v}}}],
         "edges": {"only_a": [[s,p,o]], "only_b": [[s,p,o]], "both": [[s,p,o]],
                   "scores": [{"edge": [s,p,o], "a": score, "b": score, "delta": b - a}]},
         "chunks": {"only_a": [chunk], "only_b": [chunk], "both": [chunk], "scores": [...]},
         "answer": {"same": bool, "a": str|null, "b": str|null},
         "totals": {"a": {...}, "b": {...}},
         "children": [{"parent": {"a": step id|null, "b": step id|null}, ...the same keys}]}

    ``a`` / ``b`` are session IRIs (null for a sub-session on one side only); values in
    ``changes`` are as ``show --format json`` gives them, but a Focus's edges and chunks as
    ``compared_values`` makes them; ``totals`` are ``comparison_totals``; ``scores`` lists the
    edges and chunks in ``both`` whose score is recorded on either side."""
    a, b = comparison.a, comparison.b
    return {
        "a": a.id if a else None,
        "b": b.id if b else None,
        "rows": [{"status": r.status, "kind": r.kind, "a": r.a.id if r.a else None, "b": r.b.id if r.b else None,
                  "changes": {n: {"a": va, "b": vb} for n, (va, vb) in r.changes.items()}} for r in comparison.rows],
        "edges": comparison.edges.record("edge"),
        "chunks": comparison.chunks.record("chunk"),
        "answer": {"same": comparison.answer_same, "a": a.answer if a else None, "b": b.answer if b else None},
        "totals": {"a": comparison.totals_a, "b": comparison.totals_b},
        "children": [dict({"parent": {"a": c.parent_a, "b": c.parent_b}}, **comparison_record(c.comparison))
                     for c in comparison.children],
    }
