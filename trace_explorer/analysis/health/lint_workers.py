"""``lint`` of a local store in worker processes: the sessions of a snapshot checked a batch at
a time (``checks.BATCH``) in ``pass_workers.workers_for()`` + 1 processes, this one waiting for
them, so a large store is checked on every core (about 2 ms of CPU a session: a minute and more
at 100,000 sessions on one core).

A snapshot never changes once published (``store.snapshots``), and this process holds it
open (its shared lock) while the workers read it, so each worker opens the same directory
read-only. The typed entities under each root (``checks.entities_under``) are found once, here,
and each batch is sent with its own. Findings come back in the roots' order: the same findings,
in the same order, as ``checks.check_source`` gives in one process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from multiprocessing import get_context

import pyoxigraph as ox

from ...read.worker_start import ctrl_c_left_to_parent
from ...store.local_store import SnapshotSource
from ...sources.source import TraceSource
from ...sources.store_source import StoreSource
from .checks import BATCH, check_sessions, entities_under
from .finding import Finding
from .pass_workers import workers_for

PARALLEL_FROM = 2_000  # sessions: fewer are checked in this process alone (a worker takes 1-2 s to start)


def in_workers(source: TraceSource, roots: list[str]) -> bool:
    """Whether ``check_snapshot`` checks ``roots`` of ``source`` in workers: a local store's
    snapshot, with ``PARALLEL_FROM`` sessions or more and a core to spare."""
    return isinstance(source, SnapshotSource) and source.snapshot is not None and len(roots) >= PARALLEL_FROM \
        and workers_for() > 0


def check_snapshot(source: SnapshotSource, roots: list[str], *, progress: Callable[[int], None] | None = None
                   ) -> Iterator[Finding]:
    """The findings of the sessions ``roots`` (sorted IRIs) of the local store's snapshot
    ``source``, as ``checks.check_source`` gives them, checked in worker processes (see the
    module); ``progress(n)`` as each batch of ``n`` sessions is done. The workers leave Ctrl-C
    to this process: the KeyboardInterrupt raised here ends them (``Pool.terminate``) before it
    goes on. Raises SourceError when the store fails, RuntimeError when a worker cannot open
    the snapshot."""
    extending = entities_under(source, roots, scan=True)
    batches = ((chunk, {r: extending[r] for r in chunk if r in extending})
               for chunk in (roots[i:i + BATCH] for i in range(0, len(roots), BATCH)))
    with get_context("spawn").Pool(workers_for() + 1, initializer=_open_snapshot,
                                   initargs=(str(source.snapshot.path), dict(source.documents))) as pool:
        # in the roots' order; leaving the block (at the end, on an error or a Ctrl-C) ends the workers
        for count, found in pool.imap(_check, batches):
            if progress is not None:
                progress(count)
            yield from found


_worker_source: StoreSource | None = None


def _open_snapshot(path: str, documents: Mapping[str, str]) -> None:
    """A worker's start: the snapshot at ``path``, read-only, with the texts given beside it;
    Ctrl-C is left to ``lint`` (it stops the pool)."""
    global _worker_source
    ctrl_c_left_to_parent()
    _worker_source = StoreSource(ox.Store.read_only(path), label=path, documents=documents)


def _check(batch: tuple[list[str], dict[str, list[str]]]) -> tuple[int, list[Finding]]:
    """``checks.check_sessions`` of a batch (its roots, with their typed entities) in a worker:
    how many sessions it held, and their findings."""
    chunk, extending = batch
    return len(chunk), check_sessions(_worker_source, chunk, extending)
