"""The embedded local store: a pyoxigraph store persisted in a directory, its session index
beside it, and the read-only snapshots readers open (``snapshots``).

Who opens what, so that no directory is ever open for reading beside its writer:

- **Writers** (``open_local_store``: ``trace-explorer ingest`` and ``reindex``, the app's uploader)
  open the live directory for writing. One process at a time: the writers' lock
  (``write_journal.lock_writer``) and pyoxigraph's lock of the directory, and a second writer
  gets ``StoreBusy`` (after waiting up to ``wait_s``). Within a process the
  writer is shared: opening the same directory again returns the same ``LocalStore``, and it
  closes when its last user calls ``close()`` (or lets it go). After every change the writer
  publishes a snapshot.
- **Readers** (``local_source``: the CLI's ``--store``, the app's list and session pages) open
  the newest snapshot read-only and the session index read-only. They never touch the live
  directory, so an ingest by another process (or by the app's own uploader) goes on while they
  read; they see what it added once they open the next generation (``SnapshotSource.is_current``
  says when). Within a process, one snapshot is opened once and shared.

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

import contextlib
import os
import shutil
import sqlite3
import threading
import time
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import pyoxigraph as ox

from ..read.collection import LoadedSource
from ..read.collector import collector_paused
from ..read.errors import TraceLoadError
from ..read.files import read_trace_file, stream_trace_file, streams
from ..read.limits import NO_LIMIT
from ..read.worker import read_in_worker
from ..read.loaded import LoadedFile
from ..read.rdf_stream import StreamedFile
from ..read.streams import Progress
from ..sources.filter import SessionFilter
from ..index.typed import TypedWrite
from ..index.ingest_phases import CHECK, NO_PHASES, PARSE, STORE, Phases, cpu_seconds
from ..index.schema import INDEX_FILE
from ..index.updates import IndexUpdate, StreamedIndexUpdate
from ..index.build import RowsReader, build_index
from ..index.session_index import SessionIndex
from .snapshots import SNAPSHOTS_DIR, Snapshot, current_generation, open_snapshot, publish
from ..sources.source import CONTENT, DOCUMENTS_GRAPH, SourceError
from ..sources.store_source import StoreSource, stored_texts
from ..sources.triples_text import TriplesText
from .write_journal import WRITER_LOCK, begin, lock_writer, needs_publishing, roll_back, undo
from .written_triples import WrittenTriples

BULK_QUADS = 10_000  # larger files go in with Store.bulk_extend,
BULK_BATCH = 50_000  # this many quads a call: on 750,000 quads, 3.9 s and no memory beyond the
# quads themselves, against 6.4 s and 640 MiB more in one call
ROCKSDB_MARK = "CURRENT"  # the file every RocksDB directory (a pyoxigraph store) has

_writers: weakref.WeakValueDictionary[Path, LocalStore] = weakref.WeakValueDictionary()
_writers_lock = threading.Lock()
_snapshots: weakref.WeakValueDictionary[tuple[Path, int], Snapshot] = weakref.WeakValueDictionary()
_snapshots_lock = threading.Lock()


# Left in a store's folder by a writer killed part way, and by no one else while the writers' lock
# is held: a health pass's checkpoint for its workers (``analysis.health.in_pass``), and the
# files ``Store.bulk_load`` builds before it hands them to the store.
LEFTOVERS = ("trace-explorer-pass-*", "bulk-*.sst")
# Any of these names in a folder makes it a store (or what is left of one, such as the writers'
# lock of a writer killed before the store was made): its traces, its session index, its snapshots
STORE_MARKS = frozenset({ROCKSDB_MARK, INDEX_FILE, SNAPSHOTS_DIR, WRITER_LOCK})


class StoreBusy(SourceError):
    """Another process has the store open for writing (pyoxigraph's directory lock)."""


@dataclass(eq=False)
class LocalStore:
    """A local store open for writing: the traces (``store``, pyoxigraph on disk in ``path``)
    and their session index (``index``: SQLite in ``path/INDEX_FILE``). Shared by every user in
    the process (``users`` counts them); ``close()`` when done, or use it in a ``with`` block."""

    path: Path
    store: ox.Store | None
    index: SessionIndex
    users: int = 1
    lock: IO[bytes] | None = field(default=None, repr=False)  # the writers' lock (write_journal.lock_writer)
    _writing: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def source(self) -> SnapshotSource:
        """A reader of this store's newest snapshot (``local_source``)."""
        return local_source(self.path)

    def writer_source(self) -> StoreSource:
        """A source over the store as its writer sees it, with the writable session index: for
        the writer's own work on what it has just added (health rows), not for readers."""
        return StoreSource(self._open(), label=f"store {self.path}", index=self.index)

    def close(self) -> None:
        """Let go of this user's hold; the last one closes the store and its index."""
        with _writers_lock:
            self.users -= 1
            if self.users > 0 or self.store is None:
                return
            if _writers.get(self.path.resolve()) is self:
                del _writers[self.path.resolve()]
            self.index.close()
            self.store = None  # pyoxigraph closes the directory (and its lock) with the object
            if self.lock is not None:
                self.lock.close()

    def __enter__(self) -> LocalStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __len__(self) -> int:
        """Number of quads in the store: every key of one of its indexes counted (at 768,266
        quads, 0.1 to 0.3 s)."""
        return len(self._open())

    def disk_bytes(self) -> int:
        """Bytes of the store's files on disk (its folder's files, the session index's
        included; one that cannot be asked counts 0): 2.4 GB at 9.3 million quads."""
        total = 0
        with os.scandir(self.path) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    total += entry.stat().st_size if entry.is_file() else 0
        return total

    def texts(self) -> int:
        """Number of document texts in the store (``tg:content`` in the documents graph, where
        ``ingest_loaded`` puts a content file's texts), counted by the store's query engine
        (at 20,757 texts, 0.01 s)."""
        query = f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{DOCUMENTS_GRAPH}> {{ ?document <{CONTENT}> ?text }} }}"
        return int(next(iter(self._open().query(query)))["n"].value)

    def _open(self) -> ox.Store:
        if self.store is None:
            raise SourceError(f"the store at {self.path} was closed")
        return self.store


