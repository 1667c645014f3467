"""Speed and memory of Trace Explorer on a synthetic collection, against the targets.

    python benchmarks/run.py [--sessions N] [--quick] [--keep DIR] [--seed S] [--repeat K]
                             [--long-steps 2000,200] [--budget SECONDS] [--profile DIR]

Builds its own collection (``benchmarks/synthetic.py``: 10,000 sessions by default, ``--quick``
500, the corpus's mix, plus a 2,000- and a 200-iteration ReAct run) and prints, in one run on
this machine, one table row per measurement with its target and verdict:

- ingest of the N-Quads file into a fresh local store (``local_store.ingest_file``): seconds,
  quads/s, and the ratio to pyoxigraph's bare ``Store.bulk_load`` of the same file (the floor)
  and to rdflib ``Dataset.parse`` of the same data without its quoted-triple quads (rdflib cannot
  read them); both baselines run in their own process, so their memory is not counted here;
- the session list (``catalog.list_sessions``): first page, ``mechanism="GraphRAG"``,
  ``text="bronze"`` (a question word), ``text="upstream timed out"`` (words of observations and
  errors: the search reaches every text of a session); the same four again with the session
  index copied ten times over (86,000 sessions with their texts at the default size: a search
  there is to take at most 50 ms);
- opening the 12-step and the 2,000-step session: ``catalog.fetch_session`` (model and graph)
  plus ``timeline.timeline_rows`` (timeline data);
- ``views.dag.network.dag_html`` of the 200-step session;
- peak RSS: the highest of the ingesting process and of each measurement's process.

Each list/open/DAG measurement runs in its own process on the store reopened from disk, as the
app after a restart, and is stopped after ``--timeout`` seconds (reported as "stopped"), so a
pathological query cannot hang the run. The collection is generated in a child process too.

Timed calls run once cold ("first") and then ``--repeat`` more times; the verdict uses the
median. A first call slower than ``--budget`` seconds is not repeated (its one time is reported). Numbers are printed, never asserted: speed targets live here, not in unit tests.
``--keep DIR`` leaves the generated files and stores in DIR; ``--profile DIR`` writes a cProfile
file per measurement (an extra, untimed run).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
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

from measuring import MB, Row, machine_info, ms_row, peak_rss_mb, verdict  # noqa: E402 - beside this file
from run_phases import SCALE_ROWS, phase_bulk_load, phase_generate, phase_measure, phase_rdflib, profile_call  # noqa: E402 - beside this file

QUICK_SESSIONS = 500
# Row labels, in print order (tests/test_benchmark_quick.py checks every one is printed).
INGEST = "ingest into local store (ingest_file)"
VS_BULK = "  ratio to pyoxigraph bulk_load (floor)"
VS_BULK_CPU = "  same, in CPU time"
VS_BULK_TRACES = "  same, without the session index"
VS_RDFLIB = "  speed-up over rdflib Dataset.parse"
INGEST_DOCS = "ingest content file (.documents.json)"
LIST_FIRST = "session list: first page (50)"
LIST_MECHANISM = "session list: mechanism = GraphRAG"
LIST_TEXT = 'session list: text "bronze"'
LIST_WORDS = 'session list: text "upstream timed out" (observations, errors)'
LIST_SCALED = "  same four, index rows x{n}: {what}"
TARGET_SEARCH_SCALED_MS = 50  # a search of every session's texts at SCALE_ROWS times the sessions
OPEN_12 = "open 12-step session"
PEAK_RSS = "peak RSS"
LONG_STEPS = (2000, 200)  # the long ReAct runs: one opened, one drawn as a DAG


def open_long_label(steps: int) -> str:
    return f"open {steps:,}-step session"


def dag_label(steps: int) -> str:
    return f"DAG HTML, {steps:,}-step session"


def labels(long_steps: tuple[int, int] = LONG_STEPS) -> tuple[str, ...]:
    """Every row label the report prints, in order."""
    return (INGEST, VS_BULK, VS_BULK_CPU, VS_BULK_TRACES, VS_RDFLIB, INGEST_DOCS, LIST_FIRST, LIST_MECHANISM, LIST_TEXT,
            LIST_WORDS, *(LIST_SCALED.format(n=SCALE_ROWS, what=w)
                          for w in ("first page", "GraphRAG", "bronze", "upstream timed out")), OPEN_12, open_long_label(long_steps[0]), dag_label(long_steps[1]), PEAK_RSS)


TARGET_BULK_RATIO = 1.5
TARGET_RDFLIB_SPEEDUP = 10.0
TARGET_LIST_MS = 100.0
TARGET_OPEN_12_MS = 50.0
TARGET_DAG_MS = 500.0
TARGET_RSS_MB = 1.5 * 1024


def run_child(args: list[str], timeout_s: float | None = None) -> dict:
    """Run a phase of this script in a fresh Python process; returns the JSON it prints last.
    Raises subprocess.TimeoutExpired (the child killed) after ``timeout_s``."""
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), *args], capture_output=True,
                          text=True, check=False, timeout=timeout_s)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:2])} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def benchmark(sessions: int, work: Path, *, seed: int, repeat: int, profile: Path | None,
              long_steps: tuple[int, int] = LONG_STEPS, budget_s: float = 20.0,
              timeout_s: float = 300.0) -> tuple[list[Row], dict]:
    from trace_explorer.index.catalog import SessionFilter, count_sessions
    from trace_explorer.store.ingest import ingest_file
    from trace_explorer.store.local_store import local_source, open_local_store

    rows: list[Row] = []
    data = work / "data"
    print(f"generating {sessions:,} sessions in {data} ...", file=sys.stderr, flush=True)
    made = run_child(["--_phase", "generate", "--_out", str(data), "--sessions", str(sessions), "--seed", str(seed),
                      "--long-steps", ",".join(map(str, long_steps))])
    nq, documents = Path(made["nquads_path"]), Path(made["documents_path"])
    notable = made["notable"]

    print("pyoxigraph bulk_load ...", file=sys.stderr, flush=True)
    bulk = run_child(["--_phase", "bulk_load", "--_nq", str(nq), "--_out", str(work / "bulk-store")])
    shutil.rmtree(work / "bulk-store", ignore_errors=True)

    print("ingest_file ...", file=sys.stderr, flush=True)
    store_dir = work / "store"
    store = open_local_store(store_dir)
    phases: dict[str, float] = {}
    start, cpu = time.perf_counter(), time.process_time()
    ingest_file(store, str(nq), timings=phases)
    ingest_s, ingest_cpu = time.perf_counter() - start, time.process_time() - cpu
    start = time.perf_counter()
    ingest_file(store, str(documents))
    docs_s = time.perf_counter() - start
    quads_nq = bulk["quads"]
    quads_total = len(store)
    rss_ingest = peak_rss_mb()
    if profile is not None:
        with open_local_store(work / "profile-store") as profile_store:
            profile_call(profile, "ingest", lambda: ingest_file(profile_store, str(nq)))
        shutil.rmtree(work / "profile-store", ignore_errors=True)
    store.close()  # every measurement below reads its snapshot in a process of its own
    del store
    gc.collect()

    print("rdflib Dataset.parse ...", file=sys.stderr, flush=True)
    rdf = run_child(["--_phase", "rdflib", "--_nq", str(nq), "--_out", str(work)])

    rows.append(Row(INGEST, f"{ingest_s:,.2f} s", "", "",
                    f"{quads_nq / ingest_s:,.0f} quads/s; {quads_nq:,} quads, {nq.stat().st_size / MB:,.0f} MiB N-Quads; "
                    f"read {phases['read']:,.2f} s, write {phases['write']:,.2f} s, session index {phases['index']:,.2f} s"))
    ratio = ingest_s / bulk["seconds"]
    rows.append(Row(VS_BULK, f"{ratio:.2f}x", f"<= {TARGET_BULK_RATIO}x", verdict(ratio, TARGET_BULK_RATIO),
                    f"bulk_load {bulk['seconds']:,.2f} s, {quads_nq / bulk['seconds']:,.0f} quads/s, "
                    f"child peak RSS {bulk['rss_mb']:,.0f} MiB"))
    cpu_ratio = ingest_cpu / bulk["cpu"]
    rows.append(Row(VS_BULK_CPU, f"{cpu_ratio:.2f}x", f"<= {TARGET_BULK_RATIO}x", verdict(cpu_ratio, TARGET_BULK_RATIO),
                    f"CPU seconds of every thread, less swayed by other work on the machine: ingest "
                    f"{ingest_cpu:,.2f} s (read {phases['read cpu']:,.2f} s, write {phases['write cpu']:,.2f} s, "
                    f"session index {phases['index cpu']:,.2f} s), bulk_load {bulk['cpu']:,.2f} s"))
    traces_s = phases["read"] + phases["write"]
    rows.append(Row(VS_BULK_TRACES, f"{traces_s / bulk['seconds']:.2f}x", f"<= {TARGET_BULK_RATIO}x",
                    verdict(traces_s / bulk["seconds"], TARGET_BULK_RATIO),
                    f"reading and writing the quads only: {traces_s:,.2f} s"))
    speedup = rdf["seconds"] / ingest_s
    rows.append(Row(VS_RDFLIB, f"{speedup:.1f}x", f">= {TARGET_RDFLIB_SPEEDUP:.0f}x",
                    verdict(speedup, TARGET_RDFLIB_SPEEDUP, higher_is_better=True),
                    f"rdflib {rdf['seconds']:,.2f} s for {rdf['quads']:,} quads ({rdf['removed']:,} quoted-triple "
                    f"quads removed), {rdf['quads'] / rdf['seconds']:,.0f} quads/s, child peak RSS {rdf['rss_mb']:,.0f} MiB"))
    rows.append(Row(INGEST_DOCS, f"{docs_s:,.2f} s", "", "",
                    f"{made['documents']:,} texts; store now {quads_total:,} quads"))

    long_open, long_dag = long_steps
    measurements = [
        (LIST_FIRST, "list_first", None, TARGET_LIST_MS, repeat),
        (LIST_MECHANISM, "list_graphrag", None, TARGET_LIST_MS, repeat),
        (LIST_TEXT, "list_bronze", None, TARGET_LIST_MS, repeat),
        (LIST_WORDS, "list_words", None, TARGET_LIST_MS, repeat),
        (LIST_SCALED.format(n=SCALE_ROWS, what="first page"), "scaled_first", None, None, repeat),
        (LIST_SCALED.format(n=SCALE_ROWS, what="GraphRAG"), "scaled_graphrag", None, None, repeat),
        (LIST_SCALED.format(n=SCALE_ROWS, what="bronze"), "scaled_bronze", None, TARGET_SEARCH_SCALED_MS, repeat),
        (LIST_SCALED.format(n=SCALE_ROWS, what="upstream timed out"), "scaled_words", None, TARGET_SEARCH_SCALED_MS,
         repeat),
        (OPEN_12, "open", notable["react_12"], TARGET_OPEN_12_MS, repeat),
        (open_long_label(long_open), "open", notable[f"react_{long_open}"], None, max(1, repeat // 2)),
        (dag_label(long_dag), "dag", notable[f"react_{long_dag}"], TARGET_DAG_MS, max(1, repeat // 2)),
    ]
    peaks = {"ingest": rss_ingest}
    for label, what, iri, target, runs in measurements:
        print(f"{label} ...", file=sys.stderr, flush=True)
        args = ["--_phase", "measure", "--_out", str(store_dir), "--_what", what, "--repeat", str(runs),
                "--budget", str(budget_s)] + (["--_iri", iri] if iri else []) + (["--profile", str(profile)] if profile else [])
        try:
            result = run_child(args, timeout_s)
        except subprocess.TimeoutExpired:
            rows.append(Row(label, f"> {timeout_s:,.0f} s", f"< {target:,.0f} ms" if target else "",
                            "MISS (stopped)" if target else "stopped",
                            f"one call did not finish in {timeout_s:,.0f} s (--timeout); not measured further"))
            continue
        peaks[label] = result["rss_mb"]
        rows.append(ms_row(label, result["first"], result["median"], target, result["note"], budget_s))

    peak_label, peak = max(peaks.items(), key=lambda item: item[1])
    rows.append(Row(PEAK_RSS, f"{peak:,.0f} MiB", f"< {TARGET_RSS_MB:,.0f} MiB", verdict(peak, TARGET_RSS_MB),
                    f"{quads_total:,} quads in the store; the highest of ingest ({rss_ingest:,.0f} MiB) and each "
                    f"measurement's process (highest: {peak_label.strip()})"))
    check = count_sessions(local_source(store_dir), SessionFilter(include_sub=True))
    if check != made["sessions"]:
        rows.append(Row("WARNING", f"{check:,} sessions in the store", f"{made['sessions']:,} generated"))
    return rows, made


def print_report(rows: list[Row], made: dict, info: dict, sessions: int, seconds: float, options: str = "") -> None:
    print("Trace Explorer benchmark")
    print("machine: " + ", ".join(f"{k} {v}" for k, v in info.items()))
    if options:
        print("options: " + options)
    mix = ", ".join(f"{k} {v:,}" for k, v in made["mix"].items())
    print(f"collection: {made['sessions']:,} sessions ({made['top_level']:,} top level, {made['sub_sessions']:,} "
          f"sub-sessions; {mix}), {made['quads_written']:,} quads written ({made['quoted_triple_quads']:,} with a "
          f"triple term) + {made['documents']:,} document texts; seed {made['seed']}; generated in {made['seconds']:.1f} s")
    print()
    widths = [max(len(r.label) for r in rows), max(len(r.result) for r in rows),
              max(len(r.target) for r in rows), max(len(r.verdict) for r in rows)]
    header = ("measurement", "result", "target", "verdict")
    widths = [max(w, len(h)) for w, h in zip(widths, header)]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths)) + "  note"
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join(v.ljust(w) for v, w in zip((r.label, r.result, r.target, r.verdict), widths))
              + ("  " + r.note if r.note else ""))
    print()
    misses = [r.label.strip() for r in rows if r.verdict.startswith("MISS")]
    print(f"targets missed: {', '.join(misses) if misses else 'none'}   (total run {seconds:.0f} s)")


def _sessions(args: argparse.Namespace) -> int:
    """The collection's size: ``--sessions``, else ``--quick``'s, else the generator's default.
    The generator (and the model it reads with) is imported only here: a measurement's process
    does without it."""
    if args.sessions:
        return args.sessions
    if args.quick:
        return QUICK_SESSIONS
    import synthetic

    return synthetic.DEFAULT_SESSIONS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=None,
                        help="sessions in the synthetic collection (default 10,000; --quick 500)")
    parser.add_argument("--quick", action="store_true", help=f"a CI-sized run: {QUICK_SESSIONS} sessions")
    parser.add_argument("--keep", metavar="DIR", default=None, help="keep the generated files and stores in DIR")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5, help="timed runs after the first (median reported)")
    parser.add_argument("--profile", metavar="DIR", default=None, help="write a cProfile file per measurement")
    parser.add_argument("--long-steps", default="2000,200", metavar="OPEN,DAG",
                        help="Analysis iterations of the long ReAct runs: the one opened, the one drawn (default 2000,200)")
    parser.add_argument("--budget", type=float, default=20.0, metavar="SECONDS",
                        help="a call slower than this is timed once, not repeated (default 20)")
    parser.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS",
                        help="stop a measurement whose process runs longer than this (default 300)")
    parser.add_argument("--_phase", help=argparse.SUPPRESS)
    parser.add_argument("--_out", help=argparse.SUPPRESS)
    parser.add_argument("--_nq", help=argparse.SUPPRESS)
    parser.add_argument("--_what", help=argparse.SUPPRESS)
    parser.add_argument("--_iri", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        long_steps = tuple(int(n) for n in args.long_steps.split(","))
    except ValueError:
        long_steps = ()
    if len(long_steps) != 2 or min(long_steps) < 1:
        parser.error("--long-steps takes two positive numbers, like 2000,200")

    if args._phase:
        if args._phase == "generate":
            result = phase_generate(Path(args._out), _sessions(args), args.seed, long_steps)
        elif args._phase == "bulk_load":
            result = phase_bulk_load(Path(args._nq), Path(args._out))
        elif args._phase == "rdflib":
            result = phase_rdflib(Path(args._nq), Path(args._out))
        elif args._phase == "measure":
            result = phase_measure(Path(args._out), args._what, args._iri, max(0, args.repeat), args.budget,
                                   Path(args.profile) if args.profile else None)
        else:
            parser.error(f"unknown phase {args._phase}")
        print(json.dumps(result))
        return 0

    started = time.perf_counter()
    sessions = _sessions(args)
    if args.keep:
        work = Path(args.keep).resolve()
        if work.exists() and any(work.iterdir()):
            parser.error(f"--keep {work}: the folder must be new or empty")
        work.mkdir(parents=True, exist_ok=True)
    else:
        work = Path(tempfile.mkdtemp(prefix="trace-explorer-bench-"))
    try:
        rows, made = benchmark(sessions, work, seed=args.seed, repeat=max(1, args.repeat),
                               profile=Path(args.profile).resolve() if args.profile else None,
                               long_steps=long_steps, budget_s=args.budget, timeout_s=args.timeout)
        options = (f"--sessions {sessions} --seed {args.seed} --repeat {args.repeat} --long-steps {args.long_steps} "
                   f"--budget {args.budget:g} --timeout {args.timeout:g}; load average at the end "
                   + " ".join(f"{x:.1f}" for x in os.getloadavg()))
        print_report(rows, made, machine_info(), sessions, time.perf_counter() - started, options)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
