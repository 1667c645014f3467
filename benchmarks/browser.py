"""What a person waits for, timed in headless Chromium: Trace Explorer against a bare one-line
Streamlit page served and measured in the same run.

    python benchmarks/browser.py [--repeat 5] [--store DIR | --sessions 10000 | --no-store]
                                 [--only NAME ...] [--where] [--list]

Starts three Streamlit servers on loopback (``tests/browser_support.streamlit_server``): a bare
page (``st.write`` of one line), the app on its demo, and the app on a local store of
``--sessions`` synthetic sessions (``benchmarks/synthetic.py``, ingested once into a temporary
store; ``--store DIR`` reuses a store made before, ``--no-store`` skips it). Each measurement is
one function, registered with ``@measurement``; it gets a ``Probe`` (a fresh Chromium page and
the server's URL) and returns the seconds it timed. It runs once to warm up (the browser's cache
then holds Streamlit's front end, as for a person coming back), then ``--repeat`` times; the
median is printed, with its ratio to the bare page's median and its verdict against the target.

A page counts as on screen when what it is for is drawn (the session table's rows, their count
checked; a session's heading, timeline rows and step inspector) and Streamlit is idle (its
script not running), and both still hold 300 ms later (a rerun that starts just after moves the
time to its own end); a click counts as settled when the rows it asks for are drawn and
Streamlit is idle again. The first views alone, side by side in one run (docs/page-speed.md):

    python benchmarks/browser.py --no-store --only first_page_demo session_from_link

 To add a measurement, write a function
of a ``Probe`` that returns seconds and decorate it: ``@measurement("label", "demo",
ratio=2.0)`` (target: at most 2x the bare page) or ``seconds=0.5`` (target: at most 0.5 s).
Numbers are printed, never asserted. ``--where`` adds, per measurement, the browser main
thread's CPU time by who spent it (``benchmarks/main_thread.py``): steadier than wall time on a
busy machine.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
for path in (str(REPO), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from main_thread import KINDS, SHORT, busy_ms  # noqa: E402
from tests.browser_support import _IDLE_JS, chromium_page, streamlit_server, use_browser  # noqa: E402
from trace_explorer.sources.demo import MANIFEST, SERVICES_MANIFEST  # noqa: E402

BARE_APP = 'import streamlit as st\n\nst.write("Trace Explorer bare page")\n'
BARE_TEXT = "Trace Explorer bare page"
SERVERS = ("bare", "demo", "store")
TIMEOUT_MS = 120_000
SETTLE_MS = 300  # a page load counts once what it drew still stands this long after

# JavaScript: the elements matching a selector in the page and in the shadow roots of
# st.components.v2 components (the session table and the session workspace are drawn in one).
# Only the components' hosts are searched for shadow roots: a walk of every element on every
# frame would itself hold the page's main thread back while it is drawing.
DEEP_QUERY = """
window.__teDeep = window.__teDeep || function (selector) {
  const found = [...document.querySelectorAll(selector)];
  for (const host of document.querySelectorAll('[data-testid="stBidiComponentIsolated"]')) {
    if (host.shadowRoot) found.push(...host.shadowRoot.querySelectorAll(selector));
  }
  return found;
};
"""


@dataclass
class Probe:
    """What a measurement works with: ``page`` (a fresh Playwright page in headless Chromium),
    ``url`` (the server's base URL) and ``server`` ("bare", "demo" or "store")."""

    page: object
    url: str
    server: str

    def open(self, path: str = "/") -> float:
        """Navigate to ``path`` and start the clock: returns the start time (perf_counter)."""
        start = time.perf_counter()
        self.page.goto(self.url + path, wait_until="commit", timeout=TIMEOUT_MS)
        return start

    def until(self, predicate_js: str, arg: object = None) -> None:
        """Wait (polling every frame) until ``predicate_js`` (a JS function of ``arg``) is true
        and Streamlit is idle."""
        self.page.wait_for_function(self._ready(predicate_js), arg=arg, polling="raf", timeout=TIMEOUT_MS)

    def settled(self, predicate_js: str, arg: object = None) -> float:
        """The time (perf_counter) at which ``predicate_js`` first held with Streamlit idle, and
        still held ``SETTLE_MS`` later: a rerun that starts just after (a query parameter
        written, a fragment) moves the time to its own end."""
        while True:
            self.until(predicate_js, arg)
            held = time.perf_counter()
            self.page.wait_for_timeout(SETTLE_MS)
            if self.page.evaluate(self._ready(predicate_js), arg):
                return held

    @staticmethod
    def _ready(predicate_js: str) -> str:
        # Streamlit idle first: the cheaper test, and the page's own test is not run while the
        # script still runs
        return f"""(arg) => {{ {DEEP_QUERY}
            return ({_IDLE_JS})() && !!({predicate_js})(arg);
        }}"""


@dataclass
class Measurement:
    """A registered measurement: ``label``, ``server`` it runs on, ``run(probe) -> seconds``
    and its target: ``ratio`` (at most this many times the bare page) or ``seconds``."""

    label: str
    server: str
    run: Callable[[Probe], float]
    ratio: float | None = None
    seconds: float | None = None
    times: list[float] = field(default_factory=list)
    busy: list[dict[str, float]] = field(default_factory=list)  # with --where: main-thread ms by kind


MEASUREMENTS: list[Measurement] = []


def measurement(label: str, server: str, *, ratio: float | None = None,
                seconds: float | None = None) -> Callable[[Callable[[Probe], float]], Callable[[Probe], float]]:
    """Register ``function(probe) -> seconds`` as the measurement ``label`` on ``server``."""
    def register(function: Callable[[Probe], float]) -> Callable[[Probe], float]:
        MEASUREMENTS.append(Measurement(label, server, function, ratio, seconds))
        return function
    return register


# -- the measurements -----------------------------------------------------------------------------

ROWS_DRAWN = "(n) => window.__teDeep('tr.te-row').length === n"
CAPTION = """(text) => Array.from(document.querySelectorAll('[data-testid="stCaptionContainer"]'))
                             .some(c => c.innerText.includes(text))"""


@measurement("bare one-line Streamlit page", "bare")
def bare_page(probe: Probe) -> float:
    start = probe.open("/")
    return probe.settled("(text) => document.body.innerText.includes(text)", BARE_TEXT) - start


def _first_rows(probe: Probe) -> int:
    """How many rows the list's first page has on this server (50, or all when fewer)."""
    return 50 if probe.server == "store" else _demo_top_level()


def _demo_top_level() -> int:
    """How many top-level sessions the demo has: both corpora's, from their manifests."""
    reference = [s for f in json.loads(MANIFEST.read_text(encoding="utf-8")).values() for s in f["sessions"]]
    services = json.loads(SERVICES_MANIFEST.read_text(encoding="utf-8"))["sessions"]
    return sum(1 for s in reference + services if s["parent"] is None)


def _list_on_screen(probe: Probe, path: str = "/") -> float:
    start = probe.open(path)
    return probe.settled(f"(n) => ({ROWS_DRAWN})(n) && ({CAPTION})('matching')", _first_rows(probe)) - start


@measurement("the list's first page (demo)", "demo", ratio=1.5)
def list_first_page_demo(probe: Probe) -> float:
    return _list_on_screen(probe)


@measurement("the list's first page (10,000-session store)", "store", ratio=1.5)
def list_first_page_store(probe: Probe) -> float:
    return _list_on_screen(probe)


# the 26-step ReAct session of the demo (its steps: the corpus manifest)
REACT_26 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
SESSION_DRAWN = """() => { const main = document.querySelector('[data-testid="stMain"]');
  if (!main || !main.querySelector('[data-testid="stHeading"]')) return false;
  const ws = window.__teDeep('[data-te-workspace="drawn"]')[0];
  return !!ws && !!ws.querySelector('.te-wf-row') && !!ws.querySelector('.te-ins-title'); }"""


@measurement("a 26-step session from a link, settled (demo)", "demo", ratio=2.0)
def session_from_link_demo(probe: Probe) -> float:
    start = probe.open("/session?session=" + urllib.parse.quote(REACT_26, safe=""))
    return probe.settled(SESSION_DRAWN) - start


def _filter_click(probe: Probe, pill: str, rows_js: str) -> float:
    """Open the list, then time a click on the Type pill ``pill`` until only its rows show."""
    _list_on_screen(probe)
    button = probe.page.get_by_role("button", name=pill, exact=True)
    start = time.perf_counter()
    button.click()
    probe.until(rows_js)
    return time.perf_counter() - start


ONLY_GRAPHRAG = """() => { const rows = window.__teDeep('tr.te-row');
  return rows.length > 0 && rows.every(r => r.dataset.session.startsWith('urn:trustgraph:question:')); }"""


@measurement("a filter click, settled (demo)", "demo", seconds=0.5)
def filter_click_demo(probe: Probe) -> float:
    return _filter_click(probe, "GraphRAG", ONLY_GRAPHRAG)


@measurement("a filter click, settled (10,000-session store)", "store", seconds=0.5)
def filter_click_store(probe: Probe) -> float:
    return _filter_click(probe, "GraphRAG", ONLY_GRAPHRAG)


SORTED_BY_STEPS = """() => { const rows = window.__teDeep('tr.te-row');
  const steps = rows.map(r => parseInt(r.querySelector('td.c-steps').textContent.replace(/,/g, ''), 10));
  return rows.length > 1 && steps.every((s, i) => i === 0 || steps[i - 1] >= s)
         && location.search.includes('sort=-steps'); }"""


@measurement("a header click sorts every page, settled (10,000-session store)", "store", seconds=0.5)
def sort_click_store(probe: Probe) -> float:
    _list_on_screen(probe)
    header = probe.page.locator('th button.te-sort[data-sort="steps"]')
    start = time.perf_counter()
    header.click()
    probe.until(SORTED_BY_STEPS)
    return time.perf_counter() - start


SEARCHED = """() => { const rows = window.__teDeep('tr.te-row');
  return rows.length > 0 && rows.every(r => /bronze/i.test(r.querySelector('td.c-question').textContent))
         && location.search.includes('q=bronze'); }"""


@measurement("a search, settled (10,000-session store)", "store", seconds=0.5)
def search_store(probe: Probe) -> float:
    _list_on_screen(probe)
    box = probe.page.get_by_placeholder("words in the question or IRI")
    box.fill("bronze age")
    start = time.perf_counter()
    box.press("Enter")
    probe.until(SEARCHED)
    return time.perf_counter() - start


# -- running them ---------------------------------------------------------------------------------

def prepare_store(sessions: int, work: Path) -> Path:
    """A local store of ``sessions`` synthetic sessions with their texts, made in ``work``."""
    import synthetic
    from trace_explorer.store.ingest import ingest_file
    from trace_explorer.store.local_store import open_local_store

    print(f"generating and ingesting {sessions:,} sessions ...", file=sys.stderr, flush=True)
    made = synthetic.generate(work / "data", sessions)
    store = open_local_store(work / "store")
    ingest_file(store, str(made.nquads))
    ingest_file(store, str(made.documents))
    del store
    shutil.rmtree(work / "data", ignore_errors=True)
    return work / "store"


@contextlib.contextmanager
def servers(work: Path, store: Path | None, names: set[str]) -> Iterator[dict[str, str]]:
    """The servers ``names`` asks for, by name -> base URL."""
    bare = work / "bare_app.py"
    bare.write_text(BARE_APP, encoding="utf-8")
    base_env = {"TRACE_EXPLORER_STORE": ""}  # the demo server starts on the demo, not on a deployment's store
    with contextlib.ExitStack() as stack:
        urls = {}
        if "bare" in names:
            urls["bare"] = stack.enter_context(streamlit_server(bare, env=base_env))
        if "demo" in names:
            urls["demo"] = stack.enter_context(streamlit_server(env=base_env))
        if "store" in names and store is not None:
            urls["store"] = stack.enter_context(streamlit_server(env=dict(base_env, TRACE_EXPLORER_STORE=str(store))))
        yield urls


def run(chosen: list[Measurement], urls: dict[str, str], repeat: int, where: bool = False) -> None:
    """Time each measurement: one warm-up, then ``repeat`` runs, each on a fresh page; with
    ``where``, each run under the sampling profiler too (``main_thread.busy_ms``)."""
    with chromium_page(viewport=(1400, 1000), default_timeout_ms=TIMEOUT_MS) as first:
        browser_context = first.context
        for item in chosen:
            if item.server not in urls:
                continue
            print(f"{item.label} ...", file=sys.stderr, flush=True)
            for attempt in range(repeat + 1):
                page = browser_context.new_page()
                probe, timed, spent = Probe(page, urls[item.server], item.server), [], None
                try:
                    if where:
                        spent = busy_ms(browser_context, page, lambda: timed.append(item.run(probe)))
                    else:
                        timed.append(item.run(probe))
                finally:
                    page.close()
                if attempt:  # the first run warms the browser's cache and the server up
                    item.times.append(timed[0])
                    if spent:
                        item.busy.append(spent)


def report(chosen: list[Measurement], repeat: int) -> None:
    bare = next((m for m in chosen if m.server == "bare" and m.times), None)
    base = statistics.median(bare.times) if bare else None
    rows = []
    for item in chosen:
        if not item.times:
            rows.append((item.label, "not run", "", "", "", ""))
            continue
        median = statistics.median(item.times)
        ratio = f"{median / base:.2f}x" if base else ""
        if item.ratio is not None and base:
            target, ok = f"<= {item.ratio:g}x bare", median / base <= item.ratio
        elif item.seconds is not None:
            target, ok = f"<= {item.seconds:g} s", median <= item.seconds
        else:
            target, ok = "", None
        verdict = "" if ok is None else ("PASS" if ok else "MISS")
        spread = f"{min(item.times):.2f}-{max(item.times):.2f} s"
        rows.append((item.label, f"{median:.2f} s", ratio, target, verdict, spread))
    header = ("measurement", "median", "vs bare", "target", "verdict", f"range of {repeat}")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("-" * (sum(widths) + 2 * (len(widths) - 1)))
    for row in rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(row, widths)))
    if any(item.busy for item in chosen):
        report_busy(chosen)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\n{os.cpu_count()} cores, load average at the end {load}; Chromium and the servers share them")


