"""The health check in the same pass as a large file's session index rows: each batch of
sessions is read once, for its rows and its findings alike, where it was read twice before (a
third of an ingest's CPU at 10,000 sessions: ``benchmarks/scale.py``), and the batches are
shared between this process and worker processes.

``HealthInPass`` is the ``session_index.RowsReader`` ``store.local_store.ingest_file`` takes
for a file read a batch at a time (``read.rdf_stream``). For each batch of ``checks.BATCH``
sessions, ``read_and_check`` reads them (``checks.read_and_check``: their triples, texts and
what they derive from outside themselves) and gives their ``index_row`` dicts and their health
rows (``checks.summaries``).

With ``PARALLEL_FROM`` sessions or more, batches go to ``workers`` processes (spawned, each
with a checkpoint of the store opened read-only: ``pyoxigraph.Store.backup`` then
``Store.read_only``; the live directory itself may lose files to the writer's compactions
under a reader's feet) while this process reads batches too; a batch's triples are handed over as N-Triples
text when the ingest kept them (``written_triples.WrittenTriples.session_text``), else read
from the store there. Rows come back in the roots' order, as the index writes them.
"""

from __future__ import annotations

import tempfile
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from ...read.collector import collector_paused
from ...read.worker_start import ctrl_c_held, ctrl_c_left_to_parent
from ...index.ingest_phases import INDEX_HEALTH
from ...store.local_store import LocalStore
from ...index.build import RowsReader
from ...index.schema import index_row
from ...index.insights import health_record, hold_health, write_held_health
from ...sources.store_source import StoreSource
from ...store.written_triples import WrittenTriples, parsed_text
from .checks import BATCH, entities_under, owning_root, read_and_check, summaries
from .pass_workers import workers_for

PASS_PREFIX = "trace-explorer-pass-"  # the workers' checkpoint, in the store's folder while a pass runs
# (one a killed ingest left is removed by the next writer: ``local_store.LEFTOVERS``)
PARALLEL_FROM = 2_000  # sessions: fewer are read here alone (a worker takes about 1 s to start)
_AHEAD = 2  # batches given to each worker before it is waited for

Rows = tuple[list[dict], dict[str, dict[str, Any]]]  # index rows, health rows by root


def read_and_check_rows(source: StoreSource, chunk: list[str], extending: Mapping[str, list[str]] | _Extending,
                        triples_of: Callable[[list[str]], list[ox.Quad]] | None) -> Rows:
    """The index rows and health rows of the sessions ``chunk`` (roots the store lacks left
    out), from one read of each (``checks.read_and_check``); ``extending``: the typed entities
    whose IRI extends each root (``checks.entities_under``). The sessions read are let go before
    the collector comes back on, so that its first pass walks the rows alone, not every step
    and graph of the batch."""
    with collector_paused():
        return _rows(source, chunk, extending, triples_of)


def _rows(source: StoreSource, chunk: list[str], extending: Mapping[str, list[str]] | _Extending,
          triples_of: Callable[[list[str]], list[ox.Quad]] | None) -> Rows:
    sessions, found = read_and_check(source, chunk, _of(extending, chunk), triples_of)
    return [index_row(s) for s in sessions.values()], summaries(sessions, found)


