"""Finding sessions (TRACE-MODEL.md, "Sessions: three mechanisms"): which subjects are session
roots, which root a step's IRI names, and what mechanism a session is."""

from __future__ import annotations

import re
from collections.abc import Iterable

import pyoxigraph as ox

from .session import AGENT, DOCRAG, GRAPHRAG, UNKNOWN, Session
from .vocabulary import AGENT_QUESTION, DOC_RAG_QUESTION, GRAPH_RAG_QUESTION, QUERY, QUESTION, RDF_TYPE

ROOT_PREFIXES = (("urn:trustgraph:question:", GRAPHRAG), ("urn:trustgraph:docrag:", DOCRAG),
                 ("urn:trustgraph:agent:", AGENT))
SUBTYPES = {GRAPH_RAG_QUESTION: GRAPHRAG, DOC_RAG_QUESTION: DOCRAG, AGENT_QUESTION: AGENT}
_ROOT_PREFIX_TUPLE = tuple(p for p, _ in ROOT_PREFIXES)
_STEP_OF_ROOT = re.compile(r"^(urn:trustgraph:(?:agent|docrag):[^/]+)/")


def is_root(subject: str, types: set[str], has_query: bool) -> bool:
    """Whether ``subject`` is a session root (TRACE-MODEL.md, "Sessions"): typed tg:Question or
    one of its subtypes, or carrying a ``tg:query`` (``has_query``) on an IRI of TrustGraph's
    root shapes (``urn:trustgraph:question:``, ``:docrag:``, ``:agent:``)."""
    if QUESTION in types or types & SUBTYPES.keys():
        return True
    return has_query and subject.startswith(_ROOT_PREFIX_TUPLE)


def root_iris(quads: Iterable[ox.Quad]) -> list[str]:
    """The session roots among the subjects of ``quads`` (``is_root``), in IRI order: one pass,
    without reading any session."""
    types: dict[str, set[str]] = {}
    queried: set[str] = set()
    for quad in quads:
        subject = quad.subject
        if type(subject) is not ox.NamedNode:
            continue
        predicate = quad.predicate.value
        if predicate == RDF_TYPE and type(quad.object) is ox.NamedNode:
            types.setdefault(subject.value, set()).add(quad.object.value)
        elif predicate == QUERY:
            queried.add(subject.value)
    return sorted(s for s in types.keys() | queried if is_root(s, types.get(s, set()), s in queried))


def step_owner(iri: str) -> str | None:
    """The root an agent or DocRAG step IRI names (``urn:trustgraph:agent:{id}/...`` ->
    ``urn:trustgraph:agent:{id}``; TRACE-MODEL.md, "Agent patterns"), else None."""
    match = _STEP_OF_ROOT.match(iri)
    return match.group(1) if match else None


def session_id(root: str) -> str:
    """The id part of a root IRI (``urn:trustgraph:agent:{id}`` -> ``{id}``); an IRI of another
    shape is returned whole."""
    for prefix, _ in ROOT_PREFIXES:
        if root.startswith(prefix):
            return root[len(prefix):]
    return root


def named_by(key: str, roots: Iterable[str]) -> list[str]:
    """Those of ``roots`` (session IRIs) that ``key`` names: ``[key]`` when it is one of them;
    else those whose id (``session_id``: a UUID) starts with it, followed by the others whose id
    holds it (``a`` starts one UUID and sits inside most: it names none of them alone); else
    those whose IRI holds it; each as typed first, then ignoring case (a UUID pasted in upper
    case: ``62C33A4F`` names ``urn:trustgraph:agent:62c33a4f-…``), each group in IRI order.
    One session names it only when the list holds one. [] when none."""
    lowered = key.lower()
    roots = sorted({r for r in roots if lowered in r.lower()})
    if key in roots:
        return [key]
    for wanted, seen in ((key, lambda text: text), (lowered, str.lower)):
        starting = [r for r in roots if seen(session_id(r)).startswith(wanted)]
        if starting:
            return starting + [r for r in roots if r not in starting and wanted in seen(session_id(r))]
        holding = [r for r in roots if wanted in seen(r)]
        if holding:
            return holding
    return []


def mechanism_of(session: Session) -> str:
    """The session's mechanism (TRACE-MODEL.md): the root's subtype, else the root IRI's shape,
    else its steps (Analysis / Decomposition / Plan -> Agent; an Exploration with edges ->
    GraphRAG, with chunks -> DocRAG); UNKNOWN when nothing tells."""
    for subtype, mechanism in SUBTYPES.items():
        if subtype in session.root.types:
            return mechanism
    for prefix, mechanism in ROOT_PREFIXES:
        if session.id.startswith(prefix):
            return mechanism
    kinds = {s.kind for s in session.steps}
    if kinds & {"Analysis", "Decomposition", "Plan", "PatternDecision", "Conclusion"}:
        return AGENT
    for step in session.steps_of("Exploration"):
        if {"edge_count", "entities"} & step.fields.keys():
            return GRAPHRAG
        if {"chunk_count", "chunks"} & step.fields.keys():
            return DOCRAG
    return GRAPHRAG if any("edges" in s.fields for s in session.steps) else UNKNOWN
