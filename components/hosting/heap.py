"""The Python heap between script runs: what lives as long as the server is kept out of the
garbage collector's way.

Streamlit runs a full collection (``gc.collect(2)``) after every script run
(``runner.postScriptGC``). It walks every object the collector tracks, and with the libraries
the pages import (pandas, pyoxigraph, networkx, Altair, ...) that is about 175,000 objects: 50 ms
on an idle core, 100-400 ms on a busy two-core machine. It holds the GIL all along, so the server
cannot send the last elements the run has drawn (on the list: the session table, the downloads,
the Compare button) until it is over, and the page waits for them.

``freeze_new_imports`` runs at the end of ``app.py``: when the run imported modules (the first
run of each page in this process), it collects once more and moves every object that survives
into the permanent generation (``gc.freeze``), which later collections skip. What is frozen is
the modules' objects, caches and the running session's state of that moment: a few times per
process, never per run. Later collections walk only what later runs made (about 2,000 objects).
"""

from __future__ import annotations

import gc
import sys
import threading

_lock = threading.Lock()
_frozen_modules = 0


def freeze_new_imports() -> bool:
    """Freeze the heap when modules were imported since the last freeze; True if it did."""
    global _frozen_modules
    if len(sys.modules) <= _frozen_modules:
        return False
    with _lock:
        if len(sys.modules) <= _frozen_modules:
            return False
        gc.collect()  # nothing that is garbage now gets frozen
        gc.freeze()
        _frozen_modules = len(sys.modules)
    return True
