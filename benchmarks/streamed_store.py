"""How the parse-and-store phase of a streamed ingest divides between this project's Python and
the store's own loading (issue #22), on one N-Quads file:

    python benchmarks/streamed_store.py FILE.nq [--parts phase,python,loads,whole] [--group 1] [--rounds 3]

Each part runs in a fresh process, into a new store in a temporary folder, and prints its wall
and CPU seconds (every thread of the process: the store's loader and compaction threads
included) and the process's peak RSS; ``--rounds`` runs the parts in turn that many times
and ends with each part's least and median CPU seconds:

- ``phase``: the loop of ``local_store._ingest_streamed`` as it is: each batch parsed
  (``rdf_stream``), written as ``TriplesText``, noted for the index
  (``StreamedIndexUpdate.note``), kept (``WrittenTriples.add``), its text loaded by
  ``Store.bulk_load`` in a thread while the next is parsed; with the CPU seconds of each step;
- ``python``: the same loop with the store's load left out;
- ``loads``: the ``bulk_load`` calls alone, over the same batches' text (cut as ``rdf_stream``
  cuts it, not parsed);
- ``whole``: one ``Store.bulk_load`` of the whole file (the floor the issue compares with).

``--group N`` gives the store ``N`` batches' text a call (in ``phase`` and ``loads``), to see
what fewer, larger loads save against the memory they hold. Numbers are printed, never
asserted; the machine's load average is printed first and last (compare CPU seconds on a
shared machine).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

import pyoxigraph as ox  # noqa: E402

from trace_explorer.read import rdf_stream  # noqa: E402
from trace_explorer.read.collector import collector_paused  # noqa: E402
from trace_explorer.read.files import stream_trace_file  # noqa: E402
from trace_explorer.read.limits import NO_LIMIT  # noqa: E402
from trace_explorer.read.streams import TextStream  # noqa: E402
from trace_explorer.index.session_index import SessionIndex
from trace_explorer.index.updates import StreamedIndexUpdate  # noqa: E402
from trace_explorer.sources.triples_text import TriplesText  # noqa: E402
from trace_explorer.store.written_triples import WrittenTriples  # noqa: E402

PARTS = ("phase", "python", "loads", "whole")
STEPS = ("parse", "text", "note", "written", "wait")


class _Steps:
    """Wall and CPU seconds (of the whole process) added up by step."""

    def __init__(self):
        self.seconds = {step: [0.0, 0.0] for step in STEPS}
        self._at = (time.perf_counter(), time.process_time())

    def lap(self, step: str) -> None:
        now = (time.perf_counter(), time.process_time())
        self.seconds[step][0] += now[0] - self._at[0]
        self.seconds[step][1] += now[1] - self._at[1]
        self._at = now


def _loop(path: str, store: ox.Store | None, folder: str, group: int) -> dict:
    """The streamed loop, the store's load in a thread (``store`` None: no load)."""
    streamed = stream_trace_file(path, max_bytes=NO_LIMIT)
    index = SessionIndex(Path(folder) / "index.sqlite")
    written = WrittenTriples(folder=folder)
    update = StreamedIndexUpdate(store, index, fresh=True)
    loader = ThreadPoolExecutor(1)
    loading: Future | None = None
    texts: list[bytes] = []
    steps = _Steps()
    batches = streamed.batches()
    while (batch := next(batches, None)) is not None:
        steps.lap("parse")
        with collector_paused():
            text = TriplesText(batch.quads)
            steps.lap("text")
            update.note(batch.quads, text)
            steps.lap("note")
            if loading is not None:
                loading.result()
            loading = None
            steps.lap("wait")
            if store is not None:
                texts.append(batch.text)
            if len(texts) >= group:
                loading = loader.submit(store.bulk_load, b"".join(texts), format=streamed.fmt)
                texts = []
            written.add(batch.quads, text)
            steps.lap("written")
        del batch, text
    if loading is not None:
        loading.result()
    if store is not None and texts:
        store.bulk_load(b"".join(texts), format=streamed.fmt)
    steps.lap("wait")
    loader.shutdown()
    written.let_go()
    return {f"{step} wall/cpu": [round(s, 2) for s in seconds] for step, seconds in steps.seconds.items()}


def _loads(path: str, store: ox.Store, group: int) -> dict:
    """The store's loads alone, over the batches' text as ``rdf_stream`` cuts it."""
    streamed = stream_trace_file(path, max_bytes=NO_LIMIT)
    calls = 0
    with TextStream(streamed.open_bytes, None, None, hashed=False) as stream:
        raw = stream.buffered()
        ended = False
        while not ended:
            texts = []
            while len(texts) < group:
                text, _ = rdf_stream._lines(raw, stream)
                if not text:
                    ended = True
                    break
                texts.append(text)
            if texts:
                store.bulk_load(b"".join(texts), format=streamed.fmt)
                calls += 1
    return {"calls": calls}


def run_part(part: str, path: str, group: int) -> dict:
    """Run one part in this process; its seconds, peak RSS and the quads stored."""
    with tempfile.TemporaryDirectory(prefix="streamed-store-") as folder:
        wall, cpu = time.perf_counter(), time.process_time()
        store = None if part == "python" else ox.Store(str(Path(folder) / "store"))
        if part == "whole":
            store.bulk_load(path=path, format=ox.RdfFormat.N_QUADS)
            found = {}
        elif part == "loads":
            found = _loads(path, store, group)
        else:
            found = _loop(path, store, folder, group)
        if store is not None:
            store.flush()
        found.update(part=part, wall=round(time.perf_counter() - wall, 2), cpu=round(time.process_time() - cpu, 2),
                     quads=len(store) if store is not None else 0,
                     peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
        del store
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="an N-Quads file (large enough to be streamed)")
    parser.add_argument("--parts", default=",".join(PARTS), help=f"which, comma-separated (default {','.join(PARTS)})")
    parser.add_argument("--group", type=int, default=1, help="batches' text a load call (default 1, as ingest does)")
    parser.add_argument("--rounds", type=int, default=1, help="times each part runs, in turn (default 1)")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # run this part here (the child process)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_part(args.one, args.file, args.group)))
        return 0
    print(f"load average: {os.getloadavg()}")
    cpu: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for part in args.parts.split(","):
            done = subprocess.run([sys.executable, __file__, args.file, "--group", str(args.group), "--one", part],
                                  capture_output=True, text=True, check=True)
            print(done.stdout.strip(), flush=True)
            cpu.setdefault(part, []).append(json.loads(done.stdout)["cpu"])
    print(f"load average: {os.getloadavg()}")
    for part, seconds in cpu.items():
        print(f"{part}: CPU s least {min(seconds):.2f}, median {statistics.median(seconds):.2f} of {len(seconds)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
