"""An ingest run in a process of its own that tells how far it got and waits there, to be killed
with SIGKILL at a known point (``ingest_until``). The store it writes is wrapped so that each
``bulk_extend`` batch is reported once written; the session index's ``replace_batches`` and the
snapshot's ``publish`` report before they run.

    python tests/killed_ingest.py STORE STOP [--unpublished] FILE...

STOP: ``batch`` (wait after the first batch is written), ``write`` (report the first batch and
go on writing; wait before the third), ``index`` (wait before the last file's rows are written),
``publish`` (wait before the last file's snapshot is published). ``--unpublished`` writes every
file without publishing (as ``sync`` does), then stops at ``index`` on the last. ``--streamed``
reads and writes every N-Quads file a batch at a time (``read.rdf_stream``). Batches are
of ``BATCH`` quads, so that a file of 12,000-18,000 quads takes three.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BATCH = 6_000
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def say(word: str) -> None:
    print(word, flush=True)


def wait() -> None:
    time.sleep(600)  # until killed


class WatchedStore:
    """A pyoxigraph store that reports its bulk writes, of quads or of a batch's text
    (everything else goes to the store)."""

    def __init__(self, store, stop: str):
        self._store, self._stop, self.batches = store, stop, 0

    def __getattr__(self, name):
        return getattr(self._store, name)

    def __len__(self) -> int:
        return len(self._store)

    def __contains__(self, quad) -> bool:
        return quad in self._store

    def bulk_extend(self, quads) -> None:
        self._written(lambda: self._store.bulk_extend(quads))

    def bulk_load(self, text, **kwargs) -> None:
        """A streamed batch's text (``rdf_stream.Batch``), loaded as ``bulk_extend`` writes quads."""
        self._written(lambda: self._store.bulk_load(text, **kwargs))

    def _written(self, write) -> None:
        if self._stop == "write" and self.batches == 2:
            say("waiting")
            wait()
        write()
        self.batches += 1
        if self.batches == 1:
            say("batch")
            if self._stop == "batch":
                wait()


def main(argv: list[str]) -> None:
    from trace_explorer.read.files import read_trace_file
    from trace_explorer.store import ingest, local_store
    from trace_explorer.index.session_index import SessionIndex

    store_dir, stop, rest = argv[0], argv[1], argv[2:]
    unpublished = "--unpublished" in rest
    files = [f for f in rest if not f.startswith("--")]
    ingest.BULK_BATCH = BATCH
    if "--streamed" in rest:  # every N-Quads file read and written a batch at a time
        from trace_explorer.read import rdf_stream

        rdf_stream.STREAM_BYTES, rdf_stream.BATCH = 0, BATCH
    local = local_store.open_local_store(store_dir)
    local.store = WatchedStore(local.store, stop)
    last = files[-1]
    replace, publish = SessionIndex.replace_batches, local_store.publish

    def watched_replace(index, drop, batches, files=(), typed=None):
        files = list(files)
        if stop == "index" and any(name == last for name, _ in files):
            say("index")
            wait()
        return replace(index, drop, batches, files, typed)

    def watched_publish(store, path):
        if stop == "publish":
            say("publish")
            wait()
        return publish(store, path)

    SessionIndex.replace_batches = watched_replace
    local_store.publish = watched_publish
    for name in files:
        if unpublished:
            ingest.ingest_loaded(local, read_trace_file(name), publish=False)
        else:
            ingest.ingest_file(local, name)
        say("ingested")
    local.close()


def ingest_until(store: Path, stop: str, files: list[Path], *, word: str, unpublished: bool = False,
                 streamed: bool = False) -> None:
    """Run the ingest of ``files`` into ``store`` in another process until it says ``word``,
    then kill it with SIGKILL (``streamed``: N-Quads files read and written a batch at a time).
    Raises AssertionError when it ends or says otherwise first."""
    args = [sys.executable, str(Path(__file__).resolve()), str(store), stop, *map(str, files)]
    args += (["--unpublished"] if unpublished else []) + (["--streamed"] if streamed else [])
    process = subprocess.Popen(args, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=REPO)
    try:
        while True:
            line = process.stdout.readline()
            if not line:
                raise AssertionError(f"the ingest ended before {word!r}: {process.stderr.read()[-2000:]}")
            if line.strip() == word:
                break
    finally:
        process.kill()  # SIGKILL
        process.wait()
    assert process.returncode == -9


if __name__ == "__main__":
    main(sys.argv[1:])
