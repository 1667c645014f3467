"""Agent sessions (TRACE-MODEL.md, "Agent patterns"): an Analysis gets its Thought's and
Observation's words, plan steps and supervisor goals come in the order they were carried out,
and the pattern is the PatternDecision's, else the steps'."""

from __future__ import annotations

from .session import PLAN_THEN_EXECUTE, REACT, SUPERVISOR, Session, Step
from .triple_index import TripleIndex
from .vocabulary import THOUGHT


def fold_analysis(step: Step, nodes: dict[str, Step], index: TripleIndex) -> None:
    """Give an Analysis the words of its sub-entities: ``thought`` (and ``thought_id``) from its
    Thought, ``observation``, ``observation_id`` and ``error`` from the Observation derived
    from it. Inline (seed) words are kept."""
    for thought in index.iris(step.id, THOUGHT):
        if thought in nodes and "thought" not in step.fields:
            step.fields["thought_id"] = thought
            copy_words(step, nodes)
    for child, _ in index.children.get(step.id, ()):
        node = nodes.get(child)
        if node is not None and node.kind == "Observation":
            step.fields["observation_id"] = child
    copy_words(step, nodes)


def copy_words(step: Step, nodes: dict[str, Step]) -> None:
    """Give an Analysis whose ``thought_id`` / ``observation_id`` are set the words those
    sub-entities hold: ``thought``, ``observation`` and ``error``. Inline (seed) words are kept.
    (Also run again when texts arrive after the session was read: ``model.texts``.)"""
    thought = nodes.get(step.fields.get("thought_id") or "")
    if thought is not None and thought.fields.get("thought") is not None:
        step.fields["thought"] = thought.fields["thought"]
    node = nodes.get(step.fields.get("observation_id") or "")
    if node is not None:
        if node.fields.get("observation") is not None:
            step.fields.setdefault("observation", node.fields["observation"])
        if node.fields.get("error") is not None:
            step.fields["error"] = node.fields["error"]


def order_plan(step: Step, steps: list[Step]) -> None:
    """A Plan's ``plan_steps`` in the order its StepResults carried them out, the rest after."""
    results = [s for s in steps if s.kind == "StepResult"]
    ordered = [g for s in results for g in s.fields.get("plan_steps", [])]
    rest = [p for p in step.fields.get("plan_steps", []) if p not in ordered]
    step.fields["plan_steps"] = [p for p in ordered if p in step.fields.get("plan_steps", ordered)] + rest


def order_goals(step: Step, steps: list[Step]) -> None:
    """A Decomposition's ``goals`` in the order of its Findings, the rest after."""
    findings = [g for s in steps if s.kind == "Finding" for g in s.fields.get("goals", [])]
    goals = step.fields.get("goals", [])
    step.fields["goals"] = [g for g in findings if g in goals] + [g for g in goals if g not in findings]


def single_goals(steps: list[Step]) -> None:
    """A StepResult's one plan step becomes ``plan_step``, a Finding's one goal ``goal``."""
    for step in steps:
        for key in ("plan_steps", "goals"):
            if step.kind in ("StepResult", "Finding") and len(step.fields.get(key, [])) == 1:
                step.fields["plan_step" if key == "plan_steps" else "goal"] = step.fields.pop(key)[0]


def pattern_of(session: Session) -> str | None:
    """The agent's pattern: its PatternDecision's ``tg:pattern``; without one, the steps decide
    (a Decomposition -> supervisor, a Plan -> plan-then-execute, Analysis steps -> react)."""
    for step in session.steps_of("PatternDecision"):
        if step.fields.get("pattern"):
            return step.fields["pattern"]
    kinds = {s.kind for s in session.steps}
    if "Decomposition" in kinds or "Finding" in kinds:
        return SUPERVISOR
    if "Plan" in kinds or "StepResult" in kinds:
        return PLAN_THEN_EXECUTE
    if "Analysis" in kinds or "Conclusion" in kinds:
        return REACT
    return None
