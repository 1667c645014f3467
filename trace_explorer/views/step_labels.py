"""Short names for steps, shared by the timeline, the DAG and the step picker.

A step's *tag* is the number its IRI gives it: ``/i3`` (and ``/i3/observation``, ``/i3/thought``)
is "i3". TrustGraph numbers plan steps, findings and selections from 0 (``/step/0``,
``/finding/0``, ``...:prov:edge:{id}:0``); their tag counts from 1 like the plan does, so
``/step/0`` is "#1". Steps without a number have no tag ("").
"""

from __future__ import annotations

import re

from ..model.session import SESSION_NODE, Step
from .visible_text import visible_controls

_ITERATION = re.compile(r"/i(\d+)(?:/(?:observation|thought))?$")
_NUMBERED = re.compile(r"/(?:step|finding)/(\d+)$")
_SELECTION = re.compile(r":prov:(?:edge|chunk):[^:/]+:(\d+)$")

# Kind names short enough for a DAG node.
SHORT_KINDS = {
    "PatternDecision": "Pattern",
    "EdgeSelection": "Edge",
    "ChunkSelection": "Chunk",
    "StepResult": "Step",
    "Decomposition": "Decompose",
    SESSION_NODE: "Sub-session",
}


def step_tag(step_id: str) -> str:
    """The number a step's IRI gives it: "i3" (``/i3``), "#1" (``/step/0``), or "" when it has none."""
    match = _ITERATION.search(step_id)
    if match:
        return f"i{match.group(1)}"
    match = _NUMBERED.search(step_id) or _SELECTION.search(step_id)
    if match:
        return f"#{int(match.group(1)) + 1}"
    return ""


def short_kind(kind: str) -> str:
    """A kind name short enough for a DAG node ("PatternDecision" -> "Pattern")."""
    return SHORT_KINDS.get(kind, kind)


UNPARSED_REPLY = "the model's reply could not be parsed"
NO_TOOL = "no tool recorded"


def tool_note(step: Step) -> str | None:
    """What a step says of its tool when it names none: ``UNPARSED_REPLY`` for an Analysis or
    Observation of a reply the agent could not parse (no tool ran: TrustGraph writes
    ``tg:action "__parse_error__"``), ``NO_TOOL`` for a plan step (TrustGraph 2.11.1's
    plan-then-execute records no ``tg:action`` on a StepResult); else None."""
    if "parse_error" in step.fields:
        return UNPARSED_REPLY
    if step.kind == "StepResult" and not step.fields.get("action"):
        return NO_TOOL
    return None


def step_detail(step: Step) -> str:
    """The one thing that tells this step from its siblings: an Analysis's tool (or that the
    model's reply could not be parsed), a PatternDecision's pattern, a StepResult's plan step, a
    Finding's goal; else ""."""
    fields = step.fields
    if "parse_error" in fields:
        return UNPARSED_REPLY
    for name in ("action", "pattern", "plan_step", "goal"):
        value = fields.get(name)
        if value:
            return str(value)
    return ""


def has_error(step: Step) -> bool:
    """True when the step records a failed tool call (``tg:toolError`` or type ``tg:Error``).
    A reply of the model the agent could not parse (``parse_error``: TrustGraph writes it as a
    ``tg:Error`` Observation of the action ``__parse_error__``) is no tool call, so no tool error."""
    if step.fields.get("parse_error") is not None:
        return False
    return step.fields.get("error") is not None or step.kind == "Error" or any(
        t.endswith("#Error") or t.endswith("/Error") for t in step.types)


def clip(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    flat = " ".join(visible_controls(str(text)).split())
    return flat if len(flat) <= width else flat[: max(1, width - 1)] + "…"


def timeline_label(step: Step, width: int = 32) -> str:
    """"i3 Analysis: calculator", "i3 Observation ✗", "#10 StepResult: Step 10: check ..."."""
    tag = step_tag(step.id)
    text = f"{tag} {step.kind}" if tag else step.kind
    detail = step_detail(step)
    if detail:
        text += ": " + clip(detail, width)
    if has_error(step):
        text += " ✗"
    return text


def node_label(step: Step) -> str:
    """A DAG node's label: short kind and tag ("Analysis i3", "Observation i3 ✗"), then the
    Analysis's tool on a second line."""
    tag = step_tag(step.id)
    text = f"{short_kind(step.kind)} {tag}".strip()
    if has_error(step):
        text += " ✗"
    if step.kind == "Analysis" and step.fields.get("action"):
        text += "\n" + clip(step.fields["action"], 24)
    elif step.kind == "Analysis" and "parse_error" in step.fields:
        text += "\nreply not parsed"
    elif step.kind == "PatternDecision" and step.fields.get("pattern"):
        text += "\n" + clip(step.fields["pattern"], 24)
    return text
