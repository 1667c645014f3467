"""Ctrl-C on the command line, kept even where it lands inside native code.

Python runs a SIGINT handler between bytecodes, or when native code asks (``PyErr_CheckSignals``).
A native library that asks and then carries on leaves the ``KeyboardInterrupt`` raised in its
handler unseen: an ingest went on to its end after a Ctrl-C during its full-text phase. So the
handler also notes the interrupt (``INTERRUPTED``), and ``check()``, called as each phase of an
ingest begins and advances (``ingest_progress.BarPhases``), raises it again there; ``main``
then rolls the write back and exits with status 130.

A second Ctrl-C, while the first is being handled (a write rolled back, worker processes waited
for), stops at once: the worker processes are killed and the process exits with status 130, as a
kill would leave it; the next writer to open the store undoes a write left part way
(``store.write_journal``). Without it, a second Ctrl-C that landed while the workers were
waited for left them waiting for work that never came, and the command never ended.

A Ctrl-C while the command's modules are still being imported (about half a second, before
``main`` runs) has nothing to roll back: ``loading()`` ends the process there with the same
``interrupted`` line and status 130, where Python would print the import's traceback.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Iterator
from multiprocessing import resource_tracker

INTERRUPTED = threading.Event()


def check() -> None:
    """Raise KeyboardInterrupt when a Ctrl-C came since ``catching`` began."""
    if INTERRUPTED.is_set():
        raise KeyboardInterrupt


def _noted(signum, frame) -> None:
    if INTERRUPTED.is_set():
        _stop_at_once()
    INTERRUPTED.set()
    raise KeyboardInterrupt


def _stop_at_once() -> None:
    """Kill this process's worker processes and exit with status 130, now (see the module)."""
    for child in multiprocessing.active_children():
        child.kill()
    tracker = getattr(getattr(resource_tracker, "_resource_tracker", None), "_pid", None)
    if tracker is not None:  # it would warn of the workers' semaphores, which go with the process
        with contextlib.suppress(OSError):
            os.kill(tracker, signal.SIGKILL)
    sys.stderr.write("\ntrace-explorer: interrupted again: stopped at once; the next writer to open the store "
                     "undoes what was left part way\n")
    sys.stderr.flush()
    os._exit(130)


@contextlib.contextmanager
def loading() -> Iterator[None]:
    """While in this block (the command's imports), a SIGINT prints ``trace-explorer:
    interrupted`` and ends the process with status 130 at once; the handler before is put back
    after. Nothing is changed outside the main thread, or where SIGINT was already handled
    otherwise than by Python's default (ignored, or a handler of the program's own)."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    previous = signal.signal(signal.SIGINT, _while_loading)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _while_loading(signum, frame) -> None:
    sys.stderr.write("trace-explorer: interrupted\n")
    sys.stderr.flush()
    os._exit(130)  # nothing written yet, and a half-imported module has nothing to clean up


@contextlib.contextmanager
def catching() -> Iterator[None]:
    """While in this block (in the main thread; elsewhere it does nothing), a SIGINT is noted
    as well as raised; the handler before is put back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    INTERRUPTED.clear()
    previous = signal.signal(signal.SIGINT, _noted)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        INTERRUPTED.clear()
