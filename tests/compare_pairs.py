"""Pairs of sessions built to differ in one known way each, by editing sessions of the reference
corpus: a copy of a session gets a fresh UUID (every IRI of the session renamed; the texts in
the document store and the knowledge graph stay shared) and one edit. Loaded together with the
original, A and B come from one collection, as before-and-after files loaded together do.

``build_pair(name)`` returns a ``Pair``; ``PAIRS`` names them:

- ``tool_swapped``: B's 5th iteration of the 12-iteration ReAct run calls calculator, not web-search;
- ``extra_iteration``: A lacks the 6th iteration (its 7th derives from the 5th's observation);
- ``failed_tool``: B's 3rd tool call failed (``tg:toolError``, type ``tg:Error``);
- ``other_edges``: B's GraphRAG Focus chose another second edge and scored the first 0.75;
- ``plan_order``: B carried out plan steps 2 and 3 of the 11-step plan the other way round;
- ``sub_session_more``: B's tool call ran a GraphRAG sub-session; A's (a copy) ran none.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyoxigraph as ox

from trace_explorer.model.reader import read_sessions
from trace_explorer.model.session import Session
from trace_explorer.read.collection import TraceStore
from trace_explorer.read.files import read_trace_file
from trace_explorer.sources.demo import DEMO_DIR

TG = "https://trustgraph.ai/ns/"
PROV = "http://www.w3.org/ns/prov#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
GRAPHRAG = "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"
PLAN = "urn:trustgraph:agent:1a4f44f9-a651-4445-b9f3-635cf88c422b"
AGENT_WITH_GRAPHRAG = "urn:trustgraph:agent:fa7f0eab-4c4f-4b06-8732-2e25c215a82a"
FILES = {REACT_12: "collection", GRAPHRAG: "collection", PLAN: "orchestrated", AGENT_WITH_GRAPHRAG: "orchestrated"}
SUFFIX = {"collection": ".trig", "orchestrated": ".nq"}
PAIRS = ("tool_swapped", "extra_iteration", "failed_tool", "other_edges", "plan_order", "sub_session_more")
COPY_UUID = "c0ffee00-0000-4000-8000-00000000000b"


@dataclass
class Pair:
    """Session ``a`` and ``b`` (IRIs), every session of the collection by IRI, and the store."""

    a: str
    b: str
    sessions: dict[str, Session]
    collection: TraceStore


def _uuid(iri: str) -> str:
    return iri.rsplit(":", 1)[-1]


def _rename(term, old: str, new: str):
    if isinstance(term, ox.NamedNode) and old in term.value:
        return ox.NamedNode(term.value.replace(old, new))
    return term


def session_quads(quads: list[ox.Quad], root: str, new_uuid: str | None = None) -> list[ox.Quad]:
    """The quads whose subject carries the session's UUID, renamed to ``new_uuid`` if given."""
    old = _uuid(root)
    own = [q for q in quads if isinstance(q.subject, ox.NamedNode) and old in q.subject.value]
    if new_uuid is None:
        return own
    return [ox.Quad(_rename(q.subject, old, new_uuid), q.predicate, _rename(q.object, old, new_uuid), q.graph_name)
            for q in own]


def _set(quads: list[ox.Quad], subject: str, predicate: str, value) -> list[ox.Quad]:
    """``quads`` with every ``subject predicate ?`` replaced by one ``subject predicate value``."""
    graph = next(q.graph_name for q in quads if q.subject.value == subject)
    kept = [q for q in quads if not (q.subject.value == subject and q.predicate.value == predicate)]
    obj = value if isinstance(value, (ox.NamedNode, ox.Literal, ox.Triple)) else ox.Literal(str(value))
    return kept + [ox.Quad(ox.NamedNode(subject), ox.NamedNode(predicate), obj, graph)]


def _objects(quads: list[ox.Quad], subject: str, predicate: str) -> list:
    return [q.object for q in quads if q.subject.value == subject and q.predicate.value == predicate]


def build_pair(name: str) -> Pair:
    """The pair ``name`` (one of ``PAIRS``), loaded with the corpus file it comes from."""
    base = {"tool_swapped": REACT_12, "extra_iteration": REACT_12, "failed_tool": REACT_12,
            "other_edges": GRAPHRAG, "plan_order": PLAN, "sub_session_more": AGENT_WITH_GRAPHRAG}[name]
    stem = FILES[base]
    loaded = read_trace_file(str(DEMO_DIR / f"{stem}{SUFFIX[stem]}"))
    documents = read_trace_file(str(DEMO_DIR / f"{stem}.documents.json")).documents
    copy_root = base.replace(_uuid(base), COPY_UUID)
    copy = session_quads(loaded.quads, base, COPY_UUID)
    a, b = base, copy_root
    if name == "tool_swapped":
        copy = _set(copy, copy_root + "/i5", TG + "action", "calculator")
    elif name == "extra_iteration":
        gone = (copy_root + "/i6", copy_root + "/i6/thought", copy_root + "/i6/observation")
        copy = [q for q in copy if q.subject.value not in gone]
        copy = _set(copy, copy_root + "/i7", PROV + "wasDerivedFrom", ox.NamedNode(copy_root + "/i5/observation"))
        a, b = copy_root, base
    elif name == "failed_tool":
        observation = copy_root + "/i3/observation"
        copy = _set(copy, observation, TG + "toolError", "knowledge-query failed: connection refused")
        copy.append(ox.Quad(ox.NamedNode(observation), ox.NamedNode(RDF_TYPE), ox.NamedNode(TG + "Error"),
                            copy[0].graph_name))
    elif name == "other_edges":
        edge = f"urn:trustgraph:prov:edge:{COPY_UUID}:1"
        old = _objects(copy, edge, TG + "edge")[0]
        copy = _set(copy, edge, TG + "edge", ox.Triple(old.subject, old.predicate, ox.Literal("fact 9 about capital city")))
        copy = _set(copy, f"urn:trustgraph:prov:edge:{COPY_UUID}:0", TG + "score", "0.75")
    elif name == "plan_order":
        first, second = copy_root + "/step/1", copy_root + "/step/2"
        swapped = {p: (_objects(copy, first, TG + p)[0], _objects(copy, second, TG + p)[0]) for p in ("planStep", "document")}
        for p, (one, two) in swapped.items():
            copy = _set(_set(copy, first, TG + p, two), second, TG + p, one)
    elif name == "sub_session_more":
        a, b = copy_root, base  # the copy holds the agent's own quads only: no sub-session
    else:
        raise ValueError(f"no pair {name!r}: one of {', '.join(PAIRS)}")
    collection = TraceStore()
    collection.store.extend(loaded.quads + copy)
    collection.documents.update(documents)
    return Pair(a, b, {s.id: s for s in read_sessions(collection)}, collection)

