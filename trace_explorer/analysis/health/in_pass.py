"""The health check in the same pass as a large file's session index rows: each batch of
sessions is read once, for its rows and its findings alike, where it was read twice before (a
third of an ingest's CPU at 10,000 sessions: ``benchmarks/scale.py``), and the batches are
shared between this process and worker processes.

``HealthInPass`` is the ``session_index.RowsReader`` ``sources.local_store.ingest_file`` takes
for a file read a batch at a time (``read.rdf_stream``). For each batch of ``checks.BATCH``
sessions, ``read_and_check`` reads them (``checks.read_and_check``: their triples, texts and
what they derive from outside themselves) and gives their ``index_row`` dicts and their health
rows (``checks.summaries``).

With ``PARALLEL_FROM`` sessions or more, batches go to ``workers`` processes (spawned, each
with the store opened read-only: ``pyoxigraph.Store.read_only``, which sees what the writer
flushed) while this process reads batches too; a batch's triples are handed over as N-Triples
text when the ingest kept them (``written_triples.WrittenTriples.session_text``), else read
from the store there. Rows come back in the roots' order, as the index writes them.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from ...read.collector import collector_paused
from ...sources.ingest_phases import INDEX_HEALTH
from ...sources.session_index import RowsReader, index_row
from ...sources.session_insights import write_health
from ...sources.store import StoreSource
from ...sources.written_triples import WrittenTriples, parsed_text
from .checks import BATCH, entities_under, read_and_check, summaries

PARALLEL_FROM = 2_000  # sessions: fewer are read here alone (a worker takes about 1 s to start)
_AHEAD = 2  # batches given to each worker before it is waited for

Rows = tuple[list[dict], dict[str, dict[str, Any]]]  # index rows, health rows by root


def workers_for(cores: int | None = None) -> int:
    """Worker processes beside this one: one a further core, at most 3 (the reading here is the
    fourth; past that the writing of the rows here is what waits)."""
    cores = cores if cores is not None else (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                                             else os.cpu_count() or 1)
    return max(0, min(cores - 1, 3))


def read_and_check_rows(source: StoreSource, chunk: list[str], extending: dict[str, list[str]],
                        triples_of: Callable[[list[str]], list[ox.Quad]] | None) -> Rows:
    """The index rows and health rows of the sessions ``chunk`` (roots the store lacks left
    out), from one read of each (``checks.read_and_check``)."""
    with collector_paused():
        sessions, found = read_and_check(source, chunk, extending, triples_of)
        return [index_row(s) for s in sessions.values()], summaries(sessions, found)


class HealthInPass(RowsReader):
    """``session_index.RowsReader`` that checks each session's health as it reads its row (see
    the module docstring). ``source``: the store written to; ``path``: its directory (for the
    workers; None: no worker); ``written``: its kept triples, when kept; ``workers``: worker
    processes (``workers_for()`` by default); ``sent``: the batches of the last pass that
    workers read. The health rows are held (a few numbers and rule ids a session) until
    ``write()``, once the index rows they belong to are in."""

    phase = INDEX_HEALTH

    def __init__(self, source: StoreSource, written: WrittenTriples | None = None, path: str | Path | None = None,
                 workers: int | None = None):
        self.source, self.written, self.path = source, written, path
        self.workers = workers_for() if workers is None else workers
        self.sent = 0
        self._health: dict[str, dict[str, Any]] = {}

    def rows(self, roots: Sequence[str], triples_of: Callable[[list[str]], list[ox.Quad]] | None
             ) -> Iterator[list[dict]]:
        self._health, self.sent = {}, 0  # nothing of a pass that failed
        kept = self.written if self.written is not None and self.written.kept and triples_of is not None else None
        extending = entities_under(self.source, list(roots), scan=len(roots) > BATCH,
                                   typed=kept.typed_iris() if kept is not None else None)
        chunks = [list(roots[i:i + BATCH]) for i in range(0, len(roots), BATCH)]
        if self.path is None or not self.workers or len(roots) < PARALLEL_FROM:
            for chunk in chunks:
                yield self._kept(read_and_check_rows(self.source, chunk, extending, triples_of))
            return
        with ProcessPoolExecutor(self.workers, mp_context=get_context("spawn"), initializer=_open_store,
                                 initargs=(str(self.path),)) as pool:
            queue: deque[tuple[list[str], Future | Rows]] = deque()
            broken = False
            for chunk in chunks:
                sent = sum(isinstance(item, Future) for _, item in queue)
                if not broken and sent < self.workers * _AHEAD:
                    text = kept.session_text(chunk) if kept is not None else None
                    try:
                        queue.append((chunk, pool.submit(_worker_rows, chunk,
                                                         {r: extending[r] for r in chunk if r in extending}, text)))
                        self.sent += 1
                        continue
                    except BrokenProcessPool:
                        broken = True
                queue.append((chunk, read_and_check_rows(self.source, chunk, extending, triples_of)))
                while queue and (not isinstance(queue[0][1], Future) or queue[0][1].done()):
                    rows, broken = self._taken(queue.popleft(), extending, triples_of, broken)
                    yield rows
            while queue:
                rows, broken = self._taken(queue.popleft(), extending, triples_of, broken)
                yield rows

    def _taken(self, item: tuple[list[str], Future | Rows], extending: dict[str, list[str]],
               triples_of: Callable[[list[str]], list[ox.Quad]] | None, broken: bool) -> tuple[list[dict], bool]:
        """The index rows of a batch in the queue, its health rows kept; a batch whose worker
        died (killed, out of memory) is read here, and no further batch is sent
        (``broken`` True)."""
        chunk, done = item
        if isinstance(done, Future):
            try:
                done = done.result()
            except BrokenProcessPool:
                done, broken = read_and_check_rows(self.source, chunk, extending, triples_of), True
        return self._kept(done), broken

    def _kept(self, rows: Rows) -> list[dict]:
        index_rows, health = rows
        self._health.update(health)
        return index_rows

    def write(self) -> list[str]:
        """Write the health rows held into the source's index; returns their roots (the
        sessions checked since the last ``write``)."""
        health, self._health = self._health, {}
        if health:
            write_health(self.source.index, health)
        return list(health)


_worker_source: StoreSource | None = None


def _open_store(path: str) -> None:
    """A worker's start: the store at ``path``, read-only."""
    global _worker_source
    _worker_source = StoreSource(ox.Store.read_only(path), label=path)


def _worker_rows(chunk: list[str], extending: dict[str, list[str]], text: bytes | None) -> Rows:
    """``read_and_check_rows`` in a worker: the triples from ``text`` (N-Triples) when given,
    else from the store."""
    quads = parsed_text(text) if text is not None else None
    return read_and_check_rows(_worker_source, chunk, extending, None if quads is None else (lambda _: quads))
