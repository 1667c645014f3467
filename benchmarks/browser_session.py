"""The session page and the list in a real browser: how long a person waits, against a bare
Streamlit page.

    python benchmarks/browser_session.py [--repeat 3] [--iterations 2000] [--keep DIR]

Starts three servers on free loopback ports (``streamlit run``, as the browser tests do): a bare
one-line Streamlit page, the app on the bundled demo, and the app on a local store holding one
synthetic ReAct session of ``--iterations`` iterations (``benchmarks/synthetic.py``; 2,000
iterations make 4,002 steps). Then, in headless Chromium (Debian's ``/usr/bin/chromium``,
``CHROMIUM_PATH`` overrides), each in a fresh browser context, it times:

- the bare page: from navigation start to its one line on screen with the script finished;
- the session list's first page (``/``) until its rows are drawn;
- the 26-step ReAct session of the demo opened from its link (``/session?session=IRI``), until
  the page is *settled*: the script finished, the heading and the workspace drawn;
- the 4,002-step session opened from its link, until the same: first the server's first open
  (the session read from the store), then again in a new context (read before, as when a link
  is shared or the page reloaded);
- on both sessions, a "j" key press until the next step's words are in the inspector and the
  frame after them is painted (from the key event's own time stamp), and a click on a graph
  node until its step's words are (from the pointer event's time stamp).

Load times come from the page's own clock (``performance.now()``, zero at navigation start),
polled every 20 ms; each is the median of ``--repeat`` runs after one warm-up visit per server
(the server's first run imports the app and reads the demo). Ratios are against the bare page
of the same run. Numbers are printed, never asserted: speed targets live here, not in unit tests.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
for path in (str(REPO), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from tests.browser_session_support import session_url  # noqa: E402
from tests.browser_support import CHROMIUM_ARGS, CHROMIUM_PATH, chromium_available, streamlit_server  # noqa: E402

REACT_26 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
BARE_TEXT = "Trace Explorer bare page"
TIMEOUT_MS = 120_000
POLL_MS = 20
# the session list drawn: its caption ("1–22 of 22 matching · ..."), written once the rows are read
LIST_READY = "() => document.querySelector('[data-testid=\"stMain\"]')?.innerText.includes(' matching · ') ? performance.now() : false"

# JS: the first element matching a selector, in the page or in a component's shadow root.
_DEEP = """
  const deep = (selector) => {
    const found = document.querySelector(selector);
    if (found) return found;
    for (const host of document.querySelectorAll('[data-testid="stBidiComponentIsolated"]')) {
      const inner = host.shadowRoot && host.shadowRoot.querySelector(selector);
      if (inner) return inner;
    }
    return null;
  };
"""
# JS: the script is not running and the connection is up (tests/browser_support.py's test).
_IDLE = _DEEP + """
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return false;
  const conn = app.getAttribute('data-test-connection-state');
  if (conn !== null && conn !== 'CONNECTED') return false;
  const state = app.getAttribute('data-test-script-state');
  if (state !== null && state !== 'notRunning') return false;
  if (document.querySelector('[data-testid="stStatusWidgetRunningIcon"]')) return false;
