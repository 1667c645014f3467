"""Everything recorded about one step as a list of *sections*: plain data the session workspace
(``components/session/workspace/``) draws as the step inspector, in the order a person reads them.

An Analysis shows its thought, its action with the arguments and the observation it got back
together (as Langfuse shows a call's input and output), so no one has to move to the
Observation to see what the tool answered.

A section is a dict with ``t`` (its type) and:

- ``"metrics"``: ``items`` = [[label, value], ...] (LLM / tool time, tokens, model; values are
  display strings: "7.9 s", "1,655");
- ``"error"`` / ``"warning"`` / ``"note"``: ``text``;
- ``"line"``: ``title``, ``text`` (a short value: a tool name, a pattern, concepts);
- ``"prose"``: ``title``, ``text`` (a thought, an observation, an answer: long, wrapped), and
  ``iri`` when the text is of an entity of its own (an Analysis's Thought or Observation);
- ``"code"``: ``title``, ``text`` (arguments: indented JSON when they parse, else as recorded);
- ``"list"``: ``title``, ``items`` (plan steps, goals, seed entities);
- ``"table"``: ``title``, ``columns``, ``rows`` (lists of cells: str, number or None), and
  ``note`` (None or a sentence about missing texts);
- ``"link"``: ``text``, ``session`` (a sub-session's IRI: the page opens it) and, in the
  workspace, ``label`` (its mechanism and question);
- ``"details"``: ``rows`` = [[field name, value], ...] (every other field, as in the CLI's report).

Every text is trace text: untrusted, with its invisible controls shown (``visible_controls``);
the component writes it with ``textContent``. Long values are cut at ``CELL_LIMIT`` characters
in tables and ``TEXT_LIMIT`` in prose, lines and code (the cut says how long the whole was): a
bound on the data. The component then writes the first few hundred characters of each text and
the rest on a click (``components/session/workspace/dom.js``, ``clippedText``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..model.docrag import PLAIN_CHUNK_ID, is_plain_chunk_id
from ..model.literals import format_time
from ..model.session import Session, Step
from ..model.totals import format_ms
from .report import FIELD_ORDER
from .step_labels import tool_note
from .visible_text import visible_controls

CELL_LIMIT = 2000  # characters of one table cell
TEXT_LIMIT = 60_000  # characters of one prose section
PLAIN_TEXT = "(none: a plain id, not an IRI)"
# Fields drawn in their own section; the rest go to "details".
OWN_SECTIONS = {"query", "thought", "action", "arguments", "tool_candidates", "observation", "error", "parse_error",
                "edges", "chunks", "answer", "result", "finding", "concepts", "entities", "plan_steps", "goals",
                "plan_step", "goal", "pattern", "task_type", "llm_duration_ms", "tool_duration_ms", "in_tokens",
                "out_tokens", "thought_id", "observation_id", "termination_reason", "model"}


def step_sections(step: Step, home: Session, texts: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The sections (module docstring) of ``step``, a step (or the root) of ``home``.
    ``texts``: chunk IRI -> chunk text, as the source holds them (a chunk not in it is None in
    its table, and the table's ``note`` says so)."""
    fields = step.fields
    out: list[dict[str, Any]] = []
    if step.warnings:
        out.extend({"t": "warning", "text": visible_controls(w)} for w in step.warnings)
    observed = home.nodes.get(fields.get("observation_id") or "")
    metrics = _metrics(fields, observed)
    if metrics:
        out.append({"t": "metrics", "items": metrics})
    if fields.get("query") is not None:
        out.append(_prose("Question", fields["query"]))
    if fields.get("error") is not None:
        out.append({"t": "error", "text": visible_controls(f"Tool error: {fields['error']}")})
    if "parse_error" in fields:
        out.append({"t": "error", "text": visible_controls(
            "The model's reply could not be parsed: no tool ran"
            + (f" ({fields['parse_error']})" if fields["parse_error"] else ""))})
    elif tool_note(step):
        out.append(_line("Tool", tool_note(step)))
    if step.kind == "PatternDecision" or "pattern" in fields:
        task = fields.get("task_type")
        out.append(_line("Pattern", f"{fields.get('pattern')}" + (f"  (task type: {task})" if task else "")))
    if fields.get("thought") is not None:
        out.append(_prose("Thought", fields["thought"], fields.get("thought_id")))
    elif fields.get("thought_id"):
        thought = home.nodes.get(fields["thought_id"])
        where = thought.fields.get("document") if thought else None
        out.append(_note(f"Thought text not loaded{f' ({where})' if where else ''}. Add the matching "
                         "*.documents.json file to see it."))
    if fields.get("action"):
        out.append(_line("Action", fields["action"]))
    if "arguments" in fields:
        out.append(_code("Arguments", fields["arguments"]))
    if fields.get("tool_candidates"):
        out.append(_line("Tool candidates", ", ".join(map(str, fields["tool_candidates"]))))
    if fields.get("observation") is not None and fields.get("observation") != fields.get("error"):
        out.append(_prose("Observation", fields["observation"], fields.get("observation_id")))
    elif step.kind == "Observation" and "observation" not in fields and fields.get("document"):
        out.append(_note(f"Observation text not loaded ({fields['document']})."))
    elif step.kind == "Analysis" and "observation" not in fields and fields.get("observation_id"):
        out.append(_note("Observation text not loaded: see the Observation step."))
    if fields.get("termination_reason"):
        out.append(_line("Termination reason", fields["termination_reason"]))
    if fields.get("concepts"):
        out.append(_line("Concepts", ", ".join(map(str, fields["concepts"]))))
    for name, title in (("entities", "Seed entities"), ("plan_steps", "Plan"), ("goals", "Sub-agent goals")):
        if fields.get(name):
            out.append({"t": "list", "title": title, "items": [_cell(v) for v in fields[name]]})
    for name, title in (("plan_step", "Plan step"), ("goal", "Goal")):
        if fields.get(name):
            out.append(_prose(title, fields[name]))
    if fields.get("edges"):
        out.append(edge_table(fields["edges"]))
    if fields.get("chunks"):
        out.append(chunk_table(fields["chunks"], texts or {}))
    for name, title in (("result", "Result"), ("finding", "Finding"), ("answer", "Answer")):
        if fields.get(name) is not None:
            out.append(_prose(title, fields[name]))
    if step.kind in ("Conclusion", "Synthesis", "StepResult", "Finding") and not any(
            fields.get(n) is not None for n in ("result", "finding", "answer")) and fields.get("document"):
        out.append(_note(f"Text not in the loaded files ({fields['document']}). Add the matching "
                         "*.documents.json file to see it."))
    for child in (c for c in home.children if home.graph.has_edge(c, step.id)):
        out.append({"t": "link", "text": "Started sub-session", "session": child})
    out.append({"t": "details", "rows": _details(step)})
    return out


