"""What of a step two sessions are compared on: its compared values, the key it is aligned by,
and a fingerprint that says whether two steps record the same thing.

A step is compared on what TrustGraph recorded about the work (TRACE-MODEL.md): the tool and its
arguments, thought, observation, error, tokens, durations, plan steps, goals, concepts, chosen
edges and chunks, answers. Left out is what names the step rather than describes it, and so
always differs between two sessions: IRIs of the step's own parts (``thought_id``,
``observation_id``, ``document``), the ``stepNumber`` (its position: an extra iteration early on
would renumber every later one), times and predicates the reader does not know (``extra``).
An Analysis whose Observation is a step of its own leaves the observation and its error to that
step, so a failed call is counted once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ...model.session import Step
from ...views.report import FIELD_ORDER

# Fields that name a step or its parts instead of describing its work.
NOT_COMPARED = frozenset({"thought_id", "observation_id", "document", "step_number", "started", "extra"})
# The alignment key of each kind: the field that tells a step from others of its kind.
KEY_FIELDS = {"Analysis": "action", "PatternDecision": "pattern", "StepResult": "plan_step",
              "Finding": "goal"}
_EDGE_KEYS = ("s", "p", "o", "raw", "concept", "score", "reasoning")


def compared_values(step: Step) -> dict[str, Any]:
    """The step's compared fields (JSON-ready: the compared fields hold no times), in ``show``'s field order. A Focus's
    ``edges`` become ``{"s", "p", "o", "concept", "score", "reasoning"}`` (``raw`` for an edge
    not stored as a quoted triple; None values dropped), its ``chunks`` ``{"chunk", "score"}``:
    the selections' own IRIs differ in every session and are left out."""
    fields = step.fields
    skip = set(NOT_COMPARED)
    if step.kind == "Analysis" and fields.get("observation_id"):
        skip |= {"observation", "error"}
    names = [n for n in FIELD_ORDER if n in fields] + sorted(n for n in fields if n not in FIELD_ORDER)
    values: dict[str, Any] = {}
    for name in names:
        if name in skip or fields[name] is None:
            continue
        value = fields[name]
        if name == "edges":
            value = [{k: e.get(k) for k in _EDGE_KEYS if e.get(k) is not None} for e in value]
        elif name == "chunks" and value and isinstance(value[0], dict):
            value = [{"chunk": c.get("chunk"), "score": c.get("score")} for c in value]
        values[name] = value
    return values


def alignment_key(step: Step, steps_by_id: Mapping[str, Step]) -> str | None:
    """What tells ``step`` from others of its kind (``KEY_FIELDS``): an Analysis's tool, a
    PatternDecision's pattern, a StepResult's plan step, a Finding's goal; an Observation takes
    the tool of the Analysis it derives from. None for the other kinds."""
    if step.kind == "Observation":
        for parent in step.parents:
            analysis = steps_by_id.get(parent)
            if analysis is not None and analysis.kind == "Analysis":
                return _text_key(analysis.fields.get("action"))
        return None
    name = KEY_FIELDS.get(step.kind)
    if name is None:
        return None
    value = step.fields.get(name)
    if value is None and name == "plan_step":
        value = step.fields.get("plan_steps")
    elif value is None and name == "goal":
        value = step.fields.get("goals")
    return _text_key(value)


def fingerprint(values: Mapping[str, Any]) -> str:
    """A string equal for two steps exactly when their compared values are equal."""
    return json.dumps(values, sort_keys=True, ensure_ascii=False, default=str)


def _text_key(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
