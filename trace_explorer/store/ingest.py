"""Writing into the local store: one file at a time, all or nothing, with its session index
rows; and ``reindex``.

``ingest_file`` adds one file all or nothing, after any kill too. A large N-Quads or N-Triples
file of a person's own (``read.rdf_stream``) is parsed a batch at a time, each batch written as
it is read, so memory stays flat whatever the file's size: the snapshot to roll back to is
recorded first (``write_journal``), and a parse error part way rolls the store back to it, so
the file leaves the store exactly as it was; the rows of the sessions it touched are then read
from the store (``session_index.StreamedIndexUpdate``). Any other file is parsed in full
first, so a file that fails (bad syntax, bad encoding, over the size limit) leaves the store
exactly as it was. Then its quads (and, for a content file, its texts as ``<doc> tg:content
"text"`` in the documents graph) go in: in one atomic ``Store.extend`` up to ``BULK_QUADS``
quads, and with ``Store.bulk_extend`` above, in batches (about five times faster on a million
quads). Before the first quad goes in, the session index records how to undo the write, and the
index transaction that writes the file's rows forgets it; a writer killed in between (between
two batches, or while the rows are read) leaves the record, and the next writer undoes the
write on opening the store (``write_journal``). The session index (``session_index``) reads the
file's new sessions before the write and gets their rows after it, with those of the sessions
the file changed and the file's digest: the same file twice adds nothing (quads are a set, blank
nodes get names derived from the bytes, and a recorded digest is skipped). Then the new snapshot
is published: readers see the new sessions listed and readable together, and never a part of a
file. (Measured slower on two cores: writing with ``Store.bulk_load`` of the bytes
on a second thread while the index is read, both halves taking twice as long; and reading the
index in a worker process that parses the file again while the quads are written, which costs
``bulk_extend``, already on more than one core, its second core.)
"""

from __future__ import annotations

import os
import time
from concurrent.futures import Future, ThreadPoolExecutor

import pyoxigraph as ox

from ..index.build import RowsReader, build_index
from ..index.ingest_phases import CHECK, NO_PHASES, PARSE, STORE, Phases, cpu_seconds
from ..index.typed import TypedWrite
from ..index.updates import IndexUpdate, StreamedIndexUpdate
from ..read.collection import LoadedSource
from ..read.collector import collector_paused
from ..read.errors import TraceLoadError
from ..read.files import read_trace_file, stream_trace_file, streams
from ..read.limits import NO_LIMIT
from ..read.loaded import LoadedFile
from ..read.rdf_stream import StreamedFile
from ..read.streams import Progress
from ..read.worker import read_in_worker
from ..sources.filter import SessionFilter
from ..sources.source import CONTENT, DOCUMENTS_GRAPH
from ..sources.store_source import stored_texts
from ..sources.triples_text import TriplesText
from .local_store import LocalStore, _open_recovered, _publish
from .write_journal import begin
from .written_triples import WrittenTriples

BULK_QUADS = 10_000  # larger files go in with Store.bulk_extend,
BULK_BATCH = 50_000  # this many quads a call: on 750,000 quads, 3.9 s and no memory beyond the
# quads themselves, against 6.4 s and 640 MiB more in one call


def reindex(local: LocalStore, phases: Phases = NO_PHASES, rows_reader: RowsReader | None = None) -> int:
    """Rebuild the session index of ``local`` from its traces (a store made before it had one,
    or changed by other tools) and publish a snapshot of what it holds now; returns the number
    of sessions. ``phases`` hears of the sessions read and the rows written; ``rows_reader``
    reads the rows instead, a batch at a time (``build_index``; the health check's then holds
    the health rows until its ``write()``)."""
    with local._writing:
        build_index(local._open(), local.index, phases=phases, rows_reader=rows_reader)
        _publish(local._open(), local.path, local.index)
    return local.index.count(SessionFilter(include_sub=True))


