"""Agent sessions (TRACE-MODEL.md, "Agent patterns"): an Analysis gets its Thought's and
Observation's words, plan steps and supervisor goals come in the order they were carried out,
and the pattern is the PatternDecision's, else the steps'."""

from __future__ import annotations

from collections.abc import Callable

from .session import PARSE_ERROR_ACTION, PLAN_THEN_EXECUTE, REACT, SUPERVISOR, Session, Step
from .triple_index import TripleIndex
from .vocabulary import THOUGHT


def fold_analysis(step: Step, nodes: dict[str, Step], index: TripleIndex,
                  owner_of: Callable[[str], str | None] = lambda _: None) -> None:
    """Give an Analysis the words of its sub-entities: ``thought`` (and ``thought_id``) from its
    Thought, ``observation``, ``observation_id`` and ``error`` from its Observation
    (``observation_of``). Inline (seed) words are kept. An Analysis whose ``tg:action`` is
    ``PARSE_ERROR_ACTION`` records a reply of the model that could not be parsed, not a tool
    call: it and its Observation get ``parse_error`` (the recorded ``tg:toolError``) in place of
    ``action`` and ``error``. ``owner_of(iri)``: the session root an entity belongs to."""
    for thought in index.iris(step.id, THOUGHT):
        if thought in nodes and "thought" not in step.fields:
            step.fields["thought_id"] = thought
            copy_words(step, nodes)
    observation = observation_of(step.id, nodes, index, owner_of)
    if observation is not None:
        step.fields["observation_id"] = observation
    if step.fields.get("action") == PARSE_ERROR_ACTION:
        del step.fields["action"]
        parts = [step] + ([nodes[observation]] if observation is not None else [])
        message = next((p.fields["error"] for p in parts if p.fields.get("error")), "")
        for part in parts:
            part.fields.pop("error", None)
            part.fields["parse_error"] = message
    copy_words(step, nodes)


def observation_of(analysis: str, nodes: dict[str, Step], index: TripleIndex,
                   owner_of: Callable[[str], str | None]) -> str | None:
    """The Observation of the Analysis ``analysis`` among ``nodes``: the one derived from it;
    else, when the tool ran a sub-trace (GraphRAG, DocRAG: its Question derives from the
    Analysis), the one derived from a step of that sub-trace, as TrustGraph 2.11.1's
    orchestrator writes it (``PatternBase.emit_observation_triples`` derives it from the
    sub-trace's last entity, its Synthesis); else the one its IRI names (``/i{n}/observation``,
    TRACE-MODEL.md, "Agent patterns"). None when there is none."""
    below = index.children.get(analysis, ())
    for child, _ in below:
        if child in nodes and nodes[child].kind == "Observation":
            return child
    sub_traces = {child for child, _ in below if child not in nodes}
    if sub_traces:
        for node in nodes.values():
            if node.kind == "Observation" and any(owner_of(p) in sub_traces for p in node.parents):
                return node.id
    named = nodes.get(analysis + "/observation")
    return named.id if named is not None and named.kind == "Observation" else None


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


def order_goals(step: Step, steps: list[Step], started: list[str] = ()) -> None:
    """A Decomposition's ``goals`` in the order they were decomposed: the order the supervisor
    started their sub-agents (``started``: the sub-sessions' questions, in the order of
    ``SessionReader`` children: start time, then finding index), then the order of its Findings
    (by index), the rest after. TrustGraph 2.11.1's supervisor gives each goal as the question of
    a sub-agent (``SupervisorPattern._decompose_and_fanout``) and numbers the Findings as the
    sub-agents finish."""
    goals = step.fields.get("goals", [])
    findings = [g for s in steps if s.kind == "Finding" for g in s.fields.get("goals", [])]
    ordered = [g for g in list(started) + findings if g in goals]
    step.fields["goals"] = list(dict.fromkeys(ordered + goals))


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