@dataclass(eq=False)
class SnapshotSource(StoreSource):
    """A reader of a local store: its newest snapshot (read-only) and its session index."""

    snapshot: Snapshot | None = None

    @property
    def generation(self) -> int:
        """The snapshot's generation (``snapshots.current_generation`` names the newest)."""
        return self.snapshot.generation

    def is_current(self) -> bool:
        """False once a writer has published a newer snapshot (then open ``local_source`` again)."""
        return current_generation(self.snapshot.path.parent.parent) == self.snapshot.generation


def open_local_store(path: str | Path, *, wait_s: float = 0.0, adopt: bool = False) -> LocalStore:
    """Open (creating it when missing) the store in directory ``path`` for writing, with its
    session index; within a process the same ``LocalStore`` is shared (``users`` + 1). A store
    that has traces but no index file yet, or one of an older version (filled by an older
    version of this app, or by other tools), is indexed on opening, which reads every session
    once; one without a snapshot gets its first. A write that a killed writer left unfinished is
    undone first, and one it finished but did not publish is published (``write_journal``).

    A folder that exists and holds files, none of them a store's (``STORE_MARKS``), is refused
    rather than made a store among them (a home folder given by mistake): a store is made only
    in a missing or empty folder. A folder with a RocksDB ``CURRENT`` but nothing of Trace
    Explorer's (``ours``: no session index, no snapshots, no writers' lock) is written into only
    with ``adopt`` (the command line's ``--store``, which the operator names: a pyoxigraph store
    filled by other tools); otherwise it is refused untouched, as another program's database
    would be. When opening fails, what this call made in the folder (the writers' lock, the
    session index) is removed again.

    Raises StoreBusy when another process writes it still after ``wait_s`` seconds, and
    SourceError when the directory cannot be opened (not a store, one of a store's snapshots,
    no permission)."""
    path = Path(path)
    key = path.resolve()
    with _writers_lock:
        local = _writers.get(key)
        if local is not None and local.store is not None:
            local.users += 1
            return local
        _refuse_other_folder(path, adopt)
        refuse_snapshot(path)
        deadline = time.monotonic() + wait_s
        made = [] if ours(path) else [path / WRITER_LOCK, path / INDEX_FILE]  # what a failure takes away again
        lock = _lock_writer(path, deadline)
        index_path = path / INDEX_FILE
        index = None
        try:
            try:
                index = SessionIndex(index_path)
                store = _open_recovered(path, index, deadline)
                if index.created and len(store):  # filled before it had an index (of this version): index it now
                    build_index(store, index)
            except sqlite3.Error as error:
                raise SourceError(f"cannot open the session index {index_path}: {error}") from None
            if needs_publishing(index, path):
                _publish(store, path, index)
        except BaseException:
            if index is not None:
                index.close()
            for file in made:  # a folder that held no store of ours is left as it was
                for leftover in (file, file.with_name(file.name + "-wal"), file.with_name(file.name + "-shm")):
                    leftover.unlink(missing_ok=True)
            lock.close()
            raise
        local = LocalStore(path, store, index, lock=lock)
        _writers[key] = local
        return local


