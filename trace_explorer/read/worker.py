"""Untrusted files (uploads, in the app's file list or saved into a local store) parsed in a
worker process with limits, so that a parser that crashes, aborts or runs away costs that file
alone, never the server.

The worker is a warm process of a ``pebble.ProcessPool`` (a maintained pool that survives a
worker's death: the task fails with ``ProcessExpired`` and a fresh worker takes the next one;
a task past its deadline is killed the same way). Each task runs under:

- an address-space cap (``RLIMIT_AS``), ``TRACE_EXPLORER_WORKER_MB`` (default 3072 MiB): past it
  Python raises MemoryError and the Rust parser aborts, and either way the file gets "more than
  N MB";
- a CPU-time cap (``RLIMIT_CPU``, reset for each task), ``TRACE_EXPLORER_WORKER_CPU_S``
  (default 300 s): past it the kernel ends the worker with SIGXCPU;
- a wall-clock deadline, ``TRACE_EXPLORER_WORKER_WALL_S`` (default 600 s), after which the pool
  kills the worker.

Workers start from a fork server (``multiprocessing`` "forkserver"), never by forking the app
itself: Streamlit's server runs threads, and a fork of a threaded process may inherit a held
lock. The worker returns the quads as N-Quads bytes, which the parent reads back with
pyoxigraph's N-Quads parser (quicker than unpickling one Python object per term, measured in
``benchmarks/upload_worker.py``), and a file's refusal as the parts of its TraceLoadError.
A worker does not run the parent's main script again (``worker_start.WorkerContext``): under
Streamlit that script is the app, which would load Streamlit and the app into every worker.
The fork server and its workers start with SIGINT blocked (``worker_start.ctrl_c_held``): a
Ctrl-C is the parent's, and one while the fork server imported its modules printed its traceback.

The same workers run other work on untrusted input under limits of its own (``run_limited``:
the support check of a visitor's answer, ``analysis.support.bounded``). Workers run at a lower
priority than the server (``NICENESS``), so that a long task slows no visitor's pages.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import resource
import signal
import threading
from collections.abc import Iterator
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

import pyoxigraph as ox
from pebble import ProcessExpired, ProcessPool

from .collector import collector_paused
from .errors import TraceLoadError
from .limits import MIB, format_size, max_expanded_bytes, max_file_bytes
from .loaded import LoadedFile
from .worker_start import WorkerContext, ctrl_c_held

MEMORY_VARIABLE = "TRACE_EXPLORER_WORKER_MB"
CPU_VARIABLE = "TRACE_EXPLORER_WORKER_CPU_S"
WALL_VARIABLE = "TRACE_EXPLORER_WORKER_WALL_S"
DEFAULT_MEMORY_MB = 3072
DEFAULT_CPU_S = 300
DEFAULT_WALL_S = 600
WORKERS = 2  # files parsed at once; more wait their turn
TASKS_PER_WORKER = 25  # then the worker is replaced: a large parse leaves a heap Python keeps
NICENESS = 10  # added to a worker's nice value (``_yield_to_server``), unless NICENESS_VARIABLE says otherwise
NICENESS_VARIABLE = "TRACE_EXPLORER_WORKER_NICENESS"


class WorkerStopped(Exception):
    """A task run by ``run_limited`` that did not finish: ``why`` says which limit stopped it
    ("it ran past the deadline of 10 s (the limit set by …)"), or that its process died."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


@dataclass(frozen=True)
class WorkerLimits:
    """What one parse may take: ``memory`` bytes of address space, ``cpu`` seconds of CPU time,
    ``wall`` seconds from the start of the task."""

    memory: int
    cpu: float
    wall: float

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None) -> WorkerLimits:
        """The limits the deployment sets (see the module), defaults where unset or not a
        positive number."""
        env = os.environ if environ is None else environ
        return cls(memory=int(_positive(env.get(MEMORY_VARIABLE), DEFAULT_MEMORY_MB) * MIB),
                   cpu=_positive(env.get(CPU_VARIABLE), DEFAULT_CPU_S),
                   wall=_positive(env.get(WALL_VARIABLE), DEFAULT_WALL_S))


def _positive(raw: str | None, default: float) -> float:
    try:
        value = float((raw or "").strip() or default)
    except ValueError:
        return default
    return value if 0 < value < float("inf") else default


