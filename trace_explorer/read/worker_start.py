"""How a worker process starts: a parse worker from the fork server, without the app's own script;
any worker with Ctrl-C left to its parent.

``multiprocessing`` starts a new process by sending it "preparation data" that names the parent's
``__main__`` module, which the child then runs again as ``__mp_main__`` (the spawn and forkserver
start methods, CPython's ``multiprocessing.spawn.prepare``). Under Streamlit, ``__main__`` is the
app's script (``app.py``, swapped in for each run), so every parse worker would import Streamlit,
pandas and the whole app, and run the script, before parsing a byte: hundreds of MiB counted
against the worker's memory cap (``RLIMIT_AS``) and most of a second of start-up. A parse worker
needs none of it: its code is ``trace_explorer.read.worker``, preloaded by the fork server.

``WorkerContext`` is a forkserver context whose processes start without the main script: while
one of them is being launched (in that thread only), the preparation data leaves out
``init_main_from_path`` and ``init_main_from_name``. Other users of ``multiprocessing`` in the
process are untouched.

A Ctrl-C at a terminal reaches every process of its group, a worker too. One that lands while a
worker starts (Python's start, its imports: about a second) raised KeyboardInterrupt there and
printed the worker's traceback under the command's own ``interrupted``. A worker's Ctrl-C is its
parent's to handle, so ``ctrl_c_held()`` launches workers with SIGINT blocked (the signal mask
is kept across fork and exec: a Ctrl-C waits, unseen, in the new process), and the worker's
first act, ``ctrl_c_left_to_parent()``, ignores SIGINT and only then unblocks it, which drops a
Ctrl-C that was waiting.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from multiprocessing import context, popen_forkserver, resource_tracker, spawn

_MAIN_KEYS = ("init_main_from_path", "init_main_from_name")
_launching = threading.local()
_preparation_data = spawn.get_preparation_data


def _without_main(name: str) -> dict:
    """``spawn.get_preparation_data(name)``, less the main script while a parse worker starts."""
    data = _preparation_data(name)
    if getattr(_launching, "worker", False):
        for key in _MAIN_KEYS:
            data.pop(key, None)
    return data


spawn.get_preparation_data = _without_main


@contextlib.contextmanager
def ctrl_c_held() -> Iterator[None]:
    """While in this block, SIGINT is blocked in this thread, so that a process started here
    starts with it blocked (see the module). In the main thread, a Ctrl-C meanwhile (taken by
    another thread, the mask being a thread's own) is held too and given to the handler before
    as the block ends: raised half way through a launch, it left a started worker that nothing
    would stop, and the process waited for it at exit. The resource tracker is started first
    when it is not running: ``multiprocessing`` starts it with SIGINT blocked, then unblocks
    SIGINT in the thread, which would undo this block (CPython's ``resource_tracker``)."""
    resource_tracker.ensure_running()  # started here, not inside: its start unblocks SIGINT in this thread
    main = threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is not None
    held: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum)) if main else None
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        if main:
            signal.signal(signal.SIGINT, previous)
            if held:
                signal.raise_signal(signal.SIGINT)


def ctrl_c_left_to_parent() -> None:
    """In a worker started under ``ctrl_c_held()``: SIGINT ignored from now on, a Ctrl-C that
    came while it started dropped; the parent stops the worker when it is interrupted."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


class WorkerProcess(context.ForkServerProcess):
    """A process forked by the fork server that does not run the parent's main script."""

    @staticmethod
    def _Popen(process_obj):
        _launching.worker = True
        try:
            return popen_forkserver.Popen(process_obj)
        finally:
            _launching.worker = False


class WorkerContext(context.ForkServerContext):
    """The forkserver start method, with ``WorkerProcess`` as its Process."""

    Process = WorkerProcess