def ingest_file(local: LocalStore, name: str, data: bytes | None = None, *,
                progress: Progress | None = None, max_bytes: int | None = None,
                timings: dict[str, float] | None = None, untrusted: bool = False,
                phases: Phases = NO_PHASES, written: WrittenTriples | None = None,
                rows_reader: RowsReader | None = None, count_gained: bool = False) -> LoadedSource:
    """Add the file ``name`` (or its bytes ``data``) to the store ``local``, all or nothing,
    then publish a snapshot for readers. One ingest at a time per store in a process.
    ``untrusted`` (an upload): parsed in a worker process under the upload limits
    (``read.worker.read_in_worker``; ``progress`` then hears of the whole file once it is read);
    otherwise (a person's own file, the CLI) in this process, with no size limit unless
    ``max_bytes`` sets one; a large N-Quads or N-Triples file then a batch at a time, written as
    it is read (``read.rdf_stream``; ``written`` then lets its triples go, and ``phases``' parse
    phase covers the writing too).

    ``progress(n)`` is called as each further ``n`` bytes are parsed; ``max_bytes`` caps the
    text read (``read.files.read_trace_file``); ``timings``, when given, gets the seconds spent
    reading ("read"), writing the quads ("write", the snapshot included) and indexing ("index"),
    and their CPU seconds ("read cpu", ...; a file read a batch at a time: "read" its checks and
    digest, "write" its parse and write together). ``phases`` hears of each phase
    (``ingest_phases``: check, for a file read a batch at a time, then parse, index, store,
    full-text), the parse's bytes as ``progress`` does; ``written`` (``written_triples``) keeps the
    quads written, for the health check after; ``rows_reader`` (``session_index.RowsReader``)
    reads the index rows of a file read a batch at a time, so that what else its sessions are
    read for (the health check) takes the same pass. ``count_gained``: count the quads the store
    lacked (``LoadedSource.gained``; about 4 us a quad). Returns what was
    added (``skipped`` when the same bytes were ingested before). Raises TraceLoadError on bad input (the store is untouched
    then); OSError when the store cannot be written; SourceError for a closed store."""
    clock = _Clock(timings)
    cap = NO_LIMIT if max_bytes is None else max_bytes
    progress = _parsed(progress, phases)
    if not untrusted and data is None and streams(name, cap):
        phases.begin(CHECK, _size(name))
        streamed = stream_trace_file(name, max_bytes=cap, progress=progress, checked=phases.advance)
        if streamed is not None:
            clock.lap("read")  # the checks and the digest's pass; the parse is timed with the write
            return _ingest_streamed(local, streamed, clock, phases, written, rows_reader, count_gained)
    phases.begin(PARSE, None if name.lower().endswith(".gz") else len(data) if data is not None else _size(name))
    if untrusted:
        loaded = read_in_worker(name, data, max_bytes=max_bytes)
        if progress is not None:
            progress(loaded.size)
    else:
        loaded = read_trace_file(name, data, max_bytes=NO_LIMIT if max_bytes is None else max_bytes,
                                 progress=progress, file_limit=NO_LIMIT)
    clock.lap("read")
    return ingest_loaded(local, loaded, clock, phases=phases, written=written, count_gained=count_gained)


