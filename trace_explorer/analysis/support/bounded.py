"""Answer support of untrusted traces run outside the server: ``supports_in_worker`` sends each
session's check (``support.session_support``) to the parse workers (``read.worker.run_limited``:
a separate process, at a lower priority, under a memory cap, a CPU-time cap and a deadline), so
that an answer that would take minutes costs the server only the pickling of the session, and
another visitor's pages are served meanwhile.

A check past a limit, or whose process died, comes back as an ``AnswerSupport`` with no
sentences and ``unchecked`` saying why ("answer support took too long for this answer: it ran
past the deadline of 10 s (the limit set by TRACE_EXPLORER_SUPPORT_S)"). The limits:
``TRACE_EXPLORER_SUPPORT_S`` (default ``DEFAULT_SUPPORT_S``) seconds of wall-clock and of CPU
time per session, and the workers' address-space cap (``TRACE_EXPLORER_WORKER_MB``).

``Supports`` is what the health check takes to check a batch of sessions' answers:
``supports_here`` (in this process: the command line), ``supports_trusted`` (the same, for the
bundled demo, whose sessions are then known among a visitor's files) or ``supports_in_worker``.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

from ...model.session import Session
from ...read.worker import WORKERS, WorkerLimits, WorkerStopped, run_limited
from .evidence import session_sources
from .support import AnswerSupport, session_support

SUPPORT_VARIABLE = "TRACE_EXPLORER_SUPPORT_S"
DEFAULT_SUPPORT_S = 10.0
# Checks that stopped, by a digest of the answer and the texts it is checked against: the same
# answer again (the health check after an upload, then its page's panel, each from a session read
# anew) is not sent to a worker to stop again.
STOPPED_KEPT = 256
BATCH = 50  # answers checked in one task (``supports_in_worker``)
_STOPPED: dict[tuple[str, WorkerLimits], str] = {}
_STOPPED_LOCK = threading.Lock()

# Digests of the (session, chunks) pairs checked as trusted (``supports_trusted``: the bundled
# demo's): the same pair among a visitor's files is checked in this process too.
TRUSTED_KEPT = 10_000
_TRUSTED: dict[str, None] = {}

# One answer to check: (session, chunk IRI -> text, its sub-sessions by IRI or None)
Item = tuple[Session, Mapping[str, str], Mapping[str, Session] | None]
# items -> their supports, in order
Supports = Callable[[Sequence[Item]], list[AnswerSupport]]


def support_limits(environ: Mapping[str, str] | None = None) -> WorkerLimits:
    """The limits of one session's check in a worker: ``TRACE_EXPLORER_SUPPORT_S`` (default
    ``DEFAULT_SUPPORT_S``; not a positive number: the default) seconds of wall-clock and of
    CPU time, and the workers' memory cap (``read.worker.WorkerLimits``)."""
    env = os.environ if environ is None else environ
    try:
        seconds = float((env.get(SUPPORT_VARIABLE) or "").strip() or DEFAULT_SUPPORT_S)
    except ValueError:
        seconds = DEFAULT_SUPPORT_S
    seconds = seconds if 0 < seconds < float("inf") else DEFAULT_SUPPORT_S
    memory = WorkerLimits.from_environment(env).memory
    return WorkerLimits(memory=memory, cpu=seconds, wall=seconds)


def supports_here(items: Sequence[Item]) -> list[AnswerSupport]:
    """``session_support(session, chunks, family=family)`` of each item, in this process."""
    return [session_support(session, dict(chunks), family=family) for session, chunks, family in items]


def supports_trusted(items: Sequence[Item]) -> list[AnswerSupport]:
    """``supports_here`` for trusted pairs (the bundled demo's), each pair's digest kept: given
    to ``supports_in_worker`` again, byte for byte the same (the demo's sessions among a
    visitor's files), it is checked in this process, as cheap as it was here."""
    digests = [_pickled_digest(pair) for pair in items]
    with _STOPPED_LOCK:
        _TRUSTED.update(dict.fromkeys(digests))
        while len(_TRUSTED) > TRUSTED_KEPT:
            del _TRUSTED[next(iter(_TRUSTED))]
    return supports_here(items)


