"""The order a session page walks through steps: the step picker's list, the timeline's rows,
and where the keys j / k (next / previous) go.

The walk is the session's steps in reading order (``Session.steps``); each sub-session whose
parent session is at hand comes right after the step it derives from (TRACE-MODEL.md,
"Sub-traces": a tool call's GraphRAG after its Analysis, a supervisor's sub-agents after the
Decomposition), as its Question (a *header*, which the timeline draws as the band of the whole
sub-session) followed by its own walk one level deeper. A sub-session that derives from no step
of the walk (from the Question, or from a step not read) comes at the end. Every IRI appears
once (a step two sessions claim stays with the first); a cycle of sub-sessions is cut.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..model.session import Session, Step


@dataclass(frozen=True)
class WalkEntry:
    """One stop of the walk: ``step`` (a step, or a sub-session's root when ``header``), the
    ``session`` it belongs to, and its ``depth`` (0 for the session's own steps, 1 for a
    sub-session's header and steps, and so on)."""

    step: Step
    session: Session
    depth: int
    header: bool = False

    @property
    def id(self) -> str:
        return self.step.id


def step_walk(session: Session, sessions: Mapping[str, Session] | None = None) -> list[WalkEntry]:
    """The walk of ``session`` (module docstring); ``sessions`` (IRI -> Session) holds the
    sub-sessions that are at hand (a sub-session not in it is left out). Linear in the steps."""
    sessions = sessions or {}
    out: list[WalkEntry] = []
    _walk(session, sessions, 0, out, set(), {session.id})
    return out


def _walk(session: Session, sessions: Mapping[str, Session], depth: int, out: list[WalkEntry],
          seen: set[str], open_sessions: set[str]) -> None:
    children: dict[str, list[Session]] = {}
    for child_id in session.children:
        child = sessions.get(child_id)
        if child is not None and child_id not in open_sessions:
            children.setdefault(child.parent or "", []).append(child)
    for step in session.steps:
        if step.id in seen:
            continue
        seen.add(step.id)
        out.append(WalkEntry(step, session, depth))
        for child in children.pop(step.id, ()):
            _child(child, sessions, depth, out, seen, open_sessions)
    for rest in children.values():
        for child in rest:
            _child(child, sessions, depth, out, seen, open_sessions)


def _child(child: Session, sessions: Mapping[str, Session], depth: int, out: list[WalkEntry],
           seen: set[str], open_sessions: set[str]) -> None:
    if child.id in seen:
        return
    seen.add(child.id)
    out.append(WalkEntry(child.root, child, depth + 1, header=True))
    _walk(child, sessions, depth + 1, out, seen, open_sessions | {child.id})


def walk_positions(walk: list[WalkEntry]) -> dict[str, int]:
    """Step IRI -> its 0-based place in ``walk``."""
    return {entry.id: index for index, entry in enumerate(walk)}


def moved(walk: list[WalkEntry], current: str | None, by: int) -> str | None:
    """The IRI ``by`` places after ``current`` in ``walk`` (before it when negative), kept
    within the walk; the first entry when ``current`` is not in it; None for an empty walk."""
    if not walk:
        return None
    positions = walk_positions(walk)
    if current not in positions:
        return walk[0].id
    return walk[min(max(positions[current] + by, 0), len(walk) - 1)].id
