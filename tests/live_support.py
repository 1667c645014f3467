"""Sessions written over time, for the tests of following: a session of the reference corpus
copied under a new id, started now, in the order its steps were written (``LiveSession``), to
add to a stand-in gateway, a SPARQL endpoint's store or a local store a step at a time."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone

import pyoxigraph as ox

from trace_explorer.model.reader import SessionReader
from trace_explorer.model.triple_index import TripleIndex
from trace_explorer.model.vocabulary import DOCUMENT, STARTED_AT_TIME

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass
class LiveSession:
    """One session copied under a new id: ``root``, ``question``, ``steps`` (IRIs, in the order
    written: each derives only from what comes before it), ``stages`` (the quads of the root,
    then of each step with the sub-entities it points at), ``documents`` (its texts, renamed)
    and ``kinds`` (step IRI -> TrustGraph class name)."""

    root: str
    question: str
    steps: list[str]
    stages: list[list[ox.Quad]]
    documents: dict[str, str] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)

    @property
    def quads(self) -> list[ox.Quad]:
        return [q for stage in self.stages for q in stage]


def copy_session(quads: list[ox.Quad], documents: dict[str, str], root: str, *,
                 when: datetime | None = None) -> LiveSession:
    """Session ``root`` of ``quads`` under a fresh UUID (every IRI holding the old one renamed,
    and the texts' keys), its start ``when`` (default now, UTC)."""
    reader = SessionReader(TripleIndex(quads))
    session = reader.read(root)
    old = _UUID.search(root).group(0)
    new = str(uuid.uuid4())
    when = when or datetime.now(timezone.utc)

    def rename(term):
        if isinstance(term, ox.NamedNode) and old in term.value:
            return ox.NamedNode(term.value.replace(old, new))
        return term

    members = set(reader.members(root))
    by_subject: dict[str, list[ox.Quad]] = {}
    for quad in quads:
        if isinstance(quad.subject, ox.NamedNode) and quad.subject.value in members:
            obj = ox.Literal(when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")) if quad.predicate.value == STARTED_AT_TIME \
                else rename(quad.object)
            by_subject.setdefault(quad.subject.value, []).append(
                ox.Quad(rename(quad.subject), quad.predicate, obj, quad.graph_name))
    order = [root] + [s.id for s in session.steps]
    placed = set(order)
    stages = [by_subject.get(s, []) for s in order]
    for subject, found in by_subject.items():  # sub-entities (thoughts, selections) go with their step
        if subject not in placed:
            owner = next((i for i, s in enumerate(order) if s in subject or subject.startswith(s)), len(order) - 1)
            stages[owner] = stages[owner] + found
    pointed = {q.object.value for q in quads if q.predicate.value == DOCUMENT and isinstance(q.subject, ox.NamedNode)
               and q.subject.value in members and isinstance(q.object, ox.NamedNode)}
    texts = {k.replace(old, new): v for k, v in documents.items() if old in k or k in pointed}
    steps = [s.id.replace(old, new) for s in session.steps]
    return LiveSession(root.replace(old, new), session.question, steps, stages, texts,
                       {s.id.replace(old, new): s.kind for s in session.steps})


def corpus_root(quads: list[ox.Quad], question: str) -> str:
    """The root of the corpus session that asks ``question``."""
    reader = SessionReader(TripleIndex(quads))
    return next(r for r in reader.roots if reader.read(r).question == question)
