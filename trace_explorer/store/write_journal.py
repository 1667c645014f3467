"""What makes a write into a local store all or nothing after any kill, and what undoes the
write a killed writer left half done.

A file's quads go into the live RocksDB directory: up to ``local_store.BULK_QUADS`` in one atomic
``Store.extend``, above that with ``Store.bulk_extend`` in batches, which a kill can cut between
(or inside) two batches. And the session index (SQLite) gets the file's rows only after the
quads are in. So before the first quad goes in, the writer records in the index how to take
the write out again (``begin``), and the index transaction that writes the file's rows forgets
that record (``SessionIndex.replace``): a record found when the store is next opened for writing
(``recover``) is a write whose rows never came, and it is undone:

- a write begun on a store that its newest snapshot holds whole (the usual case: every ingest
  publishes one) records that snapshot's generation, and is undone by putting the snapshot's
  files back as the live directory (``roll_back``: hard links to its immutable table files, a
  copy of the few others; milliseconds, whatever the size). Recording costs one SQLite commit,
  so a large file pays nothing for it; a large write on a store with unpublished writes
  (``sync`` publishes once at its end) publishes first;
- a small write on a store with unpublished writes records the N-Quads of the quads it adds (those
  the store lacks: about 4 µs a quad to find, at most ``BULK_QUADS``), and is undone by removing
  them.

Readers never see a half-written file either way: they open published snapshots, and a snapshot
is published only once a file's quads and rows are in. A writer killed after the rows and
before its snapshot left a whole file: the next writer publishes it (``needs_publishing``).

Rolling back swaps files under the live directory, so nobody may open it meanwhile: every writer
first takes an exclusive ``flock`` on ``WRITER_LOCK`` (``lock_writer``) and keeps it while it
has the store open, beside pyoxigraph's own lock.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
from pathlib import Path
from typing import IO, Sequence

import pyoxigraph as ox

from ..index.write_records import PendingWrite
from ..index.session_index import SessionIndex
from .snapshots import READERS_FILE, current_generation, snapshots_dir
from ..sources.source import SourceError

WRITER_LOCK = "trace-explorer-writer.lock"
# The files of a RocksDB database (a pyoxigraph store) that a checkpoint holds and a roll back
# replaces; LOCK and the LOG files stay.
ROCKSDB_FILES = re.compile(r"^(\d+\.(sst|log|blob)|MANIFEST-\d+|OPTIONS-\d+|CURRENT|IDENTITY)$")
IMMUTABLE = (".sst", ".blob")  # never written again once made: shared by hard links


def lock_writer(path: Path) -> IO[bytes] | None:
    """Take the writers' lock of the store in ``path`` (an exclusive ``flock`` on
    ``path/WRITER_LOCK``, held until the returned file is closed or collected), or None when
    another writer holds it. Raises OSError when the file cannot be made."""
    handle = open(path / WRITER_LOCK, "a+b")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    except BaseException:
        handle.close()
        raise
    return handle


def begin(path: Path, store: ox.Store, index: SessionIndex, name: str, quads: Sequence[ox.Quad],
          bulk: bool, publish) -> None:
    """Record in ``index`` how to undo the write of ``quads`` (the file ``name``) into ``store``
    (in directory ``path``) should its writer die before the file's rows are written: the
    snapshot generation that holds the store whole, or (a small write, ``bulk`` False, on a
    store ahead of its snapshot) the quads it adds. ``publish()`` publishes a snapshot first
    when a ``bulk`` write finds the store ahead of it. Raises OSError / sqlite3.Error when the
    record (or the snapshot) cannot be written."""
    if needs_publishing(index, path):
        if not bulk:
            added = [q for q in quads if q not in store]
            index.begin_write(name, undo=ox.serialize(added, format=ox.RdfFormat.N_QUADS) if added else b"")
            return
        publish()
    index.begin_write(name, generation=current_generation(path))


def roll_back(path: Path, generation: int) -> None:
    """Make the live store in ``path`` (closed: nobody may have it open) the snapshot
    ``generation`` again: remove its RocksDB files and put the snapshot's in their place (hard
    links to the table files, copies of the rest, ``CURRENT`` last). Safe to run again after a
    kill part way. Raises SourceError when the snapshot is gone, OSError when a file cannot be
    written."""
    source = snapshots_dir(path) / str(generation)
    if not (source / "CURRENT").is_file():
        raise SourceError(f"the store at {path} holds part of a file whose writer was stopped, and the snapshot "
                          f"{source} that undoes it is gone: build the store again from its files")
    current = path / "CURRENT"
    current.unlink(missing_ok=True)  # first: a half-swapped directory is never taken for a whole one
    for old in path.iterdir():
        if ROCKSDB_FILES.match(old.name) and old.is_file():
            old.unlink()
    for new in sorted(source.iterdir()):
        if new.name in ("CURRENT", READERS_FILE) or not ROCKSDB_FILES.match(new.name):
            continue
        target = path / new.name
        if new.name.endswith(IMMUTABLE):
            try:
                os.link(new, target)
                continue
            except OSError:
                pass
        shutil.copy2(new, target)
    staged = path / f"CURRENT.{os.getpid()}"
    shutil.copy2(source / "CURRENT", staged)
    os.replace(staged, current)


def undo(store: ox.Store, pending: PendingWrite) -> int:
    """Remove from ``store`` the quads a small pending write added (its ``undo`` N-Quads);
    returns how many."""
    removed = 0
    for quad in ox.parse(pending.undo or b"", format=ox.RdfFormat.N_QUADS):
        store.remove(quad)
        removed += 1
    return removed


def needs_publishing(index: SessionIndex, path: Path) -> bool:
    """True when the store in ``path`` has no snapshot yet, or has written and indexed quads its
    newest snapshot lacks (a writer stopped before it published, or one that published later)."""
    generation = current_generation(path)
    return generation is None or index.published_generation() != generation
