"""The health rules read from a session as the reader built it: what the reader noted, replies
it could not parse, answer sentences no step supports, steps no path reaches, and a
sub-session that starts before its parent."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import pyoxigraph as ox

from ...model.literals import format_time, parse_time
from ...model.problems import CYCLE, triple_text
from ...model.reader import SessionReader
from ...model.roots import step_owner
from ...model.session import PARSE_ERROR_ACTION, Session
from ...model.triple_index import DERIVATION_RELATIONS
from ...model.vocabulary import STARTED_AT_TIME, TG, WAS_DERIVED_FROM
from ...read.diagnosis import clip
from ...sources.fetch import parent_session
from ...sources.source import TraceSource
from ...sources.sparql_text import PREFIXES, iri_batches, values_clause
from ..support.evidence import unread_chunks
from ..support.support import AnswerSupport, verdict
from .finding import Finding
from .mending import text_wants
from .rules import RULES, TIME_BEFORE_PARENT, UNPARSED_REPLY, UNREACHABLE_STEP, UNSUPPORTED_SENTENCE


# -- the rules -------------------------------------------------------------------------------------
def _finding(rule: str, session: str, step: str | None, message: str, triple: str | None = None) -> Finding:
    return Finding(rule, RULES[rule].severity, session, step, message, triple)


def _reader_findings(session: Session) -> list[Finding]:
    """The reader's problems (``model.problems``), each on its step; a cycle on its first step."""
    out = []
    for problem in session.problems:
        step = problem.step
        if problem.rule == CYCLE and step is None and problem.triple:
            step = problem.triple.split(" ", 1)[0][1:-1]
        out.append(_finding(problem.rule, session.id, step, problem.message, problem.triple))
    return out


def _unparsed_replies(session: Session) -> list[Finding]:
    """An info on each Analysis that records a reply of the model the agent could not parse
    (``Session.parse_errors``): a failed LLM call, counted apart from tool errors."""
    return [_finding(UNPARSED_REPLY, session.id, step.id,
                     "the model's reply could not be parsed; no tool ran"
                     + (f": {clip(step.fields['parse_error'], 200)}" if step.fields["parse_error"] else ""),
                     triple_text(step.id, TG + "action", ox.Literal(PARSE_ERROR_ACTION)))
            for step in session.steps if step.kind == "Analysis" and "parse_error" in step.fields]


def _unsupported_sentences(session: Session, chunks: dict[str, str], support: AnswerSupport | None,
                           family: dict[str, Session] | None = None) -> list[Finding]:
    """An info on the answer step for each sentence of the answer nothing in the session (or in
    its sub-sessions, from ``family``) backs, naming the claims nothing backs and the terms no
    step holds (``support``: the answer's, ``analysis.support.support.session_support``;
    ``chunks``: chunk IRI -> text). None for an answer that was not checked (over the cap on its
    work, or past the deadline in the app): what it lacks is not known."""
    if not session.answer or support is None or support.unchecked:
        return []
    count = len(support.sentences)
    wants = text_wants(c for c in unread_chunks(session, family) if c not in chunks)  # texts that may back it later
    return [replace(_finding(UNSUPPORTED_SENTENCE, session.id, session.answer_id,
                             f"sentence {support.sentences.index(s) + 1} of {count} of the answer, "
                             f"\"{clip(s.text, 200)}\": {verdict(s, support.answer, 120)}"),
                    wants=wants)
            for s in support.unsupported]


def _unreachable(session: Session) -> list[Finding]:
    """Entities whose IRI extends the session root (``{root}/...``) that no derivation from the
    root reaches (following derivations down, and the thoughts and selections steps point at)."""
    graph, root = session.graph, session.id
    pred, succ = graph.pred, graph.succ  # node -> {neighbour: edge attributes}, as networkx and Links keep them
    reached, queue = {root}, [root]
    while queue:
        node = queue.pop()
        following = [u for u, d in pred[node].items() if d.get("relation") in _DERIVATIONS]
        following += [v for v, d in succ[node].items() if d.get("relation") not in _DERIVATIONS]
        for nxt in following:
            if nxt not in reached:
                reached.add(nxt)
                queue.append(nxt)
    out = []
    below = root + "/"
    for node in session.nodes:
        if node in reached or not (node.startswith(below) or step_owner(node) == root):
            continue
        step = session.nodes[node]
        derives = [p for p in step.parents]
        triple = triple_text(node, WAS_DERIVED_FROM, derives[0]) if derives else None
        where = f"it derives from {derives[0]}, which does not lead back to the question" if derives \
            else "it derives from nothing"
        out.append(_finding(UNREACHABLE_STEP, root, node, f"a {step.kind} of this session that no derivation "
                                                          f"from its question reaches: {where}", triple))
    return out


_DERIVATIONS = frozenset(DERIVATION_RELATIONS.values())


def _time_before_parent(source: TraceSource, sessions: dict[str, Session], reader: SessionReader) -> list[Finding]:
    """A child session whose start time is before its parent session's."""
    parents: dict[str, str] = {}
    for session in sessions.values():
        if session.parent is None or session.time is None:
            continue
        owner = reader.membership.owner_of(session.parent) or step_owner(session.parent)
        owner = owner or parent_session(source, session.parent)
        if owner is not None and owner != session.id:
            parents[session.id] = owner
    times = _start_times(source, sorted(set(parents.values())))
    out = []
    for child, parent in parents.items():
        session, started = sessions[child], times.get(parent)
        if started is not None and session.time < started:
            shown = session.root.fields.get("started")
            out.append(_finding(TIME_BEFORE_PARENT, child, None,
                                f"starts at {format_time(shown) or '?'}, before its parent session {parent} "
                                f"(started {format_time(started) or '?'})",
                                triple_text(child, STARTED_AT_TIME, ox.Literal(reader.index.literal(child, STARTED_AT_TIME) or ""))))
    return out


def _start_times(source: TraceSource, roots: list[str]) -> dict[str, datetime]:
    out: dict[str, datetime] = {}
    for chunk in iri_batches(roots):
        rows = source.select(PREFIXES + f"SELECT ?r ?t WHERE {{ {values_clause('r', chunk)} ?r prov:startedAtTime ?t }}")
        for row in rows:
            value = parse_time(row["t"].value) if isinstance(row.get("t"), ox.Literal) else None
            if value is not None:
                out.setdefault(row["r"].value, value)
    return out
