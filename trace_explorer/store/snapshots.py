"""Read-only snapshots of a local store: what readers open, so that a writer never has a reader
beside it on the same RocksDB directory.

pyoxigraph opens a store directory either for writing (one process at a time: RocksDB locks
``DIR/LOCK``) or read-only, and "opening as read-only while having an other process writing the
database is undefined behavior" (pyoxigraph's ``Store.read_only``): a read-only open that meets
the writer's background compaction fails with ``Corruption: … MANIFEST may be corrupted`` (about
one open in ten under a steady ingest, measured). So readers never open the live directory.
After each change a writer publishes a snapshot, a RocksDB checkpoint made by
``Store.backup`` (hard links to the immutable table files: milliseconds, little disk), and
readers open the newest snapshot read-only. Nobody ever writes a snapshot.

Layout, inside the store directory ``DIR``::

    DIR/trace-explorer-snapshots/current    the generation readers open ("7\\n"), replaced atomically
    DIR/trace-explorer-snapshots/7/         a checkpoint; readers hold a shared flock on its
                                            ``readers`` file while they have it open

A writer removes a superseded snapshot only when it can take that lock exclusively, so a snapshot
in use is never deleted under its reader; it goes at a later publication instead.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import pyoxigraph as ox

SNAPSHOTS_DIR = "trace-explorer-snapshots"
CURRENT_FILE = "current"
READERS_FILE = "readers"


def snapshots_dir(path: str | Path) -> Path:
    """Where the snapshots of the store in ``path`` live."""
    return Path(path) / SNAPSHOTS_DIR


def current_generation(path: str | Path) -> int | None:
    """The generation readers of the store in ``path`` open, or None when it has no snapshot yet.
    One small file read: cheap enough to ask on every page run."""
    try:
        return int((snapshots_dir(path) / CURRENT_FILE).read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None


def publish(store: ox.Store, path: str | Path) -> int:
    """Snapshot ``store`` (open for writing, in directory ``path``) as the next generation, make
    it the one readers open, and remove superseded snapshots no reader holds. Returns the new
    generation. The caller is the store's only writer (pyoxigraph's directory lock makes it so).
    Raises OSError when the snapshot cannot be written (a full disk)."""
    folder = snapshots_dir(path)
    folder.mkdir(exist_ok=True)
    generation = max([current_generation(path) or 0] + _generations(folder)) + 1
    target = folder / str(generation)
    store.flush()
    store.backup(str(target))  # a RocksDB checkpoint: hard links to the table files
    (target / READERS_FILE).touch()
    pointer = folder / f"{CURRENT_FILE}.{os.getpid()}"
    pointer.write_text(f"{generation}\n", encoding="ascii")
    os.replace(pointer, folder / CURRENT_FILE)  # atomic: a reader sees the old or the new one
    for old in _generations(folder):
        if old != generation:
            _remove_unless_held(folder / str(old))
    return generation


def _generations(folder: Path) -> list[int]:
    try:
        return [int(p.name) for p in folder.iterdir() if p.name.isdigit() and p.is_dir()]
    except OSError:
        return []


def _remove_unless_held(snapshot: Path) -> None:
    """Delete ``snapshot`` when no reader holds it (its ``readers`` lock taken exclusively, at
    once, or missing: a checkpoint cut short by a crash)."""
    try:
        handle = os.open(snapshot / READERS_FILE, os.O_RDONLY)
    except FileNotFoundError:
        shutil.rmtree(snapshot, ignore_errors=True)
        return
    except OSError:
        return
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(handle)  # a reader has it open: removed at a later publication
        return
    try:
        shutil.rmtree(snapshot, ignore_errors=True)
    finally:
        os.close(handle)


class Snapshot:
    """One snapshot open for reading: ``store`` (pyoxigraph, read-only), its ``generation``,
    and the shared lock that keeps writers from deleting it, released by ``close()`` or when
    the object is collected."""

    def __init__(self, path: Path, generation: int, store: ox.Store, handle: int):
        self.path, self.generation, self.store = path, generation, store
        self._handle: int | None = handle

    def close(self) -> None:
        """Release the snapshot (its store goes when the last reference to it does)."""
        if self._handle is not None:
            os.close(self._handle)  # closing the descriptor releases its flock
            self._handle = None

    def __del__(self) -> None:
        self.close()


def open_snapshot(path: str | Path) -> Snapshot | None:
    """The newest snapshot of the store in ``path``, open read-only, or None when it has none.
    Raises OSError when the snapshot cannot be read."""
    folder = snapshots_dir(path)
    for _ in range(20):  # a writer may supersede and remove the one just named: ask again
        generation = current_generation(path)
        if generation is None:
            return None
        target = folder / str(generation)
        try:
            handle = os.open(target / READERS_FILE, os.O_RDONLY)
        except FileNotFoundError:
            continue
        try:
            fcntl.flock(handle, fcntl.LOCK_SH)  # waits only while a writer is deleting it
            if os.fstat(handle).st_ino != os.stat(target / READERS_FILE).st_ino:
                raise FileNotFoundError(target)
            store = ox.Store.read_only(str(target))
        except FileNotFoundError:
            os.close(handle)
            continue
        except BaseException:
            os.close(handle)
            raise
        return Snapshot(target, generation, store, handle)
    raise OSError(f"{folder}: the snapshot kept changing while it was opened")