def ingest_loaded(local: LocalStore, loaded: LoadedFile, clock: _Clock | None = None, *,
                  publish: bool = True, phases: Phases = NO_PHASES,
                  written: WrittenTriples | None = None, count_gained: bool = False) -> LoadedSource:
    """Add what one file (or one session fetched from a deployment) held to the store
    ``local``, as ``ingest_file`` does once the file is read: its quads and texts (one atomic
    write up to ``BULK_QUADS`` quads, batches above, undone by the next writer should this one
    be killed before its rows are in: ``write_journal``), then the session index, then (unless
    ``publish`` is False) a flush and a new snapshot for readers; nothing when a file with the
    same digest was added before (``skipped``). ``publish`` False leaves the flush and the snapshot (about
    0.1 s together) to the caller (``publish_snapshot``), for many small writes in a row; the
    write itself is in the store's log either way. Raises TraceLoadError for a document key
    that is not an IRI (nothing written), OSError when the store cannot be written,
    SourceError for a closed store. ``phases``, ``written`` and ``count_gained``: as for
    ``ingest_file``."""
    clock = clock or _Clock(None)
    name = loaded.name
    with local._writing:
        store, index = local._open(), local.index
        if index.is_ingested(loaded.digest):
            return LoadedSource(name, loaded.format, loaded.size, len(loaded.quads), len(loaded.documents),
                                loaded.recovered, skipped=True)
        loaded.refuse_other_texts(lambda iris: stored_texts(store, iris))  # before anything is written
        update = IndexUpdate(store, index, loaded.quads, loaded.documents, fresh=is_empty(store))
        update.read(phases)  # from the file alone: its triples are let go before its quads are written
        clock.lap("index")
        quads, count = loaded.quads, len(loaded.quads)
        loaded.quads = []  # held once, here, and let go once written
        graph = ox.NamedNode(DOCUMENTS_GRAPH)
        for document, text in loaded.documents.items():
            try:
                quads.append(ox.Quad(ox.NamedNode(document), ox.NamedNode(CONTENT), ox.Literal(text), graph))
            except ValueError:
                raise TraceLoadError(name, f"a document IRI as key, got {document!r:.100}") from None
        gained = len({q for q in quads if q not in store}) if count_gained else None
        bulk = len(quads) > BULK_QUADS
        begin(local.path, store, index, name, quads, bulk, lambda: _publish(store, local.path, index))
        if written is not None:
            written.add(quads)
        phases.begin(STORE, len(quads))
        if bulk:
            while quads:  # in batches, each let go once written (order does not matter in a set)
                batch = quads[-BULK_BATCH:]
                del quads[-BULK_BATCH:]
                store.bulk_extend(batch)
                phases.advance(len(batch))
                del batch
        else:
            store.extend(quads)
            phases.advance(len(quads))
        del quads
        if publish:
            phases.step("flushing the store")
            store.flush()
        clock.lap("write")
        update.apply([(name, loaded.digest)], phases)
        clock.lap("index")
        if publish:
            phases.step("publishing a snapshot")
            _publish(store, local.path, local.index)  # after the index: a reader of the new snapshot finds its rows
            clock.lap("write")
    return LoadedSource(name, loaded.format, loaded.size, count, len(loaded.documents), loaded.recovered,
                        gained=gained, text_iris=tuple(update.texts_given))


def _ingest_streamed(local: LocalStore, streamed: StreamedFile, clock: _Clock, phases: Phases,
                     written: WrittenTriples | None, rows_reader: RowsReader | None = None,
                     count_gained: bool = False) -> LoadedSource:
    """Add a file read a batch at a time (``read.rdf_stream``), all or nothing: each batch goes
    in as it is parsed, its text loaded by the store itself in a thread (``Store.bulk_load``
    lets go of the GIL, so the next batch is parsed meanwhile; leniently, since the batch's text
    was parsed strictly first; ``Store.bulk_extend`` of its
    quads for a batch whose text does not give them: ``rdf_stream.Batch``), with the snapshot to roll back to
    recorded first (``write_journal.begin``); a parse error part way (or any other failure)
    rolls the store back to that snapshot (``_roll_back``) and lets ``written`` go before it is
    raised. Then the rows of the sessions the file touched are read (``StreamedIndexUpdate``):
    from ``written`` while it keeps every triple written (a store empty before: a new one is
    made for a store empty now), else from the store; by ``rows_reader`` when given.
    ``count_gained``: each batch's quads the store lacks are counted once the batch before it
    is in (``LoadedSource.gained``)."""
    name = streamed.name
    gained = 0
    with local._writing:
        store, index = local._open(), local.index
        if index.is_ingested(streamed.digest):  # known by the check's digest: no parse bar
            phases.finish()
            return LoadedSource(name, streamed.format, streamed.size, 0, 0, 0, skipped=True)
        phases.begin(PARSE, streamed.size)
        fresh = is_empty(store)
        begin(local.path, store, index, name, (), True, lambda: _publish(store, local.path, index))
        if written is None:
            written = WrittenTriples.for_store(store, index)
        # the typed IRIs of a file into an empty store are those ``written`` keeps; else each
        # batch's are staged in the index (while it has every one of the store's)
        from_written = fresh and written is not None and written.kept
        update = StreamedIndexUpdate(store, index, stage_typed=not from_written and (fresh or index.typed_complete()),
                                     fresh=fresh)
        loader = ThreadPoolExecutor(1, thread_name_prefix="bulk-load")
        loading: Future | None = None
        try:
            for batch in streamed.batches():
                with collector_paused():  # a batch's objects are acyclic: no pass over what is kept
                    text = TriplesText(batch.quads)  # read by the index update and ``written`` alike
                    update.note(batch.quads, text)
                    if loading is not None:
                        loading.result()  # one batch loading at a time
                    loading = None
                    if count_gained:  # the batches before are in: a quad given twice counts once
                        gained += len({q for q in batch.quads if q not in store})
                    if batch.text is not None:  # parsed again by the store, without the GIL, as the next is read
                        # lenient: the batch's very bytes were parsed strictly just now (``batches``),
                        # so the store's parse need not check its IRIs and tags again (the loads alone: a fifth less CPU)
                        loading = loader.submit(store.bulk_load, batch.text, format=streamed.fmt, lenient=True)
                    else:
                        store.bulk_extend(batch.quads)
                    if written is not None:
                        written.add(batch.quads, text)
                del batch, text
            if loading is not None:
                phases.step("loading the last batch")
                loading.result()
            clock.lap("write")
        except BaseException:
            loader.shutdown(wait=True)  # nothing may be writing while the store is rolled back
            if written is not None:
                written.let_go()  # it holds part of the file, which the store no longer does
            index.clear_staged_typed()
            update.store = None  # no reference to the store may be left for it to close
            del store, update, loading
            _roll_back(local)
            raise
        loader.shutdown()
        if written is not None and written.kept:
            update.triples_of = written.session_quads
        phases.step("flushing the store")
        store.flush()
        kept_all = from_written and written.kept
        update.apply([(name, streamed.digest)], phases, rows_reader,
                     TypedWrite(True, written.typed_iris()) if kept_all else update.typed_write(fresh))
        clock.lap("index")
        phases.step("publishing a snapshot")
        _publish(store, local.path, index)  # after the index: a reader of the new snapshot finds its rows
        clock.lap("write")
    return LoadedSource(name, streamed.format, streamed.size, streamed.quads, 0, streamed.recovered,
                        gained=gained if count_gained else None, text_iris=tuple(update.texts_given))


