"""Which session each entity belongs to (TRACE-MODEL.md, "Agent patterns", "Sub-traces"):

1. an IRI that extends a session root (``urn:trustgraph:agent:{id}/...``) belongs to that session;
   this is how supervisor Findings, which derive from a sub-session's Conclusion, stay with their
   supervisor;
2. every other entity belongs to the session it is reached from by walking ``prov:wasDerivedFrom``
   (and the seed's ``prov:wasGeneratedBy``) down from the root, never crossing into another
   Question (a sub-trace), plus the selections and thoughts its steps point at. The first
   session to reach an entity claims it.

What a step points at in the extraction provenance (a DocRAG Exploration's ``tg:selectedChunk``
names the chunk itself in TrustGraph 2.11.1; a chunk, page, document, subgraph or the activity
that made one) is evidence the step used, never a member: TRACE-MODEL.md, "What the 2.11.1
services actually emit".
"""

from __future__ import annotations

from collections import deque

from .problems import SHARED_STEP, Problem, triple_text
from .fields import kind_of
from .roots import step_owner
from .session import EVIDENCE_KINDS
from .triple_index import TripleIndex
from .vocabulary import PROV, PROV_ACTIVITY, PROV_AGENT, SELECTED_CHUNK, SELECTED_EDGE, THOUGHT


class Membership:
    """The entities of every session in ``index`` whose roots are ``roots`` (IRIs, sorted)."""

    def __init__(self, index: TripleIndex, roots: list[str]):
        self.index = index
        self.roots = set(roots)
        self._owner = self._owners_by_prefix()
        self._owned: dict[str, list[str]] = {}
        for subject, owner in self._owner.items():
            self._owned.setdefault(owner, []).append(subject)
        self._claimed: dict[str, str] = {}
        self._members = {root: self._walk(root) for root in roots}

    def members(self, root: str) -> list[str]:
        """The entities of the session ``root``: the root first, then the steps its IRI owns
        (in IRI order), then those reached from it, breadth first."""
        return list(self._members[root])

    def owner_of(self, node: str) -> str | None:
        """The session root ``node`` belongs to (itself for a root), or None."""
        if node in self.roots:
            return node
        return self._owner.get(node) or self._claimed.get(node)

    def attached(self, node: str) -> list[str]:
        """Sub-entities a step points at: its Thought, its edge and chunk selections; never an
        entity of the extraction provenance (``is_evidence``)."""
        props = self.index.properties.get(node)
        out: list[str] = []
        if not props:
            return out
        for predicate in (THOUGHT, SELECTED_EDGE, SELECTED_CHUNK):
            if predicate in props:
                out.extend(i for i in self.index.iris(node, predicate)
                           if i in self.index and i != node and not self.is_evidence(i))
        return out

    def is_evidence(self, iri: str) -> bool:
        """Whether ``iri`` is an entity of the extraction provenance (TRACE-MODEL.md, "Extraction
        provenance"): a Document, Page, Section, Image, Chunk or Subgraph, or a prov:Activity or
        prov:Agent (what made one)."""
        types = self.index.types(iri)
        return PROV_ACTIVITY in types or PROV_AGENT in types or kind_of(iri, types) in EVIDENCE_KINDS

    def _owners_by_prefix(self) -> dict[str, str]:
        """Subject -> the root its IRI extends. An agent or DocRAG step IRI names its session
        (``urn:trustgraph:agent:{id}/...``) even when that root is not among those read, as
        when one session is fetched from a store: its Findings' sub-sessions must not claim them."""
        owners = {}
        for subject in self.index.properties:
            cut = subject.rfind("/")
            while cut > 0:
                if subject[:cut] in self.roots:
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
            for child in self.attached(node) + [c for c, _ in self.index.children.get(node, ())]:
                if child in seen or child in self.roots:
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

    def shared_steps(self, root: str, member_set: set[str], children: set[str], parent: str | None) -> list[Problem]:
        """Warnings for steps that more than one session claims (TRACE-MODEL.md: a step belongs
        to one session): a step of this session that also derives from another session's step,
        and a step derived from this session's but shown in another. A supervisor's Finding,
        derived from its sub-session's answer, is how TrustGraph writes it: no warning.
        ``children``: the session's sub-session roots; ``parent``: the step it derives from."""
        out = []
        parent_session = (self.owner_of(parent) or step_owner(parent)) if parent else None
        for m in self._members[root]:
            if m == root:
                continue
            for up, relation in self.index.parents(m):
                if up in member_set:
                    continue
                owner = self.owner_of(up)
                if owner in children:
                    continue
                where = f"a step of session {owner}" if owner else "not part of this session"
                out.append(Problem(SHARED_STEP, m, f"also derives from {up} ({where}); it is shown in this session",
                                   triple_text(m, PROV + relation, up)))
            for child, relation in self.index.children.get(m, ()):
                if child in member_set or child in self.roots:
                    continue
                owner = self.owner_of(child)
                if owner is not None and owner not in (root, parent_session):
                    out.append(Problem(SHARED_STEP, child, f"derives from {m} of this session, but is shown in session {owner}",
                                       triple_text(child, PROV + relation, m)))
        return out
