"""Read the sessions of a collection: find each Question (``roots``), gather its steps
(``membership``), order them (``ordering``) and parse their fields (``fields``), then let each
mechanism put in what is its own (``agent``, ``graphrag``, ``docrag``). Both the seed shape and
the current shape are read (TRACE-MODEL.md).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from datetime import datetime
from typing import Protocol

import networkx as nx
import pyoxigraph as ox

from . import agent
from .docrag import chunk_record
from .fields import read_step
from .graphrag import EdgeSources
from .literals import parse_time
from .membership import Membership
from .ordering import natural_key, reading_order
from .problems import CYCLE, UNTYPED_ROOT, Problem, triple_text
from .roots import is_root, mechanism_of
from .session import AGENT, ANSWER_KINDS, SESSION_NODE, SUB_ENTITY_KINDS, UNKNOWN, Session, Step
from .triple_index import DERIVATION_RELATIONS, TripleIndex
from .vocabulary import PROV, QUERY, SELECTED_CHUNK, SELECTED_EDGE, STARTED_AT_TIME, THOUGHT

# Links from a step to its parts, drawn as edges when the part does not derive from the step.
_PART_LINKS = ((SELECTED_EDGE, "selectedEdge"), (SELECTED_CHUNK, "selectedChunk"), (THOUGHT, "thought"))
_FINDING_NUMBER = re.compile(r"/finding/(\d+)$")


class Collection(Protocol):
    """What ``read_sessions`` reads: quads (``store``) and document texts (IRI -> text)."""

    store: ox.Store
    documents: Mapping[str, str]


def read_sessions(collection: Collection) -> list[Session]:
    """Every session in ``collection``, sub-sessions included, newest first (undated last).

    Never raises on odd data: what does not parse becomes a warning on the step and its session.
    """
    return SessionReader(TripleIndex(collection.store), collection.documents).read_all()


class Links:
    """A session's links without networkx: what ordering needs (``out_degree``, ``pred``) and
    what building them needs (``add_node``, ``add_edge``, ``has_edge``), for a reader that
    summarises sessions (a store's session index reads every one of them)."""

    def __init__(self) -> None:
        self.succ: dict[str, dict[str, dict]] = {}
        self.pred: dict[str, dict[str, dict]] = {}

    def add_node(self, node: str, **_: object) -> None:
        if node not in self.succ:
            self.succ[node], self.pred[node] = {}, {}

    def add_edge(self, u: str, v: str, **attributes: object) -> None:
        self.add_node(u)
        self.add_node(v)
        self.succ[u][v] = self.pred[v][u] = attributes

    def has_edge(self, u: str, v: str) -> bool:
        return v in self.succ.get(u, ())

    def out_degree(self) -> list[tuple[str, int]]:
        return [(node, len(up)) for node, up in self.succ.items()]

    def edges(self, data: bool = False) -> list[tuple]:
        """Every edge as ``(u, v)``, or ``(u, v, attributes)`` with ``data`` (as networkx)."""
        return [(u, v, d) if data else (u, v) for u, targets in self.succ.items() for v, d in targets.items()]

    def to_networkx(self) -> nx.DiGraph:
        return nx.DiGraph(self.succ)


class SessionReader:
    """Reads sessions from a TripleIndex; ``documents`` maps tg:document IRIs to their text.
    ``roots``: every session root found, in IRI order. With ``graphs`` False the sessions come
    without their ``graph`` (an empty one), read by the same rules otherwise: what a summary
    needs (``model.summary``), at a fraction of the cost; with ``links`` too, their ``graph``
    is the ``Links`` they were read with (the same nodes and edges, in the same order, without
    networkx: what the health check walks)."""

    def __init__(self, index: TripleIndex, documents: Mapping[str, str] | None = None, *, graphs: bool = True,
                 links: bool = False):
        self.index = index
        self.documents = documents or {}
        self.graphs = graphs
        self.links = links
        self.roots = sorted(s for s, properties in index.properties.items()
                            if is_root(s, index.types(s), bool(properties.get(QUERY))))
        self._root_set = set(self.roots)
        self.membership = Membership(index, self.roots)
        self.edges = EdgeSources(index)

    def members(self, root: str) -> list[str]:
        """The entities of the session ``root`` (one of ``roots``): see ``membership``."""
        return self.membership.members(root)

    def read_all(self) -> list[Session]:
        """Every session, newest first (sessions without a time last, then by IRI)."""
        sessions = [self.read(root) for root in self.roots]
        owner_of = {m: root for root in self.roots for m in self.membership.members(root)}
        for session in sessions:
            if session.parent is not None:
                session.parent_session = owner_of.get(session.parent)
        dated = sorted((s for s in sessions if s.time), key=lambda s: s.time, reverse=True)
        return dated + [s for s in sessions if not s.time]

    def read(self, root: str) -> Session:
        """The session whose root Question is ``root`` (an IRI in ``self.roots``)."""
        members = self.membership.members(root)
        member_set = set(members)
        nodes = {m: read_step(self.index, self.documents, m, root) for m in members}
        graph, children = self._graph(root, members, member_set, nodes)
        children = self._ordered_children(children, nodes)
        order, cyclic = reading_order(graph, root, nodes, self._time, {c: i for i, c in enumerate(children)})
        session = Session(id=root, mechanism=UNKNOWN, question=self.index.literal(root, QUERY),
                          root=nodes[root], nodes=nodes, graph=graph if self.graphs or self.links else nx.DiGraph(), order=order,
                          children=children)
        session.time = nodes[root].fields.get("started")
        parents = [p for p, _ in self.index.parents(root)]
        session.parent = parents[0] if parents else None
        session.steps = [nodes[n] for n in order if n in nodes and n != root and nodes[n].kind not in SUB_ENTITY_KINDS]
        self._fold(session)
        session.mechanism = mechanism_of(session)
        session.pattern = agent.pattern_of(session) if session.mechanism == AGENT else None
        answers = [s for s in session.steps if s.kind in ANSWER_KINDS]
        if answers:
            session.answer_id = answers[-1].id
            session.answer = answers[-1].fields.get("answer")
        session.shape = "seed" if _is_seed(session) else "current"
        session.problems = [p for step in nodes.values() for p in step.problems]
        if not self.index.types(root):
            session.problems.insert(0, Problem(
                UNTYPED_ROOT, root, f"the session root has no rdf:type (expected tg:Question and a subtype); it was "
                                    f"found by its tg:query and IRI, and read as {session.mechanism}",
                triple_text(root, QUERY, ox.Literal(session.question or ""))))
        session.problems += self.membership.shared_steps(root, member_set, set(children), session.parent)
        if cyclic:
            shown = ", ".join(cyclic[:5]) + (f" and {len(cyclic) - 5} more" if len(cyclic) > 5 else "")
            looped = set(cyclic)
            edge = next(((u, v, d["relation"]) for u, v, d in graph.edges(data=True)
                         if u in looped and v in looped and d.get("relation") in DERIVATION_RELATIONS.values()), None)
            session.problems.append(Problem(
                CYCLE, None, f"the derivations form a cycle through {shown}; the steps inside it are in IRI order",
                triple_text(edge[0], PROV + edge[2], edge[1]) if edge else None))
        return session

    def _graph(self, root: str, members: list[str], member_set: set[str],
               nodes: dict[str, Step]) -> tuple[nx.DiGraph | Links, list[str]]:
        """The session's graph (edge u -> v: "u <relation> v"; another session's node stands
        for that session; ``Links`` without ``graphs``) and the roots of its sub-sessions."""
        graph = nx.DiGraph() if self.graphs else Links()
        for m in members:
            graph.add_node(m, kind=nodes[m].kind)
        children: list[str] = []
        owner_of = self.membership.owner_of
        for m in members:
            for parent, relation in self.index.parents(m):
                target = parent if parent in member_set else owner_of(parent)
                if m == root:
                    continue  # the root's parent is another session's step: see Session.parent
                if target is None:
                    continue
                if target not in member_set:
                    graph.add_node(target, kind=SESSION_NODE)
                graph.add_edge(m, target, relation=relation)
            for child, relation in self.index.children.get(m, ()):
                if child in self._root_set and child != root:
                    children.append(child)
                    graph.add_node(child, kind=SESSION_NODE)
                    graph.add_edge(child, m, relation=relation)
        for m in members:  # links to sub-entities that do not already derive from their step
            for predicate, relation in _PART_LINKS:
                for target in self.index.iris(m, predicate):
                    if target in member_set and target != m and not graph.has_edge(target, m):
                        graph.add_edge(m, target, relation=relation)
        return graph, children

    def _fold(self, session: Session) -> None:
        """Give each step the words of its sub-entities: thought and observation for an Analysis,
        edge and chunk selections for a Focus, plan steps and goals in their order."""
        nodes, index = session.nodes, self.index
        for step in session.steps:
            if step.kind == "Analysis":
                agent.fold_analysis(step, nodes, index, self.membership.owner_of)
            elif step.kind == "Focus":
                edges = [self.edges.edge(nodes[i]) for i in index.iris(step.id, SELECTED_EDGE) if i in nodes]
                chunks = [chunk_record(nodes[i], self.documents) for i in index.iris(step.id, SELECTED_CHUNK) if i in nodes]
                if edges:
                    step.fields["edges"] = sorted(edges, key=lambda e: natural_key(e["id"]))
                if chunks:
                    step.fields["chunks"] = sorted(chunks, key=lambda c: natural_key(c["id"]))
            elif step.kind == "Plan":
                agent.order_plan(step, session.steps)
            elif step.kind == "Decomposition":
                agent.order_goals(step, session.steps, [q for q in (index.literal(c, QUERY) for c in session.children) if q])
        agent.single_goals(session.steps)

    def _time(self, subject: str) -> datetime | None:
        return parse_time(self.index.literal(subject, STARTED_AT_TIME))

    def _ordered_children(self, children: list[str], nodes: dict[str, Step]) -> list[str]:
        """Sub-session roots in the order they started: by start time, then by the index of the
        Finding derived from them (``/finding/{i}``: a supervisor numbers its Findings as its
        sub-agents finish, TrustGraph 2.11.1 ``Processor._handle_subagent_completion``), then by
        IRI (a random UUID: the last resort)."""
        if not children:  # most sessions: nothing to order
            return []
        finding_of: dict[str, int] = {}
        for node in nodes.values():
            number = _FINDING_NUMBER.search(node.id) if node.kind == "Finding" else None
            if number is None:
                continue
            for parent in node.parents:
                owner = self.membership.owner_of(parent)
                if owner is not None:
                    finding_of.setdefault(owner, int(number.group(1)))
        latest = datetime.max.replace(tzinfo=None).astimezone()
        return sorted(set(children), key=lambda c: (self._time(c) or latest, finding_of.get(c, sys.maxsize), c))


def _is_seed(session: Session) -> bool:
    """The seed shape (TRACE-MODEL.md): a ``prov:Activity`` root, or words written inline. Words
    an Analysis took from its own Thought or Observation entity (``thought_id``,
    ``observation_id``: 2.11.1's services write one even for a model reply that could not be
    parsed, with no Thought) are not inline."""
    if session.root.prov_class == "Activity":
        return True
    inline = ("thought", "observation", "answer")
    return any(f in s.fields and "document" not in s.fields and not s.fields.get(f + "_id")
               and s.kind in ("Analysis", "Conclusion", "Synthesis")
               for s in session.steps for f in inline)
