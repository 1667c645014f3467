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

Writing a file into the store is ``ingest``'s.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import pyoxigraph as ox

from ..index.build import build_index
from ..index.schema import INDEX_FILE
from ..index.session_index import SessionIndex
from ..sources.source import CONTENT, DOCUMENTS_GRAPH, SourceError
from ..sources.store_source import StoreSource
from .snapshots import SNAPSHOTS_DIR, Snapshot, current_generation, open_snapshot, publish
from .write_journal import WRITER_LOCK, lock_writer, needs_publishing, roll_back, undo

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
