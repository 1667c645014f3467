"""The session list following its source (issue 41, "The list follows its source"): a *Follow*
switch (on by default, kept in the URL as ``follow=false`` when paused), and, while it is on,
the list's part of the page rerun every ``RERUN_S`` seconds (``st.fragment(run_every=...)``),
reading what the source's shared poller (``trace_explorer.live``) found since this person's
last look. New sessions are marked new until opened or marked seen; a session without its
answer yet shows as running, with the steps the poller has seen. Filters, sort, page, ticked
rows and scroll stay: only the cached page is let go when something new came. A source that
stops answering says so in one note while it lasts; the list shown stays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from trace_explorer.live import Poller, poller_for
from trace_explorer.live.absorb import take_in
from trace_explorer.live.events import ANSWER, SESSION
from trace_explorer.store.local_store import local_source
from trace_explorer.sources.source import SourceError

from ..collection import Collection
from ..text import md_escape

FOLLOW_KEY = "follow"  # the switch's key and URL parameter
RERUN_S = 1.0  # seconds between two runs of the list while following
POLL_S = 1.0  # seconds between two polls of the source (shared by everyone who follows it)
FOLLOWED_KINDS = ("store", "endpoint", "trustgraph")  # what can be written while it is shown
_STATE_KEY = "te_live_list"
RUNNING = "running"


@dataclass
class LiveList:
    """This person's view of a followed source: ``cursor`` (the last event read), ``new`` (roots
    marked new), the ``poller`` (None when not following) and what ``failure`` it reports."""

    cursor: int = 0
    new: set[str] = field(default_factory=set)
    poller: Poller | None = None
    failure: str | None = None


def followable(collection: Collection) -> bool:
    """Whether ``collection``'s source can be written while it is shown (a store, an endpoint,
    a deployment), so that following it means something."""
    return bool(collection.key) and collection.key[0] in FOLLOWED_KINDS and not collection.empty_state


def follow_switch(collection: Collection) -> bool:
    """Draw the *Follow* switch (for a followable source) and return whether the list follows."""
    if not followable(collection):
        return False
    return st.toggle("Follow", value=True, key=FOLLOW_KEY, bind="query-params", persist_state="session",
                     help="Show new sessions as they are written, and running sessions' steps as they land "
                          "(the source is asked every second, once for everyone who follows it). Off: the list "
                          "stays as it is.")


def live_list(collection: Collection) -> LiveList:
    """Read what the poller of ``collection``'s source found since this person's last look, and
    let go of the pages it makes stale (``refresh``). Returns this person's ``LiveList``."""
    views: dict[tuple, LiveList] = st.session_state.setdefault(_STATE_KEY, {})
    live = views.get(collection.key[:2])
    try:
        poller = poller_for(collection.source, interval=POLL_S)
    except SourceError as error:
        return LiveList(failure=str(error))
    if live is None:  # what came before this person looked (and the first poll's baseline) is not news
        poller.poll_if_due()
        live = views[collection.key[:2]] = LiveList(cursor=poller.cursor)
    live.poller = poller
    poller.poll_if_due()  # the first of everyone following this source polls for all of them (a failure: ``failure``)
    events = poller.events(live.cursor)
    if events:
        live.cursor = events[-1].seq
        live.new |= {e.session for e in events if e.event == SESSION}
        settled = {e.session for e in events if e.event in (SESSION, ANSWER)}
        take_in(collection.source, [e for e in events if e.session in settled])
        refresh(collection)
    live.failure = poller.failure
    return live


def paused_list(collection: Collection) -> LiveList | None:
    """This person's ``LiveList`` of ``collection``'s source as the last look left it, without
    polling or reading news: a list paused by its Follow switch keeps its marks (new,
    running) as they were. None when it was never followed in this browser session."""
    return st.session_state.get(_STATE_KEY, {}).get(collection.key[:2])


def refresh(collection: Collection) -> None:
    """Let go of the pages and counts ``collection`` keeps, and for a local store open its
    newest snapshot (an ingest published one), so that the next page reads what is there now."""
    source = collection.source
    if collection.key[0] == "store" and hasattr(source, "is_current") and not source.is_current():
        try:
            collection.source = local_source(collection.key[1], label=source.label)
            collection.key = collection.key[:2] + (collection.source.generation,)
            collection.fetched.clear()
        except SourceError:
            pass  # the snapshot in hand still reads; the next run tries again
    collection._pages.clear()
    collection._counts.clear()


def seen(live: LiveList, roots: Sequence[str] | None = None) -> None:
    """Mark ``roots`` (every new one when None) as seen: no longer marked new."""
    if roots is None:
        live.new.clear()
    else:
        live.new.difference_update(roots)


def live_rows(rows: Sequence[dict[str, Any]], live: LiveList | None) -> list[dict[str, Any]]:
    """``rows`` (session summaries) as the list shows them while following: ``new`` set on
    those marked new, and a session the poller saw without its answer yet ``running``, with
    the steps it has seen when they are more than the row counts."""
    if live is None or live.poller is None:
        return list(rows)
    out = []
    for row in rows:
        root = row["id"]
        extra: dict[str, Any] = {}
        if root in live.new:
            extra["new"] = True
        if live.poller.is_running(root):
            extra["status"] = RUNNING
            seen_steps = live.poller.steps_of(root) or 0
            extra["step_count"] = max(row.get("step_count") or 0, seen_steps)
        out.append(dict(row, **extra) if extra else row)
    return out


def failure_note(live: LiveList | None) -> None:
    """Say, in one note while it lasts, that the followed source stopped answering. Its place is
    kept while following (an empty slot), so that the list under it is not drawn anew when the
    note comes or goes."""
    slot = st.empty() if live is not None else None
    if live is not None and live.failure:
        slot.warning(md_escape(f"{live.failure}. The list shows what it had; it follows again by itself once the "
                             "source answers."), icon=":material/cloud_off:")