def _metrics(fields: Mapping[str, Any], observed: Step | None) -> list[list[str]]:
    tool_ms = fields.get("tool_duration_ms")
    if tool_ms is None and observed is not None:  # an Analysis: its Observation's tool time
        tool_ms = observed.fields.get("tool_duration_ms")
    items = [
        ("LLM", format_ms(fields["llm_duration_ms"]) if _number(fields.get("llm_duration_ms")) else None),
        ("Tool", format_ms(tool_ms) if _number(tool_ms) else None),
        ("Tokens in", f"{fields['in_tokens']:,}" if _number(fields.get("in_tokens")) else None),
        ("Tokens out", f"{fields['out_tokens']:,}" if _number(fields.get("out_tokens")) else None),
        ("Model", visible_controls(str(fields["model"])) if fields.get("model") else None),
    ]
    return [[label, value] for label, value in items if value is not None]


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _line(title: str, value: Any) -> dict[str, Any]:
    return {"t": "line", "title": title, "text": _bounded(value)}


def _note(text: str) -> dict[str, Any]:
    return {"t": "note", "text": visible_controls(text)}


def _prose(title: str, text: Any, iri: str | None = None) -> dict[str, Any]:
    """A prose section; ``iri``: the entity the text is of when it is not the step's own (an
    Analysis's Thought or Observation), which a review of words of the text targets."""
    out = {"t": "prose", "title": title, "text": _bounded(text)}
    if iri:
        out["iri"] = iri
    return out


def _bounded(text: Any) -> str:
    """``text`` with its invisible controls shown, cut at ``TEXT_LIMIT`` characters (saying how
    long the whole was)."""
    value = visible_controls(str(text))
    if len(value) > TEXT_LIMIT:
        value = value[:TEXT_LIMIT] + f" … ({len(value):,} characters in all)"
    return value


def _code(title: str, value: Any) -> dict[str, Any]:
    if isinstance(value, (dict, list)):
        text = json.dumps(value, ensure_ascii=False, indent=2)
    elif isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False)
    return {"t": "code", "title": title, "text": _bounded(text)}


