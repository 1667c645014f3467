"""Read the sessions of a collection: find each Question, gather its steps, order them and parse
their fields (TRACE-MODEL.md). Both the seed shape and the current shape are read.

Which session a step belongs to:
1. an IRI that extends a session root (``urn:trustgraph:agent:{id}/...``) belongs to that session;
   this is how supervisor Findings, which derive from a sub-session's Conclusion, stay with their
   supervisor;
2. every other entity belongs to the session it is reached from by walking ``prov:wasDerivedFrom``
   (and the seed's ``prov:wasGeneratedBy``) down from the root, never crossing into another
   Question (a sub-trace), plus the selections and thoughts its steps point at.

Reading order: the DAG's topological order, ties broken by the numbers in the IRI after the
session id (``/i2`` before ``/i10``, ``/step/2`` before ``/step/10``), then the kind (a Thought
before its Observation), then time.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import networkx as nx
import pyoxigraph as ox

from .literals import parse_float, parse_int, parse_json, parse_time
from .model import (AGENT, ANSWER_KINDS, DOCRAG, GRAPHRAG, PLAN_THEN_EXECUTE, REACT, SESSION_NODE,
                    SUB_ENTITY_KINDS, SUPERVISOR, TEXT_FIELDS, UNKNOWN, Session, Step)
from .store import TraceStore
from .triple_index import TripleIndex, term_key
from .vocabulary import (AGENT_QUESTION, CONTAINS, DC, DOC_RAG_QUESTION, GRAPH_RAG_QUESTION, PROV,
                         PROV_ACTIVITY, PROV_AGENT, QUESTION, QUERY, RDF_TYPE, RDFS_LABEL,
                         SELECTED_CHUNK, SELECTED_EDGE, STARTED_AT_TIME, TG, THOUGHT, WAS_DERIVED_FROM)

# The order in which a step's types name its kind: the most specific TrustGraph class first
# (a Synthesis is also a tg:Answer, an Observation of a failed call also a tg:Error).
KIND_ORDER = (
    "Question", "PatternDecision", "Decomposition", "Plan", "Analysis", "Thought", "Observation",
    "Conclusion", "Grounding", "Exploration", "Focus", "EdgeSelection", "ChunkSelection",
    "StepResult", "Finding", "Synthesis", "Subgraph", "Document", "Page", "Section", "Image", "Chunk",
)
# Kind from the IRI when an entity carries no type (seed data and damaged exports).
_KIND_FROM_IRI = (
    (re.compile(r"/i\d+/thought$"), "Thought"),
    (re.compile(r"/i\d+/observation$"), "Observation"),
    (re.compile(r"/i\d+$"), "Analysis"),
    (re.compile(r"/final$"), "Conclusion"),
    (re.compile(r"/pattern-decision$"), "PatternDecision"),
    (re.compile(r"/plan$"), "Plan"),
    (re.compile(r"/step/\d+$"), "StepResult"),
    (re.compile(r"/decompose$"), "Decomposition"),
    (re.compile(r"/finding/\d+$"), "Finding"),
    (re.compile(r"(/|:prov:)synthesis\b"), "Synthesis"),
    (re.compile(r"(/|:prov:)exploration\b"), "Exploration"),
    (re.compile(r"(/|:prov:)grounding\b"), "Grounding"),
    (re.compile(r"(/|:prov:)focus\b"), "Focus"),
    (re.compile(r":prov:edge:"), "EdgeSelection"),
    (re.compile(r":prov:chunk:"), "ChunkSelection"),
)
_KIND_RANK = {kind: rank for rank, kind in enumerate(
    ("Question", "PatternDecision", "Grounding", "Exploration", "Focus", "Decomposition", "Plan",
     "Analysis", "Thought", "Observation", "StepResult", SESSION_NODE, "Finding", "Conclusion",
     "Synthesis"))}
_ROOT_PREFIXES = (("urn:trustgraph:question:", GRAPHRAG), ("urn:trustgraph:docrag:", DOCRAG),
                  ("urn:trustgraph:agent:", AGENT))
_SUBTYPES = {GRAPH_RAG_QUESTION: GRAPHRAG, DOC_RAG_QUESTION: DOCRAG, AGENT_QUESTION: AGENT}
_ROOT_PREFIX_TUPLE = tuple(p for p, _ in _ROOT_PREFIXES)
_NUMBER = re.compile(r"\d+")
_STEP_OF_ROOT = re.compile(r"^(urn:trustgraph:(?:agent|docrag):[^/]+)/")

# tg: predicate local name -> (field, parser, many values)
_INT, _FLOAT, _TEXT, _IRI, _TERM = "int", "float", "text", "iri", "term"
FIELD_MAP: dict[str, tuple[str, str, bool]] = {
    "action": ("action", _TEXT, False),
    "arguments": ("arguments", "json", False),
    "toolCandidate": ("tool_candidates", _TEXT, True),
    "stepNumber": ("step_number", _INT, False),
    "llmDurationMs": ("llm_duration_ms", _INT, False),
    "toolDurationMs": ("tool_duration_ms", _INT, False),
    "toolError": ("error", _TEXT, False),
    "inToken": ("in_tokens", _INT, False),
    "outToken": ("out_tokens", _INT, False),
    "llmModel": ("model", _TEXT, False),
    "terminationReason": ("termination_reason", _TEXT, False),
    "pattern": ("pattern", _TEXT, False),
    "taskType": ("task_type", _TEXT, False),
    "planStep": ("plan_steps", _TEXT, True),
    "subagentGoal": ("goals", _TEXT, True),
    "concept": ("concepts", _TEXT, True),
    "edgeCount": ("edge_count", _INT, False),
    "entity": ("entities", _IRI, True),
    "chunkCount": ("chunk_count", _INT, False),
    "score": ("score", _FLOAT, False),
    "reasoning": ("reasoning", _TEXT, False),
    "document": ("document", _IRI, False),
    "query": ("query", _TEXT, False),
    "componentVersion": ("component_version", _TEXT, False),
}
_INLINE_TEXT = {"thought": "thought", "observation": "observation", "answer": "answer",
                "content": "answer"}


def read_sessions(collection: TraceStore) -> list[Session]:
    """Every session in ``collection``, sub-sessions included, newest first (undated last).

    Never raises on odd data: what does not parse becomes a warning on the step and its session.
    """
    return SessionReader(TripleIndex(collection.store), collection.documents).read_all()


class SessionReader:
    """Reads sessions from a TripleIndex; ``documents`` maps tg:document IRIs to their text."""

    def __init__(self, index: TripleIndex, documents: dict[str, str] | None = None):
        self.index = index
        self.documents = documents or {}
        self.roots = sorted(s for s in index.properties if self._is_root(s))
        self._root_set = set(self.roots)
        self._owner = self._owners_by_prefix()
        self._owned: dict[str, list[str]] = {}
        for subject, owner in self._owner.items():
            self._owned.setdefault(owner, []).append(subject)
        self._claimed: dict[str, str] = {}
        self._containers: dict[ox.Triple, list[str]] | None = None
        self._members: dict[str, list[str]] = {}
        for root in self.roots:
            self._members[root] = self._walk(root)

    def members(self, root: str) -> list[str]:
        """The entities of the session ``root`` (one of ``roots``): the root, the steps its IRI
        owns and those reached from it (see the module docstring)."""
        return list(self._members[root])

    # -- finding sessions -------------------------------------------------------------------
    def _is_root(self, subject: str) -> bool:
        return is_root(subject, self.index.types(subject), bool(self.index.objects(subject, QUERY)))

    def _owners_by_prefix(self) -> dict[str, str]:
        """Subject -> the root its IRI extends. An agent or DocRAG step IRI names its session
        (``urn:trustgraph:agent:{id}/...``) even when that root is not among those read, as
        when one session is fetched from a store: its Findings' sub-sessions must not claim them."""
        owners = {}
        for subject in self.index.properties:
            cut = subject.rfind("/")
            while cut > 0:
                if subject[:cut] in self._root_set:
                    owners[subject] = subject[:cut]
                    break
                cut = subject.rfind("/", 0, cut)
            else:
                owner = step_owner(subject)
                if owner is not None:
                    owners[subject] = owner
        return owners

    def _walk(self, root: str) -> list[str]:
        members = [root]
        seen = {root}
        queue = deque([root] + sorted(self._owned.get(root, ())))
        for subject in list(queue)[1:]:
            seen.add(subject)
            members.append(subject)
        while queue:
            node = queue.popleft()
            for child in self._attached(node) + [c for c, _ in self.index.children.get(node, ())]:
                if child in seen or child in self._root_set:
                    continue
                owner = self._owner.get(child)
                if owner is not None and owner != root:
                    continue
                claimed = self._claimed.setdefault(child, root)
                if claimed != root:
                    continue
                seen.add(child)
                members.append(child)
                queue.append(child)
        return members

    def _attached(self, node: str) -> list[str]:
        """Sub-entities a step points at: its Thought, its edge and chunk selections."""
        out = []
        for predicate in (THOUGHT, SELECTED_EDGE, SELECTED_CHUNK):
            out.extend(i for i in self.index.iris(node, predicate) if i in self.index and i != node)
        return out

    # -- building sessions ------------------------------------------------------------------
    def read_all(self) -> list[Session]:
        """Every session, newest first (sessions without a time last, then by IRI)."""
        sessions = [self.read(root) for root in self.roots]
        owner_of = {m: root for root, members in self._members.items() for m in members}
        for session in sessions:
            if session.parent is not None:
                session.parent_session = owner_of.get(session.parent)
        dated = sorted((s for s in sessions if s.time), key=lambda s: s.time, reverse=True)
        return dated + [s for s in sessions if not s.time]

    def read(self, root: str) -> Session:
        """The session whose root Question is ``root`` (an IRI in ``self.roots``)."""
        members = self._members[root]
        member_set = set(members)
        nodes = {m: self._step(m, root) for m in members}
        graph = nx.DiGraph()
        for m in members:
            graph.add_node(m, kind=nodes[m].kind)
        children: list[str] = []
        owner_of = self._owner_of
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
            for predicate, relation in ((SELECTED_EDGE, "selectedEdge"), (SELECTED_CHUNK, "selectedChunk"), (THOUGHT, "thought")):
                for target in self.index.iris(m, predicate):
                    if target in member_set and target != m and not graph.has_edge(target, m):
                        graph.add_edge(m, target, relation=relation)
        order, cyclic = self._order(graph, root, nodes)
        session = Session(id=root, mechanism=UNKNOWN, question=self.index.literal(root, QUERY),
                          root=nodes[root], nodes=nodes, graph=graph, order=order,
                          children=sorted(set(children), key=lambda c: (self._time(c) or datetime.max.replace(tzinfo=None).astimezone(), c)))
        session.time = nodes[root].fields.get("started")
        parents = [p for p, _ in self.index.parents(root)]
        session.parent = parents[0] if parents else None
        session.steps = [nodes[n] for n in order if n in nodes and n != root and nodes[n].kind not in SUB_ENTITY_KINDS]
        self._fold(session)
        session.mechanism = self._mechanism(root, session)
        session.pattern = self._pattern(session) if session.mechanism == AGENT else None
        answers = [s for s in session.steps if s.kind in ANSWER_KINDS]
        if answers:
            session.answer_id = answers[-1].id
            session.answer = answers[-1].fields.get("answer")
        session.shape = "seed" if self._is_seed(session) else "current"
        session.warnings = [f"{step.id}: {w}" for step in nodes.values() for w in step.warnings]
        if not self.index.types(root):
            session.warnings.insert(0, f"{root}: the session root has no rdf:type (expected tg:Question and a "
                                       f"subtype); it was found by its tg:query and IRI, and read as {session.mechanism}")
        session.warnings += self._shared_steps(root, members, member_set, set(children), session.parent)
        if cyclic:
            shown = ", ".join(cyclic[:5]) + (f" and {len(cyclic) - 5} more" if len(cyclic) > 5 else "")
            session.warnings.append(f"the derivations form a cycle through {shown}; the steps inside it are in IRI order")
        return session

    def _shared_steps(self, root: str, members: list[str], member_set: set[str], children: set[str],
                      parent: str | None) -> list[str]:
        """Warnings for steps that more than one session claims (TRACE-MODEL.md: a step belongs
        to one session): a step of this session that also derives from another session's step,
        and a step derived from this session's but shown in another. A supervisor's Finding,
        derived from its sub-session's answer, is how TrustGraph writes it: no warning."""
        out = []
        parent_session = (self._owner_of(parent) or step_owner(parent)) if parent else None
        for m in members:
            if m == root:
                continue
            for parent, _ in self.index.parents(m):
                if parent in member_set:
                    continue
                owner = self._owner_of(parent)
                if owner in children:
                    continue
                where = f"a step of session {owner}" if owner else "not part of this session"
                out.append(f"{m}: also derives from {parent} ({where}); it is shown in this session")
            for child, _ in self.index.children.get(m, ()):
                if child in member_set or child in self._root_set:
                    continue
                owner = self._owner_of(child)
                if owner is not None and owner not in (root, parent_session):
                    out.append(f"{child}: derives from {m} of this session, but is shown in session {owner}")
        return out

    def _owner_of(self, node: str) -> str | None:
        if node in self._root_set:
            return node
        return self._owner.get(node) or self._claimed.get(node)

    def _time(self, subject: str) -> datetime | None:
        return parse_time(self.index.literal(subject, STARTED_AT_TIME))

    # -- one step ---------------------------------------------------------------------------
    def _kind(self, subject: str, types: set[str]) -> str:
        local = {t[len(TG):] for t in types if t.startswith(TG)}
        for kind in KIND_ORDER:
            if kind in local:
                return kind
        for pattern, kind in _KIND_FROM_IRI:
            if pattern.search(subject):
                return kind
        if local:
            return sorted(local)[0]
        for cls in ("Activity", "Agent", "Entity"):
            if PROV + cls in types:
                return cls
        return "Entity"

    def _step(self, subject: str, root: str) -> Step:
        index = self.index
        types = index.types(subject)
        kind = "Question" if subject == root else self._kind(subject, types)
        prov_class = "Activity" if PROV_ACTIVITY in types else "Agent" if PROV_AGENT in types else "Entity"
        step = Step(id=subject, kind=kind, types=tuple(sorted(types)), prov_class=prov_class,
                    label=index.literal(subject, RDFS_LABEL),
                    parents=[p for p, _ in index.parents(subject)])
        fields: dict[str, Any] = {}
        extra: dict[str, list[str]] = {}
        for predicate, objects in index.properties.get(subject, {}).items():
            if predicate in (RDF_TYPE, RDFS_LABEL) or predicate.startswith(PROV):
                continue
            name = predicate[len(TG):] if predicate.startswith(TG) else None
            if name in FIELD_MAP:
                self._set_field(step, fields, name, objects)
            elif name in _INLINE_TEXT and any(isinstance(o, ox.Literal) for o in objects):
                fields[_INLINE_TEXT[name]] = next(o.value for o in objects if isinstance(o, ox.Literal))
            elif name in ("thought", "selectedEdge", "selectedChunk", "observation"):
                continue  # links to sub-entities, read in _fold
            else:
                extra[predicate] = [_show(o) for o in objects]
        started = index.literal(subject, STARTED_AT_TIME)
        if started is not None:
            fields["started"] = parse_time(started)
            if fields["started"] is None:
                step.warnings.append(f"startedAtTime {started!r} is not an ISO-8601 time")
        if "document" in fields:
            text = self.documents.get(fields["document"])
            if text is not None:
                fields.setdefault(TEXT_FIELDS.get(kind, "text"), text)
        if kind == "Observation" and ("error" in fields or TG + "Error" in types):
            fields.setdefault("error", "")
        if kind == "Exploration":
            fields["chunks"] = sorted((_show(o) for o in index.objects(subject, SELECTED_CHUNK)
                                       if not self._is_selection(o)), key=natural_key)
            if not fields["chunks"]:
                del fields["chunks"]
        if extra:
            fields["extra"] = extra
        step.fields = fields
        return step

    def _is_selection(self, term) -> bool:
        return isinstance(term, ox.NamedNode) and "ChunkSelection" == self._kind(term.value, self.index.types(term.value))

    def _set_field(self, step: Step, fields: dict, name: str, objects: list) -> None:
        field_name, parser, many = FIELD_MAP[name]
        values = []
        for obj in objects:
            if parser == _IRI:
                values.append(_show(obj))
                continue
            if not isinstance(obj, ox.Literal):
                values.append(_show(obj))
                continue
            text = obj.value
            if parser == _INT:
                value = parse_int(text)
            elif parser == _FLOAT:
                value = parse_float(text)
            elif parser == "json":
                value, ok = parse_json(text)
                if not ok:
                    step.warnings.append(f"{name} is not JSON: {text[:80]!r}")
                values.append(value)
                continue
            else:
                value = text
            if value is None:
                step.warnings.append(f"{name} {text[:80]!r} is not a number")
            values.append(value)
        if many:
            fields[field_name] = sorted(values, key=natural_key)
        elif values:
            fields[field_name] = values[0]

    # -- session-level reading --------------------------------------------------------------
    def _fold(self, session: Session) -> None:
        """Give each step the words of its sub-entities: thought and observation for an Analysis,
        edge and chunk selections for a Focus, plan steps and goals in their order."""
        nodes, index = session.nodes, self.index
        for step in session.steps:
            if step.kind == "Analysis":
                for thought in index.iris(step.id, THOUGHT):
                    if thought in nodes and "thought" not in step.fields:
                        step.fields["thought_id"] = thought
                        if nodes[thought].fields.get("thought") is not None:
                            step.fields["thought"] = nodes[thought].fields["thought"]
                for child, _ in index.children.get(step.id, ()):
                    node = nodes.get(child)
                    if node is not None and node.kind == "Observation":
                        step.fields["observation_id"] = child
                        if node.fields.get("observation") is not None:
                            step.fields.setdefault("observation", node.fields["observation"])
                        if node.fields.get("error") is not None:
                            step.fields["error"] = node.fields["error"]
            elif step.kind == "Focus":
                edges = [self._edge(nodes[i], i) for i in index.iris(step.id, SELECTED_EDGE) if i in nodes]
                chunks = [self._chunk(nodes[i]) for i in index.iris(step.id, SELECTED_CHUNK) if i in nodes]
                if edges:
                    step.fields["edges"] = sorted(edges, key=lambda e: natural_key(e["id"]))
                if chunks:
                    step.fields["chunks"] = sorted(chunks, key=lambda c: natural_key(c["id"]))
            elif step.kind == "Plan":
                results = [s for s in session.steps if s.kind == "StepResult"]
                ordered = [g for s in results for g in s.fields.get("plan_steps", [])]
                rest = [p for p in step.fields.get("plan_steps", []) if p not in ordered]
                step.fields["plan_steps"] = [p for p in ordered if p in step.fields.get("plan_steps", ordered)] + rest
            elif step.kind == "Decomposition":
                findings = [g for s in session.steps if s.kind == "Finding" for g in s.fields.get("goals", [])]
                goals = step.fields.get("goals", [])
                step.fields["goals"] = [g for g in findings if g in goals] + [g for g in goals if g not in findings]
        for step in session.steps:
            for key in ("plan_steps", "goals"):
                if step.kind in ("StepResult", "Finding") and len(step.fields.get(key, [])) == 1:
                    step.fields["plan_step" if key == "plan_steps" else "goal"] = step.fields.pop(key)[0]

    def _edge(self, selection: Step, iri: str) -> dict[str, Any]:
        index = self.index
        edge: dict[str, Any] = {"id": iri, "s": None, "p": None, "o": None, "o_is_literal": False,
                                "s_label": None, "p_label": None, "o_label": None,
                                "concept": (selection.fields.get("concepts") or [None])[0],
                                "score": selection.fields.get("score"),
                                "reasoning": selection.fields.get("reasoning"), "stored": False, "raw": None,
                                "sources": []}
        for obj in index.objects(iri, TG + "edge"):
            if isinstance(obj, ox.Triple):
                edge.update(s=_show(obj.subject), p=_show(obj.predicate), o=_show(obj.object),
                            o_is_literal=isinstance(obj.object, ox.Literal), stored=True)
                for part in ("s", "p", "o"):
                    if part == "o" and edge["o_is_literal"]:
                        continue
                    edge[part + "_label"] = index.label(edge[part])
                edge["sources"] = self.edge_sources(obj)
                break
            edge["raw"] = _show(obj)
        return edge

    def edge_sources(self, triple: ox.Triple) -> list[list[dict[str, str | None]]]:
        """Where a knowledge-graph edge came from (TRACE-MODEL.md, "Extraction provenance"):
        for each Subgraph that ``tg:contains`` the same triple, the chain Subgraph -> Chunk ->
        Page/Section -> Document found by walking ``prov:wasDerivedFrom`` up, each link as
        ``{"id", "kind", "label"}`` (the Document's label is its ``dc:title`` when it has one)."""
        if self._containers is None:
            self._containers = {}
            for subject, props in self.index.properties.items():
                for obj in props.get(CONTAINS, ()):
                    if isinstance(obj, ox.Triple):
                        self._containers.setdefault(obj, []).append(subject)
        chains = []
        for subgraph in sorted(self._containers.get(triple, ())):
            chain, node, seen = [], subgraph, set()
            while node is not None and node not in seen and len(chain) < 16:
                seen.add(node)
                kind = self._kind(node, self.index.types(node))
                label = self.index.literal(node, DC + "title") or self.index.label(node)
                chain.append({"id": node, "kind": kind, "label": label})
                parents = self.index.iris(node, WAS_DERIVED_FROM)
                node = parents[0] if parents else None
            chains.append(chain)
        return chains

    def _chunk(self, selection: Step) -> dict[str, Any]:
        chunk = selection.fields.get("document")
        return {"id": selection.id, "chunk": chunk, "score": selection.fields.get("score"),
                "text": self.documents.get(chunk) if chunk else None}

    def _mechanism(self, root: str, session: Session) -> str:
        for subtype, mechanism in _SUBTYPES.items():
            if subtype in session.root.types:
                return mechanism
        for prefix, mechanism in _ROOT_PREFIXES:
            if root.startswith(prefix):
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

    def _pattern(self, session: Session) -> str | None:
        for step in session.steps_of("PatternDecision"):
            if step.fields.get("pattern"):
                return step.fields["pattern"]
        kinds = {s.kind for s in session.steps}
        if "Decomposition" in kinds or "Finding" in kinds:
            return SUPERVISOR
        if "Plan" in kinds or "StepResult" in kinds:
            return PLAN_THEN_EXECUTE
        if "Analysis" in kinds or "Conclusion" in kinds:
            return REACT
        return None

    @staticmethod
    def _is_seed(session: Session) -> bool:
        if session.root.prov_class == "Activity":
            return True
        inline = ("thought", "observation", "answer")
        return any(f in s.fields and "document" not in s.fields and s.kind not in ("Thought", "Observation")
                   and s.kind in ("Analysis", "Conclusion", "Synthesis") and not s.fields.get("thought_id")
                   for s in session.steps for f in inline)

    def _order(self, graph: nx.DiGraph, root: str, nodes: dict[str, Step]) -> tuple[list[str], list[str]]:
        """Reading order of the graph's nodes, and the nodes on cycles of the derivations ([]
        when there is none)."""
        session_id = _session_id(root)

        def key(node: str):
            step = nodes.get(node)
            kind = step.kind if step else SESSION_NODE
            started = (step.fields.get("started") if step else None) or self._time(node)
            tail = node.split(session_id, 1)[1] if session_id and session_id in node else node
            return (natural_key(tail), _KIND_RANK.get(kind, 50), started.timestamp() if started else 0.0, node)

        reading = graph.reverse(copy=False)  # parent -> child (a view)
        try:
            return list(nx.lexicographical_topological_sort(reading, key=key)), []
        except nx.NetworkXUnfeasible:
            # a cycle in the derivations: order the strongly connected parts topologically and
            # the steps inside each part by their keys
            parts = nx.condensation(reading)
            members = parts.graph["mapping"]
            groups: dict[int, list[str]] = {}
            for node, part in members.items():
                groups.setdefault(part, []).append(node)
            first = {part: min(key(n) for n in nodes) for part, nodes in groups.items()}
            ordered = nx.lexicographical_topological_sort(parts, key=lambda part: first[part])
            looped = sorted((n for nodes in groups.values() if len(nodes) > 1 for n in nodes), key=key)
            return [n for part in ordered for n in sorted(groups[part], key=key)], looped