"""
# JS: the bare page's line is on screen.
BARE_READY = "() => {" + _IDLE + f"""
  const text = document.querySelector('[data-testid="stMain"]');
  return text && text.innerText.includes({json.dumps(BARE_TEXT)}) ? performance.now() : false;
}}"""
# JS: the session page is settled (heading and workspace drawn).
SESSION_READY = "() => {" + _IDLE + """
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main || !main.querySelector('[data-testid="stHeading"]')) return false;
  const ws = deep('[data-te-workspace="drawn"]');
  if (!ws || !ws.querySelector('.te-wf-row') || !ws.querySelector('.te-ins-title')) return false;
  return performance.now();
}"""
# JS: arm a timer: from the next event ``kind`` (its time stamp) until the inspector holds
# ``words`` and the frame after is painted; the milliseconds land in window.__teTook.
ARM = "([kind, words]) => {" + _DEEP + """
  const box = deep('.te-ins');
  window.__teTook = null;
  let start = null;
  document.addEventListener(kind, (e) => { start = e.timeStamp; }, {capture: true, once: true});
  const seen = new MutationObserver(() => {
    if (start === null || !box.textContent.includes(words)) return;
    seen.disconnect();
    requestAnimationFrame(() => setTimeout(() => { window.__teTook = performance.now() - start; }, 0));
  });
  seen.observe(box, {childList: true, subtree: true, characterData: true});
}"""
# JS: the graph is drawn (its library, vis-network, is sent when the graph is first shown)
GRAPH_DRAWN = "() => {" + _DEEP + " const dag = deep('.te-dag'); return !!dag && dag.getAttribute('data-te-dag') === 'drawn'; }"
WORKSPACE = "([script, arg]) => {" + _DEEP + " return new Function('w', 'arg', 'return (' + script + ')(w, arg)')(deep('.te-ws').__teWorkspace, arg); }"


def bare_app(folder: Path) -> Path:
    """A one-line Streamlit page (the floor every Streamlit page pays)."""
    path = folder / "bare.py"
    path.write_text(f"import streamlit as st\n\nst.write({BARE_TEXT!r})\n", encoding="utf-8")
    return path


def long_store(folder: Path, iterations: int) -> tuple[Path, str, int]:
    """A local store in ``folder`` holding one synthetic ReAct session of ``iterations``
    iterations, its health checked as ``trace-explorer ingest`` checks it; returns (store directory, session IRI, its number of steps)."""
    import pyoxigraph as ox
    from synthetic import make_react_session

    from trace_explorer.analysis.health.index import refresh_health
    from trace_explorer.store.ingest import ingest_file
    from trace_explorer.store.local_store import open_local_store

    root, quads, documents = make_react_session(iterations, question=f"A long run of {iterations} tool calls")
    trace = folder / "long.nq"
    trace.write_bytes(ox.serialize(quads, format=ox.RdfFormat.N_QUADS))
    texts = folder / "long.documents.json"
    texts.write_text(json.dumps(documents), encoding="utf-8")
    store_dir = folder / "store"
    store = open_local_store(store_dir)
    for path in (trace, texts):
        ingest_file(store, str(path))
    refresh_health(store.writer_source(), after_ingest=True)  # as `trace-explorer ingest` does
    del store
    return store_dir, root, 2 * iterations + 2


def settled_at(page, ready_js: str, timeout_ms: float = TIMEOUT_MS) -> float:
    """Milliseconds from navigation start until ``ready_js`` holds, and still holds 300 ms later
    (a rerun that starts right after the first check moves the time to its own end)."""
    while True:
        first = page.wait_for_function(ready_js, timeout=timeout_ms, polling=POLL_MS).json_value()
        page.wait_for_timeout(300)
        if page.evaluate(ready_js):
            return float(first)


def open_timed(browser, url: str, ready_js: str, viewport: tuple[int, int]) -> float:
    """Open ``url`` in a fresh browser context; seconds until ``ready_js`` holds."""
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(url)
        return settled_at(page, ready_js) / 1000
    finally:
        context.close()


@contextlib.contextmanager
def settled_page(browser, url: str, viewport: tuple[int, int] = (1400, 1000)):
    """A page of a fresh browser context on the session page ``url``, settled; closed after."""
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(url)
        settled_at(page, SESSION_READY)
        yield page
    finally:
        context.close()


def interaction_timed(browser, url: str, viewport: tuple[int, int], name: str) -> dict[str, float]:
    """On one session: a "j" key press and a click on a graph node, each in seconds from its
    event until the step's words are in the inspector and painted."""
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    times: dict[str, float] = {}
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(url)
        settled_at(page, SESSION_READY)
        page.locator('[data-testid="stMain"] h3').first.click()
        words = page.evaluate(WORKSPACE, ["w => w.steps[w.waterfall.neighbour(w.selected, 1)].label", None])
        page.evaluate(ARM, ["keydown", words])
        page.keyboard.press("j")
        times[f"{name}: press j, next step's words shown"] = _took(page)
        page.evaluate(WORKSPACE, ["w => w.showView('graph')", None])
        page.wait_for_function(GRAPH_DRAWN, timeout=TIMEOUT_MS, polling=POLL_MS)  # its library comes on first show
        target = page.evaluate(WORKSPACE, ["""w => { const here = w.steps[w.selected].node;
            const n = w.graph.graph.nodes.find(n => n.step && n.id !== here && w.graph.visible(n.id)
                                                 && w.steps[w.index.get(n.step)].node === n.id);
            return n ? n.id : null; }""", None])
        point = page.evaluate(WORKSPACE, ["(w, id) => w.graph.pointOf(id)", target])
        words = page.evaluate(WORKSPACE, ["(w, id) => w.steps[w.index.get(w.graph.graph.nodes.find(n => n.id === id).step)].label", target])
        page.evaluate(ARM, ["pointerdown", words])
        page.mouse.click(point["x"], point["y"])
        times[f"{name}: click a graph node, its step's words shown"] = _took(page)
    finally:
        context.close()
    return times


def _took(page) -> float:
    """Seconds the armed timer measured (``ARM``)."""
    page.wait_for_function("() => window.__teTook !== null", timeout=TIMEOUT_MS, polling=POLL_MS)
    return page.evaluate("() => window.__teTook") / 1000


