"""A few sessions added to a large local store: the wall time of ``trace-explorer ingest`` of a
small generated file (with the health check after it), and of that check's lookup of the
entities under the new roots (``analysis.health.checks.entities_under``), once with the typed IRIs
the session index keeps (``index.typed``) and once with the store scanned for them, as
before that table (its mark ignored).

    python benchmarks/small_ingest.py STORE [--sessions 6] [--work FOLDER]

STORE (a local store filled by ``trace-explorer ingest``) is only read: each run ingests into a
copy of it (``cp -r``) in FOLDER (a temporary folder beside STORE by default), removed after.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from trace_explorer.analysis.health import checks, index as health_index  # noqa: E402
from trace_explorer.cli.main import main  # noqa: E402
from trace_explorer.index import typed as index_typed  # noqa: E402
from trace_explorer.store.local_store import open_local_store  # noqa: E402


def _small_file(folder: Path, sessions: int) -> list[Path]:
    spec = importlib.util.spec_from_file_location("small_ingest_synthetic", HERE / "synthetic.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    made = module.generate(folder, sessions, long_steps=(), seed=424242, name="small")
    return [made.documents, made.nquads]


def _run(store: Path, work: Path, files: list[Path], scan: bool) -> dict[str, float]:
    """Ingest ``files`` into a copy of ``store``; the seconds of the ingest, of its
    ``entities_under`` calls, and of one more ``entities_under`` of the new roots afterwards."""
    copy = work / ("scan" if scan else "table")
    shutil.rmtree(copy, ignore_errors=True)
    subprocess.run(["cp", "-r", str(store), str(copy)], check=True)
    spent = {"entities_under": 0.0}
    original_complete, original_under = index_typed.is_complete, health_index.entities_under

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return original_under(*args, **kwargs)
        finally:
            spent["entities_under"] += time.perf_counter() - start

    with open_local_store(copy) as local:
        before = local.index.roots()
    try:
        if scan:
            index_typed.is_complete = lambda db: False
        health_index.entities_under = timed
        start = time.perf_counter()
        if main(["ingest", *map(str, files), "--store", str(copy), "--quiet"]) != 0:
            raise SystemExit("the ingest failed")
        spent["ingest"] = time.perf_counter() - start
        with open_local_store(copy) as local:
            new = sorted(local.index.roots() - before)
            start = time.perf_counter()
            found = checks.entities_under(local.writer_source(), new, from_index=not scan)
            spent["lookup again"] = time.perf_counter() - start
            spent["sessions"], spent["entities"] = len(new), sum(map(len, found.values()))
    finally:
        index_typed.is_complete, health_index.entities_under = original_complete, original_under
        shutil.rmtree(copy, ignore_errors=True)
    return spent


def run(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--sessions", type=int, default=6)
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="small-ingest-", dir=args.work or args.store.parent) as folder:
        files = _small_file(Path(folder) / "file", args.sessions)
        with open_local_store(args.store) as local:
            print(f"store {args.store}: {len(local.index.roots()):,} sessions, "
                  f"typed IRIs kept: {local.index.typed_complete()}")
        for scan in (True, False):
            spent = _run(args.store, Path(folder), files, scan)
            print(f"{'scan (before)' if scan else 'index table':>14}: ingest of {spent['sessions']} sessions "
                  f"{spent['ingest']:.2f} s, entities_under in it {spent['entities_under'] * 1000:.1f} ms, "
                  f"again on the new roots {spent['lookup again'] * 1000:.1f} ms ({spent['entities']} entities)")


if __name__ == "__main__":
    run()
