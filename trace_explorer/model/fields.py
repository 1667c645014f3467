"""One entity read into a Step: its kind, its PROV class and its fields, parsed from TrustGraph's
predicates (TRACE-MODEL.md, "Common step metadata": every literal is a plain string; a value
that does not parse is missing, with a warning on the step)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pyoxigraph as ox

from .literals import parse_float, parse_int, parse_json, parse_time
from .ordering import natural_key
from .problems import ARGUMENTS_NOT_JSON, BAD_LITERAL, Problem, triple_text
from .session import TEXT_FIELDS, Step
from .triple_index import TripleIndex, term_key
from .vocabulary import PROV, PROV_ACTIVITY, PROV_AGENT, RDF_TYPE, RDFS_LABEL, SELECTED_CHUNK, STARTED_AT_TIME, TG

# The order in which a step's types name its kind: the most specific TrustGraph class first
# (a Synthesis is also a tg:Answer, an Observation of a failed call also a tg:Error).
KIND_ORDER = (
    "Question", "PatternDecision", "Decomposition", "Plan", "Analysis", "Thought", "Observation",
    "Conclusion", "Grounding", "Exploration", "Focus", "EdgeSelection", "ChunkSelection",
    "StepResult", "Finding", "Synthesis", "Subgraph", "Document", "Page", "Section", "Image", "Chunk",
)
# Kind from the IRI when an entity carries no type (seed data and damaged exports).
KIND_FROM_IRI = (
    (re.compile(r"/i\d+/thought$"), "Thought"),
    (re.compile(r"/i\d+/observation$"), "Observation"),
    (re.compile(r"/i\d+$"), "Analysis"),
    (re.compile(r"/final$"), "Conclusion"),
    (re.compile(r"/pattern-decision$"), "PatternDecision"),
    (re.compile(r"/plan$"), "Plan"),
    (re.compile(r"/step/\d+$"), "StepResult"),
    (re.compile(r"/decompose$"), "Decomposition"),
    (re.compile(r"/finding/\d+$"), "Finding"),
    (re.compile(r"(/|:prov:)synthesis\b"), "Synthesis"),
    (re.compile(r"(/|:prov:)exploration\b"), "Exploration"),
    (re.compile(r"(/|:prov:)grounding\b"), "Grounding"),
    (re.compile(r"(/|:prov:)focus\b"), "Focus"),
    (re.compile(r":prov:edge:"), "EdgeSelection"),
    (re.compile(r":prov:chunk:"), "ChunkSelection"),
    # extraction provenance (TrustGraph's provenance/uris.py): urn:page:{uuid}, urn:chunk:{uuid}, ...
    (re.compile(r"^urn:page:"), "Page"),
    (re.compile(r"^urn:section:"), "Section"),
    (re.compile(r"^urn:image:"), "Image"),
    (re.compile(r"^urn:chunk:"), "Chunk"),
    (re.compile(r"^https://trustgraph\.ai/subgraph/"), "Subgraph"),
)

# tg: predicate local name -> (field, parser, many values)
_INT, _FLOAT, _TEXT, _IRI, _JSON = "int", "float", "text", "iri", "json"
FIELD_MAP: dict[str, tuple[str, str, bool]] = {
    "action": ("action", _TEXT, False),
    "arguments": ("arguments", _JSON, False),
    "toolCandidate": ("tool_candidates", _TEXT, True),
    "stepNumber": ("step_number", _INT, False),
    "llmDurationMs": ("llm_duration_ms", _INT, False),
    "toolDurationMs": ("tool_duration_ms", _INT, False),
    "toolError": ("error", _TEXT, False),
    "inToken": ("in_tokens", _INT, False),
    "outToken": ("out_tokens", _INT, False),
    "llmModel": ("model", _TEXT, False),
    "terminationReason": ("termination_reason", _TEXT, False),
    "pattern": ("pattern", _TEXT, False),
    "taskType": ("task_type", _TEXT, False),
    "planStep": ("plan_steps", _TEXT, True),
    "subagentGoal": ("goals", _TEXT, True),
    "concept": ("concepts", _TEXT, True),
    "edgeCount": ("edge_count", _INT, False),
    "entity": ("entities", _IRI, True),
    "chunkCount": ("chunk_count", _INT, False),
    "score": ("score", _FLOAT, False),
    "reasoning": ("reasoning", _TEXT, False),
    "document": ("document", _IRI, False),
    "query": ("query", _TEXT, False),
    "componentVersion": ("component_version", _TEXT, False),
}
# Seed-shape inline texts: tg: local name -> field.
_INLINE_TEXT = {"thought": "thought", "observation": "observation", "answer": "answer",
                "content": "answer"}
# Links to sub-entities: read when the session is put together, not as fields.
_LINKS = ("thought", "selectedEdge", "selectedChunk", "observation")


_KIND_RANK = {TG + kind: rank for rank, kind in enumerate(KIND_ORDER)}  # a type's IRI -> its place in KIND_ORDER
# tg: predicate -> how ``read_step`` reads it: (_FIELD, name), (_INLINE, name), (_EXTRA, None) or
# (_SKIP, None); worked out once a predicate
_SKIP, _FIELD, _INLINE, _EXTRA = range(4)
_READING: dict[str, tuple[int, str | None]] = {}
_READING_KEPT = 4096  # predicates whose reading is kept (a trace has a few dozen)


def kind_of(subject: str, types: set[str]) -> str:
    """The TrustGraph class that names an entity: its most specific tg: type (``KIND_ORDER``),
    else the shape of its IRI (``KIND_FROM_IRI``), else any tg: type, else its PROV class."""
    ranks = [_KIND_RANK[t] for t in types if t in _KIND_RANK]
    if ranks:
        return KIND_ORDER[min(ranks)]
    local = {t[len(TG):] for t in types if t.startswith(TG)}
    for pattern, kind in KIND_FROM_IRI:
        if pattern.search(subject):
            return kind
    if local:
        return sorted(local)[0]
    for cls in ("Activity", "Agent", "Entity"):
        if PROV + cls in types:
            return cls
    return "Entity"


def show(term) -> str:
    """A term as text: an IRI or a literal's value; a triple term in N-Triples form."""
    if isinstance(term, (ox.NamedNode, ox.BlankNode)):
        return term_key(term)
    if isinstance(term, ox.Literal):
        return term.value
    return str(term)


