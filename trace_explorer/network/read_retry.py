"""Another try, after a pause, for a read whose connection failed on the way.

A busy server resets some connections when its queue of connections is full, or answers HTTP
503 (busy) or 429 (too many requests); the same read sent a moment later succeeds. Only reads
are sent again (every request the TrustGraph gateway is sent is one: a triple pattern, a SPARQL
query, a document), and only when nothing came back but such a failure
(``HttpFailure.transient``) or a busy status: a timeout, an error answer or an answer too large
is final at once. The pauses grow (``RETRY_DELAYS_S``, each drawn between half and all of its
value, so that requests reset together do not come back together), as in the exponential
backoff with jitter of RFC 8085 section 3.1.3 and of AWS's "Exponential Backoff And Jitter".

``InFlightLimit`` bounds the requests sent to one server at once, whoever sends them, and lowers
the bound when the server shows it is busy (halved at each reset or busy answer, down to one),
then raises it again by one after as many answers in a row as the bound: the additive increase
and multiplicative decrease of TCP's congestion control (RFC 5681), so a gateway with a short
queue of connections is asked only as much as it can take.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from .bounded_http import Answer, HttpFailure

RETRY_DELAYS_S = (0.1, 0.3, 0.9)  # the pauses before the second, third and fourth tries, s
BUSY_STATUSES = frozenset({429, 503})  # "too many requests", "service unavailable"
A = TypeVar("A", bound=Answer)


class InFlightLimit:
    """At most ``limit`` requests at once (``slot``), between 1 and ``most``: ``busy()`` halves
    it, and ``limit`` answers in a row (``answered()``) raise it by one (module docstring)."""

    def __init__(self, most: int):
        self.most = self.limit = max(1, int(most))
        self.in_flight = 0
        self._answered = 0
        self._changed = threading.Condition()

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Wait until fewer than ``limit`` requests are in flight; hold a place until the end."""
        with self._changed:
            self._changed.wait_for(lambda: self.in_flight < self.limit)
            self.in_flight += 1
        try:
            yield
        finally:
            with self._changed:
                self.in_flight -= 1
                self._changed.notify()

    def busy(self) -> None:
        """The server reset a connection or answered busy: halve the limit (at least 1)."""
        with self._changed:
            self.limit, self._answered = max(1, self.limit // 2), 0

    def answered(self) -> None:
        """An answer came: after ``limit`` in a row, allow one more at once (up to ``most``)."""
        with self._changed:
            self._answered += 1
            if self._answered >= self.limit and self.limit < self.most:
                self.limit, self._answered = self.limit + 1, 0
                self._changed.notify()


def retried(send: Callable[[], A], limit: InFlightLimit | None = None, delays: tuple[float, ...] = RETRY_DELAYS_S,
            sleep: Callable[[float], None] = time.sleep) -> A:
    """``send()`` (one read's exchange: ``bounded_http.bounded_post`` or a function around it),
    each try in a place of ``limit`` (when given, told how the server answered), sent again
    after each pause of ``delays`` (s) while it raises a transient HttpFailure or answers with a
    busy status. Returns the last answer (a busy one when every try was busy); raises the last
    HttpFailure, its message then saying how many tries were made over how long ("...; 4 tries
    over 1.1 s")."""
    started = time.monotonic()
    for tries, delay in enumerate((*delays, None), start=1):
        try:
            with limit.slot() if limit else _nothing():
                answer = send()
        except HttpFailure as failure:
            if not failure.transient:
                raise
            if limit:
                limit.busy()
            if delay is None:
                raise HttpFailure(f"{failure}; {tries} tries over {time.monotonic() - started:.1f} s",
                                  transient=True) from None
        else:
            busy = answer.status in BUSY_STATUSES
            if limit:
                limit.busy() if busy else limit.answered()
            if not busy or delay is None:
                return answer
        sleep(delay * random.uniform(0.5, 1.0))
    raise AssertionError("unreachable: the last try returns or raises")


@contextmanager
def _nothing() -> Iterator[None]:
    yield