def report_busy(chosen: list[Measurement]) -> None:
    """The main thread's CPU per measurement (medians, ms), by who spent it (``--where``)."""
    print("\nthe browser's main thread, CPU ms (medians; the profiler's own cost is in the times above)")
    width = max(len(item.label) for item in chosen)
    print(f"{'measurement':<{width}}  {'busy':>6}  " + "  ".join(f"{SHORT[k]:>10}" for k in KINDS))
    for item in chosen:
        if item.busy:
            cells = [statistics.median(b[k] for b in item.busy) for k in ("busy", *KINDS)]
            print(f"{item.label:<{width}}  " + "  ".join(f"{v:>{6 if i == 0 else 10}.0f}" for i, v in enumerate(cells)))
    print("; ".join(KINDS))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs after a warm-up (median reported)")
    parser.add_argument("--store", metavar="DIR", help="a local store made before (else one is made)")
    parser.add_argument("--sessions", type=int, default=10_000, help="synthetic sessions of the store made")
    parser.add_argument("--no-store", action="store_true", help="skip the measurements on a store")
    parser.add_argument("--only", nargs="*", metavar="NAME", help="only the measurements whose function name "
                        "or label contains one of these (the bare page is always measured)")
    parser.add_argument("--list", action="store_true", help="list the measurements and stop")
    parser.add_argument("--where", action="store_true", help="also profile each run's main thread in Chromium "
                        "and print its CPU by who spent it (Streamlit's front end, the app's components, the engine)")
    args = parser.parse_args(argv)
    use_browser()  # Debian's chromium, as people run it
    if args.list:
        for item in MEASUREMENTS:
            print(f"{item.run.__name__:32s} {item.server:6s} {item.label}")
        return 0
    chosen = [m for m in MEASUREMENTS if m.server == "bare" or not args.only
              or any(o in m.run.__name__ or o in m.label for o in args.only)]
    if args.no_store:
        chosen = [m for m in chosen if m.server != "store"]
    work = Path(tempfile.mkdtemp(prefix="trace-explorer-browser-"))
    try:
        store = None
        if any(m.server == "store" for m in chosen):
            store = Path(args.store).resolve() if args.store else prepare_store(args.sessions, work)
        with servers(work, store, {m.server for m in chosen}) as urls:
            run(chosen, urls, max(1, args.repeat), args.where)
        print("Trace Explorer in the browser (headless Chromium, 1400 x 1000)")
        report(chosen, max(1, args.repeat))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
