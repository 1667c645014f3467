"""One poller per source, shared by everyone who follows it: a thread that runs a poll cycle
(``tracker.Tracker.cycle``) every ``interval`` seconds while someone follows, and keeps the
events in a log that each follower reads from its own place (``seq``). Ten followers of one
gateway cost it what one does.

A poll that fails (the source stopped answering) sets ``failure`` once, keeps every event and
every session seen, and the polls go on at the same pace; the first that succeeds clears it
(``resumed`` counts those). A poller nobody has asked for in ``IDLE_STOP`` seconds stops its
thread; the next follower starts it again where it left off. A page that reruns every second
polls with ``poll_if_due`` instead, in its own run: no thread then outlives the people
looking.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import deque
from collections.abc import Callable

from ..sources.source import SourceError, TraceSource
from .events import LiveEvent
from .probes import probe_for, source_key
from .tracker import Tracker

DEFAULT_INTERVAL = 1.0  # seconds between two polls (a new session shows within about this, plus the poll)
IDLE_STOP = 60.0  # seconds without a follower after which the thread stops
LOG_KEPT = 20_000  # events kept; a follower further behind misses the oldest
_FAILURES = (SourceError, OSError, ValueError, RuntimeError)  # what a poll may raise when the source fails


class Poller:
    """Polls ``probe`` (``probes.probe_for``) every ``interval`` seconds for whoever follows it.
    ``label`` names the source; ``failure`` says why the last poll failed (None when it
    answered); ``polls`` counts the cycles run, ``cpu_seconds`` their CPU time (this process)."""

    def __init__(self, probe, *, interval: float = DEFAULT_INTERVAL, label: str = "source",
                 from_start: bool = False):
        self.probe = probe
        self.interval = interval
        self.label = label
        self.tracker = Tracker(probe, from_start)
        self.failure: str | None = None
        self.resumed = 0
        self.polls = 0
        self.cpu_seconds = 0.0
        self._log: deque[LiveEvent] = deque(maxlen=LOG_KEPT)
        self._seq = 0
        self._changed = threading.Condition()
        self._work = threading.Lock()  # one cycle (or watch) at a time
        self._thread: threading.Thread | None = None
        self._asked = time.monotonic()
        self._last = -float("inf")  # when the last cycle began (``time.monotonic()``)
        self._followers = 0
        self._stopping = False

    # -- reading ----------------------------------------------------------------------------
    @property
    def cursor(self) -> int:
        """The ``seq`` of the newest event (0 before any): pass it as ``since`` to read only
        what comes after now."""
        return self._seq

    @property
    def ready(self) -> bool:
        """Whether the first poll (which reads every root once) has been made."""
        return self.tracker.started

    def events(self, since: int = 0, session: str | None = None) -> list[LiveEvent]:
        """The events after ``since`` (a ``seq``), oldest first; only those of ``session`` (a
        root IRI) when given. Polls nothing itself: the thread (``touch``, ``follow``) or
        ``poll_if_due`` does."""
        with self._changed:
            return [e for e in self._log if e.seq > since and (session is None or e.session == session)]

    def wait(self, since: int, timeout: float) -> list[LiveEvent]:
        """The events after ``since``, waiting up to ``timeout`` seconds for one to come (or
        for ``failure`` to change)."""
        self.touch()
        failure = self.failure
        with self._changed:
            self._changed.wait_for(lambda: self._seq > since or self.failure != failure, timeout)
        return self.events(since)

    def is_running(self, root: str) -> bool:
        """Whether session ``root`` was seen without its answer yet (it shows as running)."""
        return self.tracker.is_running(root)

    def steps_of(self, root: str) -> int | None:
        """How many steps of the open session ``root`` the poller has seen, or None when it
        does not follow that session."""
        found = self.tracker.sessions.get(root)
        return len(found.steps) if found is not None else None

    # -- following --------------------------------------------------------------------------
    def touch(self) -> None:
        """Someone follows: keep polling (and start the thread when it stopped)."""
        self._asked = time.monotonic()
        if self._thread is None or not self._thread.is_alive():
            self._stopping = False
            self._thread = threading.Thread(target=self._run, name=f"live {self.label}"[:60], daemon=True)
            self._thread.start()

    def follow(self) -> Subscription:
        """A follower's place in the log, from now on (``Subscription.take``); the poller polls
        while it is open (``Subscription.close``)."""
        with self._changed:
            self._followers += 1
            since = self._seq  # read before the thread starts: its first poll's events are this follower's
        self.touch()
        return Subscription(self, since)

    def watch(self, root: str) -> None:
        """Ask about session ``root`` from the next poll on, as about a session that has not
        answered yet (an open session page): its later steps come as events. Its current steps
        are read now, quietly (the first poll too, when none was made yet). Starts no thread.
        Raises what the source raises."""
        with self._work:
            if not self.tracker.started:
                self._cycle()
            self.tracker.watch(root)

    def poll_if_due(self) -> list[LiveEvent]:
        """Poll now, in this thread, when the last poll is ``interval`` seconds old or more and
        none is running; the events it made ([] when it did not poll). For page runs that
        rerun every second or so: whoever runs first after the interval polls for everyone,
        and nothing polls once no one is looking (no thread is started)."""
        if time.monotonic() - self._last < self.interval or not self._work.acquire(blocking=False):
            return []
        try:
            return self._cycle() if time.monotonic() - self._last >= self.interval else []
        finally:
            self._work.release()

    def poll_now(self) -> list[LiveEvent]:
        """Run one cycle now, in this thread (the thread's next one still comes); the events it
        made. A failure is kept in ``failure``, not raised."""
        with self._work:
            return self._cycle()

    def stop(self) -> None:
        """Stop the thread after its current cycle."""
        self._stopping = True
        with self._changed:
            self._changed.notify_all()

    # -- the thread -------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stopping:
            with self._changed:  # until the last poll (the thread's, or a page's) is an interval old
                self._changed.wait_for(lambda: self._stopping, max(0.0, self._last + self.interval - time.monotonic()))
            if self._stopping:
                break
            with self._work:
                if time.monotonic() - self._last >= self.interval:
                    self._cycle()
            if self._followers <= 0 and time.monotonic() - self._asked > IDLE_STOP:
                break

    def _cycle(self) -> list[LiveEvent]:
        self._last = time.monotonic()
        cpu = time.thread_time()
        try:
            found = self.tracker.cycle()
        except _FAILURES as error:
            with self._changed:
                if self.failure is None:
                    self.failure = f"{self.label} stopped answering: {error}"
                    self._changed.notify_all()
            return []
        finally:
            self.polls += 1
            self.cpu_seconds += time.thread_time() - cpu
        with self._changed:
            if self.failure is not None:
                self.failure = None
                self.resumed += 1
            out = []
            for event in found:
                self._seq += 1
                out.append(_numbered(event, self._seq))
            self._log.extend(out)
            self._changed.notify_all()
        return out


class Subscription:
    """One follower's place in a poller's log. ``take()`` -> the events since the last take;
    ``close()`` when done (or use it in a ``with`` block)."""

    def __init__(self, poller: Poller, since: int):
        self.poller = poller
        self.since = since
        self.closed = False

    def take(self, wait: float = 0.0) -> list[LiveEvent]:
        """The events since the last ``take`` (waiting up to ``wait`` seconds for one)."""
        found = self.poller.wait(self.since, wait) if wait else self.poller.events(self.since)
        if found:
            self.since = found[-1].seq
        return found

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with self.poller._changed:
                self.poller._followers -= 1

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _numbered(event: LiveEvent, seq: int) -> LiveEvent:
    return dataclasses.replace(event, seq=seq)


_pollers: dict[tuple, Poller] = {}
_pollers_lock = threading.Lock()


def poller_for(source: TraceSource, *, interval: float = DEFAULT_INTERVAL,
               probe: Callable[[], object] | None = None) -> Poller:
    """The one poller of ``source`` in this process (``probes.source_key``: the same
    deployment, endpoint or store, whoever opened it), made on first use with ``interval``
    seconds between polls (a later caller's interval is not used) and the probe
    ``probes.probe_for(source)`` (or ``probe()``). Raises SourceError when the source cannot be
    followed."""
    key = source_key(source)
    with _pollers_lock:
        found = _pollers.get(key)
        if found is None:
            found = _pollers[key] = Poller(probe() if probe else probe_for(source), interval=interval,
                                           label=source.label)
        return found


def forget_pollers() -> None:
    """Stop and forget every shared poller (tests; a process that lets its sources go)."""
    with _pollers_lock:
        pollers = list(_pollers.values())
        _pollers.clear()
    for poller in pollers:
        poller.stop()