def refuse_snapshot(path: Path) -> None:
    """Raise SourceError when ``path`` is one of a store's published snapshots (a folder of its
    ``SNAPSHOTS_DIR``): readers open those through the store itself, and nothing may write in
    one (opened as a store of its own, it would get an index, a lock and snapshots inside it)."""
    resolved = path.resolve()
    store = resolved.parent.parent
    if resolved.parent.name == SNAPSHOTS_DIR and (store / INDEX_FILE).exists():
        raise SourceError(f"{path} is a snapshot of the store at {store}, which is never opened on its own: "
                          f"open the store itself (--store {store})")


def holds_store(path: str | Path) -> bool:
    """Whether the folder ``path`` holds a local store (any of ``STORE_MARKS``)."""
    return any(os.path.exists(os.path.join(path, mark)) for mark in STORE_MARKS)


def ours(path: str | Path) -> bool:
    """Whether the folder ``path`` holds a Trace Explorer store: its session index, its
    snapshots or the writers' lock (which a writer killed before the store was made leaves), not
    only a RocksDB ``CURRENT``, which any RocksDB or LevelDB database has."""
    return any(os.path.exists(os.path.join(path, mark)) for mark in (INDEX_FILE, SNAPSHOTS_DIR, WRITER_LOCK))


def _refuse_other_folder(path: Path, adopt: bool) -> None:
    """Raise SourceError when ``path`` is a folder that holds files but nothing of a store's,
    or (without ``adopt``) nothing of Trace Explorer's (``ours``)."""
    if not path.is_dir():
        return
    try:
        with os.scandir(path) as entries:
            names = {entry.name for entry in entries}
    except OSError:
        return  # said in the system's words when the folder is opened
    if names and not (names & STORE_MARKS if adopt else ours(path)):
        shown = ", ".join(sorted(names)[:3]) + (", …" if len(names) > 3 else "")
        raise SourceError(f"cannot open the store at {path}: this folder holds other files ({shown}) and no "
                          f"{'store' if adopt else 'Trace Explorer store'}; a store is a folder of its own (made when "
                          f"missing or empty)" + ("" if adopt else "; `trace-explorer reindex --store` adopts a "
                                                                  "pyoxigraph store filled by other tools"))


def _lock_writer(path: Path, deadline: float) -> IO[bytes]:
    while True:
        try:
            path.mkdir(parents=True, exist_ok=True)
            lock = lock_writer(path)
        except OSError as error:
            raise _unopened(path, error) from None
        if lock is not None:
            return lock
        if time.monotonic() >= deadline:
            raise _busy(path)
        time.sleep(0.1)


def _unopened(path: Path, error: OSError) -> SourceError:
    """Why the store at ``path`` could not be opened, in words: a file where the store's folder
    should be, else the system's reason (``strerror``), without its error number."""
    if path.exists() and not path.is_dir():
        return SourceError(f"cannot open the store at {path}: this is a file; a store is a folder "
                           f"(made when missing)")
    return SourceError(f"cannot open the store at {path}: {error.strerror or error}")


def _busy(path: Path) -> StoreBusy:
    return StoreBusy(f"the store at {path} is being written by another process (an ingest, a reindex, a sync, or "
                     f"an app saving uploads); try again once it is done. Reading the store goes on meanwhile.")


