"""Filtering the session list by review against filtering it by type, at 100,000 sessions
(issue 42: "as fast as filtering by type").

    python benchmarks/review_filter.py [--sessions 100000] [--reviewed 0.1] [--repeat 20]

A session index file is filled with copies of the demo corpus's rows (``index_row``, each with a
fresh session IRI and time, through the index's own writer), and a review store's filter rows
with reviews of a share of them (``--reviewed``; labels and reviewers round-robin), as
``ReviewStore`` writes them. Then the list's first page (50 rows, newest first) and its count
are taken under a type filter ("DocRAG"), a rare one (agents of the supervisor pattern: as few
sessions as a label has) and under the review filters (a label, a reviewer, a
label by a reviewer, "not reviewed"), each the median of ``--repeat`` runs after one to warm
up: the page, the count worked out afresh and the count asked again (the list asks it at every
page; the type filter's is always kept), and the ratios to the type filter. Numbers only,
nothing asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import REPO  # noqa: E402 - beside this file; it puts the repository on the path too

from trace_explorer.model.reader import read_sessions  # noqa: E402
from trace_explorer.read.collection import load_collection  # noqa: E402
from trace_explorer.reviews import DEFAULT_LABELS, Review  # noqa: E402
from trace_explorer.reviews import filter_rows  # noqa: E402
from trace_explorer.sources.filter import SessionFilter  # noqa: E402
from trace_explorer.sources.filter import ReviewFilter  # noqa: E402
from trace_explorer.index.schema import INDEX_FILE, index_row  # noqa: E402
from trace_explorer.index.session_index import SessionIndex  # noqa: E402

REVIEWERS = ("alice", "bob", "carol", "dan")
BATCH = 5_000


def fill_index(path: Path, sessions: int) -> list[str]:
    """Write ``sessions`` rows copied from the demo corpus's top-level sessions into a session
    index at ``path``; returns the new sessions' IRIs, newest first."""
    collection, _ = load_collection([REPO / "trace_explorer" / "demo_data"])
    rows = [index_row(s) for s in read_sessions(collection) if s.parent is None]
    index = SessionIndex(path)
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    roots: list[str] = []
    batch: list[dict] = []
    for n in range(sessions):
        row = dict(rows[n % len(rows)])
        prefix = row["root"].rsplit(":", 1)[0]
        row["root"] = f"{prefix}:{uuid.UUID(int=n + 1)}"
        row["time"] = (start + timedelta(minutes=n)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        row["parent"] = None
        roots.append(row["root"])
        batch.append(row)
        if len(batch) == BATCH:
            index.replace_batches([], [batch])
            batch = []
    if batch:
        index.replace_batches([], [batch])
    index.close()
    return roots[::-1]


def fill_reviews(folder: Path, roots: list[str], share: float) -> int:
    """Filter rows for reviews of every ``1/share``-th session, as the review store writes
    them; returns how many."""
    step = max(1, round(1 / share))
    moment = datetime(2026, 6, 1, tzinfo=timezone.utc)
    reviews = [Review(id=f"urn:uuid:{uuid.UUID(int=n + 1)}", target=root, label=DEFAULT_LABELS[n % len(DEFAULT_LABELS)],
                      author=REVIEWERS[n % len(REVIEWERS)], created=moment, modified=moment, session=root)
               for n, root in enumerate(roots[::step])]
    folder.mkdir(parents=True, exist_ok=True)
    filter_rows.catch_up(folder, 1, lambda: reviews)
    return len(reviews)


def timed(index: SessionIndex, filters: SessionFilter, repeat: int) -> tuple[float, float, float, int]:
    """Median milliseconds of the first page under ``filters``, of its count worked out afresh
    (the kept counts forgotten first) and of its count asked again (kept until the index or the
    review rows change, as the list asks it at every page), and the count."""
    index.page(filters, 50, 0)
    pages, fresh, again = [], [], []
    for _ in range(repeat):
        t = time.perf_counter()
        index.page(filters, 50, 0)
        pages.append((time.perf_counter() - t) * 1000)
        index._counted.clear()
        t = time.perf_counter()
        n = index.count(filters)
        fresh.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        index.count(filters)
        again.append((time.perf_counter() - t) * 1000)
    return statistics.median(pages), statistics.median(fresh), statistics.median(again), n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--reviewed", type=float, default=0.1, help="share of the sessions reviewed (default 0.1)")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        t = time.perf_counter()
        roots = fill_index(work / INDEX_FILE, args.sessions)
        reviewed = fill_reviews(work / "reviews", roots, args.reviewed)
        print(f"{args.sessions:,} sessions, {reviewed:,} reviewed; made in {time.perf_counter() - t:.1f} s")
        rows = filter_rows.rows_path(work / "reviews")
        index = SessionIndex(work / INDEX_FILE, read_only=True)
        cases = [("type DocRAG", SessionFilter(mechanism="DocRAG")),
                 ("rare pattern", SessionFilter(mechanism="Agent", pattern="supervisor")),
                 ("label incorrect", SessionFilter(reviews=ReviewFilter(rows, label="incorrect"))),
                 ("reviewer bob", SessionFilter(reviews=ReviewFilter(rows, author="bob"))),
                 ("label + reviewer", SessionFilter(reviews=ReviewFilter(rows, label="unsupported", author="carol"))),
                 ("not reviewed", SessionFilter(reviews=ReviewFilter(rows, not_reviewed=True))),
                 ("type + label", SessionFilter(mechanism="DocRAG", reviews=ReviewFilter(rows, label="harmful")))]
        base = None
        print(f"{'filter':<18} {'page ms':>8} {'count ms':>9} {'again ms':>9} {'sessions':>9} {'page x':>7} {'again x':>8}")
        for name, filters in cases:
            page, fresh, again, n = timed(index, filters, args.repeat)
            base = base or (page, again)
            print(f"{name:<18} {page:8.2f} {fresh:9.2f} {again:9.3f} {n:9,} {page / base[0]:7.2f} {again / base[1]:8.2f}")
        index.close()


if __name__ == "__main__":
    main()
