"""Ctrl-C on the command line, kept even where it lands inside native code.

Python runs a SIGINT handler between bytecodes, or when native code asks (``PyErr_CheckSignals``).
A native library that asks and then carries on leaves the ``KeyboardInterrupt`` raised in its
handler unseen: an ingest went on to its end after a Ctrl-C during its full-text phase. So the
handler also notes the interrupt (``INTERRUPTED``), and ``check()``, called as each phase of an
ingest begins and advances (``ingest_progress.BarPhases``), raises it again there; ``main``
then rolls the write back and exits with status 130.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

INTERRUPTED = threading.Event()


def check() -> None:
    """Raise KeyboardInterrupt when a Ctrl-C came since ``catching`` began."""
    if INTERRUPTED.is_set():
        raise KeyboardInterrupt


def _noted(signum, frame) -> None:
    INTERRUPTED.set()
    raise KeyboardInterrupt


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
