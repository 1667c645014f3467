"""Following a source as it is written (issue 41, "The list follows its source"): one poller
per source on the server, shared by every visitor and ``trace-explorer follow`` that follows it,
each poll one cheap query for the session roots and steps newer than the last seen.

The public API (every call is safe from any thread):

- ``poller_for(source, interval=1.0) -> Poller``: the shared poller of a TrustGraph gateway,
  SPARQL endpoint or local store (``probes.source_key`` says which sources are the same).
- ``subscribe(source) -> Subscription``: a follower's place; ``take(wait=0)`` returns the
  ``LiveEvent``s (new session, step, answer) since the last take; ``close()`` when done.
- ``new_sessions(source, since=0) -> list[LiveEvent]``: the session events after ``since`` (a
  ``LiveEvent.seq``; 0: all the poller has kept).
- ``new_steps(source, session_iri, since=0) -> list[LiveEvent]``: the step and answer events of
  one session after ``since``; the first call makes the poller watch that session (its steps
  from then on are news even when it started before the poller did).
- Both poll first when the last poll is an interval old (``Poller.poll_if_due``), in the
  caller's thread: a page that calls them every second keeps them current without a thread;
  a ``subscribe``r's thread polls by itself.
- ``Poller.is_running(root)``, ``Poller.failure`` (None, or why the source stopped answering),
  ``Poller.cursor`` (the newest ``seq``).

A ``LiveEvent`` is ``(event, session, step, kind, text, at, seq, parent)``: see ``events``.
"""

from __future__ import annotations

from ..sources.source import TraceSource
from .events import ANSWER, SESSION, STEP, LiveEvent
from .poller import DEFAULT_INTERVAL, Poller, Subscription, forget_pollers, poller_for


def subscribe(source: TraceSource, *, interval: float = DEFAULT_INTERVAL) -> Subscription:
    """A follower of ``source`` from now on (``Subscription.take``); close it when done.
    Raises SourceError when the source cannot be followed."""
    return poller_for(source, interval=interval).follow()


def new_sessions(source: TraceSource, since: int = 0) -> list[LiveEvent]:
    """The new sessions the poller of ``source`` has seen after ``since`` (a ``seq``), oldest
    first, after a poll when one is due. Raises SourceError when the source cannot be followed."""
    poller = poller_for(source)
    poller.poll_if_due()
    return [e for e in poller.events(since) if e.event == SESSION]


def new_steps(source: TraceSource, session_iri: str, since: int = 0) -> list[LiveEvent]:
    """The new steps (``event`` "step") and the answer (``event`` "answer", with its words) of
    session ``session_iri`` after ``since`` (a ``seq``), oldest first. The first call for a
    session makes the poller watch it (reading its current steps once, quietly), so call it
    once when the session opens and then with the last ``seq`` seen; it polls first when a poll
    is due. Raises SourceError when the source cannot be followed or fails while the session is
    first read."""
    poller = poller_for(source)
    if session_iri not in poller.tracker.sessions:
        poller.watch(session_iri)
    poller.poll_if_due()
    return [e for e in poller.events(since, session_iri) if e.event in (STEP, ANSWER)]


__all__ = ["ANSWER", "SESSION", "STEP", "LiveEvent", "Poller", "Subscription", "forget_pollers", "new_sessions",
           "new_steps", "poller_for", "subscribe"]