def _cell(value: Any) -> str:
    text = visible_controls(str(value))
    return text if len(text) <= CELL_LIMIT else text[:CELL_LIMIT] + f" … ({len(text):,} characters)"


def short_name(iri: str | None) -> str:
    """The last segment of an IRI ("http://trustgraph.ai/e/france" -> "france")."""
    text = iri or ""
    for cut in ("#", "/", ":"):
        head, sep, tail = text.rstrip(cut).rpartition(cut)
        if sep and tail:
            return tail
    return text


def edge_table(edges: list[dict[str, Any]]) -> dict[str, Any]:
    """GraphRAG edge selections as a "table" section: Subject, Predicate, Object (the rdfs:label
    where the trace has one, else the IRI's last segment; a literal object as is), Concept,
    Score, Reasoning, and Triple (the full IRIs: "s p o")."""
    rows = []
    for edge in edges:
        if edge.get("stored"):
            subject = edge.get("s_label") or short_name(edge.get("s"))
            predicate = edge.get("p_label") or short_name(edge.get("p"))
            obj = edge.get("o_label") or (edge.get("o") if edge.get("o_is_literal") else short_name(edge.get("o")))
        else:
            subject, predicate, obj = "(edge not stored)", "", edge.get("raw") or ""
        rows.append([_cell(subject), _cell(predicate), _cell(obj),
                     None if edge.get("concept") is None else _cell(edge["concept"]), edge.get("score"),
                     None if edge.get("reasoning") is None else _cell(edge["reasoning"]),
                     _cell(" ".join(str(edge.get(k) or "") for k in ("s", "p", "o")).strip())])
    return {"t": "table", "title": f"Selected edges ({len(rows)})",
            "columns": ["Subject", "Predicate", "Object", "Concept", "Score", "Reasoning", "Triple"],
            "rows": rows, "note": None}


def chunk_table(chunks: list[Any], texts: Mapping[str, str]) -> dict[str, Any]:
    """DocRAG chunks as a "table" section: Text (the chunk's words: from the selection, else
    from ``texts``; None when not loaded; ``PLAIN_TEXT`` for a seed-shape plain id), Score (a
    reranker's Focus only) and Chunk (IRI, or the plain id); ``note`` says how many texts are
    missing and where they would come from."""
    rows = []
    for chunk in chunks:
        iri, score, text = (chunk.get("chunk"), chunk.get("score"), chunk.get("text")) if isinstance(chunk, dict) \
            else (str(chunk), None, None)
        text = text if text is not None else texts.get(iri or "")
        if text is None and iri and is_plain_chunk_id(iri):
            text = PLAIN_TEXT
        rows.append([None if text is None else _cell(text), score, _cell(iri or "")])
    scored = any(row[1] is not None for row in rows)
    columns = ["Text", "Score", "Chunk"] if scored else ["Text", "Chunk"]
    if not scored:
        rows = [[row[0], row[2]] for row in rows]
    missing = sum(1 for row in rows if row[0] is None)
    plain = sum(1 for row in rows if row[0] == PLAIN_TEXT)
    notes = []
    if plain:
        notes.append(f"{'These chunks are each' if plain == len(rows) else f'{plain:,} chunks are each'} named by "
                     f"{PLAIN_CHUNK_ID}.")
    if missing:
        notes.append(f"{'The texts of these chunks are' if missing == len(rows) else f'{missing:,} chunk texts are'} "
                     "not in this source: add the *.documents.json file (or connect the librarian) that holds them.")
    return {"t": "table", "title": f"Chunks ({len(rows)})", "columns": columns, "rows": rows,
            "note": " ".join(notes) or None}


def _details(step: Step) -> list[list[str]]:
    names = [n for n in FIELD_ORDER if n in step.fields and n not in OWN_SECTIONS]
    names += sorted(n for n in step.fields if n not in FIELD_ORDER and n not in OWN_SECTIONS)
    rows = [[name.replace("_", " "), _plain(step.fields[name])] for name in names]
    if step.label and step.label != step.kind:
        rows.insert(0, ["label", visible_controls(step.label)])
    rows.append(["types", ", ".join(t.rsplit("/", 1)[-1].rsplit("#", 1)[-1] for t in step.types)])
    rows.append(["PROV class", step.prov_class])
    return rows


def _plain(value: Any) -> str:
    if hasattr(value, "isoformat"):
        return format_time(value) or ""
    if isinstance(value, (dict, list, tuple)):
        return _cell(json.dumps(value, ensure_ascii=False, default=str))
    return _cell(value)