def chromium_missing() -> bool:
    """True (and said on stderr) when there is no Chromium at ``CHROMIUM_PATH``."""
    if chromium_available(CHROMIUM_PATH):
        return False
    print(f"Chromium not found at {CHROMIUM_PATH}", file=sys.stderr)
    return True


def launched_chromium(stack: contextlib.ExitStack):
    """Headless Chromium (``CHROMIUM_PATH``) from sync Playwright, both closed when ``stack`` ends."""
    from playwright.sync_api import sync_playwright

    playwright = stack.enter_context(sync_playwright())
    browser = playwright.chromium.launch(executable_path=CHROMIUM_PATH, headless=True, args=CHROMIUM_ARGS)
    stack.callback(browser.close)
    return browser


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each measurement (default 3)")
    parser.add_argument("--iterations", type=int, default=2000, help="iterations of the long session (default 2000)")
    parser.add_argument("--width", type=int, default=1400, help="browser viewport width in CSS pixels (default 1400)")
    parser.add_argument("--keep", help="build the long session's store in DIR and leave it there")
    args = parser.parse_args(argv)
    if chromium_missing():
        return 2
    viewport = (args.width, 1000)
    with contextlib.ExitStack() as stack:
        folder = Path(args.keep) if args.keep else Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="trace-explorer-browser-bench-")))
        folder.mkdir(parents=True, exist_ok=True)
        built = time.perf_counter()
        store_dir, long_iri, long_steps = long_store(folder, args.iterations)
        print(f"{platform.machine()}, Python {platform.python_version()}; viewport {viewport[0]}x{viewport[1]}; "
              f"long session: {long_steps:,} steps (store built in {time.perf_counter() - built:.1f} s); "
              f"medians of {args.repeat}")
        bare = stack.enter_context(streamlit_server(bare_app(folder)))
        demo = stack.enter_context(streamlit_server(env={"TRACE_EXPLORER_STORE": ""}))
        long = stack.enter_context(streamlit_server(env={"TRACE_EXPLORER_STORE": str(store_dir)}))
        browser = launched_chromium(stack)

        # warm-up: each server's first run imports the app and reads its source
        open_timed(browser, bare, BARE_READY, viewport)
        open_timed(browser, demo + "/", LIST_READY, viewport)
        open_timed(browser, long + "/", LIST_READY, viewport)
        first_long = open_timed(browser, session_url(long, long_iri), SESSION_READY, viewport)

        rows: dict[str, list[float]] = {}
        long_name = f"{long_steps:,}-step session"
        for _ in range(args.repeat):
            rows.setdefault("bare one-line page", []).append(open_timed(browser, bare, BARE_READY, viewport))
            rows.setdefault("session list, first page", []).append(
                open_timed(browser, demo + "/", LIST_READY, viewport))
            rows.setdefault("26-step session from a link, settled", []).append(
                open_timed(browser, session_url(demo, REACT_26), SESSION_READY, viewport))
            rows.setdefault(f"{long_name} from a link, settled", []).append(
                open_timed(browser, session_url(long, long_iri), SESSION_READY, viewport))
            for url, name in ((session_url(demo, REACT_26), "26-step session"), (session_url(long, long_iri), long_name)):
                for label, seconds in interaction_timed(browser, url, viewport, name).items():
                    rows.setdefault(label, []).append(seconds)

    bare_s = median(rows["bare one-line page"])
    fast = ("<= 100 ms", lambda s: s <= 0.1)
    targets = {"session list, first page": ("<= 1.5x bare", lambda s: s <= 1.5 * bare_s),
               "26-step session from a link, settled": ("<= 2x bare", lambda s: s <= 2 * bare_s),
               f"{long_name} from a link, settled": ("<= 2 s", lambda s: s <= 2.0)}
    print(f"{'measurement':<58} {'median':>9} {'runs':>24} {'vs bare':>8}   {'target':<12} verdict")
    print("-" * 125)
    for name, values in rows.items():
        value = median(values)
        runs = ", ".join(f"{v * 1000:.0f}" if v < 1 else f"{v:.2f}" for v in values)
        target, met = targets.get(name, fast if ": " in name else ("", None))
        verdict = "" if met is None else ("PASS" if met(value) else "MISS")
        shown = f"{value * 1000:>6.0f} ms" if value < 1 else f"{value:>7.2f} s"
        print(f"{name:<58} {shown:>9} {runs:>24} {value / bare_s:>7.2f}x   {target:<12} {verdict}")
    print(f"{f'{long_name}, first open (read from the store)':<58} {first_long:>7.2f} s "
          f"{'':>24} {first_long / bare_s:>7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
