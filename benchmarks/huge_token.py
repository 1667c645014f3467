"""Memory of reading a file whose one line is a huge token, against the target.

    python benchmarks/huge_token.py [--mib 400] [--keep DIR]

Writes a ``.ttl.gz`` holding a triple, then a comment line of ``--mib`` MiB (default 400), then
another triple (about 0.4 MiB compressed), and reads it in a fresh process three ways: by path
(``read_trace_file``), as uploaded bytes (``read_trace_file`` with ``data``) and into a local store
(``ingest_file``). Each prints the error it gave and that process's peak RSS, against the target of
300 MiB: the decompression is streamed into the parser, so memory stays flat whatever the file
holds, and the token is refused with the file and line named. Nothing is asserted: numbers only.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measuring import peak_rss_mb  # noqa: E402 - beside this file
import run  # noqa: E402,F401 - it puts the repository on the path

TARGET_RSS_MB = 300
MIB = 1024 * 1024


def write_file(path: Path, mib: int) -> None:
    """The ``.ttl.gz``: a triple, a comment line of ``mib`` MiB, a triple; written a MiB at a time."""
    with gzip.open(path, "wb", compresslevel=1) as out:
        out.write(b"@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\n# ")
        block = b"x" * MIB
        for _ in range(mib):
            out.write(block)
        out.write(b"\nex:d ex:e ex:f .\n")


def phase(how: str, path: Path, store: Path) -> dict:
    """Read ``path`` one way (in this process); the error's words, seconds and peak RSS."""
    from trace_explorer.read.errors import TraceLoadError
    from trace_explorer.read.files import read_trace_file
    from trace_explorer.store.ingest import ingest_file
    from trace_explorer.store.local_store import open_local_store

    start = time.perf_counter()
    try:
        if how == "path":
            read_trace_file(str(path))
        elif how == "bytes":
            read_trace_file(path.name, path.read_bytes())
        else:
            with open_local_store(store) as local:
                ingest_file(local, str(path))
        outcome = "read without an error"
    except TraceLoadError as error:
        outcome = str(error)
    except MemoryError as error:
        outcome = f"MemoryError: {error}"
    return {"outcome": outcome, "seconds": time.perf_counter() - start, "rss_mb": peak_rss_mb()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mib", type=int, default=400, help="length of the comment line in MiB (default 400)")
    parser.add_argument("--keep", metavar="DIR", help="write the file (and the store) in DIR and keep them")
    parser.add_argument("--_phase", help=argparse.SUPPRESS)
    parser.add_argument("--_file", help=argparse.SUPPRESS)
    parser.add_argument("--_store", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args._phase:
        print(json.dumps(phase(args._phase, Path(args._file), Path(args._store))))
        return 0

    with contextlib.ExitStack() as cleanup:
        work = Path(args.keep) if args.keep else Path(cleanup.enter_context(
            tempfile.TemporaryDirectory(prefix="trace-explorer-huge-token-")))
        work.mkdir(parents=True, exist_ok=True)
        file = work / f"comment-{args.mib}mib.ttl.gz"
        write_file(file, args.mib)
        print(f"file: {file.name}, {file.stat().st_size / MIB:.2f} MiB compressed, "
              f"a comment line of {args.mib:,} MiB on line 3")
        print(f"{'read':<8} {'peak RSS':>10} {'target':>10} {'verdict':<8} {'seconds':>8}  error given")
        for how in ("path", "bytes", "ingest"):
            print(_measured(how, file, work / "store"))
    return 0


def _measured(how: str, file: Path, store: Path) -> str:
    """One way of reading ``file``, in a process of its own, as a row of the report."""
    done = subprocess.run([sys.executable, __file__, "--_phase", how, "--_file", str(file), "--_store", str(store)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return f"{how:<8} failed: {done.stderr[-2000:]}"
    result = json.loads(done.stdout.strip().splitlines()[-1])
    verdict = "PASS" if result["rss_mb"] < TARGET_RSS_MB else "MISS"
    return (f"{how:<8} {result['rss_mb']:>7,.0f} MiB {TARGET_RSS_MB:>6,} MiB {verdict:<8} "
            f"{result['seconds']:>8.2f}  {result['outcome']}")


if __name__ == "__main__":
    sys.exit(main())
