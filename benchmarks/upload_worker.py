"""What parsing an upload in a worker process costs, against parsing it in the app's process.

    python benchmarks/upload_worker.py [--repeat 20]

For each small demo file (as an upload: its bytes) prints the median milliseconds of
``read_trace_file`` in this process and of ``read_in_worker`` (a warm worker of the pool: the
bytes sent, parsed under the limits, the quads sent back as N-Quads and read again here), their
ratio, and what the worker adds. Also: the first call's cost (the fork server and a worker
started), a worker replaced after one is killed, and the two ways of sending quads back
(N-Quads bytes read by pyoxigraph, or pickled Quad objects) on the largest file, and what the
pre-scan (``read.prescan``) costs on about 40 MB of TriG and N-Quads. Nothing is asserted:
numbers only.
"""

from __future__ import annotations

import argparse
import io
import pickle
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

FILES = ("seed-sessions.ttl", "wire-triples.json", "collection.trig", "orchestrated.nq")


def median_ms(function, repeat: int) -> float:
    """The median wall-clock milliseconds of ``function()`` over ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20, help="calls per measurement (median reported)")
    args = parser.parse_args()

    import pyoxigraph as ox

    from trace_explorer.read.files import read_trace_file
    from trace_explorer.read.formats import RDF_SUFFIXES
    from trace_explorer.read.limits import NO_LIMIT
    from trace_explorer.read.prescan import check_before_parsing
    from trace_explorer.read.worker import WorkerLimits, read_in_worker
    from trace_explorer.read.errors import TraceLoadError
    from trace_explorer.sources.demo import DEMO_DIR

    data = {name: (DEMO_DIR / name).read_bytes() for name in FILES}
    start = time.perf_counter()
    read_in_worker(FILES[0], data[FILES[0]])
    print(f"first upload (fork server and worker started): {(time.perf_counter() - start) * 1000:,.0f} ms")
    print(f"{'file':<22}{'bytes':>9}{'quads':>7}{'in-process ms':>15}{'worker ms':>11}{'ratio':>7}{'added ms':>10}")
    for name, content in data.items():
        quads = len(read_trace_file(name, content).quads)
        here = median_ms(lambda: read_trace_file(name, content), args.repeat)
        there = median_ms(lambda: read_in_worker(name, content), args.repeat)
        print(f"{name:<22}{len(content):>9,}{quads:>7,}{here:>15.1f}{there:>11.1f}{there / here:>7.2f}"
              f"{there - here:>10.1f}")

    try:  # a worker killed (CPU limit), then the next upload served by its replacement
        read_in_worker("slow.jsonld", b'{"@graph": [' + b"[]," * 5_000_000 + b"[]]}",
                       limits=WorkerLimits(memory=1 << 30, cpu=1, wall=60))
    except TraceLoadError as error:
        print(f"a worker stopped: {str(error)[-90:]}")
    start = time.perf_counter()
    read_in_worker(FILES[0], data[FILES[0]])
    print(f"next upload, on a fresh worker: {(time.perf_counter() - start) * 1000:,.0f} ms")

    largest = max(FILES, key=lambda n: len(data[n]))
    quads = read_trace_file(largest, data[largest]).quads
    nquads = ox.serialize(quads, format=ox.RdfFormat.N_QUADS)
    pickled = pickle.dumps(quads)
    as_nquads = median_ms(lambda: list(ox.parse(ox.serialize(quads, format=ox.RdfFormat.N_QUADS),
                                                  format=ox.RdfFormat.N_QUADS)), args.repeat)
    as_pickle = median_ms(lambda: pickle.loads(pickle.dumps(quads)), args.repeat)
    print(f"quads sent back ({largest}, {len(quads):,} quads): N-Quads {len(nquads):,} bytes, written and read "
          f"in {as_nquads:.1f} ms; pickle {len(pickled):,} bytes, {as_pickle:.1f} ms")

    for name in ("collection.trig", "orchestrated.nq"):  # the pre-scan against the whole read, on ~40 MB
        big = data[name] * (40_000_000 // len(data[name]))
        start = time.perf_counter()
        check_before_parsing(name, lambda: io.BytesIO(big), RDF_SUFFIXES[Path(name).suffix])
        scan = time.perf_counter() - start
        start = time.perf_counter()
        read_trace_file(name, big, max_bytes=NO_LIMIT, file_limit=NO_LIMIT)
        whole = time.perf_counter() - start
        print(f"pre-scan of {name} x{len(big) // len(data[name])} ({len(big) / 1e6:.0f} MB): {scan:.2f} s, "
              f"{len(big) / 1e6 / scan:.0f} MB/s; {scan / whole:.0%} of the whole read ({whole:.2f} s, pre-scan included)")


if __name__ == "__main__":  # the worker's fork server imports this file again: run only as a script
    main()
