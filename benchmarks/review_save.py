"""Saving and reading reviews in one process, without a browser: ``ReviewStore.add`` (a new
review saved, as the review dialog's Save does), ``reviews_of`` (a session's reviews read, with
the saves not yet folded into the annotation store) and the fold itself.

    python benchmarks/review_save.py [--saves 50] [--folder DIR]

A fresh store in a temporary folder (``--folder``: in that one, e.g. on tmpfs). Prints the median,
90th percentile and slowest of each, with the machine's load average; never asserts.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from trace_explorer.reviews import ReviewStore  # noqa: E402

SESSION = "urn:trustgraph:question:9a1c0a8e-0000-4000-8000-000000000001"


def timed(work) -> float:
    start = time.perf_counter()
    work()
    return (time.perf_counter() - start) * 1000


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[max(0, round(0.9 * len(ordered)) - 1)]
    return f"median {statistics.median(ordered):7.2f} ms · p90 {p90:7.2f} ms · slowest {ordered[-1]:7.2f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--saves", type=int, default=50, help="reviews saved one after another (default 50)")
    parser.add_argument("--folder", type=Path, help="make the review store in this folder")
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        folder = args.folder or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="reviews-save-")))
        store = ReviewStore(folder / "reviews")
        store.add(SESSION, "correct", "bench")  # the first save makes the store
        adds = [timed(lambda n=n: store.add(SESSION, "correct", "bench", comment=f"review {n}"))
                for n in range(args.saves)]
        reads = [timed(lambda: store.reviews_of(session=SESSION)) for _ in range(10)]
        fold = [timed(store.fold)]
        folded = [timed(lambda: store.reviews_of(session=SESSION)) for _ in range(10)]
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}, {args.saves} saves")
    for name, took in (("ReviewStore.add", adds), (f"reviews_of, {args.saves + 1} reviews, saves pending", reads),
                       ("folding the pending saves", fold), (f"reviews_of, {args.saves + 1} reviews, folded", folded)):
        print(f"  {name + ':':46} {summary(took)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
