"""A real SPARQL server for the endpoint tests: OpenLink Virtuoso (Debian's
``virtuoso-opensource``), started on free loopback ports with its own database directory and
loaded with N-Quads through its bulk loader. ``scripts/setup.sh`` installs it."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

VIRTUOSO = shutil.which("virtuoso-t")
ISQL = shutil.which("isql-vt")

_INI = """[Database]
DatabaseFile = {db}/virtuoso.db
ErrorLogFile = {db}/virtuoso.log
LockFile = {db}/virtuoso.lck
TransactionFile = {db}/virtuoso.trx
xa_persistent_file = {db}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = {db}/virtuoso-temp.db
TransactionFile = {db}/virtuoso-temp.trx
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:{sql_port}
DirsAllowed = ., {data}
NumberOfBuffers = {buffers}
MaxDirtyBuffers = {dirty}
ThreadsPerQuery = 2
MaxClientConnections = 8

[HTTPServer]
ServerPort = 127.0.0.1:{http_port}
ServerThreads = 4
MaxClientConnections = 4

[SPARQL]
ResultSetMaxRows = 1000000
MaxQueryExecutionTime = {query_s}
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def virtuoso_endpoint(workdir: Path, nquads: bytes | Path, timeout_s: float = 90, *, load_timeout_s: float | None = None,
                      buffers: int = 10000, query_s: int = 60) -> Iterator[str]:
    """Start Virtuoso in ``workdir``, bulk-load ``nquads`` (N-Quads bytes, or a file of them,
    hard-linked or copied into the server's data folder), yield the SPARQL endpoint URL, and
    stop the server afterwards. ``timeout_s``: for it to come up (and to load, unless
    ``load_timeout_s``); ``buffers``: its page buffers (8 KB each; 10,000 by default, a large
    store wants more); ``query_s``: its limit on a query's time, in seconds. Raises RuntimeError
    (with the server log) when it does not come up or the load fails."""
    if not (VIRTUOSO and ISQL):
        raise RuntimeError("virtuoso-t / isql-vt not installed (scripts/setup.sh installs virtuoso-opensource)")
    db, data = workdir / "db", workdir / "data"
    db.mkdir(parents=True)
    data.mkdir()
    if isinstance(nquads, Path):
        try:
            (data / "traces.nq").hardlink_to(nquads)
        except OSError:
            shutil.copyfile(nquads, data / "traces.nq")
    else:
        (data / "traces.nq").write_bytes(nquads)
    sql_port, http_port = _free_port(), _free_port()
    ini = workdir / "virtuoso.ini"
    ini.write_text(_INI.format(db=db, data=data, sql_port=sql_port, http_port=http_port, buffers=buffers,
                                dirty=buffers * 3 // 5, query_s=query_s), encoding="utf-8")
    log = open(workdir / "server.out", "wb")  # a file, not a pipe: a long load's messages never fill it
    server = subprocess.Popen([VIRTUOSO, "-f", "-c", str(ini)], cwd=workdir, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{http_port}/sparql"
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if server.poll() is not None:
                raise RuntimeError("virtuoso exited: " + (workdir / "server.out").read_text(errors="replace")[-2000:])
            try:
                with urllib.request.urlopen(url + "?query=ASK%7B%7D", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("virtuoso did not answer in time") from None
                time.sleep(0.3)
        load = subprocess.run(
            [ISQL, str(sql_port), "dba", "dba",
             f"exec=ld_dir('{data}', 'traces.nq', 'urn:graph:loaded'); rdf_loader_run(); checkpoint;"],
            capture_output=True, text=True, timeout=load_timeout_s or timeout_s)
        if load.returncode != 0 or "Error" in load.stdout:
            raise RuntimeError(f"virtuoso load failed: {load.stdout[-2000:]} {load.stderr[-2000:]}")
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
