"""The embedded local store: a pyoxigraph store persisted in a directory.

``ingest_file`` adds one file all or nothing: the file is parsed in full first, so a file that
fails (bad syntax, bad encoding, over the size limit) leaves the store exactly as it was. Then
its quads (and, for a content file, its texts as ``<doc> tg:content "text"`` in the documents
graph) go in: in one atomic ``Store.extend`` up to ``BULK_QUADS`` quads, and with
``Store.bulk_extend`` above, in batches (about five times faster on a million quads, but not
atomic against a crash or a full disk, which re-ingesting the file mends). The session index
(``session_index``) reads the file's new sessions before the write and gets their rows after
it, with those of the sessions the file changed and the file's digest: the same file twice adds
nothing (quads are a set, blank nodes get names derived from the bytes, and a recorded digest
is skipped). (Measured slower on two cores: writing with ``Store.bulk_load`` of the bytes on a
second thread while the index is read, both halves taking twice as long; and reading the index
in a worker process that parses the file again while the quads are written, which costs
``bulk_extend``, already on more than one core, its second core.)
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from ..read.collection import LoadedSource
from ..read.errors import TraceLoadError
from ..read.files import read_trace_file
from ..read.rdf import Progress
from .filter import SessionFilter
from .session_index import INDEX_FILE, IndexUpdate, SessionIndex, build_index
from .source import CONTENT, DOCUMENTS_GRAPH, SourceError
from .store import StoreSource

BULK_QUADS = 10_000  # larger files go in with Store.bulk_extend,
BULK_BATCH = 50_000  # this many quads a call: on 750,000 quads, 3.9 s and no memory beyond the
# quads themselves, against 6.4 s and 640 MiB more in one call


@dataclass(eq=False)
class LocalStore:
    """A local store: the traces (``store``, pyoxigraph on disk in ``path``) and their session
    index (``index``: SQLite in ``path/INDEX_FILE``; None when a read-only store has none)."""

    path: Path
    store: ox.Store
    index: SessionIndex | None

    def source(self) -> StoreSource:
        """A StoreSource reading this store (its index answers the session list)."""
        return StoreSource(self.store, label=f"store {self.path}", index=self.index)

    def __len__(self) -> int:
        """Number of quads in the store."""
        return len(self.store)


def open_local_store(path: str | Path, read_only: bool = False) -> LocalStore:
    """Open (creating it when missing, unless ``read_only``) the store in directory ``path``,
    with its session index. A writable store that has traces but no index file yet, or one of
    an older version (filled by an older version of this app, or by other tools), is indexed on
    opening, which reads every session once.

    Raises SourceError when the directory cannot be opened (held by another writer, not a
    store, no permission)."""
    path = Path(path)
    try:
        if read_only:
            store = ox.Store.read_only(str(path))
        else:
            path.mkdir(parents=True, exist_ok=True)
            store = ox.Store(str(path))
    except OSError as error:
        raise SourceError(f"cannot open the store at {path}: {error}") from None
    index_path = path / INDEX_FILE
    created = not index_path.exists()
    try:
        if read_only:
            index = None if created else SessionIndex(index_path, read_only=True)
        else:
            index = SessionIndex(index_path)
            if index.created and len(store):  # filled before it had an index (of this version): index it now
                build_index(store, index)
    except sqlite3.Error as error:
        raise SourceError(f"cannot open the session index {index_path}: {error}") from None
    return LocalStore(path, store, index)


def local_source(path: str | Path, read_only: bool = False) -> StoreSource:
    """A StoreSource over the local store at ``path`` (see ``open_local_store``)."""
    return open_local_store(path, read_only).source()


def reindex(local: LocalStore) -> int:
    """Rebuild the session index of ``local`` from its traces (a store made before it had one,
    or changed by other tools); returns the number of sessions."""
    build_index(local.store, local.index)
    return local.index.count(SessionFilter(include_sub=True))


def ingest_file(local: LocalStore, name: str, data: bytes | None = None, *,
                progress: Progress | None = None, max_bytes: int | None = None,
                timings: dict[str, float] | None = None) -> LoadedSource:
    """Add the file ``name`` (or its bytes ``data``) to the store ``local``, all or nothing.

    ``progress(n)`` is called as each further ``n`` bytes are parsed; ``max_bytes`` caps the
    text read (``read.files.read_trace_file``); ``timings``, when given, gets the seconds spent
    reading ("read"), writing the quads ("write") and indexing ("index"), and their CPU seconds
    ("read cpu", ...). Returns what was
    added (``skipped`` when the same bytes were ingested before). Raises TraceLoadError on bad
    input (the store is untouched then); OSError when the store cannot be written; SourceError
    for a read-only store."""
    if local.index is None or local.index.read_only:
        raise SourceError(f"the store at {local.path} is open read-only")
    store, index = local.store, local.index
    clock = _Clock(timings)
    loaded = read_trace_file(name, data, max_bytes=max_bytes, progress=progress)
    clock.lap("read")
    if index.is_ingested(loaded.digest):
        return LoadedSource(name, loaded.format, loaded.size, len(loaded.quads), len(loaded.documents),
                            loaded.recovered, skipped=True)
    update = IndexUpdate(store, index, loaded.quads)
    update.read()  # from the file alone: its triples are let go before its quads are written
    clock.lap("index")
    quads, count = loaded.quads, len(loaded.quads)
    loaded.quads = []  # held once, here, and let go once written
    graph = ox.NamedNode(DOCUMENTS_GRAPH)
    for document, text in loaded.documents.items():
        try:
            quads.append(ox.Quad(ox.NamedNode(document), ox.NamedNode(CONTENT), ox.Literal(text), graph))
        except ValueError:
            raise TraceLoadError(name, f"a document IRI as key, got {document!r:.100}") from None
    if len(quads) > BULK_QUADS:
        while quads:  # in batches, each let go once written (order does not matter in a set)
            batch = quads[-BULK_BATCH:]
            del quads[-BULK_BATCH:]
            store.bulk_extend(batch)
            del batch
    else:
        store.extend(quads)
    del quads
    store.flush()
    clock.lap("write")
    update.apply([(name, loaded.digest)])
    clock.lap("index")
    return LoadedSource(name, loaded.format, loaded.size, count, len(loaded.documents), loaded.recovered)


class _Clock:
    """Adds the seconds since the last lap to ``timings[name]``, and the CPU seconds of the
    process (every thread) to ``timings[name + " cpu"]`` (nothing when timings is None)."""

    def __init__(self, timings: dict[str, float] | None):
        self.timings = timings
        self.last, self.last_cpu = time.perf_counter(), time.process_time()

    def lap(self, name: str) -> None:
        now, cpu = time.perf_counter(), time.process_time()
        if self.timings is not None:
            self.timings[name] = self.timings.get(name, 0.0) + now - self.last
            self.timings[name + " cpu"] = self.timings.get(name + " cpu", 0.0) + cpu - self.last_cpu
        self.last, self.last_cpu = now, cpu
