"""The words of a session that the list's search reaches, by field: what a person may remember
of a session (a word of its answer, a tool it called, an error it met) finds it.

``session_words(session)`` -> ``{"question": …, "answer": …, "thought": …, …}``, one text per
``WORD_FIELDS`` name (each text the distinct values of that field over the session's entities,
one a line; "" when none). The fields, from the entities' parsed fields
(``model.fields.FIELD_MAP``, ``session.TEXT_FIELDS``):

- ``question``: the Question's ``tg:query``;
- ``answer``: a Conclusion's or Synthesis's answer (inline or its ``tg:document``);
- ``thought``: Thoughts, an Analysis's reasoning, a Focus's reasoning, Plan steps, sub-agent
  goals, concepts of a GraphRAG Grounding;
- ``tool``: the tools called (``tg:action``) and their arguments (``tg:arguments``, as written);
- ``observation``: what a tool returned;
- ``error``: a tool's error (``tg:toolError``);
- ``finding``: a supervisor's Findings;
- ``result``: a plan's StepResults and any other entity's document text;
- ``iri``: the session's IRI.

The words of a text held behind a ``tg:document`` are here only when the session was read with
its texts (files and stores read them; a TrustGraph gateway reads them when a session is opened).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from .session import Session

WORD_FIELDS = ("question", "answer", "thought", "tool", "observation", "error", "finding", "result", "iri")

# an entity's kind -> the search field of the text behind its tg:document (session.TEXT_FIELDS;
# any other kind's text is "result")
DOCUMENT_FIELDS = {"Thought": "thought", "Observation": "observation", "Conclusion": "answer", "Synthesis": "answer",
                   "StepResult": "result", "Finding": "finding"}
# step field -> the search field its words go to (lists are every value)
_FIELD_WORDS = {"answer": "answer", "thought": "thought", "reasoning": "thought", "plan_steps": "thought",
                "goals": "thought", "concepts": "thought", "action": "tool", "arguments": "tool",
                "observation": "observation", "error": "error", "finding": "finding", "result": "result",
                "text": "result"}


def session_words(session: Session) -> dict[str, str]:
    """The searchable words of ``session`` by ``WORD_FIELDS`` name (see the module docstring):
    each field's distinct texts in the order met, one a line: the steps in reading order, then
    the other entities in IRI order, so that the same session read from a file or from a store
    (whose triples come in another order) gives the same words."""
    found: dict[str, dict[str, None]] = {name: {} for name in WORD_FIELDS}
    if session.question:
        found["question"][session.question] = None
    if session.answer:
        found["answer"][session.answer] = None
    nodes = session.nodes
    ordered = [nodes[n] for n in dict.fromkeys(session.order) if n in nodes]
    ordered += [nodes[n] for n in sorted(nodes.keys() - set(session.order))]
    for node in ordered:
        fields = node.fields
        for name, target in _FIELD_WORDS.items():
            value = fields.get(name)
            if value is not None:
                for text in _texts(value):
                    found[target][text] = None
    found["iri"][session.id] = None
    return {name: "\n".join(texts) for name, texts in found.items()}


def _texts(value: object) -> Iterable[str]:
    """The strings of a field's value: itself, each of a list, JSON for other values (arguments
    parsed as JSON)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,) if value.strip() else ()
    if isinstance(value, (list, tuple)):
        return tuple(t for v in value for t in _texts(v))
    if isinstance(value, (dict, int, float, bool)):
        return (json.dumps(value, ensure_ascii=False),)
    return ()