class HealthInPass(RowsReader):
    """``session_index.RowsReader`` that checks each session's health as it reads its row (see
    the module docstring), for an ingest into the local store ``local``
    (``store.local_store.LocalStore``: its writer's source is asked for at each pass, never
    held, so that a rolled-back write can open the store again). ``written``: its kept triples,
    when kept; ``workers``: worker processes (``workers_for()`` by default); ``sent``: the
    batches of the last pass that workers read. The workers read a checkpoint of the store made
    for the pass (``Store.backup``: hard links, so immutable while the writer compacts; removed
    after it). The health rows are held in the index's write, beside the rows they belong to
    (``session_insights.hold_health``), until ``write()``, once those are in."""

    phase = INDEX_HEALTH

    def __init__(self, local: LocalStore, written: WrittenTriples | None = None, workers: int | None = None):
        self.local, self.written = local, written
        self.workers = workers_for() if workers is None else workers
        self.sent = 0

    def rows(self, roots: Sequence[str], triples_of: Callable[[list[str]], list[ox.Quad]] | None,
             step: Callable[[str], None] | None = None) -> Iterator[list[dict]]:
        self.sent = 0
        hold_health(self.local.index, (), clear=True)  # nothing of a pass that failed
        source = self.local.writer_source()
        kept = self.written if self.written is not None and self.written.kept and triples_of is not None else None
        if kept is None:  # one scan of the store's typed IRIs for all
            extending = entities_under(source, list(roots), scan=len(roots) > BATCH)
        else:  # a batch's own, looked up in what was kept as it is read
            extending = _Extending(kept, set(roots))
        chunks = [list(roots[i:i + BATCH]) for i in range(0, len(roots), BATCH)]
        if not self.workers or len(roots) < PARALLEL_FROM:
            for chunk in chunks:
                yield self._kept(read_and_check_rows(source, chunk, extending, triples_of))
            return
        # the first batches come back once a worker has started (about 3 s: its imports); this
        # process reads batches meanwhile, held behind the first sent to keep the rows' order
        if step is not None:
            step(f"starting {self.workers} worker process{'es' if self.workers > 1 else ''}")
        for n, rows in enumerate(self._shared(source, chunks, extending, kept, triples_of)):
            if n == 0 and step is not None:
                step("")
            yield rows

    def _shared(self, source: StoreSource, chunks: list[list[str]], extending: Mapping[str, list[str]] | _Extending,
                kept: WrittenTriples | None, triples_of: Callable[[list[str]], list[ox.Quad]] | None
                ) -> Iterator[list[dict]]:
        """``rows`` of ``chunks`` shared with the worker processes, in their order."""
        with tempfile.TemporaryDirectory(prefix=PASS_PREFIX, dir=self.local.path) as folder, \
                ProcessPoolExecutor(self.workers, mp_context=get_context("spawn"), initializer=_open_store,
                                    initargs=(self._checkpoint(source, Path(folder) / "store"),)) as pool:
            queue: deque[tuple[list[str], Future | Rows]] = deque()
            broken = False
            for chunk in chunks:
                sent = sum(isinstance(item, Future) for _, item in queue)
                if not broken and sent < self.workers * _AHEAD:
                    text = kept.session_text(chunk) if kept is not None else None
                    try:
                        with ctrl_c_held():  # a worker is started by the first submits
                            future = pool.submit(_worker_rows, chunk, _of(extending, chunk), text)
                        queue.append((chunk, future))
                        self.sent += 1
                        continue
                    except BrokenProcessPool:
                        broken = True
                queue.append((chunk, read_and_check_rows(source, chunk, extending, triples_of)))
                while queue and (not isinstance(queue[0][1], Future) or queue[0][1].done()):
                    rows, broken = self._taken(source, queue.popleft(), extending, triples_of, broken)
                    yield rows
            while queue:
                rows, broken = self._taken(source, queue.popleft(), extending, triples_of, broken)
                yield rows

    def parallel(self, sessions: int) -> bool:
        """True when ``sessions`` sessions are enough to share with the workers (``PARALLEL_FROM``)."""
        return bool(self.workers) and sessions >= PARALLEL_FROM

    def check(self, roots: Sequence[str], triples_of: Callable[[list[str]], list[ox.Quad]] | None,
              progress: Callable[[int], None] | None = None, step: Callable[[str], None] | None = None) -> None:
        """Check the health of the indexed sessions ``roots`` (``analysis.health.index``'s check
        after an ingest: those whose findings a later file may mend), shared with the workers as
        a pass's batches are, and write their health rows a batch at a time, as the check in one
        process does: a Ctrl-C part way keeps the rows of the batches done. Their index rows are
        left as they are. ``progress(n)`` after each batch of ``n`` sessions; ``step(what)`` while
        the workers start ("" once the first batch is back). Raises SourceError when the store
        fails."""
        for index_rows in self.rows(roots, triples_of, step):
            self.write()
            if progress is not None:
                progress(len(index_rows))

    def _checkpoint(self, source: StoreSource, target: Path) -> str:
        """A checkpoint of the store at ``target`` for the workers (its path)."""
        source.store.backup(str(target))
        return str(target)

    def _taken(self, source: StoreSource, item: tuple[list[str], Future | Rows],
               extending: Mapping[str, list[str]] | _Extending,
               triples_of: Callable[[list[str]], list[ox.Quad]] | None, broken: bool) -> tuple[list[dict], bool]:
        """The index rows of a batch in the queue, its health rows kept; a batch whose worker
        failed (could not open the checkpoint, was killed, ran out of memory) is read here, and
        no further batch is sent (``broken`` True)."""
        chunk, done = item
        if isinstance(done, Future):
            try:
                done = done.result()
            except Exception:  # noqa: BLE001 - read here instead: the same rows, or the same error raised here
                done, broken = read_and_check_rows(source, chunk, extending, triples_of), True
        return self._kept(done), broken

    def _kept(self, rows: Rows) -> list[dict]:
        index_rows, health = rows
        hold_health(self.local.index, (health_record(root, row) for root, row in health.items()))
        return index_rows

    def write(self) -> list[str]:
        """Write the health rows held into the source's index; returns their roots (the
        sessions checked since the last ``write``)."""
        return write_held_health(self.local.index)


class _Extending:
    """``checks.entities_under`` of the roots ``wanted``, each batch's found as it is asked for
    (``of(chunk)``) in the typed IRIs an ingest kept (``WrittenTriples.typed_under``), rather than
    all of them held at once (about a million IRIs at 100,000 sessions)."""

    def __init__(self, kept: WrittenTriples, wanted: set[str]):
        self.kept, self.wanted = kept, wanted

    def of(self, chunk: list[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for subject in self.kept.typed_under(chunk):
            owner = owning_root(subject, self.wanted)
            if owner is not None:
                out.setdefault(owner, []).append(subject)
        return out


def _of(extending: Mapping[str, list[str]] | _Extending, chunk: list[str]) -> dict[str, list[str]]:
    """The part of ``extending`` for the roots ``chunk``."""
    if isinstance(extending, _Extending):
        return extending.of(chunk)
    return {r: extending[r] for r in chunk if r in extending}


_worker_source: StoreSource | None = None
_worker_failure = ""


def _open_store(path: str) -> None:
    """A worker's start: the checkpoint at ``path``, read-only; Ctrl-C is left to the ingest
    (it stops the pass and waits for the workers' batches; one that came while the worker
    started is dropped: ``read.worker_start.ctrl_c_held``)."""
    global _worker_source, _worker_failure
    ctrl_c_left_to_parent()
    try:
        _worker_source = StoreSource(ox.Store.read_only(path), label=path)
    except (OSError, RuntimeError, ValueError) as error:
        _worker_failure = f"the store's checkpoint at {path} could not be opened: {error}"


def _worker_rows(chunk: list[str], extending: dict[str, list[str]], text: bytes | None) -> Rows:
    """``read_and_check_rows`` in a worker: the triples from ``text`` (N-Triples) when given,
    else from the store. Raises RuntimeError when the worker has no store."""
    if _worker_source is None:
        raise RuntimeError(_worker_failure)
    quads = parsed_text(text) if text is not None else None
    return read_and_check_rows(_worker_source, chunk, extending, None if quads is None else (lambda _: quads))