def is_root(subject: str, types: set[str], has_query: bool) -> bool:
    """Whether ``subject`` is a session root (TRACE-MODEL.md, "Sessions"): typed tg:Question or
    one of its subtypes, or carrying a ``tg:query`` (``has_query``) on an IRI of TrustGraph's
    root shapes (``urn:trustgraph:question:``, ``:docrag:``, ``:agent:``)."""
    if QUESTION in types or types & _SUBTYPES.keys():
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


def natural_key(value: Any) -> tuple:
    """Sort key that compares the numbers inside a string as numbers (``/step/2`` < ``/step/10``)."""
    text = "" if value is None else str(value)
    parts = _NUMBER.split(text)
    numbers = _NUMBER.findall(text)
    out: list = []
    for i, part in enumerate(parts):
        out.append((0, part))
        if i < len(numbers):
            out.append((1, int(numbers[i])))
    return tuple(out)


def _session_id(root: str) -> str:
    for prefix, _ in _ROOT_PREFIXES:
        if root.startswith(prefix):
            return root[len(prefix):]
    return root


def _show(term) -> str:
    """A term as text: an IRI or a literal's value; a triple term in N-Triples form."""
    if isinstance(term, (ox.NamedNode, ox.BlankNode)):
        return term_key(term)
    if isinstance(term, ox.Literal):
        return term.value
    return str(term)
