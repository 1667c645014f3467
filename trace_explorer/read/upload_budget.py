"""A budget for the memory that parsed uploads hold in the server, shared by every visitor.

A parsed upload holds several times its size: its quads as Python objects, then the in-memory
store and session index built from them. An adversary measured about 6.6 times (a 204 MB upload
left the server 1.34 GB bigger), so an upload is counted as ``HOLD_FACTOR`` (7) times the bytes
read from it after decompression (``LoadedFile.size``), and before it is parsed as that many
times the bytes sent (a ``.gz`` is counted again, larger, once it is read).

What an upload holds is counted while anything holds its parse: the budget keeps a weak
reference to the object the app keeps (``hold``) and gives the bytes back when the object is
collected (a visitor removed the files, their session ended, a shared cache let go). Past the
budget, an upload waits (``reserve``'s ``wait_s``) for others to be given back, after asking
``free`` to let go of what nobody uses, and is then refused with ``OverBudget``, whose message
says so to the person.

``TRACE_EXPLORER_UPLOAD_MEMORY_MB`` sets the budget (default 2048 MiB).
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .limits import MIB, format_size

HOLD_FACTOR = 7  # bytes held in the server per byte of an upload, parsed and indexed (6.6 measured)
BUDGET_VARIABLE = "TRACE_EXPLORER_UPLOAD_MEMORY_MB"
DEFAULT_BUDGET_MB = 2048
DEFAULT_WAIT_S = 10.0  # how long an upload past the budget waits for room before it is refused


class OverBudget(RuntimeError):
    """An upload that would take the parsed uploads past the server's memory budget; the message
    is for the person who sent it."""


@dataclass
class Reservation:
    """Room taken in a ``MemoryBudget`` for one upload being parsed: ``bytes`` held from now on.
    ``hold`` moves it onto the object kept; left alone, the room is given back when the
    ``reserve`` block ends."""

    budget: MemoryBudget
    bytes: int
    held: bool = False

    def hold(self, kept: object, size: int) -> None:
        """Count ``size`` bytes (the parse's true size, ``HOLD_FACTOR`` times ``LoadedFile.size``)
        for as long as ``kept`` lives (it must take a weak reference). Raises OverBudget when the
        true size no longer fits (a ``.gz`` that expanded past the room left)."""
        self.budget._hold(self, kept, size)


@dataclass
class MemoryBudget:
    """At most ``max_bytes`` of parsed uploads held at once (as ``HOLD_FACTOR`` times their
    size counts them). Thread-safe: one per server process, shared by every visitor."""

    max_bytes: int
    clock: Callable[[], float] = time.monotonic
    _held: int = field(default=0, repr=False)
    _room: threading.Condition = field(default_factory=threading.Condition, repr=False)

    @property
    def held(self) -> int:
        """Bytes counted now: the uploads kept and those being parsed."""
        with self._room:
            return self._held

    @contextlib.contextmanager
    def reserve(self, size: int, wait_s: float = DEFAULT_WAIT_S,
                free: Callable[[], None] | None = None) -> Iterator[Reservation]:
        """Take room for an upload of ``size`` bytes as sent (``HOLD_FACTOR`` times as much) for
        the block, which parses it and ``hold``s the result. When it does not fit, ``free`` is
        called once (to let go of what nobody uses), then this waits up to ``wait_s`` seconds
        for room; raises OverBudget when there is none by then, or when the upload alone is over
        the whole budget."""
        need = size * HOLD_FACTOR
        if need > self.max_bytes:
            raise OverBudget(self._message(need, alone=True))
        deadline, freed = self.clock() + wait_s, False
        with self._room:
            while self._held + need > self.max_bytes:
                if not freed:
                    freed = True
                    self._room.release()
                    try:  # outside the lock: what is freed gives its bytes back through it
                        if free is not None:
                            free()
                        gc.collect()
                    finally:
                        self._room.acquire()
                    continue
                left = deadline - self.clock()
                if left <= 0:
                    raise OverBudget(self._message(need))
                self._room.wait(min(left, 1.0))
            self._held += need
        reservation = Reservation(self, need)
        try:
            yield reservation
        finally:
            if not reservation.held:
                self._give_back(need)

    def _hold(self, reservation: Reservation, kept: object, size: int) -> None:
        true = size * HOLD_FACTOR
        with self._room:
            if true > reservation.bytes and self._held - reservation.bytes + true > self.max_bytes:
                raise OverBudget(self._message(true))
            self._held += true - reservation.bytes
            reservation.held = True
        weakref.finalize(kept, self._give_back, true)

    def _give_back(self, size: int) -> None:
        with self._room:
            self._held -= size
            self._room.notify_all()

    def _message(self, need: int, alone: bool = False) -> str:
        budget = format_size(self.max_bytes)
        if alone:
            return (f"this file would hold about {format_size(need)} of memory once read, more than this server gives "
                    f"to everyone's uploads together ({budget}, set by {BUDGET_VARIABLE}); ingest it into a "
                    "local store instead (trace-explorer ingest FILE --store DIR)")
        return (f"this server is holding as many uploaded files as its memory allows ({budget} for everyone's "
                f"uploads, set by {BUDGET_VARIABLE}); try again in a few minutes, or remove files you no longer "
                "need")


def budget_from_environment(environ: dict[str, str] | None = None) -> MemoryBudget:
    """The budget ``TRACE_EXPLORER_UPLOAD_MEMORY_MB`` sets (MiB; default 2048, also for a value
    that is not a positive number)."""
    raw = (os.environ if environ is None else environ).get(BUDGET_VARIABLE, "")
    try:
        mb = float(raw.strip() or DEFAULT_BUDGET_MB)
    except ValueError:
        mb = DEFAULT_BUDGET_MB
    return MemoryBudget(int((mb if 0 < mb < float("inf") else DEFAULT_BUDGET_MB) * MIB))
