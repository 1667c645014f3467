"""Texts that arrive after a session was read (a librarian asked a step at a time): put in by
the rules the reader uses when it has them from the start (``fields.read_step``: a kind's text
field from its ``tg:document``; ``agent.copy_words``: an Analysis gets its Thought's and
Observation's words; ``docrag.chunk_record``: a chunk selection's text; the session's answer),
so a session read first and given its texts later shows what one read with them shows.
"""

from __future__ import annotations

from collections.abc import Mapping

from .agent import copy_words
from .problems import MISSING_TEXT, Problem, triple_text
from .session import ANSWER_KINDS, TEXT_FIELDS, Session, Step
from .vocabulary import DOCUMENT


def step_documents(session: Session, step_id: str) -> list[str]:
    """The ``tg:document`` IRIs whose texts step ``step_id`` shows: its own, its Thought's and
    Observation's (an Analysis), its chunk selections' (a Focus), each once."""
    step = session.nodes.get(step_id)
    if step is None:
        return []
    parts = [step] + [session.nodes[i] for i in (step.fields.get("thought_id"), step.fields.get("observation_id"))
                      if i in session.nodes]
    out = [p.fields["document"] for p in parts if p.fields.get("document")]
    out += [c["chunk"] for c in step.fields.get("chunks", []) if isinstance(c, dict) and c.get("chunk")]
    return list(dict.fromkeys(out))


def apply_texts(session: Session, texts: Mapping[str, str]) -> int:
    """Give ``session``'s steps the texts among ``texts`` (document IRI -> text) that they
    point at and do not show yet; returns how many entities got one."""
    given = 0
    for node in session.nodes.values():
        text = texts.get(node.fields.get("document") or "")
        field = TEXT_FIELDS.get(node.kind, "text")
        if text is not None and field not in node.fields:
            node.fields[field] = text
            given += 1
    for step in session.steps:
        if step.kind == "Analysis":
            copy_words(step, session.nodes)
        for chunk in step.fields.get("chunks", []):
            if isinstance(chunk, dict) and chunk.get("text") is None and chunk.get("chunk") in texts:
                chunk["text"] = texts[chunk["chunk"]]
    answers = [s for s in session.steps if s.kind in ANSWER_KINDS]
    if answers and session.answer is None:
        session.answer = answers[-1].fields.get("answer")
    return given


def note_missing_texts(session: Session, missing: Mapping[str, str]) -> None:
    """Warn, on each entity of ``session`` whose ``tg:document`` is in ``missing`` (document IRI
    -> why it could not be had), and on the session, that its text is not there."""
    for node in session.nodes.values():
        reason = missing.get(node.fields.get("document") or "")
        if reason is not None:
            _warn(session, node, f"its text could not be had: {reason}")


def _warn(session: Session, step: Step, message: str) -> None:
    problem = Problem(MISSING_TEXT, step.id, message, triple_text(step.id, DOCUMENT, step.fields["document"]))
    if problem not in step.problems:
        step.problems.append(problem)
        session.problems.append(problem)
