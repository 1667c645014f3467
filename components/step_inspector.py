"""Everything recorded about one step, laid out by what it is.

Trace text is shown with ``st.text`` (prose, tool names, IRIs), ``st.json`` (arguments; ``st.code``
for arguments that are not JSON) and ``st.dataframe`` (edges, chunks, lists); tool errors and warnings go through
``md_escape`` into ``st.error`` / ``st.warning``. Nothing is rendered as Markdown or HTML.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from trace_explorer.model.docrag import PLAIN_CHUNK_ID, is_plain_chunk_id
from trace_explorer.model.literals import format_time
from trace_explorer.model.session import Session, Step
from trace_explorer.views.report import FIELD_ORDER
from trace_explorer.views.step_labels import has_error, timeline_label, tool_note
from trace_explorer.views.visible_text import visible_controls

from .collection import Collection
from .session_header import session_link
from .text import badge_escape, format_ms, long_text, md_escape

# Fields drawn in their own section; the rest go to the "Details" table.
_SECTIONS = {"query", "thought", "action", "arguments", "tool_candidates", "observation", "error", "parse_error",
             "edges", "chunks", "answer", "result", "finding", "concepts", "entities",
             "plan_steps", "goals", "plan_step", "goal", "pattern", "task_type", "llm_duration_ms",
             "tool_duration_ms", "in_tokens", "out_tokens", "thought_id", "observation_id", "termination_reason"}


def step_inspector(session: Session, step_id: str | None, collection: Collection,
                   owner: Session | None = None, wide: Any = None) -> None:
    """Draw the inspector for the step ``step_id`` of ``session``, or of its sub-session
    ``owner`` (a stop of the step walk inside a sub-session: a link opens that sub-session).
    ``wide`` (a container as wide as the page) takes the tables of many columns, the chosen
    edges and chunks, so that none of their columns is cut off in a narrow inspector."""
    home = owner if owner is not None else session
    step = home.nodes.get(step_id) if step_id else None
    if step is None:
        st.caption("Pick a step on the timeline or in the list above.")
        return
    if home.id != session.id:  # by IRI: a step walk kept from an earlier read holds other Session objects
        where = "This sub-session's question" if step.id == home.id else "A step of the sub-session"
        session_link(home.id, collection, prefix=f"{where}: ", icon=":material/subdirectory_arrow_right:")
    fields = step.fields
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        st.markdown(f"**{md_escape(timeline_label(step, width=48))}**")
        st.badge(badge_escape(step.kind), color="red" if has_error(step) else "gray")
        st.badge(badge_escape(step.prov_class), color="gray")
    # st.text, not st.code: the code block's highlighter costs the browser most of a second to load
    st.text(visible_controls(step.id))
    if step.warnings:  # values of this step that did not parse: shown as missing or as recorded below
        text = step.warnings[0] if len(step.warnings) == 1 else "\n".join(
            [f"{len(step.warnings)} problems in this step:"] + [f"• {w}" for w in step.warnings])
        st.warning(md_escape(text), icon=":material/warning:")

    _numbers(fields)
    if fields.get("error") is not None:
        st.error(md_escape(f"Tool error: {fields['error']}"), icon=":material/error:")
    if "parse_error" in fields:  # no tool ran: the agent could not read the model's reply
        st.error(md_escape(f"The model's reply could not be parsed: no tool ran"
                           + (f" ({fields['parse_error']})" if fields["parse_error"] else "")), icon=":material/error:")
    elif tool_note(step):
        _line("Tool", tool_note(step))
    if step.kind == "PatternDecision" or "pattern" in fields:
        _line("Pattern", fields.get("pattern"), fields.get("task_type") and f"task type: {fields['task_type']}")
    if fields.get("thought") is not None:
        _prose("Thought", fields["thought"])
    elif fields.get("thought_id"):
        thought = home.nodes.get(fields["thought_id"])
        where = thought.fields.get("document") if thought else None
        st.caption(md_escape(f"Thought text not loaded{f' ({where})' if where else ''}. Add the matching "
                             "*.documents.json file to see it."))
    if fields.get("termination_reason"):
        _line("Termination reason", fields["termination_reason"])
    if fields.get("action"):
        st.caption("Action")
        st.text(visible_controls(str(fields["action"])))
    if "arguments" in fields:
        st.caption("Arguments")
        _json_value(fields["arguments"])
    if fields.get("tool_candidates"):
        st.caption("Tool candidates")
        st.text(visible_controls(", ".join(map(str, fields["tool_candidates"]))))
    if fields.get("observation") is not None and fields.get("observation") != fields.get("error"):
        _prose("Observation", fields["observation"])
    elif step.kind == "Observation" and "observation" not in fields and fields.get("document"):
        st.caption(md_escape(f"Observation text not loaded ({fields['document']})."))
    elif step.kind == "Analysis" and "observation" not in fields and fields.get("observation_id"):
        st.caption("Observation text not loaded: see the Observation step.")
    if fields.get("concepts"):
        st.caption("Concepts")
        st.text(visible_controls(", ".join(map(str, fields["concepts"]))))
    if fields.get("entities"):
        _list_table("Seed entities", "Entity", fields["entities"])
    if fields.get("plan_steps"):
        _list_table("Plan", "Plan step", fields["plan_steps"])
    if fields.get("goals"):
        _list_table("Sub-agent goals", "Goal", fields["goals"])
    if fields.get("plan_step"):
        _prose("Plan step", fields["plan_step"])
    if fields.get("goal"):
        _prose("Goal", fields["goal"])
    parts = (("edges", "Selected edges", _edges), ("chunks", "Chunks", lambda chunks: _chunks(chunks, collection)))
    for name, title, draw in parts:
        if not fields.get(name):
            continue
        if wide is None:
            draw(fields[name])
            continue
        st.caption(f"{title} ({len(fields[name])}): in the table under the timeline")
        with wide:
            st.markdown(f"**{md_escape(timeline_label(step, width=60))}**")
            draw(fields[name])
    for name, title in (("result", "Result"), ("finding", "Finding"), ("answer", "Answer")):
        if fields.get(name) is not None:
            _prose(title, fields[name])
    if step.kind in ("Conclusion", "Synthesis", "StepResult", "Finding") and not any(
            fields.get(n) is not None for n in ("result", "finding", "answer")) and fields.get("document"):
        st.caption(md_escape(f"Text not in the loaded files ({fields['document']}). Add the matching "
                             "*.documents.json file to see it."))
    for child in (c for c in home.children if home.graph.has_edge(c, step.id)):
        session_link(child, collection, prefix="Started sub-session: ",
                     icon=":material/subdirectory_arrow_right:")
    _details(step)


def _numbers(fields: dict[str, Any]) -> None:
    values = [(label, value) for label, value in (
        ("LLM", format_ms(fields["llm_duration_ms"]) if fields.get("llm_duration_ms") is not None else None),
        ("Tool", format_ms(fields["tool_duration_ms"]) if fields.get("tool_duration_ms") is not None else None),
        ("Tokens in", f"{fields['in_tokens']:,}" if isinstance(fields.get("in_tokens"), int) else None),
        ("Tokens out", f"{fields['out_tokens']:,}" if isinstance(fields.get("out_tokens"), int) else None),
    ) if value is not None]
    if values:
        with st.container(horizontal=True, gap="small"):
            for label, value in values:
                st.metric(label, value, border=True, width=120)
    if fields.get("model"):
        st.caption(md_escape(f"Model: {fields['model']}"))


def _line(title: str, value: Any, note: str | None = None) -> None:
    if value is None:
        return
    st.caption(title)
    st.text(visible_controls(str(value) + (f"  ({note})" if note else "")))


def _prose(title: str, text: Any) -> None:
    st.caption(title)
    with st.container(border=True):
        long_text(text, name=title.lower().replace(" ", "-"), key=f"te_full_{title}")


def _json_value(value: Any) -> None:
    if isinstance(value, (dict, list)):
        st.json(_visible(value), expanded=2)
    elif isinstance(value, str):
        st.code(visible_controls(value), language=None, wrap_lines=True)
    else:
        st.code(visible_controls(json.dumps(value, ensure_ascii=False)), language="json")


def _visible(value: Any) -> Any:
    """A JSON value with every string's control characters shown (``visible_controls``)."""
    if isinstance(value, str):
        return visible_controls(value)
    if isinstance(value, dict):
        return {visible_controls(str(k)): _visible(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_visible(v) for v in value]
    return value


def _list_table(title: str, column: str, values: list[Any]) -> None:
    st.caption(f"{title} ({len(values)})")
    st.dataframe(pd.DataFrame({column: [_cell(v) for v in values]}), hide_index=True, width="stretch",
                 height=min(36 + 35 * len(values), 320))


def short_name(iri: str | None) -> str:
    """The last segment of an IRI ("http://trustgraph.ai/e/france" -> "france")."""
    text = iri or ""
    for cut in ("#", "/", ":"):
        head, sep, tail = text.rstrip(cut).rpartition(cut)
        if sep and tail:
            return tail
    return text


def edge_rows(edges: list[dict[str, Any]]) -> pd.DataFrame:
    """GraphRAG edge selections as a table: Subject, Predicate, Object (the rdfs:label where the
    trace has one, else the IRI's last segment; a literal object as is), Concept, Score,
    Reasoning, and Triple (the full IRIs: "s p o")."""
    rows = []
    for edge in edges:
        if edge.get("stored"):
            subject = edge.get("s_label") or short_name(edge.get("s"))
            predicate = edge.get("p_label") or short_name(edge.get("p"))
            obj = edge.get("o_label") or (edge.get("o") if edge.get("o_is_literal") else short_name(edge.get("o")))
        else:
            subject, predicate, obj = "(edge not stored)", "", edge.get("raw") or ""
        rows.append({"Subject": _cell(subject), "Predicate": _cell(predicate), "Object": _cell(obj),
                     "Concept": edge.get("concept"), "Score": edge.get("score"),
                     "Reasoning": None if edge.get("reasoning") is None else _cell(edge["reasoning"]),
                     "Triple": " ".join(str(edge.get(k) or "") for k in ("s", "p", "o")).strip()})
    return pd.DataFrame(rows, columns=["Subject", "Predicate", "Object", "Concept", "Score",
                                       "Reasoning", "Triple"])


PLAIN_TEXT = "(none: a plain id, not an IRI)"


def chunk_rows(chunks: list[Any], texts: dict[str, str] | None = None) -> pd.DataFrame:
    """DocRAG chunks as a table: Text (the chunk's words: from the selection, else from
    ``texts``, chunk IRI -> text, as the source's documents or the librarian hold them; None when
    not loaded; ``PLAIN_TEXT`` for a seed-shape plain id, which has no text anywhere), Score (a
    reranker's Focus; None for an Exploration's chunks) and Chunk (IRI, or the plain id)."""
    texts = texts or {}
    rows = []
    for chunk in chunks:
        iri, score, text = (chunk.get("chunk"), chunk.get("score"), chunk.get("text")) if isinstance(chunk, dict) \
            else (str(chunk), None, None)
        text = text if text is not None else texts.get(iri or "")
        if text is None and iri and is_plain_chunk_id(iri):
            rows.append({"Text": PLAIN_TEXT, "Score": score, "Chunk": iri})
            continue
        rows.append({"Text": None if text is None else _cell(visible_controls(text)), "Score": score, "Chunk": iri})
    return pd.DataFrame(rows, columns=["Text", "Score", "Chunk"])


def _edges(edges: list[dict[str, Any]]) -> None:
    st.caption(f"Selected edges ({len(edges)})")
    label_help = "rdfs:label where the trace has one, else the IRI's last segment (full IRIs: Triple)"
    st.dataframe(edge_rows(edges), hide_index=True, width="stretch", column_config={
        "Subject": st.column_config.TextColumn("Subject", help=label_help),
        "Predicate": st.column_config.TextColumn("Predicate", help=label_help),
        "Object": st.column_config.TextColumn("Object", help=label_help),
        "Score": st.column_config.ProgressColumn("Score", min_value=0.0, max_value=1.0, format="%.2f", width="small"),
        "Reasoning": st.column_config.TextColumn("Reasoning", width="medium"),
        "Triple": st.column_config.TextColumn("Triple", width="medium"),
    })


def _chunks(chunks: list[Any], collection: Collection) -> None:
    iris = [c.get("chunk") if isinstance(c, dict) else str(c) for c in chunks]
    frame = chunk_rows(chunks, collection.texts([i for i in iris if i]))
    st.caption(f"Chunks ({len(frame)})")
    config = {"Text": st.column_config.TextColumn("Text", width="medium"),
              "Score": st.column_config.ProgressColumn("Score", min_value=0.0, max_value=1.0, format="%.2f",
                                                       width="small"),
              "Chunk": st.column_config.TextColumn("Chunk", help="The chunk's IRI")}  # the room left: whole
    columns = [c for c in frame.columns if c != "Score" or frame["Score"].notna().any()]
    st.dataframe(frame[columns], hide_index=True, width="stretch", column_config=config,
                 placeholder="not loaded")
    missing = int(frame["Text"].isna().sum())
    plain = int((frame["Text"] == PLAIN_TEXT).sum())
    if plain:
        st.caption(f"{'These chunks are each' if plain == len(frame) else f'{plain:,} chunks are each'} named by "
                   f"{PLAIN_CHUNK_ID}.")
    if missing:
        st.caption(f"{'The texts of these chunks are' if missing == len(frame) else f'{missing:,} chunk texts are'} "
                   "not in this source: add the *.documents.json file (or connect the librarian) that holds them.")


def _details(step: Step) -> None:
    names = [n for n in FIELD_ORDER if n in step.fields and n not in _SECTIONS]
    names += sorted(n for n in step.fields if n not in FIELD_ORDER and n not in _SECTIONS)
    rows = [(name.replace("_", " "), _plain(step.fields[name])) for name in names]
    if step.label and step.label != step.kind:
        rows.insert(0, ("label", step.label))
    rows.append(("types", ", ".join(t.rsplit("/", 1)[-1].rsplit("#", 1)[-1] for t in step.types)))
    # a Markdown table (every cell escaped), not st.dataframe: a data grid costs the browser
    # about 1.5 MB of script on a page that may have no other
    table = ["| Field | Value |", "| --- | --- |"] + [
        f"| {md_escape(name, one_line=True)} | {md_escape(value, one_line=True) or ' '} |" for name, value in rows]
    with st.expander("Details", icon=":material/info:"):
        st.markdown("\n".join(table))


def _plain(value: Any) -> str:
    if hasattr(value, "isoformat"):
        return format_time(value) or ""
    if isinstance(value, (dict, list, tuple)):
        return _cell(json.dumps(value, ensure_ascii=False, default=str))
    return _cell(value)


CELL_LIMIT = 2000  # characters of one table cell


def _cell(value: Any) -> str:
    text = str(value)
    return text if len(text) <= CELL_LIMIT else text[:CELL_LIMIT] + f" … ({len(text):,} characters)"
