"""The review store's lock: one writer at a time across processes and threads, readers beside
each other but never beside the writer.

pyoxigraph lets one process at a time open a directory for writing, and opening it read-only
while another process writes is undefined (``Store.read_only``'s documentation). So every user of
a review store takes a ``flock`` on ``LOCK_FILE`` first: exclusive to write, shared to read,
and opens the store only while holding it. ``flock`` locks belong to an open file, so two threads
of one process (two Streamlit sessions) exclude each other as two processes do. A writer waits
its turn: a review is saved in milliseconds, so ten reviewers at once wait a few tens.

The store must be let go before the lock is: pyoxigraph closes a directory when its ``Store``
object is collected, so ``with_store`` hands the store to a function and keeps no reference
once it returns (nor in a raised error's traceback: its frames' locals are cleared), and a
store still closing in another process (a few milliseconds after its lock went) is waited for.
"""

from __future__ import annotations

import contextlib
import fcntl
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pyoxigraph as ox

T = TypeVar("T")

LOCK_FILE = "reviews.lock"
WAIT_S = 10.0  # how long a user waits for the lock before ReviewStoreBusy
_POLL_S = 0.002  # first pause between two tries; doubles up to _POLL_MAX_S
_POLL_MAX_S = 0.05


class ReviewStoreBusy(OSError):
    """The review store stayed locked by another user for longer than the wait allowed."""


@contextlib.contextmanager
def locked(folder: Path, exclusive: bool, wait_s: float = WAIT_S) -> Iterator[None]:
    """Hold the lock of the review store in ``folder`` (made if missing) while the block runs:
    ``exclusive`` to write, shared to read. Raises ReviewStoreBusy after ``wait_s`` seconds, or
    OSError when the folder or lock file cannot be made."""
    folder.mkdir(parents=True, exist_ok=True)
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    with open(folder / LOCK_FILE, "a+b") as handle:
        deadline, pause = time.monotonic() + wait_s, _POLL_S
        while True:
            try:
                fcntl.flock(handle.fileno(), mode | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise ReviewStoreBusy(f"the review store {folder} stayed busy for {wait_s:g} s") from None
                time.sleep(pause)
                pause = min(pause * 2, _POLL_MAX_S)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def with_store(folder: Path, store_dir: str, work: Callable[[ox.Store], T], write: bool, wait_s: float = WAIT_S,
               empty: T | None = None) -> T:
    """``work(store)`` on the pyoxigraph store ``folder/store_dir``, opened for writing
    (``write``, made if missing) or read-only, under the lock (``locked``); ``empty`` without
    calling ``work`` when reading a store not made yet. Raises ReviewStoreBusy when the lock or
    the directory stays taken for ``wait_s`` seconds, and whatever ``work`` raises."""
    path = folder / store_dir
    if not write and not path.is_dir():
        return empty  # type: ignore[return-value]
    with locked(folder, exclusive=write, wait_s=wait_s):
        store = _open(path, write, time.monotonic() + wait_s)
        try:
            return work(store)
        except BaseException as error:
            traceback.clear_frames(error.__traceback__)  # the frames' locals may hold the store
            raise
        finally:
            del store  # closed here, before the lock goes
            if write:
                _forget_old_logs(path)


def _forget_old_logs(path: Path) -> None:
    """Remove the info logs RocksDB leaves at every opening (``LOG.old.*``; it keeps a thousand),
    which a store opened for every review would pile up. Only the writer does, holding the lock."""
    for old in path.glob("LOG.old.*"):
        with contextlib.suppress(OSError):
            old.unlink()


def _open(path: Path, write: bool, deadline: float) -> ox.Store:
    pause = _POLL_S
    while True:
        try:
            return ox.Store(str(path)) if write else ox.Store.read_only(str(path))
        except OSError as error:  # RocksDB's own LOCK, held a moment longer by a store closing
            if "lock" not in str(error).lower() or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, _POLL_MAX_S)