def read_step(index: TripleIndex, documents: Mapping[str, str], subject: str, root: str) -> Step:
    """The Step ``subject`` of the session ``root``, with its fields parsed and, where it points
    at a ``tg:document`` that ``documents`` (IRI -> text) holds, that text in the kind's text
    field (``TEXT_FIELDS``)."""
    types = index.types(subject)
    kind = "Question" if subject == root else kind_of(subject, types)
    prov_class = "Activity" if PROV_ACTIVITY in types else "Agent" if PROV_AGENT in types else "Entity"
    step = Step(id=subject, kind=kind, types=tuple(sorted(types)), prov_class=prov_class,
                label=index.literal(subject, RDFS_LABEL),
                parents=[p for p, _ in index.parents(subject)])
    fields: dict[str, Any] = {}
    extra: dict[str, list[str]] = {}
    for predicate, objects in index.properties.get(subject, {}).items():
        how, name = _READING.get(predicate) or _reading(predicate)
        if how == _FIELD:
            _set_field(step, fields, name, predicate, objects)
        elif how == _INLINE:
            text = next((o.value for o in objects if isinstance(o, ox.Literal)), None)
            if text is not None:
                fields[_INLINE_TEXT[name]] = text
            elif name not in _LINKS:
                extra[predicate] = [show(o) for o in objects]
        elif how == _EXTRA:
            extra[predicate] = [show(o) for o in objects]
    started = index.literal(subject, STARTED_AT_TIME)
    if started is not None:
        fields["started"] = parse_time(started)
        if fields["started"] is None:
            step.problems.append(Problem(BAD_LITERAL, subject, f"startedAtTime {started!r} is not an ISO-8601 time",
                                         triple_text(subject, STARTED_AT_TIME, ox.Literal(started))))
    if "document" in fields:
        text = documents.get(fields["document"])
        if text is not None:
            fields.setdefault(TEXT_FIELDS.get(kind, "text"), text)
    if kind == "Observation" and ("error" in fields or TG + "Error" in types):
        fields.setdefault("error", "")
    if kind == "Exploration":
        fields["chunks"] = sorted((show(o) for o in index.objects(subject, SELECTED_CHUNK)
                                   if not _is_selection(index, o)), key=natural_key)
        if not fields["chunks"]:
            del fields["chunks"]
    if extra:
        fields["extra"] = extra
    step.fields = fields
    return step


def _reading(predicate: str) -> tuple[int, str | None]:
    """How ``read_step`` reads ``predicate`` (see ``_READING``): a field (``FIELD_MAP``), an
    inline text (``_INLINE_TEXT``; a link when it has no literal and its name is in ``_LINKS``),
    a link or a type, label or PROV term (skipped), else an extra field."""
    name = predicate[len(TG):] if predicate.startswith(TG) else None
    if predicate in (RDF_TYPE, RDFS_LABEL) or predicate.startswith(PROV) or (name in _LINKS and name not in _INLINE_TEXT):
        how = (_SKIP, None)
    elif name in FIELD_MAP:
        how = (_FIELD, name)
    elif name in _INLINE_TEXT:
        how = (_INLINE, name)
    else:
        how = (_EXTRA, None)
    if len(_READING) < _READING_KEPT:
        _READING[predicate] = how
    return how


def _is_selection(index: TripleIndex, term) -> bool:
    return isinstance(term, ox.NamedNode) and kind_of(term.value, index.types(term.value)) == "ChunkSelection"


def _set_field(step: Step, fields: dict, name: str, predicate: str, objects: list) -> None:
    field_name, parser, many = FIELD_MAP[name]
    values = []
    for obj in objects:
        if parser == _IRI or not isinstance(obj, ox.Literal):
            values.append(show(obj))
            continue
        text = obj.value
        if parser == _JSON:
            value, ok = parse_json(text)
            if not ok:
                step.problems.append(Problem(ARGUMENTS_NOT_JSON, step.id, f"{name} is not JSON: {text[:80]!r}",
                                             triple_text(step.id, predicate, obj)))
            values.append(value)
            continue
        value = parse_int(text) if parser == _INT else parse_float(text) if parser == _FLOAT else text
        if value is None:
            step.problems.append(Problem(BAD_LITERAL, step.id, f"{name} {text[:80]!r} is not a number",
                                         triple_text(step.id, predicate, obj)))
        values.append(value)
    if many:
        fields[field_name] = sorted(values, key=natural_key)
    elif values:
        fields[field_name] = values[0]
