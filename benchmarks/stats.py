"""Speed of collection insights and trace health on a synthetic local store, against the targets.

    python benchmarks/stats.py [--sessions 10000] [--keep DIR] [--store DIR] [--repeat 5]
                               [--health-sample 400]

Builds a store of ``--sessions`` sessions (``benchmarks/synthetic.py``, the corpus's mix, ingested
with ``local_store.ingest_file``; ``--store DIR`` reuses one built before), reopens it read-only
in a fresh process, as the CLI does, and times:

- ``analysis.stats.collection_stats``: every session, top-level sessions, GraphRAG only, the
  sessions that called one tool (target: 200 ms at 10,000 sessions);
- the health check: the one scan of the store's typed IRIs a lint or index refresh makes, then
  ``analysis.health.check_sessions`` on ``--health-sample`` sessions in batches of 200 (ms a
  session: what ``trace-explorer lint`` and the index's health column cost), in wall and CPU time.

Each call runs once cold ("first") and ``--repeat`` more times (median). Numbers are printed,
never asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
for path in (str(REPO), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

TARGET_STATS_MS = 200.0


def build(store_dir: Path, data_dir: Path, sessions: int) -> dict:
    """Generate ``sessions`` sessions and ingest them (without the health check) into ``store_dir``."""
    from synthetic import generate

    from trace_explorer.store.ingest import ingest_file
    from trace_explorer.store.local_store import open_local_store

    made = generate(data_dir, sessions)
    store = open_local_store(store_dir)
    start = time.perf_counter()
    ingest_file(store, str(made.nquads))
    ingest_file(store, str(made.documents))
    return {"ingest_s": time.perf_counter() - start, "quads": len(store), "sessions": made.info["sessions"]}


def measure(store_dir: Path, repeat: int, sample: int) -> dict:
    """Time the measurements on the store reopened read-only (run in a process of its own)."""
    from trace_explorer.analysis.health.checks import check_sessions, entities_under
    from trace_explorer.analysis.stats import collection_stats
    from trace_explorer.sources.filter import SessionFilter
    from trace_explorer.store.local_store import local_source

    source = local_source(store_dir)
    rows = []
    cases = [("every session (--all)", SessionFilter(include_sub=True)), ("top-level sessions", SessionFilter()),
             ("GraphRAG only", SessionFilter(mechanism="GraphRAG")), ("sessions that called web-search",
                                                                      SessionFilter(tool="web-search"))]
    for label, filters in cases:
        times, numbers = [], None
        for _ in range(repeat + 1):
            start = time.perf_counter()
            numbers = collection_stats(source, filters)
            times.append((time.perf_counter() - start) * 1000)
        calls = sum(t["calls"] for t in numbers["tools"].values())
        rows.append({"label": f"stats: {label}", "first": times[0], "median": statistics.median(times[1:]),
                     "note": f"{numbers['sessions']:,} sessions, {calls:,} tool calls, "
                             f"{sum(t['calls'] for t in numbers['tokens'].values()):,} LLM calls"})
    every = sorted(source.index.roots())
    start, cpu = time.perf_counter(), time.process_time()
    extending = entities_under(source, every, scan=True)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    rows.append({"label": "health: scan for steps under each root", "first": seconds * 1000, "median": None,
                 "note": f"once per lint or index refresh; CPU {cpu:.2f} s; {sum(map(len, extending.values())):,} "
                         f"entities under {len(extending):,} roots"})
    roots = every[:sample]
    start, cpu = time.perf_counter(), time.process_time()
    found = []
    for first in range(0, len(roots), 200):
        found += check_sessions(source, roots[first:first + 200], extending)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    count = max(1, len(roots))
    rows.append({"label": f"health: check {len(roots):,} sessions", "first": seconds * 1000, "median": None,
                 "note": f"{seconds * 1000 / count:.1f} ms a session (CPU {cpu * 1000 / count:.1f} ms; batches "
                         f"of 200); {len(found):,} findings"})
    return {"rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--keep", metavar="DIR", help="keep the generated files and store in DIR")
    parser.add_argument("--store", metavar="DIR", help="measure this store, built before with --keep")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--health-sample", type=int, default=400)
    parser.add_argument("--_measure", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args._measure:
        print(json.dumps(measure(Path(args._measure), args.repeat, args.health_sample)))
        return 0
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="trace-explorer-stats-"))
    store_dir = Path(args.store) if args.store else work / "store"
    if not args.store:
        print(f"generating and ingesting {args.sessions:,} sessions in {work} ...", file=sys.stderr, flush=True)
        made = build(store_dir, work / "data", args.sessions)
        print(f"ingested {made['sessions']:,} sessions ({made['quads']:,} quads) in {made['ingest_s']:.1f} s",
              file=sys.stderr)
    child = subprocess.run([sys.executable, __file__, "--_measure", str(store_dir), "--repeat", str(args.repeat),
                            "--health-sample", str(args.health_sample)], capture_output=True, text=True, check=True)
    rows = json.loads(child.stdout)["rows"]
    print(f"{'measurement':<44}{'first':>11}{'median':>11}{'target':>11}  verdict  note")
    for row in rows:
        target = TARGET_STATS_MS if row["label"].startswith("stats") else None
        median = row["median"]
        verdict = "" if target is None else ("PASS" if median <= target else "MISS") + f" ({median / target:.2f}x)"
        print(f"{row['label']:<44}{row['first']:>9.1f}ms{(f'{median:.1f}ms' if median is not None else ''):>11}"
              f"{(f'{target:.0f}ms' if target else ''):>11}  {verdict:<7}  {row['note']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
