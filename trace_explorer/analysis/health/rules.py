"""The health rules: each problem a trace can have, by a stable id, with its severity and what it
means (TRACE-MODEL.md is the model they check against). Where each is found:

- by the reader as it reads a session (``model.problems``): ``arguments-not-json``,
  ``bad-literal``, ``cycle``, ``untyped-root``, ``shared-step``;
- by SHACL shapes (``shapes/trustgraph-trace.shacl.ttl``, checked by ``analysis.health.shape_checks``
  as pyshacl runs them in ``analysis.health.shacl``):
  ``unknown-type``, ``damaged-quoted-triple``, ``dangling-derivation``, ``missing-text``,
  ``missing-chunk-text``;
- by code that looks at a session as a whole (``analysis.health.checks``): ``unreachable-step``,
  ``time-before-parent``, ``unfinished``, ``unparsed-reply``, ``unsupported-sentence`` (by
  ``analysis.support``: a sentence of the answer no Observation, chunk, selected edge, Finding or
  step result of the session backs).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...model.problems import ARGUMENTS_NOT_JSON, BAD_LITERAL, CYCLE, MISSING_TEXT, SHARED_STEP, UNTYPED_ROOT

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITIES = (ERROR, WARNING, INFO)  # most severe first

UNKNOWN_TYPE = "unknown-type"
DAMAGED_QUOTED_TRIPLE = "damaged-quoted-triple"
DANGLING_DERIVATION = "dangling-derivation"
MISSING_CHUNK_TEXT = "missing-chunk-text"
UNREACHABLE_STEP = "unreachable-step"
TIME_BEFORE_PARENT = "time-before-parent"
UNFINISHED = "unfinished"
UNPARSED_REPLY = "unparsed-reply"
UNSUPPORTED_SENTENCE = "unsupported-sentence"


@dataclass(frozen=True)
class Rule:
    """One health rule: ``id`` (stable: lint output and filters use it), ``severity`` (one of
    SEVERITIES), ``finds`` (what it finds, in words), ``found_by`` ("reader", "shape", "code")."""

    id: str
    severity: str
    finds: str
    found_by: str


RULES: dict[str, Rule] = {rule.id: rule for rule in (
    Rule(ARGUMENTS_NOT_JSON, WARNING, "tg:arguments that does not parse as JSON (shown as recorded)", "reader"),
    Rule(BAD_LITERAL, WARNING, "a number or time that does not parse (shown as missing)", "reader"),
    Rule(DANGLING_DERIVATION, ERROR, "prov:wasDerivedFrom pointing at nothing loaded", "shape"),
    Rule(UNREACHABLE_STEP, ERROR, "an entity whose IRI extends a session root but that no derivation reaches", "code"),
    Rule(CYCLE, ERROR, "a cycle in prov:wasDerivedFrom", "reader"),
    Rule(UNKNOWN_TYPE, WARNING, "an rdf:type in the TrustGraph namespace that the trace model does not know", "shape"),
    Rule(TIME_BEFORE_PARENT, WARNING, "a child session that starts before its parent session", "code"),
    Rule(DAMAGED_QUOTED_TRIPLE, ERROR, "a quoted triple (tg:edge, tg:contains) that survives only as a literal", "shape"),
    Rule(MISSING_TEXT, WARNING, "a tg:document of a step with no text in the loaded documents or the librarian", "shape"),
    Rule(MISSING_CHUNK_TEXT, INFO, "a reranker's chosen chunk whose text is not loaded", "shape"),
    Rule(UNTYPED_ROOT, WARNING, "a session root with no rdf:type, found by its tg:query and IRI", "reader"),
    Rule(SHARED_STEP, WARNING, "a step that two sessions claim", "reader"),
    Rule(UNFINISHED, INFO, "a session with no Conclusion or final Synthesis", "code"),
    Rule(UNPARSED_REPLY, INFO, "a reply of the model the agent could not parse (tg:action \"__parse_error__\"): "
                               "no tool ran", "code"),
    Rule(UNSUPPORTED_SENTENCE, INFO, "a sentence of the answer that nothing in the trace supports (no Observation, "
                                     "chunk, selected edge, Finding or step result holds its words)", "code"),
)}


def severity_rank(severity: str) -> int:
    """0 for "error", 1 for "warning", 2 for "info" (lower is more severe)."""
    return SEVERITIES.index(severity)


def at_or_above(severity: str, threshold: str) -> bool:
    """Whether ``severity`` is ``threshold`` or more severe (an error is at or above a warning)."""
    return severity_rank(severity) <= severity_rank(threshold)
