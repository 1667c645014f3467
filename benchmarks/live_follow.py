"""What following a source costs (issue 41, "The cost stays flat in the number of people
watching"), on the tests' stand-in TrustGraph gateway (``tests/trustgraph_server.py``: the
reference corpus, TrustGraph's REST paths and translators) while sessions are written into it:

1. the gateway's requests per minute with 1 follower and with 10 (each a visitor with a source
   of its own, as the app's visitors are; one poller serves them all), and their ratio, split
   into polls (one SPARQL query each) and what new sessions and steps cost (their facts, the
   next level of steps, their words from the librarian);
2. the CPU seconds per minute the poller spends (its thread's CPU time; the stand-in runs in
   this process too, and is not counted);
3. the time from a session's step being written to a follower seeing it (median and worst),
   for ``trace-explorer follow``'s poller at its default interval (1 s);
4. with ``--browser``: the time from a session written into a local store (``ingest``) to its
   row in the app's list in headless Chromium (median and worst of ``--repeat`` sessions).

With ``--no-sparql`` the flow runs no SPARQL service, and the poller asks triple patterns
(``live/pattern_probe.py``).

    python benchmarks/live_follow.py [--seconds 30] [--interval 1.0] [--write-every 0.5] [--no-sparql]
                                     [--browser] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.live_support import copy_session  # noqa: E402
from tests.trustgraph_server import COLLECTION, FLOW, TOKEN, FakeGateway, corpus_deployment  # noqa: E402
from trace_explorer.live import forget_pollers, poller_for  # noqa: E402
from trace_explorer.sources.trustgraph.gateway import Gateway  # noqa: E402
from trace_explorer.sources.trustgraph.source import TrustGraphSource  # noqa: E402

STARTED = "http://www.w3.org/ns/prov#startedAtTime"
WRITTEN = "urn:trustgraph:agent:4ecadea2-81b6-4bb5-b866-64ae64a149f5"  # a ReAct session of 6 steps


def follow(server: FakeGateway, quads, documents, followers: int, seconds: float, interval: float,
           write_every: float) -> dict:
    """Follow ``server`` with ``followers`` subscriptions for ``seconds`` while a session's stage
    is written every ``write_every`` seconds; the requests, CPU and delays measured."""
    forget_pollers()
    visitors = [TrustGraphSource(Gateway(server.url, TOKEN, flow=FLOW, collection=COLLECTION), eager_texts=False)
                for _ in range(followers)]
    poller = poller_for(visitors[0], interval=interval)
    subscriptions = [poller_for(v).follow() for v in visitors]
    while not poller.ready:
        time.sleep(0.05)
    written: dict[str, float] = {}  # step (or session) IRI -> when it was written
    seen: list[float] = []
    stop = threading.Event()

    def writer() -> None:
        while not stop.is_set():
            live = copy_session(quads, documents, WRITTEN)
            server.documents.update(live.documents)
            for stage, what in zip(live.stages, [live.root] + live.steps):
                if stop.wait(write_every):
                    return
                written[what] = time.monotonic()
                server.store.extend(stage)

    def reader(index: int) -> None:
        while not stop.is_set():
            for event in subscriptions[index].take(wait=0.5):
                if index == 0 and (event.step or event.session) in written and event.event != "answer":
                    seen.append(time.monotonic() - written[event.step or event.session])

    threads = [threading.Thread(target=writer, daemon=True)] + \
        [threading.Thread(target=reader, args=(i,), daemon=True) for i in range(followers)]
    requests, log, polls, cpu = server.requests, len(server.log), poller.polls, poller.cpu_seconds
    started = time.monotonic()
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join(5)
    minutes = (time.monotonic() - started) / 60
    asked = server.log[log:]
    polls_made = poller.polls - polls
    for subscription in subscriptions:
        subscription.close()
    poller.stop()
    return {"requests": (server.requests - requests) / minutes, "polls": polls_made / minutes,
            "poll requests": sum("FILTER(STR(?time)" in str(body.get("query", "")) or body.get("p", {}).get("i") == STARTED
                             for _, body, _ in asked) / minutes,
            "cpu": (poller.cpu_seconds - cpu) / minutes, "delays": sorted(seen), "written": len(seen) / minutes}


def browser_delays(repeat: int) -> list[float]:
    """Seconds from a session written into a local store to its row in the app's list."""
    import tempfile

    import pyoxigraph as ox

    from tests.browser_support import chromium_page, streamlit_server
    from tests.list_support import LIST_ROW
    from trace_explorer.sources.local_store import ingest_file, open_local_store

    quads, documents = corpus_deployment()
    root = Path(tempfile.mkdtemp(prefix="live-bench-"))
    with open_local_store(root / "store") as local:
        ingest_file(local, str(REPO / "trace_explorer" / "demo_data" / "seed-sessions.ttl"))
    out = []
    with streamlit_server(env={"TRACE_EXPLORER_STORE_ROOT": str(root)}) as url, chromium_page() as page:
        page.goto(url + "/?store=store")
        page.locator(LIST_ROW).first.wait_for(timeout=120000)
        for n in range(repeat):
            live = copy_session(quads, documents, WRITTEN)
            path = root / f"written-{n}.nq"
            path.write_bytes(ox.serialize(live.quads, format=ox.RdfFormat.N_QUADS))
            with open_local_store(root / "store", wait_s=10) as writer:
                ingest_file(writer, str(path))
            done = time.monotonic()
            page.locator(f'{LIST_ROW}[data-session="{live.root}"]').wait_for(timeout=30000)
            out.append(time.monotonic() - done)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds each measurement follows")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between two polls")
    parser.add_argument("--write-every", type=float, default=0.5, help="seconds between two stages written")
    parser.add_argument("--no-sparql", action="store_true",
                        help="a flow without the SPARQL service: followed with triple patterns")
    parser.add_argument("--browser", action="store_true", help="also time the app's list in headless Chromium")
    parser.add_argument("--repeat", type=int, default=3, help="sessions written for the browser's timing")
    args = parser.parse_args(argv)
    quads, documents = corpus_deployment()
    found = {}
    for n in (1, 10):  # a deployment of its own each: no session left running by the other
        server = FakeGateway(quads, documents, sparql=not args.no_sparql)
        server.start()
        try:
            found[n] = follow(server, quads, documents, n, args.seconds, args.interval, args.write_every)
        finally:
            server.stop()
    for n, figures in found.items():
        delays = figures["delays"]
        print(f"followers {n:>2}: {figures['requests']:7.1f} gateway requests/min ({figures['polls']:.1f} polls/min, "
              f"{figures['poll requests']:.1f} poll queries/min; the rest for the {figures['written']:.0f} sessions and "
              f"steps written a minute: {(figures['requests'] - figures['poll requests']) / figures['written']:.1f} "
              f"requests each), "
              f"poller CPU {figures['cpu']:.3f} s/min, written -> seen median {statistics.median(delays):.2f} s, "
              f"worst {max(delays):.2f} s over {len(delays)} sessions and steps")
    print(f"ratio 10 followers / 1: {found[10]['requests'] / found[1]['requests']:.2f} "
          f"(polls: {found[10]['polls'] / found[1]['polls']:.2f})")
    if args.browser:
        delays = browser_delays(args.repeat)
        print(f"app list (Chromium, local store): written -> row shown median {statistics.median(delays):.2f} s, "
              f"worst {max(delays):.2f} s over {len(delays)} sessions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
