"""The quads that make up one session, for export: every step and sub-entity, the labels and
extraction provenance its chosen edges point at, and (unless left out) its sub-sessions."""

from __future__ import annotations

from collections.abc import Mapping

import pyoxigraph as ox

from ..model.session import Session
from ..model.vocabulary import RDFS_LABEL
from ..read.collection import TraceStore
from ..sources.source import DOCUMENTS_GRAPH

_DOCUMENTS = ox.NamedNode(DOCUMENTS_GRAPH)

def _subject(key: str) -> ox.NamedNode | ox.BlankNode:
    return ox.BlankNode(key[2:]) if key.startswith("_:") else ox.NamedNode(key)


def session_subjects(session: Session, sessions: Mapping[str, Session], include_children: bool = True) -> list[str]:
    """Subject keys (IRIs, ``_:id`` for blank nodes) of ``session``'s own entities, then of its
    sub-sessions' (recursively, when ``include_children``), each once, in reading order."""
    out: dict[str, None] = {}
    stack = [session]
    seen_sessions: set[str] = set()
    while stack:
        current = stack.pop(0)
        if current.id in seen_sessions:
            continue
        seen_sessions.add(current.id)
        out.update(dict.fromkeys(n for n in current.order if n in current.nodes))
        if include_children:
            stack.extend(sessions[c] for c in current.children if c in sessions)
    return list(out)


def session_quads(collection: TraceStore, session: Session, sessions: Mapping[str, Session],
                  include_children: bool = True) -> list[ox.Quad]:
    """Every quad (graph names kept) whose subject is an entity of ``session`` (and of its
    sub-sessions when ``include_children``), plus the context its edges need to read the same
    again: rdfs:labels of edge terms and the quads of each edge's extraction chain."""
    store = collection.store
    subjects = session_subjects(session, sessions, include_children)
    context: dict[str, None] = {}
    covered = [session] + ([sessions[c] for c in subjects_sessions(session, sessions)] if include_children else [])
    for current in covered:
        for step in current.steps_of("Focus"):
            for edge in step.fields.get("edges", []):
                for part in ("s", "p", "o"):
                    if edge.get(part) and not (part == "o" and edge.get("o_is_literal")):
                        context.setdefault(("label", edge[part]), None)
                for chain in edge.get("sources", []):
                    context.update(dict.fromkeys(("all", link["id"]) for link in chain))
    quads: dict[ox.Quad, None] = {}
    for key in subjects:
        quads.update(dict.fromkeys(store.quads_for_pattern(_subject(key), None, None, None)))
    for kind, key in context:
        predicate = ox.NamedNode(RDFS_LABEL) if kind == "label" else None
        quads.update(dict.fromkeys(store.quads_for_pattern(_subject(key), predicate, None, None)))
    # a local store keeps texts as quads of its documents graph: they go to the sidecar, not here
    return [q for q in quads if q.graph_name != _DOCUMENTS]


def subjects_sessions(session: Session, sessions: Mapping[str, Session]) -> list[str]:
    """IRIs of every sub-session below ``session`` (children, grandchildren, ...)."""
    out: list[str] = []
    stack = list(session.children)
    while stack:
        child = stack.pop(0)
        if child in out or child not in sessions:
            continue
        out.append(child)
        stack.extend(sessions[child].children)
    return out
