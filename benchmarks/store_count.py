"""What ``trace-explorer ingest`` pays for the totals of its last line: it counts the store's quads
(``len``, every key of one of its indexes) and its texts (a SPARQL COUNT over the documents
graph) before and after the files, to give what the store gained.

    python benchmarks/store_count.py --store DIR [--repeat 5]

``DIR`` is a local store filled by ``trace-explorer ingest`` (for example of a collection that
``benchmarks/synthetic.py`` made). Prints the first count (the store just opened) and the median
of the others, in seconds, wall and CPU; numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from trace_explorer.store.local_store import open_local_store  # noqa: E402


def timed(count) -> tuple[int, float, float]:
    """``count()``'s value, with its wall and CPU seconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = count()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", required=True, metavar="DIR", help="a local store")
    parser.add_argument("--repeat", type=int, default=5, help="counts after the first (default 5)")
    args = parser.parse_args(argv)
    with open_local_store(args.store) as local:
        for label, count in (("quads (len)", lambda: len(local)), ("texts (SPARQL COUNT)", local.texts)):
            runs = [timed(count) for _ in range(args.repeat + 1)]
            value, first_wall, first_cpu = runs[0]
            wall = statistics.median(run[1] for run in runs[1:])
            cpu = statistics.median(run[2] for run in runs[1:])
            print(f"{label}: {value:,}; first {first_wall:.3f} s (CPU {first_cpu:.3f} s), "
                  f"then median {wall:.3f} s (CPU {cpu:.3f} s) of {args.repeat}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
