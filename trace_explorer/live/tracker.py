"""What a poller knows of its source between polls, and what each poll adds: the roots seen,
the sessions still open (no Conclusion or Synthesis yet) with every entity of theirs, and the
events that a poll's findings make (``Tracker.cycle``).

A session stays open until its answer lands, or until it has shown nothing new for
``IDLE_CLOSE`` (a run that died never answers); an open session's entities are the frontier
whose children the next poll asks for. The steps a poll finds are followed down within the
same cycle (children of children, ``MAX_LEVELS`` at most), so a session written whole between
two polls is reported whole by the next. A session read quietly (one opened, or started
recently when following begins) is read to its last level, whatever its depth: a step left
unread there would come later as news, and move the newest-step mark back to an old step.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

from ..model.fields import kind_of
from ..model.roots import SUBTYPES, step_owner
from ..model.session import ANSWER_KINDS, EVIDENCE_KINDS, SUB_ENTITY_KINDS
from ..model.vocabulary import QUESTION, TG
from .events import ANSWER, SESSION, STEP, LiveEvent, now
from .sparql_probe import Edge, Found, RootFacts

IDLE_CLOSE = 30 * 60.0  # seconds without a new step after which an unanswered session is no longer asked about
MAX_LEVELS = 64  # levels of steps followed down in one cycle
_QUESTION_TYPES = frozenset({QUESTION, *SUBTYPES})


@dataclass
class OpenSession:
    """A session the poller still asks about: its ``members`` (root and entities, the frontier),
    its ``steps`` (IRI -> kind) in the order seen, whether it has ``answered``, and when it last
    changed (``time.monotonic()``)."""

    root: str
    members: set[str] = field(default_factory=set)
    steps: dict[str, str] = field(default_factory=dict)
    answered: bool = False
    changed: float = field(default_factory=time.monotonic)
    parent: str | None = None  # the session whose step started this one (a sub-session's)


class Tracker:
    """The state of one poller over ``probe`` (a ``SparqlProbe`` or one that answers the same
    calls). ``known``: every root seen; ``sessions``: the open ones (and, once answered, kept
    until ``IDLE_CLOSE`` for ``steps_of``); ``owner``: entity -> its session."""

    def __init__(self, probe, from_start: bool = False):
        self.probe = probe
        self.from_start = from_start
        self.known: set[str] = set()
        self.sessions: dict[str, OpenSession] = {}
        self.owner: dict[str, str] = {}
        self.started = False

    # -- a cycle ----------------------------------------------------------------------------
    def cycle(self) -> list[LiveEvent]:
        """One poll and what follows from it; the events it makes (``seq`` not set yet). The
        first cycle reads every root (``probe.baseline``): those are replayed only with
        ``from_start``; the recent ones are read quietly so that their later steps are news."""
        if not self.started:
            roots = self.probe.baseline()
            self.started = True
            if self.from_start:
                return self._absorb(Found(roots=roots))
            self.known.update(roots)
            since = self.probe.since()
            recent = [r for r, t in roots.items() if t is not None and t >= since]
            self._absorb(Found(roots={r: roots[r] for r in recent}), quiet=True, new_roots=recent)
            return []
        self._close_idle()
        return self._absorb(self.probe.poll(self.frontier()))

    def watch(self, root: str) -> None:
        """Ask about session ``root`` from now on (an open session page), its current steps read
        quietly (no events), unless it is open already."""
        if root in self.sessions:
            self.sessions[root].changed = time.monotonic()
            return
        self.known.add(root)
        self._absorb(Found(roots={root: None}), quiet=True, new_roots=[root])

    def frontier(self) -> list[str]:
        """Every entity of the open sessions that have not answered, and of the answered
        sub-sessions of those: a supervisor's Finding derives from its sub-agent's Conclusion
        (TRACE-MODEL.md, "What the 2.11.1 services actually emit")."""
        return sorted(m for s in self.sessions.values()
                      if not s.answered or (s.parent is not None and self.is_running(s.parent)) for m in s.members)

    def is_running(self, root: str) -> bool:
        """Whether ``root`` is a session seen without its answer yet (open, not given up)."""
        found = self.sessions.get(root)
        return found is not None and not found.answered

    # -- what a poll found ------------------------------------------------------------------
    def _absorb(self, found: Found, quiet: bool = False, new_roots: list[str] | None = None) -> list[LiveEvent]:
        events: list[LiveEvent] = []
        fresh = new_roots if new_roots is not None else [r for r in found.roots if r not in self.known]
        self.known.update(fresh)
        facts = self.probe.details(fresh) if fresh else {}
        for root in fresh:
            if root not in facts:
                continue
            parent = facts[root].parent
            self._open(root).parent = (self.owner.get(parent) or step_owner(parent)) if parent else None
            if not quiet:
                events.append(_session_event(facts[root]))
        edges, pending = found.edges, [r for r in fresh if r in facts]
        new_steps: list[tuple[str, str]] = []
        for level in itertools.count():
            if level >= MAX_LEVELS and not quiet:
                break  # the rest comes with the next poll, as news
            added = self._edges(edges)
            new_steps += added
            pending = [step for step, _ in added] + pending
            if not pending:
                break
            edges, pending = self.probe.children(pending), []
        if new_steps and not quiet:
            texts = self.probe.texts([s for s, _ in new_steps])
            for step, kind in new_steps:
                events.append(self._step_event(step, kind, texts.get(step)))
                if kind in ANSWER_KINDS:
                    events.append(self._step_event(step, kind, texts.get(step), ANSWER))
        return events

    def _open(self, root: str) -> OpenSession:
        session = self.sessions.get(root)
        if session is None:
            session = self.sessions[root] = OpenSession(root, {root})
            self.owner[root] = root
        return session

    def _edges(self, edges: list[Edge]) -> list[tuple[str, str]]:
        """Take in (step, parent, type) rows; the new steps (IRI, kind) in order of depth."""
        types: dict[str, set[str]] = {}
        parents: dict[str, str] = {}
        for step, parent, kind in edges:
            types.setdefault(step, set()).add(kind)
            parents.setdefault(step, parent)
        added = []
        for step, kinds in types.items():
            if step in self.owner or kinds & _QUESTION_TYPES:
                continue  # known, or a sub-session's root: found among the roots
            # an agent step's IRI names its session; else the entity it derives from does (a
            # supervisor's Finding derives from a sub-agent's Conclusion, and is the supervisor's)
            named = step_owner(step)
            root = named if named in self.sessions else self.owner.get(parents[step])
            session = self.sessions.get(root) if root else None
            if session is None:
                continue
            kind = kind_of(step, kinds)
            self.owner[step] = root
            session.members.add(step)
            session.changed = time.monotonic()
            if kind in SUB_ENTITY_KINDS or kind in EVIDENCE_KINDS:
                continue
            session.steps[step] = kind
            if kind in ANSWER_KINDS:
                session.answered = True
            added.append((step, kind))
        return added

    def _step_event(self, step: str, kind: str, text: str | None, event: str = STEP) -> LiveEvent:
        return LiveEvent(event, self.owner[step], step, kind, text, now())

    def _close_idle(self) -> None:
        cutoff = time.monotonic() - IDLE_CLOSE
        for root in [r for r, s in self.sessions.items() if s.changed < cutoff]:
            for member in self.sessions.pop(root).members:
                self.owner.pop(member, None)


def session_kind(types) -> str | None:
    """The TrustGraph class a session root's rdf ``types`` name it by: its Question subtype
    (``AgentQuestion``, ``GraphRagQuestion``, ``DocRagQuestion``...), else ``Question``; None
    for no Question type. The ``kind`` of a session line (``follow``'s and ``ask``'s)."""
    kinds = set(types) & _QUESTION_TYPES
    return sorted(kinds - {QUESTION})[0][len(TG):] if kinds - {QUESTION} else ("Question" if kinds else None)


def _session_event(facts: RootFacts) -> LiveEvent:
    kind = session_kind(facts.types)
    return LiveEvent(SESSION, facts.root, None, kind, facts.question, now(), parent=facts.parent, started=facts.time)