_pool: ProcessPool | None = None
_pool_lock = threading.Lock()


def _shared_pool() -> ProcessPool:
    """The process's pool of parse workers, started on first use."""
    global _pool
    with _pool_lock:
        if _pool is None or not _pool.active:
            context = WorkerContext()  # the fork server's children, without the app's script
            context.set_forkserver_preload(["trace_explorer.read.worker", "trace_explorer.read.files"])
            _pool = ProcessPool(max_workers=WORKERS, max_tasks=TASKS_PER_WORKER, context=context,
                                initializer=_yield_to_server)
            atexit.register(_pool.stop)
        return _pool


def _yield_to_server() -> None:
    """A worker's first act: lower its priority (``NICENESS``), so that on a busy machine the
    server's threads, which serve every visitor's pages, take the CPU before a file's parse or an
    answer's support check. ``TRACE_EXPLORER_WORKER_NICENESS`` sets the step (0 to 19; 0 keeps
    the server's priority, for a machine whose other busy processes are not visitors' pages)."""
    try:
        os.nice(worker_niceness())
    except OSError:  # a platform that refuses: the worker runs at the server's priority
        pass


def worker_niceness(environ: dict[str, str] | None = None) -> int:
    """The step added to a worker's nice value: ``TRACE_EXPLORER_WORKER_NICENESS`` when it is a
    whole number from 0 to 19, else ``NICENESS``."""
    raw = ((os.environ if environ is None else environ).get(NICENESS_VARIABLE) or "").strip()
    return int(raw) if raw.isdigit() and int(raw) <= 19 else NICENESS


def _discard(pool: ProcessPool) -> None:
    global _pool
    with _pool_lock:
        if _pool is pool:
            _pool = None
    pool.stop()


def read_in_worker(name: str, data: bytes | None = None, *, max_bytes: int | None = None,
                   file_limit: int | None = None, limits: WorkerLimits | None = None) -> LoadedFile:
    """``read.files.read_trace_file(name, data, max_bytes=…, file_limit=…)`` run in a worker
    process under ``limits`` (default: ``WorkerLimits.from_environment()``); the same
    LoadedFile comes back (its quads equal, blank nodes included).

    Raises the reader's TraceLoadError for bad input, and a TraceLoadError naming the limit
    when the parser stopped short of one ("…; the parser stopped: it needed more than 3 GiB of
    memory"), crashed or was killed. Whatever the file does, this process is untouched."""
    limits = limits or WorkerLimits.from_environment()
    # the upload limits as this process's environment sets them (a worker's may be older)
    max_bytes = max_expanded_bytes() if max_bytes is None else max_bytes
    file_limit = max_file_bytes() if file_limit is None else file_limit
    pool = _shared_pool()
    with ctrl_c_held():  # the fork server and the workers start here (pebble's workers then ignore SIGINT)
        future = pool.schedule(_parse, (name, data, max_bytes, file_limit, limits.memory, limits.cpu),
                               timeout=limits.wall)
    try:
        outcome = future.result()
    except FutureTimeout:
        raise _stopped(name, f"it ran past the deadline of {limits.wall:g} s (the limit set by {WALL_VARIABLE})") from None
    except ProcessExpired as expired:
        raise _stopped(name, _death(expired.exitcode, limits)) from None
    except BrokenProcessPool:  # a worker died between tasks: a new pool serves the next file
        _discard(pool)
        raise _stopped(name, "the parser's process ended unexpectedly") from None
    if outcome[0] == "error":
        file, expected, line, column, found = outcome[1]
        raise TraceLoadError(file, expected, line, column, found)
    if outcome[0] == "memory":
        raise _stopped(name, _over_memory(limits))
    fields, nquads = outcome[1], outcome[2]
    with collector_paused():
        quads = list(ox.parse(nquads, format=ox.RdfFormat.N_QUADS)) if nquads else []
    return LoadedFile(quads=quads, **fields)


