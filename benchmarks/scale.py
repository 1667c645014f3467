"""Ingest and every view at several collection sizes, side by side: what changes from a thousand
sessions to a hundred thousand.

    python benchmarks/scale.py --sessions 1000,100000 [--work DIR] [--repeat 5] [--no-browser]
                               [--no-health-run] [--views-only] [--sparql | --sparql-only]

For each size it makes a collection with ``benchmarks/synthetic.py`` (the corpus's mix, made by
TrustGraph's builders: agent, GraphRAG, DocRAG, plan; kept in ``--work`` and reused by a later
run), then measures, each in a process of its own:

- pyoxigraph's ``Store.bulk_load`` of the N-Quads file (the floor: no index, no health);
- ``trace-explorer ingest`` of the N-Quads and content files into a fresh store, with health
  (and, unless ``--no-health-run``, again with ``--no-health``): wall and CPU seconds (user +
  system, every thread), their ratios to ``bulk_load``, peak RSS, the seconds of each phase
  (its last line) and the store's size on disk (the live directory; snapshots share its files
  by hard links);
- on the store: the list's first page, a sort by each column, a filter by type, status and
  health, a word search, the last page, opening a session (a 12-step agent run, read as the
  session page reads it), and ``collection_stats`` of every session (``stats --all``) and of
  the top-level sessions (``stats``, the Insights page's first view): the
  median of ``--repeat`` runs after a first, in milliseconds, with CPU milliseconds beside;
- the command line as a person runs it (process start included): ``list``, ``show``,
  ``stats --all`` and ``stats``;
- in headless Chromium (``benchmarks/browser.py``'s measurements; unless ``--no-browser``): the
  list's first page, a filter click and opening a session.

``--views-only`` times the views (and the command line, Chromium) again on the stores an
earlier run kept in ``--work``, without ingesting anew (its other figures are that run's).
``--sparql`` also loads each collection into a SPARQL endpoint (Virtuoso) and times the list
there (``measure_endpoint``); ``--sparql-only`` does only that.

The last column is the ratio of the largest size to the smallest (of CPU figures where a row has
them). Numbers are printed, never
asserted; each size's figures are also written to ``results-N.json`` in the work folder as
soon as they are in. The machine's cores and load are printed too: on a shared machine compare CPU
seconds, and the ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
for path in (str(REPO), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from measuring import MB  # noqa: E402 - beside this file
from scale_report import print_table  # noqa: E402 - beside this file

from trace_explorer.store.snapshots import SNAPSHOTS_DIR  # noqa: E402

SNAPSHOTS = SNAPSHOTS_DIR  # a local store's snapshots: hard links to the live directory's files, not counted
CLI = [sys.executable, "-m", "trace_explorer.cli"]


def run_measured(command: list[str], *, stderr=None) -> dict:
    """Run ``command`` to its end; its wall and CPU seconds (user + system, all threads, and the
    worker processes it waited for), peak RSS in MB (``os.wait4``'s figure: the largest single
    process) and ``rss_tree_mb``, the peak of the RSS of it and its child processes together,
    sampled every 0.1 s from /proc."""
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=stderr or subprocess.DEVNULL)
    peak, done = [0.0], threading.Event()

    def sample() -> None:
        while not done.wait(0.1):
            peak[0] = max(peak[0], tree_rss_mb(child.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    done.set()
    sampler.join()
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(command)} exited with {child.returncode}")
    return {"wall": time.perf_counter() - start, "cpu": usage.ru_utime + usage.ru_stime,
            "rss_mb": usage.ru_maxrss / 1024, "rss_tree_mb": max(peak[0], usage.ru_maxrss / 1024),
            "out": out.decode("utf-8", "replace")}


def tree_rss_mb(pid: int) -> float:
    """MB resident of the process ``pid`` and its descendants now (0 once it is gone)."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            todo += [int(c) for c in Path(f"/proc/{current}/task/{current}/children").read_text().split()]
        except (OSError, ValueError):
            continue
        total += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return total / 1024


def directory_mb(path: Path, skip: str | None = None) -> float:
    """MB on disk of the files in ``path`` and below (not under its folder ``skip``), each file
    once (hard links)."""
    seen, total = set(), 0
    for file in path.rglob("*"):
        if skip is not None and file.relative_to(path).parts[0] == skip:
            continue
        info = file.lstat()
        if file.is_file() and (info.st_dev, info.st_ino) not in seen:
            seen.add((info.st_dev, info.st_ino))
            total += info.st_blocks * 512
    return total / MB


