"""A session with every session below it: its sub-sessions, theirs, and so on."""

from __future__ import annotations

from ..model.session import Session
from .catalog import fetch_sessions
from ..sources.source import TraceSource


def fetch_family(source: TraceSource, session_id: str) -> dict[str, Session]:
    """Session ``session_id`` and its sub-sessions, recursively, by IRI (empty when the source
    has no such session). Raises ``SourceError`` when the source fails."""
    family = fetch_sessions(source, [session_id])
    wanted = list(family[session_id].children) if session_id in family else []
    while wanted:
        found = fetch_sessions(source, [w for w in wanted if w not in family])
        family.update(found)
        wanted = [c for s in found.values() for c in s.children if c not in family]
    return family