def _pickled_digest(item: Item) -> str:
    return hashlib.sha256(pickle.dumps((item[0], dict(item[1]), dict(item[2] or {})))).hexdigest()


def support_in_worker(session: Session, chunks: Mapping[str, str] | None = None,
                      limits: WorkerLimits | None = None,
                      family: Mapping[str, Session] | None = None) -> AnswerSupport:
    """``session_support(session, chunks, family=family)`` run in a parse worker under ``limits`` (default
    ``support_limits()``); past a limit, an AnswerSupport with no sentences whose ``unchecked``
    says which (see the module); the same session and chunks under the same limits once more,
    the same at once (``STOPPED_KEPT`` kept). Raises what ``session_support`` raises."""
    limits = limits or support_limits()
    args = ([(session, dict(chunks or {}), dict(family or {}))],)
    key = (_digest(session, args[0][0][1], family), limits)
    with _STOPPED_LOCK:
        why = _STOPPED.get(key)
    if why is None:
        try:
            return run_limited(supports_here, args, limits,
                               wall_variable=SUPPORT_VARIABLE, cpu_variable=SUPPORT_VARIABLE, who="the check")[0]
        except WorkerStopped as stopped:
            why = stopped.why
        with _STOPPED_LOCK:
            _STOPPED[key] = why
            while len(_STOPPED) > STOPPED_KEPT:
                del _STOPPED[next(iter(_STOPPED))]
    return AnswerSupport(session.id, session.answer, [], [], unchecked=f"answer support took too long for this answer: {why}")


def _digest(session: Session, chunks: Mapping[str, str], family: Mapping[str, Session] | None = None) -> str:
    """A digest of what decides the check's work: the answer, and each text that may back it."""
    digest = hashlib.sha256((session.answer or "").encode("utf-8", "surrogatepass"))
    for source in session_sources(session, chunks, family):
        digest.update(b"\0" + f"{source.step}\0{source.kind}\0{source.text}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def supports_in_worker(items: Sequence[Item], limits: WorkerLimits | None = None) -> list[AnswerSupport]:
    """``support_in_worker`` of each (session, chunks, family) item, in order: ``BATCH`` at a time in one
    task (a task of its own for each costs a worker's start, its model load and its text caches
    again and again: 37 demo answers took 8.7 s so, 1.6 s in this process), as many batches at
    once as there are workers. A batch past the deadline is checked again one answer at a time,
    each under the deadline, so that one hostile answer costs the others nothing but time. A
    pair that ``supports_trusted`` checked before, byte for byte, is checked in this process."""
    limits = limits or support_limits()
    with _STOPPED_LOCK:
        known = [_pickled_digest(pair) in _TRUSTED for pair in items] if _TRUSTED else [False] * len(items)
    here = iter(supports_here([pair for pair, trusted in zip(items, known) if trusted]))
    rest = [pair for pair, trusted in zip(items, known) if not trusted]
    if len(rest) <= 1:
        there = iter([support_in_worker(session, chunks, limits, family) for session, chunks, family in rest])
    else:
        batches = [[(s, dict(c), dict(f or {})) for s, c, f in rest[i:i + BATCH]] for i in range(0, len(rest), BATCH)]
        with ThreadPoolExecutor(WORKERS) as threads:
            there = iter([s for done in threads.map(lambda batch: _batch_in_worker(batch, limits), batches)
                          for s in done])
    return [next(here) if trusted else next(there) for trusted in known]


def _batch_in_worker(batch: list[Item], limits: WorkerLimits) -> list[AnswerSupport]:
    try:
        return run_limited(supports_here, (batch,), limits, wall_variable=SUPPORT_VARIABLE,
                           cpu_variable=SUPPORT_VARIABLE, who="the check")
    except WorkerStopped:
        return [support_in_worker(session, chunks, limits, family) for session, chunks, family in batch]