def run_limited(function, args: tuple, limits: WorkerLimits, *, wall_variable: str = WALL_VARIABLE,
                cpu_variable: str = CPU_VARIABLE, who: str = "the task"):
    """``function(*args)`` run in a parse worker under ``limits`` (``function`` a module-level
    function, its arguments and result picklable); its result. Raises ``WorkerStopped`` when the
    task passed a limit (the message names the variable that sets it: ``wall_variable``,
    ``cpu_variable``, ``MEMORY_VARIABLE``) or its process died ("``who`` crashed on it …");
    an exception ``function`` raises is raised here. This process spends only the pickling of
    ``args`` and the result."""
    pool = _shared_pool()
    with ctrl_c_held():
        future = pool.schedule(_limited, (function, args, limits.memory, limits.cpu), timeout=limits.wall)
    try:
        outcome = future.result()
    except FutureTimeout:
        raise WorkerStopped(f"it ran past the deadline of {limits.wall:g} s (the limit set by {wall_variable})") from None
    except ProcessExpired as expired:
        raise WorkerStopped(_death(expired.exitcode, limits, cpu_variable, who)) from None
    except BrokenProcessPool:
        _discard(pool)
        raise WorkerStopped(f"{who}'s process ended unexpectedly") from None
    if outcome[0] == "memory":
        raise WorkerStopped(_over_memory(limits))
    return outcome[1]


def _limited(function, args: tuple, memory: int, cpu: float):
    """In the worker: ``("ok", function(*args))`` under the limits, or ``("memory",)``."""
    with _limits_set(memory, cpu):
        try:
            return ("ok", function(*args))
        except MemoryError:
            return ("memory",)


def _stopped(name: str, why: str) -> TraceLoadError:
    return TraceLoadError(name, "a file the parser can read within the limits on uploads",
                          found=f"the parser stopped: {why}")


def _over_memory(limits: WorkerLimits) -> str:
    return f"it needed more than {format_size(limits.memory)} of memory (the limit set by {MEMORY_VARIABLE})"


def _death(exitcode: int | None, limits: WorkerLimits, cpu_variable: str = CPU_VARIABLE,
           who: str = "the parser") -> str:
    """Why a worker that ended with ``exitcode`` (minus the signal that ended it) stopped."""
    if exitcode == -signal.SIGXCPU:
        return f"it needed more than {limits.cpu:g} s of CPU time (the limit set by {cpu_variable})"
    if exitcode == -signal.SIGABRT:  # Rust aborts when an allocation fails under the cap
        return _over_memory(limits)
    if exitcode == -signal.SIGSEGV:
        return f"{who} crashed on it (a segmentation fault)"
    return f"{who}'s process ended unexpectedly (exit code {exitcode})"


def _lower(limit: int, soft: int) -> None:
    """Set the soft ``limit`` to ``soft`` (never above the hard limit, which stays)."""
    hard = resource.getrlimit(limit)[1]
    resource.setrlimit(limit, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


@contextlib.contextmanager
def _limits_set(memory: int, cpu: float) -> Iterator[None]:
    """In the worker, while in this block: at most ``memory`` bytes of address space and ``cpu``
    more seconds of CPU time; after it, the worker's own limits again (the next task arrives
    under them, not this one's)."""
    before = {limit: resource.getrlimit(limit) for limit in (resource.RLIMIT_CPU, resource.RLIMIT_AS)}
    used = resource.getrusage(resource.RUSAGE_SELF)
    _lower(resource.RLIMIT_CPU, int(used.ru_utime + used.ru_stime + cpu) + 1)
    _lower(resource.RLIMIT_AS, int(memory))
    try:
        yield
    finally:
        for limit, (soft, hard) in before.items():
            resource.setrlimit(limit, (soft, hard))


def _parse(name: str, data: bytes | None, max_bytes: int | None, file_limit: int | None,
           memory: int, cpu: float):
    """In the worker: the limits set, the file read. Returns ("ok", LoadedFile fields, N-Quads
    bytes), ("error", TraceLoadError parts) or ("memory",)."""
    from .files import read_trace_file

    try:
        with _limits_set(memory, cpu):
            loaded = read_trace_file(name, data, max_bytes=max_bytes, file_limit=file_limit)
            nquads = ox.serialize(loaded.quads, format=ox.RdfFormat.N_QUADS) if loaded.quads else b""
    except TraceLoadError as error:
        return ("error", (error.file, error.expected, error.line, error.column, error.found))
    except MemoryError:
        return ("memory",)
    finally:
        del data
    fields = {"name": loaded.name, "format": loaded.format, "size": loaded.size, "documents": loaded.documents,
              "recovered": loaded.recovered, "digest": loaded.digest}
    return ("ok", fields, nquads)
