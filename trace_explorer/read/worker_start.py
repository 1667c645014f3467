"""How a parse worker starts: from the fork server, without the app's own script.

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
"""

from __future__ import annotations

import threading
from multiprocessing import context, popen_forkserver, spawn

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
