"""A deadline for the whole of an HTTP exchange, kept by one watcher thread.

A socket timeout bounds each read, not the answer: a server that sends one byte a second never
trips it. So each exchange runs under a ``Deadline``: the sockets it opens or reuses are
registered with it (``attach``, called by ``pinned_http``'s connections), and when the deadline
passes the watcher shuts them down, which ends any read blocked on them at once. The reader
then sees ``expired`` and reports the deadline, not a broken connection.

``abort_all`` ends every exchange in flight, and any started after it at once. It runs when the
interpreter shuts down (after SIGTERM, once the server has stopped), before Python waits for the
worker threads of thread pools: a worker blocked on a hostile server, or one still working
through a queue of requests, would otherwise keep the process alive.
"""

from __future__ import annotations

import concurrent.futures.thread  # noqa: F401 - its exit hook must be registered before ours
import heapq
import itertools
import socket
import threading
import time

_current = threading.local()


class Deadline:
    """One exchange's deadline (``time.monotonic()`` seconds). Use as a context manager around
    the exchange: sockets attached while it is active are shut down when it expires."""

    def __init__(self, at: float):
        self.at = at
        self.expired = False
        self._done = False
        self._sockets: list[socket.socket] = []
        self._owned: list[socket.socket] = []  # duplicates made for this exchange, closed with it
        self._lock = threading.Lock()

    def remaining(self) -> float:
        """Seconds left (0 once passed)."""
        return max(0.0, self.at - time.monotonic())

    def attach(self, sock: socket.socket | None, *, owned: bool = False) -> None:
        """Shut ``sock`` down when the deadline passes (at once if it has). ``owned``: a
        duplicate made for the deadline (it still reaches the connection after the original is
        wrapped in TLS, during the handshake), closed when the exchange ends."""
        if sock is None:
            return
        with self._lock:
            if self._done:
                if owned:
                    sock.close()
                return
            self._sockets.append(sock)
            if owned:
                self._owned.append(sock)
            fire = self.expired or time.monotonic() >= self.at
        if fire:
            self.expire()

    def expire(self) -> None:
        """End the exchange: every attached socket is shut down (reads blocked on it return)."""
        with self._lock:
            if self._done:
                return
            self.expired = True
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            try:  # the plain socket's shutdown: an SSL socket's own would drop its state under a reader
                socket.socket.shutdown(sock, socket.SHUT_RDWR)
            except OSError:
                pass  # closed already

    def __enter__(self) -> Deadline:
        if _WATCHER.closing:
            self.expired = True  # the process is shutting down: no new exchange runs
        self._previous = getattr(_current, "deadline", None)
        _current.deadline = self
        _WATCHER.watch(self)
        return self

    def __exit__(self, *exc) -> None:
        _current.deadline = self._previous
        with self._lock:
            self._done = True
            self._sockets, owned, self._owned = [], self._owned, []
        for sock in owned:
            sock.close()
        _WATCHER.forget(self)


def attach_to_current(sock: socket.socket | None, *, duplicate: bool = False) -> None:
    """Register ``sock`` with the deadline of the exchange this thread runs, if any; with
    ``duplicate``, a duplicate of it (``Deadline.attach``'s ``owned``)."""
    deadline = getattr(_current, "deadline", None)
    if deadline is not None and sock is not None:
        deadline.attach(sock.dup() if duplicate else sock, owned=duplicate)


class _Watcher:
    """One daemon thread that expires deadlines in time order."""

    def __init__(self):
        self._cv = threading.Condition()
        self._heap: list[tuple[float, int, Deadline]] = []
        self._live: set[Deadline] = set()  # the deadlines of exchanges still running
        self._order = itertools.count()
        self._thread: threading.Thread | None = None
        self.closing = False

    def watch(self, deadline: Deadline) -> None:
        with self._cv:
            self._live.add(deadline)
            heapq.heappush(self._heap, (deadline.at, next(self._order), deadline))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="http-deadline", daemon=True)
                self._thread.start()
            self._cv.notify()

    def forget(self, deadline: Deadline) -> None:
        with self._cv:
            self._live.discard(deadline)

    def _run(self) -> None:
        while True:
            with self._cv:
                while not self._heap:
                    self._cv.wait()
                at, _, deadline = self._heap[0]
                wait = at - time.monotonic()
                if deadline not in self._live:
                    heapq.heappop(self._heap)
                    continue
                if wait > 0:
                    self._cv.wait(wait)
                    continue
                heapq.heappop(self._heap)
                self._live.discard(deadline)
            deadline.expire()

    def abort_all(self) -> None:
        with self._cv:
            self.closing = True
            live = list(self._live)
        for deadline in live:
            deadline.expire()


_WATCHER = _Watcher()


def abort_all() -> None:
    """Expire every exchange in flight (their reads end at once with a deadline error), and
    every exchange started after this at once: for the interpreter's shutdown only."""
    _WATCHER.abort_all()


# Hooks registered here run in reverse order at interpreter shutdown, before non-daemon threads
# are joined; concurrent.futures' hook (imported above, so registered first) joins pool workers.
_register = getattr(threading, "_register_atexit", None)
if _register is not None:
    try:
        _register(abort_all)
    except RuntimeError:  # imported while the interpreter is shutting down
        pass