def collection(work: Path, sessions: int) -> dict:
    """The synthetic collection of ``sessions`` sessions in ``work``, made when missing."""
    folder = work / f"collection-{sessions}"
    manifest = folder / "manifest.json"
    if not manifest.is_file():
        shutil.rmtree(folder, ignore_errors=True)
        print(f"making {sessions:,} sessions ...", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, str(HERE / "synthetic.py"), str(folder), "--sessions", str(sessions)],
                       cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    info = json.loads(manifest.read_text(encoding="utf-8"))
    return {"nq": folder / info["nquads"], "documents": folder / info["documents_file"], "info": info}


def measure_ingest(work: Path, made: dict, sessions: int, health: bool) -> dict:
    """``trace-explorer ingest`` into a fresh store: figures and the phases' seconds."""
    store = work / f"store-{sessions}{'' if health else '-no-health'}"
    shutil.rmtree(store, ignore_errors=True)
    log = work / f"ingest-{sessions}{'' if health else '-no-health'}.log"
    with open(log, "wb") as err:
        done = run_measured(CLI + ["ingest", str(made["nq"]), str(made["documents"]), "--store", str(store)]
                            + ([] if health else ["--no-health"]), stderr=err)
    last = [line for line in log.read_text(encoding="utf-8", errors="replace").replace("\r", "\n").splitlines()
            if line.startswith("ingested ")]
    done.update(store=store, phases=last[-1] if last else "", store_mb=directory_mb(store, skip=SNAPSHOTS))
    return done


