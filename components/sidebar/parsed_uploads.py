"""Uploaded files parsed for the file list, within the server's memory budget for uploads.

An upload is parsed in a worker (``read.worker``) once room is taken for it in the process's
``read.upload_budget.MemoryBudget`` (``TRACE_EXPLORER_UPLOAD_MEMORY_MB``); past the budget it
waits a little for room and is then refused, its message shown where a bad file's is. A file
that yields nothing (no triple and no text: comments only, blank lines) is refused and kept
nowhere: it neither counts toward the upload cache nor replaces the demo.

Parses are shared while someone holds them: two visitors who open the same link share one
parse, and a parse nobody holds any longer (its visitor removed the files, or their session
ended) gives its room back. A refusal is not remembered: the same file is read again when it is
sent again.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable

import streamlit as st

from trace_explorer.read.errors import TraceLoadError
from trace_explorer.read.loaded import LoadedFile
from trace_explorer.read.upload_budget import BUDGET_VARIABLE, MemoryBudget, budget_from_environment
from trace_explorer.read.worker import read_in_worker

_parsed: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # (name, digest) -> LoadedFile
_parsed_lock = threading.Lock()
NOTHING = "triples (a trace file) or texts (a *.documents.json content file)"


def upload_budget() -> MemoryBudget:
    """The process's memory budget for parsed uploads, one for every visitor (one for each
    value of ``TRACE_EXPLORER_UPLOAD_MEMORY_MB``)."""
    return _budget(os.environ.get(BUDGET_VARIABLE, ""))


@st.cache_resource(show_spinner=False, max_entries=4)
def _budget(setting: str) -> MemoryBudget:
    return budget_from_environment({BUDGET_VARIABLE: setting})


def parse_upload(name: str, digest: str, data: bytes, free: Callable[[], None] | None = None) -> LoadedFile:
    """What the upload ``data`` (named ``name``, SHA-256 ``digest``) holds: parsed in a worker,
    or the parse another visitor holds. ``free`` lets go of shared caches nobody uses, when the
    budget is short. Raises the reader's TraceLoadError, a TraceLoadError for a file that yields
    nothing, and OverBudget (its message for the person) past the memory budget."""
    with _parsed_lock:
        held = _parsed.get((name, digest))
    if held is not None:
        return held
    with upload_budget().reserve(len(data), free=free) as room:
        loaded = read_in_worker(name, data)
        if not loaded.quads and not loaded.documents:
            raise TraceLoadError(name, NOTHING, found="it holds neither (comments or blank lines only), so it was not kept")
        room.hold(loaded, loaded.size)
    with _parsed_lock:
        return _parsed.setdefault((name, digest), loaded)