def _parsed(progress: Progress | None, phases: Phases) -> Progress:
    """What hears of each further ``n`` bytes parsed: ``progress`` and the parse phase's bar."""
    if progress is None:
        return phases.advance

    def both(n: int) -> None:
        progress(n)
        phases.advance(n)
    return both


def _size(name: str) -> int | None:
    """The bytes of the file ``name``, None when it cannot be asked (its read then says why)."""
    try:
        return os.path.getsize(name)
    except OSError:
        return None


def is_empty(store: ox.Store) -> bool:
    """True when ``store`` holds no quad (one step of its iterator)."""
    return next(iter(store.quads_for_pattern(None, None, None, None)), None) is None


def _roll_back(local: LocalStore) -> None:
    """Undo the write begun on ``local`` (``write_journal.begin``) and not finished: close its
    store, put the snapshot recorded back as the live directory and open it again, as the next
    writer would after a kill (``_open_recovered``). Raises SourceError when it cannot."""
    local.store = None  # pyoxigraph closes the directory with its last reference
    local.store = _open_recovered(local.path, local.index, time.monotonic())


def publish_snapshot(local: LocalStore) -> None:
    """Flush ``local`` and publish a snapshot of what it holds now, for readers (after writes
    made with ``ingest_loaded(..., publish=False)``). Raises SourceError when it cannot."""
    with local._writing:
        store = local._open()
        store.flush()
        _publish(store, local.path, local.index)


class _Clock:
    """Adds the seconds since the last lap to ``timings[name]``, and the CPU seconds of the
    process (every thread) and its workers (``ingest_phases.cpu_seconds``) to
    ``timings[name + " cpu"]`` (nothing when timings is None)."""

    def __init__(self, timings: dict[str, float] | None):
        self.timings = timings
        self.last, self.last_cpu = time.perf_counter(), cpu_seconds()

    def lap(self, name: str) -> None:
        now, cpu = time.perf_counter(), cpu_seconds()
        if self.timings is not None:
            self.timings[name] = self.timings.get(name, 0.0) + now - self.last
            self.timings[name + " cpu"] = self.timings.get(name + " cpu", 0.0) + cpu - self.last_cpu
        self.last, self.last_cpu = now, cpu