def views_child(store: str, react: str, repeat: int) -> None:
    """In a child process: time every view on ``store``, print JSON ``{label: [ms, cpu ms]}``."""
    from trace_explorer.analysis.stats import collection_stats
    from trace_explorer.index.catalog import count_sessions, list_sessions
    from trace_explorer.sources.fetch import fetch_session
    from trace_explorer.sources.filter import SORT_KEYS, SessionFilter, SessionOrder
    from trace_explorer.store.local_store import local_source

    source = local_source(store)
    everything = SessionFilter(include_sub=True)
    total = count_sessions(source, SessionFilter())
    views = {"list: first page": lambda: list_sessions(source)}
    for key, descending in SORT_KEYS.items():
        views[f"list: sort by {key}"] = lambda k=key, d=descending: list_sessions(source, order=SessionOrder(k, d))
    views.update({
        "list: filter type GraphRAG": lambda: list_sessions(source, SessionFilter(mechanism="GraphRAG")),
        "list: filter status unfinished": lambda: list_sessions(source, SessionFilter(status="unfinished")),
        "list: filter health warnings": lambda: list_sessions(source, SessionFilter(health="warnings")),
        'list: word search "bronze"': lambda: list_sessions(source, SessionFilter(text="bronze")),
        "list: last page": lambda: list_sessions(source, offset=max(0, total - 50)),
        "open a session (12 steps)": lambda: fetch_session(source, react),
        "stats of every session (--all)": lambda: collection_stats(source, everything),
        "stats of the top-level sessions (Insights)": lambda: collection_stats(source, SessionFilter()),
    })
    out = {}
    for label, function in views.items():
        times = []
        for _ in range(repeat + 1):
            start, cpu = time.perf_counter(), time.process_time()
            function()
            times.append(((time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000))
        out[label] = [statistics.median(t[0] for t in times[1:]), statistics.median(t[1] for t in times[1:])]
    print(json.dumps(out))


def measure_cli(store: Path, react: str) -> dict:
    """Wall seconds of the command line as a person runs it (process start included)."""
    out = {}
    for label, args in (("cli: list (first page)", ["list", "--store", str(store)]),
                        ("cli: show a session", ["show", "--store", str(store), "--session", react]),
                        ("cli: stats --all", ["stats", "--store", str(store), "--all"]),
                        ("cli: stats", ["stats", "--store", str(store)])):
        try:
            out[label] = [run_measured(CLI + args)["wall"] * 1000 for _ in range(2)][-1]
        except RuntimeError as error:  # reported in the table, the other figures kept
            print(error, file=sys.stderr)
            out[label] = float("nan")
    return out


def measure_browser(store: Path, react: str, repeat: int) -> dict:
    """Milliseconds in headless Chromium on the app over ``store``: first page, filter click, a
    session opened (median of ``repeat`` after a warm-up)."""
    import browser
    import browser_session
    from tests.browser_support import chromium_page, streamlit_server, use_browser

    use_browser()  # Debian's chromium, as people run it
    def open_session(probe) -> float:
        from urllib.parse import quote

        start = probe.open(f"/session?session={quote(react, safe='')}")
        browser_session.settled_at(probe.page, browser_session.SESSION_READY)
        return time.perf_counter() - start

    chosen = {"browser: list first page": browser.list_first_page_store,
              "browser: filter click, settled": browser.filter_click_store,
              "browser: open a session, settled": open_session}
    out = {}
    with streamlit_server(env={"TRACE_EXPLORER_STORE": str(store)}) as url, \
            chromium_page(viewport=(1400, 1000), default_timeout_ms=browser.TIMEOUT_MS) as first:
        for label, function in chosen.items():
            times = []
            for _ in range(repeat + 1):
                page = first.context.new_page()
                try:
                    times.append(function(browser.Probe(page, url, "store")) * 1000)
                finally:
                    page.close()
            out[label] = statistics.median(times[1:])
    return out


ENDPOINT_BUFFERS = 170_000  # Virtuoso's page buffers (8 KB each: 1.3 GB), its advice for a few GB of memory
ENDPOINT_TIMEOUT_S = 60  # a query of the list on the endpoint given up after this
ENDPOINT_ONCE_S = 10  # a view slower than this the first time is not run again


def measure_endpoint(work: Path, made: dict, repeat: int) -> dict:
    """Milliseconds (wall: the server does the work) of the list on a SPARQL endpoint holding the
    collection: OpenLink Virtuoso (``tests/virtuoso_support.py``, installed by
    ``scripts/setup.sh``), bulk-loaded with the N-Quads file without its RDF 1.2 triple terms
    (Virtuoso cannot hold them; they are the ``tg:selectedEdge`` reifications, not read by the
    list), asked through the app's ``EndpointSource``: the first page, a sort by each key an
    endpoint sorts on (``catalog.SPARQL_SORT_KEYS``), a filter by type and by status (the
    health filter needs a session index); the median of ``repeat`` after a first (the first
    alone when it took over ``ENDPOINT_ONCE_S``). A query that fails (the server's time limit,
    ``ENDPOINT_TIMEOUT_S``) is NaN, its error printed. Also the seconds of the load."""
    from tests.virtuoso_support import virtuoso_endpoint
    from trace_explorer.index.catalog import SPARQL_SORT_KEYS, list_sessions
    from trace_explorer.sources.endpoint import EndpointSource
    from trace_explorer.sources.filter import SORT_KEYS, SessionFilter, SessionOrder
    from trace_explorer.sources.source import SourceError

    folder = work / f"virtuoso-{made['info']['sessions']}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    plain = work / f"{made['nq'].stem}-{made['info']['sessions']}-without-triple-terms.nq"
    if not plain.is_file():
        with open(made["nq"], "rb") as whole, open(plain.with_suffix(".part"), "wb") as out:
            out.writelines(line for line in whole if b"<<(" not in line)
        plain.with_suffix(".part").rename(plain)
    start = time.perf_counter()
    out = {}
    with virtuoso_endpoint(folder, plain, timeout_s=120, load_timeout_s=4 * 3600, buffers=ENDPOINT_BUFFERS,
                           query_s=ENDPOINT_TIMEOUT_S) as url:
        out["endpoint: load (Virtuoso's bulk loader), s"] = time.perf_counter() - start
        source = EndpointSource(url, triple_terms=False, timeout=ENDPOINT_TIMEOUT_S + 10)
        views = {"endpoint: list first page": lambda: list_sessions(source)}
        for key in sorted(SPARQL_SORT_KEYS - {"time"}):
            views[f"endpoint: sort by {key}"] = lambda k=key: list_sessions(source, order=SessionOrder(k, SORT_KEYS[k]))
        views["endpoint: filter type GraphRAG"] = lambda: list_sessions(source, SessionFilter(mechanism="GraphRAG"))
        views["endpoint: filter status unfinished"] = lambda: list_sessions(source, SessionFilter(status="unfinished"))
        for label, function in views.items():
            print(f"  {label} ...", file=sys.stderr, flush=True)
            times = []
            for _ in range(repeat + 1):
                begun = time.perf_counter()
                try:
                    function()
                except SourceError as error:
                    print(f"{label}: {error}", file=sys.stderr)
                    times.append(float("nan"))
                    break
                times.append((time.perf_counter() - begun) * 1000)
                if times[0] > ENDPOINT_ONCE_S * 1000:
                    break
            out[label] = statistics.median(times[1:]) if len(times) > 1 else times[0]
    shutil.rmtree(folder, ignore_errors=True)
    return out


def measure_size(work: Path, sessions: int, args) -> dict:
    made = collection(work, sessions)
    info = made["info"]
    if args.sparql_only:
        print(f"{sessions:,} sessions: SPARQL endpoint ...", file=sys.stderr, flush=True)
        return {"info": info, "endpoint": measure_endpoint(work, made, max(1, args.repeat // 2))}
    if args.views_only:  # the store an earlier run kept, its figures from that run's results
        kept = json.loads((work / f"results-{sessions}.json").read_text(encoding="utf-8"))
        bulk, ingest, bare = kept["bulk"], kept["ingest"], kept.get("no_health")
        ingest["store"] = Path(ingest["store"])
        if not ingest["store"].is_dir():
            raise SystemExit(f"--views-only: no store {ingest['store']} kept from an earlier run")
        return measure_views(work, ingest, bulk, bare, info, sessions, args, made)
    print(f"{sessions:,} sessions: bulk_load ...", file=sys.stderr, flush=True)
    bulk_dir = work / f"bulk-{sessions}"
    shutil.rmtree(bulk_dir, ignore_errors=True)
    bulk = run_measured([sys.executable, __file__, "--_bulk", str(made["nq"]), str(bulk_dir)])
    bulk["store_mb"] = directory_mb(bulk_dir)
    shutil.rmtree(bulk_dir, ignore_errors=True)
    print(f"{sessions:,} sessions: ingest ...", file=sys.stderr, flush=True)
    ingest = measure_ingest(work, made, sessions, health=True)
    bare = None
    if not args.no_health_run:
        bare = measure_ingest(work, made, sessions, health=False)
        shutil.rmtree(bare["store"], ignore_errors=True)
    return measure_views(work, ingest, bulk, bare, info, sessions, args, made)


def measure_views(work: Path, ingest: dict, bulk: dict, bare: dict | None, info: dict, sessions: int, args,
                  made: dict | None = None) -> dict:
    """The views, the command line, Chromium (unless ``--no-browser``) and the endpoint (with
    ``--sparql``, its database in ``work``) on the store ``ingest`` made; every figure of one size."""
    react = info["notable"]["react_12"]
    if args.views_only:  # the index of a store made by an earlier version gets what this one keeps
        subprocess.run([sys.executable, "-c", "import sys; from trace_explorer.store.local_store import "
                        "open_local_store; open_local_store(sys.argv[1]).close()", str(ingest["store"])],
                       cwd=REPO, check=True)
    print(f"{sessions:,} sessions: views ...", file=sys.stderr, flush=True)
    views = json.loads(run_measured([sys.executable, __file__, "--_views", str(ingest["store"]), react,
                                     str(args.repeat)])["out"])
    cli = measure_cli(ingest["store"], react)
    shown = None
    if not args.no_browser:
        print(f"{sessions:,} sessions: browser ...", file=sys.stderr, flush=True)
        shown = measure_browser(ingest["store"], react, max(1, args.repeat // 2))
    endpoint = None
    if args.sparql and made is not None:
        print(f"{sessions:,} sessions: SPARQL endpoint ...", file=sys.stderr, flush=True)
        endpoint = measure_endpoint(work, made, max(1, args.repeat // 2))
    return {"info": info, "bulk": bulk, "ingest": ingest, "no_health": bare, "views": views, "cli": cli,
            "browser": shown, "endpoint": endpoint}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", default="1000,100000", help="sizes, comma-separated (default 1000,100000)")
    parser.add_argument("--work", metavar="DIR", default=None,
                        help="where collections and stores go (kept; collections are reused), default a temporary folder")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs after the first of each view (median)")
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium measurements")
    parser.add_argument("--no-health-run", action="store_true", help="skip the second ingest, with --no-health")
    parser.add_argument("--views-only", action="store_true",
                        help="time the views again on the stores an earlier run kept in --work (no bulk_load, no ingest)")
    parser.add_argument("--sparql", action="store_true",
                        help="also load each collection into Virtuoso and time the list on its SPARQL endpoint")
    parser.add_argument("--sparql-only", action="store_true", help="only the SPARQL endpoint's figures (no ingest)")
    parser.add_argument("--_bulk", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--_views", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args._bulk:
        import pyoxigraph as ox

        store = ox.Store(args._bulk[1])
        store.bulk_load(path=args._bulk[0], format=ox.RdfFormat.N_QUADS)
        store.flush()
        return 0
    if args._views:
        views_child(args._views[0], args._views[1], int(args._views[2]))
        return 0
    sizes = [int(n.replace("_", "")) for n in args.sessions.split(",") if n.strip()]
    work = Path(args.work).resolve() if args.work else Path(__import__("tempfile").mkdtemp(prefix="trace-explorer-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    results = []
    for n in sizes:
        results.append(measure_size(work, n, args))
        kept = {k: v for k, v in results[-1].items()}  # each size's figures as soon as they are in
        if "ingest" in kept:
            kept["ingest"] = {k: str(v) if isinstance(v, Path) else v for k, v in kept["ingest"].items()}
        if kept.get("no_health") is not None:
            kept["no_health"] = {k: str(v) if isinstance(v, Path) else v for k, v in kept["no_health"].items()}
        name = f"results-{n}{'-sparql' if args.sparql_only else ''}.json"  # an endpoint's alone: the run's kept
        (work / name).write_text(json.dumps(kept, indent=1), encoding="utf-8")
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"Trace Explorer at {', '.join(f'{n:,}' for n in sizes)} sessions; {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}, load average at the end {load}\n")
    print_table(sizes, results)
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
