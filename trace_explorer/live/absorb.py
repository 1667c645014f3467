"""What a reader of a source does with the events its poller made, so that its list shows
them without reading the source again (``take_in``): a TrustGraph source takes the new roots
into the roots it keeps and forgets the rows of the sessions that grew. A local store's list
reads its session index, which ``ingest`` keeps current, and a SPARQL endpoint's list queries
the endpoint: they keep nothing to update (a page kept by the app is let go by the app)."""

from __future__ import annotations

from collections.abc import Iterable

from ..model.literals import parse_time
from ..model.vocabulary import QUESTION, TG
from ..sources.source import TraceSource
from .events import SESSION, LiveEvent


def take_in(source: TraceSource, events: Iterable[LiveEvent]) -> set[str]:
    """Update ``source``'s own record of its sessions with ``events`` (see the module
    docstring); returns the roots of the sessions the events touched."""
    events = list(events)
    touched = {e.session for e in events}
    if getattr(source, "gateway", None) is not None and touched:  # only a TrustGraph source keeps roots
        from ..sources.trustgraph.catalog import RootInfo
        from ..sources.trustgraph.source import note_written

        roots = [RootInfo(e.session, e.text, parse_time(e.started) if e.started else None,
                          {QUESTION} | ({TG + e.kind} if e.kind else set()), e.parent)
                 for e in events if e.event == SESSION]
        note_written(source, roots, touched)
    return touched
