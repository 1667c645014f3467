"""The review store's lock: one writer at a time across processes and threads, readers beside
each other but never beside the writer.

pyoxigraph lets one process at a time open a directory for writing, and opening it read-only
while another process writes is undefined (``Store.read_only``'s documentation). So every user of
a review store takes a ``flock`` on ``LOCK_FILE`` first: exclusive to write, shared to read,
and opens the store only while holding it. ``flock`` locks belong to an open file, so two threads
of one process (two Streamlit sessions) exclude each other as two processes do. A writer waits
its turn: a review is saved in milliseconds, so ten reviewers at once wait a few tens.
"""

from __future__ import annotations

import contextlib
import fcntl
import time
from collections.abc import Iterator
from pathlib import Path

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
