"""Reading a large file's sessions for the session index in a process of its own, while the
ingesting process parses the same file and writes its quads.

Writing a file's quads into pyoxigraph (``Store.bulk_extend``) holds Python's GIL and keeps about
one core busy; reading the file's sessions for the index is Python too (a few seconds for
10,000 sessions). In one process they take turns; here the worker parses the file itself (the
same bytes give the same quads, blank nodes included: ``read.files.read_trace_file``) and reads
its sessions (``session_index.read_file_sessions``) on another core meanwhile, so on a machine
with two cores or more the index costs little more wall-clock time than the write. A smaller
file is read in the ingesting process (starting a process costs more than it saves).

    python -m trace_explorer.sources.index_worker   # reads a request on stdin, see IndexWorker

The request (JSON, then the file's bytes when the ingesting process has them rather than a path)
goes to the worker's stdin; ``FileSessions`` as JSON comes back on its stdout. Any failure of the
worker (a crash, a file it cannot read) makes ``result()`` None, and the ingesting process reads
the sessions itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

from ..read.files import read_trace_file
from ..read.limits import MIB
from .session_index import FileSessions, read_file_sessions

WORKER_BYTES = 8 * MIB  # files at least this large have their sessions read by a worker


class IndexWorker:
    """A worker process reading the sessions of the file ``name`` (or its bytes ``data``);
    ``max_bytes`` as for ``read_trace_file``. Started at once; ``result()`` waits for it."""

    def __init__(self, name: str, data: bytes | None = None, max_bytes: int | None = None):
        self._process = subprocess.Popen([sys.executable, "-m", __name__], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        request = json.dumps({"name": name, "path": data is None, "max_bytes": max_bytes}).encode() + b"\n"
        # the bytes go in on a thread: the pipe takes them as fast as the worker reads them
        self._sending = threading.Thread(target=self._send, args=(request, data), daemon=True)
        self._sending.start()

    def _send(self, request: bytes, data: bytes | None) -> None:
        try:
            self._process.stdin.write(request)
            if data is not None:
                self._process.stdin.write(data)
            self._process.stdin.close()
        except OSError:
            pass  # the worker is gone: result() says so

    def result(self) -> FileSessions | None:
        """The worker's ``FileSessions``, once it is done; None when it failed."""
        self._sending.join()
        out = self._process.stdout.read()
        if self._process.wait() != 0:
            return None
        try:
            return FileSessions.from_json(out)
        except (ValueError, KeyError, TypeError):
            return None

    def stop(self) -> None:
        """Stop the worker (its reading is not needed: the file failed, or was ingested before)."""
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        self._sending.join()
        self._process.stdout.close()


def wanted(name: str, data: bytes | None) -> bool:
    """Whether the file ``name`` (or ``data``) is large enough for a worker (``WORKER_BYTES``)."""
    try:
        size = len(data) if data is not None else os.path.getsize(name)
    except OSError:
        return False
    return size >= WORKER_BYTES


def main() -> int:
    """The worker: a request on stdin, ``FileSessions`` as JSON on stdout."""
    stdin = sys.stdin.buffer
    request = json.loads(stdin.readline())
    data = None if request["path"] else stdin.read()
    loaded = read_trace_file(request["name"], data, max_bytes=request["max_bytes"])
    sys.stdout.write(read_file_sessions(loaded.quads).to_json())
    return 0


if __name__ == "__main__":
    sys.exit(main())