def _open_recovered(path: Path, index: SessionIndex, deadline: float) -> ox.Store:
    """Open the store for writing (the writers' lock held), once the write a killed writer left
    pending (``write_journal``) is undone: its directory rolled back to a snapshot before it is
    opened, or the quads it added removed. What a killed writer left beside the store is
    removed first: ``LEFTOVERS``."""
    for leftover in (found for pattern in LEFTOVERS for found in path.glob(pattern)):
        if leftover.is_dir():
            shutil.rmtree(leftover, ignore_errors=True)
        else:
            leftover.unlink(missing_ok=True)
    pending = index.pending_write()
    if pending is not None and pending.generation is not None:
        try:
            roll_back(path, pending.generation)
        except OSError as error:
            raise SourceError(f"cannot undo the unfinished write of {pending.name} into the store at {path}: "
                              f"{error}") from None
    store = _open_for_writing(path, deadline)
    if pending is not None:
        if pending.generation is None:
            undo(store, pending)
            store.flush()
        index.end_write()
    return store


def _open_for_writing(path: Path, deadline: float) -> ox.Store:
    while True:
        try:
            path.mkdir(parents=True, exist_ok=True)
            return ox.Store(str(path))
        except RuntimeError as error:  # RocksDB's refusal of a database that is not pyoxigraph's
            raise SourceError(f"cannot open the store at {path}: it is not a pyoxigraph store ({error})") from None
        except OSError as error:
            if "LOCK" not in str(error):
                raise _unopened(path, error) from None
            if time.monotonic() >= deadline:
                raise _busy(path) from None
            time.sleep(0.1)


def _publish(store: ox.Store, path: Path, index: SessionIndex) -> int:
    try:
        generation = publish(store, path)
        index.mark_published(generation)
        return generation
    except (OSError, sqlite3.Error) as error:
        raise SourceError(f"cannot write a snapshot of the store at {path}: {error}") from None


def local_source(path: str | Path, *, adopt: bool = False, label: str | None = None) -> SnapshotSource:
    """A reader of the store in ``path``: its newest snapshot, read-only, with its session index
    (None when the store has none: the list then reads the traces). Shared within the process
    per snapshot. The index is read as it is now (SQLite lets readers share it with the
    writer), so a reader kept while a writer adds files may list sessions its snapshot does not
    hold yet: ``is_current()`` says when to open the store again. A store without a snapshot
    yet is given one, which opens it for writing once (and indexes it when it has no index):
    one of Trace Explorer's made by an older version, and, with ``adopt`` (the command line's
    ``--store``), a pyoxigraph store filled by other tools (``open_local_store``). ``label``: the
    source's label (default ``store {path}``).

    Raises SourceError when there is no store in ``path``, it cannot be read, or ``path`` is one
    of a store's snapshots (``refuse_snapshot``); StoreBusy when it has no snapshot yet and
    another process writes it."""
    path = Path(path)
    if not path.is_dir():
        raise SourceError(f"no store at {path} (create one with `trace-explorer ingest`)")
    refuse_snapshot(path)
    snapshot = _shared_snapshot(path)
    if snapshot is None:
        if not (path / ROCKSDB_MARK).is_file():
            raise SourceError(f"no store at {path}: the folder holds no pyoxigraph store "
                              f"(create one with `trace-explorer ingest`)")
        open_local_store(path, adopt=adopt).close()  # publishes its first snapshot
        snapshot = _shared_snapshot(path)
        if snapshot is None:
            raise SourceError(f"cannot read the store at {path}: it has no snapshot")
    index_path = path / INDEX_FILE
    try:
        index = SessionIndex(index_path, read_only=True) if index_path.exists() else None
    except sqlite3.Error as error:
        raise SourceError(f"cannot open the session index {index_path}: {error}") from None
    return SnapshotSource(snapshot.store, label=label or f"store {path}", index=index, snapshot=snapshot)


def _shared_snapshot(path: Path) -> Snapshot | None:
    key = path.resolve()
    generation = current_generation(key)
    with _snapshots_lock:
        found = _snapshots.get((key, generation)) if generation is not None else None
        if found is not None:
            return found
        try:
            snapshot = open_snapshot(key)
        except (OSError, RuntimeError) as error:
            raise SourceError(f"cannot read the store at {path}: {error}") from None
        if snapshot is not None:
            _snapshots[(key, snapshot.generation)] = snapshot
        return snapshot


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
