"""The phases ``run.py`` runs, each in a fresh process of its own: generating the synthetic
corpus, pyoxigraph's and rdflib's loads as floors, and the measures of a store (the list, a
search, a long session opened and drawn) with its session index scaled up."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from measuring import cpu_ms, peak_rss_mb, timed

SCALE_ROWS = 10  # the list measured again with the session index copied this many times over


def phase_generate(out: Path, sessions: int, seed: int, long_steps: tuple[int, int]) -> dict:
    import synthetic
    start = time.perf_counter()
    made = synthetic.generate(out, sessions, seed=seed, long_steps=long_steps)
    return dict(made.info, seconds=time.perf_counter() - start, nquads_path=str(made.nquads),
                documents_path=str(made.documents))


def phase_bulk_load(nq: Path, store_dir: Path) -> dict:
    import pyoxigraph as ox
    store = ox.Store(str(store_dir))
    start, cpu = time.perf_counter(), time.process_time()
    store.bulk_load(path=str(nq), format=ox.RdfFormat.N_QUADS)
    store.flush()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"seconds": seconds, "cpu": cpu, "quads": len(store), "rss_mb": peak_rss_mb()}


def phase_rdflib(nq: Path, work: Path) -> dict:
    import rdflib
    plain = work / "without-quoted-triples.nq"
    removed = 0
    with open(nq, encoding="utf-8") as source, open(plain, "w", encoding="utf-8") as target:
        for line in source:
            if "<<(" in line:
                removed += 1
            else:
                target.write(line)
    dataset = rdflib.Dataset()
    start = time.perf_counter()
    dataset.parse(str(plain), format="nquads")
    seconds = time.perf_counter() - start
    quads = sum(1 for _ in dataset.quads((None, None, None, None)))
    plain.unlink()
    return {"seconds": seconds, "quads": quads, "removed": removed, "rss_mb": peak_rss_mb()}


def profile_call(directory: Path | None, name: str, function) -> None:
    if directory is None:
        return
    import cProfile
    directory.mkdir(parents=True, exist_ok=True)
    profiler = cProfile.Profile()
    profiler.runcall(function)
    profiler.dump_stats(str(directory / f"{name}.prof"))


def scaled_source(store_dir: Path, times: int):
    """The store's source with its session index copied ``times`` over (new IRIs, same fields)
    into a temporary SQLite file: the list of a store ``times`` as large, without ingesting it."""
    from trace_explorer.index.session_index import SessionIndex
    from trace_explorer.store.local_store import local_source

    source = local_source(store_dir)
    bigger = SessionIndex(Path(tempfile.mkdtemp()) / "scaled.sqlite")
    rows, copies = source.index.rows(), []
    for copy in range(times):
        for row in rows:
            root = f"{row['root']}-{copy}"
            copies.append(dict(row, root=root, search=dict(row["search"], iri=f"{row['search']['iri']}-{copy}"),
                               summary=json.dumps(dict(json.loads(row["summary"]), id=root))))
    bigger.replace([], copies)
    source.index = bigger
    return source


def phase_measure(store_dir: Path, what: str, iri: str | None, repeat: int, budget_s: float,
                  profile: Path | None) -> dict:
    """One measurement on the store, in a fresh process: the app after a restart (the store
    reopened from disk, nothing cached in Python; its newest snapshot, as every reader opens
    it). Prints timings and this process's peak RSS."""
    from trace_explorer.index.catalog import SessionFilter, fetch_session, list_sessions
    from trace_explorer.store.local_store import local_source

    out: dict = {}
    if what.startswith("scaled"):  # the store read-only: a writer beside it may compact its files away
        source = scaled_source(store_dir, SCALE_ROWS)
        what = "list" + what[len("scaled"):]
    else:
        source = local_source(store_dir)
    if what.startswith("list"):
        filters = {"list_first": None, "list_graphrag": SessionFilter(mechanism="GraphRAG"),
                   "list_bronze": SessionFilter(text="bronze"),
                   "list_words": SessionFilter(text="upstream timed out")}[what]

        def function():
            return list_sessions(source, filters, limit=50)

        first, median, page = timed(function, repeat, budget_s)
        out["note"] = f"{len(page.rows)} rows of {page.total:,}; CPU {cpu_ms(function, repeat):,.1f} ms"
    elif what == "open":
        from trace_explorer.views.timeline import timeline_rows  # pandas and Altair: not in a list's process

        def function():
            session = fetch_session(source, iri)
            return session, timeline_rows(session)

        first, median, (session, frame) = timed(function, repeat, budget_s)
        out["note"] = (f"fetch_session + timeline_rows; {len(session.steps):,} steps, "
                       f"{session.graph.number_of_nodes():,} graph nodes, {len(frame):,} timeline rows")
    elif what == "dag":
        from trace_explorer.views.dag.network import dag_html

        fetch_ms, _, session = timed(lambda: fetch_session(source, iri), 0)

        def function():
            return dag_html(session)

        first, median, html = timed(function, repeat, budget_s)
        out["note"] = (f"dag_html only ({session.graph.number_of_nodes():,} nodes, {len(html) / 1024:,.0f} KiB); "
                       f"fetch_session before it {fetch_ms:,.0f} ms")
    else:
        raise ValueError(f"unknown measurement {what}")
    if profile is not None:
        profile_call(profile, what if what != "open" else f"open-{iri.rsplit(':', 1)[-1]}", function)
    out.update(first=first, median=median, rss_mb=peak_rss_mb())
    return out
